//! Launcher detection and self-launch: `mpibench run -n 4` without mpiexec
//! re-executes itself through the mpiexec matching the linked MPI library.

use std::process::Command;

use anyhow::{Context, Result};

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

/// This process's rank according to the launcher's environment (before MPI_Init).
pub fn env_rank() -> usize {
    [
        "OMPI_COMM_WORLD_RANK",
        "PMI_RANK",
        "PMIX_RANK",
        "SLURM_PROCID",
    ]
    .iter()
    .find_map(|v| std::env::var(v).ok()?.parse().ok())
    .unwrap_or(0)
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
pub fn launcher_args(f: Flavour, np: usize, cores: usize) -> Vec<String> {
    let mut a = vec!["-n".to_string(), np.to_string()];
    if f == Flavour::OpenMpi {
        // Keeps Open MPI's multi-line "job aborted" banners off stderr: our own one-line errors suffice.
        a.push("--quiet".into());
    }
    match f {
        Flavour::OpenMpi if np > cores => a.push("--oversubscribe".into()),
        Flavour::OpenMpi => a.extend(["--bind-to".into(), "core".into()]),
        Flavour::Mpich if np <= cores => a.extend(["-bind-to".into(), "core".into()]),
        _ => {}
    }
    a
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
}

/// Re-executes this program under mpiexec with `np` ranks and supervises it
/// (see `supervise`); returns mpibench's exit code. Refuses, in one line and
/// before starting anything: absurd rank counts (2), a launcher of another
/// MPI (2), an Open MPI launch whose TMPDIR is not writable (5).
pub fn relaunch(r: &Relaunch) -> Result<i32> {
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
    if let Err(msg) = check_launcher_flavour(&launcher, f, r.library_version) {
        eprintln!("error: {msg}");
        return Ok(EXIT_USAGE);
    }
    if f == Flavour::OpenMpi {
        if let Err(msg) = check_tmpdir() {
            eprintln!("error: {msg}");
            return Ok(crate::signals::EXIT_MPI_START);
        }
    }
    let mut cmd = Command::new(&launcher);
    cmd.args(launcher_args(f, r.np, cores()));
    cmd.arg(&exe).args(std::env::args_os().skip(1));
    cmd.env("MPIBENCH_LAUNCHED", "1");
    if f == Flavour::OpenMpi && unsafe { libc::geteuid() } == 0 {
        cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1");
        cmd.env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    }
    Ok(crate::supervise::run(
        cmd,
        &crate::supervise::Launcher {
            name: &launcher,
            json: r.json,
        },
    ))
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

/// Runs `launcher --version` (bounded in time, no input); its output.
fn version_output(launcher: &str) -> Option<String> {
    let mut child = Command::new(launcher)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    let end = std::time::Instant::now() + VERSION_TIMEOUT;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if std::time::Instant::now() < end => {
                std::thread::sleep(std::time::Duration::from_millis(10))
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let out = child.wait_with_output().ok()?;
    Some(String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr))
}

/// Refuses a launcher that belongs to the other MPI: its ranks would each
/// be a world of one.
fn check_launcher_flavour(launcher: &str, linked: Flavour, library: &str) -> Result<(), String> {
    let Some(theirs) = version_output(launcher)
        .as_deref()
        .and_then(launcher_flavour)
    else {
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

/// True under Open MPI's mpiexec, where a rank that exits with a non-zero
/// code ends the whole job: ending with `_exit` there does not race the
/// launcher's own shutdown (an MPI_Abort that arrives while mpiexec is
/// ending the job can make it crash). Hydra passes MPI_Abort's code on
/// reliably but not an exit code after it was signalled, and srun lets the
/// other tasks run on: there MPI_Abort it is.
pub fn exit_ends_job() -> bool {
    std::env::var_os("OMPI_COMM_WORLD_SIZE").is_some()
        && std::env::var_os("SLURM_STEP_ID").is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launcher_flags() {
        assert_eq!(
            launcher_args(Flavour::OpenMpi, 4, 2),
            vec!["-n", "4", "--quiet", "--oversubscribe"]
        );
        assert_eq!(
            launcher_args(Flavour::OpenMpi, 2, 2),
            vec!["-n", "2", "--quiet", "--bind-to", "core"]
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
