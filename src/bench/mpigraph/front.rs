//! LLNL mpiGraph's command line, verbatim:
//!
//! ```text
//! srun -n <#nodes> -N <#nodes> mpibench mpigraph [SIZE [ITERS [WINDOW]]] > mpiGraph.out
//! ```
//!
//! SIZE: message size in bytes (default 16384); ITERS: iterations per pair
//! (default 100); WINDOW: messages in flight to and from each partner
//! (default 50). mpibench options (`--json`, `--hosts`, `--fail-on-outlier`,
//! `-n`, ...) may be mixed in.

use crate::bench::mpigraph::{self, DEFAULT_ITERS, DEFAULT_SIZE, DEFAULT_WINDOW};
use crate::cli::RunArgs;
use crate::units::parse_size;

pub const HELP: &str = "mpiGraph parameters, in this order (all optional, as mpiGraph takes them):
  SIZE     message size in bytes (default 16384)
  ITERS    iterations per pair of ranks (default 100)
  WINDOW   messages in flight to and from each partner in every iteration (default 50)
Runs Bandwidth and Latency of the mpigraph suite: the send and receive bandwidth of every ordered pair
of ranks (in step k every rank sends to rank+k and receives from rank-k), the host x host summary and
the outliers (hosts and links well below their peers; the rule is in docs/suites/mpigraph.md of the
source).
mpibench options may be mixed in: -n N, --hosts h1:1,h2:1, --json FILE, --fail-on-outlier (exit code 6
when there are outliers), --pairs does not apply (every pair is measured).
Example: mpibench mpigraph 1M 20 10 --hosts node1:1,node2:1,node3:1,node4:1 --json graph.json";

/// SIZE, ITERS, WINDOW.
pub fn params(own: &[String]) -> Result<(usize, usize, usize), String> {
    if own.len() > 3 {
        return Err(format!(
            "mpigraph takes at most 3 parameters, SIZE ITERS WINDOW, not {}; see mpibench mpigraph --help",
            own.len()
        ));
    }
    let positive = |name: &str, v: &str| {
        v.parse::<usize>()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| format!("{name} must be a positive integer, not '{v}'"))
    };
    let size = match own.first() {
        Some(v) => parse_size(v)
            .map_err(|_| format!("SIZE must be a size in bytes (e.g. 16384, 1M), not '{v}'"))?,
        None => DEFAULT_SIZE,
    };
    let iters = own
        .get(1)
        .map_or(Ok(DEFAULT_ITERS), |v| positive("ITERS", v))?;
    let window = own
        .get(2)
        .map_or(Ok(DEFAULT_WINDOW), |v| positive("WINDOW", v))?;
    Ok((size, iters, window))
}

/// The run that mpiGraph's command line asks for.
pub fn parse(params_in: &[String]) -> Result<RunArgs, String> {
    let (own, opts) = crate::frontend::split_options(params_in);
    let (size, iters, window) = params(&own)?;
    let mut args = crate::frontend::parse_options(&opts)?;
    args.suite = Some(mpigraph::SUITE.to_string());
    args.reps.iter = args.reps.iter.or(Some(iters));
    args.sweep.sizes = args.sweep.sizes.or(Some(size.to_string()));
    let own = args
        .suites
        .get_mut::<crate::bench::mpigraph::MpigraphArgs>();
    own.graph_window = own.graph_window.or(Some(window));
    args.front.frontend = Some(format!("{size} {iters} {window}"));
    Ok(args)
}

/// This front end for `mpibench mpigraph`.
pub const FRONTEND: crate::frontend::FrontEnd = crate::frontend::FrontEnd {
    subcommand: "mpigraph",
    listed: Some(&crate::frontend::Listed {
        about: "LLNL mpiGraph's command line: mpibench mpigraph [SIZE [ITERS [WINDOW]]] (the bandwidth of every pair of ranks, the host summary and its outliers)",
        order: 14,
        value_name: "PARAM",
        arg_help: "mpiGraph's parameters and mpibench options (-n, --hosts, --json, --fail-on-outlier, ...)",
        after_help: HELP,
    }),
    usage: "mpibench mpigraph [SIZE [ITERS [WINDOW]]] [OPTIONS]",
    help: HELP,
    parse,
};

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn mpigraphs_positionals_and_defaults() {
        let a = parse(&[]).unwrap();
        assert_eq!(a.suite.as_deref(), Some("mpigraph"));
        assert_eq!(a.sweep.sizes.as_deref(), Some("16384"));
        assert_eq!(a.reps.iter, Some(100));
        assert_eq!(
            a.suites
                .get::<crate::bench::mpigraph::MpigraphArgs>()
                .graph_window,
            Some(50)
        );
        let a = parse(&v("1M 20 --json g.json 10")).unwrap();
        assert_eq!(a.sweep.sizes.as_deref(), Some("1048576"));
        assert_eq!(a.reps.iter, Some(20));
        assert_eq!(
            a.suites
                .get::<crate::bench::mpigraph::MpigraphArgs>()
                .graph_window,
            Some(10)
        );
        assert_eq!(a.out.json.as_deref(), Some(std::path::Path::new("g.json")));
        assert!(parse(&v("0x 1")).unwrap_err().contains("SIZE"));
        assert!(parse(&v("8 0")).unwrap_err().contains("ITERS"));
        assert!(parse(&v("8 1 2 3")).unwrap_err().contains("at most 3"));
    }
}
