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

use clap::Args;

use crate::bench::Benchmark;
use crate::cli::RunArgs;
use crate::comm::rma::{RmaSync, WindowKind};
use crate::engine::axis::{Axes, Point, SweepCx};

pub mod delay;
pub mod halo;
pub mod p2p;
pub mod sync;

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

/// The heading of the suite's options in `mpibench run -h`.
pub const HEADING: &str = "coarray (--suite caf)";

/// The coarray suite's own options of `mpibench run` (and `mpibench cafbench`).
#[derive(Debug, Clone, Args, Default)]
pub struct CafArgs {
    /// Coarray ping-pongs: single, multiple, crossing (comma-separated; default: all that the process count allows).
    #[arg(long, help_heading = HEADING, value_enum, value_delimiter = ',', value_name = "KINDS")]
    pub pingpong: Vec<PingPongKind>,

    /// Coarray synchronisation of ping-pongs and halo swaps: global (sync all), p2p (sync images) (default both).
    #[arg(long, help_heading = HEADING, value_enum, value_delimiter = ',', value_name = "KINDS")]
    pub sync_kind: Vec<SyncKind>,

    /// Edge n of the halo swap's n^3 arrays of doubles per rank (default 10,50,100,150).
    #[arg(
        long,
        help_heading = HEADING,
        value_delimiter = ',',
        value_name = "LIST",
        allow_negative_numbers = true
    )]
    pub halo_sizes: Vec<i64>,

    /// Largest ndata of the point-to-point sweeps in doubles, the coarray's size (default 65536 = 512 KiB).
    #[arg(long, help_heading = HEADING, value_name = "N", allow_negative_numbers = true)]
    pub max_ndata: Option<i64>,

    /// Largest stride of the strided sweeps, halved down to 1 (default 128).
    #[arg(long, help_heading = HEADING, value_name = "S", allow_negative_numbers = true)]
    pub max_stride: Option<i64>,
}

