//! `history check`: every series judged on its own (the runs of one case on
//! one machine; contexts that differ are never mixed), its steps found and
//! weighed against its own noise (`changepoint`). A case with too few
//! comparable runs is said and not judged (conbench's rule); one whose noise
//! is too wide is listed apart as unstable. One line per regression and
//! improvement; the ending (exit code, stderr line, JSON status) is one
//! [`Outcome`].

use std::fmt::Write;

use serde::Serialize;

use super::changepoint::{fit, Fit, Obs, Rules};
use super::series::{changes, Series};
use super::store::Case;
use crate::outcome::Outcome;
use crate::report::view::num;

/// A step beyond the noise.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    /// "regression" (slower) or "improvement".
    pub kind: &'static str,
    #[serde(flatten)]
    pub case: Case,
    pub machine: String,
    /// The first run at the new level, and when it started.
    pub run: i64,
    pub started: String,
    pub before_us: f64,
    pub before_ci95_us: [f64; 2],
    pub after_us: f64,
    pub after_ci95_us: [f64; 2],
    /// (after / before − 1) · 100.
    pub step_pct: f64,
    /// The step in standard errors.
    pub z: f64,
    pub runs_before: usize,
    pub runs_after: usize,
    /// What differs between the run before the step and the run at it.
    pub changed: Vec<String>,
}

/// A case too noisy to judge small steps in.
#[derive(Debug, Clone, Serialize)]
pub struct Unstable {
    #[serde(flatten)]
    pub case: Case,
    pub machine: String,
    pub runs: usize,
    pub noise_pct: f64,
}

/// A case with too few comparable runs.
#[derive(Debug, Clone, Serialize)]
pub struct TooFew {
    #[serde(flatten)]
    pub case: Case,
    pub machine: String,
    pub runs: usize,
}

/// What `history check` found.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// "ok", "regression" or "nothing_judged" (the outcome's).
    pub status: String,
    pub exit_code: i32,
    /// The one stderr line (without "error: "); empty when ok.
    pub message: String,
    pub min_step_pct: f64,
    pub max_noise_pct: f64,
    pub min_runs: usize,
    pub z: f64,
    pub cases: usize,
    pub judged: usize,
    pub machines: usize,
    pub changes: Vec<Change>,
    pub unstable: Vec<Unstable>,
    pub too_few_runs: Vec<TooFew>,
    #[serde(skip)]
    pub outcome: Outcome,
}

/// The fit of one series' usable runs, or None when they are too few.
pub fn fit_series(s: &Series, rules: &Rules, min_runs: usize) -> Option<Fit> {
    let used = s.used();
    if used.len() < min_runs {
        return None;
    }
    let obs: Vec<Obs> = used
        .iter()
        .map(|e| Obs {
            value: e.value_us.unwrap_or(f64::NAN),
            ci: e.ci_us,
        })
        .collect();
    Some(fit(&obs, rules))
}

fn change_of(s: &Series, f: &Fit, k: usize) -> Change {
    let used = s.used();
    let st = f.steps[k];
    let (run, prev) = (used[st.at].run, used[st.at - 1].run);
    let (b, a) = (st.before.ci(), st.after.ci());
    Change {
        kind: if st.ratio > 1.0 {
            "regression"
        } else {
            "improvement"
        },
        case: s.case.clone(),
        machine: s.machine.clone(),
        run: run.id,
        started: run.started.clone(),
        before_us: st.before.value(),
        before_ci95_us: [b.0, b.1],
        after_us: st.after.value(),
        after_ci95_us: [a.0, a.1],
        step_pct: (st.ratio - 1.0) * 100.0,
        z: st.z,
        runs_before: used[st.before.start..st.before.end].len(),
        runs_after: used[st.after.start..st.after.end].len(),
        changed: changes(prev, run),
    }
}

