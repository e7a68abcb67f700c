//! mpiGraph's bandwidth matrix: in step k every rank sends WINDOW messages
//! of SIZE bytes to rank + k and receives as many from rank − k, ITERS
//! times; sends and receives are timed apart.

use super::{Graph, Kind, SUITE};
use crate::bench::{Class, Info, RankRule};
use crate::method::Method;

static INFO: Info = Info {
    name: "Bandwidth",
    suite: SUITE,
    class: Class::ParallelTransfer,
    ranks: RankRule::PAIR,
    description: "every ordered pair: WINDOW messages to rank+k and from rank-k at once, k = 1..P-1; send/recv MB/s matrices (mpiGraph)",
    method: Some(Method::SplitCompletion),
    ..Info::DEFAULT
};

pub static BANDWIDTH: Graph = Graph {
    info: &INFO,
    kind: Kind::Bandwidth,
};
