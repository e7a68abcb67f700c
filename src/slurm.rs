//! Slurm: whether srun started this process as a task of a job step (then
//! it never re-launches), which job and step a run belongs to (recorded in
//! the results), and the one mistake srun allows: tasks that each became an
//! MPI world of one because the MPI library found no PMI.

use crate::results::SlurmJob;

/// Step ids from here on are Slurm's special steps, not task steps:
/// interactive (salloc with `LaunchParameters=use_interactive_step`,
/// 0xfffffffa), batch script (0xfffffffb), extern (0xfffffffc).
const SPECIAL_STEPS: u64 = 0xffff_fff0;

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// The id of the task step srun started this process in; None in an
/// allocation's shell, a batch script, an interactive step or outside Slurm.
pub fn task_step() -> Option<u64> {
    var("SLURM_PROCID")?;
    let id: u64 = var("SLURM_STEP_ID")
        .or_else(|| var("SLURM_STEPID"))?
        .parse()
        .ok()?;
    (id < SPECIAL_STEPS).then_some(id)
}

/// The job (and task step) this process runs in, if any.
pub fn job() -> Option<SlurmJob> {
    Some(SlurmJob {
        job_id: var("SLURM_JOB_ID").or_else(|| var("SLURM_JOBID"))?,
        step_id: task_step(),
        nodelist: var("SLURM_JOB_NODELIST").or_else(|| var("SLURM_NODELIST")),
    })
}

/// Tasks of the Slurm allocation this process runs in, outside any task
/// step (salloc's shell, a batch script, an interactive step).
pub fn allocation_tasks() -> Option<usize> {
    if task_step().is_some() {
        return None;
    }
    var("SLURM_JOB_ID")?;
    var("SLURM_NTASKS")
        .or_else(|| var("SLURM_NPROCS"))?
        .parse()
        .ok()
        .filter(|&n| n > 0)
}

/// Inside an allocation a self-launch gets its tasks: `-n` beyond them is refused.
pub fn check_np(np: usize) -> Result<(), String> {
    match allocation_tasks() {
        Some(n) if np > n => Err(format!(
            "-n {np} is more than the {n} task{} of Slurm job {} (ask salloc/sbatch for more, or use -n {n})",
            if n == 1 { "" } else { "s" },
            var("SLURM_JOB_ID").unwrap_or_default()
        )),
        _ => Ok(()),
    }
}

/// srun started several tasks but MPI sees a world of one: the library did
/// not find Slurm's PMI, so every task would run alone. The one line to print.
pub fn pmi_mismatch(world: usize) -> Option<String> {
    task_step()?;
    let tasks: usize = var("SLURM_STEP_NUM_TASKS")
        .or_else(|| var("SLURM_NTASKS"))?
        .parse()
        .ok()?;
    (world == 1 && tasks > 1).then(|| {
        format!(
            "srun started {tasks} tasks but each is an MPI world of 1: the MPI library did not connect to Slurm's PMI \
             (Open MPI needs srun --mpi=pmix, MPICH srun --mpi=pmi2; see `srun --mpi=list`)"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_steps_are_not_task_steps() {
        // Process-wide environment: one test sets and restores it.
        let keep: Vec<(&str, Option<String>)> = [
            "SLURM_PROCID",
            "SLURM_STEP_ID",
            "SLURM_STEPID",
            "SLURM_JOB_ID",
            "SLURM_STEP_NUM_TASKS",
            "SLURM_NTASKS",
        ]
        .iter()
        .map(|k| (*k, std::env::var(k).ok()))
        .collect();
        std::env::set_var("SLURM_PROCID", "0");
        std::env::set_var("SLURM_JOB_ID", "17");
        std::env::remove_var("SLURM_STEPID");
        std::env::set_var("SLURM_STEP_ID", "4294967290");
        assert_eq!(task_step(), None);
        assert_eq!(job().unwrap().step_id, None);
        std::env::set_var("SLURM_STEP_ID", "3");
        assert_eq!(task_step(), Some(3));
        assert_eq!(job().unwrap().job_id, "17");
        std::env::set_var("SLURM_STEP_NUM_TASKS", "2");
        assert!(pmi_mismatch(1).unwrap().contains("--mpi=pmix"));
        assert_eq!(pmi_mismatch(2), None);
        // In a task step there is no allocation to launch into.
        assert_eq!(allocation_tasks(), None);
        std::env::set_var("SLURM_STEP_ID", "4294967290");
        std::env::set_var("SLURM_NTASKS", "2");
        assert_eq!(allocation_tasks(), Some(2));
        assert!(check_np(2).is_ok());
        assert!(check_np(3).unwrap_err().contains("2 tasks of Slurm job 17"));
        std::env::remove_var("SLURM_NTASKS");
        for (k, v) in keep {
            match v {
                Some(v) => std::env::set_var(k, v),
                None => std::env::remove_var(k),
            }
        }
    }
}
