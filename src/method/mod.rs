//! Methods: where the synchronisations and clock reads go, and which
//! per-repetition value the statistics see. One small type per suite
//! methodology:
//!
//! | method | suite | one sample | the value |
//! |---|---|---|---|
//! | [`PmbLoop`] | PMB/IMB | sync; t0; n × op; t1 | per rank (t1 − t0)/n; t_min/t_max/t_avg over ranks |
//! | [`PerCall`] | mpibench | sync; t0; op; t1 | max over ranks (single transfers: the initiator) |
//! | [`PerCallOnce`] | IMB 2019+ `-sync 0` | sync; then t0; op; t1 back to back | max over ranks |
//! | [`Mpitest`] | MPITEST | barrier; t1; op; barrier; t2 | t2 − t1 − DT − DB, max over ranks |
//! | [`GlobalCompletion`] | CRESTA | window; t_start; op; t_end | max(t_end) − min(t_start) on the global clock |
//! | [`MaxOverProcesses`] | COMMTEST | sync; t0; op; t1 | max over ranks, plus the global elapsed time |
//! | [`DelaySubtraction`] | coarrays | sync; inner × (delay + op) vs inner × delay | (difference)/inner, max over ranks |
//! | [`SplitCompletion`] | mpiGraph | sync; t0; start; t_send, t_recv as each side completes | max over ranks; per rank both sides |
//!
//! Methods are generic over the kernel and over a [`Ctx`] (clock, barrier,
//! synchronisation), so they are unit-tested with a fake clock, and the
//! real timed loops are monomorphised per kernel type: no dynamic dispatch
//! between two clock reads.

use serde::{Deserialize, Serialize};

use crate::contract::kernel::{Measure, Timer};
use crate::contract::Kernel;
pub use crate::contract::Method;

mod completion;
mod delay;
mod max_procs;
mod mpi_ctx;
mod mpitest;
mod per_call;
mod pmb_loop;
mod split;

pub use completion::GlobalCompletion;
pub use delay::DelaySubtraction;
pub use max_procs::MaxOverProcesses;
pub use mpi_ctx::{precise_sleep, MpiCtx, SyncMode};
pub use mpitest::Mpitest;
pub use per_call::{PerCall, PerCallOnce};
pub use pmb_loop::PmbLoop;
pub use split::SplitCompletion;

/// How t_min / t_max / t_avg of a row are formed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spread {
    /// Over ranks, of each rank's own mean (PMB §6).
    OverRanks,
    /// Over repetitions, of the per-repetition value (CRESTA's min / max / average).
    OverReps,
}

/// What a method is besides its timed loop: its names, the row rule the
/// statistics follow and what the engine must do for it. Each method's file
/// declares its own ([`Timing::RULES`]); the engine asks through [`Method`].
#[derive(Debug, Clone, Copy)]
pub struct Rules {
    /// The name on the command line and in the JSON.
    pub name: &'static str,
    /// One line for `--help` and docs/methodology.md.
    pub describe: &'static str,
    /// How t_min / t_max / t_avg of a row are formed.
    pub spread: Spread,
    /// The per-repetition value can be zero or negative (a difference of
    /// times): rows whose CI contains zero are flagged "below resolution".
    pub subtracts: bool,
    /// The row's figure is the mean of the values, not their median (a
    /// mean at or below zero is below resolution too, whatever the CI).
    pub figure_is_mean: bool,
    /// The value per repetition is the global span max(end) − min(start).
    pub global_value: bool,
    /// Needs synchronised clocks: for its value or for the global elapsed
    /// time it reports beside it.
    pub wants_clock: bool,
    /// Has one sample per repetition (statistics over repetitions are meaningful).
    pub per_repetition: bool,
    /// The synchronisation the method is defined with, whatever `--sync` says.
    pub required_sync: Option<SyncMode>,
    /// Calibrates constants once per process count before it measures
    /// ([`Timing::calibrate`]).
    pub calibrates: bool,
    /// Each sample is `inner` repetitions and the samples are the outer
    /// repetitions (`--inner`, `--outer`).
    pub nested: bool,
    /// Rows carry `discrepant`: the maximum over processes against the
    /// global elapsed time.
    pub checks_discrepancy: bool,
    /// Measures every pair's repetitions in blocks, kept for the outlier test.
    pub repeats_in_blocks: bool,
}

