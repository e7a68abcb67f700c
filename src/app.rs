//! Orchestration: command line → (self-launch) → MPI → plan → engine → reports.

use std::time::SystemTime;

use anyhow::Result;
use clap::Parser;

use std::cell::RefCell;

use crate::cli::{Cli, Command, RunArgs, SyncMode};
use crate::clock::sync::{synchronize, SyncParams};
use crate::comm::{self, Comm};
use crate::engine::{self, Abort, Engine};
use crate::output::{self, Format};
use crate::plan::Plan;
use crate::report::{raw::RawSink, table};
use crate::results::{BenchResult, MpiInfo, Report, Settings, SCHEMA};
use crate::suite::Entry;
use crate::watchdog::Watchdog;
use crate::{launch, signals, suite};

pub const EXIT_OK: i32 = 0;
pub const EXIT_VALIDATION: i32 = 1;
pub const EXIT_USAGE: i32 = 2;
pub const EXIT_ABORTED: i32 = crate::watchdog::EXIT_ABORTED;

pub fn main() -> Result<i32> {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                if launch::env_rank() == 0 {
                    let _ = e.print();
                }
                return Ok(
                    if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                        EXIT_USAGE
                    } else {
                        EXIT_OK
                    },
                );
            }
            if launch::env_rank() == 0 {
                let msg = e.render().to_string();
                eprintln!(
                    "{}",
                    msg.lines().next().unwrap_or("error: invalid command line")
                );
            }
            return Ok(EXIT_USAGE);
        }
    };
    match cli.command {
        Command::List { suite } => list(suite.as_deref()),
        Command::Run(args) => run(*args),
    }
}

fn list(only: Option<&str>) -> Result<i32> {
    if let Some(s) = only {
        if suite::suite(s).is_none() {
            eprintln!("error: unknown suite '{s}'");
            return Ok(EXIT_USAGE);
        }
    }
    println!(
        "{:<16} {:<6} {:>9}  description",
        "benchmark", "suite", "min ranks"
    );
    for s in suite::SUITES
        .iter()
        .filter(|s| only.is_none_or(|o| s.name.eq_ignore_ascii_case(o)))
    {
        println!("# {}: {}", s.name, s.title);
        for b in (s.entries)() {
            let i = b.info();
            println!(
                "{:<16} {:<6} {:>9}  {}",
                i.name, i.suite, i.min_ranks, i.description
            );
        }
    }
    Ok(EXIT_OK)
}

fn run(args: RunArgs) -> Result<i32> {
    if !launch::launched() {
        let np = args.np.unwrap_or_else(|| launch::cores().max(2));
        if np == 0 {
            eprintln!("error: -n must be at least 1");
            return Ok(EXIT_USAGE);
        }
        signals::install_parent_panic_hook();
        return launch::relaunch(&launch::Relaunch {
            np,
            mpiexec: args.mpiexec.as_deref(),
            library_version: &comm::library_version(),
            force_np: args.force_np,
            json: args.json.as_deref(),
        });
    }
    // Panic hook, crash and stop handling, the link to a self-launching parent.
    signals::before_mpi_init();
    let universe =
        mpi::initialize().ok_or_else(|| anyhow::anyhow!("MPI was already initialised"))?;
    let world = Comm::world();
    signals::mpi_started(world);
    let code = match launch::check_world(world.size, &comm::library_version()) {
        Ok(()) => run_world(world, &args),
        Err(msg) => {
            if launch::env_rank() == 0 {
                eprintln!("error: {msg}");
            }
            Ok(EXIT_USAGE)
        }
    };
    signals::mpi_ending(*code.as_ref().unwrap_or(&EXIT_ABORTED));
    drop(universe);
    code
}