/// Judges every series.
pub fn check(series: &[Series], rules: &Rules, min_runs: usize) -> Check {
    let mut c = Check {
        status: String::new(),
        exit_code: 0,
        message: String::new(),
        min_step_pct: rules.min_step * 100.0,
        max_noise_pct: rules.max_noise * 100.0,
        min_runs,
        z: rules.z,
        cases: series.len(),
        judged: 0,
        machines: {
            let mut m: Vec<&str> = series.iter().map(|s| s.machine.as_str()).collect();
            m.sort();
            m.dedup();
            m.len()
        },
        changes: Vec::new(),
        unstable: Vec::new(),
        too_few_runs: Vec::new(),
        outcome: Outcome::Ok,
    };
    for s in series {
        let Some(f) = fit_series(s, rules, min_runs) else {
            c.too_few_runs.push(TooFew {
                case: s.case.clone(),
                machine: s.machine.clone(),
                runs: s.used().len(),
            });
            continue;
        };
        c.judged += 1;
        if f.unstable {
            c.unstable.push(Unstable {
                case: s.case.clone(),
                machine: s.machine.clone(),
                runs: s.used().len(),
                noise_pct: f.noise * 100.0,
            });
        }
        for k in 0..f.steps.len() {
            c.changes.push(change_of(s, &f, k));
        }
    }
    decide(&mut c);
    c
}

/// The outcome: a regression (exit 8), nothing judged (exit 7), or ok.
fn decide(c: &mut Check) {
    let regressions: Vec<&Change> = c
        .changes
        .iter()
        .filter(|x| x.kind == "regression")
        .collect();
    let (outcome, message) = if let Some(first) = regressions.first() {
        (
            Outcome::Regression,
            format!(
                "{} regression{} (first: {} at run {}, {:+.1}%)",
                regressions.len(),
                if regressions.len() == 1 { "" } else { "s" },
                first.case.label(),
                first.run,
                first.step_pct
            ),
        )
    } else if c.judged == 0 {
        let most = c.too_few_runs.iter().map(|t| t.runs).max().unwrap_or(0);
        (
            Outcome::NothingJudged,
            if c.cases == 0 {
                "the history has no case to judge".to_string()
            } else {
                format!(
                    "no case has {} comparable runs (same machine, finished; of {} case{}, the most runs: {most}); add runs or lower --min-runs",
                    c.min_runs,
                    c.cases,
                    if c.cases == 1 { "" } else { "s" }
                )
            },
        )
    } else {
        (Outcome::Ok, String::new())
    };
    c.outcome = outcome;
    c.exit_code = outcome.exit_code();
    c.status = outcome.status().unwrap_or("ok").to_string();
    c.message = message;
}

fn machine_note(c: &Check, machine: &str) -> String {
    if c.machines > 1 {
        format!(" on {machine}")
    } else {
        String::new()
    }
}

fn ci(v: [f64; 2]) -> String {
    format!("[{}, {}]", num(v[0]), num(v[1]))
}

/// One line of a change.
pub fn change_line(c: &Check, x: &Change) -> String {
    let at = if x.changed.is_empty() {
        format!("run {}", x.run)
    } else {
        format!("run {} ({})", x.run, x.changed.join(", "))
    };
    format!(
        "{:<12} {}{}: at {at}: {} us {} -> {} us {}, {:+.1}% ({:.1} standard errors; {} runs before, {} after)",
        x.kind,
        x.case.label(),
        machine_note(c, &x.machine),
        num(x.before_us),
        ci(x.before_ci95_us),
        num(x.after_us),
        ci(x.after_ci95_us),
        x.step_pct,
        x.z,
        x.runs_before,
        x.runs_after
    )
}