impl Rules {
    /// For `..Rules::PER_CALL` in a method's rules: one sample per
    /// repetition, the maximum over ranks, no constants, any sync.
    pub const PER_CALL: Rules = Rules {
        name: "",
        describe: "",
        spread: Spread::OverRanks,
        subtracts: false,
        figure_is_mean: false,
        global_value: false,
        wants_clock: false,
        per_repetition: true,
        required_sync: None,
        calibrates: false,
        nested: false,
        checks_discrepancy: false,
        repeats_in_blocks: false,
    };
}

/// A method: its rules, its constants and its timed loop, generic over the
/// kernel and the context so that the loop is monomorphised per kernel type
/// (no dynamic dispatch between two clock reads).
pub trait Timing {
    const RULES: Rules;

    /// The constants it measures once per process count (MPITEST's DT and
    /// DB), from `n` measurements; none by default.
    fn calibrate<C: Ctx>(_cx: &mut C, _n: usize) -> Consts {
        Consts::default()
    }

    /// One batch of repetitions on this rank.
    fn sample<K: Kernel + ?Sized, C: Ctx>(k: &mut K, cx: &mut C, b: &RepBatch) -> Samples;
}

impl Method {
    /// The method's rules, as its file declares them.
    pub fn rules(self) -> &'static Rules {
        match self {
            Method::Loop => &PmbLoop::RULES,
            Method::PerCall => &PerCall::RULES,
            Method::PerCallOnce => &PerCallOnce::RULES,
            Method::Mpitest => &Mpitest::RULES,
            Method::GlobalCompletion => &GlobalCompletion::RULES,
            Method::MaxOverProcesses => &MaxOverProcesses::RULES,
            Method::DelaySubtraction => &DelaySubtraction::RULES,
            Method::SplitCompletion => &SplitCompletion::RULES,
        }
    }

    pub fn name(self) -> &'static str {
        self.rules().name
    }

    /// One line for `--help` and docs/methodology.md.
    pub fn describe(self) -> &'static str {
        self.rules().describe
    }

    pub fn spread(self) -> Spread {
        self.rules().spread
    }

    /// See [`Rules::subtracts`].
    pub fn subtracts(self) -> bool {
        self.rules().subtracts
    }

    /// See [`Rules::figure_is_mean`].
    pub fn figure_is_mean(self) -> bool {
        self.rules().figure_is_mean
    }

    /// See [`Rules::global_value`].
    pub fn global_value(self) -> bool {
        self.rules().global_value
    }

    /// See [`Rules::wants_clock`].
    pub fn wants_clock(self) -> bool {
        self.rules().wants_clock
    }

    /// See [`Rules::per_repetition`].
    pub fn per_repetition(self) -> bool {
        self.rules().per_repetition
    }

    /// See [`Rules::required_sync`].
    pub fn required_sync(self) -> Option<SyncMode> {
        self.rules().required_sync
    }

    /// See [`Rules::calibrates`].
    pub fn calibrates(self) -> bool {
        self.rules().calibrates
    }

    /// See [`Rules::nested`].
    pub fn nested(self) -> bool {
        self.rules().nested
    }

    /// See [`Rules::checks_discrepancy`].
    pub fn checks_discrepancy(self) -> bool {
        self.rules().checks_discrepancy
    }

    /// See [`Rules::repeats_in_blocks`].
    pub fn repeats_in_blocks(self) -> bool {
        self.rules().repeats_in_blocks
    }

    /// Whether a row's maximum over processes and the global elapsed time
    /// differ too much, for a method that checks it
    /// ([`Rules::checks_discrepancy`]); None for the others.
    pub fn discrepant(self, max_own: f64, global: f64) -> Option<bool> {
        self.checks_discrepancy()
            .then(|| MaxOverProcesses::discrepant(max_own, global))
    }

    /// The method's constants on the ranks of `cx` ([`Timing::calibrate`]).
    pub fn calibrate<C: Ctx>(self, cx: &mut C, n: usize) -> Consts {
        match self {
            Method::Loop => PmbLoop::calibrate(cx, n),
            Method::PerCall => PerCall::calibrate(cx, n),
            Method::PerCallOnce => PerCallOnce::calibrate(cx, n),
            Method::Mpitest => Mpitest::calibrate(cx, n),
            Method::GlobalCompletion => GlobalCompletion::calibrate(cx, n),
            Method::MaxOverProcesses => MaxOverProcesses::calibrate(cx, n),
            Method::DelaySubtraction => DelaySubtraction::calibrate(cx, n),
            Method::SplitCompletion => SplitCompletion::calibrate(cx, n),
        }
    }

    /// Every method, for lookups by name.
    pub const ALL: [Method; 8] = [
        Method::Loop,
        Method::PerCall,
        Method::PerCallOnce,
        Method::Mpitest,
        Method::GlobalCompletion,
        Method::MaxOverProcesses,
        Method::DelaySubtraction,
        Method::SplitCompletion,
    ];

    /// The method of a name in the JSON (`"mpitest"`).
    pub fn by_name(name: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// The global time to completion per repetition, max(t_end) − min(t_start)
/// over ranks (global clock), from the per-repetition minimum start and
/// maximum end.
pub fn global_span(min_start: &[f64], max_end: &[f64]) -> Vec<f64> {
    max_end.iter().zip(min_start).map(|(e, s)| e - s).collect()
}

/// The start skew per repetition: max(t_start) − min(t_start).
pub fn start_skew(min_start: &[f64], max_start: &[f64]) -> Vec<f64> {
    max_start
        .iter()
        .zip(min_start)
        .map(|(a, b)| a - b)
        .collect()
}

/// Constants a method calibrates once per process count (seconds).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Consts {
    /// DT: the cost of one clock read.
    pub dt: f64,
    /// DB: the cost of one barrier, t2 − t1 − DT around it.
    pub db: f64,
}

