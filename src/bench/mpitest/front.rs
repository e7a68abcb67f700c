//! MPITEST's command line, verbatim:
//!
//! ```text
//! mpirun -np 4 mpibench mpitest m1 M100 K10 T100 t100000 R2 otransfer.dat
//! ```
//!
//! m / M: smallest and largest N (integers); K: multiplier; T / t:
//! iterations of normal and fast constructs; R: repeats of the whole test;
//! b: buffer bytes (default 16 MB: lengths that do not fit are skipped with
//! a note); o: output file (default: the terminal). mpibench options
//! (`-n`, `--json`, `--check`, `--stats`, ...) may be mixed in.

use crate::cli::RunArgs;
use crate::contract::axis::geometric;

pub const HELP: &str = "MPITEST parameters (letters followed by a value, no space):
  mN     smallest N, in integers (default 1)
  MN     largest N (default 100000)
  KN     multiplier of N, at least 2 (default 10)
  TN     iterations of normal constructs (default 100)
  tN     iterations of fast constructs: TIMING, BARRIER, SIGNAL SENDING (default 10000)
  RN     repeats of the whole test (default 1)
  bN     buffer bytes per process (default 16777216); larger lengths are skipped with a note
  oFILE  output file (default: the terminal)
mpibench options may be mixed in: -n N (self-launch), --json FILE, --csv FILE, --check, --stats, -q.
Example: mpirun -np 4 mpibench mpitest m1 M100 K10 T100 t100000 R2 otransfer.dat";

/// The defaults of the parameters.
pub struct Params {
    pub m: u64,
    pub big_m: u64,
    pub k: u64,
    pub big_t: u64,
    pub t: u64,
    pub r: u64,
    pub b: u64,
    pub o: Option<String>,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            m: 1,
            big_m: 100_000,
            k: 10,
            big_t: 100,
            t: 10_000,
            r: 1,
            b: 16 << 20,
            o: None,
        }
    }
}

impl Params {
    /// Reads the letter parameters.
    pub fn parse(tokens: &[String]) -> Result<Params, String> {
        let mut p = Params::default();
        for tok in tokens {
            let mut chars = tok.chars();
            let letter = chars.next().ok_or("empty parameter")?;
            let value = chars.as_str();
            if value.is_empty() {
                return Err(format!(
                    "parameter '{letter}' needs a value, e.g. {letter}10"
                ));
            }
            if letter == 'o' {
                p.o = Some(value.to_string());
                continue;
            }
            let slot = match letter {
                'm' => &mut p.m,
                'M' => &mut p.big_m,
                'K' => &mut p.k,
                'T' => &mut p.big_t,
                't' => &mut p.t,
                'R' => &mut p.r,
                'b' => &mut p.b,
                _ => {
                    return Err(format!(
                        "unknown MPITEST parameter '{tok}' (known: m M K T t R b o; see mpibench mpitest --help)"
                    ))
                }
            };
            *slot = value
                .parse::<u64>()
                .ok()
                .filter(|&v| v > 0)
                .ok_or_else(|| {
                    format!("parameter '{letter}' needs a positive integer, not '{value}'")
                })?;
        }
        if p.big_m < p.m {
            return Err(format!(
                "M ({}) must not be smaller than m ({})",
                p.big_m, p.m
            ));
        }
        if p.k < 2 {
            return Err(format!("K ({}) must be at least 2", p.k));
        }
        Ok(p)
    }

    /// The lengths N = m, m·K, m·K², ... ≤ M.
    pub fn lengths(&self) -> Vec<u64> {
        geometric(self.m, self.big_m, self.k)
    }

    /// The parameter line as MPITEST reads it.
    pub fn line(&self) -> String {
        let mut s = format!(
            "m{} M{} K{} T{} t{} R{} b{}",
            self.m, self.big_m, self.k, self.big_t, self.t, self.r, self.b
        );
        if let Some(o) = &self.o {
            s.push_str(&format!(" o{o}"));
        }
        s
    }
}

