//! Orchestration: command line → (self-launch) → MPI → plan → engine → reports.

use std::cell::RefCell;
use std::time::SystemTime;

use anyhow::Result;
use clap::Parser;

use crate::cli::{Cli, Command, RunArgs};
use crate::comm::{self, Comm};
use crate::engine::{self, Abort, Engine};
use crate::frontend;
use crate::launch;
use crate::plan::Plan;
use crate::report::table::{self, SectionCx};
use crate::report::{self, csv::Csv, json::Json, raw::RawSink};
use crate::results::{BenchResult, MpiInfo, Report, Row, Settings, SCHEMA};
use crate::suite::{self, Entry};
use crate::watchdog::Watchdog;

pub const EXIT_OK: i32 = 0;
pub const EXIT_VALIDATION: i32 = 1;
pub const EXIT_USAGE: i32 = 2;
pub const EXIT_ABORTED: i32 = crate::watchdog::EXIT_ABORTED;

/// Prints a usage error once (on rank 0 under a launcher).
fn usage(msg: &str) -> i32 {
    if launch::env_rank() == 0 {
        eprintln!("error: {msg}");
    }
    EXIT_USAGE
}

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
        Command::Mpitest { params } => {
            if frontend::mpitest::wants_help(&params) {
                if launch::env_rank() == 0 {
                    println!(
                        "Usage: mpibench mpitest [PARAM]...\n\n{}",
                        frontend::mpitest::HELP
                    );
                }
                return Ok(EXIT_OK);
            }
            match frontend::mpitest::parse(&params) {
                Ok(args) => run(args),
                Err(msg) => Ok(usage(&msg)),
            }
        }
        Command::Commtest { params } => {
            if frontend::commtest::wants_help(&params) {
                if launch::env_rank() == 0 {
                    println!(
                        "Usage: mpibench commtest [INPUT]...\n\n{}",
                        frontend::commtest::HELP
                    );
                }
                return Ok(EXIT_OK);
            }
            match frontend::commtest::parse(&params) {
                Ok(args) => run(args),
                Err(msg) => Ok(usage(&msg)),
            }
        }
    }
}

fn list(only: Option<&str>) -> Result<i32> {
    if let Some(s) = only {
        if suite::suite(s).is_none() {
            return Ok(usage(&format!(
                "unknown suite '{s}' (known: {})",
                suite::suite_names()
            )));
        }
    }
    println!(
        "{:<16} {:<8} {:>9}  description",
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
                "{:<16} {:<8} {:>9}  {}",
                i.name, i.suite, i.ranks.min, i.description
            );
            for (v, what) in i.variants {
                println!("    {v:<18} {what}");
            }
        }
    }
    Ok(EXIT_OK)
}

fn run(args: RunArgs) -> Result<i32> {
    if !launch::launched() {
        let np = args.np.unwrap_or_else(|| launch::cores().max(2));
        if np == 0 {
            return Ok(usage("-n must be at least 1"));
        }
        return launch::relaunch(np, args.mpiexec.as_deref(), &comm::library_version());
    }
    let universe =
        mpi::initialize().ok_or_else(|| anyhow::anyhow!("MPI was already initialised"))?;
    let world = Comm::world();
    let code = run_world(&world, &args);
    drop(world);
    drop(universe);
    code
}

/// Rank 0 builds the plan and broadcasts it (or the usage error) to everyone.
fn agree_on_plan(world: &Comm, args: &RunArgs, ranks_per_node: usize) -> Result<Plan, String> {
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
fn hosts(world: &Comm) -> (Vec<String>, Vec<usize>) {
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
    world: &Comm,
    (hosts, ranks_per_host): (Vec<String>, Vec<usize>),
) -> Report {
    let home = suite::suite(&plan.suite).map(|s| s.defaults);
    let method = plan.method.or(home.map(|d| d.method));
    let sync = plan.sync.or(home.map(|d| d.sync));
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
            sync: sync.map_or("barrier", |s| s.name()).into(),
            timing: method.map_or("loop", |m| m.name()).into(),
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
    }
}

/// Where the tables go: stdout, or the `--output` file (rewritten after each benchmark).
struct Tables {
    text: String,
    to_file: bool,
}

impl Tables {
    fn emit(&mut self, s: &str) {
        if self.to_file {
            self.text.push_str(s);
        } else {
            print!("{s}");
        }
    }

    fn save(&self, plan: &Plan) -> Result<()> {
        match &plan.output {
            Some(p) if self.to_file => report::write_atomic(p, self.text.as_bytes()),
            _ => Ok(()),
        }
    }
}

