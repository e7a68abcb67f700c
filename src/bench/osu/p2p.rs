//! OSU's point-to-point programs.
//!
//! * osu_latency: a blocking ping-pong between ranks 0 and 1, timed in one
//!   loop on rank 0: latency = total / (2 · iterations).
//! * osu_multi_lat: the same ping-pong on every pair i ↔ i + P/2 at once,
//!   averaged over the lower ranks.
//! * osu_bw: per iteration a window of W MPI_Isend (the receiver W
//!   MPI_Irecv), MPI_Waitall, then a 1-byte acknowledgement back; timed on
//!   the sender from the first MPI_Isend to the acknowledgement;
//!   bandwidth = X · W / t. osu_bibw: both ways at once, no acknowledgement,
//!   2 · X · W / t.
//! * osu_mbw_mr: osu_bw on every pair i ↔ i + P/2, with a barrier before
//!   every iteration; MB/s and messages/s from the mean sender time.
//! * osu_bw_persistent, osu_bibw_persistent: the window's MPI_Send_init /
//!   MPI_Recv_init made once per size (untimed), every iteration
//!   MPI_Startall of them and MPI_Waitall, MPI_Request_free after the size.
//!
//! The acknowledgement is one MPI_CHAR, as in OMB 7.4's osu_mbw_mr and
//! osu_bw_persistent (OMB 7.3 and earlier sent 4).
//!
//! Buffers as OMB's: every message of a window is sent from one send
//! buffer and received into one receive buffer (`-b single`, the default),
//! so a window of large messages stays in cache as it does under the real
//! program; with `-b multiple` message k of the window is sent from and
//! received into buffer k of W (OMB's `s_buf[j]`, `r_buf[j]`). The
//! acknowledgement lands in the first byte of the initiator's receive
//! buffer, which no data reaches (OMB's `r_buf[0]`). `--check` verifies
//! every receive buffer byte for byte, as OMB's `-c` validates its one
//! buffer (or its W buffers), and the acknowledgement.

use anyhow::Result;

use super::{axis, BW_REPS, INFO, LATENCY_REPS, WINDOW};
use crate::bench::{patterns, Benchmark, Class, Info, Kernel, Setup};
use crate::check::{self, Expect, Segment};
use crate::comm::{self, persistent, Buffer, Comm, Elem, Msg, Request};
use crate::contract::axis::{Point, SweepCx};
use crate::contract::placement::{Placement, Role};
use crate::method::Method;
use crate::results::BenchResult;

static LATENCY_INFO: Info = Info {
    name: "osu_latency",
    class: Class::SingleTransfer,
    description: "OSU ping-pong between ranks 0 and 1: total / (2 x iterations)",
    placement: Placement::XorZero(1),
    time_scale: 0.5,
    reps: Some(LATENCY_REPS),
    ranks: crate::bench::RankRule::PAIR,
    ..INFO
};

pub static LATENCY: patterns::PingPong = patterns::PingPong(&LATENCY_INFO);

static MULTI_LAT_INFO: Info = Info {
    name: "osu_multi_lat",
    class: Class::SingleTransfer,
    description: "OSU ping-pong on every pair i <-> i+P/2 at once, mean over pairs",
    placement: Placement::Halves,
    ..LATENCY_INFO
};

pub static MULTI_LAT: MultiLat = MultiLat(patterns::PingPong(&MULTI_LAT_INFO));

/// osu_multi_lat: the shared ping-pong on the pairs i <-> i + N (OSU -p N,
/// default P/2), each row with its `pairs`.
pub struct MultiLat(pub patterns::PingPong);

