//! sync mpi barrier: overhead of MPI_Barrier, for comparison with sync all.

use super::{info, SyncBench, SyncType};
use crate::bench::Info;

static INFO: Info = info(
    "sync mpi barrier",
    "overhead of MPI_Barrier, for comparison with sync all",
);

pub static SYNC_MPI_BARRIER: SyncBench = SyncBench {
    info: &INFO,
    ty: SyncType::MpiBarrier,
};
