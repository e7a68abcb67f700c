//! The CRESTA suite's command line (D4.5.2 §5), verbatim:
//!
//! ```text
//! mpiexec -n P_max mpibench cresta COLL P_min nreps m_min m_max delay delay_P > out.log
//! ```
//!
//! COLL: barrier, broadcast, gather, allGather, allReduce (case-insensitive;
//! `i` in front for the non-blocking form), or any collective of the suite;
//! P_min: fewest participants (then 2·P_min, ... up to P_max, the world);
//! nreps: repetitions; m_min, m_max: message sizes in bytes, swept in
//! powers of two; delay: t_delay of scenario 2 in µs (also t_calc of
//! scenario 3); delay_P: the delayed participant D, numbered from 1 as the
//! seed does (§4.2: D = 1 the first, D = P the last; so delay_P = P_max
//! delays the last participant of every P), or first / last. mpibench
//! options (`--delay-max`, `--calc-min`, `--delayed`, `--json`, `--plot`,
//! `--check`, `-n`, ...) may be mixed in and take precedence.

use crate::cli::RunArgs;
use crate::contract::axis::powers_of_two;
use crate::units::parse_size;

pub const HELP: &str = "CRESTA parameters, in this order (D4.5.2 section 5):
  COLL     barrier, broadcast, gather, allGather, allReduce (case-insensitive), i in front for the
           non-blocking form (ibroadcast, iallReduce, ...), or reduce, alltoall, scatter, reduce_scatter_block
  P_min    fewest participants; the sweep is P_min, 2*P_min, ... and P_max (the processes of the run)
  nreps    repetitions of each scenario
  m_min    smallest message size in bytes (m sweeps powers of two: m_min, 2*m_min, ...)
  m_max    largest message size in bytes
  delay    t_delay of scenario 2 in microseconds; scenario 3 uses it as t_calc
  delay_P  the delayed participant D of scenario 2, numbered from 1 as the seed does: 1 is the first,
           P_max the last participant (of every P of the sweep), k in between is rank k-1;
           0 is the first too (rank 0); or first or last
mpibench options may be mixed in: --delay-min/--delay-max and --calc-min/--calc-max (sweep t_delay and
t_calc in powers of two), --scenarios, --plot FILE.svg, --json FILE, --csv FILE, --check, --stats, -n N, -q.
Example: mpiexec -n 8 mpibench cresta broadcast 2 100 512 512 100 1 > out.log";

/// The seven positional parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    pub coll: &'static str,
    pub p_min: usize,
    pub nreps: usize,
    pub m_min: usize,
    pub m_max: usize,
    pub delay: f64,
    pub delay_p: String,
}

fn positive(name: &str, v: &str) -> Result<usize, String> {
    v.parse::<usize>()
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("{name} must be a positive integer, not '{v}'"))
}

impl Params {
    pub fn parse(own: &[String]) -> Result<Params, String> {
        const NAMES: [&str; 7] = [
            "COLL", "P_min", "nreps", "m_min", "m_max", "delay", "delay_P",
        ];
        if own.len() != NAMES.len() {
            let missing = NAMES
                .get(own.len())
                .map_or(String::new(), |n| format!(" ({n} is missing)"));
            return Err(format!(
                "cresta takes 7 parameters, COLL P_min nreps m_min m_max delay delay_P, not {}{missing}; see mpibench cresta --help",
                own.len()
            ));
        }
        let coll = super::resolve(&own[0])?;
        let size = |name: &str, v: &str| {
            parse_size(v)
                .map_err(|_| format!("{name} must be a size in bytes (e.g. 512, 4K), not '{v}'"))
        };
        let (m_min, m_max) = (size("m_min", &own[3])?, size("m_max", &own[4])?);
        if m_min > m_max {
            return Err(format!("m_min ({m_min}) is larger than m_max ({m_max})"));
        }
        let delay = own[5]
            .parse::<f64>()
            .ok()
            .filter(|d| d.is_finite())
            .ok_or_else(|| format!("delay must be a number of microseconds, not '{}'", own[5]))?;
        if delay < 0.0 {
            return Err(format!(
                "delay must not be negative, not {delay} microseconds"
            ));
        }
        // Its upper end, P_max, is the world: checked with the plan.
        super::Delayed::from_seed(&own[6], usize::MAX)?;
        Ok(Params {
            coll,
            p_min: positive("P_min", &own[1])?,
            nreps: positive("nreps", &own[2])?,
            m_min,
            m_max,
            delay,
            delay_p: own[6].clone(),
        })
    }