/// The suite's settings as plan axes (`Suite::axes`): validated on rank 0,
/// one line per usage error.
pub fn axes(args: &RunArgs, involved: bool, world: usize, mem: u64) -> Result<Axes, String> {
    // Ranges hold whatever the suite (a value out of range is a slip even
    // when no caf benchmark runs).
    if let Some(n) = args.caf.max_ndata.filter(|n| !(2..=1 << 28).contains(n)) {
        return Err(format!("--max-ndata {n}: must be from 2 to 2^28 (doubles)"));
    }
    if let Some(d) = args
        .delay_us
        .filter(|d| !(d.is_finite() && (0.0..=1e6).contains(d)))
    {
        return Err(format!(
            "--delay-us must be a number of microseconds from 0 to 1000000, not {d}"
        ));
    }
    if !involved {
        return Ok(Axes::new());
    }
    let c = &args.caf;
    let mut a = Axes::new();
    for k in &c.pingpong {
        if let Some(why) = k.refuse(world) {
            return Err(why);
        }
    }
    let code = |v: usize| v as f64;
    let mut lists: Vec<(&str, Vec<f64>)> = vec![
        (
            "caf_pingpong",
            c.pingpong.iter().map(|&k| code(k as usize)).collect(),
        ),
        (
            "caf_sync",
            c.sync_kind.iter().map(|&k| code(k as usize)).collect(),
        ),
        (
            "window",
            args.window.iter().map(|&w| code(w as usize)).collect(),
        ),
        (
            "rma_sync",
            args.rma_sync.iter().map(|&s| code(s as usize)).collect(),
        ),
    ];
    for (k, v) in lists.drain(..) {
        // First occurrences, in the order given.
        let mut u: Vec<f64> = Vec::new();
        for x in v {
            if !u.contains(&x) {
                u.push(x);
            }
        }
        if !u.is_empty() {
            a.insert(k.into(), u);
        }
    }
    if let Some(s) = c.max_stride {
        if s < 1 {
            return Err(format!("--max-stride {s}: the stride must be at least 1"));
        }
        a.insert("max_stride".into(), vec![s as f64]);
    }
    if let Some(n) = c.max_ndata {
        if !(2..=1 << 28).contains(&n) {
            return Err(format!("--max-ndata {n}: must be from 2 to 2^28 (doubles)"));
        }
        a.insert("max_ndata".into(), vec![n as f64]);
    }
    let ndata = c.max_ndata.map_or(MAX_NDATA, |n| n as usize);
    if let Some(stride) = c.max_stride.map(|s| s as usize).filter(|&s| s > ndata) {
        return Err(format!(
            "the largest stride ({stride}) exceeds the largest ndata ({ndata}): the strided sweeps need ndata/stride >= 1 elements"
        ));
    }
    if !c.halo_sizes.is_empty() {
        let mut v = Vec::new();
        for &n in &c.halo_sizes {
            if !(1..=100_000).contains(&n) {
                return Err(format!(
                    "--halo-sizes: {n} is not a cube edge from 1 to 100000"
                ));
            }
            let need = halo::bytes(n as usize);
            if need > mem {
                return Err(format!(
                    "--halo-sizes: n = {n} needs {need} bytes per rank for its ({n}+2)^3 doubles, above the memory limit of {mem} bytes (--mem)"
                ));
            }
            v.push(n as f64);
        }
        a.insert("halo_n".into(), v);
    }
    if let Some(d) = args.delay_us {
        if !(d.is_finite() && (0.0..=1e6).contains(&d)) {
            return Err(format!(
                "--delay-us must be a number of microseconds from 0 to 1000000, not {d}"
            ));
        }
        a.insert("delay_us".into(), vec![d]);
    }
    Ok(a)
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

    fn args(v: &[&str]) -> RunArgs {
        use clap::Parser;
        #[derive(Parser)]
        struct A {
            #[command(flatten)]
            run: RunArgs,
        }
        let mut all = vec!["x"];
        all.extend_from_slice(v);
        A::try_parse_from(all).unwrap().run
    }

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
        use crate::suite::resolve;
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

    #[test]
    fn options_become_axes_and_bad_ones_are_refused() {
        let a = axes(
            &args(&[
                "--pingpong",
                "single,multiple",
                "--sync-kind",
                "p2p",
                "--window",
                "dynamic",
                "--rma-sync",
                "pscw",
                "--halo-sizes",
                "10,20",
                "--delay-us",
                "5",
            ]),
            true,
            4,
            1 << 30,
        )
        .unwrap();
        let cx = SweepCx {
            sizes: &[0],
            axes: &a,
            q: 4,
        };
        let s = Settings::of(&cx);
        assert_eq!(s.kinds, vec![PingPongKind::Single, PingPongKind::Multiple]);
        assert_eq!(s.syncs, vec![SyncKind::P2p]);
        assert_eq!(s.combos(), vec![(WindowKind::Dynamic, RmaSync::Pscw)]);
        assert_eq!(s.halo, vec![10, 20]);
        assert_eq!(s.delay_us, 5.0);
        // Defaults without axes.
        let none = Axes::new();
        let d = Settings::of(&SweepCx {
            sizes: &[0],
            axes: &none,
            q: 2,
        });
        assert_eq!(d.kinds.len(), 3);
        assert_eq!(d.halo, HALO_SIZES.to_vec());
        assert_eq!((d.max_ndata, d.max_stride), (MAX_NDATA, MAX_STRIDE));
        assert_eq!(d.combos(), vec![(WindowKind::Create, RmaSync::Lockall)]);
        let m = axes(
            &args(&[
                "--window",
                "create,allocate",
                "--rma-sync",
                "fence,pscw,fence",
            ]),
            true,
            2,
            1 << 30,
        )
        .unwrap();
        let m = Settings::of(&SweepCx {
            sizes: &[0],
            axes: &m,
            q: 2,
        });
        assert_eq!(m.combos().len(), 2 * 2);
        assert_eq!(m.combos()[2], (WindowKind::Allocate, RmaSync::Fence));

        for (v, want) in [
            (vec!["--pingpong", "multiple"], "even number"),
            (vec!["--pingpong", "crossing"], "even number"),
            (vec!["--max-stride", "0"], "at least 1"),
            (vec!["--max-stride", "-3"], "at least 1"),
            (vec!["--max-ndata", "1"], "from 2"),
            (vec!["--halo-sizes", "0"], "cube edge"),
            (vec!["--halo-sizes", "400"], "--mem"),
            (vec!["--delay-us", "-1"], "--delay-us"),
            (vec!["--max-stride", "256", "--max-ndata", "128"], "exceeds"),
        ] {
            let e = axes(&args(&v), true, 3, 64 << 20).unwrap_err();
            assert!(e.contains(want), "{v:?}: {e}");
            assert!(!e.contains('\n'));
        }
        assert!(PingPongKind::Single.refuse(3).is_none());
        assert!(PingPongKind::Multiple.refuse(4).is_none());
        assert!(PingPongKind::Multiple.refuse(2).is_some());
    }
}
