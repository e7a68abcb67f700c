//! Self-consistent performance guidelines (Träff, Gropp and Thakur; checked
//! automatically by Hunold et al.'s PGMPI): a specialised collective must
//! not be slower than a mock-up of less specialised calls with the same
//! semantics, nor slower than two calls on half the data, nor slower at a
//! size than at the next larger one.
//!
//! Each guideline is one benchmark whose points are its sizes × the two
//! sides, `side` = "collective" or "mockup", measured point by point in
//! alternating order in the same launch, under the same method, on the same
//! data and validation ([`mockups`]). On rank 0 `derive` compares the sides
//! of every size, and the collective's sizes with each other (monotony),
//! into `guidelines` verdicts ([`verdict`]).

use anyhow::Result;

use super::{patterns, Benchmark, Info, Kernel, Setup};
use crate::bench::entry::Entry;
use crate::comm::Elem;
use crate::contract::axis::{Point, SweepCx};
use crate::method::Method;
use crate::plugin::{benches, Defaults, ProcSweep, Suite, SuiteHelp};
use crate::results::{BenchResult, GuidelineVerdict, Row};

pub mod front;
mod mockups;
pub mod table;
pub mod verdict;

use mockups::*;

pub const SUITE: &str = "guidelines";

/// The two sides of a guideline, as the rows' `side` param.
pub const COLLECTIVE: &str = "collective";
pub const MOCKUP: &str = "mockup";

/// A guideline: the collective, its mock-up, and what n is.
pub struct Guideline {
    /// Its declaration; the description is the rule.
    info: &'static Info,
    pub collective: &'static str,
    pub mockup: &'static str,
    /// What the size n is (the table and docs say it).
    pub n: &'static str,
    coll: &'static dyn Benchmark,
    mock: &'static dyn Benchmark,
    /// n is a multiple of `unit.0` bytes, times the processes if `unit.1`.
    unit: (usize, bool),
    /// Also check that the collective is not slower at a size than at the
    /// next one (once per collective).
    pub monotony: bool,
}

impl Guideline {
    /// The rule, e.g. "MPI_Allreduce(n) <= MPI_Reduce(n) + MPI_Bcast(n)".
    pub fn rule(&self) -> &'static str {
        self.info.description
    }

    /// The sizes this guideline runs on `q` processes: each rounded down
    /// to its unit, without 0 and repeats.
    fn sizes(&self, sizes: &[usize], q: usize) -> Vec<usize> {
        let unit = self.unit.0 * if self.unit.1 { q } else { 1 };
        let mut out: Vec<usize> = sizes
            .iter()
            .map(|&x| x / unit * unit)
            .filter(|&x| x > 0)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    fn side<'a>(&'a self, p: &Point) -> &'a dyn Benchmark {
        if p.str("side") == Some(MOCKUP) {
            self.mock
        } else {
            self.coll
        }
    }
}

impl Benchmark for Guideline {
    fn info(&self) -> &'static Info {
        self.info
    }

    /// Every size twice, the collective and the mock-up, in alternating
    /// order, so that a drift of the machine's speed does not favour a side.
    fn points(&self, cx: &SweepCx) -> Vec<Point> {
        let mut out = Vec::new();
        for (i, x) in self.sizes(cx.sizes, cx.q).into_iter().enumerate() {
            let sides = if i % 2 == 0 {
                [COLLECTIVE, MOCKUP]
            } else {
                [MOCKUP, COLLECTIVE]
            };
            for s in sides {
                out.push(Point::bytes(x).with("side", s));
            }
        }
        out
    }

    fn need(&self, p: &Point, q: usize) -> u64 {
        self.coll.need(p, q).max(self.mock.need(p, q))
    }

    fn refuse(&self, p: &Point, q: usize) -> Option<String> {
        self.coll.refuse(p, q).or_else(|| self.mock.refuse(p, q))
    }

    fn kernel<'a>(&'a self, s: Setup<'a>, p: &Point) -> Result<Box<dyn Kernel + 'a>> {
        self.side(p).kernel(s, p)
    }

    fn derive(&self, r: &mut BenchResult) {
        let mut v = self.verdicts(r);
        if self.monotony {
            v.extend(self.monotony(r));
        }
        r.figures.guidelines = v;
    }

    /// Over launches the rows carry each launch's median: the verdicts are
    /// judged again from them (`verdict_row`).
    fn derive_combined(&self, r: &mut BenchResult) {
        self.derive(r);
    }
}

