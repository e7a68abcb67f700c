//! sync critical: overhead of a critical region (MPI_Win_lock exclusive), serialised.

use super::{info, SyncBench, SyncType};
use crate::bench::Info;

static INFO: Info = info(
    "sync critical",
    "overhead of a critical region (MPI_Win_lock exclusive), serialised",
);

pub static SYNC_CRITICAL: SyncBench = SyncBench {
    info: &INFO,
    ty: SyncType::Critical,
};
