//! sync lock: overhead of a lock on image 0 (MPI_Compare_and_swap), serialised.

use super::{info, SyncBench, SyncType};
use crate::bench::Info;

static INFO: Info = info(
    "sync lock",
    "overhead of a lock on image 0 (MPI_Compare_and_swap), serialised",
);

pub static SYNC_LOCK: SyncBench = SyncBench {
    info: &INFO,
    ty: SyncType::Lock,
};
