//! Orchestration: command line → (self-launch) → MPI → plan → engine → reports.

use std::cell::RefCell;
use std::time::SystemTime;

use anyhow::Result;
use clap::FromArgMatches;

use crate::bench::entry::Entry;
use crate::cli::{Cli, Command, RunArgs};
use crate::comm::{self, Comm};
use crate::engine::{self, Abort, Engine, RawSink};
use crate::frontend;
use crate::launches::{command_line, ending_of, format_for};
use crate::output::{self, Format};
use crate::plan::Plan;
use crate::plugin::lookup;
use crate::report::raw::RawCsv;
use crate::report::table::SectionCx;
use crate::results::{BenchResult, MpiInfo, Report, Settings, SCHEMA};
use crate::watchdog::Watchdog;
use crate::{files, launch, signals};

use crate::outcome::Outcome;
pub use crate::outcome::{EXIT_ABORTED, EXIT_OK, EXIT_USAGE};

/// `mpibench help [TOPIC]`: printed once (on rank 0 under a launcher).
fn help(topic: Option<&str>) -> i32 {
    match crate::help::text(topic) {
        Ok(text) => {
            if launch::env_rank() == 0 {
                print!("{text}");
            }
            EXIT_OK
        }
        Err(e) => usage(&e),
    }
}

/// Prints a usage error once (on rank 0 under a launcher).
fn usage(msg: &str) -> i32 {
    if launch::env_rank() == 0 {
        Outcome::Usage.say(msg)
    } else {
        Outcome::Usage.exit_code()
    }
}

pub fn main() -> Result<i32> {
    // The suites, for every lookup below (the registry's one list).
    crate::plugin::lookup::set_registry(crate::suite::SUITES);
    crate::cli::set_suite_options(crate::plugin::lookup::option_hooks());
    // The command line and the MPIBENCH_* variables as the OS gives them:
    // a byte that is not UTF-8 is one line naming where it is.
    let argv = match crate::environ::checked() {
        Ok(a) => a,
        Err(e) => return Ok(usage(&e)),
    };
    // Called as a suite's program (a link or a copy named IMB-MPI1,
    // osu_bw, ...), or re-launched from one: that program's command line.
    if let Some((f, program)) = lookup::drop_in(&argv[0]) {
        let shown = std::env::var("MPIBENCH_ARGV0").unwrap_or_else(|_| argv[0].clone());
        return front_end(f.call_as(program, &shown, &argv[1..]));
    }
    // Hidden: the drop-in names as an installation lays them out, one a
    // line (`make install` links each to bin/mpibench).
    if argv.len() == 2 && argv[1] == "--list-drop-ins" {
        for line in lookup::drop_ins() {
            println!("{line}");
        }
        return Ok(0);
    }
    // `run --suite SUITE -h`: the suite's page, not all of run's options.
    if let Some(topic) = crate::help::run_suite_topic(argv.get(1..).unwrap_or_default()) {
        return Ok(help(Some(&topic)));
    }
    let matches = match crate::help::command().try_get_matches_from(&argv) {
        Ok(m) => m,
        Err(e) => return Ok(parse_error(&e)),
    };
    // A suite's listed subcommand (mpibench mpitest ...): its front end.
    if let Some((name, sub)) = matches.subcommand() {
        if let Some(f) = lookup::front(name).filter(|f| f.listed().is_some()) {
            let params: Vec<String> = sub
                .get_many::<String>("params")
                .into_iter()
                .flatten()
                .cloned()
                .collect();
            return front_end(f.call(&params));
        }
    }
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => return Ok(parse_error(&e.format(&mut crate::help::command()))),
    };
    match cli.command {
        Command::List { suite } => list(suite.as_deref()),
        Command::Help { topic } => Ok(help(topic.as_deref())),
        Command::Run(args) => run(*args),
        // The suites' commands not listed in `mpibench --help`, from the
        // registry (IMB's other programs: mpibench imb-nbc ...; the suites
        // that are commands of their own: mpibench guidelines), and tune.
        Command::External(words) => {
            let (name, params) = words.split_first().expect("clap gives the subcommand");
            match lookup::front(name) {
                Some(f) => front_end(f.call(params)),
                // A driver of its own launches (one per algorithm), not a run.
                None if name == "tune" => crate::tune::main(params),
                None => Ok(usage(&format!("unrecognized subcommand '{name}'"))),
            }
        }
        // Plain programs over JSON files: no MPI, no self-launch.
        Command::Report(a) => crate::readers::report(&a, lookup::report_parts),
        Command::Plot(a) => crate::readers::plot(&a, lookup::report_parts),
        Command::Compare(a) => crate::readers::compare(&a),
        Command::History(a) => crate::history::main(&a),
    }
}

