//! sync lock: overhead of a lock on image 0 (MPI_Compare_and_swap), serialised.

use super::{info, SyncBench, SyncType};
use crate::bench::Info;

/// Always validated: every lock and unlock checks the lock word, so that a
/// broken library is an error (exit code 1), never a hang or a figure.
static INFO: Info = Info {
    validated: true,
    ..info(
        "sync lock",
        "overhead of a lock on image 0 (MPI_Compare_and_swap), serialised",
    )
};

pub static SYNC_LOCK: SyncBench = SyncBench {
    info: &INFO,
    ty: SyncType::Lock,
};
