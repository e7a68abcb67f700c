//! The plan: what every rank runs. Rank 0 builds and validates it from the
//! command line, then broadcasts it, so ranks cannot disagree.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::bench::{Benchmark, Class};
use crate::cli::RunArgs;
use crate::suite;

/// A usage error: one line for the user, exit code 2.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum PlanError {
    #[error("unknown benchmark '{name}'{}", hint.as_ref().map(|h| format!(" (did you mean {h}?)")).unwrap_or_default())]
    UnknownBenchmark { name: String, hint: Option<String> },
    #[error("unknown suite '{0}' (known: {1})")]
    UnknownSuite(String, String),
    #[error("{0}")]
    Invalid(String),
}

fn invalid(msg: impl Into<String>) -> PlanError {
    PlanError::Invalid(msg.into())
}

/// Repetition policy (PMB/IMB defaults: at most 1000 repetitions and 40 MiB per size).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Policy {
    pub iter: Option<usize>,
    pub max_reps: usize,
    pub max_volume: usize,
    pub time_limit_s: f64,
    pub warmup: Option<usize>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Plan {
    pub command: Vec<String>,
    pub suite: String,
    pub benchmarks: Vec<String>,
    pub sizes: Vec<usize>,
    pub npmin: Option<usize>,
    pub multi: bool,
    pub multi_detail: bool,
    pub policy: Policy,
    pub root_shift: bool,
    pub check: bool,
    pub corrupt: bool,
    pub json: Option<PathBuf>,
    pub csv: Option<PathBuf>,
    pub quiet: bool,
}

pub const IMB_MAX_REPS: usize = 1000;
pub const IMB_MAX_VOLUME: usize = 40 << 20;

impl Plan {
    /// Builds and validates the whole plan for a world of `world` ranks.
    pub fn build(args: &RunArgs, command: Vec<String>, world: usize) -> Result<Plan, PlanError> {
        let suite = suite::suite(&args.suite).ok_or_else(|| {
            PlanError::UnknownSuite(
                args.suite.clone(),
                suite::SUITES
                    .iter()
                    .map(|s| s.name)
                    .collect::<Vec<_>>()
                    .join(", "),
            )
        })?;
        let mut benchmarks = Vec::new();
        if args.benchmarks.is_empty() {
            benchmarks.extend(
                (suite.benchmarks)()
                    .iter()
                    .map(|b| b.info().name.to_string()),
            );
        }
        for name in &args.benchmarks {
            let b = suite::find(name).ok_or_else(|| PlanError::UnknownBenchmark {
                name: name.clone(),
                hint: suite::suggest(suite::strip_multi(name)).map(str::to_string),
            })?;
            let n = b.info().name.to_string();
            if !benchmarks.contains(&n) {
                benchmarks.push(n);
            }
        }
        let sizes = match (&args.msglog, &args.sizes) {
            (Some(m), _) => parse_msglog(m)?,
            (None, Some(s)) => parse_sizes(s)?,
            (None, None) => parse_msglog("0:22")?,
        };
        if let Some(np) = args.npmin {
            if np == 0 {
                return Err(invalid("--npmin must be at least 1"));
            }
            if np > world {
                return Err(invalid(format!(
                    "--npmin {np} is larger than the {world} processes of this run"
                )));
            }
        }
        if args.iter == Some(0) {
            return Err(invalid("--iter must be at least 1"));
        }
        if !(args.time.is_finite() && args.time > 0.0) {
            return Err(invalid(format!(
                "--time must be a positive number of seconds, not {}",
                args.time
            )));
        }
        if args.multi_detail && !args.multi {
            return Err(invalid("--multi-detail needs --multi"));
        }
        for path in [&args.json, &args.csv].into_iter().flatten() {
            check_writable(path)?;
        }
        Ok(Plan {
            command,
            suite: suite.name.to_string(),
            benchmarks,
            sizes,
            npmin: args.npmin,
            multi: args.multi,
            multi_detail: args.multi_detail,
            policy: Policy {
                iter: args.iter,
                max_reps: IMB_MAX_REPS,
                max_volume: IMB_MAX_VOLUME,
                time_limit_s: args.time,
                warmup: args.warmup,
            },
            root_shift: args.root_shift,
            check: args.check,
            corrupt: args.corrupt,
            json: args.json.clone(),
            csv: args.csv.clone(),
            quiet: args.quiet,
        })
    }

    pub fn benches(&self) -> Vec<&'static dyn Benchmark> {
        self.benchmarks
            .iter()
            .filter_map(|n| suite::find(n))
            .collect()
    }
}