/// A command line clap refused, or its help or version: printed once (on
/// rank 0), its exit code.
fn parse_error(e: &clap::Error) -> i32 {
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
        return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
            EXIT_USAGE
        } else {
            EXIT_OK
        };
    }
    if launch::env_rank() == 0 {
        let msg = e.render().to_string();
        eprintln!(
            "{}",
            msg.lines().next().unwrap_or("error: invalid command line")
        );
    }
    EXIT_USAGE
}

/// A suite's own command line ([`frontend::Front`]): what it asks for, done.
fn front_end(asked: Result<frontend::Action, String>) -> Result<i32> {
    let root = launch::env_rank() == 0;
    match asked {
        Err(msg) => Ok(usage(&msg)),
        Ok(frontend::Action::Say(text)) => {
            if root {
                print!("{text}");
            }
            Ok(EXIT_OK)
        }
        Ok(frontend::Action::Run { args, notes, argv0 }) => {
            if launch::launched() {
                if root {
                    for n in notes {
                        eprintln!("{n}");
                    }
                }
            } else if let Some(a) = argv0 {
                // Re-launched ranks see the arguments without a subcommand:
                // they take the program's command line from this.
                std::env::set_var("MPIBENCH_ARGV0", a);
            }
            run(*args)
        }
        Ok(frontend::Action::Startup {
            args,
            argv0,
            launched,
        }) => {
            if launch::launched() {
                return launched();
            }
            if let Some(a) = argv0 {
                std::env::set_var("MPIBENCH_ARGV0", a);
            }
            // The ranks run the program itself, from its own command line;
            // the launch checks only what starts them.
            let mut args = args;
            args.benchmarks.clear();
            run(*args)
        }
    }
}

fn list(only: Option<&str>) -> Result<i32> {
    if let Some(s) = only {
        if lookup::suite(s).is_none() {
            return Ok(usage(&format!(
                "unknown suite '{s}' (known: {})",
                lookup::suite_names()
            )));
        }
    }
    let shown = || {
        lookup::registry()
            .iter()
            .filter(|s| only.is_none_or(|o| s.name.eq_ignore_ascii_case(o)))
    };
    let w = shown()
        .flat_map(|s| (s.entries)())
        .map(|e| e.info().name.chars().count())
        .max()
        .unwrap_or(0)
        .max(16);
    println!(
        "{:<w$} {:<8} {:>9}  description",
        "benchmark", "suite", "min ranks"
    );
    for s in shown() {
        println!("# {}: {}", s.name, s.title);
        for b in (s.entries)() {
            let i = b.info();
            let aliases = if i.aliases.is_empty() {
                String::new()
            } else {
                format!(
                    " (aliases, the same MPI operation: {})",
                    i.aliases.join(", ")
                )
            };
            println!(
                "{:<w$} {:<8} {:>9}  {}{aliases}",
                i.name, i.suite, i.ranks.min, i.description
            );
            for (v, what) in i.variants {
                println!("    {v:<18} {what}");
            }
        }
    }
    Ok(EXIT_OK)
}

/// `mpibench run`: the self-launch outside a launcher, the run under one.
fn run(args: RunArgs) -> Result<i32> {
    if launch::launched() {
        run_launched(args)
    } else {
        self_launch(&args)
    }
}

