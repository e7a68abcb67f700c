//! CRESTA Collectives Microbenchmark Suite (D4.5.2,
//! `shared/seeds/003_*.txt`): collectives embedded in scenarios (§4.2),
//! timed as the global time to completion T = max(t_end) − min(t_start)
//! over the participants (§4.3, `method::GlobalCompletion`: every
//! repetition starts at an agreed time on the synchronised clocks).
//!
//! * Scenario 1: start – issue – sync – stop.
//! * Scenario 2: participant D does start – delay(t_delay) – issue – sync –
//!   stop, the others scenario 1.
//! * Scenario 3: start – issue – calc(t_calc) – sync – stop; for a blocking
//!   collective the sync is a null action, so calc comes after the call.
//!
//! A benchmark is one collective, blocking or non-blocking ([`Scenario`]
//! over a [`Phased`] pattern); its points are (m, scenario, t_delay or
//! t_calc), and the kernel's `run` is the whole scenario between the
//! method's start and stop. The payload is m bytes of MPI_BYTE; reductions
//! (Reduce, Allreduce, Reduce_scatter_block) sum m elements of
//! MPI_UNSIGNED_CHAR with MPI_SUM, since MPI_SUM is not defined on
//! MPI_BYTE, so the payload stays m bytes. m is the outbound buffer (§4.1):
//! for Alltoall, Scatter and Reduce_scatter_block it holds one block per
//! participant, so the calls move blocks of m/P ([`Outbound`]).

mod allgather;
mod allreduce;
mod alltoall;
pub mod args;
mod barrier;
mod bcast;
pub mod front;
mod gather;
pub mod plot;
mod reduce;
mod reduce_scatter_block;
mod scatter;
pub mod table;
pub mod work;

use anyhow::Result;
use serde_json::Value;

use super::buf::{BufKernel, Pattern, Phased};
use super::{overlap, Benchmark, Combine, Figure, Info, Kernel, Setup};
use crate::comm;
use crate::contract::axis::{Point, SweepCx};
use crate::contract::RepsDefault;
use crate::method::Method;
use crate::method::SyncMode;
use crate::plugin::{benches, Defaults, ProcSweep, Suite, SuiteHelp};
use crate::results::BenchResult;
use work::{busy_wait, Calc, Tally};

pub use args::{axes, HEADING};

pub const SUITE: &str = "cresta";

/// What every CRESTA benchmark shares: its suite and the method its
/// definition requires (§4.3).
const INFO: Info = Info {
    suite: SUITE,
    method: Some(Method::GlobalCompletion),
    ..Info::DEFAULT
};

/// The collectives, each blocking then non-blocking; the seed's five first.
pub fn benchmarks() -> Vec<&'static dyn Benchmark> {
    vec![
        &barrier::BARRIER,
        &barrier::IBARRIER,
        &bcast::BCAST,
        &bcast::IBCAST,
        &gather::GATHER,
        &gather::IGATHER,
        &allgather::ALLGATHER,
        &allgather::IALLGATHER,
        &allreduce::ALLREDUCE,
        &allreduce::IALLREDUCE,
        &reduce::REDUCE,
        &reduce::IREDUCE,
        &alltoall::ALLTOALL,
        &alltoall::IALLTOALL,
        &scatter::SCATTER,
        &scatter::ISCATTER,
        &reduce_scatter_block::REDUCE_SCATTER_BLOCK,
        &reduce_scatter_block::IREDUCE_SCATTER_BLOCK,
    ]
}

fn entries() -> Vec<super::entry::Entry> {
    benches(benchmarks())
}

/// The suite's entry in the registry.
pub const REGISTERED: Suite = Suite {
    name: SUITE,
    title: "CRESTA Collectives Microbenchmark Suite (D4.5.2): collectives in scenarios, global time to completion",
    entries,
    defaults: Defaults {
        method: Method::GlobalCompletion,
        sync: SyncMode::Window,
        reps: RepsDefault::Fixed {
            normal: 100,
            fast: 100,
        },
        sizes: "8,1K,64K,1M",
        procs: ProcSweep::Pmb,
        warm_largest: 0,
    },
    axes: Some(axes),
    formats: &[(SUITE, &table::Cresta)],
    figure: Some(crate::plugin::Figure {
        what: "CRESTA's Figure 1",
        write: plot::write,
    }),
    report: table::PARTS,
    help: SuiteHelp {
        heading: Some(HEADING),
        own: Some("mpibench cresta COLL P_min nreps m_min m_max delay delay_P"),
        example: "mpibench run -n 4 --suite cresta Bcast --scenarios 1,2 --sizes 8,1K",
    },
    front: Some(&front::FRONTEND),
    run_options: &[
        "scenarios",
        "delay_min",
        "delay_max",
        "calc_min",
        "calc_max",
        "delayed",
        "plot",
    ],
    ..Suite::PLAIN
};

