//! What every IMB-P2P benchmark shares (IMB 2021.11, `src_c/P2P`): every
//! process of the world takes part; before each length a pause (`-pause`,
//! default 0.1 s) and after it another; each repetition writes one byte per
//! cache line of every buffer it sends before sending it (`-msgwr`) and
//! reads one per line of every buffer it received (`-msgrd`), inside the
//! timed loop, as IMB-P2P's definition does; one clock pair around all
//! repetitions (loop timing, after a barrier).
//!
//! The figures, from each rank's time T over n repetitions of M messages
//! (M: all the group's messages of one repetition):
//! t[usec] = ΣT / (n · M) (PingPong: / (2 n M)), the mean over the ranks
//! of the time per repetition scaled by [`Info::time_scale`];
//! Mbytes/sec = n M X / max T / 10^6; Msg/sec = n M / max T.
//!
//! Validation (`--check`): each rank's send blocks hold its pattern; the
//! bytes a cache-line touch writes are the bytes already there, so a
//! checked repetition still touches every line and still validates.

use anyhow::Result;

use crate::bench::{Benchmark, Info, Kernel, Setup};
use crate::check::{self, Expect, Segment};
use crate::comm::{self, request_null, Buffer, Comm, Elem, Msg, Request};
use crate::contract::axis::{Point, SweepCx};
use crate::results::BenchResult;

/// Axes a front end sets (IMB-P2P's flags); rows carry them when given.
pub const PAUSE_AXIS: &str = "pause_us";
pub const MSGWR_AXIS: &str = "msgwr";
pub const MSGRD_AXIS: &str = "msgrd";

/// IMB-P2P's defaults: -pause 100000, -msgwr true, -msgrd true.
pub const DEFAULT_PAUSE_US: f64 = 100_000.0;

/// IMB_P2P_CACHE_LINE_LEN.
const LINE: usize = 64;

/// One IMB-P2P communication pattern: its partners and one repetition.
pub trait Exchange: Sync + Send + 'static {
    /// Send (and receive) buffers of a rank: one per neighbour (stencils).
    fn blocks(&self) -> usize {
        1
    }

    /// Whether `q` processes can run it (IMB-P2P: "invalid for q
    /// processes"; by default 2 or more).
    fn valid(&self, q: usize) -> bool {
        q >= 2
    }

    /// Messages one repetition moves over the whole group (M; by default
    /// one per process).
    fn messages(&self, q: usize) -> usize {
        q
    }

    /// Per-point partners of `rank` among `q` (pair partner, grid
    /// neighbours; none by default: the random patterns draw theirs).
    fn peers(&self, _rank: usize, _q: usize) -> Vec<usize> {
        Vec::new()
    }

    /// One repetition (one IMB-P2P iteration).
    fn run(&self, io: &mut Io);

    /// After a repetition: the sender and sender block of each of this
    /// rank's receive blocks, where one arrived (by default one block:
    /// from the rank it last received from, else its first peer).
    fn received(&self, io: &Io) -> Vec<Option<(usize, usize)>> {
        vec![io.got.or(io.peers.first().copied()).map(|a| (a, 0))]
    }

    /// Receives into the send buffer (MPI_Sendrecv_replace).
    fn in_place(&self) -> bool {
        false
    }
}

/// What one repetition works on.
pub struct Io<'a> {
    pub comm: &'a Comm,
    pub rank: usize,
    pub q: usize,
    /// Message length X in bytes, and X bytes as a message.
    pub x: usize,
    pub msg: Msg,
    pub sbuf: &'a mut Buffer,
    pub rbuf: &'a mut Buffer,
    pub reqs: Vec<Request>,
    pub peers: Vec<usize>,
    /// IMB-P2P's random generator's state (Unirandom, Birandom, Corandom).
    pub seed: u64,
    /// The rank whose message this one received last in the repetition
    /// (the random patterns), for validation.
    pub got: Option<usize>,
    /// Corandom's ring.
    pub ring: Vec<usize>,
    msgwr: bool,
    msgrd: bool,
    /// What the read touches add up to (kept, so they are not optimised out).
    sink: usize,
}