/// The self-launch: the hosts and the number of ranks, the plan checked
/// at once where every rank would share this node, the output locks, then
/// mpiexec (or srun), once or once per launch of `--launches N`.
fn self_launch(args: &RunArgs) -> Result<i32> {
    if let Some(msg) = crate::launches::refuse(args) {
        return Ok(usage(&msg));
    }
    let hosts = match hosts_of(args) {
        Ok(h) => h,
        Err(msg) => return Ok(usage(&msg)),
    };
    let slots = hosts.as_ref().map(|h| h.iter().map(|h| h.slots).sum());
    // Inside a Slurm allocation: its tasks, else one rank per core.
    let np = args
        .launch
        .np
        .or(slots)
        .or_else(crate::slurm::allocation_tasks)
        .unwrap_or_else(|| launch::cores().max(2));
    if let Err(msg) = crate::slurm::check_np(np) {
        return Ok(usage(&msg));
    }
    // On this machine alone every rank shares this node, so the plan the
    // ranks would build is this one: a usage error is said at once,
    // without starting MPI (across hosts or in an allocation, rank 0
    // decides, knowing its node).
    if hosts.is_none() && crate::slurm::allocation_tasks().is_none() {
        if let Err(e) = Plan::build(args, command_line(), np, np) {
            return Ok(usage(&e.to_string()));
        }
    }
    // The history must be able to keep the run, before it runs.
    if let Some(h) = &args.out.history {
        if let Err(msg) = crate::history::probe(h, &args.outputs()) {
            return Ok(usage(&msg));
        }
    }
    if !args.launch.dry_run {
        // The parent relays the job's stdout and sees a closed pipe itself.
        signals::ignore_sigpipe();
        // The parent holds the output locks for the whole job.
        if let Err(msg) = files::lock(&args.outputs()) {
            return Ok(usage(&msg));
        }
    }
    let relaunch = launch::Relaunch {
        np,
        mpiexec: args.launch.mpiexec.as_deref(),
        library_version: &comm::library_version(),
        force_np: args.launch.force_np,
        // Launches of `--launches N` write private files: the run's
        // JSON is the parent's to write, after them.
        json: args
            .out
            .json
            .as_deref()
            .filter(|_| args.reps.launches.is_none_or(|n| n <= 1)),
        hosts,
        bind_to: args.launch.bind_to.as_deref(),
        dry_run: args.launch.dry_run,
        timeout: args.limits.timeout,
    };
    if args.reps.launches.is_some_and(|n| n > 1) && !args.launch.dry_run {
        return crate::launches::parent(args, &relaunch);
    }
    if let Some(n) = args.reps.launches.filter(|&n| n > 1) {
        println!(
            "# --launches {n}: mpibench runs this command {n} times and combines the launches' results"
        );
    }
    launch::relaunch(&relaunch)
}

/// The hosts of the self-launch: `--hosts`, else `--hostfile`'s (read
/// here), else none; or the one-line usage error.
fn hosts_of(args: &RunArgs) -> Result<Option<Vec<launch::Host>>, String> {
    match (&args.launch.hosts, &args.launch.hostfile) {
        (Some(list), _) => launch::parse_hosts(list).map(Some),
        (None, Some(path)) => {
            let text = crate::input::read_text(
                path,
                crate::input::LIST_CAP,
                "--hostfile",
                crate::input::Stdin::Allowed,
            )?;
            launch::parse_hostfile(&text, &path.display().to_string()).map(Some)
        }
        (None, None) => Ok(None),
    }
}

