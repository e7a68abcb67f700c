//! mpiGraph's pattern with 8-byte round trips: in step k every rank pings
//! rank + k and answers rank − k at the same time; the matrix holds half
//! the round trip in microseconds.

use super::{Graph, Kind, SUITE};
use crate::bench::{Class, Info, RankRule};
use crate::method::Method;

static INFO: Info = Info {
    name: "Latency",
    suite: SUITE,
    class: Class::ParallelTransfer,
    ranks: RankRule::PAIR,
    description: "every ordered pair: an 8-byte round trip to rank+k while answering rank-k, k = 1..P-1; latency matrix in us",
    time_scale: 0.5,
    method: Some(Method::SplitCompletion),
    ..Info::DEFAULT
};

pub static LATENCY: Graph = Graph {
    info: &INFO,
    kind: Kind::Latency,
};