impl Benchmark for MultiLat {
    fn info(&self) -> &'static Info {
        self.0 .0
    }

    fn points(&self, cx: &SweepCx) -> Vec<Point> {
        let n = pairs_of(cx) as u64;
        cx.default_points(self.info())
            .into_iter()
            .map(|p| p.with("pairs", n))
            .collect()
    }

    fn placement(&self, p: &Point) -> Placement {
        pair_placement(self.info(), p)
    }

    fn need(&self, p: &Point, q: usize) -> u64 {
        Benchmark::need(&self.0, p, q)
    }

    fn refuse(&self, p: &Point, q: usize) -> Option<String> {
        Benchmark::refuse(&self.0, p, q).or_else(|| pairs_refused(self.info(), p, q))
    }

    fn kernel<'a>(&'a self, s: Setup<'a>, p: &Point) -> Result<Box<dyn Kernel + 'a>> {
        Benchmark::kernel(&self.0, s, p)
    }

    fn derive(&self, r: &mut BenchResult) {
        Benchmark::derive(&self.0, r)
    }

    fn retyped(&self, info: &'static Info) -> Option<&'static dyn Benchmark> {
        Some(Box::leak(Box::new(MultiLat(patterns::PingPong(info)))))
    }
}

/// The pairs of a pairs program on `cx.q` processes: OSU -p, or P/2.
fn pairs_of(cx: &SweepCx) -> usize {
    super::one(cx.axes, axis::PAIRS).map_or(cx.q / 2, |n| n as usize)
}

/// The pairs programs pair i <-> i + N (`pairs` of the point); the others
/// keep their one placement.
fn pair_placement(info: &Info, p: &Point) -> Placement {
    match (info.placement, p.u64("pairs")) {
        (Placement::Halves, Some(n)) => Placement::FirstPairs(n as usize),
        (pl, _) => pl,
    }
}

/// Why a point of a pairs program cannot run on `q` processes: more pairs than q/2.
fn pairs_refused(info: &Info, p: &Point, q: usize) -> Option<String> {
    let n = p.u64("pairs")? as usize;
    super::check_pairs(n, q)
        .err()
        .map(|e| format!("{}: {e}", info.name))
}

/// A windowed bandwidth program.
pub struct Windowed {
    pub info: &'static Info,
    /// Both directions at once, no acknowledgement (osu_bibw).
    pub both: bool,
    /// Persistent requests made once per size, started every iteration
    /// (MPI_Send_init / MPI_Recv_init, MPI_Startall).
    pub persistent: bool,
}

static BW_INFO: Info = Info {
    name: "osu_bw",
    class: Class::SingleTransfer,
    description:
        "OSU windowed bandwidth 0 -> 1: W Isends, Waitall, 1-byte ack; X*W/t (MB = 10^6 B)",
    placement: Placement::XorZero(1),
    reps: Some(BW_REPS),
    ranks: crate::bench::RankRule::PAIR,
    ..INFO
};

pub static BW: Windowed = Windowed {
    info: &BW_INFO,
    both: false,
    persistent: false,
};

static BIBW_INFO: Info = Info {
    name: "osu_bibw",
    description: "OSU bidirectional windowed bandwidth 0 <-> 1, no ack; 2*X*W/t (MB = 10^6 B)",
    ..BW_INFO
};

pub static BIBW: Windowed = Windowed {
    info: &BIBW_INFO,
    both: true,
    persistent: false,
};

static MBW_MR_INFO: Info = Info {
    name: "osu_mbw_mr",
    description:
        "OSU osu_bw on all pairs i -> i+P/2 at once, barrier per iteration; MB/s, messages/s",
    placement: Placement::Halves,
    method: Some(Method::PerCall),
    ..BW_INFO
};

pub static MBW_MR: Windowed = Windowed {
    info: &MBW_MR_INFO,
    both: false,
    persistent: false,
};

static BW_PERSISTENT_INFO: Info = Info {
    name: "osu_bw_persistent",
    description: "OSU osu_bw with persistent requests (MPI_Send_init/MPI_Recv_init, MPI_Startall)",
    ..BW_INFO
};

pub static BW_PERSISTENT: Windowed = Windowed {
    info: &BW_PERSISTENT_INFO,
    both: false,
    persistent: true,
};

static BIBW_PERSISTENT_INFO: Info = Info {
    name: "osu_bibw_persistent",
    description:
        "OSU osu_bibw with persistent requests (MPI_Send_init/MPI_Recv_init, MPI_Startall)",
    ..BIBW_INFO
};

