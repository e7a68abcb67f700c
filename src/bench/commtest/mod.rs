//! COMMTEST (ORNL, P. H. Worley; `shared/seeds/004_*.txt`): the SWAP and
//! SENDRECV commands of PSTSWM and CCM/MP-2D under 21 protocols, with a
//! fixed total volume V sent as 1, 2, 4, ... packets down to a minimum
//! packet length; the maximum over processes of each one's own elapsed
//! time (`Method::MaxOverProcesses`) beside the global elapsed time; and a
//! latency/bandwidth fit per protocol (`fit`). Plus LogGP (`loggp`).
//!
//! * SWAP: rank r exchanges with r XOR d (`Placement::Xor`); ranks whose
//!   partner is outside the run idle. The lower rank is processor 1 of the
//!   ordered protocols.
//! * SENDRECV: rank r sends to r + d and receives from r − d (mod P)
//!   (`Placement::Shift`): cycles that cover every rank. Processor 1 of the
//!   ordered protocols are the even positions of each cycle (not the last
//!   of an odd cycle), so that it always sends to a processor 2.
//! * `--communicating zero`: only node zero's pair or cycle (`XorZero`, `ShiftZero`).

use std::sync::LazyLock;

use anyhow::{anyhow, Result};

use super::{Benchmark, Class, Info, Kernel, RankRule, Setup};
use crate::bench::entry::Entry;
use crate::comm::modes::{BsendBuffer, Mode};
use crate::contract::axis::{Point, SweepCx};
use crate::contract::placement::Placement;
use crate::contract::RepsDefault;
use crate::method::{Method, SyncMode};
use crate::plugin::{Defaults, ProcSweep, Suite, SuiteHelp};
use crate::results::BenchResult;

pub mod args;
pub mod fit;
pub mod front;
pub mod loggp;
pub mod program;
pub mod protocol;
pub mod table;

use program::{compile, cycle_position, plays_first, Exchange, Side};
use protocol::{Protocol, Step, PROTOCOLS};

pub use args::{axes, CommtestArgs, HEADING};

pub const SUITE: &str = "commtest";

/// The defaults of the seed's inputs (its example: 2 MB in packets down to 2 KB).
pub const DEFAULT_VOLUME: usize = 2 << 20;
pub const DEFAULT_MIN_PACKET: usize = 2048;

/// Most packets per experiment (V / minimum packet): the seed's example
/// sends 1024; each packet is a message (and a request) of its own, so a
/// sweep down to 1-byte packets of megabytes would run for hours.
pub const MAX_PACKETS: usize = 1 << 16;

/// The plan axis of the volumes V.
const VOLUME: &str = "volume";
pub const DEFAULT_DISTANCE: usize = 1;

/// SWAP or SENDRECV.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    Swap,
    Sendrecv,
}

impl Pattern {
    pub fn name(self) -> &'static str {
        match self {
            Pattern::Swap => "SWAP",
            Pattern::Sendrecv => "SENDRECV",
        }
    }
}

/// COMMTEST's two programs: the basic exchange, and receives preposted one message ahead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Prepost {
    Off,
    On,
    Both,
}

/// COMMTEST: every pair (cycle) at once, or node zero and its partners only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Pairs {
    All,
    Zero,
}

/// The run's COMMTEST options, from the plan's axes (defaults where absent).
#[derive(Debug, Clone)]
pub struct Options {
    pub volumes: Vec<usize>,
    pub min_packet: usize,
    pub distance: usize,
    pub zero: bool,
    pub prepost: Vec<bool>,
    pub protocols: Vec<&'static Protocol>,
}

impl Options {
    pub fn from_axes<'x>(axis: impl Fn(&str) -> &'x [f64]) -> Options {
        let one = |k: &str| axis(k).first().copied();
        Options {
            volumes: match axis(VOLUME) {
                [] => vec![DEFAULT_VOLUME],
                v => v.iter().map(|&x| x as usize).collect(),
            },
            min_packet: one("min_packet").map_or(DEFAULT_MIN_PACKET, |v| v as usize),
            distance: one("distance").map_or(DEFAULT_DISTANCE, |v| v as usize),
            zero: one("pairs_zero").is_some_and(|v| v != 0.0),
            prepost: match axis("prepost") {
                [] => vec![false],
                v => v.iter().map(|&x| x != 0.0).collect(),
            },
            protocols: match axis("protocol") {
                [] => PROTOCOLS.iter().collect(),
                v => v
                    .iter()
                    .filter_map(|&x| protocol::by_number(x as u16))
                    .collect(),
            },
        }
    }
}

