//! OSU's congestion tests (OMB 7.4, `c/mpi/congestion`): osu_bw with one
//! parent and many children.
//!
//! * osu_bw_fan_out: per iteration the parent posts, for every slot j of
//!   the window and every child, an MPI_Isend of X bytes to that child,
//!   MPI_Waitall on all of them, then receives a 1-byte acknowledgement
//!   from each child in turn; a child posts W MPI_Irecv from the parent,
//!   MPI_Waitall, and sends its acknowledgement.
//! * osu_bw_fan_in: the other way: every child sends its window of W
//!   MPI_Isend to the parent and waits for the parent's acknowledgement;
//!   the parent posts an MPI_Irecv per slot and child, MPI_Waitall, then
//!   acknowledges every child.
//!
//! Timed on the parent, from the first post to the last acknowledgement;
//! bandwidth = X · W · children / t (MB = 10^6 bytes), OSU's figure with
//! one process per node. OMB groups the ranks by node (the first node's
//! ranks are parents, each with the ranks of the same local rank on the
//! other nodes as children); here rank 0 is the parent and every other
//! rank a child ([`Placement::Star`]), which is OMB's layout with one
//! process per node.
//!
//! Buffers as osu_bw's (OMB's): every message of a window is sent from
//! one buffer and received into one (`-b multiple`: buffer k of W for
//! message k). The parent of fan-in receives into one such buffer per
//! child, so that `--check` tells the children's data apart; `--check`
//! verifies every receive buffer byte for byte, and every
//! acknowledgement.

use anyhow::Result;

use super::p2p::{buffers_of, window_of};
use super::{axis, BW_REPS, INFO, WINDOW};
use crate::bench::{Benchmark, Class, Info, Kernel, Setup};
use crate::check::{self, Expect, Segment};
use crate::comm::{self, Buffer, Comm, Elem, Msg, Request};
use crate::contract::axis::{Point, SweepCx};
use crate::contract::placement::{Placement, Role};
use crate::results::BenchResult;

/// A congestion program: the window of osu_bw between one parent and every child.
pub struct Fan {
    pub info: &'static Info,
    /// Children send to the parent (fan-in); otherwise the parent sends (fan-out).
    pub inward: bool,
}

static FAN_IN_INFO: Info = Info {
    name: "osu_bw_fan_in",
    class: Class::SingleTransfer,
    description: "OSU fan-in: every rank sends W Isends to rank 0, which acks each; X*W*(P-1)/t (MB = 10^6 B)",
    placement: Placement::Star,
    reps: Some(BW_REPS),
    ranks: crate::bench::RankRule::PAIR,
    ..INFO
};

pub static FAN_IN: Fan = Fan {
    info: &FAN_IN_INFO,
    inward: true,
};

static FAN_OUT_INFO: Info = Info {
    name: "osu_bw_fan_out",
    description: "OSU fan-out: rank 0 sends W Isends to every other rank, each acks; X*W*(P-1)/t (MB = 10^6 B)",
    ..FAN_IN_INFO
};

pub static FAN_OUT: Fan = Fan {
    info: &FAN_OUT_INFO,
    inward: false,
};

/// Bytes of one rank's buffers: (send, receive) for the parent or a child
/// of `children` children.
fn lens(inward: bool, parent: bool, x: usize, slots: usize, children: usize) -> (usize, usize) {
    // A send buffer always holds the acknowledgement's byte.
    let send = (x * slots).max(1);
    let recv = match (inward, parent) {
        (true, true) => children * slots * x,
        (true, false) => 1,
        (false, true) => children,
        (false, false) => slots * x,
    };
    (send, recv.max(1))
}