pub static BIBW_PERSISTENT: Windowed = Windowed {
    info: &BIBW_PERSISTENT_INFO,
    both: true,
    persistent: true,
};

static LATENCY_PERSISTENT_INFO: Info = Info {
    name: "osu_latency_persistent",
    description: "OSU ping-pong 0 <-> 1 with persistent requests (MPI_Start, MPI_Wait)",
    ..LATENCY_INFO
};

pub static LATENCY_PERSISTENT: PersistentPingPong = PersistentPingPong {
    info: &LATENCY_PERSISTENT_INFO,
};

/// osu_latency with persistent requests: MPI_Send_init and MPI_Recv_init
/// once per size; per iteration MPI_Start and MPI_Wait of the send, then of
/// the receive (the partner the other way round).
pub struct PersistentPingPong {
    pub info: &'static Info,
}

impl Benchmark for PersistentPingPong {
    fn info(&self) -> &'static Info {
        self.info
    }

    fn need(&self, p: &Point, _q: usize) -> u64 {
        2 * self.info.span(p.bytes) as u64
    }

    fn refuse(&self, p: &Point, _q: usize) -> Option<String> {
        let i = self.info;
        Msg::count_error(i.elem, i.elems(p.bytes)).map(|e| format!("{}: {e}", i.name))
    }

    fn retyped(&self, info: &'static Info) -> Option<&'static dyn Benchmark> {
        Some(Box::leak(Box::new(PersistentPingPong { info })))
    }

    fn kernel<'a>(&'a self, s: Setup<'a>, p: &Point) -> Result<Box<dyn Kernel + 'a>> {
        let x = p.bytes;
        let span = self.info.span(x);
        let (sbuf, rbuf) = s.arena.pair(span, span)?;
        let msg = self.info.msg(x)?;
        let peer = s.role.to.unwrap_or(s.comm.rank);
        let mut reqs = [comm::request_null(), comm::request_null()];
        if s.role.active {
            s.comm.send_init(sbuf.ptr(), &msg, peer, 1, &mut reqs[0])?;
            s.comm
                .recv_init(rbuf.mut_ptr(), &msg, peer, 1, &mut reqs[1])?;
        }
        Ok(Box::new(PersistentKernel {
            comm: s.comm,
            role: s.role,
            peer,
            x,
            sbuf,
            rbuf,
            reqs,
            _msg: msg,
        }))
    }
}

struct PersistentKernel<'a> {
    comm: &'a Comm,
    role: Role,
    peer: usize,
    x: usize,
    sbuf: &'a mut Buffer,
    rbuf: &'a mut Buffer,
    /// Send, receive.
    reqs: [Request; 2],
    /// The datatype the requests were made with lives as long as they do.
    _msg: Msg,
}

impl Kernel for PersistentKernel<'_> {
    #[inline(always)]
    fn run(&mut self, _rep: usize) {
        if !self.role.active {
            return;
        }
        let order = if self.role.initiator { [0, 1] } else { [1, 0] };
        for i in order {
            persistent::startall(&mut self.reqs[i..=i]);
            comm::wait(&mut self.reqs[i]);
        }
    }

    fn prepare(&mut self, rep: usize) {
        check::fill(self.sbuf, self.x, None, self.comm.rank, rep, self.x);
        check::poison(self.rbuf, self.x, None, rep, self.x);
    }

    /// The message byte for byte, and both persistent requests still there.
    fn verify(&mut self, rep: usize) -> u64 {
        let e = self.expect();
        let lost = if self.role.active {
            lost_requests(&self.reqs)
        } else {
            0
        };
        check::verify(&e, self.rbuf, Elem::Byte, self.comm.size, rep, self.x) + lost
    }

    fn corrupt(&mut self) {
        let e = self.expect();
        check::corrupt(&e, self.rbuf, Elem::Byte);
    }
}