/// The packet counts of volume `v`: 1, 2, 4, ... while the packets divide
/// V evenly and are at least `min` bytes, then V/min when that is not
/// already the last.
pub fn packet_counts(v: usize, min: usize) -> Vec<u64> {
    let mut out = Vec::new();
    let mut k = 1usize;
    while k <= v && v % k == 0 && v / k >= min.max(1) {
        out.push(k as u64);
        match k.checked_mul(2) {
            Some(n) => k = n,
            None => break,
        }
    }
    // Down to the minimum packet itself when V/min is not a power of two
    // (6 KiB in 2 KiB packets: 1, 2, then 3).
    let last = v / min.max(1);
    if v > 0 && v % min.max(1) == 0 && out.last() != Some(&(last as u64)) {
        out.push(last as u64);
    }
    out
}

/// SWAP or SENDRECV under every protocol.
pub struct Commtest {
    pattern: Pattern,
    info: &'static LazyLock<Info>,
}

fn info(pattern: Pattern) -> Info {
    Info {
        name: pattern.name(),
        suite: SUITE,
        class: Class::ParallelTransfer,
        ranks: RankRule::PAIR,
        description: match pattern {
            Pattern::Swap => {
                "exchange V bytes with r XOR d in 1, 2, 4, ... packets under 21 protocols (--distance, --communicating, --prepost)"
            }
            Pattern::Sendrecv => {
                "send V bytes to r+d, receive from r-d (cycles) in 1, 2, 4, ... packets under 21 protocols"
            }
        },
        placement: match pattern {
            Pattern::Swap => Placement::Xor(DEFAULT_DISTANCE),
            Pattern::Sendrecv => Placement::Shift(DEFAULT_DISTANCE),
        },
        throughput: Some(1.0),
        method: None,
        variants: protocol::VARIANTS.as_slice(),
        ..Info::DEFAULT
    }
}

static SWAP_INFO: LazyLock<Info> = LazyLock::new(|| info(Pattern::Swap));
static SENDRECV_INFO: LazyLock<Info> = LazyLock::new(|| info(Pattern::Sendrecv));

pub static SWAP: Commtest = Commtest {
    pattern: Pattern::Swap,
    info: &SWAP_INFO,
};
pub static SENDRECV: Commtest = Commtest {
    pattern: Pattern::Sendrecv,
    info: &SENDRECV_INFO,
};

fn uses_buffered(p: &Protocol) -> bool {
    p.first
        .iter()
        .chain(p.second)
        .any(|s| matches!(s, Step::Send(Mode::Buffered) | Step::Isend(Mode::Buffered)))
}

fn protocol_of(p: &Point) -> Result<&'static Protocol> {
    let code = p.str("protocol").unwrap_or("");
    PROTOCOLS
        .iter()
        .find(|x| x.code() == code)
        .ok_or_else(|| anyhow!("unknown protocol '{code}'"))
}

/// The attached buffer of the buffered-send protocol: every packet of two
/// experiments may wait in it (the library frees a buffered message once it
/// has noticed its delivery, which may be after the next experiment began),
/// plus 64 KiB for the allocator's alignment.
fn bsend_bytes(p: &Point) -> usize {
    let k = p.u64("packets").unwrap_or(1) as usize;
    2 * BsendBuffer::size_for(k, p.bytes / k.max(1)) + (64 << 10)
}

impl Commtest {
    /// Processor 1 or 2 for a rank, and whether its source waits for ready
    /// messages.
    fn sides(&self, rank: usize, q: usize, d: usize, initiator: bool) -> (bool, bool) {
        match self.pattern {
            Pattern::Swap => (initiator, !initiator),
            Pattern::Sendrecv => {
                let (k, len) = cycle_position(rank, q, d);
                let from = (rank + q - d % q) % q;
                let (kf, _) = cycle_position(from, q, d);
                (plays_first(k, len), plays_first(kf, len))
            }
        }
    }
}

