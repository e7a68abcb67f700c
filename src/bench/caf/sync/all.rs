//! sync all: overhead of sync all (delay subtraction).

use super::{info, SyncBench, SyncType};
use crate::bench::Info;

static INFO: Info = info("sync all", "overhead of sync all (delay subtraction)");

pub static SYNC_ALL: SyncBench = SyncBench {
    info: &INFO,
    ty: SyncType::All,
};
