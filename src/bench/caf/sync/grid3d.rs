//! sync images 3d grid: overhead of sync images with the neighbours of a periodic 3-D grid.

use super::{info, SyncBench, SyncType};
use crate::bench::Info;

static INFO: Info = info(
    "sync images 3d grid",
    "overhead of sync images with the neighbours of a periodic 3-D grid",
);

pub static SYNC_3D: SyncBench = SyncBench {
    info: &INFO,
    ty: SyncType::Grid3d,
};