impl PersistentKernel<'_> {
    fn expect(&self) -> Expect {
        if self.role.active && self.x > 0 {
            Expect::Bytes(vec![Segment {
                offset: 0,
                len: self.x,
                sender: self.peer,
                sender_offset: 0,
            }])
        } else {
            Expect::Nothing
        }
    }
}

impl Drop for PersistentKernel<'_> {
    fn drop(&mut self) {
        persistent::free(&mut self.reqs);
    }
}

/// The window size of a point.
pub(super) fn window_of(p: &Point) -> usize {
    p.u64("window").map_or(WINDOW, |w| w as usize).max(1)
}

/// Buffers a window's messages are sent from and received into: one
/// (OMB's default, `-b single`), or one per message with `-b multiple`.
pub(super) fn buffers_of(p: &Point, w: usize) -> usize {
    if p.u64("buffers") == Some(w as u64) {
        w
    } else {
        1
    }
}

/// Bytes of a window's requests (W sends and W receives) on one rank,
/// the library's request objects with them.
fn request_bytes(w: usize) -> u64 {
    comm::pending_bytes(w.saturating_mul(2))
}

/// Why a window of `w` messages cannot run within `mem` bytes per rank, or
/// beyond what one MPI_Waitall counts (checked before anything runs).
pub(super) fn window_refused(w: usize, mem: u64) -> Option<String> {
    let need = request_bytes(w);
    if 2 * w as u64 > i32::MAX as u64 {
        Some(format!(
            "a window of {w} messages is {} requests, beyond the {} one MPI_Waitall counts",
            2 * w as u64,
            i32::MAX
        ))
    } else if need > mem {
        Some(format!(
            "a window of {w} messages needs {need} bytes of pending requests per rank (handles and the library's request objects), above the memory limit of {mem} bytes per rank (--mem)"
        ))
    } else {
        None
    }
}

impl Windowed {
    /// (send, receive) bytes: one buffer of X (what a derived datatype
    /// spans), or W of them with `-b multiple`; at least the
    /// acknowledgement's byte.
    fn lens(&self, p: &Point) -> (usize, usize) {
        let n = self.info.span(p.bytes) * buffers_of(p, window_of(p));
        (n.max(1), n.max(1))
    }
}

impl Benchmark for Windowed {
    fn info(&self) -> &'static Info {
        self.info
    }

    fn points(&self, cx: &SweepCx) -> Vec<Point> {
        let w = super::one(cx.axes, axis::WINDOW).map_or(WINDOW, |w| w as usize);
        let multiple = super::one(cx.axes, axis::MULTIPLE).is_some();
        let halves = self.info.placement == Placement::Halves;
        // OSU -V (osu_mbw_mr): every size at every window of WINDOW_SIZES.
        let windows: Vec<usize> = if halves && super::one(cx.axes, axis::VARY_WINDOW).is_some() {
            super::VARIED_WINDOWS.to_vec()
        } else {
            vec![w]
        };
        let mut v = Vec::new();
        for &x in cx.sizes {
            for &w in &windows {
                let mut p = Point::bytes(x).with("window", w as u64);
                if halves {
                    p = p.with("pairs", pairs_of(cx) as u64);
                }
                if multiple {
                    p = p.with("buffers", w as u64);
                }
                v.push(p);
            }
        }
        v
    }

    fn placement(&self, p: &Point) -> Placement {
        pair_placement(self.info, p)
    }

    fn need(&self, p: &Point, _q: usize) -> u64 {
        let (s, r) = self.lens(p);
        (s as u64 + r as u64).saturating_add(request_bytes(window_of(p)))
    }

    fn refuse(&self, p: &Point, q: usize) -> Option<String> {
        let i = self.info;
        Msg::count_error(i.elem, i.elems(p.bytes))
            .map(|e| format!("{}: {e}", i.name))
            .or_else(|| pairs_refused(i, p, q))
    }

    fn retyped(&self, info: &'static Info) -> Option<&'static dyn Benchmark> {
        Some(Box::leak(Box::new(Windowed { info, ..*self })))
    }

    fn kernel<'a>(&'a self, s: Setup<'a>, p: &Point) -> Result<Box<dyn Kernel + 'a>> {
        let w = window_of(p);
        let (send_len, recv_len) = self.lens(p);
        let (sbuf, rbuf) = s.arena.pair(send_len, recv_len)?;
        let msg = self.info.msg(p.bytes)?;
        let mut k = WindowKernel {
            comm: s.comm,
            peer: s.role.to.unwrap_or(s.comm.rank),
            role: s.role,
            both: self.both,
            x: p.bytes,
            slot: self.info.span(p.bytes),
            w,
            slots: buffers_of(p, w),
            sbuf,
            rbuf,
            send_len,
            recv_len,
            msg,
            ack: Msg::small(1),
            reqs: vec![comm::request_null(); 2 * w],
            persistent: 0,
        };
        if self.persistent {
            k.persistent = k.post(true)?;
        }
        Ok(Box::new(k))
    }

    /// OSU's figures: MB/s = pairs · X · W / t (× 2 both ways), MB = 10^6
    /// bytes, from the mean time per iteration of the senders; messages/s
    /// = pairs · W / t.
    fn derive(&self, r: &mut BenchResult) {
        let ways = if self.both { 2.0 } else { 1.0 };
        let halves = self.info.placement == Placement::Halves;
        let all = (r.processes / 2) as u64;
        for row in &mut r.rows {
            let pairs = if halves {
                row.params
                    .get("pairs")
                    .and_then(|v| v.as_u64())
                    .unwrap_or(all)
            } else {
                1
            };
            super::window_rate(row, ways * pairs as f64);
        }
    }
}