/// Fails unless a file can be created next to `path` (so that the atomic
/// rename later succeeds). Creates nothing that stays.
fn check_writable(path: &Path) -> Result<(), PlanError> {
    if path.as_os_str() == "-" {
        return Ok(());
    }
    if path.is_dir() {
        return Err(invalid(format!(
            "output path '{}' is a directory",
            path.display()
        )));
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let probe = dir.join(format!(".mpibench-probe-{}", std::process::id()));
    match std::fs::File::create(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => Err(invalid(format!("cannot write '{}': {e}", path.display()))),
    }
}

/// Parses one size: a non-negative integer with an optional K, M or G suffix
/// (powers of 1024, optionally followed by "B" or "iB"), or "2^N".
pub fn parse_size(s: &str) -> Result<usize, PlanError> {
    let t = s.trim();
    let bad = || {
        invalid(format!(
            "invalid message size '{s}' (expected e.g. 0, 64, 4K, 1M, 2G or 2^20)"
        ))
    };
    if let Some(e) = t.strip_prefix("2^") {
        let e: u32 = e.parse().map_err(|_| bad())?;
        return 1usize.checked_shl(e).filter(|_| e < 63).ok_or_else(bad);
    }
    let upper = t.to_ascii_uppercase();
    let body = upper
        .strip_suffix("IB")
        .or_else(|| upper.strip_suffix('B'))
        .unwrap_or(&upper);
    let (num, mult) = match body.chars().last() {
        Some('K') => (&body[..body.len() - 1], 1usize << 10),
        Some('M') => (&body[..body.len() - 1], 1 << 20),
        Some('G') => (&body[..body.len() - 1], 1 << 30),
        _ => (body, 1),
    };
    if num.is_empty() || !num.chars().all(|c| c.is_ascii_digit()) {
        return Err(bad());
    }
    num.parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .ok_or_else(bad)
}

/// Parses a comma-separated size list; sorted, duplicates removed.
pub fn parse_sizes(list: &str) -> Result<Vec<usize>, PlanError> {
    if list.trim().is_empty() {
        return Err(invalid("--sizes needs at least one message size"));
    }
    let mut v = list
        .split(',')
        .map(parse_size)
        .collect::<Result<Vec<_>, _>>()?;
    v.sort_unstable();
    v.dedup();
    Ok(v)
}

/// PMB/IMB `-msglog`: "A:B" gives 0, 2^A..2^B; "B" gives 0, 2^0..2^B.
pub fn parse_msglog(s: &str) -> Result<Vec<usize>, PlanError> {
    let bad = || {
        invalid(format!(
            "invalid --msglog '{s}' (expected A:B with 0 <= A <= B <= 40)"
        ))
    };
    let (a, b) = match s.split_once(':') {
        Some((a, b)) => (
            a.trim().parse::<u32>().map_err(|_| bad())?,
            b.trim().parse::<u32>().map_err(|_| bad())?,
        ),
        None => (0, s.trim().parse::<u32>().map_err(|_| bad())?),
    };
    if a > b {
        return Err(invalid(format!(
            "invalid --msglog '{s}': A ({a}) is larger than B ({b})"
        )));
    }
    if b > 40 {
        return Err(bad());
    }
    let mut v = vec![0];
    v.extend((a..=b).map(|e| 1usize << e));
    Ok(v)
}

/// The process counts Q a benchmark runs on in a world of P (PMB §5.1.1):
/// single transfers on 2; the others on npmin, 2·npmin, 4·npmin, ... < P, then P
/// (default npmin 2, e.g. P = 11 gives 2, 4, 8, 11). P = 1 runs on 1.
pub fn process_counts(
    class: Class,
    min_ranks: usize,
    world: usize,
    npmin: Option<usize>,
) -> Vec<usize> {
    if class == Class::SingleTransfer {
        return if world >= 2 { vec![2] } else { vec![] };
    }
    let start = npmin.unwrap_or(2).min(world).max(min_ranks).max(1);
    if start > world {
        return vec![];
    }
    let mut v = Vec::new();
    let mut q = start;
    while q < world {
        v.push(q);
        q *= 2;
    }
    v.push(world);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_with_suffixes() {
        assert_eq!(parse_size("0").unwrap(), 0);
        assert_eq!(parse_size("4K").unwrap(), 4096);
        assert_eq!(parse_size("1m").unwrap(), 1 << 20);
        assert_eq!(parse_size("2G").unwrap(), 2 << 30);
        assert_eq!(parse_size("3KiB").unwrap(), 3072);
        assert_eq!(parse_size("8B").unwrap(), 8);
        assert_eq!(parse_size("2^31").unwrap(), 1 << 31);
        assert_eq!(parse_sizes("1M, 0,4K,4K").unwrap(), vec![0, 4096, 1 << 20]);
        for bad in [
            "",
            "-1",
            "1.5K",
            "K",
            "12X",
            "2^99",
            "99999999999999999999",
            "1,,2",
        ] {
            assert!(parse_sizes(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn msglog_like_imb() {
        assert_eq!(parse_msglog("0:3").unwrap(), vec![0, 1, 2, 4, 8]);
        assert_eq!(parse_msglog("2").unwrap(), vec![0, 1, 2, 4]);
        assert_eq!(parse_msglog("10:10").unwrap(), vec![0, 1024]);
        assert_eq!(parse_msglog("0:22").unwrap().len(), 24);
        assert!(parse_msglog("5:3")
            .unwrap_err()
            .to_string()
            .contains("larger"));
        assert!(parse_msglog("a:b").is_err());
        assert!(parse_msglog("-1:3").is_err());
    }

    #[test]
    fn process_count_sweep_is_pmb_5_1_1() {
        let c = Class::Collective;
        assert_eq!(process_counts(c, 1, 11, None), vec![2, 4, 8, 11]);
        assert_eq!(process_counts(c, 1, 8, None), vec![2, 4, 8]);
        assert_eq!(process_counts(c, 1, 2, None), vec![2]);
        assert_eq!(process_counts(c, 1, 3, None), vec![2, 3]);
        assert_eq!(process_counts(c, 1, 1, None), vec![1]);
        assert_eq!(process_counts(c, 1, 11, Some(5)), vec![5, 10, 11]);
        assert_eq!(process_counts(c, 1, 4, Some(4)), vec![4]);
        assert_eq!(
            process_counts(Class::ParallelTransfer, 1, 16, Some(3)),
            vec![3, 6, 12, 16]
        );
        assert_eq!(process_counts(Class::SingleTransfer, 2, 11, None), vec![2]);
        assert_eq!(
            process_counts(Class::SingleTransfer, 2, 1, None),
            Vec::<usize>::new()
        );
    }
}
