//! Launcher detection and self-launch: `mpibench run -n 4` without mpiexec
//! re-executes itself through the mpiexec matching the linked MPI library.

use std::process::Command;

use anyhow::{Context, Result};

/// Where app asks (the rank's side of its launch lives in `link`).
pub use crate::link::{env_rank, self_launched};

/// Environment variables that MPI launchers set in every process they start.
const LAUNCHER_VARS: &[&str] = &[
    "OMPI_COMM_WORLD_SIZE", // Open MPI mpirun/mpiexec
    "PMI_RANK",             // MPICH Hydra, Intel MPI, PMI-1/2 launchers
    "PMI_SIZE",
    "PMIX_RANK",         // PMIx (Open MPI 5, prrte, srun --mpi=pmix)
    "MPI_LOCALRANKID",   // Intel MPI / Hydra
    "MPIBENCH_LAUNCHED", // our own re-launch
];

/// True when an MPI launcher (mpiexec, mpirun, srun, ...) started this process.
pub fn launched() -> bool {
    LAUNCHER_VARS.iter().any(|v| std::env::var_os(v).is_some())
        || crate::slurm::task_step().is_some()
}

/// Cores available to this process.
pub fn cores() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavour {
    OpenMpi,
    Mpich,
    Other,
}

pub fn flavour(library_version: &str) -> Flavour {
    if library_version.contains("Open MPI") {
        Flavour::OpenMpi
    } else if library_version.contains("MPICH") {
        Flavour::Mpich
    } else {
        Flavour::Other
    }
}

fn in_path(name: &str) -> bool {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
        .unwrap_or(false)
}

/// The mpiexec that belongs to the linked library (Debian installs both side by side).
pub fn default_mpiexec(f: Flavour) -> String {
    let candidates: &[&str] = match f {
        Flavour::OpenMpi => &["mpiexec.openmpi", "mpiexec"],
        Flavour::Mpich => &["mpiexec.mpich", "mpiexec.hydra", "mpiexec"],
        Flavour::Other => &["mpiexec"],
    };
    candidates
        .iter()
        .find(|c| in_path(c))
        .unwrap_or(&"mpiexec")
        .to_string()
}

/// The launcher command line for `np` local ranks.
#[cfg(test)]
pub fn launcher_args(f: Flavour, np: usize, cores: usize) -> Vec<String> {
    launch_args(f, np, cores, None, &Binding::Default)
}

/// One host of `--hosts` / `--hostfile` and its slots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Host {
    pub name: String,
    pub slots: usize,
}

/// Who decides the binding of the ranks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Binding {
    /// `--bind-to POLICY`, passed on in the launcher's syntax.
    Given(String),
    /// The environment sets a policy the launcher reads itself
    /// (OMPI_MCA_hwloc_base_binding_policy, HYDRA_BINDING): nothing is added.
    Environment,
    /// mpibench's default: bind to cores when the ranks per host fit them.
    Default,
}

impl Binding {
    /// The user's `--bind-to`, else a policy in the environment, else the default.
    pub fn choose(
        given: Option<&str>,
        f: Flavour,
        env: impl Fn(&str) -> Option<String>,
    ) -> Binding {
        if let Some(p) = given.map(str::trim).filter(|p| !p.is_empty()) {
            return Binding::Given(p.to_string());
        }
        let var = match f {
            Flavour::OpenMpi => "OMPI_MCA_hwloc_base_binding_policy",
            Flavour::Mpich => "HYDRA_BINDING",
            Flavour::Other => return Binding::Default,
        };
        if env(var).is_some_and(|v| !v.trim().is_empty()) {
            Binding::Environment
        } else {
            Binding::Default
        }
    }
}

