//! The EPCC Fortran Coarray Micro-Benchmark Suite (David Henty, EPCC;
//! `shared/seeds/000_*.txt`) on MPI one-sided communication.
//!
//! A coarray is an RMA window of doubles (`comm::rma`); "sync all" and
//! "sync images" map onto the window's synchronisation (`--rma-sync`), and
//! `--window` chooses how the window is made. Three sections, as cafbench:
//!
//! * point-to-point (`p2p/`): put and get ping-pongs in the seed's access
//!   patterns (contiguous, many, strided, strided many), plus "MPI Send";
//!   single, multiple and crossing ping-pongs, each with global or
//!   point-to-point synchronisation; timed as cafbench does (a loop of nrep
//!   round trips, nrep by the target-time rule);
//! * synchronisation (`sync/`): the overhead of each kind of synchronisation
//!   by delay subtraction (`method::DelaySubtraction`);
//! * 3-D halo swap (`halo/`): put-put and get-get on a periodic grid from
//!   MPI_Dims_create, always validated.

use crate::bench::entry::Entry;
use crate::bench::Benchmark;
use crate::comm::rma::{RmaSync, WindowKind};
use crate::contract::axis::{Point, SweepCx};
use crate::contract::RepsDefault;
use crate::method::{Method, SyncMode};
use crate::plugin::{benches, Defaults, ProcSweep, Suite, SuiteHelp};

pub mod args;
pub mod delay;
pub mod front;
pub mod halo;
pub mod p2p;
pub mod sync;
pub mod table;

pub use args::{axes, CafArgs, HEADING};

pub const SUITE: &str = "caf";

/// cafbench's p2ptargettime and halotargettime (seconds).
pub const TARGET_TIME_S: f64 = 0.5;
/// Largest ndata of the point-to-point sweeps (doubles): 512 KiB.
pub const MAX_NDATA: usize = 64 * 1024;
/// cafbench's p2pmaxstride.
pub const MAX_STRIDE: usize = 128;
/// cafbench's halosize.
pub const HALO_SIZES: [usize; 4] = [10, 50, 100, 150];
/// cafbench's syncmaxneigh.
pub const MAX_NEIGHBOURS: usize = 12;
/// The calibrated delay of the synchronisation benchmarks (µs).
pub const DELAY_US: f64 = 10.0;

/// Who ping-pongs with whom (the seed's "Pingpongs are done in three ways").
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PingPongKind {
    /// Image 0 with the last image; the others idle (but take part in sync all).
    Single,
    /// Image i with i + P/2, all images active (even P > 2).
    Multiple,
    /// As multiple, every other pair in the opposite direction.
    Crossing,
}

impl PingPongKind {
    pub const ALL: [PingPongKind; 3] = [
        PingPongKind::Single,
        PingPongKind::Multiple,
        PingPongKind::Crossing,
    ];

    pub fn name(self) -> &'static str {
        match self {
            PingPongKind::Single => "single",
            PingPongKind::Multiple => "multiple",
            PingPongKind::Crossing => "crossing",
        }
    }

    pub fn from_name(s: &str) -> Option<PingPongKind> {
        PingPongKind::ALL.into_iter().find(|k| k.name() == s)
    }

    /// Why it cannot run on `q` images.
    pub fn refuse(self, q: usize) -> Option<String> {
        match self {
            PingPongKind::Single => (q < 2).then(|| {
                format!("single ping-pong needs at least 2 processes, this run has {q}")
            }),
            _ => (q <= 2 || q % 2 != 0).then(|| {
                format!(
                    "{} ping-pong needs an even number of processes greater than 2, this run has {q}",
                    self.name()
                )
            }),
        }
    }
}

/// Global ("sync all") or point-to-point ("sync images") synchronisation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SyncKind {
    /// sync all.
    Global,
    /// sync images with the partner(s) only.
    P2p,
}

impl SyncKind {
    pub const ALL: [SyncKind; 2] = [SyncKind::Global, SyncKind::P2p];