/// The repetitions of one batch.
#[derive(Debug, Clone, Copy)]
pub struct RepBatch {
    /// Number of the first repetition (patterns and roots derive from it).
    pub first: usize,
    /// Repetitions (delay subtraction: outer repetitions).
    pub n: usize,
    /// Inner repetitions of delay subtraction.
    pub inner: usize,
    /// Validate every repetition (fill, poison and verify outside the clock pair).
    pub check: bool,
    /// `--corrupt`: damage the received data of the first repetition.
    pub corrupt: bool,
}

impl RepBatch {
    #[cfg(test)]
    pub fn new(first: usize, n: usize) -> RepBatch {
        RepBatch {
            first,
            n,
            inner: 1,
            check: false,
            corrupt: false,
        }
    }
}

/// What one rank measured (local clock, seconds).
#[derive(Debug, Default, Clone)]
pub struct Samples {
    /// The method's own value per sample on this rank.
    pub dur: Vec<f64>,
    pub start: Vec<f64>,
    pub end: Vec<f64>,
    /// The sample started after its window (window synchronisation).
    pub late: Vec<bool>,
    /// Repetitions behind each sample: 1 per call, n for a loop.
    pub reps_per_sample: usize,
    /// (rank, repetition) pairs that received wrong data.
    pub errors: u64,
    /// Split-completion timing: per sample, the time from the start until
    /// this rank's sends and until its receives completed (seconds).
    pub sides: Vec<[f64; 2]>,
    /// Repetitions behind all samples when batches of different sizes were
    /// joined (0: `dur.len() × reps_per_sample`).
    pub reps_total: usize,
    /// This rank's page faults [minor, major] during the timed batches
    /// (counted by the engine around each batch, outside its clock pairs).
    pub faults: [u64; 2],
}