/// The seed's collective names (§5: `make coll=...`) and ours; `i` in
/// front gives the non-blocking form.
pub const SEED_NAMES: &[(&str, &str)] = &[
    ("barrier", "Barrier"),
    ("broadcast", "Bcast"),
    ("gather", "Gather"),
    ("allGather", "Allgather"),
    ("allReduce", "Allreduce"),
];

/// The title of a benchmark's blocks in the seed's output ("Broadcast:").
pub fn title(name: &str) -> String {
    match name {
        "Bcast" => "Broadcast".into(),
        "Ibcast" => "Ibroadcast".into(),
        n => n.into(),
    }
}

// Names of the row params (JSON `params`).
pub const SCENARIO: &str = "scenario";
pub const T_DELAY: &str = "t_delay_us";
pub const T_CALC: &str = "t_calc_us";
pub const DELAYED_RANK: &str = "delayed_rank";
/// Measured in the scenario: the delay D busy-waited (mean, median), the
/// calc time of the participants (mean, median: means over the
/// participants; shortest).
pub const T_DELAY_ACHIEVED: &str = "t_delay_achieved_us";
pub const T_DELAY_ACHIEVED_MEDIAN: &str = "t_delay_achieved_median_us";
pub const T_CALC_ACHIEVED: &str = "t_calc_achieved_us";
pub const T_CALC_ACHIEVED_MEDIAN: &str = "t_calc_achieved_median_us";
pub const T_CALC_ACHIEVED_MIN: &str = "t_calc_achieved_min_us";
/// Derived (rank 0): T of scenario 1 at the same m and P, T − t_delay, the overlaps.
pub const T_SC1: &str = "t_sc1_us";
pub const T_MINUS_DELAY: &str = "t_minus_delay_us";
pub const OVERLAP_OSU: &str = "overlap_osu_pct";
pub const OVERLAP_NBC: &str = "overlap_nbc_pct";

/// Plan axis: which participant is delayed (a rank, or −1 for the last).
const DELAYED_AXIS: &str = "delayed";

/// Defaults of `mpibench run --suite cresta` (µs).
pub const DELAY_RANGE: (f64, f64) = (16.0, 1024.0);
pub const CALC_RANGE: (f64, f64) = (16.0, 1024.0);
/// Largest t_delay or t_calc accepted (µs): 10 s.
const MAX_US: f64 = 1e7;

/// The delayed participant D of scenario 2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delayed {
    /// D = 1 in the seed: rank 0.
    First,
    /// D = P: the last participant, whatever P.
    Last,
    Rank(usize),
}

impl Delayed {
    /// The seed's delay_P (§5: "the participant number which is being
    /// delayed"): participants are numbered from 1, D = 1 the first and
    /// D = P the last (§4.2), on a run of `world` ranks. delay_P = P_max
    /// (the world) is D = P, the last participant of every P of the sweep;
    /// 1 < delay_P < P_max is rank delay_P − 1, where it takes part.
    /// `first` and `last` are read as D = 1 and D = P, and 0 as the first
    /// too (rank 0: a user counting ranks from 0 means the same one).
    pub fn from_seed(s: &str, world: usize) -> Result<Delayed, String> {
        let t = s.trim().to_ascii_lowercase();
        if t == "first" || t == "last" {
            return Delayed::parse(&t);
        }
        let d: usize = t.parse().map_err(|_| {
            format!(
                "delay_P must be the number of the delayed participant, 1 (the first) to P_max (the last; 0 is the first too), or first or last, not '{s}'"
            )
        })?;
        if d > world {
            return Err(format!(
                "delay_P {d} is outside 0..{world}: this run has {world} ranks (0 or 1 = the first participant, {world} = the last)"
            ));
        }
        Ok(match d {
            0 | 1 => Delayed::First,
            d if d == world => Delayed::Last,
            d => Delayed::Rank(d - 1),
        })
    }

