//! `mpibench tune COLL... [--sizes LIST]`: which algorithm the MPI library
//! should use. Lists the algorithms the library offers (asking it through
//! MPI_T), measures each collective under each algorithm (one self-launch
//! of `mpibench run` per setting, the setting a rules file in the library's
//! own format), picks the fastest per process count and size when it beats
//! the default significantly, writes the library's rules file, and measures
//! again with that file loaded: before/after per size, and any size the file
//! made significantly slower goes back to the default.

mod library;
mod rules;
mod select;
mod table;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};

use anyhow::Result;
use clap::Parser;

use crate::outcome::{Outcome, EXIT_OK};
use crate::{comm, launch};
use library::{Algorithm, Coll, Kind, Library};
use rules::{Choice, CollRules};
use select::{Point, Samples};

pub const USAGE: &str =
    "mpibench tune COLL... [--sizes LIST] [-n N] [--iter N] [--rules FILE] [--json FILE]";

pub const HELP: &str =
    "Finds the fastest algorithm of each collective for the MPI library this binary is linked
against (Open MPI's coll_tuned, MPICH's CVARs), writes the library's own rules file and checks it.
COLL: Allreduce, Bcast, Reduce (case-insensitive). One launch of `mpibench run --suite imb COLL
--timing per-call` per algorithm (self-launch, or the allocation it runs in), the algorithm set by a
rules file, between two launches of the library's defaults (each size keeps the faster of the two).
Per process count and size the fastest algorithm replaces the default when its median is 5% lower
and a one-sided Mann-Whitney test says the default is slower (p < 0.05 / algorithms); a tie keeps
the default. Then one launch with the rules file loaded: before/after per size; a size the file
makes significantly slower is reverted to the default and the file checked again.
Options:
  --sizes LIST   message sizes in bytes, K/M/G suffixes (default 8,1K,64K,1M)
  -n, --np N     ranks of each launch (default: as mpibench run)
  --iter N       repetitions per size and launch, at least 5 (default 100)
  --rules FILE   the rules file to write (default mpibench-tune.conf for Open MPI,
                 mpibench-tune.json for MPICH)
  --json FILE    the measurements and choices as JSON
  --mpiexec PATH the launcher of each launch (default: as mpibench run)
Example: mpibench tune Allreduce Bcast -n 2 --sizes 8,1K,64K,1M";

#[derive(Debug, Parser)]
#[command(
    name = "mpibench tune",
    no_binary_name = true,
    disable_help_flag = true
)]
struct Args {
    #[arg(value_name = "COLL")]
    colls: Vec<String>,
    #[arg(long, value_name = "LIST", default_value = "8,1K,64K,1M")]
    sizes: String,
    #[arg(short = 'n', long = "np", value_name = "N")]
    np: Option<usize>,
    #[arg(long, value_name = "N", default_value_t = 100)]
    iter: usize,
    #[arg(long, value_name = "FILE")]
    rules: Option<PathBuf>,
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    #[arg(long, value_name = "PATH")]
    mpiexec: Option<String>,
    #[arg(short, long)]
    help: bool,
}

/// A usage error: one line (once, under a launcher that started several).
fn usage(msg: &str) -> Result<i32> {
    Ok(if crate::link::env_rank() == 0 {
        Outcome::Usage.say(msg)
    } else {
        Outcome::Usage.exit_code()
    })
}

