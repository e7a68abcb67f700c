//! SIGNAL SENDING: a signal (a zero-length message) and its answer; the
//! time is about twice the latency.

use crate::bench::{patterns, Axis, Info, Pace, RankRule};
use crate::contract::placement::Placement;

static INFO: Info = Info {
    name: "SIGNAL SENDING",
    suite: super::SUITE,
    description: "zero-length message and its answer, i <-> i+P/2 (about twice the latency)",
    axis: Axis::None,
    placement: Placement::Halves,
    ranks: RankRule::PAIR,
    pace: Pace::Fast,
    ..Info::DEFAULT
};

pub static SIGNAL_SENDING: patterns::PingPong = patterns::PingPong(&INFO);