impl Samples {
    fn push(&mut self, dur: f64, start: f64, end: f64, late: bool) {
        self.dur.push(dur);
        self.start.push(start);
        self.end.push(end);
        self.late.push(late);
    }

    /// Appends another batch.
    pub fn extend(&mut self, o: Samples) {
        if !self.dur.is_empty() && self.reps_per_sample != o.reps_per_sample {
            self.reps_total = self.reps() + o.reps();
        } else if self.reps_total > 0 {
            self.reps_total += o.reps();
        }
        self.sides.extend(o.sides);
        self.dur.extend(o.dur);
        self.start.extend(o.start);
        self.end.extend(o.end);
        self.late.extend(o.late);
        self.reps_per_sample = o.reps_per_sample;
        self.errors += o.errors;
        self.faults[0] += o.faults[0];
        self.faults[1] += o.faults[1];
    }

    /// Repetitions behind all samples.
    pub fn reps(&self) -> usize {
        if self.reps_total > 0 {
            self.reps_total
        } else {
            self.dur.len() * self.reps_per_sample.max(1)
        }
    }

    /// This rank's mean per repetition (seconds).
    pub fn mean_per_rep(&self) -> f64 {
        let r = self.reps();
        if r == 0 {
            0.0
        } else {
            self.dur.iter().sum::<f64>() / r as f64
        }
    }
}

/// What the timed part of a method needs from the world: a clock, a
/// barrier and the synchronisation mode. [`MpiCtx`] is the real one.
pub trait Ctx {
    /// The local clock in seconds (MPI_Wtime).
    fn now(&self) -> f64;
    /// MPI_Barrier on the synchronised ranks.
    fn barrier(&mut self);
    /// Synchronises before a timed section that starts repetition `i`, as
    /// `--sync` says: a barrier, a dissemination barrier, the window slot of
    /// repetition `i`, or nothing.
    fn sync(&mut self, i: usize);
    /// Whether a section that started at local time `t0` started after its
    /// window (always false without window synchronisation).
    fn late(&mut self, t0: f64) -> bool;
    /// The calibrated constants (DT, DB).
    fn consts(&self) -> Consts;
    /// `n` repetitions finished: progress for the stall watchdog. Called
    /// outside clock pairs only.
    fn done(&mut self, _n: usize) {}
    /// The next [`Ctx::done`] will come after `n` repetitions.
    fn expect(&mut self, _n: usize) {}
}

/// Room for the samples of `n` repetitions, allocated before the first
/// clock read. The plan bounds `n` by `--mem` ([`crate::plan::SAMPLE_BYTES`]);
/// an allocation that fails all the same ends the rank with one line
/// (its panic hook), never an abort with a backtrace.
/// The room is written once before the loop, so that its pages are mapped
/// before the first clock read, and the page faults that costs are kept
/// apart ([`reserve_faults`]): the engine counts a batch's faults around it.
pub(crate) fn reserve<T>(v: &mut Vec<T>, n: usize) {
    if let Err(e) = v.try_reserve(n) {
        panic!(
            "cannot allocate the samples of {n} repetitions ({} bytes): {e}; lower the repetitions or --mem",
            n.saturating_mul(std::mem::size_of::<T>())
        );
    }
    let before = crate::sys::thread_faults();
    for x in v.spare_capacity_mut() {
        *x = std::mem::MaybeUninit::zeroed();
    }
    let after = crate::sys::thread_faults();
    RESERVE_FAULTS.with(|f| {
        let [minor, major] = f.get();
        f.set([
            minor + after[0].saturating_sub(before[0]),
            major + after[1].saturating_sub(before[1]),
        ]);
    });
}