struct WindowKernel<'a> {
    comm: &'a Comm,
    role: Role,
    peer: usize,
    both: bool,
    x: usize,
    /// Bytes of one buffer (X, or what a derived datatype spans).
    slot: usize,
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
    /// Persistent requests made (the first `persistent` of `reqs`), 0 otherwise.
    persistent: usize,
}

impl WindowKernel<'_> {
    fn sends(&self) -> bool {
        self.role.active && (self.role.initiator || self.both)
    }
    fn recvs(&self) -> bool {
        self.role.active && (!self.role.initiator || self.both)
    }

    fn expect(&self) -> Expect {
        let mut segs = Vec::new();
        if self.recvs() {
            // Every buffer holds what the partner's buffer of the same
            // index held (with one buffer, every message of the window).
            for k in 0..self.slots {
                segs.push(Segment {
                    offset: k * self.slot,
                    len: self.x,
                    sender: self.peer,
                    sender_offset: k * self.slot,
                });
            }
        }
        if self.role.active && !self.both && self.role.initiator {
            // The acknowledgement, into the first byte of the receive
            // buffer (no data reaches the initiator one way): the first
            // byte of the partner's send buffer.
            segs.push(Segment {
                offset: 0,
                len: 1,
                sender: self.peer,
                sender_offset: 0,
            });
        }
        if segs.is_empty() {
            Expect::Nothing
        } else {
            Expect::Bytes(segs)
        }
    }
}

impl WindowKernel<'_> {
    /// The window's receives, then its sends (message k into and from
    /// buffer k mod the buffers): started
    /// (MPI_Irecv, MPI_Isend), or made persistent (MPI_Recv_init,
    /// MPI_Send_init). Returns how many requests.
    #[inline(always)]
    fn post(&mut self, persistent: bool) -> Result<usize, comm::Error> {
        let (s, r) = (self.sbuf.ptr(), self.rbuf.mut_ptr());
        let mut n = 0;
        if self.recvs() {
            for k in 0..self.w {
                let slot = r.wrapping_add(k % self.slots * self.slot);
                let req = &mut self.reqs[n];
                if persistent {
                    self.comm.recv_init(slot, &self.msg, self.peer, 100, req)?;
                } else {
                    self.comm.irecv(slot, &self.msg, self.peer, 100, req);
                }
                n += 1;
            }
        }
        if self.sends() {
            for k in 0..self.w {
                let slot = s.wrapping_add(k % self.slots * self.slot);
                let req = &mut self.reqs[n];
                if persistent {
                    self.comm.send_init(slot, &self.msg, self.peer, 100, req)?;
                } else {
                    self.comm.isend(slot, &self.msg, self.peer, 100, req);
                }
                n += 1;
            }
        }
        Ok(n)
    }
}