/// The launcher command line for `np` ranks on `hosts` (None: this host),
/// in the launcher's own syntax.
pub fn launch_args(
    f: Flavour,
    np: usize,
    cores: usize,
    hosts: Option<&[Host]>,
    binding: &Binding,
) -> Vec<String> {
    let mut a = vec!["-n".to_string(), np.to_string()];
    // Not Open MPI's --quiet: it also drops the library's own explanation
    // when MPI cannot start ("A requested component was not found ...");
    // the stderr relay drops the "job aborted" banners of a failing job
    // instead, and keeps the explanation (`mpi_words`).
    if let Some(h) = hosts {
        let list = h
            .iter()
            .map(|h| format!("{}:{}", h.name, h.slots))
            .collect::<Vec<_>>()
            .join(",");
        a.push(
            if f == Flavour::Mpich {
                "-hosts"
            } else {
                "--host"
            }
            .into(),
        );
        a.push(list);
    }
    // Ranks on the busiest host: np spread over the slots in order.
    let per_host = match hosts {
        None => np,
        Some(h) => {
            let mut left = np;
            h.iter()
                .map(|h| {
                    let n = h.slots.min(left);
                    left -= n;
                    n
                })
                .max()
                .unwrap_or(np)
        }
    };
    let bind = if f == Flavour::Mpich {
        "-bind-to"
    } else {
        "--bind-to"
    };
    match (f, binding) {
        (Flavour::Other, _) | (_, Binding::Environment) => {}
        (_, Binding::Given(p)) => a.extend([bind.to_string(), p.clone()]),
        (_, Binding::Default) if per_host <= cores => a.extend([bind.to_string(), "core".into()]),
        (_, Binding::Default) => {}
    }
    // More local ranks than cores (with hosts, the slots given are the limit).
    if f == Flavour::OpenMpi && hosts.is_none() && np > cores {
        a.push("--oversubscribe".into());
    }
    a
}

/// `--hosts`: HOST or HOST:SLOTS, comma-separated.
pub fn parse_hosts(list: &str) -> Result<Vec<Host>, String> {
    let mut out: Vec<Host> = Vec::new();
    for item in list.split(',') {
        let item = item.trim();
        if item.is_empty() {
            return Err(format!(
                "--hosts '{list}' has an empty entry (expected e.g. node1:2,node2:2)"
            ));
        }
        let (name, slots) = match item.rsplit_once(':') {
            Some((n, k)) => (
                n,
                parse_slots(k).map_err(|e| format!("--hosts '{item}': {e}"))?,
            ),
            None => (item, 1),
        };
        add_host(&mut out, name, slots).map_err(|e| format!("--hosts: {e}"))?;
    }
    Ok(out)
}

/// `--hostfile`: one host per line, `HOST`, `HOST:N` (MPICH) or
/// `HOST slots=N` (Open MPI, other keys ignored); `#` starts a comment.
pub fn parse_hostfile(text: &str, path: &str) -> Result<Vec<Host>, String> {
    let mut out: Vec<Host> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let at = |e: String| format!("--hostfile {path}, line {}: {e}", i + 1);
        let mut words = line.split_whitespace();
        let first = words.next().unwrap_or_default();
        let (name, mut slots) = match first.rsplit_once(':') {
            Some((n, k)) => (n, parse_slots(k).map_err(at)?),
            None => (first, 1),
        };
        for w in words {
            if let Some(k) = w.strip_prefix("slots=") {
                slots = parse_slots(k).map_err(at)?;
            }
        }
        add_host(&mut out, name, slots).map_err(at)?;
    }
    if out.is_empty() {
        return Err(format!("--hostfile {path} names no host"));
    }
    Ok(out)
}

fn parse_slots(k: &str) -> Result<usize, String> {
    k.trim()
        .parse::<usize>()
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("'{k}' is not a positive number of slots"))
}

fn add_host(out: &mut Vec<Host>, name: &str, slots: usize) -> Result<(), String> {
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'));
    if !ok {
        return Err(format!("'{name}' is not a host name"));
    }
    match out.iter_mut().find(|h| h.name == name) {
        Some(h) => h.slots += slots,
        None => out.push(Host {
            name: name.to_string(),
            slots,
        }),
    }
    Ok(())
}

