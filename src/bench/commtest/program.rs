//! One interpreter for all 21 protocols: a protocol's steps, for one side,
//! compiled once per point into a [`Program`] of [`Op`]s on packet i, and
//! the kernel that runs it over the packets of an experiment. The timed
//! loop does nothing per message but a `match` on the op and the MPI call.
//!
//! Basic program (the seed's first one), per packet i: the side's steps as
//! listed in the protocol table.
//!
//! Prepost program (the seed's second one), exactly as its list:
//!
//! ```text
//! stage (before the synchronisation, untimed): post the receive of packet 0
//!     (and its ready message; a ready sender also collects packet 0's ready message here)
//! timed, for each packet i:
//!     post the receive of packet i + 1 (and its ready message)
//!     begin the send of packet i and complete the receive of packet i,
//!         in the order of the protocol's steps
//!     complete the send of packet i − 1 (nonblocking sends)
//! timed, after the loop: complete the send of the last packet
//! ```
//!
//! Blocking receives become the completion of the preposted receive; (0,6)
//! native sendrecv has no separate receive and no prepost program.

use super::protocol::{Protocol, Step};
use crate::bench::Kernel;
use crate::check::{self, Expect, Segment};
use crate::comm::modes::{BsendBuffer, Mode};
use crate::comm::{self, request_null, Buffer, Comm, Msg, Request};

/// Tag of the packets.
pub const TAG_DATA: i32 = 0x43;
/// Tag of the zero-byte ready messages.
pub const TAG_READY: i32 = 0x44;

/// An operation on packet i.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// MPI_Irecv of packet i + ahead (if it exists).
    PostRecv {
        ahead: usize,
    },
    /// MPI_Isend of the ready message of packet i + ahead to the source.
    Signal {
        ahead: usize,
    },
    /// MPI_Recv of packet i's ready message from the destination (not for
    /// packet 0 when the stage collected it).
    AwaitReady {
        skip_first: bool,
    },
    Send(Mode),
    Isend(Mode),
    Recv,
    Sendrecv,
    /// Completes packet i's posted receive (and its ready message).
    WaitRecv {
        signal: bool,
    },
    /// Completes the nonblocking send of packet i − behind (if it exists).
    WaitSend {
        behind: usize,
    },
    /// Completes packet i's receive (and ready message) and send.
    WaitAll {
        signal: bool,
    },
}

/// What one side runs: `stage` before the synchronisation (packet 0),
/// `body` for every packet i, `tail` once after the last (with i = packets).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Program {
    pub stage: Vec<Op>,
    pub body: Vec<Op>,
    pub tail: Vec<Op>,
}

/// Compiles one side (processor 1 when `first`) of a protocol. The side
/// sends ready messages only when its source waits for them. `None`: the
/// protocol has no prepost program ((0,6) native sendrecv).
pub fn compile(p: &Protocol, first: bool, source_awaits: bool, prepost: bool) -> Option<Program> {
    let steps = p.steps(first);
    let signal = source_awaits;
    if !prepost {
        let body = steps
            .iter()
            .filter_map(|s| {
                Some(match *s {
                    Step::PostRecv => Op::PostRecv { ahead: 0 },
                    Step::Signal if signal => Op::Signal { ahead: 0 },
                    Step::Signal => return None,
                    Step::AwaitReady => Op::AwaitReady { skip_first: false },
                    Step::Send(m) => Op::Send(m),
                    Step::Isend(m) => Op::Isend(m),
                    Step::Recv => Op::Recv,
                    Step::Sendrecv => Op::Sendrecv,
                    Step::WaitRecv => Op::WaitRecv { signal },
                    Step::WaitSend => Op::WaitSend { behind: 0 },
                    Step::WaitAll => Op::WaitAll { signal },
                })
            })
            .collect();
        return Some(Program {
            body,
            ..Program::default()
        });
    }
    if steps.contains(&Step::Sendrecv) {
        return None;
    }
    let awaits = steps.contains(&Step::AwaitReady);
    let nonblocking = steps.iter().any(|s| matches!(s, Step::Isend(_)));
    let mut stage = vec![Op::PostRecv { ahead: 0 }];
    let mut body = vec![Op::PostRecv { ahead: 1 }];
    if signal {
        stage.push(Op::Signal { ahead: 0 });
        body.push(Op::Signal { ahead: 1 });
    }
    if awaits {
        stage.push(Op::AwaitReady { skip_first: false });
    }
    for s in steps {
        match *s {
            Step::AwaitReady => body.push(Op::AwaitReady { skip_first: true }),
            Step::Send(m) => body.push(Op::Send(m)),
            Step::Isend(m) => body.push(Op::Isend(m)),
            Step::Recv | Step::WaitRecv | Step::WaitAll => body.push(Op::WaitRecv { signal }),
            Step::PostRecv | Step::Signal | Step::WaitSend | Step::Sendrecv => {}
        }
    }
    let mut tail = Vec::new();
    if nonblocking {
        body.push(Op::WaitSend { behind: 1 });
        tail.push(Op::WaitSend { behind: 1 });
    }
    Some(Program { stage, body, tail })
}