/// A rank started by a launcher: one launch of `--launches N` writes
/// private files, a dry run has nothing to do, else MPI starts.
fn run_launched(mut args: RunArgs) -> Result<i32> {
    // One launch of `--launches N`: its outputs are the parent's to write.
    if args.reps.launches.is_some_and(|n| n > 1) && !crate::launches::redirect(&mut args) {
        return Ok(usage(&format!(
            "--launches {} needs mpibench to start the launches itself: run it without mpiexec or srun (inside a Slurm allocation, mpibench run calls srun)",
            args.reps.launches.unwrap_or(0)
        )));
    }
    if args.launch.dry_run {
        if launch::env_rank() == 0 {
            println!(
                "mpibench: --dry-run: a launcher started this process; there is nothing to launch"
            );
        }
        return Ok(EXIT_OK);
    }
    run_mpi(&args)
}

/// MPI from start to end: the crash and stop handling around it, the
/// world checked against the launcher's, the run, and a bounded finalize.
fn run_mpi(args: &RunArgs) -> Result<i32> {
    // Panic hook, crash and stop handling, the link to a self-launching parent.
    signals::ignore_sigpipe();
    // --malloc stable: the thresholds fixed before MPI allocates anything.
    if args.limits.malloc == Some(crate::cli::MallocArg::Stable)
        && !crate::sys::stable_malloc()
        && launch::env_rank() == 0
    {
        eprintln!("warning: --malloc stable: the C library refused the fixed thresholds; the allocator is as it was");
    }
    signals::before_mpi_init();
    let universe = comm::initialize(crate::plugin::lookup::names_thread_multiple(
        &args.benchmarks,
        args.suite.as_deref(),
    ))?;
    crate::phases::started();
    let world = Comm::world();
    signals::mpi_started(&world);
    let code = match crate::slurm::pmi_mismatch(world.size).map_or_else(
        || launch::check_world(world.size, &comm::library_version()),
        Err,
    ) {
        Ok(()) => run_world(&world, args),
        Err(msg) => {
            if launch::env_rank() == 0 {
                eprintln!("error: {msg}");
            }
            Ok(EXIT_USAGE)
        }
    };
    let end = *code.as_ref().unwrap_or(&EXIT_ABORTED);
    signals::mpi_ending(end);
    drop(world);
    finalize_limit(end);
    let finalize = crate::phases::span(crate::phases::Phase::Finalize);
    drop(universe);
    drop(finalize);
    if launch::env_rank() == 0 {
        if let Some(line) = crate::phases::line() {
            eprintln!("{line}");
        }
    }
    code
}

/// How long `MPI_Finalize` may take before the rank ends its process anyway.
const FINALIZE_LIMIT: std::time::Duration = std::time::Duration::from_secs(5);

/// The results are written when `MPI_Finalize` starts: a finalize that
/// never returns (MPICH over UCX's TCP transport, with several ranks per
/// host, can spin in it forever) must not keep the job. After
/// [`FINALIZE_LIMIT`] the rank says so in one line (silently after a usage
/// error, which stays one line) and exits with the run's code.
fn finalize_limit(code: i32) {
    // The outcome is decided: the parent knows it even if the launcher
    // ends this rank while another rank leaves a stuck finalize.
    crate::link::tell(&format!("end {} {code}", signals::rank()));
    crate::sys::spawn(move || {
        std::thread::sleep(FINALIZE_LIMIT);
        // A usage error stays one line: there are no results to speak of.
        if code != EXIT_USAGE {
            eprintln!(
                "warning: rank {}: MPI_Finalize did not return within {} s; ending the process (the results are complete)",
                signals::rank(),
                FINALIZE_LIMIT.as_secs()
            );
        }
        // Without running destructors (MPI is stuck in one).
        crate::sys::exit_now(code)
    });
}