thread_local! {
    static RESERVE_FAULTS: std::cell::Cell<[u64; 2]> = const { std::cell::Cell::new([0, 0]) };
}

/// The page faults [minor, major] that mapping sample room cost on this
/// thread since the last call (not the benchmark's: subtracted from a batch's).
pub fn reserve_faults() -> [u64; 2] {
    RESERVE_FAULTS.with(|f| f.replace([0, 0]))
}

/// Runs `n` repetitions, each timed alone after `before(cx, i)`, with
/// validation outside the clock pair. The sampling shared by the per-call
/// style methods.
#[inline(always)]
fn each<K: Kernel + ?Sized, C: Ctx>(
    k: &mut K,
    cx: &mut C,
    b: &RepBatch,
    mut before: impl FnMut(&mut C, usize),
    mut after: impl FnMut(&mut C),
) -> Samples {
    let mut s = Samples {
        reps_per_sample: 1,
        ..Samples::default()
    };
    reserve(&mut s.dur, b.n);
    reserve(&mut s.start, b.n);
    reserve(&mut s.end, b.n);
    reserve(&mut s.late, b.n);
    cx.expect(1);
    for i in b.first..b.first + b.n {
        if b.check {
            k.prepare(i);
        }
        k.stage(i);
        k.open();
        before(cx, i);
        let t0 = cx.now();
        k.run(i);
        k.close();
        after(cx);
        let t1 = cx.now();
        let late = cx.late(t0);
        s.push(t1 - t0, t0, t1, late);
        cx.done(1);
        if b.check {
            if b.corrupt && i == 0 {
                k.corrupt();
            }
            s.errors += u64::from(k.verify(i) > 0);
        }
    }
    s
}

/// The contract's hook to the timed loops: [`crate::contract::Kernel::measure`]
/// calls [`measure`] through it, monomorphised per kernel type.
impl Measure for Timer {
    type Cx<'a> = MpiCtx<'a>;
    type Batch = RepBatch;
    type Samples = Samples;

    #[inline(always)]
    fn measure<K: Kernel + ?Sized>(
        method: Method,
        k: &mut K,
        cx: &mut MpiCtx<'_>,
        b: &RepBatch,
    ) -> Samples {
        measure(method, k, cx, b)
    }
}

/// Runs `method` on kernel `k`.
pub fn measure<K: Kernel + ?Sized, C: Ctx>(
    method: Method,
    k: &mut K,
    cx: &mut C,
    b: &RepBatch,
) -> Samples {
    match method {
        Method::Loop => PmbLoop::sample(k, cx, b),
        Method::PerCall => PerCall::sample(k, cx, b),
        Method::PerCallOnce => PerCallOnce::sample(k, cx, b),
        Method::Mpitest => Mpitest::sample(k, cx, b),
        Method::GlobalCompletion => GlobalCompletion::sample(k, cx, b),
        Method::MaxOverProcesses => MaxOverProcesses::sample(k, cx, b),
        Method::DelaySubtraction => DelaySubtraction::sample(k, cx, b),
        Method::SplitCompletion => SplitCompletion::sample(k, cx, b),
    }
}

#[cfg(test)]
pub(crate) mod fake {
    //! A fake clock and kernel: time advances only by what the kernel,
    //! barriers and clock reads are declared to cost.

    use std::cell::Cell;
    use std::rc::Rc;

    use super::{Consts, Ctx};
    use crate::contract::Kernel;

    #[derive(Clone, Default)]
    pub struct Clock(pub Rc<Cell<f64>>);

    impl Clock {
        pub fn advance(&self, dt: f64) {
            self.0.set(self.0.get() + dt);
        }
        pub fn get(&self) -> f64 {
            self.0.get()
        }
    }