/// The time a verdict compares: the median of the per-repetition values
/// (with loop timing, the average).
fn time(row: &Row) -> f64 {
    row.t_median_us.unwrap_or(row.t_avg_us)
}

fn side_of(row: &Row) -> Option<&str> {
    row.params.get("side").and_then(|v| v.as_str())
}

fn verdict_row(
    name: &str,
    rule: &str,
    sides: (&str, &str),
    r: &BenchResult,
    a: &Row,
    b: &Row,
) -> GuidelineVerdict {
    // A row combined over launches: the launch medians are the replicates
    // (one launch's samples overstate the precision); else the samples.
    let j = match (&a.launch_medians_us, &b.launch_medians_us) {
        (Some(la), Some(lb)) => verdict::judge_launches(time(a), time(b), la, lb),
        _ => verdict::judge(
            time(a),
            time(b),
            a.samples_us.as_deref(),
            b.samples_us.as_deref(),
        ),
    };
    GuidelineVerdict {
        guideline: name.to_string(),
        rule: rule.to_string(),
        collective: sides.0.to_string(),
        mockup: sides.1.to_string(),
        bytes: a.bytes,
        mockup_bytes: (a.bytes != b.bytes).then_some(b.bytes),
        processes: r.processes,
        t_collective_us: time(a),
        t_mockup_us: time(b),
        ratio: j.ratio,
        p_value: j.p_value,
        verdict: j.verdict.name().to_string(),
    }
}

impl Guideline {
    /// The collective against its mock-up, size by size.
    fn verdicts(&self, r: &BenchResult) -> Vec<GuidelineVerdict> {
        let find = |x: usize, side: &str| {
            r.rows
                .iter()
                .find(|w| w.bytes == x && side_of(w) == Some(side))
        };
        let mut sizes: Vec<usize> = r.rows.iter().map(|w| w.bytes).collect();
        sizes.sort_unstable();
        sizes.dedup();
        sizes
            .into_iter()
            .filter_map(|x| Some((find(x, COLLECTIVE)?, find(x, MOCKUP)?)))
            .map(|(a, b)| {
                verdict_row(
                    self.info.name,
                    self.rule(),
                    (self.collective, self.mockup),
                    r,
                    a,
                    b,
                )
            })
            .collect()
    }

    /// The collective at each size against itself at the next size.
    fn monotony(&self, r: &BenchResult) -> Vec<GuidelineVerdict> {
        let mut rows: Vec<&Row> = r
            .rows
            .iter()
            .filter(|w| side_of(w) == Some(COLLECTIVE))
            .collect();
        rows.sort_by_key(|w| w.bytes);
        let call = self.collective.trim_end_matches("(n)");
        let rule = format!("{call}(n) <= {call}(n'), n' the next size");
        rows.windows(2)
            .map(|w| {
                let sides = (
                    format!("{call}({})", w[0].bytes),
                    format!("{call}({})", w[1].bytes),
                );
                verdict_row("monotony", &rule, (&sides.0, &sides.1), r, w[0], w[1])
            })
            .collect()
    }
}

/// A declaration of a guideline's side (not listed on its own).
macro_rules! side {
    ($name:ident, $title:expr, $elem:expr, $rooted:expr) => {
        static $name: Info = Info {
            name: $title,
            suite: SUITE,
            description: $title,
            elem: $elem,
            reduction: !matches!($elem, Elem::Byte),
            rooted: $rooted,
            ..Info::DEFAULT
        };
    };
}

