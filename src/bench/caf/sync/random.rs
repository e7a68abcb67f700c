//! sync images random: overhead of sync images with N neighbours on a randomly permuted ring.

use super::{info, SyncBench, SyncType};
use crate::bench::Info;

static INFO: Info = info(
    "sync images random",
    "overhead of sync images with N neighbours on a randomly permuted ring",
);

pub static SYNC_RANDOM: SyncBench = SyncBench {
    info: &INFO,
    ty: SyncType::Random,
};