    /// A context whose clock read costs `read`, barrier `barrier`, sync `sync`.
    pub struct FakeCtx {
        pub clock: Clock,
        pub read: f64,
        pub barrier: f64,
        pub sync: f64,
        pub consts: Consts,
        pub barriers: usize,
        pub syncs: Vec<usize>,
        /// Repetitions whose start counts as late.
        pub late_reps: Vec<usize>,
        pub last_sync: usize,
        /// (clock, repetitions) of every progress report, and the expected units.
        pub done: Vec<(f64, usize)>,
        pub expected: Vec<usize>,
        pending: bool,
    }

    impl FakeCtx {
        pub fn new(clock: &Clock) -> FakeCtx {
            FakeCtx {
                clock: clock.clone(),
                read: 0.0,
                barrier: 0.0,
                sync: 0.0,
                consts: Consts::default(),
                barriers: 0,
                syncs: Vec::new(),
                late_reps: Vec::new(),
                last_sync: 0,
                done: Vec::new(),
                expected: Vec::new(),
                pending: false,
            }
        }
    }

    impl Ctx for FakeCtx {
        fn now(&self) -> f64 {
            let t = self.clock.get();
            self.clock.advance(self.read);
            t
        }
        fn barrier(&mut self) {
            self.barriers += 1;
            self.clock.advance(self.barrier);
        }
        fn sync(&mut self, i: usize) {
            self.syncs.push(i);
            self.last_sync = i;
            self.pending = true;
            self.clock.advance(self.sync);
        }
        fn late(&mut self, _t0: f64) -> bool {
            std::mem::take(&mut self.pending) && self.late_reps.contains(&self.last_sync)
        }
        fn consts(&self) -> Consts {
            self.consts
        }
        fn done(&mut self, n: usize) {
            self.done.push((self.clock.get(), n));
        }
        fn expect(&mut self, n: usize) {
            self.expected.push(n);
        }
    }

    /// A kernel whose repetition i costs `cost(i)` and whose reference (the
    /// delay alone) costs `delay`; it counts what was called.
    pub struct FakeKernel {
        pub clock: Clock,
        pub cost: fn(usize) -> f64,
        pub delay: f64,
        pub runs: Vec<usize>,
        pub refs: usize,
        pub prepared: usize,
        pub bad_reps: Vec<usize>,
        pub corrupted: usize,
        /// What `close` costs (a batch's completion); `open` costs 1 s, untimed.
        pub closing: f64,
        pub opened: usize,
        pub closed: usize,
    }

    impl FakeKernel {
        pub fn new(clock: &Clock, cost: fn(usize) -> f64) -> FakeKernel {
            FakeKernel {
                clock: clock.clone(),
                cost,
                delay: 0.0,
                runs: Vec::new(),
                refs: 0,
                prepared: 0,
                bad_reps: Vec::new(),
                corrupted: 0,
                closing: 0.0,
                opened: 0,
                closed: 0,
            }
        }
    }

    impl Kernel for FakeKernel {
        fn run(&mut self, rep: usize) {
            self.runs.push(rep);
            self.clock.advance((self.cost)(rep) + self.delay);
        }
        fn prepare(&mut self, _rep: usize) {
            self.prepared += 1;
            // Untimed work must not show in any sample.
            self.clock.advance(1.0);
        }
        fn verify(&mut self, rep: usize) -> u64 {
            self.clock.advance(1.0);
            u64::from(self.bad_reps.contains(&rep)) * 3
        }
        fn reference(&mut self, _rep: usize) {
            self.refs += 1;
            self.clock.advance(self.delay);
        }
        fn corrupt(&mut self) {
            self.corrupted += 1;
        }
        fn open(&mut self) {
            self.opened += 1;
            self.clock.advance(1.0);
        }
        fn close(&mut self) {
            self.closed += 1;
            self.clock.advance(self.closing);
        }
    }