    pub fn name(self) -> &'static str {
        match self {
            SyncKind::Global => "global",
            SyncKind::P2p => "p2p",
        }
    }

    /// cafbench's name of it.
    pub fn statement(self) -> &'static str {
        match self {
            SyncKind::Global => "sync all",
            SyncKind::P2p => "sync images",
        }
    }

    pub fn from_name(s: &str) -> Option<SyncKind> {
        SyncKind::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// The settings every caf benchmark reads from the plan's axes, with the
/// seed's defaults where an axis is absent.
#[derive(Debug, Clone)]
pub struct Settings {
    pub kinds: Vec<PingPongKind>,
    pub syncs: Vec<SyncKind>,
    pub halo: Vec<usize>,
    pub max_ndata: usize,
    pub max_stride: usize,
    pub delay_us: f64,
    /// Window kinds and synchronisation modes, each combination a set of points.
    pub windows: Vec<WindowKind>,
    pub rmas: Vec<RmaSync>,
}

impl Settings {
    pub fn of(cx: &SweepCx) -> Settings {
        fn pick<T: Copy>(all: &[T], codes: &[f64]) -> Vec<T> {
            codes
                .iter()
                .filter_map(|&c| all.get(c as usize).copied())
                .collect()
        }
        let one = |k: &str| cx.axis(k).first().copied();
        let kinds = pick(&PingPongKind::ALL, cx.axis("caf_pingpong"));
        let max_ndata = one("max_ndata").map_or(MAX_NDATA, |v| v as usize);
        let syncs = pick(&SyncKind::ALL, cx.axis("caf_sync"));
        Settings {
            kinds: if kinds.is_empty() {
                PingPongKind::ALL.to_vec()
            } else {
                kinds
            },
            syncs: if syncs.is_empty() {
                SyncKind::ALL.to_vec()
            } else {
                syncs
            },
            halo: match cx.axis("halo_n") {
                [] => HALO_SIZES.to_vec(),
                v => v.iter().map(|&n| n as usize).collect(),
            },
            max_ndata,
            // The default stride never exceeds a smaller --max-ndata.
            max_stride: one("max_stride").map_or(MAX_STRIDE.min(max_ndata), |v| v as usize),
            delay_us: one("delay_us").unwrap_or(DELAY_US),
            windows: match pick(&WindowKind::ALL, cx.axis("window")) {
                v if v.is_empty() => vec![WindowKind::default()],
                v => v,
            },
            rmas: match pick(&RmaSync::ALL, cx.axis("rma_sync")) {
                v if v.is_empty() => vec![RmaSync::default()],
                v => v,
            },
        }
    }

    /// Every (window kind, synchronisation mode), window kinds outermost (so
    /// that points of one kind reuse their window).
    pub fn combos(&self) -> Vec<(WindowKind, RmaSync)> {
        self.windows
            .iter()
            .flat_map(|&w| self.rmas.iter().map(move |&r| (w, r)))
            .collect()
    }
}

/// Adds a window kind and synchronisation mode to a point.
pub fn window_params(p: Point, (w, r): (WindowKind, RmaSync)) -> Point {
    p.with("window", w.name()).with("rma_sync", r.name())
}

/// The window kind and synchronisation a point names.
pub fn window_of(p: &Point) -> (WindowKind, RmaSync) {
    (
        p.str("window")
            .and_then(WindowKind::from_name)
            .unwrap_or_default(),
        p.str("rma_sync")
            .and_then(RmaSync::from_name)
            .unwrap_or_default(),
    )
}

/// cafbench's three sections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    PointToPoint,
    Synchronisation,
    Halo,
}

impl Section {
    /// cafbench's header of the section.
    pub fn title(self) -> &'static str {
        match self {
            Section::PointToPoint => "Point-to-point",
            Section::Synchronisation => "Synchronisation",
            Section::Halo => "3D Halo Swaps",
        }
    }
}

