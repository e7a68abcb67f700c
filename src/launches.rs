//! `--launches N`: the self-launching parent runs the whole list of
//! benchmarks in N separate launches (mpiexec or srun calls; with several
//! benchmarks, launch k runs them all, so they alternate across launches),
//! then combines them (`engine::launches`) and writes the run's outputs
//! once: tables, JSON (every launch's results under `launches`), CSV,
//! report and plots.
//!
//! Each launch's rank 0 writes its JSON and tables to private files named
//! by [`ENV`] (in a directory beside the run, removed at the end), and
//! nothing to stdout. A launch that fails ends the run: the launch's own
//! line (said by it or the supervisor) is the one line, its exit code the
//! run's, and the outputs hold the launches so far, marked as it ended.

use std::path::PathBuf;

use anyhow::{Context, Result};

use crate::cli::RunArgs;
use crate::files;
use crate::launch::{self, Relaunch};
use crate::outcome::{Outcome, EXIT_OK};
use crate::output::{self, Format};
use crate::plan::Plan;
use crate::report::table::SectionCx;
use crate::results::{Launch, Report};

/// Where one launch's rank 0 writes its results: PREFIX.json and PREFIX.txt.
pub const ENV: &str = "MPIBENCH_LAUNCH_OUT";

/// Test hook (tests/launches.rs): launch K of the run fails (its rank 1
/// panics as `MPIBENCH_TEST_PANIC_RANK` makes it).
const TEST_FAIL: &str = "MPIBENCH_TEST_FAIL_LAUNCH";

/// On the ranks of one launch (`--launches N` > 1 under a launcher): the
/// run's outputs replaced by the launch's private files. False when no
/// self-launching parent asked for them: a launcher of the user's started
/// the ranks, and they cannot relaunch.
pub fn redirect(args: &mut RunArgs) -> bool {
    let Some(prefix) = std::env::var_os(ENV).filter(|_| crate::link::self_launched()) else {
        return false;
    };
    let prefix = PathBuf::from(prefix);
    args.out.json = Some(prefix.with_extension("json"));
    args.out.output = Some(prefix.with_extension("txt"));
    args.out.csv = None;
    args.raw = None;
    args.out.report = None;
    // The parent keeps the combined run.
    args.out.history = None;
    args.figures.plot = None;
    args.figures.plots = None;
    args.reps.launches = None;
    true
}

/// What `--launches N` cannot go with, as a usage line (before anything starts).
pub fn refuse(args: &RunArgs) -> Option<String> {
    let n = args.reps.launches?;
    if n < 2 {
        return None;
    }
    if args.raw.is_some() {
        return Some(format!(
            "--launches {n} cannot write --raw: the samples stay with each launch (run one launch with --raw)"
        ));
    }
    if args.reps.repeats.is_some_and(|r| r > 1) {
        return Some(format!(
            "--launches {n} and --repeats are two ways of repeating a run: choose one"
        ));
    }
    None
}

/// The private directory of the launches' files: beside the run (a shared
/// file system reaches rank 0 on another node), else in the temporary
/// directory.
fn private_dir() -> Result<PathBuf> {
    let name = format!(".mpibench-launches.{}", std::process::id());
    let here = PathBuf::from(&name);
    if std::fs::create_dir(&here).is_ok() {
        return Ok(std::fs::canonicalize(&here).unwrap_or(here));
    }
    let tmp = std::env::temp_dir().join(name);
    std::fs::create_dir(&tmp).with_context(|| {
        format!(
            "cannot create a directory for the launches ('{}')",
            tmp.display()
        )
    })?;
    Ok(tmp)
}

/// How a launch that wrote no final status ended, from its exit code.
fn outcome_of(code: i32) -> Outcome {
    match code {
        1 => Outcome::ValidationErrors,
        4 => Outcome::LauncherFailed,
        5 => Outcome::MpiStartFailed,
        6 => Outcome::Outliers,
        c if c > 128 => Outcome::Interrupted { signal: c - 128 },
        _ => Outcome::Error,
    }
}