    pub fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * (1.0 + a.abs().max(b.abs()))
    }
}

#[cfg(test)]
mod tests {
    use super::fake::*;
    use super::*;

    #[test]
    fn each_method_states_what_the_engine_asks() {
        for m in Method::ALL {
            assert_eq!(Method::by_name(m.name()), Some(m));
            // A method that fixes its synchronisation is per repetition.
            if m.required_sync().is_some() {
                assert!(m.per_repetition(), "{m:?}");
            }
        }
        assert_eq!(Method::by_name("bogus"), None);
        assert_eq!(
            Method::GlobalCompletion.required_sync(),
            Some(SyncMode::Window)
        );
        assert_eq!(Method::Mpitest.required_sync(), Some(SyncMode::Barrier));
        assert_eq!(Method::Loop.required_sync(), None);
        let only = |f: fn(Method) -> bool| -> Vec<Method> {
            Method::ALL.into_iter().filter(|&m| f(m)).collect()
        };
        assert_eq!(only(Method::calibrates), [Method::Mpitest]);
        assert_eq!(only(Method::nested), [Method::DelaySubtraction]);
        assert_eq!(only(Method::checks_discrepancy), [Method::MaxOverProcesses]);
        assert_eq!(only(Method::repeats_in_blocks), [Method::SplitCompletion]);
        assert_eq!(only(Method::figure_is_mean), [Method::Mpitest]);
    }

    #[test]
    fn only_a_method_that_calibrates_measures_constants() {
        let clock = Clock::default();
        for m in Method::ALL {
            let mut cx = FakeCtx::new(&clock);
            cx.read = 3e-8;
            cx.barrier = 2e-6;
            let c = m.calibrate(&mut cx, 10);
            assert_eq!(c != Consts::default(), m.calibrates(), "{m:?}: {c:?}");
            assert_eq!(cx.barriers > 0, m.calibrates(), "{m:?}");
        }
    }

    #[test]
    fn names_round_trip_through_serde() {
        for m in Method::ALL {
            let s = serde_json::to_string(&m).unwrap();
            assert_eq!(s, format!("\"{}\"", m.name()));
            assert_eq!(serde_json::from_str::<Method>(&s).unwrap(), m);
        }
    }

    #[test]
    fn each_keeps_validation_outside_the_clock_pair() {
        let clock = Clock::default();
        let mut k = FakeKernel::new(&clock, |_| 2e-6);
        k.bad_reps = vec![1];
        let mut cx = FakeCtx::new(&clock);
        let b = RepBatch {
            check: true,
            ..RepBatch::new(0, 3)
        };
        let s = each(&mut k, &mut cx, &b, |_, _| {}, |_| {});
        assert_eq!(k.prepared, 3);
        assert!(s.dur.iter().all(|&d| close(d, 2e-6)), "{:?}", s.dur);
        assert_eq!(s.errors, 1);
        assert_eq!(s.reps(), 3);
        assert!(close(s.mean_per_rep(), 2e-6));
        // Progress after every repetition, never inside a clock pair.
        assert_eq!(cx.expected, vec![1]);
        assert_eq!(
            cx.done.iter().map(|d| d.1).collect::<Vec<_>>(),
            vec![1, 1, 1]
        );
    }

    #[test]
    fn batches_of_different_sizes_count_every_repetition() {
        let mk = |n: usize, d: f64| Samples {
            dur: vec![d],
            start: vec![0.0],
            end: vec![d],
            late: vec![false],
            reps_per_sample: n,
            ..Samples::default()
        };
        let mut s = mk(4, 4.0);
        s.extend(mk(4, 4.0));
        assert_eq!(s.reps(), 8);
        s.extend(mk(3, 3.0));
        assert_eq!(s.reps(), 11);
        s.extend(mk(3, 3.0));
        assert_eq!(s.reps(), 14);
        assert!(close(s.mean_per_rep(), 1.0));
    }
}