/// Rank 0 builds the plan and broadcasts it (or the usage error) to everyone.
fn agree_on_plan(world: Comm, args: &RunArgs, ranks_per_node: usize) -> Result<Plan, String> {
    let mut bytes = if world.rank == 0 {
        let command: Vec<String> = std::iter::once("mpibench".to_string())
            .chain(std::env::args().skip(1))
            .collect();
        let r = Plan::build(args, command, world.size, ranks_per_node).map_err(|e| e.to_string());
        serde_json::to_vec(&r).expect("plan serialises")
    } else {
        Vec::new()
    };
    world.bcast_vec(&mut bytes, 0);
    serde_json::from_slice::<Result<Plan, String>>(&bytes)
        .unwrap_or_else(|e| Err(format!("corrupt plan: {e}")))
}

/// Distinct host names in rank order, and the ranks on each.
fn hosts(world: Comm) -> (Vec<String>, Vec<usize>) {
    let names = world.gather_strings(&comm::processor_name(), 0);
    let mut out: Vec<(String, usize)> = Vec::new();
    for n in names {
        match out.iter_mut().find(|(h, _)| *h == n) {
            Some((_, c)) => *c += 1,
            None => out.push((n, 1)),
        }
    }
    out.into_iter().unzip()
}

fn new_report(
    plan: &Plan,
    world: Comm,
    (hosts, ranks_per_host): (Vec<String>, Vec<usize>),
) -> Report {
    Report {
        schema: SCHEMA.to_string(),
        mpibench_version: env!("CARGO_PKG_VERSION").to_string(),
        command: plan.command.clone(),
        started: humantime::format_rfc3339_seconds(SystemTime::now()).to_string(),
        complete: false,
        mpi: MpiInfo {
            library: comm::library_version(),
            version: {
                let (a, b) = comm::mpi_version();
                [a, b]
            },
        },
        world_size: world.size,
        hosts,
        ranks_per_host,
        settings: Settings {
            sync: plan.sync.name().into(),
            timing: plan.timing.name().into(),
            check: plan.check,
            iter: plan.policy.iter,
            time_limit_s: plan.policy.time_limit_s,
            root_shift: plan.root_shift,
            min_iter: plan.policy.min_reps,
            max_iter: plan.policy.max_reps,
            precision: plan.policy.precision,
            window_us: plan.window_us,
            mem_limit_bytes: plan.mem_bytes,
            timeout_s: plan.timeout_s,
            large_messages: if comm::large_count_calls() {
                "mpi4-large-count"
            } else {
                "derived-datatype"
            }
            .into(),
        },
        results: Vec::new(),
        status: None,
        interrupted_by: None,
    }
}