side!(ALLREDUCE_I, "MPI_Allreduce", Elem::Int, false);
side!(REDUCE_BCAST_I, "MPI_Reduce + MPI_Bcast", Elem::Int, true);
side!(ALLGATHER_B, "MPI_Allgather", Elem::Byte, false);
side!(GATHER_BCAST_B, "MPI_Gather + MPI_Bcast", Elem::Byte, true);
side!(BCAST_B, "MPI_Bcast", Elem::Byte, true);
side!(
    SCATTER_ALLGATHER_B,
    "MPI_Scatter + MPI_Allgather",
    Elem::Byte,
    true
);
side!(SCATTER_B, "MPI_Scatter", Elem::Byte, true);
side!(BCAST_ALL_B, "MPI_Bcast of all blocks", Elem::Byte, true);
side!(REDUCE_I, "MPI_Reduce", Elem::Int, true);
side!(GATHER_B, "MPI_Gather", Elem::Byte, true);
side!(GATHERV_B, "MPI_Gatherv", Elem::Byte, true);
side!(ALLTOALL_B, "MPI_Alltoall", Elem::Byte, false);
side!(RSB_I, "MPI_Reduce_scatter_block", Elem::Int, false);
side!(
    REDUCE_SCATTER_I,
    "MPI_Reduce + MPI_Scatter",
    Elem::Int,
    true
);
side!(SCAN_I, "MPI_Scan", Elem::Int, false);
side!(
    EXSCAN_LOCAL_I,
    "MPI_Exscan + MPI_Reduce_local",
    Elem::Int,
    false
);
side!(BCAST_HALVES_B, "2 x MPI_Bcast(n/2)", Elem::Byte, true);
side!(
    ALLREDUCE_HALVES_I,
    "2 x MPI_Allreduce(n/2)",
    Elem::Int,
    false
);
side!(REDUCE_HALVES_I, "2 x MPI_Reduce(n/2)", Elem::Int, true);

static ALLREDUCE: patterns::Allreduce = patterns::Allreduce(&ALLREDUCE_I);
static REDUCE_BCAST: ReduceBcast = ReduceBcast(&REDUCE_BCAST_I);
static ALLGATHER: patterns::Allgather = patterns::Allgather(&ALLGATHER_B);
static GATHER_BCAST: GatherBcast = GatherBcast(&GATHER_BCAST_B);
static BCAST: patterns::Bcast = patterns::Bcast(&BCAST_B);
static SCATTER_ALLGATHER: ScatterAllgather = ScatterAllgather(&SCATTER_ALLGATHER_B);
static SCATTER: patterns::Scatter = patterns::Scatter(&SCATTER_B);
static BCAST_ALL: BcastAll = BcastAll(&BCAST_ALL_B);
static REDUCE: patterns::Reduce = patterns::Reduce(&REDUCE_I);
static GATHER: patterns::Gather = patterns::Gather(&GATHER_B);
static GATHERV: patterns::Gatherv = patterns::Gatherv(&GATHERV_B);
static ALLTOALL: patterns::Alltoall = patterns::Alltoall(&ALLTOALL_B);
static RSB: patterns::ReduceScatterBlock = patterns::ReduceScatterBlock(&RSB_I);
static REDUCE_SCATTER: ReduceThenScatter = ReduceThenScatter(&REDUCE_SCATTER_I);
static SCAN: Scan = Scan(&SCAN_I);
static EXSCAN_LOCAL: ExscanLocal = ExscanLocal(&EXSCAN_LOCAL_I);
static BCAST_HALVES: BcastHalves = BcastHalves(&BCAST_HALVES_B);
static ALLREDUCE_HALVES: AllreduceHalves = AllreduceHalves(&ALLREDUCE_HALVES_I);
static REDUCE_HALVES: ReduceHalves = ReduceHalves(&REDUCE_HALVES_I);

/// A guideline's own declaration: its name and description.
macro_rules! guideline_info {
    ($name:ident, $title:expr, $rule:expr, $rooted:expr) => {
        static $name: Info = Info {
            name: $title,
            suite: SUITE,
            description: $rule,
            rooted: $rooted,
            variants: &[
                (COLLECTIVE, "the specialised collective"),
                (MOCKUP, "its mock-up of less specialised calls"),
            ],
            ..Info::DEFAULT
        };
    };
}

