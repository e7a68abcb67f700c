//! OSU's options of `mpibench run` and their plan axes (the
//! suite-argument layer: the benchmarks import nothing of the command line).

use clap::Args;

use super::neighbor::{cart_fits, graph_adjacency, is_neighbour, read_graph, Spec, AXIS, DEFAULT};
use super::{axis, check_pairs, latency_mt, p2p, rma, WINDOW};
use crate::cli::RunArgs;
use crate::contract::axis::Axes;

/// The heading of the suite's options in `mpibench run -h`.
pub const HEADING: &str = "OSU (--suite osu)";

/// OSU's options that `mpibench run --suite osu` takes as well.
#[derive(Debug, Clone, Default, Args)]
pub struct OsuArgs {
    /// OSU -W: messages in flight per window (osu_bw, osu_bibw, osu_mbw_mr; default 64).
    #[arg(long, value_name = "W", allow_negative_numbers = true, value_parser = crate::cli::at_least_1, help_heading = HEADING)]
    pub osu_window: Option<usize>,

    /// OSU -b multiple: every message of a window from and into its own buffers (default: one send and one receive buffer, as OMB).
    #[arg(long, help_heading = HEADING)]
    pub osu_multiple_buffers: bool,

    /// OSU -f: min and max over ranks and the iterations in the OSU table.
    #[arg(long, help_heading = HEADING)]
    pub osu_full: bool,

    /// OSU -z: tail percentiles in the OSU table, e.g. 50,90,99, each in (0, 100] (per-iteration timing).
    #[arg(
        long,
        value_name = "P,...",
        value_delimiter = ',',
        help_heading = HEADING
    )]
    pub osu_tail: Vec<f64>,

    /// OSU -R 0: no Messages/s column in the osu_mbw_mr table.
    #[arg(long, help_heading = HEADING)]
    pub osu_no_rate: bool,

    /// OSU -w: how the one-sided programs make their windows (default allocate; osu_get_acc_latency: create).
    #[arg(
        long,
        value_enum,
        value_name = "KIND",
        help_heading = HEADING
    )]
    pub osu_win: Option<crate::comm::rma::WindowKind>,

    /// OSU -s: how the one-sided programs synchronise (default flush; osu_put_bibw: pscw; osu_get_acc_latency: lock).
    #[arg(
        long,
        value_enum,
        value_name = "SYNC",
        help_heading = HEADING
    )]
    pub osu_sync: Option<rma::OsuSync>,

    /// OSU -t: MPI_Test calls during the computation of non-blocking collectives (default 0).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = crate::cli::at_least_0, help_heading = HEADING)]
    pub osu_tests: Option<usize>,

    /// OSU -N: topology of the neighbourhood collectives, cart:DIMENSIONS:RADIUS or graph:FILE (default cart:1:1).
    #[arg(long, value_name = "SPEC", help_heading = HEADING)]
    pub osu_topology: Option<String>,

    /// OSU -p: pairs i <-> i+N of osu_mbw_mr and osu_multi_lat, 1 <= N <= P/2 (default P/2).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = crate::cli::at_least_1, help_heading = HEADING)]
    pub osu_pairs: Option<usize>,

    /// OSU -t of osu_latency_mt: receiver threads R (one sender) or S:R, each 1..=127 (default 1:2).
    #[arg(long, value_name = "[S:]R", help_heading = HEADING)]
    pub osu_threads: Option<String>,

    /// OSU -V: osu_mbw_mr at every window size 1, 2, 4, ..., 128 (not with --osu-window).
    #[arg(long, help_heading = HEADING)]
    pub osu_vary_window: bool,
}

