//! `mpibench guidelines [GUIDELINE...] [mpibench options]`: the suite as a
//! command of its own (the same run as `mpibench run --suite guidelines`).

use crate::cli::RunArgs;
use crate::frontend::{self, FrontEnd};

pub const FRONTEND: FrontEnd = FrontEnd {
    subcommand: "guidelines",
    listed: None,
    usage: "mpibench guidelines [GUIDELINE...] [mpibench options]",
    help:
        "Checks the MPI library's self-consistent performance guidelines: each collective against a
mock-up of less specialised calls with the same result, and against itself on half the data and at
the next size. Both sides run in the same launch, point by point in alternating order, under the
same method (per-call, barrier) and validation (--check). Per guideline, process count and size:
holds, VIOLATED (ratio > 1.05 and a one-sided Mann-Whitney p < 0.05) or inconclusive.
GUIDELINE: names from `mpibench list --suite guidelines` (default: all twelve).
mpibench options may be mixed in: -n N, --sizes 8,1K,64K, --check, --json FILE, --iter N, ...
Example: mpibench guidelines -n 4 --sizes 64,4K,256K --check --json guidelines.json",
    parse,
};

/// The run that `mpibench guidelines ...` asks for.
fn parse(params: &[String]) -> Result<RunArgs, String> {
    let (own, opts) = frontend::split_options(params);
    let mut args = frontend::parse_options(&opts)?;
    if let Some(s) = args.suite.as_deref().filter(|s| *s != super::SUITE) {
        return Err(format!(
            "mpibench guidelines runs the guidelines suite, not --suite {s}"
        ));
    }
    args.suite = Some(super::SUITE.to_string());
    args.benchmarks.extend(own);
    Ok(args)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn names_and_options_become_a_run_of_the_suite() {
        let a = parse(&words("Scatter_Bcast -n 4 --check Gather_Gatherv")).unwrap();
        assert_eq!(a.suite.as_deref(), Some("guidelines"));
        assert_eq!(a.benchmarks, ["Scatter_Bcast", "Gather_Gatherv"]);
        assert!(a.check);
        assert!(parse(&words("--suite imb"))
            .unwrap_err()
            .contains("not --suite imb"));
        assert!(parse(&words("--bogus")).is_err());
    }
}