impl Io<'_> {
    /// Block `b` of the send buffer.
    #[inline(always)]
    pub fn sp(&self, b: usize) -> *const u8 {
        self.sbuf.ptr().wrapping_add(b * self.x)
    }

    /// Block `b` of the receive buffer.
    #[inline(always)]
    pub fn rp(&mut self, b: usize) -> *mut u8 {
        let x = self.x;
        self.rbuf.mut_ptr().wrapping_add(b * x)
    }

    /// Block `b` of the send buffer, for receiving into it in place.
    #[inline(always)]
    pub fn sp_mut(&mut self, b: usize) -> *mut u8 {
        let x = self.x;
        self.sbuf.mut_ptr().wrapping_add(b * x)
    }

    /// IMB-P2P's touch of the egress buffer (`-msgwr`): a write to every
    /// cache line of send block `b`, of the byte already there.
    #[inline(always)]
    pub fn touch_send(&mut self, b: usize) {
        if self.msgwr {
            let x = self.x;
            let s = &mut self.sbuf.bytes_mut()[b * x..(b + 1) * x];
            for i in (0..x).step_by(LINE) {
                s[i] = std::hint::black_box(s[i]);
            }
        }
    }

    /// IMB-P2P's touch of the ingress buffer (`-msgrd`): a read of every
    /// cache line of receive block `b` (of the send buffer, in place).
    #[inline(always)]
    pub fn touch_recv(&mut self, b: usize, in_place: bool) {
        if self.msgrd {
            let x = self.x;
            let buf = if in_place { &*self.sbuf } else { &*self.rbuf };
            let s = &buf.bytes()[b * x..(b + 1) * x];
            let mut sum = self.sink;
            for i in (0..x).step_by(LINE) {
                sum = sum.wrapping_add(std::hint::black_box(s[i]) as usize);
            }
            self.sink = sum;
        }
    }
}

/// IMB-P2P's random generator (a 64-bit linear congruential one), which
/// every rank runs alike so that all agree on the partners.
#[inline(always)]
pub fn next_random(seed: &mut u64) -> u32 {
    *seed = seed
        .wrapping_mul(7_560_690_468_208_412_377)
        .wrapping_add(4_343_336_064_253_945_357);
    (*seed >> 24) as u32
}

/// An IMB-P2P benchmark: its declaration and its pattern.
pub struct P2p<E: 'static> {
    pub info: &'static Info,
    pub ex: E,
}

impl<E: Exchange> Benchmark for P2p<E> {
    fn info(&self) -> &'static Info {
        self.info
    }

    /// The plan's lengths, with the flags a front end gave.
    fn points(&self, cx: &SweepCx) -> Vec<Point> {
        let given: Vec<(&str, f64)> = [PAUSE_AXIS, MSGWR_AXIS, MSGRD_AXIS]
            .into_iter()
            .filter_map(|a| cx.axis(a).first().map(|&v| (a, v)))
            .collect();
        cx.default_points(self.info)
            .into_iter()
            .map(|p| given.iter().fold(p, |p, &(a, v)| p.with(a, v as u64)))
            .collect()
    }

    fn need(&self, p: &Point, _q: usize) -> u64 {
        let blocks = self.ex.blocks();
        (2 * blocks.saturating_mul(p.bytes) as u64)
            .saturating_add(comm::pending_bytes(blocks.saturating_mul(2)))
    }

    fn refuse(&self, p: &Point, q: usize) -> Option<String> {
        if !self.ex.valid(q) {
            return Some(format!("{} is invalid for {q} processes", self.info.name));
        }
        Msg::count_error(Elem::Byte, p.bytes)
    }

    fn kernel<'a>(&'a self, s: Setup<'a>, p: &Point) -> Result<Box<dyn Kernel + 'a>> {
        let pause = p.f64(PAUSE_AXIS).unwrap_or(DEFAULT_PAUSE_US);
        let on = |a: &str| p.u64(a).is_none_or(|v| v != 0);
        let (q, rank) = (s.comm.size, s.comm.rank);
        let len = self.ex.blocks() * p.bytes;
        let bufs = s.arena.take(&[len, len])?;
        let (a, b) = bufs.split_at_mut(1);
        let io = Io {
            comm: s.comm,
            rank,
            q,
            x: p.bytes,
            msg: Msg::elems(Elem::Byte, p.bytes)?,
            sbuf: &mut a[0],
            rbuf: &mut b[0],
            reqs: vec![request_null(); 2 * self.ex.blocks()],
            peers: self.ex.peers(rank, q),
            seed: 0,
            got: None,
            ring: (0..q).collect(),
            msgwr: on(MSGWR_AXIS),
            msgrd: on(MSGRD_AXIS),
            sink: 0,
        };
        let k = P2pKernel {
            ex: &self.ex,
            io,
            len,
            pause,
        };
        k.pause();
        Ok(Box::new(k))
    }

    /// Mbytes/sec (10^6 bytes) and Msg/sec of the whole group, from the
    /// slowest rank's time.
    fn derive(&self, r: &mut BenchResult) {
        let m = self.ex.messages(r.processes) as f64;
        let scale = self.info.time_scale;
        for row in &mut r.rows {
            let t = row.t_max_us / scale;
            if t.is_finite() && t > 0.0 {
                row.msg_per_sec = Some(m / t * 1e6);
                row.mbytes_per_sec = Some(m * row.bytes as f64 / t);
            }
        }
    }
}