    /// The message sizes: m_min, 2·m_min, ... ≤ m_max (0 gives 0, 1, 2, 4, ...).
    pub fn sizes(&self) -> Vec<u64> {
        powers_of_two(self.m_min as u64, self.m_max as u64)
    }
}

/// The run that CRESTA's command line asks for.
pub fn parse(params: &[String]) -> Result<RunArgs, String> {
    let (own, opts) = crate::frontend::split_options(params);
    let p = Params::parse(&own)?;
    let mut args = crate::frontend::parse_options(&opts)?;
    args.suite = Some(super::SUITE.to_string());
    args.benchmarks = vec![p.coll.to_string()];
    args.sweep.npmin = Some(p.p_min);
    args.reps.iter = Some(p.nreps);
    let sizes: Vec<String> = p.sizes().iter().map(u64::to_string).collect();
    args.sweep.sizes = Some(sizes.join(","));
    let (delay_min_given, delay_max_given) = (
        args.imbalance.delay_min.is_some(),
        args.imbalance.delay_max.is_some(),
    );
    let (calc_min_given, calc_max_given) = (
        args.imbalance.calc_min.is_some(),
        args.imbalance.calc_max.is_some(),
    );
    args.imbalance.delay_min = args.imbalance.delay_min.or(Some(p.delay));
    args.imbalance.delay_max = args
        .imbalance
        .delay_max
        .or(Some(p.delay.max(args.imbalance.delay_min.unwrap_or(0.0))));
    args.imbalance.calc_min = args.imbalance.calc_min.or(Some(p.delay));
    args.imbalance.calc_max = args
        .imbalance
        .calc_max
        .or(Some(p.delay.max(args.imbalance.calc_min.unwrap_or(0.0))));
    args.front.delay_p = Some(p.delay_p.clone());
    // Errors name the positional parameters (P_min 8, not --npmin 8); the
    // delay's options only where the delay stands for them.
    crate::frontend::spelled(&mut args, "--npmin", "P_min");
    crate::frontend::spelled(&mut args, "--iter", "nreps");
    for (flag, given) in [
        ("--delay-min", delay_min_given),
        ("--delay-max", delay_max_given),
        ("--calc-min", calc_min_given),
        ("--calc-max", calc_max_given),
    ] {
        if !given {
            crate::frontend::spelled(&mut args, flag, "delay");
        }
    }
    args.front.frontend = Some(own.join(" "));
    Ok(args)
}

