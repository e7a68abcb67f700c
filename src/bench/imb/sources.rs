//! IMB-MPI1's source variants of PingPong and PingPing (IMB 2017 Update 1
//! and later): `PingPongSpecificSource` and `PingPingSpecificSource` are
//! PingPong and PingPing (the receive names the partner), while
//! `PingPongAnySource` and `PingPingAnySource` receive with
//! `MPI_ANY_SOURCE` (IMB's PingPong and PingPing before 2017). Like
//! Uniband and Biband they run only when named.

use crate::bench::buf::{Layout, Op, Pattern};
use crate::bench::{patterns, Class, Info, RankRule};
use crate::check::{Expect, Segment};
use crate::comm;
use crate::contract::placement::{Placement, Role};

const PAIR: Info = Info {
    name: "",
    suite: super::SUITE,
    class: Class::SingleTransfer,
    ranks: RankRule::PAIR,
    placement: Placement::Halves,
    throughput: Some(1.0),
    default_in: &[],
    ..Info::DEFAULT
};

static PINGPONG_SPECIFIC_INFO: Info = Info {
    name: "PingPongSpecificSource",
    description: "PingPong (the receive names the partner): MPI_Send/MPI_Recv; time = t/2",
    time_scale: 0.5,
    ..PAIR
};

static PINGPONG_ANY_INFO: Info = Info {
    name: "PingPongAnySource",
    description: "PingPong receiving from MPI_ANY_SOURCE: MPI_Send/MPI_Recv; time = t/2",
    time_scale: 0.5,
    ..PAIR
};

static PINGPING_SPECIFIC_INFO: Info = Info {
    name: "PingPingSpecificSource",
    description: "PingPing (the receive names the partner): MPI_Isend/MPI_Recv/MPI_Wait",
    ..PAIR
};

static PINGPING_ANY_INFO: Info = Info {
    name: "PingPingAnySource",
    description: "PingPing receiving from MPI_ANY_SOURCE: MPI_Isend/MPI_Recv/MPI_Wait",
    ..PAIR
};

pub static PINGPONG_SPECIFIC: patterns::PingPong = patterns::PingPong(&PINGPONG_SPECIFIC_INFO);
pub static PINGPING_SPECIFIC: patterns::PingPing = patterns::PingPing(&PINGPING_SPECIFIC_INFO);
pub static PINGPONG_ANY: AnySource = AnySource {
    info: &PINGPONG_ANY_INFO,
    ping_ping: false,
};
pub static PINGPING_ANY: AnySource = AnySource {
    info: &PINGPING_ANY_INFO,
    ping_ping: true,
};

/// PingPong or PingPing whose receives take any source (the only other
/// active rank is the partner; idle ranks send nothing).
pub struct AnySource {
    pub info: &'static Info,
    /// Both send at once (PingPing); otherwise a round trip (PingPong).
    pub ping_ping: bool,
}

impl Pattern for AnySource {
    fn info(&self) -> &'static Info {
        self.info
    }

    fn over(&self, info: &'static Info) -> Option<Self> {
        Some(AnySource { info, ..*self })
    }

    fn layout(&self, x: usize, _q: usize) -> Layout {
        Layout { send: x, recv: x }
    }

    #[inline(always)]
    fn run(&self, op: &mut Op) {
        if !op.role.active {
            return;
        }
        let any = comm::any_source();
        let r = op.rp();
        if self.ping_ping {
            op.comm.isend(op.sp(), &op.msg, op.to, 1, &mut op.reqs[0]);
            op.comm.recv(r, &op.msg, any, 1);
            comm::wait(&mut op.reqs[0]);
        } else if op.role.initiator {
            op.comm.send(op.sp(), &op.msg, op.to, 1);
            op.comm.recv(r, &op.msg, any, 1);
        } else {
            op.comm.recv(r, &op.msg, any, 1);
            op.comm.send(op.sp(), &op.msg, op.to, 1);
        }
    }

    /// The partner's message.
    fn expect(&self, x: usize, _q: usize, _rank: usize, _root: usize, role: &Role) -> Expect {
        match role.from.filter(|_| role.active) {
            Some(p) => Expect::Bytes(vec![Segment {
                offset: 0,
                len: x,
                sender: p,
                sender_offset: 0,
            }]),
            None => Expect::Nothing,
        }
    }
}