impl Benchmark for Fan {
    fn info(&self) -> &'static Info {
        self.info
    }

    fn points(&self, cx: &SweepCx) -> Vec<Point> {
        let w = super::one(cx.axes, axis::WINDOW).map_or(WINDOW, |w| w as usize);
        let multiple = super::one(cx.axes, axis::MULTIPLE).is_some();
        cx.sizes
            .iter()
            .map(|&x| {
                let mut p = Point::bytes(x).with("window", w as u64);
                if multiple {
                    p = p.with("buffers", w as u64);
                }
                p
            })
            .collect()
    }

    fn need(&self, p: &Point, q: usize) -> u64 {
        let w = window_of(p);
        let slots = buffers_of(p, w);
        let n = q.saturating_sub(1);
        let (s, r) = lens(self.inward, true, p.bytes, slots, n);
        let (_, rl) = lens(self.inward, false, p.bytes, slots, n);
        ((s + r.max(rl)) as u64).saturating_add(comm::pending_bytes(n.saturating_mul(w)))
    }

    fn refuse(&self, p: &Point, _q: usize) -> Option<String> {
        Msg::count_error(Elem::Byte, p.bytes).map(|e| format!("{}: {e}", self.info.name))
    }

    fn kernel<'a>(&'a self, s: Setup<'a>, p: &Point) -> Result<Box<dyn Kernel + 'a>> {
        let w = window_of(p);
        let slots = buffers_of(p, w);
        let parent = s.role.active && s.role.initiator;
        let peers: Vec<usize> = if parent {
            s.role.neighbours.clone()
        } else {
            s.role.to.into_iter().collect()
        };
        let n = if parent { peers.len() } else { 1 };
        let (send_len, recv_len) = lens(self.inward, parent, p.bytes, slots, n);
        let (sbuf, rbuf) = s.arena.pair(send_len, recv_len)?;
        Ok(Box::new(FanKernel {
            comm: s.comm,
            role: s.role,
            parent,
            inward: self.inward,
            peers,
            x: p.bytes,
            w,
            slots,
            sbuf,
            rbuf,
            send_len,
            recv_len,
            msg: Msg::bytes(p.bytes)?,
            ack: Msg::small(1),
            reqs: vec![comm::request_null(); n * w],
        }))
    }

    /// OSU's figure: MB/s = X · W · children / t from the parent's mean
    /// time per iteration; messages/s = W · children / t.
    fn derive(&self, r: &mut BenchResult) {
        super::window_rates(r, r.processes.saturating_sub(1) as f64);
    }
}

struct FanKernel<'a> {
    comm: &'a Comm,
    role: Role,
    parent: bool,
    inward: bool,
    /// The parent's children in rank order, or a child's parent.
    peers: Vec<usize>,
    x: usize,
    w: usize,
    /// Buffers of a window: 1, or W with `-b multiple`.
    slots: usize,
    sbuf: &'a mut Buffer,
    rbuf: &'a mut Buffer,
    send_len: usize,
    recv_len: usize,
    msg: Msg,
    ack: Msg,
    reqs: Vec<Request>,
}

impl FanKernel<'_> {
    /// Where message j of the window is sent from, or received into
    /// (in a child's part of the fan-in parent's buffer).
    fn offset(&self, j: usize) -> usize {
        j % self.slots * self.x
    }

    fn expect(&self) -> Expect {
        if !self.role.active {
            return Expect::Nothing;
        }
        let mut segs = Vec::new();
        let data = |segs: &mut Vec<Segment>, base: usize, sender: usize, j: usize| {
            if self.x > 0 {
                segs.push(Segment {
                    offset: base + self.offset(j),
                    len: self.x,
                    sender,
                    sender_offset: self.offset(j),
                });
            }
        };
        let ack = |segs: &mut Vec<Segment>, offset: usize, sender: usize| {
            segs.push(Segment {
                offset,
                len: 1,
                sender,
                sender_offset: 0,
            });
        };
        match (self.inward, self.parent) {
            (true, true) => {
                for (i, &c) in self.peers.iter().enumerate() {
                    for j in 0..self.slots {
                        data(&mut segs, i * self.slots * self.x, c, j);
                    }
                }
            }
            (false, false) => {
                for j in 0..self.slots {
                    data(&mut segs, 0, self.peers[0], j);
                }
            }
            (false, true) => {
                for (i, &c) in self.peers.iter().enumerate() {
                    ack(&mut segs, i, c);
                }
            }
            (true, false) => ack(&mut segs, 0, self.peers[0]),
        }
        Expect::Bytes(segs)
    }
}