    pub fn parse(s: &str) -> Result<Delayed, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "first" => Ok(Delayed::First),
            "last" => Ok(Delayed::Last),
            t => t.parse::<usize>().map(Delayed::Rank).map_err(|_| {
                format!("the delayed participant must be first, last or a rank 0..P-1, not '{s}'")
            }),
        }
    }

    fn code(self) -> f64 {
        match self {
            Delayed::First => 0.0,
            Delayed::Last => -1.0,
            Delayed::Rank(r) => r as f64,
        }
    }

    /// The rank of D among `q` participants, from a plan axis value.
    fn resolve(code: f64, q: usize) -> usize {
        if code < 0.0 {
            q.saturating_sub(1)
        } else {
            code as usize
        }
    }
}

/// `from`, 2·from, 4·from, ... ≤ `to` (µs); a `from` of 0 gives 0, 1, 2, 4, ...
pub fn sweep(from: f64, to: f64) -> Vec<f64> {
    let mut v = Vec::new();
    let mut x = from;
    if from == 0.0 {
        v.push(0.0);
        x = 1.0;
    }
    while x <= to && v.len() < 64 {
        v.push(x);
        x *= 2.0;
    }
    v
}

/// A JSON number, integral where the value is.
fn num(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 9e15 {
        Value::from(v as i64)
    } else {
        Value::from(v)
    }
}

/// The points of a CRESTA benchmark on `cx.q` participants: scenario 1 at
/// every m, then scenario 2 for each t_delay and scenario 3 for each t_calc.
pub fn points(info: &Info, cx: &SweepCx) -> Vec<Point> {
    let axis = |name: &str, default: Vec<f64>| -> Vec<f64> {
        let v = cx.axis(name);
        if v.is_empty() {
            default
        } else {
            v.to_vec()
        }
    };
    let scen = axis(SCENARIO, vec![1.0, 2.0, 3.0]);
    let delays = axis(T_DELAY, sweep(DELAY_RANGE.0, DELAY_RANGE.1));
    let calcs = axis(T_CALC, sweep(CALC_RANGE.0, CALC_RANGE.1));
    let d = Delayed::resolve(axis(DELAYED_AXIS, vec![0.0])[0], cx.q);
    let sizes = cx.default_points(info);
    let at = |p: &Point, s: u64, delay: f64, calc: f64| {
        p.clone()
            .with(SCENARIO, s)
            .with(T_DELAY, num(delay))
            .with(T_CALC, num(calc))
            .with(
                DELAYED_RANK,
                if s == 2 { Value::from(d) } else { Value::Null },
            )
    };
    let mut out = Vec::new();
    if scen.contains(&1.0) {
        out.extend(sizes.iter().map(|p| at(p, 1, 0.0, 0.0)));
    }
    if scen.contains(&2.0) {
        for &t in &delays {
            out.extend(sizes.iter().map(|p| at(p, 2, t, 0.0)));
        }
    }
    if scen.contains(&3.0) {
        for &t in &calcs {
            out.extend(sizes.iter().map(|p| at(p, 3, 0.0, t)));
        }
    }
    out
}

/// What m (§4.1: the elements in the outbound message buffer) is to the
/// pattern, whose own X is what one participant sends to one partner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outbound {
    /// The outbound buffer is one block: X = m (Bcast's root, Gather,
    /// Allgather, Reduce, Allreduce; Barrier has none).
    Whole,
    /// The outbound buffer holds one block per participant: X = ⌊m/P⌋
    /// (Alltoall, Scatter's root, Reduce_scatter_block).
    Split,
}

/// A collective in CRESTA's scenarios. Rows and points carry m; the
/// pattern runs, allocates and validates with its block X (see [`Outbound`]).
pub struct Scenario<P> {
    pat: P,
    outbound: Outbound,
}

impl<P> Scenario<P> {
    /// m is the pattern's X.
    pub const fn whole(pat: P) -> Scenario<P> {
        Scenario {
            pat,
            outbound: Outbound::Whole,
        }
    }

    /// m is split in P blocks, one per participant.
    pub const fn split(pat: P) -> Scenario<P> {
        Scenario {
            pat,
            outbound: Outbound::Split,
        }
    }

    /// The block X of the pattern for m bytes on `q` participants.
    pub fn block(&self, m: usize, q: usize) -> usize {
        match self.outbound {
            Outbound::Whole => m,
            Outbound::Split => m / q.max(1),
        }
    }

    /// The point as the pattern sees it: its X instead of m.
    fn inner(&self, p: &Point, q: usize) -> Point {
        Point {
            bytes: self.block(p.bytes, q),
            params: p.params.clone(),
        }
    }
}

