//! ALLREDUCE's own option of `mpibench run` and its plan axis (the
//! suite-argument layer: the benchmarks import nothing of the command line).

use super::Algorithm;
use crate::cli::RunArgs;
use crate::contract::axis::Axes;

/// Indices into [`Algorithm::ALL`], as `--algorithms` gives them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Algorithms(pub Vec<usize>);

/// Parses "mpi,ring,rabenseifner" (or "all").
pub fn parse_list(s: &str) -> Result<Algorithms, String> {
    let mut v = Vec::new();
    for tok in s.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        if tok.eq_ignore_ascii_case("all") {
            v.extend(0..Algorithm::ALL.len());
            continue;
        }
        let a = Algorithm::from_id(tok).ok_or_else(|| {
            format!(
                "unknown allreduce algorithm '{tok}' (known: {})",
                Algorithm::ALL.map(Algorithm::id).join(", ")
            )
        })?;
        v.push(Algorithm::ALL.iter().position(|&x| x == a).unwrap_or(0));
    }
    v.sort_unstable();
    v.dedup();
    if v.is_empty() {
        return Err("--algorithms needs at least one algorithm".into());
    }
    Ok(Algorithms(v))
}

pub const HEADING: &str = "ALLREDUCE (--suite allreduce)";

/// ALLREDUCE's option on `mpibench run`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct AllreduceArgs {
    /// Algorithms, e.g. "mpi,ring,rabenseifner" (default all five).
    #[arg(long, help_heading = HEADING, value_name = "LIST", value_parser = parse_list)]
    pub algorithms: Option<Algorithms>,
}

/// The plan's ALLREDUCE axis (`Suite::axes`): the algorithms; refused for
/// other suites.
pub fn axes(args: &RunArgs, involved: bool, _world: usize, _mem: u64) -> Result<Axes, String> {
    let mut a = Axes::new();
    match (
        &args
            .suites
            .get::<crate::bench::allreduce::AllreduceArgs>()
            .algorithms,
        involved,
    ) {
        (Some(_), false) => {
            return Err("--algorithms is an ALLREDUCE option: use it with --suite allreduce".into())
        }
        (Some(l), true) => {
            a.insert("algorithm".into(), l.0.iter().map(|&x| x as f64).collect());
        }
        (None, _) => {}
    }
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn algorithm_lists() {
        assert_eq!(parse_list("mpi, Ring").unwrap().0, vec![0, 2]);
        assert_eq!(parse_list("all").unwrap().0.len(), 5);
        assert_eq!(parse_list("recursive-doubling").unwrap().0, vec![1]);
        assert!(parse_list("bogus")
            .unwrap_err()
            .contains("unknown allreduce algorithm"));
        assert!(parse_list("").is_err());
    }
}