/// The parent of `--launches N`: runs the launches, combines and writes
/// the outputs; mpibench's exit code.
pub fn parent(args: &RunArgs, r: &Relaunch) -> Result<i32> {
    let n = args.reps.launches.unwrap_or(1);
    let dir = match private_dir() {
        Ok(d) => d,
        Err(e) => return Ok(Outcome::WriteFailed.say(&format!("{e:#}"))),
    };
    let mut done: Vec<Report> = Vec::new();
    let mut code = EXIT_OK;
    // The failed launch's own final status, when it wrote one.
    let mut said: Option<String> = None;
    for k in 1..=n {
        if !args.quiet {
            eprintln!("mpibench: launch {k} of {n}");
        }
        let prefix = dir.join(format!("launch-{k}"));
        let json = prefix.with_extension("json");
        let mut env = vec![(ENV, prefix.to_string_lossy().into_owned())];
        if std::env::var(TEST_FAIL).is_ok_and(|v| v == k.to_string()) {
            env.push(("MPIBENCH_TEST_PANIC_RANK", "1".into()));
        }
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        code = launch::relaunch_with(r, &env)?;
        let loaded = crate::report::view::load(&json).ok();
        if code != EXIT_OK {
            said = loaded
                .as_ref()
                .and_then(|l| l.status.clone())
                .filter(|s| s != "running");
        }
        done.extend(loaded);
        if code != EXIT_OK {
            break;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    let Some(mut report) = combine(done) else {
        return Ok(code);
    };
    if code != EXIT_OK {
        // The failed launch's own ending (the last in the report), else
        // what its exit code says.
        if said.is_none() {
            outcome_of(code).stamp(&mut report);
        }
        report.complete = false;
        // A stdout closed from the start ended the launch, which said so:
        // its one line is not said twice.
        if let Err(e) = write_outputs(args, &report) {
            if !files::stdout_closed_at_start() {
                eprintln!("error: {e:#}");
            }
        }
        return Ok(code);
    }
    let (ending, line) = ending_of(&report, args.fail_on_outlier);
    ending.stamp(&mut report);
    if let Err(e) = write_outputs(args, &report) {
        // Best effort: the output that failed will likely fail again.
        let _ = output::interrupt(Outcome::WriteFailed);
        return Ok(Outcome::WriteFailed.say(&format!("{e:#}")));
    }
    Ok(ending.say(&line))
}

/// The launches' reports as one: the first launch's header (command,
/// settings, hosts), the combined results, every launch's results under
/// `launches`, and the last launch's status. None without a launch.
pub fn combine(done: Vec<Report>) -> Option<Report> {
    let first = done.first()?.clone();
    let results: Vec<&[crate::results::BenchResult]> =
        done.iter().map(|r| r.results.as_slice()).collect();
    let mut combined = crate::engine::launches::combine(&results);
    // What a benchmark judges again over the launches (the guidelines'
    // verdicts from the launch medians).
    for r in &mut combined {
        if let Some(b) = crate::plugin::lookup::bench_of(&r.suite, &r.benchmark) {
            b.derive_combined(r);
        }
    }
    let last = done.last()?;
    Some(Report {
        results: combined,
        complete: done.iter().all(|r| r.complete),
        status: last.status.clone(),
        reason: last.reason.clone(),
        signal: last.signal.clone(),
        interrupted_by: last.interrupted_by.clone(),
        launches: done
            .iter()
            .enumerate()
            .map(|(i, r)| Launch {
                launch: i + 1,
                started: r.started.clone(),
                status: r.status.clone(),
                results: r.results.clone(),
            })
            .collect(),
        ..first
    })
}

/// The plan the tables are formatted with (the launches built the same).
fn plan_of(args: &RunArgs, report: &Report) -> Option<Plan> {
    let per_node = report.ranks_per_host.iter().copied().max().unwrap_or(1);
    Plan::build(args, command_line(), report.world_size, per_node.max(1)).ok()
}

/// Every output of the run from the combined report: the files, the
/// plots, then the tables (stdout or `--output`), stdout last.
fn write_outputs(args: &RunArgs, report: &Report) -> Result<()> {
    output::init(
        &[
            (args.out.json.as_deref(), Format::Json),
            (args.out.csv.as_deref(), Format::Csv),
            (args.out.report.as_deref(), Format::Html),
        ],
        crate::plugin::lookup::report_parts,
        crate::history::keeper(args.out.history.as_deref(), args.out.json.as_deref()),
    );
    let plan = plan_of(args, report);
    // The tables first, as a single run prints them while it runs: a file
    // system that refuses the files does not take them from stdout too.
    let shown = show_tables(args, report, plan.as_ref());
    let saved = save_files(args, report, plan.as_ref());
    shown.and(saved)?;
    output::finish()
}

/// The combined tables, on stdout or in `--output`, unless a results
/// file goes to stdout.
fn show_tables(args: &RunArgs, report: &Report, plan: Option<&Plan>) -> Result<()> {
    let on_stdout = |p: &Option<PathBuf>| p.as_deref().is_some_and(files::is_stdout);
    let show_table = args.out.output.is_some()
        || ![
            &args.out.json,
            &args.out.csv,
            &args.out.report,
            &args.figures.plot,
        ]
        .into_iter()
        .any(on_stdout);
    if let (true, Some(plan)) = (show_table, plan) {
        let text = tables(report, plan);
        match &args.out.output {
            Some(p) => files::write_file(p, text.as_bytes(), true)?,
            None => output::print(&text)?,
        }
    }
    Ok(())
}

/// The results files, the suite's figure and `--plots`.
fn save_files(args: &RunArgs, report: &Report, plan: Option<&Plan>) -> Result<()> {
    output::save(report)?;
    if let (Some(p), Some(plan)) = (&args.figures.plot, plan) {
        if let Some(f) = crate::plugin::lookup::suite(&plan.suite).and_then(|s| s.figure) {
            (f.write)(report, p)?;
        }
    }
    if let Some(dir) = &args.figures.plots {
        let n = crate::readers::write_plots(
            vec![("run".into(), report)],
            dir,
            false,
            crate::plugin::lookup::report_parts,
        )?;
        eprintln!(
            "mpibench: wrote {n} SVG plot{} to {}",
            if n == 1 { "" } else { "s" },
            dir.display()
        );
    }
    Ok(())
}

/// The tables of the combined results in the suite's format, each result
/// followed by its launches part.
fn tables(report: &Report, plan: &Plan) -> String {
    let cx = SectionCx {
        rank_rows: plan.rank_order.and_then(|o| o.rows()),
        world: report.world_size,
        stats: plan.stats,
        repeats: plan.repeats,
    };
    let home = format_for(plan, &plan.suite);
    let mut text = home.header(report, &plan.heading());
    let mut prev = None;
    for r in &report.results {
        let f = format_for(plan, &r.suite);
        text.push_str(&f.between(prev, r));
        text.push_str(&f.section(r, &cx));
        text.push_str(&crate::report::launches::part(r, report.launches.len()));
        prev = Some(r);
    }
    text.push_str(&home.summary(report, &cx));
    text
}

/// The command line as the plan records it: under IMB-MPI1's name (or an
/// OSU program's) the arguments are that program's, without a subcommand.
pub fn command_line() -> Vec<String> {
    // (main has checked that every argument is UTF-8.)
    let mut args = std::env::args_os().map(|a| a.to_string_lossy().into_owned());
    let argv0 = args.next().unwrap_or_default();
    let name = crate::plugin::lookup::drop_in(&argv0).map_or("mpibench", |(_, program)| program);
    std::iter::once(name.to_string()).chain(args).collect()
}

/// The table format of a suite's results (a front end may choose another:
/// mpibench imb prints IMB-MPI1 2021's).
pub fn format_for(plan: &Plan, suite: &str) -> &'static dyn crate::report::table::Format {
    crate::plugin::lookup::format(plan.table.as_deref().unwrap_or(suite))
}

/// How a complete run ends: validation errors first, else what a suite
/// says of its results (mpiGraph's outliers), else ok; with its line.
pub fn ending_of(report: &Report, fail_on_outlier: bool) -> (Outcome, String) {
    let errors: u64 = report
        .results
        .iter()
        .filter(|r| !r.aggregate)
        .flat_map(|r| &r.rows)
        .filter_map(|r| r.errors)
        .sum();
    if errors > 0 {
        return (
            Outcome::ValidationErrors,
            format!("validation found {errors} errors (see the errors column)"),
        );
    }
    crate::plugin::lookup::registry()
        .iter()
        .filter_map(|s| s.ending)
        .find_map(|hook| hook(report, fail_on_outlier))
        .unwrap_or((Outcome::Ok, String::new()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ranks_of_a_launch_write_only_its_private_files() {
        let mut args = RunArgs {
            reps: crate::cli::Counts {
                launches: Some(3),
                ..Default::default()
            },
            out: crate::cli::Outputs {
                json: Some("out.json".into()),
                csv: Some("out.csv".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        // Without a self-launching parent: refused.
        std::env::remove_var(ENV);
        assert!(!redirect(&mut args));
        assert!(refuse(&args).is_none());
        let raw = RunArgs {
            raw: Some("-".into()),
            ..args.clone()
        };
        assert!(refuse(&raw).unwrap().contains("--raw"));
        let rep = RunArgs {
            reps: crate::cli::Counts {
                repeats: Some(2),
                ..args.reps.clone()
            },
            ..args.clone()
        };
        assert!(refuse(&rep).unwrap().contains("--repeats"));
    }

    #[test]
    fn exit_codes_without_a_status_name_their_outcome() {
        assert_eq!(outcome_of(4), Outcome::LauncherFailed);
        assert_eq!(outcome_of(130), Outcome::Interrupted { signal: 2 });
        assert_eq!(outcome_of(3), Outcome::Error);
    }
}