/// The text of a check: a head line, then a line per change, unstable case
/// and case with too few runs.
pub fn text(c: &Check) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "history check: {} case{} on {} machine{}, {} judged; a step counts at {}% or more and {} standard errors, a case is unstable above {}% run-to-run noise",
        c.cases,
        if c.cases == 1 { "" } else { "s" },
        c.machines,
        if c.machines == 1 { "" } else { "s" },
        c.judged,
        c.min_step_pct,
        c.z,
        c.max_noise_pct
    );
    for x in &c.changes {
        let _ = writeln!(s, "{}", change_line(c, x));
    }
    for u in &c.unstable {
        let _ = writeln!(
            s,
            "{:<12} {}{}: run-to-run noise ±{:.1}% over {} runs (above --max-noise {}%): only steps beyond {} times it count",
            "unstable",
            u.case.label(),
            machine_note(c, &u.machine),
            u.noise_pct,
            u.runs,
            c.max_noise_pct,
            super::changepoint::UNSTABLE_MARGIN
        );
    }
    for t in &c.too_few_runs {
        let _ = writeln!(
            s,
            "{:<12} {}{}: {} comparable run{} (--min-runs {}): not judged",
            "too few runs",
            t.case.label(),
            machine_note(c, &t.machine),
            t.runs,
            if t.runs == 1 { "" } else { "s" },
            c.min_runs
        );
    }
    if c.changes.is_empty() && c.judged > 0 {
        let _ = writeln!(
            s,
            "no step beyond the noise in {} judged case{}",
            c.judged,
            if c.judged == 1 { "" } else { "s" }
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::series::series;
    use crate::history::store::{case_of, Point, RunRecord};
    use crate::results::Context;

    /// Ten runs on one machine: a 2x step at run 6 where OMPI_MCA_btl is
    /// set, and a case with three runs only.
    fn history() -> (Vec<RunRecord>, Vec<Point>) {
        let noise = [1.0, 1.01, 0.99, 1.005, 0.995, 1.0, 1.01, 0.99, 1.005, 0.995];
        let mut runs = Vec::new();
        let mut points = Vec::new();
        for (i, n) in noise.iter().enumerate() {
            let id = i as i64 + 1;
            let mut cx = Context::default();
            if id >= 6 {
                cx.mpi_env.insert("OMPI_MCA_btl".into(), "self,tcp".into());
            }
            runs.push(RunRecord {
                id,
                started: format!("2026-03-{id:02}T00:00:00Z"),
                status: "ok".into(),
                complete: true,
                usable: true,
                machine: "1 host: Test CPU, 2 CPUs, 1 NUMA node".into(),
                library: "Open MPI v4.1.4".into(),
                world_size: 2,
                hosts: 1,
                source: "run".into(),
                rows: 2,
                context: Some(cx),
            });
            let v = if id >= 6 { 2.0 * n } else { *n };
            let case = |b: i64| {
                case_of(
                    "imb".into(),
                    "PingPong".into(),
                    2,
                    "primary".into(),
                    b,
                    "{}",
                    "per-call".into(),
                )
            };
            points.push(Point {
                run: id,
                case: case(8),
                statistic: "median".into(),
                value_us: Some(v),
                ci_us: Some((v * 0.99, v * 1.01)),
            });
            if id <= 3 {
                points.push(Point {
                    run: id,
                    case: case(1024),
                    statistic: "median".into(),
                    value_us: Some(3.0),
                    ci_us: None,
                });
            }
        }
        (runs, points)
    }

    #[test]
    fn a_check_says_a_line_per_change_and_case_apart() {
        let (runs, points) = history();
        let all = series(&runs, points, &[]).unwrap();
        let c = check(&all, &Rules::default(), 4);
        assert_eq!(c.outcome, Outcome::Regression);
        assert_eq!((c.exit_code, c.status.as_str()), (8, "regression"));
        assert_eq!(c.changes.len(), 1);
        assert_eq!(c.changes[0].run, 6);
        assert_eq!(c.changes[0].changed, ["OMPI_MCA_btl=self,tcp set"]);
        assert_eq!(c.too_few_runs.len(), 1);
        insta::assert_snapshot!(text(&c));
        let shown = crate::history::show::show(&all);
        insta::assert_snapshot!("show", crate::history::show::show_text(&shown));
    }

    #[test]
    fn too_few_runs_judge_nothing() {
        let (runs, points) = history();
        let all = series(
            &runs[..3],
            points.into_iter().filter(|p| p.run <= 3).collect(),
            &[],
        )
        .unwrap();
        let c = check(&all, &Rules::default(), 4);
        assert_eq!(c.outcome, Outcome::NothingJudged);
        assert_eq!(c.exit_code, 7);
        assert!(
            c.message.starts_with("no case has 4 comparable runs"),
            "{}",
            c.message
        );
        assert!(c.changes.is_empty());
    }
}