/// `mpibench tune ...`.
pub fn main(params: &[String]) -> Result<i32> {
    let args = match Args::try_parse_from(params) {
        Ok(a) => a,
        Err(e) => {
            let msg = e.render().to_string();
            let line = msg.lines().next().unwrap_or("invalid command line");
            return usage(line.trim_start_matches("error: "));
        }
    };
    if args.help {
        if crate::link::env_rank() == 0 {
            println!("Usage: {USAGE}\n\n{HELP}");
        }
        return Ok(EXIT_OK);
    }
    if launch::launched() {
        return usage("mpibench tune starts its own launches, one per algorithm: run it without mpiexec or srun (in an allocation, its launches use it)");
    }
    let mut colls: Vec<&'static Coll> = Vec::new();
    for name in &args.colls {
        match library::coll(name) {
            Some(c) if !colls.contains(&c) => colls.push(c),
            Some(_) => {}
            None => {
                return usage(&format!(
                    "mpibench tune knows no collective '{name}' (it tunes {})",
                    names()
                ))
            }
        }
    }
    if colls.is_empty() {
        return usage(&format!(
            "mpibench tune needs a collective to tune: {}",
            names()
        ));
    }
    if let Err(e) = crate::units::parse_sizes(&args.sizes) {
        return usage(&e.to_string());
    }
    if args.iter < 5 {
        return usage("--iter must be at least 5: the significance test needs samples");
    }
    if args.np == Some(0) {
        return usage("-n must be at least 1");
    }
    let lib = match library::detect(&comm::library_version(), || {
        std::fs::read_to_string("/proc/self/maps")
            .map_err(|e| format!("cannot read /proc/self/maps: {e}"))
    }) {
        Ok(l) => l,
        Err(msg) => return usage(&msg),
    };
    // The outputs are checked before the first launch, as `mpibench run`'s.
    let rules = rules_path(&args, &lib);
    let mut outputs = vec![crate::files::Output::file("--rules", &rules)];
    if let Some(json) = &args.json {
        outputs.push(crate::files::Output::file("--json", json));
    }
    let exe = std::env::current_exe().unwrap_or_default();
    if let Err(msg) = crate::files::validate(&outputs, &[("running program", exe.as_path())]) {
        return usage(&msg);
    }
    if let Err(msg) = rules_file_ok(&rules) {
        return usage(&msg);
    }
    if let Err(msg) = selectable(&lib.kind, std::env::var("OMPI_MCA_coll").ok().as_deref()) {
        return usage(&msg);
    }
    // A closed stdout ends it before anything runs, quietly (141), as `run`.
    if stdout_gone() {
        return Ok(Outcome::Interrupted {
            signal: libc::SIGPIPE,
        }
        .say(""));
    }
    let dir = match tempfile::Builder::new()
        .prefix("mpibench-tune-")
        .tempdir_in(std::env::temp_dir())
    {
        Ok(d) => d,
        Err(e) => {
            return Ok(Outcome::MpiStartFailed.say(&format!(
                "cannot create a temporary directory in '{}' (TMPDIR): {e}",
                std::env::temp_dir().display()
            )))
        }
    };
    let watcher = watch_signals();
    let result = tune(&args, &lib, &colls, dir.path());
    drop(dir);
    drop(watcher);
    let sig = SIGNAL.load(Ordering::SeqCst);
    if sig != 0 {
        // The running launch ended itself (it got the signal); nothing was
        // written: the old rules file and JSON stay as they were.
        return Ok(Outcome::Interrupted { signal: sig }
            .say(": nothing written (the rules file and the JSON are as they were)"));
    }
    match result {
        Ok(()) => Ok(EXIT_OK),
        Err(Stop { code, msg }) => Ok(match code {
            crate::outcome::EXIT_USAGE => Outcome::Usage.say(&msg),
            crate::outcome::EXIT_LAUNCHER => Outcome::LauncherFailed.say(&msg),
            crate::outcome::EXIT_MPI_START => Outcome::MpiStartFailed.say(&msg),
            _ => Outcome::Error.say(&msg),
        }),
    }
}

/// Why tune stopped: the exit code it ends with (a launch's own code where
/// it is one of the launcher's, MPI's or a usage error) and the line.
#[derive(Debug)]
struct Stop {
    code: i32,
    msg: String,
}

impl From<String> for Stop {
    fn from(msg: String) -> Stop {
        Stop {
            code: crate::outcome::EXIT_ABORTED,
            msg,
        }
    }
}

/// The first signal tune received (0: none), and the launch running then.
static SIGNAL: AtomicI32 = AtomicI32::new(0);
static CHILD: AtomicI32 = AtomicI32::new(0);

/// SIGINT, SIGTERM and SIGHUP (unless ignored, as under nohup) reach the
/// running launch, which ends its launcher and ranks itself; tune then
/// ends with 128+N. The returned handle stops watching when dropped.
fn watch_signals() -> Option<signal_hook::iterator::Handle> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let wanted = crate::signals::not_ignored(&[SIGINT, SIGTERM, SIGHUP]);
    let mut signals = signal_hook::iterator::Signals::new(wanted).ok()?;
    let handle = signals.handle();
    crate::sys::spawn(move || {
        for sig in signals.forever() {
            let _ = SIGNAL.compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst);
            let child = CHILD.load(Ordering::SeqCst);
            if child > 0 {
                crate::sys::kill(child, sig);
            }
        }
    });
    Some(handle)
}