impl<P: Phased> Benchmark for Scenario<P> {
    fn info(&self) -> &'static Info {
        Pattern::info(&self.pat)
    }

    fn points(&self, cx: &SweepCx) -> Vec<Point> {
        points(Pattern::info(&self.pat), cx)
    }

    fn need(&self, p: &Point, q: usize) -> u64 {
        let l = self.pat.layout(self.block(p.bytes, q), q);
        (l.send + l.recv) as u64
    }

    fn refuse(&self, p: &Point, q: usize) -> Option<String> {
        let x = self.block(p.bytes, q);
        if p.bytes > 0 && x == 0 {
            return Some(format!(
                "{}: m = {} bytes is the outbound buffer of {q} participants, blocks of m/P = 0 bytes: skipped",
                Pattern::info(&self.pat).name,
                p.bytes
            ));
        }
        Pattern::refuse(&self.pat, &self.inner(p, q), q).or_else(|| {
            let d = p.u64(DELAYED_RANK)? as usize;
            (d >= q).then(|| {
                format!(
                    "scenario 2 skipped on {q} participants: the delayed participant {d} is not among them"
                )
            })
        })
    }

    fn kernel<'a>(&'a self, s: Setup<'a>, p: &Point) -> Result<Box<dyn Kernel + 'a>> {
        let me = s.comm.rank;
        let (delay_cal, calc_cal) = work::calibration();
        let scenario = p.u64(SCENARIO).unwrap_or(1);
        let delay = match (scenario, p.u64(DELAYED_RANK)) {
            (2, Some(d)) if d as usize == me => {
                delay_cal.target(p.f64(T_DELAY).unwrap_or(0.0) * 1e-6)
            }
            _ => 0.0,
        };
        let calc = if scenario == 3 {
            calc_cal.iterations(p.f64(T_CALC).unwrap_or(0.0) * 1e-6)
        } else {
            0
        };
        let inner = self.inner(p, s.comm.size);
        Ok(Box::new(ScenarioKernel {
            inner: BufKernel::new(&self.pat, s, &inner)?,
            delay,
            calc,
            work: Calc::default(),
            delayed: Tally::default(),
            calced: Tally::default(),
        }))
    }

    fn derive(&self, r: &mut BenchResult) {
        derive(r);
    }
}

/// One participant's scenario around the collective's calls.
struct ScenarioKernel<'a, P> {
    inner: BufKernel<'a, P>,
    /// Seconds this participant busy-waits before issuing (0: not D).
    delay: f64,
    /// Iterations of calc after issuing (0: no calc).
    calc: u64,
    work: Calc,
    delayed: Tally,
    calced: Tally,
}

impl<P: Phased> Kernel for ScenarioKernel<'_, P> {
    /// [delay] – issue – [calc] – sync: the whole scenario between the
    /// method's start and stop. The delay and the calc read the clock
    /// themselves (the delay is a busy-wait on it; the calc is timed so
    /// that the achieved calc time is reported).
    #[inline(always)]
    fn run(&mut self, rep: usize) {
        self.inner.begin(rep);
        if self.delay > 0.0 {
            let mut now = comm::wtime;
            let t0 = now();
            let waited = busy_wait(&mut now, t0, self.delay);
            self.delayed.add(waited);
        }
        self.inner.pat.issue(&mut self.inner.op);
        if self.calc > 0 {
            let t0 = comm::wtime();
            self.work.run(self.calc);
            let t1 = comm::wtime();
            self.calced.add(t1 - t0);
        }
        self.inner.pat.complete(&mut self.inner.op);
    }

    crate::bench::buf::validated_by_inner!();

    fn figures(&mut self) -> Vec<Figure> {
        let mut v = Vec::new();
        let d = std::mem::take(&mut self.delayed);
        if let (Some(m), Some(med)) = (d.mean(), d.median()) {
            v.push(Figure::new(T_DELAY_ACHIEVED, m * 1e6, Combine::Mean));
            v.push(Figure::new(
                T_DELAY_ACHIEVED_MEDIAN,
                med * 1e6,
                Combine::Mean,
            ));
        }
        let c = std::mem::take(&mut self.calced);
        if let (Some(m), Some(med)) = (c.mean(), c.median()) {
            v.push(Figure::new(T_CALC_ACHIEVED, m * 1e6, Combine::Mean));
            v.push(Figure::new(
                T_CALC_ACHIEVED_MEDIAN,
                med * 1e6,
                Combine::Mean,
            ));
            v.push(Figure::new(T_CALC_ACHIEVED_MIN, c.min * 1e6, Combine::Min));
        }
        v
    }
}