/// Rank 0 builds the plan and broadcasts it (or the usage error) to everyone.
fn agree_on_plan(world: &Comm, args: &RunArgs, ranks_per_node: usize) -> Result<Plan, String> {
    let mut bytes = if world.rank == 0 {
        let r = Plan::build(args, command_line(), world.size, ranks_per_node)
            .map_err(|e| e.to_string())
            // Under a launcher of the user's, rank 0 holds the output locks
            // (a self-launching parent holds them already).
            .and_then(|p| {
                if launch::self_launched() {
                    Ok(p)
                } else {
                    files::lock(&args.outputs()).map(|_| p)
                }
            })
            // Under a launcher of the user's, rank 0 checks the history
            // (a self-launching parent checked it already).
            .and_then(|p| match &args.out.history {
                Some(h) if !launch::self_launched() => {
                    crate::history::probe(h, &args.outputs()).map(|_| p)
                }
                _ => Ok(p),
            });
        serde_json::to_vec(&r).expect("plan serialises")
    } else {
        Vec::new()
    };
    world.bcast_vec(&mut bytes, 0);
    serde_json::from_slice::<Result<Plan, String>>(&bytes)
        .unwrap_or_else(|e| Err(format!("corrupt plan: {e}")))
}

/// Every rank's processor name, known to every rank (gathered once).
fn processor_names(world: &Comm) -> Vec<String> {
    let names = world.gather_strings(&comm::processor_name(), 0);
    let mut bytes = if world.rank == 0 {
        serde_json::to_vec(&names).expect("names serialise")
    } else {
        Vec::new()
    };
    world.bcast_vec(&mut bytes, 0);
    serde_json::from_slice(&bytes).unwrap_or_default()
}

/// Distinct host names in rank order, and the ranks on each.
fn hosts(names: &[String]) -> (Vec<String>, Vec<usize>) {
    let mut out: Vec<(String, usize)> = Vec::new();
    for n in names {
        match out.iter_mut().find(|(h, _)| h == n) {
            Some((_, c)) => *c += 1,
            None => out.push((n.clone(), 1)),
        }
    }
    out.into_iter().unzip()
}

fn new_report(
    plan: &Plan,
    world: &Comm,
    (hosts, ranks_per_host): (Vec<String>, Vec<usize>),
) -> Report {
    let home = lookup::suite(&plan.suite).map(|s| s.defaults);
    let method = plan.timing.method.or(home.map(|d| d.method));
    let sync = plan.timing.sync.or(home.map(|d| d.sync));
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
            root: plan.root,
            min_iter: plan.policy.min_reps,
            max_iter: plan.policy.max_reps,
            precision: plan.policy.precision,
            window_us: plan.timing.window_us,
            mem_limit_bytes: plan.mem_bytes,
            timeout_s: plan.timeout_s,
            large_messages: if comm::large_count_calls() {
                "mpi4-large-count"
            } else {
                "derived-datatype"
            }
            .into(),
            warmup: plan.policy.warmup,
            off_cache: plan.off_cache,
            msg_pause: plan.pause_after_point,
            imb_map: plan.rank_order.map(|o| o.label()),
        },
        results: Vec::new(),
        slurm: crate::slurm::job(),
        status: None,
        interrupted_by: None,
        reason: None,
        signal: None,
        launches: Vec::new(),
        context: None,
    }
}

/// Where the tables go: stdout, or the `--output` file (rewritten after
/// each benchmark, like the JSON file).
struct Tables {
    text: String,
    to_file: bool,
}

impl Tables {
    /// Appends to the file's text, or prints (a closed stdout is an error
    /// that `output::agree` tells apart).
    fn emit(&mut self, s: &str) -> Result<()> {
        if self.to_file {
            self.text.push_str(s);
            Ok(())
        } else {
            output::print(s)
        }
    }

    fn save(&self, plan: &Plan, last: bool) -> Result<()> {
        match &plan.files.output {
            Some(p) if self.to_file => files::write_file(p, self.text.as_bytes(), last),
            _ => Ok(()),
        }
    }
}

/// Warnings on rank 0 about options the launcher overrode.
fn warn_launch(world: &Comm, args: &RunArgs) {
    if let Some(n) = args.launch.np.filter(|&n| n != world.size) {
        eprintln!(
            "warning: -n {n} ignored: the launcher started {} processes",
            world.size
        );
    }
    if let Some(flag) = [
        ("--hosts", args.launch.hosts.is_some()),
        ("--hostfile", args.launch.hostfile.is_some()),
        ("--bind-to", args.launch.bind_to.is_some()),
    ]
    .iter()
    .find_map(|(f, set)| set.then_some(f))
    .filter(|_| !launch::self_launched())
    {
        eprintln!("warning: {flag} ignored: the launcher placed the processes");
    }
}

