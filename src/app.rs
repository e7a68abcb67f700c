//! Orchestration: command line → (self-launch) → MPI → plan → engine → reports.

use std::time::SystemTime;

use anyhow::Result;
use clap::Parser;

use crate::cli::{Cli, Command, RunArgs};
use crate::comm::{self, Comm};
use crate::engine::{self, Engine};
use crate::plan::Plan;
use crate::report::{self, csv::Csv, json::Json, table};
use crate::results::{MpiInfo, Report, Settings, SCHEMA};
use crate::{launch, suite};

pub const EXIT_OK: i32 = 0;
pub const EXIT_VALIDATION: i32 = 1;
pub const EXIT_USAGE: i32 = 2;
pub const EXIT_ABORTED: i32 = 3;

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
        for b in (s.benchmarks)() {
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
        return launch::relaunch(np, args.mpiexec.as_deref(), &comm::library_version());
    }
    let universe =
        mpi::initialize().ok_or_else(|| anyhow::anyhow!("MPI was already initialised"))?;
    let world = Comm::world();
    let code = run_world(world, &args);
    drop(universe);
    code
}

/// Rank 0 builds the plan and broadcasts it (or the usage error) to everyone.
fn agree_on_plan(world: Comm, args: &RunArgs) -> Result<Plan, String> {
    let mut bytes = if world.rank == 0 {
        let command: Vec<String> = std::iter::once("mpibench".to_string())
            .chain(std::env::args().skip(1))
            .collect();
        let r = Plan::build(args, command, world.size).map_err(|e| e.to_string());
        serde_json::to_vec(&r).expect("plan serialises")
    } else {
        Vec::new()
    };
    world.bcast_vec(&mut bytes, 0);
    serde_json::from_slice::<Result<Plan, String>>(&bytes)
        .unwrap_or_else(|e| Err(format!("corrupt plan: {e}")))
}

fn hosts(world: Comm) -> Vec<String> {
    let names = world.gather_strings(&comm::processor_name(), 0);
    let mut out: Vec<(String, usize)> = Vec::new();
    for n in names {
        match out.iter_mut().find(|(h, _)| *h == n) {
            Some((_, c)) => *c += 1,
            None => out.push((n, 1)),
        }
    }
    out.into_iter()
        .map(|(h, c)| format!("{h} ({c} ranks)"))
        .collect()
}

fn run_world(world: Comm, args: &RunArgs) -> Result<i32> {
    let plan = match agree_on_plan(world, args) {
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
    let hosts = hosts(world);
    let mut report = Report {
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
        settings: Settings {
            sync: "barrier".into(),
            timing: if plan.check {
                "per-call".into()
            } else {
                "loop".into()
            },
            check: plan.check,
            iter: plan.policy.iter,
            time_limit_s: plan.policy.time_limit_s,
            root_shift: plan.root_shift,
        },
        results: Vec::new(),
        status: None,
    };
    let to_stdout =
        |p: &Option<std::path::PathBuf>| p.as_ref().is_some_and(|p| p.as_os_str() == "-");
    let show_table = root && !to_stdout(&plan.json) && !to_stdout(&plan.csv);
    if show_table {
        print!(
            "{}",
            table::header(&report, &plan.sizes, &plan.benchmarks, plan.multi)
        );
    }
    let engine = Engine { world, plan: &plan };
    let benches = plan.benches();
    let started = std::time::Instant::now();
    for (bi, b) in benches.iter().enumerate() {
        let counts = match engine::sweep(*b, &plan, world.size) {
            Ok(c) => c,
            Err(reason) => {
                if root {
                    let r = engine::skipped(*b, 2, plan.multi, reason);
                    if show_table {
                        print!("{}", table::section(&r, world.size));
                    }
                    report.results.push(r);
                }
                continue;
            }
        };
        for q in counts {
            if root && !plan.quiet {
                eprintln!(
                    "mpibench: [{}/{}] {} on {} processes ({:.1} s)",
                    bi + 1,
                    benches.len(),
                    b.info().name,
                    q,
                    started.elapsed().as_secs_f64()
                );
            }
            if let Some(r) = engine.run(*b, q)? {
                if show_table {
                    print!("{}", table::section(&r, world.size));
                }
                report.results.push(r);
            }
        }
        if root {
            save(&plan, &report, false)?;
        }
    }
    if !root {
        return Ok(EXIT_OK);
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
    save(&plan, &report, true)?;
    if show_table {
        print!("{}", table::footer(&report));
    }
    if errors > 0 {
        eprintln!("error: validation found {errors} errors (see the errors column)");
        return Ok(EXIT_VALIDATION);
    }
    Ok(EXIT_OK)
}

/// Rewrites the result files; stdout ("-") only once, at the end.
fn save(plan: &Plan, report: &Report, last: bool) -> Result<()> {
    for (path, exporter) in [
        (&plan.json, &Json as &dyn report::Exporter),
        (&plan.csv, &Csv as &dyn report::Exporter),
    ] {
        if let Some(p) = path {
            if p.as_os_str() != "-" || last {
                report::export(exporter, report, p)?;
            }
        }
    }
    Ok(())
}