guideline_info!(
    G_ALLREDUCE,
    "Allreduce_Reduce_Bcast",
    "MPI_Allreduce(n) <= MPI_Reduce(n) + MPI_Bcast(n)",
    true
);
guideline_info!(
    G_ALLGATHER,
    "Allgather_Gather_Bcast",
    "MPI_Allgather(n) <= MPI_Gather(n) + MPI_Bcast(n*p)",
    true
);
guideline_info!(
    G_BCAST,
    "Bcast_Scatter_Allgather",
    "MPI_Bcast(n) <= MPI_Scatter(n) + MPI_Allgather(n/p)",
    true
);
guideline_info!(
    G_SCATTER,
    "Scatter_Bcast",
    "MPI_Scatter(n) <= MPI_Bcast(n)",
    true
);
guideline_info!(
    G_REDUCE,
    "Reduce_Allreduce",
    "MPI_Reduce(n) <= MPI_Allreduce(n)",
    true
);
guideline_info!(
    G_GATHER,
    "Gather_Gatherv",
    "MPI_Gather(n) <= MPI_Gatherv(n)",
    true
);
guideline_info!(
    G_ALLTOALL,
    "Allgather_Alltoall",
    "MPI_Allgather(n) <= MPI_Alltoall(n)",
    false
);
guideline_info!(
    G_RSB,
    "Reduce_scatter_block_Reduce_Scatter",
    "MPI_Reduce_scatter_block(n) <= MPI_Reduce(n) + MPI_Scatter(n)",
    true
);
guideline_info!(
    G_SCAN,
    "Scan_Exscan_Reduce_local",
    "MPI_Scan(n) <= MPI_Exscan(n) + MPI_Reduce_local(n)",
    false
);
guideline_info!(
    G_BCAST_SPLIT,
    "Bcast_split",
    "MPI_Bcast(n) <= 2 x MPI_Bcast(n/2)",
    true
);
guideline_info!(
    G_ALLREDUCE_SPLIT,
    "Allreduce_split",
    "MPI_Allreduce(n) <= 2 x MPI_Allreduce(n/2)",
    false
);
guideline_info!(
    G_REDUCE_SPLIT,
    "Reduce_split",
    "MPI_Reduce(n) <= 2 x MPI_Reduce(n/2)",
    true
);

/// What n is, in the words of the tables and docs.
const VECTOR: &str = "n: the bytes of the vector (MPI_INT, MPI_SUM)";
const BLOCK: &str = "n: the bytes of each process's block";
const MESSAGE: &str = "n: the bytes broadcast";