/// This front end for `mpibench cresta`.
pub const FRONTEND: crate::frontend::FrontEnd = crate::frontend::FrontEnd {
    subcommand: "cresta",
    listed: Some(&crate::frontend::Listed {
        about: "CRESTA's command line: mpibench cresta COLL P_min nreps m_min m_max delay delay_P",
        order: 13,
        value_name: "PARAM",
        arg_help:
            "The seed's seven parameters and mpibench options (-n, --json, --check, --plot, ...)",
        after_help: HELP,
    }),
    usage: "mpibench cresta COLL P_min nreps m_min m_max delay delay_P [OPTIONS]",
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
    fn the_seed_command_parses_verbatim() {
        let a = parse(&v("broadcast 2 100 512 4096 100 1")).unwrap();
        assert_eq!(a.benchmarks, vec!["Bcast"]);
        assert_eq!(a.suite.as_deref(), Some("cresta"));
        assert_eq!(a.sweep.npmin, Some(2));
        assert_eq!(a.reps.iter, Some(100));
        assert_eq!(a.sweep.sizes.as_deref(), Some("512,1024,2048,4096"));
        assert_eq!(
            (a.imbalance.delay_min, a.imbalance.delay_max),
            (Some(100.0), Some(100.0))
        );
        assert_eq!(
            (a.imbalance.calc_min, a.imbalance.calc_max),
            (Some(100.0), Some(100.0))
        );
        // delay_P stays the seed's number; --delayed is a rank.
        assert_eq!(a.front.delay_p.as_deref(), Some("1"));
        assert_eq!(a.imbalance.delayed, None);
        assert_eq!(
            a.front.frontend.as_deref(),
            Some("broadcast 2 100 512 4096 100 1")
        );
        let a = parse(&v("iallReduce 1 10 0 4 0 last")).unwrap();
        assert_eq!(a.benchmarks, vec!["Iallreduce"]);
        assert_eq!(a.sweep.sizes.as_deref(), Some("0,1,2,4"));
        assert_eq!(a.front.delay_p.as_deref(), Some("last"));
    }

    #[test]
    fn options_mix_in_and_take_precedence() {
        let a = parse(&v(
            "-n 4 allGather 2 --json o.json 50 8 8 100 1 --delay-min 10 --delay-max 1000 --calc-max 400 --plot f.svg",
        ))
        .unwrap();
        assert_eq!(a.launch.np, Some(4));
        assert_eq!(
            (a.imbalance.delay_min, a.imbalance.delay_max),
            (Some(10.0), Some(1000.0))
        );
        assert_eq!(
            (a.imbalance.calc_min, a.imbalance.calc_max),
            (Some(100.0), Some(400.0))
        );
        assert_eq!(
            a.figures.plot.as_deref(),
            Some(std::path::Path::new("f.svg"))
        );
        assert_eq!(a.out.json.as_deref(), Some(std::path::Path::new("o.json")));
    }

    #[test]
    fn plan_errors_name_the_positional_parameters() {
        let plan = |s: &str| {
            crate::plan::Plan::build(&parse(&v(s)).unwrap(), vec![], 2, 2)
                .unwrap_err()
                .to_string()
        };
        let e = plan("broadcast 8 10 8 8 1 1");
        assert!(
            e.starts_with("P_min 8 is larger than the 2 processes"),
            "{e}"
        );
        let e = plan("broadcast 1 10 8 8 20000000 1");
        assert!(e.starts_with("delay 20000000 is beyond"), "{e}");
        // An option the user typed keeps its name.
        let e = plan("broadcast 1 10 8 8 1 1 --delay-min 20000000");
        assert!(e.starts_with("--delay-min 20000000 is beyond"), "{e}");
    }

    #[test]
    fn bad_parameters_are_one_line_errors() {
        for (args, want) in [
            (
                "broadcast 2 100 4096 512 100 1",
                "m_min (4096) is larger than m_max (512)",
            ),
            ("broadcast 2 100 8 8 -5 1", "delay must not be negative"),
            ("broadcast 2 100 8 8 abc 1", "delay must be a number"),
            (
                "broadcast 0 100 8 8 5 1",
                "P_min must be a positive integer",
            ),
            ("broadcast 2 0 8 8 5 1", "nreps must be a positive integer"),
            ("broadcast 2 100 8 8 5 -1", "delay_P"),
            ("broadcast 2 100 8 x 5 1", "m_max must be a size"),
            ("braodcast 2 100 8 8 5 1", "did you mean broadcast?"),
            ("broadcast 2 100 8", "m_max is missing"),
            ("broadcast 2 100 8 8 5 1 7", "not 8"),
            ("broadcast 2 100 8 8 5 1 --nosuch", "unexpected argument"),
        ] {
            let e = parse(&v(args)).unwrap_err();
            assert!(e.contains(want), "{args}: {e}");
            assert!(!e.contains('\n'), "{args}: {e}");
        }
    }
}
