//! sync images ring: overhead of sync images with i +- 1 .. i +- N/2, N = 2, 4, .. 12.

use super::{info, SyncBench, SyncType};
use crate::bench::Info;

static INFO: Info = info(
    "sync images ring",
    "overhead of sync images with i +- 1 .. i +- N/2, N = 2, 4, .. 12",
);

pub static SYNC_RING: SyncBench = SyncBench {
    info: &INFO,
    ty: SyncType::Ring,
};