/// Every guideline, in the order they run.
pub static GUIDELINES: [Guideline; 12] = [
    Guideline {
        info: &G_ALLREDUCE,
        collective: "MPI_Allreduce(n)",
        mockup: "MPI_Reduce(n) + MPI_Bcast(n)",
        n: VECTOR,
        coll: &ALLREDUCE,
        mock: &REDUCE_BCAST,
        unit: (4, false),
        monotony: true,
    },
    Guideline {
        info: &G_ALLGATHER,
        collective: "MPI_Allgather(n)",
        mockup: "MPI_Gather(n) + MPI_Bcast(n*p)",
        n: BLOCK,
        coll: &ALLGATHER,
        mock: &GATHER_BCAST,
        unit: (1, false),
        monotony: true,
    },
    Guideline {
        info: &G_BCAST,
        collective: "MPI_Bcast(n)",
        mockup: "MPI_Scatter(n) + MPI_Allgather(n/p)",
        n: "n: the bytes broadcast (a multiple of p)",
        coll: &BCAST,
        mock: &SCATTER_ALLGATHER,
        unit: (1, true),
        monotony: true,
    },
    Guideline {
        info: &G_SCATTER,
        collective: "MPI_Scatter(n)",
        mockup: "MPI_Bcast(n)",
        n: "n: the bytes each process receives from the scatter (n*p at the root, all broadcast)",
        coll: &SCATTER,
        mock: &BCAST_ALL,
        unit: (1, false),
        monotony: true,
    },
    Guideline {
        info: &G_REDUCE,
        collective: "MPI_Reduce(n)",
        mockup: "MPI_Allreduce(n)",
        n: VECTOR,
        coll: &REDUCE,
        mock: &ALLREDUCE,
        unit: (4, false),
        monotony: true,
    },
    Guideline {
        info: &G_GATHER,
        collective: "MPI_Gather(n)",
        mockup: "MPI_Gatherv(n)",
        n: BLOCK,
        coll: &GATHER,
        mock: &GATHERV,
        unit: (1, false),
        monotony: true,
    },
    Guideline {
        info: &G_ALLTOALL,
        collective: "MPI_Allgather(n)",
        mockup: "MPI_Alltoall(n)",
        n: "n: the bytes each process sends to each process",
        coll: &ALLGATHER,
        mock: &ALLTOALL,
        unit: (1, false),
        monotony: false,
    },
    Guideline {
        info: &G_RSB,
        collective: "MPI_Reduce_scatter_block(n)",
        mockup: "MPI_Reduce(n*p) + MPI_Scatter(n)",
        n: "n: the bytes of each process's block of the result (the vector is n*p, MPI_INT, MPI_SUM)",
        coll: &RSB,
        mock: &REDUCE_SCATTER,
        unit: (4, false),
        monotony: true,
    },
    Guideline {
        info: &G_SCAN,
        collective: "MPI_Scan(n)",
        mockup: "MPI_Exscan(n) + MPI_Reduce_local(n)",
        n: VECTOR,
        coll: &SCAN,
        mock: &EXSCAN_LOCAL,
        unit: (4, false),
        monotony: true,
    },
    Guideline {
        info: &G_BCAST_SPLIT,
        collective: "MPI_Bcast(n)",
        mockup: "2 x MPI_Bcast(n/2)",
        n: MESSAGE,
        coll: &BCAST,
        mock: &BCAST_HALVES,
        unit: (2, false),
        monotony: false,
    },
    Guideline {
        info: &G_ALLREDUCE_SPLIT,
        collective: "MPI_Allreduce(n)",
        mockup: "2 x MPI_Allreduce(n/2)",
        n: VECTOR,
        coll: &ALLREDUCE,
        mock: &ALLREDUCE_HALVES,
        unit: (8, false),
        monotony: false,
    },
    Guideline {
        info: &G_REDUCE_SPLIT,
        collective: "MPI_Reduce(n)",
        mockup: "2 x MPI_Reduce(n/2)",
        n: VECTOR,
        coll: &REDUCE,
        mock: &REDUCE_HALVES,
        unit: (8, false),
        monotony: false,
    },
];

/// The suite's benchmarks, for the registry.
pub fn benchmarks() -> Vec<&'static dyn Benchmark> {
    GUIDELINES
        .iter()
        .map(|g| g as &'static dyn Benchmark)
        .collect()
}

fn entries() -> Vec<Entry> {
    benches(benchmarks())
}

/// The suite's entry in the registry.
pub const REGISTERED: Suite = Suite {
    name: SUITE,
    title: "Self-consistent performance guidelines: collectives against their mock-ups (PGMPI)",
    entries,
    // Per-call timing after a barrier, IMB's repetitions, all processes.
    defaults: Defaults {
        method: Method::PerCall,
        sizes: "4,16,64,256,1K,4K,16K,64K,256K,1M",
        procs: ProcSweep::World,
        ..Suite::PLAIN.defaults
    },
    formats: &[(SUITE, &table::Guidelines)],
    report: table::PARTS,
    help: SuiteHelp {
        heading: None,
        own: Some("mpibench guidelines [GUIDELINE...] [mpibench options]"),
        example: "mpibench run -n 4 --suite guidelines Allreduce_Reduce_Bcast Scan_Exscan_Reduce_local --sizes 64,4K --check",
    },
    front: Some(&front::FRONTEND),
    ..Suite::PLAIN
};