/// Position k of `rank` in its cycle under r → r + d (mod q), and the
/// cycle's length L. The cycle through r holds r mod gcd(d, q) + j·d.
pub fn cycle_position(rank: usize, q: usize, d: usize) -> (usize, usize) {
    let d = d % q;
    if d == 0 {
        return (0, 1);
    }
    let mut g = (d, q);
    while g.1 != 0 {
        g = (g.1, g.0 % g.1);
    }
    let len = q / g.0;
    let mut x = rank % g.0;
    let mut k = 0;
    while x != rank {
        x = (x + d) % q;
        k += 1;
    }
    (k, len)
}

/// Whether position k of a cycle of length L plays processor 1 of the
/// ordered protocols: the even positions, except the last of an odd cycle,
/// so that processor 1 always sends to a processor 2 (a pair is a cycle of 2).
pub fn plays_first(k: usize, len: usize) -> bool {
    k % 2 == 0 && k + 1 < len
}

/// Request slots per packet parity: ready message, receive, send.
const Q: usize = 0;
const R: usize = 1;
const S: usize = 2;

#[inline(always)]
fn slot(i: usize) -> usize {
    3 * (i % 2)
}

/// Where the kernel's side of the exchange is.
pub struct Side {
    pub active: bool,
    pub to: usize,
    pub from: usize,
}

/// One experiment of COMMTEST: the volume V in `packets` messages of
/// `len` bytes, each at its own offset, moving linearly through the buffers.
pub struct Exchange<'a> {
    comm: &'a Comm,
    side: Side,
    sbuf: &'a mut Buffer,
    rbuf: &'a mut Buffer,
    volume: usize,
    packets: usize,
    len: usize,
    msg: Msg,
    zero: Msg,
    token: [u8; 8],
    token_in: [u8; 8],
    prog: Program,
    reqs: [Request; 6],
    staged: bool,
    /// Attached for the buffered-send protocol; detached on drop.
    _bsend: Option<BsendBuffer>,
}