impl Kernel for FanKernel<'_> {
    #[inline(always)]
    fn run(&mut self, _rep: usize) {
        if !self.role.active {
            return;
        }
        let (s, r) = (self.sbuf.ptr(), self.rbuf.mut_ptr());
        let w = self.w;
        let mut n = 0;
        match (self.inward, self.parent) {
            (false, true) => {
                for j in 0..w {
                    let slot = s.wrapping_add(self.offset(j));
                    for &c in &self.peers {
                        self.comm.isend(slot, &self.msg, c, 100, &mut self.reqs[n]);
                        n += 1;
                    }
                }
                comm::waitall(&mut self.reqs[..n]);
                for (i, &c) in self.peers.iter().enumerate() {
                    self.comm.recv(r.wrapping_add(i), &self.ack, c, 101);
                }
            }
            (false, false) => {
                let p = self.peers[0];
                for j in 0..w {
                    let slot = r.wrapping_add(self.offset(j));
                    self.comm.irecv(slot, &self.msg, p, 100, &mut self.reqs[j]);
                }
                comm::waitall(&mut self.reqs[..w]);
                self.comm.send(s, &self.ack, p, 101);
            }
            (true, true) => {
                let part = self.slots * self.x;
                for j in 0..w {
                    for (i, &c) in self.peers.iter().enumerate() {
                        let slot = r.wrapping_add(i * part + self.offset(j));
                        self.comm.irecv(slot, &self.msg, c, 100, &mut self.reqs[n]);
                        n += 1;
                    }
                }
                comm::waitall(&mut self.reqs[..n]);
                for &c in &self.peers {
                    self.comm.send(s, &self.ack, c, 101);
                }
            }
            (true, false) => {
                let p = self.peers[0];
                for j in 0..w {
                    let slot = s.wrapping_add(self.offset(j));
                    self.comm.isend(slot, &self.msg, p, 100, &mut self.reqs[j]);
                }
                comm::waitall(&mut self.reqs[..w]);
                self.comm.recv(r, &self.ack, p, 101);
            }
        }
    }

    fn prepare(&mut self, rep: usize) {
        check::fill(self.sbuf, self.send_len, None, self.comm.rank, rep, self.x);
        check::poison(self.rbuf, self.recv_len, None, rep, self.x);
    }

    fn verify(&mut self, rep: usize) -> u64 {
        let e = self.expect();
        check::verify(&e, self.rbuf, Elem::Byte, self.comm.size, rep, self.x)
    }

    fn corrupt(&mut self) {
        let e = self.expect();
        check::corrupt(&e, self.rbuf, Elem::Byte);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_as_omb_one_per_child_on_the_fan_in_parent() {
        // Fan-in parent: 3 children x one buffer of 8 bytes (x 4 with
        // -b multiple); a child: its buffer(s), and the ack.
        assert_eq!(lens(true, true, 8, 1, 3), (8, 24));
        assert_eq!(lens(true, true, 8, 4, 3), (32, 96));
        assert_eq!(lens(true, false, 8, 4, 3), (32, 1));
        // Fan-out parent: one ack per child; a child: one buffer (or W).
        assert_eq!(lens(false, true, 8, 1, 3), (8, 3));
        assert_eq!(lens(false, false, 8, 1, 3), (8, 8));
        assert_eq!(lens(false, false, 8, 4, 3), (32, 32));
        // A 0-byte size still carries the acknowledgement's byte.
        assert_eq!(lens(false, true, 0, 1, 1), (1, 1));
    }
}
