//! sync images pairwise: overhead of sync images with image i +- P/2.

use super::{info, SyncBench, SyncType};
use crate::bench::Info;

static INFO: Info = info(
    "sync images pairwise",
    "overhead of sync images with image i +- P/2",
);

pub static SYNC_PAIRWISE: SyncBench = SyncBench {
    info: &INFO,
    ty: SyncType::Pairwise,
};