fn run_world(world: Comm, args: &RunArgs) -> Result<i32> {
    let ranks_per_node = world.node_size();
    let plan = match agree_on_plan(world, args, ranks_per_node) {
        Ok(p) => p,
        Err(msg) => {
            if world.rank == 0 {
                eprintln!("error: {msg}");
            }
            return Ok(EXIT_USAGE);
        }
    };
    let root = world.rank == 0;
    if root {
        if let Some(n) = args.np.filter(|&n| n != world.size) {
            eprintln!(
                "warning: -n {n} ignored: the launcher started {} processes",
                world.size
            );
        }
    }
    let watchdog = Watchdog::start(plan.timeout_s, world.rank);
    let hosts = hosts(world);
    let mut report = new_report(&plan, world, hosts);
    let to_stdout = |p: &Option<std::path::PathBuf>| p.as_deref().is_some_and(output::is_stdout);
    let show_table =
        root && !to_stdout(&plan.json) && !to_stdout(&plan.csv) && !to_stdout(&plan.raw);
    // Rank 0's write failures (saves, tables, raw samples) are collected here
    // and agreed on by every rank after each step, so that none waits alone.
    let mut failure: Option<anyhow::Error> = None;
    if show_table {
        let header = table::header(&report, &plan.sizes, &plan.benchmarks, plan.multi);
        failure = output::print(&header).err();
    }
    if root {
        output::init(&[
            (plan.json.as_deref(), Format::Json),
            (plan.csv.as_deref(), Format::Csv),
        ]);
        // "running" stays if the job dies (kill, --timeout) before the end.
        report.status = Some("running".into());
        failure = failure.or(output::save(&report, false).err());
    }
    // The global clock, when window synchronisation needs it.
    let clock = (plan.sync == SyncMode::Window).then(|| synchronize(world, SyncParams::default()));
    let raw = match (&plan.raw, root) {
        (Some(p), true) => match RawSink::create(p) {
            Ok(sink) => Some(RefCell::new(sink)),
            Err(e) => {
                failure = failure.or(Some(e));
                None
            }
        },
        _ => None,
    };
    if let Some(code) = output::agree(world, failure.take()) {
        return Ok(code);
    }
    let engine = Engine {
        world,
        plan: &plan,
        clock,
        watchdog: &watchdog,
        raw,
    };
    let entries = plan.entries();
    let started = std::time::Instant::now();
    let progress = |i: usize, name: &str, q: usize| {
        if root && !plan.quiet {
            eprintln!(
                "mpibench: [{}/{}] {name} on {q} processes ({:.1} s)",
                i + 1,
                entries.len(),
                started.elapsed().as_secs_f64()
            );
        }
    };
    let mut outcome: Result<()> = Ok(());
    'entries: for (i, entry) in entries.iter().enumerate() {
        let results: Vec<BenchResult> = match entry {
            Entry::Tool(t) => {
                progress(i, t.info().name, world.size);
                watchdog.arm(format!("{} on {} processes", t.info().name, world.size));
                let r = t.run(world);
                watchdog.disarm();
                match r {
                    Ok(r) => r.into_iter().collect(),
                    Err(e) => {
                        outcome = Err(e);
                        break 'entries;
                    }
                }
            }
            Entry::Bench(b) => match engine::sweep(*b, &plan, world.size) {
                Err(reason) => vec![engine::skipped(*b, 2, plan.multi, reason)],
                Ok(counts) => {
                    let mut v = Vec::new();
                    for q in counts {
                        progress(i, b.info().name, q);
                        match engine.run(*b, q) {
                            Ok(r) => v.extend(r),
                            Err(e) => {
                                outcome = Err(e);
                                break;
                            }
                        }
                    }
                    v
                }
            },
        };
        if root {
            for r in results {
                if show_table && failure.is_none() {
                    failure = output::print(&table::section(&r, world.size, plan.stats)).err();
                }
                report.results.push(r);
            }
            failure = failure.or(output::save(&report, false).err());
        }
        if outcome.is_err() {
            break;
        }
        let raw_failure = engine
            .raw
            .as_ref()
            .and_then(|r| r.borrow_mut().take_error());
        if let Some(code) = output::agree(world, failure.take().or(raw_failure)) {
            return Ok(code);
        }
    }
    if let Err(e) = outcome {
        let code = match e.downcast_ref::<Abort>() {
            Some(Abort::Validation(_)) => EXIT_VALIDATION,
            _ => EXIT_ABORTED,
        };
        if root {
            report.status = Some(
                if code == EXIT_VALIDATION {
                    "validation_errors"
                } else {
                    "aborted"
                }
                .into(),
            );
            // The run failed already; a failing save must not hide why.
            let _ = output::save(&report, false);
            eprintln!("error: {e:#}");
        }
        return Ok(code);
    }
    if !root {
        // Rank 0 may still fail to write the final results: agree on it.
        return Ok(output::agree(world, None).unwrap_or(EXIT_OK));
    }
    report.complete = true;
    let errors: u64 = report
        .results
        .iter()
        .flat_map(|r| &r.rows)
        .filter_map(|r| r.errors)
        .sum();
    report.status = Some(
        if errors > 0 {
            "validation_errors"
        } else {
            "ok"
        }
        .to_string(),
    );
    let mut failure = output::save(&report, true).err();
    if show_table && failure.is_none() {
        failure = output::print(&table::footer(&report)).err();
    }
    if let Some(code) = output::agree(world, failure) {
        return Ok(code);
    }
    if errors > 0 {
        eprintln!("error: validation found {errors} errors (see the errors column)");
        return Ok(EXIT_VALIDATION);
    }
    Ok(EXIT_OK)
}