/// The suite's own options → plan axes.
pub fn axes(args: &RunArgs, involved: bool, world: usize, mem: u64) -> Result<Axes, String> {
    let o = &*args.suites.get::<crate::bench::osu::OsuArgs>();
    let given = o.osu_window.is_some()
        || o.osu_multiple_buffers
        || o.osu_full
        || !o.osu_tail.is_empty()
        || o.osu_no_rate
        || o.osu_win.is_some()
        || o.osu_sync.is_some()
        || o.osu_tests.is_some()
        || o.osu_topology.is_some()
        || o.osu_pairs.is_some()
        || o.osu_vary_window
        || o.osu_threads.is_some();
    let mut a = Axes::new();
    if !involved {
        if given {
            return Err("the --osu-* options apply to the osu suite: add --suite osu".into());
        }
        return Ok(a);
    }
    let w = o.osu_window.unwrap_or(WINDOW);
    if w == 0 {
        return Err("--osu-window must be at least 1".into());
    }
    if let Some(e) = p2p::window_refused(w, mem) {
        return Err(format!("-W/--osu-window {w}: {e}"));
    }
    a.insert(axis::WINDOW.into(), vec![w as f64]);
    if o.osu_vary_window {
        if o.osu_window.is_some() {
            return Err("-V/--osu-vary-window cannot be used with -W/--osu-window".into());
        }
        a.insert(axis::VARY_WINDOW.into(), vec![1.0]);
    }
    if let Some(r) = args.roots.root.filter(|&r| r >= world) {
        // OMB: "Root rank('-k') cannot be more than number of processes".
        return Err(format!(
            "-k fixed:{r}/--root {r}: root {r} is not one of the {world} processes"
        ));
    }
    if let Some(n) = o.osu_pairs {
        check_pairs(n, world)?;
        a.insert(axis::PAIRS.into(), vec![n as f64]);
    }
    if let Some(t) = &o.osu_threads {
        let (s, r) = latency_mt::parse_threads(t).map_err(|e| format!("-t/--osu-threads: {e}"))?;
        a.insert(axis::SENDERS.into(), vec![s as f64]);
        a.insert(axis::RECEIVERS.into(), vec![r as f64]);
    }
    if o.osu_multiple_buffers {
        a.insert(axis::MULTIPLE.into(), vec![1.0]);
    }
    if let Some(k) = o.osu_win {
        let code = crate::comm::rma::WindowKind::ALL
            .iter()
            .position(|&x| x == k);
        a.insert(axis::WIN.into(), vec![code.unwrap_or(0) as f64]);
    }
    if let Some(s) = o.osu_sync {
        let code = rma::OsuSync::ALL.iter().position(|&x| x == s);
        a.insert(axis::SYNC.into(), vec![code.unwrap_or(0) as f64]);
    }
    if o.osu_no_rate {
        a.insert(axis::NO_RATE.into(), vec![1.0]);
    }
    if o.osu_full {
        a.insert(axis::FULL.into(), vec![1.0]);
    }
    if let Some(p) = o.osu_tail.iter().find(|p| !(**p > 0.0 && **p <= 100.0)) {
        return Err(format!("--osu-tail: percentile {p} is not in (0, 100]"));
    }
    if !o.osu_tail.is_empty() {
        a.insert(axis::TAIL.into(), o.osu_tail.clone());
    }
    a.insert(axis::TESTS.into(), vec![o.osu_tests.unwrap_or(0) as f64]);
    if let Some(n) = args.reps.iter {
        a.insert(axis::ITER.into(), vec![n as f64]);
    }
    neighbor_axes(args, world, &mut a)?;
    Ok(a)
}

/// `--osu-topology` (OSU `-N`) → the plan axis, checked on `world`
/// processes: a malformed value, an unreadable or malformed graph file or
/// one naming ranks beyond the run is a usage error; so is a radius that
/// does not fit, when -N was given or only neighbourhood programs run.
fn neighbor_axes(args: &RunArgs, world: usize, a: &mut Axes) -> Result<(), String> {
    let own = args.suites.get::<OsuArgs>();
    let given = own.osu_topology.as_deref();
    let only_neighbours =
        !args.benchmarks.is_empty() && args.benchmarks.iter().all(|b| is_neighbour(b));
    let mut spec = Spec::parse(given.unwrap_or(DEFAULT))?;
    match &mut spec {
        Spec::Graph(file) => {
            let edges = read_graph(file)?;
            graph_adjacency(&edges, world, file)?;
            // Every rank reads the same file, wherever it starts.
            if let Ok(full) = std::fs::canonicalize(&*file) {
                *file = full.to_string_lossy().into_owned();
            }
        }
        Spec::Cart { d, r } if given.is_some() || only_neighbours => {
            // Before MPI starts (a self-launcher checks the plan first):
            // MPI_Dims_create's algorithm, without MPI.
            cart_fits(
                &crate::contract::placement::dims_create(world, *d),
                *r,
                world,
            )?;
        }
        Spec::Cart { .. } => {}
    }
    if given.is_some() {
        a.insert(AXIS.into(), spec.label().bytes().map(f64::from).collect());
    }
    Ok(())
}