/// A command line as a shell would take it back (single quotes where needed).
pub fn shell_words(words: &[String]) -> String {
    words
        .iter()
        .map(|w| {
            if !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./:=,@%+".contains(c))
            {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// More ranks per core than this is refused without `--force-np`
/// (a mistyped `-n 1000000` would otherwise swamp the machine).
pub const MAX_RANKS_PER_CORE: usize = 64;

/// Exit code of a usage error (as `app::EXIT_USAGE`).
const EXIT_USAGE: i32 = 2;

/// What `mpibench run` needs to launch itself.
pub struct Relaunch<'a> {
    pub np: usize,
    /// `--mpiexec` / `MPIBENCH_MPIEXEC`; empty means unset.
    pub mpiexec: Option<&'a str>,
    pub library_version: &'a str,
    /// `--force-np`: allow more than [`MAX_RANKS_PER_CORE`] ranks per core.
    pub force_np: bool,
    /// `--json`, named in the interruption message.
    pub json: Option<&'a std::path::Path>,
    /// `--hosts` / `--hostfile`, parsed (None: this host only).
    pub hosts: Option<Vec<Host>>,
    /// `--bind-to`.
    pub bind_to: Option<&'a str>,
    /// `--dry-run`: print the command, start nothing.
    pub dry_run: bool,
    /// `--timeout` (seconds): the start deadline is at least this long.
    pub timeout: Option<f64>,
}

/// Re-executes this program under mpiexec with `np` ranks and supervises it
/// (see `supervise`); returns mpibench's exit code. Refuses, in one line and
/// before starting anything: absurd rank counts (2), a launcher of another
/// MPI (2), an Open MPI launch whose TMPDIR is not writable (5).
pub fn relaunch(r: &Relaunch) -> Result<i32> {
    relaunch_with(r, &[])
}

/// [`relaunch`] with environment variables of its own for the ranks (one
/// launch of `--launches N` tells them where its results go).
pub fn relaunch_with(r: &Relaunch, extra_env: &[(&str, &str)]) -> Result<i32> {
    let f = flavour(r.library_version);
    let exe = std::env::current_exe().context("cannot find the mpibench executable")?;
    let launcher = r
        .mpiexec
        .filter(|m| !m.trim().is_empty())
        .map(str::to_string)
        .unwrap_or_else(|| default_mpiexec(f));
    if let Err(msg) = check_np(r.np, cores(), r.force_np) {
        eprintln!("error: {msg}");
        return Ok(EXIT_USAGE);
    }
    if let Some(h) = &r.hosts {
        let slots: usize = h.iter().map(|h| h.slots).sum();
        if r.np > slots {
            eprintln!(
                "error: -n {} is more than the {slots} slots of the hosts given ({}); give more slots (HOST:N) or fewer ranks",
                r.np,
                h.iter().map(|h| format!("{}:{}", h.name, h.slots)).collect::<Vec<_>>().join(",")
            );
            return Ok(EXIT_USAGE);
        }
    }
    if let Err(msg) = check_launcher_flavour(&launcher, f, r.library_version) {
        eprintln!("error: {msg}");
        return Ok(EXIT_USAGE);
    }
    if f == Flavour::OpenMpi {
        if let Err(msg) = check_tmpdir() {
            eprintln!("error: {msg}");
            return Ok(crate::outcome::EXIT_MPI_START);
        }
    }
    let binding = Binding::choose(r.bind_to, f, |v| std::env::var(v).ok());
    let args = launch_args(f, r.np, cores(), r.hosts.as_deref(), &binding);
    // The ranks get the same command line, less what only the launch needs.
    let forwarded: Vec<std::ffi::OsString> = std::env::args_os()
        .skip(1)
        .filter(|a| a != "--dry-run")
        .collect();
    let mut env = vec![("MPIBENCH_LAUNCHED", "1")];
    env.extend(extra_env.iter().copied());
    if f == Flavour::OpenMpi && crate::sys::is_root() {
        env.push(("OMPI_ALLOW_RUN_AS_ROOT", "1"));
        env.push(("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"));
    }
    if r.dry_run {
        let mut words: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        words.push(launcher.clone());
        words.extend(args);
        words.push(exe.to_string_lossy().into_owned());
        // One launch of `--launches N` is the run without it (the parent
        // runs it N times and combines them).
        let mut skip = false;
        for a in forwarded.iter().map(|a| a.to_string_lossy().into_owned()) {
            if std::mem::take(&mut skip) {
                continue;
            }
            if a == "--launches" {
                skip = true;
                continue;
            }
            if a.starts_with("--launches=") {
                continue;
            }
            words.push(a);
        }
        println!("{}", shell_words(&words));
        return Ok(0);
    }
    launcher_stack();
    let mut cmd = Command::new(&launcher);
    cmd.args(&args);
    cmd.arg(&exe).args(&forwarded);
    cmd.envs(env.iter().copied());
    Ok(crate::supervise::run(
        cmd,
        &crate::supervise::Launcher {
            name: &launcher,
            json: r.json,
            start_deadline: crate::supervise::start_deadline(r.timeout),
            death_signal: if f == Flavour::Mpich {
                libc::SIGTERM
            } else {
                libc::SIGKILL
            },
        },
    ))
}

/// The stack the launcher and the ranks' MPI threads start with, at least.
const LAUNCHER_STACK: libc::rlim_t = 8 << 20;

/// Raises a small soft stack limit (`ulimit -s 64`) to [`LAUNCHER_STACK`]
/// (within the hard limit) before the launcher starts: mpiexec and the MPI
/// threads of the ranks run on the limit's stack and crash below it, while
/// mpibench itself runs on a stack of its own size whatever the limit.
fn launcher_stack() {
    crate::sys::raise_soft_limit(libc::RLIMIT_STACK, LAUNCHER_STACK);
}

/// "Open MPI v4.1.4" or "MPICH 4.0.2" out of `MPI_Get_library_version`'s text.
pub fn short_library(library_version: &str) -> String {
    if let Some(v) = library_version.strip_prefix("MPICH Version:") {
        return format!("MPICH {}", v.split_whitespace().next().unwrap_or(""));
    }
    library_version
        .split(',')
        .next()
        .unwrap_or(library_version)
        .trim()
        .to_string()
}

/// Refuses more than [`MAX_RANKS_PER_CORE`] ranks per core unless forced.
pub fn check_np(np: usize, cores: usize, force: bool) -> Result<(), String> {
    let most = MAX_RANKS_PER_CORE.saturating_mul(cores.max(1));
    if np > most && !force {
        return Err(format!(
            "-n {np} is more than {MAX_RANKS_PER_CORE} ranks per core ({most} on the {cores} cores here); add --force-np to start them anyway"
        ));
    }
    Ok(())
}

/// How long `LAUNCHER --version` may take.
const VERSION_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Which MPI a launcher belongs to, from its `--version` output (None: cannot tell).
pub fn launcher_flavour(version_output: &str) -> Option<Flavour> {
    if version_output.contains("OpenRTE") || version_output.contains("Open MPI") {
        Some(Flavour::OpenMpi)
    } else if version_output.contains("HYDRA") || version_output.contains("MPICH") {
        Some(Flavour::Mpich)
    } else {
        None
    }
}

/// Which MPI a launcher belongs to by the name the distributions give it
/// (Debian's `mpiexec.openmpi`, `orterun`, `mpiexec.mpich`, `mpiexec.hydra`
/// ...), so that the common case needs no `--version` (about 30 ms);
/// None for a name that could be either (`mpiexec`, `mpirun`, a script).
pub fn named_flavour(launcher: &str) -> Option<Flavour> {
    let name = std::path::Path::new(launcher).file_name()?.to_str()?;
    match name {
        "mpiexec.openmpi" | "mpirun.openmpi" | "orterun" | "prterun" => Some(Flavour::OpenMpi),
        "mpiexec.mpich" | "mpirun.mpich" | "mpiexec.hydra" => Some(Flavour::Mpich),
        _ => None,
    }
}

/// Runs `launcher --version` (bounded in time, no input); its output. It
/// runs in a process group of its own, which is killed when it ends or
/// times out, so that nothing it started (a launcher script's children)
/// outlives it or keeps its output open.
fn version_output(launcher: &str) -> Option<String> {
    use std::os::unix::process::CommandExt;
    let mut child = Command::new(launcher)
        .arg("--version")
        .process_group(0)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    let group = child.id() as i32;
    let kill_group = || crate::sys::kill(-group, libc::SIGKILL);
    let end = std::time::Instant::now() + VERSION_TIMEOUT;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if std::time::Instant::now() < end => {
                std::thread::sleep(std::time::Duration::from_millis(1))
            }
            _ => {
                kill_group();
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    kill_group();
    let out = child.wait_with_output().ok()?;
    Some(String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr))
}

/// Refuses a launcher that belongs to the other MPI: its ranks would each
/// be a world of one.
fn check_launcher_flavour(launcher: &str, linked: Flavour, library: &str) -> Result<(), String> {
    let Some(theirs) = named_flavour(launcher).or_else(|| {
        version_output(launcher)
            .as_deref()
            .and_then(launcher_flavour)
    }) else {
        return Ok(()); // cannot tell: a failure to start shows up later
    };
    if linked != Flavour::Other && theirs != linked {
        let name = |f: Flavour| match f {
            Flavour::OpenMpi => "Open MPI",
            _ => "MPICH (Hydra)",
        };
        return Err(format!(
            "the launcher '{launcher}' belongs to {}, but mpibench was built with {}; use {} or rebuild mpibench against {}",
            name(theirs),
            short_library(library),
            default_mpiexec(linked),
            name(theirs)
        ));
    }
    Ok(())
}

/// Open MPI's mpiexec creates its session directory under TMPDIR and fails
/// with several lines of internal errors when it cannot.
fn check_tmpdir() -> Result<(), String> {
    let dir = std::env::var_os("TMPDIR")
        .filter(|d| !d.is_empty())
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| "/tmp".into());
    let probe = dir.join(format!(".mpibench-tmpdir-probe-{}", std::process::id()));
    match std::fs::create_dir(&probe) {
        Ok(()) => {
            let _ = std::fs::remove_dir(&probe);
            Ok(())
        }
        Err(e) => Err(format!(
            "the temporary directory '{}' is not writable ({e}): Open MPI's mpiexec keeps its session directory there; set TMPDIR to a writable directory",
            dir.display()
        )),
    }
}

/// Under a launcher: the world must be as large as the launcher says. A
/// world of 1 where the launcher started N > 1 processes means the launcher
/// belongs to another MPI library (each process then runs alone).
pub fn check_world(world_size: usize, library_version: &str) -> Result<(), String> {
    let (launcher, n) = match launcher_size() {
        Some(x) => x,
        None => return Ok(()),
    };
    if world_size == 1 && n > 1 {
        return Err(format!(
            "the launcher ({launcher}) started {n} processes, but each is alone in its MPI world: mpibench was built with {}, which does not belong to that launcher; start it with the launcher of that library",
            short_library(library_version)
        ));
    }
    Ok(())
}

/// The launcher seen in the environment and the process count it announces.
fn launcher_size() -> Option<(&'static str, usize)> {
    let get = |v: &str| std::env::var(v).ok()?.parse::<usize>().ok();
    if let Some(n) = get("OMPI_COMM_WORLD_SIZE") {
        return Some(("Open MPI's mpiexec", n));
    }
    if let Some(n) = get("PMI_SIZE") {
        return Some(("an MPICH/Hydra-compatible launcher (PMI)", n));
    }
    if let Some(n) = get("SLURM_NTASKS").filter(|_| std::env::var_os("SLURM_STEP_ID").is_some()) {
        return Some(("Slurm's srun", n));
    }
    None
}

#[cfg(test)]
mod tests {
    #[test]
    fn distribution_names_tell_the_launcher_flavour() {
        assert_eq!(named_flavour("mpiexec.openmpi"), Some(Flavour::OpenMpi));
        assert_eq!(named_flavour("/usr/bin/orterun"), Some(Flavour::OpenMpi));
        assert_eq!(named_flavour("mpiexec.mpich"), Some(Flavour::Mpich));
        assert_eq!(named_flavour("/opt/x/mpiexec.hydra"), Some(Flavour::Mpich));
        for ambiguous in ["mpiexec", "mpirun", "/tmp/fake-mpiexec", "srun", ""] {
            assert_eq!(named_flavour(ambiguous), None, "{ambiguous}");
        }
        let err = check_launcher_flavour("mpiexec.mpich", Flavour::OpenMpi, "Open MPI v4.1.4")
            .expect_err("the other MPI's launcher");
        assert!(err.contains("belongs to MPICH"), "{err}");
        assert!(check_launcher_flavour("mpiexec.openmpi", Flavour::OpenMpi, "Open MPI").is_ok());
    }

    use super::*;

    #[test]
    fn launcher_flags() {
        assert_eq!(
            launcher_args(Flavour::OpenMpi, 4, 2),
            vec!["-n", "4", "--oversubscribe"]
        );
        assert_eq!(
            launcher_args(Flavour::OpenMpi, 2, 2),
            vec!["-n", "2", "--bind-to", "core"]
        );
        assert_eq!(
            launcher_args(Flavour::Mpich, 2, 4),
            vec!["-n", "2", "-bind-to", "core"]
        );
        assert_eq!(launcher_args(Flavour::Mpich, 8, 4), vec!["-n", "8"]);
        assert_eq!(
            flavour("Open MPI v4.1.4, package: Debian"),
            Flavour::OpenMpi
        );
        assert_eq!(flavour("MPICH Version: 4.0.2"), Flavour::Mpich);
    }

    #[test]
    fn hosts_in_each_launchers_syntax() {
        let h = parse_hosts("node1:2,node2:2").unwrap();
        assert_eq!(h.len(), 2);
        let d = Binding::Default;
        assert_eq!(
            launch_args(Flavour::OpenMpi, 4, 2, Some(&h), &d),
            vec!["-n", "4", "--host", "node1:2,node2:2", "--bind-to", "core"]
        );
        assert_eq!(
            launch_args(Flavour::Mpich, 4, 2, Some(&h), &d),
            vec!["-n", "4", "-hosts", "node1:2,node2:2", "-bind-to", "core"]
        );
        // Three ranks per host do not fit two cores: no binding.
        let big = parse_hosts("a:3,b").unwrap();
        assert_eq!(
            launch_args(Flavour::Mpich, 4, 2, Some(&big), &d),
            vec!["-n", "4", "-hosts", "a:3,b:1"]
        );
        // A policy in the environment wins: nothing added.
        let env = Binding::choose(None, Flavour::OpenMpi, |v| {
            (v == "OMPI_MCA_hwloc_base_binding_policy").then(|| "none".to_string())
        });
        assert_eq!(env, Binding::Environment);
        assert_eq!(
            launch_args(Flavour::OpenMpi, 4, 2, Some(&h), &env),
            vec!["-n", "4", "--host", "node1:2,node2:2"]
        );
        let env = Binding::choose(None, Flavour::Mpich, |v| {
            (v == "HYDRA_BINDING").then(|| "none".into())
        });
        assert_eq!(env, Binding::Environment);
        // And the user's --bind-to wins over both.
        let given = Binding::choose(Some("socket"), Flavour::Mpich, |_| Some("none".into()));
        assert_eq!(
            launch_args(Flavour::Mpich, 2, 2, None, &given),
            vec!["-n", "2", "-bind-to", "socket"]
        );
        assert_eq!(
            launch_args(Flavour::OpenMpi, 4, 2, None, &Binding::Given("none".into())),
            vec!["-n", "4", "--bind-to", "none", "--oversubscribe"]
        );
    }

    #[test]
    fn host_lists_and_files() {
        assert_eq!(
            parse_hosts("a,b:3,a").unwrap(),
            vec![
                Host {
                    name: "a".into(),
                    slots: 2
                },
                Host {
                    name: "b".into(),
                    slots: 3
                }
            ]
        );
        for bad in ["", "a,,b", "a:0", "a:x", "a b", ":2"] {
            assert!(parse_hosts(bad).is_err(), "{bad}");
        }
        let f = "# cluster\nnode1 slots=2 max_slots=4\nnode2:3\n\nnode3  # one slot\n";
        assert_eq!(
            parse_hostfile(f, "h").unwrap(),
            vec![
                Host {
                    name: "node1".into(),
                    slots: 2
                },
                Host {
                    name: "node2".into(),
                    slots: 3
                },
                Host {
                    name: "node3".into(),
                    slots: 1
                }
            ]
        );
        let e = parse_hostfile("node1\nnode2 slots=zero\n", "h").unwrap_err();
        assert!(e.contains("line 2"), "{e}");
        assert!(parse_hostfile("# nothing\n", "h")
            .unwrap_err()
            .contains("no host"));
        assert_eq!(
            shell_words(&["a b".into(), "x".into(), "it's".into()]),
            "'a b' x 'it'\\''s'"
        );
    }

    #[test]
    fn absurd_rank_counts_need_force() {
        assert!(check_np(128, 2, false).is_ok());
        let e = check_np(129, 2, false).unwrap_err();
        assert!(e.contains("--force-np"), "{e}");
        assert!(check_np(1_000_000, 2, true).is_ok());
        assert!(check_np(usize::MAX, usize::MAX, false).is_ok());
    }

    #[test]
    fn launcher_flavour_from_version() {
        assert_eq!(
            launcher_flavour("mpiexec.openmpi (OpenRTE) 4.1.4"),
            Some(Flavour::OpenMpi)
        );
        assert_eq!(
            launcher_flavour("HYDRA build details:\n    Version: 4.0.2"),
            Some(Flavour::Mpich)
        );
        assert_eq!(launcher_flavour(""), None);
        assert_eq!(
            short_library("MPICH Version:\t4.0.2 MPICH Release date: ..."),
            "MPICH 4.0.2"
        );
        assert_eq!(
            short_library("Open MPI v4.1.4, package: Debian OpenMPI"),
            "Open MPI v4.1.4"
        );
    }
}
