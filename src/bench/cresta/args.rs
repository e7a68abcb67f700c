//! CRESTA's options of `mpibench run` as plan axes (the suite-argument
//! layer: the benchmarks import nothing of the command line).

use super::{
    sweep, Delayed, CALC_RANGE, DELAYED_AXIS, DELAY_RANGE, MAX_US, SCENARIO, T_CALC, T_DELAY,
};
use crate::cli::RunArgs;
use crate::contract::axis::Axes;

/// The heading of the suite's options in `mpibench run -h`.
pub const HEADING: &str = "CRESTA (--suite cresta)";

/// Whether any CRESTA option is on the command line.
fn any_option(a: &RunArgs) -> Option<&'static str> {
    [
        (a.imbalance.scenarios.is_some(), "--scenarios"),
        (a.imbalance.delay_min.is_some(), "--delay-min"),
        (a.imbalance.delay_max.is_some(), "--delay-max"),
        (a.imbalance.calc_min.is_some(), "--calc-min"),
        (a.imbalance.calc_max.is_some(), "--calc-max"),
        (a.imbalance.delayed.is_some(), "--delayed"),
    ]
    .into_iter()
    .find(|(set, _)| *set)
    .map(|(_, name)| name)
}

fn range(
    min: Option<f64>,
    max: Option<f64>,
    (dmin, dmax): (f64, f64),
    what: &str,
) -> Result<Vec<f64>, String> {
    let (lo, hi) = match (min, max) {
        (None, None) => (dmin, dmax),
        (Some(a), None) => (a, a.max(dmax)),
        (None, Some(b)) => (dmin.min(b), b),
        (Some(a), Some(b)) => (a, b),
    };
    for (flag, v) in [("min", lo), ("max", hi)] {
        if !v.is_finite() || v < 0.0 {
            return Err(format!(
                "--{what}-{flag} must not be negative: a number of microseconds, not {v}"
            ));
        }
        if v > MAX_US {
            return Err(format!(
                "--{what}-{flag} {v} is beyond {MAX_US} microseconds (10 s)"
            ));
        }
    }
    if lo > hi {
        return Err(format!(
            "--{what}-min ({lo}) is larger than --{what}-max ({hi})"
        ));
    }
    Ok(sweep(lo, hi))
}

/// The plan's CRESTA axes from the command line, validated for a world of
/// `world` ranks; empty for other suites (where the options are refused).
pub fn axes(a: &RunArgs, involved: bool, world: usize, _mem: u64) -> Result<Axes, String> {
    if !involved {
        return match any_option(a) {
            Some(flag) => Err(format!(
                "{flag} applies to the CRESTA scenarios: use it with --suite cresta"
            )),
            None => Ok(Axes::new()),
        };
    }
    let mut scen: Vec<f64> = match &a.imbalance.scenarios {
        None => vec![1.0, 2.0, 3.0],
        Some(list) => list
            .split(',')
            .map(|t| match t.trim() {
                "1" => Ok(1.0),
                "2" => Ok(2.0),
                "3" => Ok(3.0),
                other => Err(format!(
                    "unknown scenario '{other}' in --scenarios (1, 2 or 3, e.g. 1,3)"
                )),
            })
            .collect::<Result<_, _>>()?,
    };
    // Scenario 1 is the reference of T − t_delay and of the overlap.
    scen.push(1.0);
    scen.sort_by(f64::total_cmp);
    scen.dedup();
    // --delayed (a rank, from 0) takes precedence over the front end's
    // delay_P (the seed's participant number, from 1).
    let delayed = match (&a.imbalance.delayed, &a.front.delay_p) {
        (Some(s), _) => Delayed::parse(s)?,
        (None, Some(d)) => Delayed::from_seed(d, world)?,
        (None, None) => Delayed::First,
    };
    if let Delayed::Rank(r) = delayed {
        if r >= world {
            return Err(format!(
                "the delayed participant --delayed {r} is outside 0..{}: this run has {world} ranks (--delayed counts ranks from 0)",
                world - 1
            ));
        }
    }
    let mut axes = Axes::new();
    axes.insert(SCENARIO.into(), scen);
    axes.insert(
        T_DELAY.into(),
        range(
            a.imbalance.delay_min,
            a.imbalance.delay_max,
            DELAY_RANGE,
            "delay",
        )?,
    );
    axes.insert(
        T_CALC.into(),
        range(
            a.imbalance.calc_min,
            a.imbalance.calc_max,
            CALC_RANGE,
            "calc",
        )?,
    );
    axes.insert(DELAYED_AXIS.into(), vec![delayed.code()]);
    Ok(axes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_options_are_one_line_errors() {
        let with = |f: fn(&mut RunArgs)| {
            let mut a = RunArgs::default();
            f(&mut a);
            axes(&a, true, 4, 0).unwrap_err()
        };
        assert!(with(|a| a.imbalance.delay_min = Some(-5.0)).contains("must not be negative"));
        assert!(with(|a| a.imbalance.calc_max = Some(-1.0)).contains("must not be negative"));
        assert!(with(|a| {
            a.imbalance.delay_min = Some(64.0);
            a.imbalance.delay_max = Some(8.0)
        })
        .contains("larger than"));
        assert!(with(|a| a.imbalance.delayed = Some("4".into())).contains("outside 0..3"));
        assert!(with(|a| a.imbalance.delayed = Some("-1".into())).contains("first, last or a rank"));
        assert!(with(|a| a.imbalance.scenarios = Some("1,4".into())).contains("unknown scenario"));
        assert!(with(|a| a.imbalance.delay_max = Some(1e9)).contains("beyond"));
        // CRESTA options with another suite.
        let a = RunArgs {
            imbalance: crate::cli::Imbalance {
                calc_min: Some(1.0),
                ..Default::default()
            },
            ..RunArgs::default()
        };
        assert!(axes(&a, false, 4, 0).unwrap_err().contains("--calc-min"));
        assert!(axes(&RunArgs::default(), false, 4, 0).unwrap().is_empty());
    }
}