/// Stdout is closed, or a pipe whose reader has gone (`| head` that ended):
/// the table could not be printed.
fn stdout_gone() -> bool {
    let (n, revents) = crate::sys::poll_fd(1, libc::POLLOUT, 0);
    crate::files::stdout_closed_at_start()
        || (n > 0 && revents & (libc::POLLERR | libc::POLLNVAL) != 0)
}

/// `--rules` must be a file the library can read back: not stdout, and
/// where it exists, a regular file (a FIFO, a device or a directory is
/// refused before the first launch).
fn rules_file_ok(path: &Path) -> Result<(), String> {
    if path.as_os_str() == "-" || crate::files::is_stdout(path) {
        return Err(format!(
            "--rules '{}': the rules file must be a file the library can read, not stdout",
            path.display()
        ));
    }
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => Err(format!(
            "--rules '{}' is not a regular file: the library reads the rules from it",
            path.display()
        )),
        _ => Ok(()),
    }
}

/// Whether the library can select the algorithms tune measures: Open MPI's
/// coll_tuned must not be left out by `OMPI_MCA_coll`.
fn selectable(kind: &Kind, coll: Option<&str>) -> Result<(), String> {
    let (Kind::OpenMpi, Some(list)) = (kind, coll.map(str::trim)) else {
        return Ok(());
    };
    if list.is_empty() {
        return Ok(());
    }
    let (excluding, names) = match list.strip_prefix('^') {
        Some(rest) => (true, rest),
        None => (false, list),
    };
    let has = names.split(',').any(|n| n.trim() == "tuned");
    if has == excluding {
        return Err(format!(
            "OMPI_MCA_coll='{list}' leaves out coll_tuned, whose algorithms mpibench tune chooses: unset it, or include tuned"
        ));
    }
    Ok(())
}

fn names() -> String {
    let v: Vec<&str> = library::COLLS.iter().map(|c| c.name).collect();
    v.join(", ")
}

/// The library's rules file format and how a launch loads it.
fn load_env(kind: &Kind, file: &Path) -> Vec<(&'static str, String)> {
    let f = file.display().to_string();
    match kind {
        Kind::OpenMpi => vec![
            ("OMPI_MCA_coll_tuned_use_dynamic_rules", "1".into()),
            ("OMPI_MCA_coll_tuned_dynamic_rules_filename", f),
        ],
        Kind::Mpich { .. } => vec![("MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE", f)],
    }
}

/// The variables of [`load_env`], which the default launch must not see.
const LOAD_VARS: &[&str] = &[
    "OMPI_MCA_coll_tuned_use_dynamic_rules",
    "OMPI_MCA_coll_tuned_dynamic_rules_filename",
    "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE",
];

/// The launches of one tuning: each one `mpibench run` of this binary.
struct Launches<'a> {
    args: &'a Args,
    lib: &'a Library,
    dir: PathBuf,
    count: usize,
    /// What the first launch's context said of ranks sharing cores
    /// (`report::table::shared_cores_line`): the choices then rest on
    /// time-sliced figures.
    shared_cores: Option<String>,
}