/// A run's outputs on rank 0 as it goes: the report (saved after each
/// entry), the tables, and the first write failure, which every rank
/// agrees on after each step (`output::agree`) so that none waits alone.
struct Session<'p> {
    plan: &'p Plan,
    root: bool,
    report: Report,
    tables: Tables,
    /// Stdout carries one format: the tables only when no other output is on it.
    show_table: bool,
    cx: SectionCx,
    failure: Option<anyhow::Error>,
}

impl<'p> Session<'p> {
    fn new(world: &Comm, plan: &'p Plan, names: &[String]) -> Session<'p> {
        let root = world.rank == 0;
        let to_stdout = |p: &Option<std::path::PathBuf>| p.as_deref().is_some_and(files::is_stdout);
        let show_table = root
            && (plan.files.output.is_some()
                || ![
                    &plan.files.json,
                    &plan.files.csv,
                    &plan.files.raw,
                    &plan.files.report,
                    &plan.files.plot,
                ]
                .into_iter()
                .any(to_stdout));
        Session {
            plan,
            root,
            report: new_report(plan, world, hosts(names)),
            tables: Tables {
                text: String::new(),
                to_file: plan.files.output.is_some(),
            },
            show_table,
            cx: SectionCx {
                rank_rows: plan.rank_order.and_then(|o| o.rows()),
                world: world.size,
                stats: plan.stats,
                repeats: plan.repeats,
            },
            failure: None,
        }
    }

    /// The table header, the output files opened with the report "running"
    /// (it stays so if the job dies before the end), and the raw sink.
    fn begin(&mut self) -> Option<RefCell<Box<dyn RawSink>>> {
        let plan = self.plan;
        if self.show_table {
            let h = format_for(plan, &plan.suite).header(&self.report, &plan.heading());
            self.failure = self
                .tables
                .emit(&h)
                .and_then(|_| self.tables.save(plan, false))
                .err();
        }
        if self.root {
            output::init(
                &[
                    (plan.files.json.as_deref(), Format::Json),
                    (plan.files.csv.as_deref(), Format::Csv),
                    (plan.files.report.as_deref(), Format::Html),
                ],
                lookup::report_parts,
                crate::history::keeper(plan.files.history.as_deref(), plan.files.json.as_deref()),
            );
            self.report.status = Some("running".into());
            self.failure = self.failure.take().or(save(&self.report).err());
            crate::link::tell(crate::link::READY);
        }
        match (&plan.files.raw, self.root) {
            (Some(p), true) => match RawCsv::create(p) {
                Ok(sink) => Some(RefCell::new(Box::new(sink))),
                Err(e) => {
                    self.failure = self.failure.take().or(Some(e));
                    None
                }
            },
            _ => None,
        }
    }

    /// One entry's results (rank 0): into the tables and the report, both saved.
    fn add(&mut self, rep: usize, results: Vec<BenchResult>) {
        if !self.root {
            return;
        }
        let plan = self.plan;
        for mut r in results {
            if plan.repeats > 1 {
                r.repeat = Some(rep);
            }
            if self.show_table && self.failure.is_none() {
                let f = format_for(plan, &r.suite);
                self.failure = self
                    .tables
                    .emit(&f.between(self.report.results.last(), &r))
                    .and_then(|_| self.tables.emit(&f.section(&r, &self.cx)))
                    .err();
            }
            self.report.results.push(r);
        }
        if self.failure.is_none() {
            self.failure = self.tables.save(plan, false).err();
        }
        self.failure = self.failure.take().or(save(&self.report).err());
    }

    /// A run that failed: its outcome stamped and said, its exit code.
    fn failed(&mut self, e: anyhow::Error) -> i32 {
        let ending = match e.downcast_ref::<Abort>() {
            Some(Abort::Validation(_)) => Outcome::ValidationErrors,
            _ => Outcome::Error,
        };
        if self.root {
            ending.stamp(&mut self.report);
            // The run failed already; a failing save must not hide why.
            let _ = save(&self.report);
            let _ = output::finish();
            ending.say(&format!("{e:#}"));
        }
        ending.exit_code()
    }

    /// A complete run on rank 0: the aggregates over repeats, the outcome,
    /// then every output. The replaced files first, then the others; stdout
    /// and the special files last (they get one write): a failure anywhere
    /// turns the status into "aborted" wherever it can still be written.
    fn complete(&mut self) -> (Outcome, String, Option<anyhow::Error>) {
        let plan = self.plan;
        if plan.repeats > 1 {
            for r in crate::engine::aggregate::aggregates(&self.report.results) {
                if self.show_table {
                    let _ = self
                        .tables
                        .emit(&format_for(plan, &r.suite).section(&r, &self.cx));
                }
                self.report.results.push(r);
            }
        }
        self.report.complete = true;
        let (ending, line) = ending_of(&self.report, plan.fail_on_outlier);
        ending.stamp(&mut self.report);
        let mut failure = save(&self.report).err();
        if let (Some(p), None) = (&plan.files.plot, &failure) {
            // The plan accepted --plot only for a suite with a figure.
            if let Some(f) = lookup::suite(&plan.suite).and_then(|s| s.figure) {
                failure = (f.write)(&self.report, p).err();
            }
        }
        if let (Some(dir), None) = (&plan.files.plots, &failure) {
            match crate::readers::write_plots(
                vec![("run".into(), &self.report)],
                dir,
                false,
                lookup::report_parts,
            ) {
                Ok(n) => eprintln!(
                    "mpibench: wrote {n} SVG plot{} to {}",
                    if n == 1 { "" } else { "s" },
                    dir.display()
                ),
                Err(e) => failure = Some(e),
            }
        }
        if self.show_table && failure.is_none() {
            let home = format_for(plan, &plan.suite);
            failure = self
                .tables
                .emit(&home.summary(&self.report, &self.cx))
                .and_then(|_| self.tables.save(plan, true))
                .err();
        }
        if failure.is_none() {
            failure = output::finish().err();
        }
        (ending, line, failure)
    }
}

fn run_world(world: &Comm, args: &RunArgs) -> Result<i32> {
    let planning = crate::phases::span(crate::phases::Phase::Plan);
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
        warn_launch(world, args);
    }
    let watchdog = Watchdog::start(plan.timeout_s, plan.watch.stall_limit_s, world.rank);
    let names = processor_names(world);
    let malloc = args.limits.malloc.unwrap_or_default().name();
    let context = crate::context::gather(world, &names, malloc);
    let polite = crate::context::agree_oversubscribed(world, context.as_ref());
    if root && polite && args.measure.sync == Some(crate::method::SyncMode::Window) {
        eprintln!(
            "warning: --sync window on ranks that share cores: a rank starts when the scheduler runs it, not at its window, so most repetitions start late and rows may have no valid sample; use --sync barrier, or one rank per core"
        );
    }
    let mut sess = Session::new(world, &plan, &names);
    sess.report.context = context;
    let raw = sess.begin();
    if let Some(code) = output::agree(world, sess.failure.take()) {
        return Ok(code);
    }
    if polite {
        crate::method::precise_sleep();
    }
    let engine =
        Engine::new(world, plan.engine_config(), &watchdog, raw, polite).with_hosts(&names);
    drop(planning);
    let entries = plan.entries();
    let started = std::time::Instant::now();
    let total = entries.len() * plan.repeats;
    let progress = |i: usize, name: &str, q: usize| {
        if root && !plan.quiet {
            let e = crate::progress::Event {
                step: i,
                total,
                procs: q,
                name: name.to_string(),
            };
            crate::progress::report(&e, started.elapsed());
        }
    };
    let mut outcome: Result<()> = Ok(());
    'repeats: for rep in 1..=plan.repeats {
        engine.next_repeat();
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
            let _phase = crate::phases::span(crate::phases::Phase::Output);
            sess.add(rep, results);
            let raw_failure = engine
                .raw
                .as_ref()
                .and_then(|r| r.borrow_mut().take_error());
            if let Some(code) = output::agree(world, sess.failure.take().or(raw_failure)) {
                return Ok(code);
            }
            if outcome.is_err() {
                break 'repeats;
            }
        }
    }
    // The measurements are over: no limit may end the run after rank 0
    // wrote its final outputs.
    watchdog.finish();
    if let Err(e) = outcome {
        return Ok(sess.failed(e));
    }
    if !root {
        // Rank 0 may still fail to write the final results: agree on it.
        return Ok(output::agree(world, None).unwrap_or(EXIT_OK));
    }
    let _phase = crate::phases::span(crate::phases::Phase::Output);
    let (ending, line, failure) = sess.complete();
    if let Some(code) = output::agree(world, failure) {
        return Ok(code);
    }
    Ok(ending.say(&line))
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
            let cx = crate::bench::ToolCx {
                axes: &plan.axes,
                iter: plan.policy.iter,
            };
            let r = t.run_planned(world, &cx).map_err(engine::ends_on_mpi_error);
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