/// The run that MPITEST's command line asks for.
pub fn parse(params: &[String]) -> Result<RunArgs, String> {
    let (own, opts) = crate::frontend::split_options(params);
    let p = Params::parse(&own)?;
    let mut args = crate::frontend::parse_options(&opts)?;
    let sizes: Vec<String> = p
        .lengths()
        .iter()
        .map(|&n| n.checked_mul(4).map(|b| b.to_string()))
        .collect::<Option<_>>()
        .ok_or("M is too large")?;
    args.suite = Some(super::SUITE.to_string());
    args.sweep.sizes = Some(sizes.join(","));
    args.reps.iter = Some(p.big_t as usize);
    args.reps.fast_iter = Some(p.t as usize);
    args.reps.repeats = Some(p.r as usize);
    args.front.buffer_bytes = Some(p.b);
    args.front.buffer_flag = Some("MPITEST b");
    if let Some(o) = &p.o {
        args.out.output = Some(o.into());
    }
    args.front.frontend = Some(p.line());
    // Errors name the parameters as typed (T99 rather than --iter 99).
    for (ours, letter, v) in [
        ("--iter", 'T', p.big_t),
        ("--fast-iter", 't', p.t),
        ("--repeats", 'R', p.r),
    ] {
        crate::frontend::spelled(&mut args, format!("{ours} {v}"), format!("{letter}{v}"));
        crate::frontend::spelled(&mut args, ours, letter.to_string());
    }
    Ok(args)
}

/// This front end for `mpibench mpitest`.
pub const FRONTEND: crate::frontend::FrontEnd = crate::frontend::FrontEnd {
    subcommand: "mpitest",
    listed: Some(&crate::frontend::Listed {
        about: "MPITEST's own command line: mpibench mpitest m1 M100 K10 T100 t100000 R2 otransfer.dat",
        order: 2,
        value_name: "PARAM",
        arg_help: "MPITEST parameters (m, M, K, T, t, R, b, o) and mpibench options (-n, --json, --check, ...)",
        after_help: HELP,
    }),
    usage: "mpibench mpitest [PARAM]...",
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
    fn the_seed_example_parses_verbatim() {
        let a = parse(&v("m1 M100 K10 T100 t100000 R2 otransfer.dat")).unwrap();
        assert_eq!(a.sweep.sizes.as_deref(), Some("4,40,400"));
        assert_eq!(a.reps.iter, Some(100));
        assert_eq!(a.reps.fast_iter, Some(100_000));
        assert_eq!(a.reps.repeats, Some(2));
        assert_eq!(
            a.out.output.as_deref(),
            Some(std::path::Path::new("transfer.dat"))
        );
        assert_eq!(a.front.buffer_bytes, Some(16 << 20));
        assert_eq!(a.suite.as_deref(), Some("mpitest"));
        assert!(a
            .front
            .frontend
            .unwrap()
            .starts_with("m1 M100 K10 T100 t100000 R2"));
    }

    #[test]
    fn mpibench_options_mix_in() {
        let a = parse(&v("-n 4 m2 --json out.json M8 K2 --check -q")).unwrap();
        assert_eq!(a.launch.np, Some(4));
        assert_eq!(
            a.out.json.as_deref(),
            Some(std::path::Path::new("out.json"))
        );
        assert!(a.check && a.quiet);
        assert_eq!(a.sweep.sizes.as_deref(), Some("8,16,32"));
        // A value that looks like a parameter stays the option's value.
        let a = parse(&v("--json o.json m1 M1")).unwrap();
        assert_eq!(a.out.json.as_deref(), Some(std::path::Path::new("o.json")));
        assert_eq!(a.out.output, None);
    }

    #[test]
    fn errors_name_the_parameters_as_typed() {
        let a = parse(&v("-n 2 m1 M10 T99999999999999")).unwrap();
        let e = crate::plan::Plan::build(&a, vec![], 2, 2)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("T99999999999999: "), "{e}");
        assert!(e.contains("memory limit") && !e.contains("--iter"), "{e}");
        let a = parse(&v("t99999999999999 --mem 1")).unwrap();
        let e = crate::plan::Plan::build(&a, vec![], 2, 2)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("t99999999999999: "), "{e}");
        assert!(e.contains("at most 8388608 repetitions"), "{e}");
    }

    #[test]
    fn bad_parameters_are_one_line_errors() {
        for (args, want) in [
            ("m10 M5", "must not be smaller"),
            ("K1", "at least 2"),
            ("x5", "unknown MPITEST parameter"),
            ("m", "needs a value"),
            ("mabc", "positive integer"),
            ("T0", "positive integer"),
            ("--nosuch", "unexpected argument"),
        ] {
            let e = parse(&v(args)).unwrap_err();
            assert!(e.contains(want), "{args}: {e}");
            assert!(!e.contains('\n'), "{args}: {e}");
        }
    }
}
