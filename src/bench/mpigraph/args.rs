//! mpiGraph's own option of `mpibench run` and its plan axis (the
//! suite-argument layer: the benchmarks import nothing of the command line).

use clap::Args;

use super::DEFAULT_WINDOW;
use crate::cli::RunArgs;
use crate::contract::axis::Axes;

/// The heading of the suite's options in `mpibench run -h`.
pub const HEADING: &str = "mpiGraph (--suite mpigraph)";

/// The suite's own option of `mpibench run` (and `mpibench mpigraph`).
#[derive(Debug, Clone, Args, Default)]
pub struct MpigraphArgs {
    /// mpiGraph's WINDOW: messages in flight to and from each partner in every iteration (default 50).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = crate::cli::at_least_1, help_heading = HEADING)]
    pub graph_window: Option<usize>,
}

/// The suite's settings as plan axes (`Suite::axes`).
pub fn axes(args: &RunArgs, involved: bool, _world: usize, _mem: u64) -> Result<Axes, String> {
    let mut a = Axes::new();
    match (
        args.suites
            .get::<crate::bench::mpigraph::MpigraphArgs>()
            .graph_window,
        involved,
    ) {
        (Some(0), _) => return Err("--graph-window must be at least 1".into()),
        (Some(_), false) => {
            return Err("--graph-window belongs to the mpigraph suite (--suite mpigraph)".into())
        }
        (w, true) => {
            a.insert(
                "graph_window".into(),
                vec![w.unwrap_or(DEFAULT_WINDOW) as f64],
            );
        }
        (None, false) => {}
    }
    Ok(a)
}