impl Launches<'_> {
    /// One launch of the collectives' IMB benchmarks, with `rules` loaded
    /// (None: the library's defaults): the samples of its `--raw` file.
    fn run(&mut self, colls: &[&Coll], rules: Option<&Path>, what: &str) -> Result<Samples, Stop> {
        if SIGNAL.load(Ordering::SeqCst) != 0 {
            return Err(format!("{what}: interrupted").into());
        }
        if stdout_gone() {
            let _ = SIGNAL.compare_exchange(0, libc::SIGPIPE, Ordering::SeqCst, Ordering::SeqCst);
            return Err(format!("{what}: stdout is closed").into());
        }
        self.count += 1;
        let raw = self.dir.join(format!("launch{}.csv", self.count));
        let json = self.dir.join(format!("launch{}.json", self.count));
        eprintln!("mpibench tune: launch {}: {what}", self.count);
        let exe = std::env::current_exe()
            .map_err(|e| Stop::from(format!("cannot find this program: {e}")))?;
        let mut cmd = Command::new(exe);
        cmd.args(["run", "--suite", "imb"])
            .args(colls.iter().map(|c| c.name))
            .args(["--sizes", &self.args.sizes, "--timing", "per-call"])
            .args(["--iter", &self.args.iter.to_string(), "--raw"])
            .arg(&raw)
            .arg("--json")
            .arg(&json)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if let Some(n) = self.args.np {
            cmd.args(["-n", &n.to_string()]);
        }
        if let Some(m) = &self.args.mpiexec {
            cmd.args(["--mpiexec", m]);
        }
        for v in LOAD_VARS {
            cmd.env_remove(v);
        }
        if let Some(file) = rules {
            cmd.envs(load_env(&self.lib.kind, file));
        }
        // Its own process group (a Ctrl-C reaches it through tune), and
        // SIGTERM if tune dies: a launch never outlives tune.
        crate::sys::launch_as_child(&mut cmd, std::process::id() as i32, libc::SIGTERM, 143);
        let child = cmd
            .spawn()
            .map_err(|e| Stop::from(format!("cannot start mpibench run: {e}")))?;
        CHILD.store(child.id() as i32, Ordering::SeqCst);
        // A signal that came while it started.
        let sig = SIGNAL.load(Ordering::SeqCst);
        if sig != 0 {
            crate::sys::kill(child.id() as i32, sig);
        }
        let out = child.wait_with_output();
        CHILD.store(0, Ordering::SeqCst);
        let out = out.map_err(|e| Stop::from(format!("{what}: {e}")))?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            let last = err
                .lines()
                .map(str::trim)
                .rfind(|l| !l.is_empty() && !l.starts_with("mpibench: ["))
                .unwrap_or("no message");
            let last = last.strip_prefix("error: ").unwrap_or(last);
            // The launcher's, MPI's and usage failures keep their codes.
            let code = match out.status.code() {
                Some(c @ (2 | 4 | 5)) => c,
                _ => crate::outcome::EXIT_ABORTED,
            };
            return Err(Stop {
                code,
                msg: format!("{what}: the launch failed: {last}"),
            });
        }
        if self.count == 1 {
            self.shared_cores = std::fs::read_to_string(&json)
                .ok()
                .and_then(|t| serde_json::from_str::<crate::results::Report>(&t).ok())
                .and_then(|r| crate::report::table::shared_cores_line(&r));
        }
        let text = std::fs::read_to_string(&raw)
            .map_err(|e| Stop::from(format!("{what}: cannot read '{}': {e}", raw.display())))?;
        Ok(select::read_raw(&text).map_err(|e| format!("{what}: {e}"))?)
    }
}