/// The guideline of a result, by its benchmark name.
pub fn guideline(name: &str) -> Option<&'static Guideline> {
    GUIDELINES.iter().find(|g| g.info.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::axis::Axes;

    fn points(g: &Guideline, sizes: &[usize], q: usize) -> Vec<(usize, String)> {
        let axes = Axes::new();
        let cx = SweepCx {
            sizes,
            axes: &axes,
            q,
        };
        g.points(&cx)
            .iter()
            .map(|p| (p.bytes, p.str("side").unwrap_or("").to_string()))
            .collect()
    }

    #[test]
    fn sides_alternate_and_sizes_round_to_the_unit() {
        let g = &GUIDELINES[2]; // Bcast: n a multiple of p
        let p = points(g, &[0, 1, 8, 10, 12, 1024], 3);
        let sizes: Vec<usize> = p.iter().map(|x| x.0).collect();
        assert_eq!(sizes, [6, 6, 9, 9, 12, 12, 1023, 1023]);
        let sides: Vec<&str> = p.iter().map(|x| x.1.as_str()).collect();
        assert_eq!(
            sides,
            [COLLECTIVE, MOCKUP, MOCKUP, COLLECTIVE, COLLECTIVE, MOCKUP, MOCKUP, COLLECTIVE]
        );
        // An MPI_INT vector halved: multiples of 8 bytes.
        let split = guideline("Allreduce_split").unwrap();
        let sizes: Vec<usize> = points(split, &[4, 12, 16], 2).iter().map(|x| x.0).collect();
        assert_eq!(sizes, [8, 8, 16, 16]);
    }

    #[test]
    fn every_guideline_is_named_once_and_states_its_rule() {
        let mut names: Vec<&str> = GUIDELINES.iter().map(|g| g.info.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), GUIDELINES.len());
        for g in &GUIDELINES {
            let rule = g.rule();
            assert!(
                rule.starts_with(g.collective.trim_end_matches("(n)")),
                "{rule}"
            );
            assert!(rule.contains(" <= "), "{rule}");
        }
    }

    fn row(bytes: usize, side: &str, t: f64) -> Row {
        let mut r = Row {
            bytes,
            t_median_us: Some(t),
            samples_us: Some((0..50).map(|i| t * (1.0 + 0.01 * (i % 7) as f64)).collect()),
            ..Row::default()
        };
        r.params.insert("side".into(), side.into());
        r
    }

    #[test]
    fn derive_judges_every_size_and_the_monotony() {
        let g = guideline("Allreduce_Reduce_Bcast").unwrap();
        let mut r = BenchResult {
            processes: 4,
            rows: vec![
                row(8, COLLECTIVE, 2.0),
                row(8, MOCKUP, 4.0),
                row(16, MOCKUP, 4.0),
                row(16, COLLECTIVE, 6.0),
                row(32, COLLECTIVE, 3.0),
                row(32, MOCKUP, 3.0),
            ],
            ..BenchResult::default()
        };
        g.derive(&mut r);
        let v: Vec<(&str, usize, &str)> = r
            .figures
            .guidelines
            .iter()
            .map(|v| (v.guideline.as_str(), v.bytes, v.verdict.as_str()))
            .collect();
        assert_eq!(
            v,
            [
                ("Allreduce_Reduce_Bcast", 8, "holds"),
                ("Allreduce_Reduce_Bcast", 16, "violated"),
                ("Allreduce_Reduce_Bcast", 32, "holds"),
                ("monotony", 8, "holds"),
                ("monotony", 16, "violated"),
            ]
        );
        let m = &r.figures.guidelines[4];
        assert_eq!((m.mockup_bytes, m.ratio), (Some(32), 2.0));
        assert_eq!(m.collective, "MPI_Allreduce(16)");
        assert!(r.figures.guidelines.iter().all(|v| v.processes == 4));
    }
}