/// Rank 0: rewrites the results in the replaced files (JSON, CSV, HTML
/// report; stdout and special files wait for `output::finish`). Until the
/// end, an MPI error on this rank marks them "aborted" before the job ends.
fn save(report: &Report) -> Result<()> {
    comm::error::on_fatal(Box::new(|_| {
        if let Some(Err(e)) = output::interrupt(Outcome::Error) {
            eprintln!("error: {e:#}");
        }
    }));
    output::save(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::table::fixtures::{report, result, row};

    #[test]
    fn a_complete_run_ends_by_its_errors_then_its_suites() {
        let mut r = report(2);
        let mut clean = row(8, 1.0);
        clean.errors = Some(0);
        r.results
            .push(result("PingPong", "imb", "single transfer", 2, vec![clean]));
        assert_eq!(ending_of(&r, true).0, Outcome::Ok);
        let mut bad = row(16, 1.0);
        bad.errors = Some(3);
        r.results
            .push(result("Bcast", "imb", "collective", 2, vec![bad.clone()]));
        let (o, line) = ending_of(&r, false);
        assert_eq!(o, Outcome::ValidationErrors);
        assert_eq!(line, "validation found 3 errors (see the errors column)");
        // Aggregates over repeats repeat the rows: not counted again.
        let mut agg = result("Bcast", "imb", "collective", 2, vec![bad]);
        agg.aggregate = true;
        r.results.push(agg);
        assert!(ending_of(&r, false).1.contains("found 3 errors"));
    }

    #[test]
    fn a_front_end_chooses_the_table_format() {
        let args = RunArgs {
            benchmarks: vec!["PingPong".into()],
            time: 10.0,
            front: crate::cli::FrontSet {
                table: Some("imb2021".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        let header =
            |plan: &Plan, suite: &str| format_for(plan, suite).header(&report(2), &plan.heading());
        let plan = Plan::build(&args, vec!["mpibench".into()], 2, 2).unwrap();
        // The front end's format for every suite's results.
        assert!(header(&plan, "imb-p2p").contains("MPI-1 part"));
        let plan = Plan::build(
            &RunArgs {
                front: crate::cli::FrontSet {
                    table: None,
                    ..args.front.clone()
                },
                ..args
            },
            vec!["mpibench".into()],
            2,
            2,
        )
        .unwrap();
        assert!(header(&plan, "imb-p2p").contains("IMB-P2P part"));
        assert!(!header(&plan, "imb").contains("IMB-P2P part"));
    }
}