impl Benchmark for Commtest {
    fn info(&self) -> &'static Info {
        self.info
    }

    fn placement(&self, p: &Point) -> Placement {
        let d = p.u64("distance").map_or(DEFAULT_DISTANCE, |d| d as usize);
        let zero = p.str("pairs") == Some("zero");
        match (self.pattern, zero) {
            (Pattern::Swap, false) => Placement::Xor(d),
            (Pattern::Swap, true) => Placement::XorZero(d),
            (Pattern::Sendrecv, false) => Placement::Shift(d),
            (Pattern::Sendrecv, true) => Placement::ShiftZero(d),
        }
    }

    fn points(&self, cx: &SweepCx) -> Vec<Point> {
        let o = Options::from_axes(|k| cx.axis(k));
        let mut out = Vec::new();
        for &v in &o.volumes {
            for &pre in &o.prepost {
                for p in &o.protocols {
                    for k in packet_counts(v, o.min_packet) {
                        out.push(
                            Point::bytes(v)
                                .with("pattern", self.pattern.name())
                                .with("protocol", p.code())
                                .with("protocol_name", p.name)
                                .with("packets", k)
                                .with("packet_bytes", v as u64 / k)
                                .with("prepost", pre)
                                .with("distance", o.distance as u64)
                                .with("pairs", if o.zero { "zero" } else { "all" }),
                        );
                    }
                }
            }
        }
        out
    }

    fn need(&self, p: &Point, _q: usize) -> u64 {
        let bsend = protocol_of(p).is_ok_and(uses_buffered);
        2 * p.bytes as u64 + if bsend { bsend_bytes(p) as u64 } else { 0 }
    }

    fn refuse(&self, p: &Point, q: usize) -> Option<String> {
        let proto = protocol_of(p).ok()?;
        let d = p.u64("distance").unwrap_or(1) as usize;
        if d == 0 || d >= q {
            return Some(format!(
                "{}: distance {d} needs more than {q} processes",
                self.pattern.name()
            ));
        }
        if p.params.get("prepost").and_then(|v| v.as_bool()) == Some(true)
            && proto.first.contains(&Step::Sendrecv)
        {
            return Some(format!(
                "{} {} has no separate receive to prepost: it has no prepost rows",
                proto.code(),
                proto.name
            ));
        }
        if uses_buffered(proto) && bsend_bytes(p) > i32::MAX as usize {
            return Some(format!(
                "{} {}: the buffered-send buffer for {} bytes exceeds MPI_Buffer_attach's int size",
                proto.code(),
                proto.name,
                p.bytes
            ));
        }
        None
    }

    fn kernel<'a>(&'a self, s: Setup<'a>, p: &Point) -> Result<Box<dyn Kernel + 'a>> {
        let proto = protocol_of(p)?;
        let q = s.comm.size;
        let me = s.comm.rank;
        let v = p.bytes;
        let k = p.u64("packets").unwrap_or(1) as usize;
        let d = p.u64("distance").unwrap_or(1) as usize;
        let prepost = p.params.get("prepost").and_then(|x| x.as_bool()) == Some(true);
        let role = &s.role;
        let (first, source_first) = self.sides(me, q, d, role.initiator);
        let source_awaits = role.active && proto.awaits(source_first);
        let prog = compile(proto, first, source_awaits, prepost)
            .ok_or_else(|| anyhow!("{} has no prepost program", proto.code()))?;
        let len = if role.active { v } else { 0 };
        let bufs = s.arena.take(&[len, len])?;
        let (a, b) = bufs.split_at_mut(1);
        let bsend = if role.active && uses_buffered(proto) {
            Some(BsendBuffer::attach(bsend_bytes(p))?)
        } else {
            None
        };
        let side = Side {
            active: role.active,
            to: role.to.unwrap_or(me),
            from: role.from.unwrap_or(me),
        };
        Ok(Box::new(Exchange::new(
            s.comm, side, &mut a[0], &mut b[0], v, k, prog, bsend,
        )?))
    }

    fn derive(&self, r: &mut BenchResult) {
        fit::derive(r);
    }
}

/// The benchmarks and tools of the suite, in order.
pub fn entries() -> Vec<Entry> {
    vec![
        Entry::Bench(&SWAP),
        Entry::Bench(&SENDRECV),
        Entry::Tool(&loggp::LOGGP),
    ]
}