impl<'a> Exchange<'a> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        comm: &'a Comm,
        side: Side,
        sbuf: &'a mut Buffer,
        rbuf: &'a mut Buffer,
        volume: usize,
        packets: usize,
        prog: Program,
        bsend: Option<BsendBuffer>,
    ) -> Result<Exchange<'a>, crate::comm::Error> {
        let len = volume / packets.max(1);
        Ok(Exchange {
            comm,
            side,
            sbuf,
            rbuf,
            volume,
            packets,
            len,
            msg: Msg::bytes(len)?,
            zero: Msg::small(0),
            token: [0; 8],
            token_in: [0; 8],
            prog,
            reqs: [request_null(); 6],
            staged: false,
            _bsend: bsend,
        })
    }

    #[inline(always)]
    fn exec(&mut self, op: Op, i: usize) {
        let k = self.packets;
        let len = self.len;
        match op {
            Op::PostRecv { ahead } => {
                let j = i + ahead;
                if j < k {
                    let buf = self.rbuf.mut_ptr().wrapping_add(j * len);
                    let req = &mut self.reqs[slot(j) + R];
                    self.comm
                        .irecv(buf, &self.msg, self.side.from, TAG_DATA, req);
                }
            }
            Op::Signal { ahead } => {
                let j = i + ahead;
                if j < k {
                    let req = &mut self.reqs[slot(j) + Q];
                    let t = self.token.as_ptr();
                    self.comm
                        .isend(t, &self.zero, self.side.from, TAG_READY, req);
                }
            }
            Op::AwaitReady { skip_first } => {
                if !(skip_first && i == 0) {
                    let t = self.token_in.as_mut_ptr();
                    self.comm.recv(t, &self.zero, self.side.to, TAG_READY);
                }
            }
            Op::Send(m) => {
                let buf = self.sbuf.ptr().wrapping_add(i * len);
                self.comm
                    .send_mode(m, buf, &self.msg, self.side.to, TAG_DATA);
            }
            Op::Isend(m) => {
                let buf = self.sbuf.ptr().wrapping_add(i * len);
                let req = &mut self.reqs[slot(i) + S];
                self.comm
                    .isend_mode(m, buf, &self.msg, self.side.to, TAG_DATA, req);
            }
            Op::Recv => {
                let buf = self.rbuf.mut_ptr().wrapping_add(i * len);
                self.comm.recv(buf, &self.msg, self.side.from, TAG_DATA);
            }
            Op::Sendrecv => {
                let s = self.sbuf.ptr().wrapping_add(i * len);
                let r = self.rbuf.mut_ptr().wrapping_add(i * len);
                self.comm
                    .sendrecv(s, &self.msg, self.side.to, r, self.side.from, TAG_DATA);
            }
            Op::WaitRecv { signal } => {
                let p = slot(i);
                if signal {
                    comm::waitall(&mut self.reqs[p + Q..p + S]);
                } else {
                    comm::wait(&mut self.reqs[p + R]);
                }
            }
            Op::WaitSend { behind } => {
                if i >= behind {
                    comm::wait(&mut self.reqs[slot(i - behind) + S]);
                }
            }
            Op::WaitAll { signal } => {
                let p = slot(i);
                let from = if signal { Q } else { R };
                comm::waitall(&mut self.reqs[p + from..p + S + 1]);
            }
        }
    }

    fn run_stage(&mut self) {
        for j in 0..self.prog.stage.len() {
            let op = self.prog.stage[j];
            self.exec(op, 0);
        }
        self.staged = true;
    }

    fn expect(&self) -> Expect {
        if !self.side.active {
            return Expect::Nothing;
        }
        Expect::Bytes(vec![Segment {
            offset: 0,
            len: self.volume,
            sender: self.side.from,
            sender_offset: 0,
        }])
    }
}

impl Kernel for Exchange<'_> {
    #[inline(always)]
    fn run(&mut self, _rep: usize) {
        if !self.side.active {
            return;
        }
        if !self.staged {
            self.run_stage();
        }
        let n = self.prog.body.len();
        for i in 0..self.packets {
            for j in 0..n {
                let op = self.prog.body[j];
                self.exec(op, i);
            }
        }
        for j in 0..self.prog.tail.len() {
            let op = self.prog.tail[j];
            self.exec(op, self.packets);
        }
        self.staged = false;
    }

    fn stage(&mut self, _rep: usize) {
        if self.side.active && !self.staged {
            self.run_stage();
        }
    }

    fn prepare(&mut self, rep: usize) {
        if self.side.active {
            let rank = self.comm.rank;
            check::fill(self.sbuf, self.volume, None, rank, rep, self.volume);
            check::poison(self.rbuf, self.volume, None, rep, self.volume);
        }
    }

    fn verify(&mut self, rep: usize) -> u64 {
        let e = self.expect();
        check::verify(
            &e,
            self.rbuf,
            crate::comm::Elem::Byte,
            self.comm.size,
            rep,
            self.volume,
        )
    }

    fn corrupt(&mut self) {
        let e = self.expect();
        check::corrupt(&e, self.rbuf, crate::comm::Elem::Byte);
    }
}