fn run_world(world: &Comm, args: &RunArgs) -> Result<i32> {
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
    let to_stdout =
        |p: &Option<std::path::PathBuf>| p.as_ref().is_some_and(|p| p.as_os_str() == "-");
    let show_table = root
        && (plan.output.is_some()
            || (!to_stdout(&plan.json) && !to_stdout(&plan.csv) && !to_stdout(&plan.raw)));
    let mut tables = Tables {
        text: String::new(),
        to_file: plan.output.is_some(),
    };
    let home = table::format(&plan.suite);
    if show_table {
        tables.emit(&home.header(&report, &plan));
        tables.save(&plan)?;
    }
    if root {
        // "running" stays if the job dies (kill, --timeout) before the end.
        report.status = Some("running".into());
        save(&plan, &report, false)?;
    }
    let raw = match (&plan.raw, root) {
        (Some(p), true) => Some(RefCell::new(RawSink::create(p)?)),
        _ => None,
    };
    let polite = ranks_per_node > launch::cores();
    if polite {
        crate::method::precise_sleep();
    }
    let engine = Engine::new(world, &plan, &watchdog, raw, polite);
    let entries = plan.entries();
    let started = std::time::Instant::now();
    let total = entries.len() * plan.repeats;
    let progress = |i: usize, name: &str, q: usize| {
        if root && !plan.quiet {
            eprintln!(
                "mpibench: [{}/{total}] {name} on {q} processes ({:.1} s)",
                i + 1,
                started.elapsed().as_secs_f64()
            );
        }
    };
    let cx = SectionCx {
        world: world.size,
        stats: plan.stats,
        repeats: plan.repeats,
    };
    let mut outcome: Result<()> = Ok(());
    'repeats: for rep in 1..=plan.repeats {
        for (i, entry) in entries.iter().enumerate() {
            let step = (rep - 1) * entries.len() + i;
            let results = match run_entry(&engine, &plan, world, entry, |q| {
                progress(step, entry.info().name, q)
            }) {
                Ok(r) => r,
                Err(e) => {
                    outcome = Err(e);
                    Vec::new()
                }
            };
            if root {
                for mut r in results {
                    if plan.repeats > 1 {
                        r.repeat = Some(rep);
                    }
                    if show_table {
                        tables.emit(&table::format(&r.suite).section(&r, &cx));
                    }
                    report.results.push(r);
                }
                tables.save(&plan)?;
                save(&plan, &report, false)?;
            }
            if outcome.is_err() {
                break 'repeats;
            }
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
            save(&plan, &report, false)?;
            eprintln!("error: {e:#}");
        }
        return Ok(code);
    }
    if !root {
        return Ok(EXIT_OK);
    }
    if plan.repeats > 1 {
        for r in aggregates(&report.results) {
            if show_table {
                tables.emit(&table::format(&r.suite).section(&r, &cx));
            }
            report.results.push(r);
        }
    }
    report.complete = true;
    let errors: u64 = report
        .results
        .iter()
        .filter(|r| !r.aggregate)
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
        tables.emit(&home.footer(&report));
        tables.save(&plan)?;
    }
    if errors > 0 {
        eprintln!("error: validation found {errors} errors (see the errors column)");
        return Ok(EXIT_VALIDATION);
    }
    Ok(EXIT_OK)
}

/// Runs one entry over its process counts; results on rank 0.
fn run_entry(
    engine: &Engine,
    plan: &Plan,
    world: &Comm,
    entry: &Entry,
    progress: impl Fn(usize),
) -> Result<Vec<BenchResult>> {
    match entry {
        Entry::Tool(t) => {
            progress(world.size);
            engine
                .watchdog
                .arm(format!("{} on {} processes", t.info().name, world.size));
            let r = t.run_planned(world, plan);
            engine.watchdog.disarm();
            Ok(r?.into_iter().collect())
        }
        Entry::Bench(b) => match plan.process_counts(b.info(), world.size) {
            Err(reason) => Ok((world.rank == 0)
                .then(|| {
                    engine::skipped(
                        b.info(),
                        world.size.min(b.info().ranks.min),
                        plan.multi,
                        reason,
                    )
                })
                .into_iter()
                .collect()),
            Ok(counts) => {
                let mut v = Vec::new();
                for q in counts {
                    progress(q);
                    v.extend(engine.run(*b, q)?);
                }
                Ok(v)
            }
        },
    }
}

/// The aggregate of R runs of each (benchmark, process count): per row, the
/// mean, minimum and maximum over the runs of each run's t_avg.
fn aggregates(results: &[BenchResult]) -> Vec<BenchResult> {
    let mut out: Vec<BenchResult> = Vec::new();
    let key = |r: &BenchResult| {
        (
            r.suite.clone(),
            r.benchmark.clone(),
            r.processes,
            r.mode.clone(),
        )
    };
    for r in results
        .iter()
        .filter(|r| r.repeat.is_some() && r.skipped.is_none())
    {
        if out.iter().any(|a| key(a) == key(r)) {
            continue;
        }
        let runs: Vec<&BenchResult> = results
            .iter()
            .filter(|x| x.repeat.is_some() && key(x) == key(r))
            .collect();
        let rows = r
            .rows
            .iter()
            .enumerate()
            .map(|(i, first)| {
                let same: Vec<&Row> = runs.iter().filter_map(|x| x.rows.get(i)).collect();
                let t: Vec<f64> = same.iter().map(|x| x.t_avg_us).collect();
                let (lo, hi, avg) = crate::stats::min_max_avg(&t);
                let mb: Vec<f64> = same.iter().filter_map(|x| x.mbytes_per_sec).collect();
                Row {
                    bytes: first.bytes,
                    params: first.params.clone(),
                    repetitions: same.iter().map(|x| x.repetitions).sum(),
                    t_min_us: lo,
                    t_max_us: hi,
                    t_avg_us: avg,
                    mbytes_per_sec: (!mb.is_empty()).then(|| crate::stats::min_max_avg(&mb).2),
                    errors: first
                        .errors
                        .map(|_| same.iter().filter_map(|x| x.errors).sum()),
                    ..Row::default()
                }
            })
            .collect();
        out.push(BenchResult {
            repeat: None,
            aggregate: true,
            rows,
            group_rows: Vec::new(),
            ..r.clone()
        });
    }
    out
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