/// The rules of `colls` at the measured points: `choice` of each point.
fn rules_of(
    colls: &[&'static Coll],
    points: &[Point],
    choice: impl Fn(&Point) -> Choice,
) -> Vec<CollRules> {
    colls
        .iter()
        .map(|c| {
            let mut counts: BTreeMap<usize, Vec<(u64, Choice)>> = BTreeMap::new();
            for pt in points.iter().filter(|p| p.0 == c.name) {
                counts.entry(pt.1).or_default().push((pt.2, choice(pt)));
            }
            for v in counts.values_mut() {
                v.sort_by_key(|(b, _)| *b);
            }
            CollRules {
                coll: c,
                counts: counts.into_iter().collect(),
            }
        })
        .collect()
}

/// The library's rules file.
fn rules_text(lib: &Library, rules: &[CollRules], header: &str) -> Result<String, String> {
    Ok(match &lib.kind {
        Kind::OpenMpi => rules::open_mpi(rules, header),
        Kind::Mpich { defaults, .. } => rules::mpich(rules, defaults)?,
    })
}

/// Writes a rules file into tune's own temporary directory (the launches
/// read it there).
fn write_rules(
    lib: &Library,
    rules: &[CollRules],
    path: &Path,
    header: &str,
) -> Result<String, String> {
    let text = rules_text(lib, rules, header)?;
    std::fs::write(path, &text).map_err(|e| format!("cannot write '{}': {e}", path.display()))?;
    Ok(text)
}

/// Writes an output through the safe writer (atomic replace, `-` for
/// stdout, special files in place).
fn install(path: &Path, bytes: &[u8]) -> Result<(), String> {
    crate::files::write_file(path, bytes, true).map_err(|e| format!("{e:#}"))
}

/// The rules file to write: `--rules`, or the library's default name.
fn rules_path(args: &Args, lib: &Library) -> PathBuf {
    let default_name = match lib.kind {
        Kind::OpenMpi => "mpibench-tune.conf",
        Kind::Mpich { .. } => "mpibench-tune.json",
    };
    args.rules
        .clone()
        .unwrap_or_else(|| PathBuf::from(default_name))
}

fn tune(args: &Args, lib: &Library, colls: &[&'static Coll], dir: &Path) -> Result<(), Stop> {
    let vars = comm::mpit::control_variables()?;
    let mut algs: Vec<Vec<Algorithm>> = Vec::new();
    for c in colls {
        let a = library::algorithms(&lib.kind, &vars, c)?;
        if a.is_empty() {
            return Err(format!("the library offers no algorithm of {} to choose", c.name).into());
        }
        algs.push(a);
    }
    let path = rules_path(args, lib);
    let path = std::path::absolute(&path)
        .map_err(|e| Stop::from(format!("cannot resolve '{}': {e}", path.display())))?;
    let mut launches = Launches {
        args,
        lib,
        dir: dir.to_path_buf(),
        count: 0,
        shared_cores: None,
    };
    // The rules are checked from a candidate in the temporary directory;
    // the file at --rules is replaced (atomically) only once they passed,
    // and the JSON after it: an interruption or a failure leaves both as
    // they were.
    let (outcome, text) = measure(&mut launches, lib, colls, &algs, &path)?;
    let json = match &args.json {
        Some(_) => Some(
            serde_json::to_string_pretty(&table::json(lib, colls, &algs, &outcome, &path))
                .map_err(|e| e.to_string())?
                + "\n",
        ),
        None => None,
    };
    install(&path, text.as_bytes())?;
    if let (Some(p), Some(j)) = (&args.json, &json) {
        install(p, j.as_bytes())?;
    }
    // Stdout carries one format: the JSON when it goes there.
    if !args.json.as_deref().is_some_and(crate::files::is_stdout) {
        crate::output::print(&table::render(lib, colls, &algs, &outcome, &path))
            .map_err(|e| format!("{e:#}"))?;
    }
    Ok(())
}

/// Everything measured and decided.
pub struct Tuning {
    pub before: Samples,
    /// Per collective (as `colls`), per algorithm (as its list), the samples.
    pub per_alg: Vec<Vec<Result<Samples, String>>>,
    pub picks: BTreeMap<Point, select::Pick>,
    /// The points whose choice the check reverted: the p-value and the
    /// ratio to the default's median, with the rule loaded.
    pub reverted: BTreeMap<Point, (f64, f64)>,
    pub after: Samples,
    pub load: Vec<(&'static str, String)>,
    /// Said when the launches' ranks shared cores (see `Launches`).
    pub shared_cores: Option<String>,
}

/// The defaults, each algorithm on its own, the defaults again, the picks,
/// and the rules file they make, checked.
fn measure(
    launches: &mut Launches,
    lib: &Library,
    colls: &[&'static Coll],
    algs: &[Vec<Algorithm>],
    path: &Path,
) -> Result<(Tuning, String), Stop> {
    let first = launches.run(colls, None, "the library's defaults")?;
    let points: Vec<Point> = first.keys().cloned().collect();
    if points.is_empty() {
        return Err(format!(
            "the library's defaults gave no measurement at --sizes {} (a size above the memory limit is skipped: see mpibench run --suite imb {} --sizes {})",
            launches.args.sizes,
            colls.iter().map(|c| c.name).collect::<Vec<_>>().join(" "),
            launches.args.sizes
        )
        .into());
    }
    let per_alg = each_algorithm(launches, lib, colls, algs, &points)?;
    // The defaults again, after the algorithms: a launch-to-launch drift
    // (a first launch slower than the rest, a machine that got busier) must
    // not make an algorithm look faster. Each point keeps its faster launch.
    let again = launches.run(colls, None, "the library's defaults, again")?;
    let before = select::faster_of(first, again);
    let picks = pick_each(colls, &points, &per_alg, &before);
    let choices = Choices {
        colls,
        algs,
        picks: &picks,
    };
    let (reverted, after, text) = checked_rules(launches, lib, &choices, &points, &before, path)?;
    Ok((
        Tuning {
            before,
            per_alg,
            picks,
            reverted,
            after,
            load: load_env(&lib.kind, path),
            shared_cores: launches.shared_cores.clone(),
        },
        text,
    ))
}

/// Each algorithm of each collective forced by a rules file of its own:
/// per collective, per algorithm, its samples (or why it is left out).
fn each_algorithm(
    launches: &mut Launches,
    lib: &Library,
    colls: &[&'static Coll],
    algs: &[Vec<Algorithm>],
    points: &[Point],
) -> Result<Vec<Vec<Result<Samples, String>>>, Stop> {
    let mut per_alg = Vec::new();
    for (c, list) in colls.iter().zip(algs) {
        let mut v = Vec::new();
        for a in list {
            let file = launches.dir.join(format!("{}-{}.rules", c.lower, a.id));
            let forced = rules_of(&[c], points, |_| Some(a.clone()));
            write_rules(lib, &forced, &file, "mpibench tune: one algorithm")?;
            let what = format!("{} algorithm {} {}", c.name, a.id, a.name);
            let r = launches.run(&[c], Some(&file), &what);
            if SIGNAL.load(Ordering::SeqCst) != 0 {
                return Err(format!("{what}: interrupted").into());
            }
            let r = r.map_err(|e| {
                eprintln!("mpibench tune: {} (the algorithm is left out)", e.msg);
                e.msg
            });
            v.push(r);
        }
        per_alg.push(v);
    }
    Ok(per_alg)
}

/// Per point, the pick among its collective's algorithms against the defaults.
fn pick_each(
    colls: &[&'static Coll],
    points: &[Point],
    per_alg: &[Vec<Result<Samples, String>>],
    before: &Samples,
) -> BTreeMap<Point, select::Pick> {
    let mut picks = BTreeMap::new();
    for pt in points {
        let Some(ci) = colls.iter().position(|c| c.name == pt.0) else {
            continue;
        };
        let cand: Vec<&[f64]> = per_alg[ci]
            .iter()
            .map(|r| {
                r.as_ref()
                    .ok()
                    .and_then(|s| s.get(pt))
                    .map_or(&[][..], |v| v.as_slice())
            })
            .collect();
        picks.insert(pt.clone(), select::pick(&before[pt], &cand));
    }
    picks
}

/// The points whose choice the check reverted: the p-value and the ratio
/// to the default's median.
type Reverted = BTreeMap<Point, (f64, f64)>;

/// The collectives, their algorithms and the picks: what the rules file
/// chooses at a point.
struct Choices<'a> {
    colls: &'a [&'static Coll],
    algs: &'a [Vec<Algorithm>],
    picks: &'a BTreeMap<Point, select::Pick>,
}

impl Choices<'_> {
    /// The algorithm chosen at `pt`, unless the check reverted it.
    fn at(&self, pt: &Point, reverted: &Reverted) -> Choice {
        let ci = self.colls.iter().position(|c| c.name == pt.0)?;
        let p = self.picks.get(pt)?;
        let i = p
            .fastest
            .filter(|_| p.chosen && !reverted.contains_key(pt))?;
        Some(self.algs[ci][i].clone())
    }
}

/// The rules file's first lines.
fn rules_header(lib: &Library, points: &[Point]) -> String {
    format!(
        "mpibench tune {}: {}\nsizes {}; the library's default wherever no algorithm was significantly faster",
        env!("CARGO_PKG_VERSION"),
        lib.name(),
        points
            .iter()
            .map(|p| p.2)
            .collect::<std::collections::BTreeSet<_>>()
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(",")
    )
}

/// The rules file of the choices, run and checked: a point where it runs
/// significantly slower than the defaults goes back to the default, and
/// the file is run again, until no point reverts. The reverted points, the
/// last run's samples and the file's text.
fn checked_rules(
    launches: &mut Launches,
    lib: &Library,
    choices: &Choices<'_>,
    points: &[Point],
    before: &Samples,
    path: &Path,
) -> Result<(Reverted, Samples, String), Stop> {
    let mut header = rules_header(lib, points);
    if let Some(l) = &launches.shared_cores {
        header.push_str(&format!(
            "\n{l}: the choices may not hold with one rank per core"
        ));
    }
    let mut reverted = BTreeMap::new();
    let candidate = launches.dir.join(
        path.file_name()
            .map_or_else(|| "rules".into(), |n| n.to_os_string()),
    );
    loop {
        let rules = rules_of(choices.colls, points, |pt| choices.at(pt, &reverted));
        let text = write_rules(lib, &rules, &candidate, &header)?;
        let after = launches
            .run(choices.colls, Some(&candidate), "with the rules file")
            .map_err(|e| Stop {
                code: e.code,
                msg: format!(
                    "the library did not accept the rules for '{}': {}",
                    path.display(),
                    e.msg
                ),
            })?;
        let mut more = false;
        for pt in points {
            if choices.at(pt, &reverted).is_none() {
                continue;
            }
            let slower = after.get(pt).map_or(Some((1.0, f64::NAN)), |a| {
                let ratio = select::median(a) / select::median(&before[pt]);
                select::slower(a, &before[pt]).map(|p| (p, ratio))
            });
            if let Some(r) = slower {
                reverted.insert(pt.clone(), r);
                more = true;
            }
        }
        if !more {
            return Ok((reverted, after, text));
        }
    }
}