#[cfg(test)]
mod tests {
    use super::super::protocol::{by_number, PROTOCOLS};
    use super::*;

    #[test]
    fn the_basic_program_is_the_table() {
        let p = by_number(3).unwrap();
        let prog = compile(p, true, false, false).unwrap();
        assert_eq!(
            prog.body,
            vec![
                Op::PostRecv { ahead: 0 },
                Op::Isend(Mode::Standard),
                Op::WaitAll { signal: false }
            ]
        );
        assert!(prog.stage.is_empty() && prog.tail.is_empty());
        // Ready send: post, signal, await, Rsend, wait.
        let prog = compile(by_number(4).unwrap(), true, true, false).unwrap();
        assert_eq!(
            prog.body,
            vec![
                Op::PostRecv { ahead: 0 },
                Op::Signal { ahead: 0 },
                Op::AwaitReady { skip_first: false },
                Op::Send(Mode::Ready),
                Op::WaitRecv { signal: true }
            ]
        );
    }

    #[test]
    fn the_prepost_program_is_the_seeds_list() {
        // (0,3): stage: post 0. Each i: post i+1; Isend i; complete recv i; complete send i-1.
        let prog = compile(by_number(3).unwrap(), true, false, true).unwrap();
        assert_eq!(prog.stage, vec![Op::PostRecv { ahead: 0 }]);
        assert_eq!(
            prog.body,
            vec![
                Op::PostRecv { ahead: 1 },
                Op::Isend(Mode::Standard),
                Op::WaitRecv { signal: false },
                Op::WaitSend { behind: 1 }
            ]
        );
        assert_eq!(prog.tail, vec![Op::WaitSend { behind: 1 }]);
        // (1,0) processor 2: the blocking receive becomes the completion of the preposted one.
        let prog = compile(by_number(100).unwrap(), false, false, true).unwrap();
        assert_eq!(
            prog.body,
            vec![
                Op::PostRecv { ahead: 1 },
                Op::WaitRecv { signal: false },
                Op::Send(Mode::Standard)
            ]
        );
        assert!(prog.tail.is_empty());
        // Ready sends collect packet 0's ready message in the stage.
        let prog = compile(by_number(5).unwrap(), true, true, true).unwrap();
        assert_eq!(
            prog.stage,
            vec![
                Op::PostRecv { ahead: 0 },
                Op::Signal { ahead: 0 },
                Op::AwaitReady { skip_first: false }
            ]
        );
        assert!(prog.body.contains(&Op::AwaitReady { skip_first: true }));
        // Native sendrecv has no prepost program.
        assert!(compile(by_number(6).unwrap(), true, false, true).is_none());
        for p in &PROTOCOLS {
            assert!(compile(p, true, false, false).is_some());
        }
    }

    #[test]
    fn cycles_cover_every_rank_and_processor_1_sends_to_processor_2() {
        for q in 2..13 {
            for d in 1..q {
                for r in 0..q {
                    let (k, len) = cycle_position(r, q, d);
                    assert!(k < len && len >= 2, "q {q} d {d} r {r}");
                    let (k2, len2) = cycle_position((r + d) % q, q, d);
                    assert_eq!(len2, len);
                    assert_eq!(k2, (k + 1) % len, "q {q} d {d} r {r}");
                    if plays_first(k, len) {
                        assert!(
                            !plays_first(k2, len),
                            "processor 1 never sends to processor 1"
                        );
                    }
                }
                // Position 0 of every cycle plays processor 1.
                assert!(plays_first(0, cycle_position(0, q, d).1));
            }
        }
        // A pair is a cycle of two: 0 first, 1 second.
        assert_eq!(cycle_position(1, 2, 1), (1, 2));
        assert!(plays_first(0, 2) && !plays_first(1, 2));
        // An odd cycle: the last even position plays processor 2.
        assert!(!plays_first(2, 3));
    }
}