impl Drop for WindowKernel<'_> {
    fn drop(&mut self) {
        if self.persistent > 0 {
            persistent::free(&mut self.reqs[..self.persistent]);
        }
    }
}

impl Kernel for WindowKernel<'_> {
    /// One window: the persistent requests started (MPI_Startall), or the
    /// receives and sends posted (MPI_Irecv, MPI_Isend); MPI_Waitall; then
    /// the acknowledgement (one way only).
    #[inline(always)]
    fn run(&mut self, _rep: usize) {
        if !self.role.active {
            return;
        }
        let n = if self.persistent > 0 {
            persistent::startall(&mut self.reqs[..self.persistent]);
            self.persistent
        } else {
            // (Non-blocking posts end the job on a failure: never Err.)
            self.post(false).unwrap_or_else(|e| e.end_job())
        };
        comm::waitall(&mut self.reqs[..n]);
        if !self.both {
            if self.role.initiator {
                self.comm
                    .recv(self.rbuf.mut_ptr(), &self.ack, self.peer, 101);
            } else {
                self.comm.send(self.sbuf.ptr(), &self.ack, self.peer, 101);
            }
        }
    }

    fn prepare(&mut self, rep: usize) {
        let len = self.recv_len;
        check::fill(self.sbuf, self.send_len, None, self.comm.rank, rep, self.x);
        check::poison(self.rbuf, len, None, rep, self.x);
    }

    /// Every receive buffer and the acknowledgement byte for byte; the persistent
    /// programs also count a persistent request that no longer exists (an
    /// iteration that replaced it with a fresh one) as an error.
    fn verify(&mut self, rep: usize) -> u64 {
        let e = self.expect();
        check::verify(&e, self.rbuf, Elem::Byte, self.comm.size, rep, self.x)
            + lost_requests(&self.reqs[..self.persistent])
    }

    fn corrupt(&mut self) {
        let e = self.expect();
        check::corrupt(&e, self.rbuf, Elem::Byte);
    }
}

/// Persistent requests that are gone: MPI_Waitall leaves an inactive
/// persistent request in place and sets a completed non-persistent one to
/// MPI_REQUEST_NULL, so a null handle among them means an iteration did
/// not use them.
fn lost_requests(reqs: &[Request]) -> u64 {
    let null = comm::request_null();
    reqs.iter().filter(|r| **r == null).count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_beyond_memory_or_count_is_refused() {
        assert_eq!(window_refused(64, 1 << 30), None);
        let e = window_refused(1 << 28, 1 << 30).unwrap();
        assert!(
            e.contains("above the memory limit") && e.contains("--mem"),
            "{e}"
        );
        let e = window_refused(99_999_999_999, u64::MAX).unwrap();
        assert!(e.contains("MPI_Waitall"), "{e}");
        let p = Point::bytes(8).with("window", 64u64);
        let (s, r) = BW.lens(&p);
        assert_eq!(BW.need(&p, 2), (s + r) as u64 + request_bytes(64));
    }

    #[test]
    fn a_window_shares_one_buffer_each_way_as_omb() {
        // OMB's default (-b single): the 64 messages of a 1 MiB window
        // from one send buffer into one receive buffer.
        let p = Point::bytes(1 << 20).with("window", 64u64);
        assert_eq!(BW.lens(&p), (1 << 20, 1 << 20));
        assert_eq!(BIBW.lens(&p), (1 << 20, 1 << 20));
        // -b multiple: a buffer per message, both ways.
        let p = p.with("buffers", 64u64);
        assert_eq!(BW.lens(&p), (64 << 20, 64 << 20));
        // 0 bytes: the acknowledgement's byte.
        assert_eq!(BW.lens(&Point::bytes(0).with("window", 64u64)), (1, 1));
    }
}
