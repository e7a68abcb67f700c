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

/// Re-executes this program under mpiexec with `np` ranks; returns its exit code.
pub fn relaunch(np: usize, mpiexec: Option<&str>, library_version: &str) -> Result<i32> {
    let f = flavour(library_version);
    let exe = std::env::current_exe().context("cannot find the mpibench executable")?;
    let launcher = mpiexec
        .map(str::to_string)
        .unwrap_or_else(|| default_mpiexec(f));
    let mut cmd = Command::new(&launcher);
    cmd.args(launcher_args(f, np, cores()));
    cmd.arg(&exe).args(std::env::args_os().skip(1));
    cmd.env("MPIBENCH_LAUNCHED", "1");
    if f == Flavour::OpenMpi && unsafe { libc::geteuid() } == 0 {
        cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1");
        cmd.env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    }
    let status = cmd.status().with_context(|| {
        format!("cannot start '{launcher}' (install an MPI launcher or pass --mpiexec)")
    })?;
    Ok(status.code().unwrap_or(3))
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
}