/// Rank 0, after assembly: what each scenario means, against scenario 1 at
/// the same m and P (averages of T, as the seed reports them):
/// scenario 2, T − t_delay (the part of the delay not absorbed) beside T
/// of scenario 1; scenario 3, the overlap by OSU 7's and by IMB-NBC's
/// definition with t_pure = T of scenario 1, t_overall = T of scenario 3,
/// t_cpu = the calc time achieved (at most t_overall) and t_test = 0 (no
/// MPI_Test in calc); no overlap on one participant.
pub fn derive(r: &mut BenchResult) {
    let valid = |row: &crate::results::Row| row.valid.unwrap_or(0) > 0;
    let reference: Vec<(usize, f64)> = r
        .rows
        .iter()
        .filter(|row| row.params.get(SCENARIO).and_then(Value::as_u64) == Some(1) && valid(row))
        .map(|row| (row.bytes, row.t_avg_us))
        .collect();
    // One participant communicates with nobody: no overlap to speak of.
    let participants = r.processes;
    for row in r.rows.iter_mut().filter(|row| valid(row)) {
        let f = |k: &str| row.params.get(k).and_then(Value::as_f64);
        let t1 = reference
            .iter()
            .find(|(b, _)| *b == row.bytes)
            .map(|(_, t)| *t);
        let t = row.t_avg_us;
        let mut add: Vec<(&str, f64)> = Vec::new();
        match row.params.get(SCENARIO).and_then(Value::as_u64) {
            Some(2) => {
                add.push((T_MINUS_DELAY, t - f(T_DELAY).unwrap_or(0.0)));
                add.extend(t1.map(|t1| (T_SC1, t1)));
            }
            Some(3) => {
                // The calc is part of every repetition, so t_cpu ≤ t_overall
                // in each; the means come from different repetitions (T's
                // from those that started in time) and are made to agree.
                let t_cpu = f(T_CALC_ACHIEVED).or(f(T_CALC)).unwrap_or(0.0).min(t);
                if let (Some(t1), true) = (t1, participants > 1) {
                    add.push((T_SC1, t1));
                    add.extend(overlap::osu(t1, t_cpu, 0.0, t).map(|o| (OVERLAP_OSU, o)));
                    add.extend(overlap::imb_nbc(t1, t_cpu, t).map(|o| (OVERLAP_NBC, o)));
                }
            }
            _ => {}
        }
        for (k, v) in add {
            row.params.insert(k.into(), Value::from(v));
        }
    }
}