/// The section a caf benchmark belongs to.
pub fn section(name: &str) -> Option<Section> {
    let has = |v: Vec<&'static dyn Benchmark>| v.iter().any(|b| b.info().name == name);
    if has(p2p::benchmarks()) {
        Some(Section::PointToPoint)
    } else if has(sync::benchmarks()) {
        Some(Section::Synchronisation)
    } else if has(halo::benchmarks()) {
        Some(Section::Halo)
    } else {
        None
    }
}

/// Every benchmark of the suite, in cafbench's order.
pub fn benchmarks() -> Vec<&'static dyn Benchmark> {
    let mut v = p2p::benchmarks();
    v.extend(sync::benchmarks());
    v.extend(halo::benchmarks());
    v
}

fn entries() -> Vec<Entry> {
    benches(benchmarks())
}

/// The suite's entry in the registry.
pub const REGISTERED: Suite = Suite {
    name: SUITE,
    title: "EPCC Fortran coarray micro-benchmarks on MPI one-sided communication",
    entries,
    defaults: Defaults {
        method: Method::Loop,
        sync: SyncMode::Barrier,
        reps: RepsDefault::TargetTime {
            target: TARGET_TIME_S,
        },
        sizes: "0",
        procs: ProcSweep::World,
        warm_largest: 0,
    },
    axes: Some(axes),
    formats: &[(SUITE, &table::Caf)],
    help: SuiteHelp {
        heading: Some(HEADING),
        own: Some("mpibench cafbench [mpibench options] (as cafbench runs, stand-alone)"),
        example:
            "mpibench run -n 4 --suite caf --pingpong single --sync-kind global --halo-sizes 10",
    },
    front: Some(&front::FRONTEND),
    options: Some(crate::cli::OptionsHook::of::<CafArgs>()),
    ..Suite::PLAIN
};

/// A benchmark of this suite by exact name.
#[cfg(test)]
pub fn find(name: &str) -> Option<&'static dyn Benchmark> {
    benchmarks().into_iter().find(|b| b.info().name == name)
}

/// Prints a validation failure once per kernel and reason (at most `MAX_REPORTS` lines).
pub struct Reporter {
    printed: usize,
}

const MAX_REPORTS: usize = 3;

impl Reporter {
    pub fn new() -> Reporter {
        Reporter { printed: 0 }
    }

    /// One line on stderr (the rank that saw it prints it).
    pub fn report(&mut self, line: impl FnOnce() -> String) {
        if self.printed < MAX_REPORTS {
            eprintln!("error: {}", line());
            self.printed += 1;
        }
    }
}

impl Default for Reporter {
    fn default() -> Reporter {
        Reporter::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::Axis;
    use crate::comm::Elem;

    #[test]
    fn every_benchmark_is_a_double_of_the_caf_suite() {
        let all = benchmarks();
        assert_eq!(all.len(), 9 + 8 + 2);
        for b in &all {
            let i = b.info();
            assert_eq!(i.suite, SUITE);
            assert_eq!(i.elem, Elem::Double, "{}", i.name);
            assert_ne!(i.axis, Axis::Elems);
            assert!(section(i.name).is_some(), "{}", i.name);
        }
        assert_eq!(section("put"), Some(Section::PointToPoint));
        assert_eq!(section("sync all"), Some(Section::Synchronisation));
        assert_eq!(section("halo put-put"), Some(Section::Halo));
        assert_eq!(section("PingPong"), None);
    }

    #[test]
    fn compiler_variants_are_aliases() {
        use crate::plugin::lookup::resolve;
        for (alias, name) in [
            ("subput", "put"),
            ("simple subput", "put"),
            ("all put", "put"),
            ("sub manyput", "many put"),
            ("many subput", "many put"),
            ("strided subput", "strided put"),
            ("subget", "get"),
            ("simple subget", "get"),
            ("all get", "get"),
            ("sub manyget", "many get"),
            ("many subget", "many get"),
            ("strided subget", "strided get"),
        ] {
            let (e, _) = resolve(alias, Some(SUITE)).unwrap();
            assert_eq!(e.info().name, name, "{alias}");
        }
        let e = resolve("puut", Some(SUITE)).unwrap_err().to_string();
        assert!(e.contains("did you mean put"), "{e}");
    }
}