/// The suite's entry in the registry.
pub const REGISTERED: Suite = Suite {
    name: SUITE,
    title: "COMMTEST (ORNL): SWAP and SENDRECV under 21 protocols, fixed volume in 1, 2, 4, ... packets; LogGP",
    entries,
    defaults: Defaults {
        method: Method::MaxOverProcesses,
        sync: SyncMode::Barrier,
        reps: RepsDefault::Fixed {
            normal: 20,
            fast: 20,
        },
        sizes: "2M",
        procs: ProcSweep::World,
        warm_largest: 0,
    },
    axes: Some(axes),
    formats: &[(SUITE, &table::Commtest)],
    report: table::PARTS,
    help: SuiteHelp {
        heading: Some(HEADING),
        own: Some("mpibench commtest volume=2M minpacket=2K iterations=20 protocols=all swap distance=1 all"),
        example: "mpibench run -n 2 --suite commtest SWAP --volume 1M --min-packet 64K --protocols 0.3,1.0",
    },
    front: Some(&front::FRONTEND),
    options: Some(crate::cli::OptionsHook::of::<CommtestArgs>()),
    ..Suite::PLAIN
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::axis::Axes;

    #[test]
    fn packet_counts_halve_down_to_the_minimum() {
        assert_eq!(packet_counts(2 << 20, 2048).len(), 11);
        assert_eq!(*packet_counts(2 << 20, 2048).last().unwrap(), 1024);
        assert_eq!(
            packet_counts(4096, 1),
            (0..13).map(|e| 1 << e).collect::<Vec<u64>>()
        );
        // 6 KiB in packets of at least 2 KiB: 1 and 2 packets (3 KiB), then
        // down to the minimum packet, 3 packets of 2 KiB.
        assert_eq!(packet_counts(6144, 2048), vec![1, 2, 3]);
        // Packets divide V: 9 bytes in 1 packet, then 3 of 3 bytes.
        assert_eq!(packet_counts(9, 3), vec![1, 3]);
        assert_eq!(packet_counts(7, 1), vec![1, 7]);
        assert_eq!(packet_counts(12, 1), vec![1, 2, 4, 12]);
        assert_eq!(packet_counts(3, 2), vec![1]);
        assert!(packet_counts(0, 1).is_empty());
    }

    #[test]
    fn points_carry_the_params() {
        let mut axes = Axes::new();
        axes.insert("min_packet".into(), vec![1024.0]);
        axes.insert("prepost".into(), vec![0.0, 1.0]);
        axes.insert("protocol".into(), vec![3.0, 110.0]);
        axes.insert("distance".into(), vec![2.0]);
        axes.insert("volume".into(), vec![4096.0]);
        let cx = SweepCx {
            sizes: &[2 << 20],
            axes: &axes,
            q: 4,
        };
        let pts = SWAP.points(&cx);
        // 2 prepost × 2 protocols × 3 packet counts.
        assert_eq!(pts.len(), 12);
        let p = &pts[2];
        assert_eq!(p.str("protocol"), Some("(0,3)"));
        assert_eq!(p.u64("packets"), Some(4));
        assert_eq!(p.u64("packet_bytes"), Some(1024));
        assert_eq!(p.str("pattern"), Some("SWAP"));
        assert_eq!(p.u64("distance"), Some(2));
        assert_eq!(p.params["prepost"], false);
        assert_eq!(pts[11].params["prepost"], true);
        assert_eq!(pts[11].str("protocol"), Some("(1,10)"));
        assert_eq!(SWAP.placement(p), Placement::Xor(2));
        assert_eq!(SENDRECV.placement(p), Placement::Shift(2));
        let zero = p.clone().with("pairs", "zero");
        assert_eq!(SWAP.placement(&zero), Placement::XorZero(2));
        assert_eq!(SENDRECV.placement(&zero), Placement::ShiftZero(2));
        // Native sendrecv has no prepost rows.
        let sr = Point::bytes(64)
            .with("protocol", "(0,6)")
            .with("prepost", true)
            .with("distance", 1u64);
        assert!(SWAP.refuse(&sr, 2).unwrap().contains("no separate receive"));
        assert!(SWAP.refuse(&sr.clone().with("prepost", false), 2).is_none());
        // Buffered sends count the attached buffer.
        let b = Point::bytes(1024)
            .with("protocol", "(0,0)")
            .with("packets", 4u64);
        assert!(SWAP.need(&b, 2) > 3 * 1024);
    }

    #[test]
    fn defaults_are_the_seeds_example() {
        let o = Options::from_axes(|_| &[]);
        assert_eq!(o.min_packet, 2048);
        assert_eq!(o.distance, 1);
        assert!(!o.zero);
        assert_eq!(o.prepost, vec![false]);
        assert_eq!(o.protocols.len(), 21);
        assert_eq!(o.volumes, vec![2 << 20]);
    }
}