/// Resolves a collective name as the seed's command line gives it (case
/// insensitive; `broadcast`, `allGather`, ...; `i` in front for the
/// non-blocking form) or as this suite names it (`Bcast`, `Ialltoall`).
pub fn resolve(name: &str) -> Result<&'static str, String> {
    let norm = crate::plugin::normalise(name);
    for b in benchmarks() {
        let n = b.info().name;
        if crate::plugin::normalise(n) == norm {
            return Ok(n);
        }
    }
    for (seed, ours) in SEED_NAMES {
        let s = crate::plugin::normalise(seed);
        if s == norm {
            return Ok(ours);
        }
        if format!("i{s}") == norm {
            return Ok(benchmarks()
                .iter()
                .map(|b| b.info().name)
                .find(|n| {
                    crate::plugin::normalise(n) == format!("i{}", crate::plugin::normalise(ours))
                })
                .unwrap_or(ours));
        }
    }
    let mut known: Vec<String> = SEED_NAMES.iter().map(|(s, _)| s.to_string()).collect();
    known.extend(SEED_NAMES.iter().map(|(s, _)| format!("i{s}")));
    known.extend(benchmarks().iter().map(|b| b.info().name.to_string()));
    let hint = known
        .iter()
        .map(|k| {
            (
                crate::plugin::levenshtein(&norm, &crate::plugin::normalise(k)),
                k,
            )
        })
        .filter(|(d, k)| *d <= 3.max(k.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| format!(" (did you mean {k}?)"))
        .unwrap_or_default();
    Err(format!(
        "unknown collective '{name}'{hint}; known: barrier, broadcast, gather, allGather, allReduce, reduce, alltoall, scatter, reduce_scatter_block, each with i in front for the non-blocking form"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::RunArgs;
    use crate::contract::axis::Axes;
    use crate::results::Row;
    use alltoall::ALLTOALL;
    use bcast::BCAST;

    fn find(name: &str) -> &'static dyn Benchmark {
        benchmarks()
            .into_iter()
            .find(|b| b.info().name == name)
            .unwrap()
    }

    #[test]
    fn eighteen_collectives_blocking_and_not() {
        let all = benchmarks();
        assert_eq!(all.len(), 18);
        for pair in all.chunks(2) {
            let (b, nb) = (pair[0].info(), pair[1].info());
            assert_eq!(nb.name, format!("I{}", b.name.to_lowercase()));
            assert_eq!(
                (b.elem, b.reduction, b.rooted),
                (nb.elem, nb.reduction, nb.rooted)
            );
            assert_eq!(b.method, Some(Method::GlobalCompletion));
            assert_eq!(b.suite, SUITE);
        }
        // Reductions sum bytes as MPI_UNSIGNED_CHAR; the rest moves MPI_BYTE.
        assert_eq!(find("Allreduce").info().elem, crate::comm::Elem::UChar);
        assert_eq!(find("Ibcast").info().elem, crate::comm::Elem::Byte);
        assert!(!find("Barrier").info().sized());
    }

    fn cx<'a>(sizes: &'a [usize], axes: &'a Axes, q: usize) -> SweepCx<'a> {
        SweepCx { sizes, axes, q }
    }

    #[test]
    fn points_sweep_scenarios_delays_and_calcs() {
        let mut args = RunArgs {
            imbalance: crate::cli::Imbalance {
                delay_min: Some(10.0),
                delay_max: Some(40.0),
                calc_min: Some(0.0),
                calc_max: Some(2.0),
                delayed: Some("last".into()),
                ..Default::default()
            },
            ..RunArgs::default()
        };
        let axes = axes(&args, true, 4, 0).unwrap();
        let p = points(find("Ibcast").info(), &cx(&[8, 1024], &axes, 4));
        // 2 sizes × (1 + 3 delays (10, 20, 40) + 3 calcs (0, 1, 2)).
        assert_eq!(p.len(), 14);
        assert_eq!(p[0].u64(SCENARIO), Some(1));
        assert_eq!(p[0].params[DELAYED_RANK], Value::Null);
        let s2: Vec<&Point> = p.iter().filter(|x| x.u64(SCENARIO) == Some(2)).collect();
        assert_eq!(s2[0].u64(T_DELAY), Some(10));
        assert_eq!(s2[5].u64(T_DELAY), Some(40));
        // "last" is the last of each process count.
        assert!(s2.iter().all(|x| x.u64(DELAYED_RANK) == Some(3)));
        let on2 = points(find("Ibcast").info(), &cx(&[8], &axes, 2));
        assert!(on2
            .iter()
            .filter(|x| x.u64(SCENARIO) == Some(2))
            .all(|x| x.u64(DELAYED_RANK) == Some(1)));
        // Barrier has no size: one point per scenario value.
        let b = points(find("Barrier").info(), &cx(&[8, 1024], &axes, 4));
        assert_eq!(b.len(), 7);
        assert!(b.iter().all(|x| x.bytes == 0));
        // Scenario 3 alone still runs scenario 1, its reference.
        args.imbalance.scenarios = Some("3".into());
        let axes = super::axes(&args, true, 4, 0).unwrap();
        let p = points(find("Gather").info(), &cx(&[8], &axes, 4));
        let s: Vec<u64> = p.iter().map(|x| x.u64(SCENARIO).unwrap()).collect();
        assert_eq!(s, vec![1, 3, 3, 3]);
    }

    #[test]
    fn a_delayed_rank_beyond_the_participants_is_refused_per_point() {
        let args = RunArgs {
            imbalance: crate::cli::Imbalance {
                delayed: Some("3".into()),
                ..Default::default()
            },
            ..RunArgs::default()
        };
        let axes = axes(&args, true, 4, 0).unwrap();
        let b = find("Bcast");
        let p = points(b.info(), &cx(&[8], &axes, 2));
        let s2 = p.iter().find(|x| x.u64(SCENARIO) == Some(2)).unwrap();
        assert!(b.refuse(s2, 2).unwrap().contains("not among them"));
        assert_eq!(b.refuse(s2, 4), None);
        assert_eq!(b.refuse(&p[0], 2), None);
    }

    #[test]
    fn delay_p_numbers_participants_from_one_as_the_seed() {
        // D = 1 is the first participant, D = P (here P_max = 4) the last
        // of every P; others are rank D − 1.
        assert_eq!(Delayed::from_seed("1", 4), Ok(Delayed::First));
        assert_eq!(Delayed::from_seed("4", 4), Ok(Delayed::Last));
        assert_eq!(Delayed::from_seed("2", 4), Ok(Delayed::Rank(1)));
        assert_eq!(Delayed::from_seed("1", 1), Ok(Delayed::First));
        assert_eq!(Delayed::from_seed("Last", 4), Ok(Delayed::Last));
        assert_eq!(Delayed::from_seed("first", 4), Ok(Delayed::First));
        // 0 is the first participant too (rank 0, as a rank number reads it).
        assert_eq!(Delayed::from_seed("0", 4), Ok(Delayed::First));
        assert!(Delayed::from_seed("5", 4)
            .unwrap_err()
            .contains("outside 0..4"));
        assert!(Delayed::from_seed("-1", 4)
            .unwrap_err()
            .contains("1 (the first) to P_max"));
        // Through the plan's axes: delay_P = P_max delays the last
        // participant at every P of the sweep, delay_P = 1 the first.
        let on = |d: &str, q: usize| {
            let a = RunArgs {
                front: crate::cli::FrontSet {
                    delay_p: Some(d.into()),
                    ..Default::default()
                },
                ..RunArgs::default()
            };
            let axes = axes(&a, true, 4, 0).unwrap();
            let p = points(find("Bcast").info(), &cx(&[8], &axes, q));
            let s2 = p.iter().find(|x| x.u64(SCENARIO) == Some(2)).unwrap();
            s2.u64(DELAYED_RANK).unwrap()
        };
        assert_eq!((on("4", 4), on("4", 2), on("4", 1)), (3, 1, 0));
        assert_eq!((on("1", 4), on("1", 2)), (0, 0));
        assert_eq!(on("2", 4), 1);
        // --delayed (a rank from 0) takes precedence.
        let a = RunArgs {
            front: crate::cli::FrontSet {
                delay_p: Some("4".into()),
                ..Default::default()
            },
            imbalance: crate::cli::Imbalance {
                delayed: Some("1".into()),
                ..Default::default()
            },
            ..RunArgs::default()
        };
        let axes = axes(&a, true, 4, 0).unwrap();
        let p = points(find("Bcast").info(), &cx(&[8], &axes, 4));
        assert!(p
            .iter()
            .filter(|x| x.u64(SCENARIO) == Some(2))
            .all(|x| x.u64(DELAYED_RANK) == Some(1)));
        let bad = RunArgs {
            front: crate::cli::FrontSet {
                delay_p: Some("5".into()),
                ..Default::default()
            },
            ..RunArgs::default()
        };
        assert!(super::axes(&bad, true, 4, 0)
            .unwrap_err()
            .contains("outside 0..4"));
    }

    #[test]
    fn m_is_the_outbound_buffer_split_in_blocks_for_the_per_partner_collectives() {
        let axes = axes(&RunArgs::default(), true, 4, 0).unwrap();
        let split = ["Alltoall", "Ialltoall", "Scatter", "Iscatter"]
            .into_iter()
            .chain(["Reduce_scatter_block", "Ireduce_scatter_block"]);
        for name in split {
            let b = find(name);
            // The points (and rows) keep m; the pattern moves blocks of m/P.
            let p = b.points(&cx(&[2, 8, 1024], &axes, 4));
            let m8 = p.iter().find(|x| x.bytes == 8).unwrap();
            let m1k = p.iter().find(|x| x.bytes == 1024).unwrap();
            // Send and receive buffers of a rank: m out, m in (Scatter:
            // m at the root, a block elsewhere; both are allocated).
            assert!(b.need(m1k, 4) <= 2 * 1024, "{name}: {}", b.need(m1k, 4));
            assert!(b.need(m1k, 4) >= 1024 + 256, "{name}");
            // m < P: blocks of 0 bytes, refused with a reason.
            let m2 = p.iter().find(|x| x.bytes == 2).unwrap();
            let why = b.refuse(m2, 4).unwrap_or_else(|| panic!("{name}"));
            assert!(why.contains("blocks of m/P = 0 bytes"), "{why}");
            assert_eq!(b.refuse(m2, 2), None, "{name}");
            assert_eq!(b.refuse(m8, 4), None, "{name}");
        }
        // The others send m as it is.
        for name in ["Bcast", "Gather", "Allgather", "Allreduce", "Ireduce"] {
            let b = find(name);
            let p = b.points(&cx(&[2, 1024], &axes, 4));
            assert_eq!(b.refuse(&p[0], 4), None, "{name}");
            // Send and receive buffers hold at least m each (Gather's root: P·m).
            assert!(b.need(&p[1], 4) >= 2 * 1024, "{name}");
        }
        assert_eq!(ALLTOALL.block(1000, 3), 333);
        assert_eq!(BCAST.block(1000, 3), 1000);
    }

    #[test]
    fn sweeps_are_powers_of_two() {
        assert_eq!(sweep(16.0, 100.0), vec![16.0, 32.0, 64.0]);
        assert_eq!(sweep(0.0, 4.0), vec![0.0, 1.0, 2.0, 4.0]);
        assert_eq!(sweep(3.0, 3.0), vec![3.0]);
        assert_eq!(sweep(0.0, 0.0), vec![0.0]);
    }

    fn row(scenario: u64, bytes: usize, t: f64, extra: &[(&str, f64)]) -> Row {
        let mut r = Row {
            bytes,
            t_avg_us: t,
            valid: Some(10),
            ..Row::default()
        };
        r.params.insert(SCENARIO.into(), scenario.into());
        for (k, v) in extra {
            r.params.insert((*k).into(), num(*v));
        }
        r
    }

    #[test]
    fn derive_puts_scenarios_against_scenario_one() {
        let mut r = crate::engine::skipped(find("Iallreduce").info(), 4, false, String::new());
        r.rows = vec![
            row(1, 8, 10.0, &[]),
            row(1, 1024, 20.0, &[]),
            row(2, 8, 110.0, &[(T_DELAY, 100.0)]),
            row(3, 1024, 105.0, &[(T_CALC, 100.0), (T_CALC_ACHIEVED, 100.0)]),
            row(3, 8, 110.0, &[(T_CALC, 100.0)]),
        ];
        derive(&mut r);
        let p = |i: usize, k: &str| r.rows[i].params[k].as_f64().unwrap();
        assert_eq!(p(2, T_MINUS_DELAY), 10.0);
        assert_eq!(p(2, T_SC1), 10.0);
        // t_pure 20, t_cpu 100, t_overall 105: 15 of 20 hidden.
        assert!((p(3, OVERLAP_OSU) - 75.0).abs() < 1e-9);
        assert!((p(3, OVERLAP_NBC) - 75.0).abs() < 1e-9);
        // No achieved calc reported: the requested one; serial → 0.
        assert_eq!(p(4, OVERLAP_OSU), 0.0);
        assert_eq!(p(4, OVERLAP_NBC), 0.0);
        assert!(!r.rows[0].params.contains_key(T_SC1));
    }

    #[test]
    fn scenario_two_time_to_completion_includes_the_delay() {
        // Three participants, D = rank 2 delayed by 100 µs; the others finish
        // the collective when D arrives.
        let starts = [0.0, 0.5, 1.0];
        let ends = [103.0, 103.5, 104.0];
        let t = crate::method::global_span(&[0.0], &[104.0]);
        assert_eq!(t, vec![104.0]);
        for (s, e) in starts.iter().zip(ends) {
            assert!(t[0] >= e - s);
        }
        assert!(t[0] >= 100.0);
        assert_eq!(crate::method::start_skew(&[0.0], &[1.0]), vec![1.0]);
    }

    #[test]
    fn collective_names_of_the_seed_resolve() {
        assert_eq!(resolve("broadcast"), Ok("Bcast"));
        assert_eq!(resolve("allGather"), Ok("Allgather"));
        assert_eq!(resolve("ALLREDUCE"), Ok("Allreduce"));
        assert_eq!(resolve("iallReduce"), Ok("Iallreduce"));
        assert_eq!(resolve("ibroadcast"), Ok("Ibcast"));
        assert_eq!(resolve("Ibarrier"), Ok("Ibarrier"));
        assert_eq!(resolve("reduce_scatter_block"), Ok("Reduce_scatter_block"));
        assert_eq!(resolve("ialltoall"), Ok("Ialltoall"));
        let e = resolve("allgaher").unwrap_err();
        assert!(e.contains("did you mean allGather?"), "{e}");
        assert!(!e.contains('\n'));
        assert!(resolve("zzzzzzzz")
            .unwrap_err()
            .starts_with("unknown collective"));
    }
}
