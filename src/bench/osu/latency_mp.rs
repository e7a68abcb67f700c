//! osu_latency_mp (OMB 7.4 `c/mpi/pt2pt/standard/osu_latency_mp.c`): the
//! ping-pong of osu_latency between ranks 0 and 1 after rank 0 forked S
//! processes and rank 1 forked R (OSU `-t [S:]R`, default 2 and 2), each
//! of which sleeps OMB's 2 seconds and exits: what forking does to the
//! library's latency. The children are forked once per process, at the
//! first length; they touch no MPI state and die with their parent.

use anyhow::Result;

use super::{axis, INFO, LATENCY_REPS};
use crate::bench::{patterns, Benchmark, Class, Info, Kernel, RankRule, Setup};
use crate::comm::fork;
use crate::contract::axis::{Point, SweepCx};
use crate::contract::placement::Placement;

/// Row params: the forked processes of the sender (rank 0) and of the receiver.
pub const SENDER: &str = "forked_sender";
pub const RECEIVER: &str = "forked_receiver";

/// OMB's DEF_NUM_PROCESSES for both, and CHILD_SLEEP_SECONDS.
pub const DEFAULT_PROCESSES: usize = 2;
const CHILD_SLEEP_S: u32 = 2;

static INFO_MP: Info = Info {
    name: "osu_latency_mp",
    class: Class::SingleTransfer,
    description: "OSU ping-pong 0 <-> 1 after forking S processes on rank 0 and R on rank 1 (they sleep 2 s); runs only when named",
    placement: Placement::XorZero(1),
    time_scale: 0.5,
    reps: Some(LATENCY_REPS),
    ranks: RankRule::PAIR,
    default_in: &[],
    ..INFO
};

static PINGPONG: patterns::PingPong = patterns::PingPong(&INFO_MP);

pub static LATENCY_MP: LatencyMp = LatencyMp;

/// The program.
pub struct LatencyMp;

/// OSU `-t` of osu_latency_mp: `R` (the sender keeps its 2) or `S:R`, each
/// 1 ..= 127, as `S:R`.
pub fn processes(v: &str) -> Result<String, String> {
    let (s, r) =
        super::latency_mt::parse_threads(v).map_err(|e| e.replace("threads", "processes"))?;
    let s = if v.contains(':') {
        s
    } else {
        DEFAULT_PROCESSES
    };
    Ok(format!("{s}:{r}"))
}

/// Whether this process has forked its children.
static FORKED: std::sync::Once = std::sync::Once::new();

impl Benchmark for LatencyMp {
    fn info(&self) -> &'static Info {
        &INFO_MP
    }

    fn points(&self, cx: &SweepCx) -> Vec<Point> {
        let get = |k| super::one(cx.axes, k).map_or(DEFAULT_PROCESSES, |v| v as usize);
        let (s, r) = (get(axis::SENDERS), get(axis::RECEIVERS));
        Benchmark::points(&PINGPONG, cx)
            .into_iter()
            .map(|p| p.with(SENDER, s as u64).with(RECEIVER, r as u64))
            .collect()
    }

    fn need(&self, p: &Point, q: usize) -> u64 {
        Benchmark::need(&PINGPONG, p, q)
    }

    fn refuse(&self, p: &Point, q: usize) -> Option<String> {
        Benchmark::refuse(&PINGPONG, p, q)
    }

    /// The first length forks this rank's children (the sender's on rank
    /// 0, the receiver's on rank 1); every length reaps those that ended.
    fn kernel<'a>(&'a self, s: Setup<'a>, p: &Point) -> Result<Box<dyn Kernel + 'a>> {
        let n = match (s.role.active, s.role.initiator) {
            (false, _) => 0,
            (true, true) => p.u64(SENDER).map_or(DEFAULT_PROCESSES, |v| v as usize),
            (true, false) => p.u64(RECEIVER).map_or(DEFAULT_PROCESSES, |v| v as usize),
        };
        FORKED.call_once(|| {
            fork::sleepers(n, CHILD_SLEEP_S);
        });
        fork::reap();
        Benchmark::kernel(&PINGPONG, s, p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_gives_sender_and_receiver_processes() {
        assert_eq!(processes("3").unwrap(), "2:3");
        assert_eq!(processes("1:4").unwrap(), "1:4");
        let e = processes("0").unwrap_err();
        assert!(e.contains("processes '0'"), "{e}");
        assert!(processes("128").is_err() && processes("2:x").is_err());
    }
}