struct P2pKernel<'a, E> {
    ex: &'a E,
    io: Io<'a>,
    /// Bytes of the send (and receive) blocks.
    len: usize,
    pause: f64,
}

impl<E> P2pKernel<'_, E> {
    /// IMB-P2P's pause before and after each length.
    fn pause(&self) {
        if self.pause > 0.0 {
            std::thread::sleep(std::time::Duration::from_secs_f64(self.pause * 1e-6));
        }
    }
}

impl<E> Drop for P2pKernel<'_, E> {
    fn drop(&mut self) {
        self.pause();
    }
}

impl<E: Exchange> Kernel for P2pKernel<'_, E> {
    #[inline(always)]
    fn run(&mut self, _rep: usize) {
        self.ex.run(&mut self.io);
    }

    /// IMB-P2P restarts its random partners for the timed loop.
    fn planned(&mut self, _reps: usize) {
        self.io.seed = 0;
        self.io.ring = (0..self.io.q).collect();
    }

    fn prepare(&mut self, rep: usize) {
        self.io.got = None;
        let (rank, x, len) = (self.io.rank, self.io.x, self.len);
        check::fill(self.io.sbuf, len, None, rank, rep, x);
        if !self.ex.in_place() {
            check::poison(self.io.rbuf, len, None, rep, x);
        }
    }

    fn verify(&mut self, rep: usize) -> u64 {
        let e = self.expect();
        let buf = if self.ex.in_place() {
            &*self.io.sbuf
        } else {
            &*self.io.rbuf
        };
        check::verify(&e, buf, Elem::Byte, self.io.q, rep, self.io.x)
    }

    fn corrupt(&mut self) {
        let e = self.expect();
        let buf = if self.ex.in_place() {
            &mut *self.io.sbuf
        } else {
            &mut *self.io.rbuf
        };
        check::corrupt(&e, buf, Elem::Byte);
    }
}

impl<E: Exchange> P2pKernel<'_, E> {
    /// What this rank's receive blocks hold after the last repetition.
    fn expect(&self) -> Expect {
        let x = self.io.x;
        let segs = self
            .ex
            .received(&self.io)
            .into_iter()
            .enumerate()
            .filter_map(|(b, got)| {
                got.map(|(sender, sb)| Segment {
                    offset: b * x,
                    len: x,
                    sender,
                    sender_offset: sb * x,
                })
            })
            .collect();
        Expect::Bytes(segs)
    }
}

/// The stencils' matching: the sender and its block that rank `me`, whose
/// peers are `mine`, receives into its block `b`. The n-th receive from a
/// peer matches the n-th send of that peer to `me` (one tag, MPI's order),
/// which matters where a peer is a neighbour twice (a side of 2).
pub fn matched(
    peers_of: &dyn Fn(usize) -> Vec<usize>,
    me: usize,
    mine: &[usize],
    b: usize,
) -> Option<(usize, usize)> {
    let from = *mine.get(b)?;
    let nth = mine[..b].iter().filter(|&&p| p == from).count();
    let j = peers_of(from)
        .iter()
        .enumerate()
        .filter(|(_, &p)| p == me)
        .nth(nth)?
        .0;
    Some((from, j))
}
