//! IMB-EXT's one-sided kernels (IMB 2021.11, `IMB_ones_unidir.c`,
//! `IMB_ones_bidir.c`, `IMB_ones_accu.c`, `IMB_window.c`), over a window
//! made once per length (`MPI_Win_create`, displacement unit 1):
//!
//! - non-aggregate mode: every repetition is the operation and an
//!   `MPI_Win_fence` (ranks that do not issue one only fence), at most
//!   MSGS_NONAGGR repetitions (`-iter N,VOL,MSGS_NONAGGR`, default 100);
//! - aggregate mode: a fence before the synchronisation, then the
//!   repetitions' operations and one closing fence inside the clock pair
//!   ([`Kernel::open`], [`Kernel::close`]);
//! - Window: `MPI_Win_create`, fence, a one-byte put to itself, fence,
//!   `MPI_Win_free` per repetition (non-aggregate repetitions).
//!
//! Validation (`--check`): after each checked repetition the rank that holds
//! the data (the target's window, the getter's buffer, the root's window of
//! Accumulate) compares it with its sender's pattern (Accumulate: the sum of
//! every rank's); the window data of the next repetition is laid out before
//! a barrier, so that no rank's next operation races it.

use anyhow::Result;

use crate::bench::patterns::NONAGGR_AXIS;
use crate::bench::{Benchmark, Info, Kernel, Setup};
use crate::check::{self, Expect, Segment};
use crate::comm::rma::{window_cycle, Window, WindowKind};
use crate::comm::{Buffer, Comm, Elem, Msg};
use crate::contract::axis::{Point, SweepCx};

/// Row parameter: 1 in aggregate mode, 0 in non-aggregate mode.
pub const MODE_PARAM: &str = "aggregate";
/// Row parameter of non-aggregate rows: their most repetitions.
pub const NONAGGR_PARAM: &str = "msgs_nonaggr";
/// IMB's MSGS_NONAGGR default.
const NONAGGR: usize = 100;

/// What a repetition does on the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Put,
    Get,
    /// MPI_Accumulate of X/4 MPI_FLOATs with MPI_SUM into rank 0.
    Accumulate,
}

/// IMB-EXT's lengths: multiples of its element (4 bytes: IMB rounds down
/// and runs each once).
fn lengths(cx: &SweepCx) -> Vec<usize> {
    let mut v: Vec<usize> = Vec::new();
    for &x in cx.sizes {
        let x = x - x % 4;
        if !v.contains(&x) {
            v.push(x);
        }
    }
    v
}

fn nonaggr(cx: &SweepCx) -> u64 {
    cx.axis(NONAGGR_AXIS)
        .first()
        .map_or(NONAGGR as u64, |&n| n as u64)
}

/// Unidir_Put/Get, Bidir_Put/Get, Accumulate: each length in aggregate
/// mode, then in non-aggregate mode.
pub struct OneSided {
    pub info: &'static Info,
    pub access: Access,
    /// Both of the pair issue (Bidir).
    pub both: bool,
}

impl Benchmark for OneSided {
    fn info(&self) -> &'static Info {
        self.info
    }

    fn points(&self, cx: &SweepCx) -> Vec<Point> {
        let xs = lengths(cx);
        let agg = xs.iter().map(|&x| Point::bytes(x).with(MODE_PARAM, 1u64));
        let non = xs.iter().map(|&x| {
            Point::bytes(x)
                .with(MODE_PARAM, 0u64)
                .with(NONAGGR_PARAM, nonaggr(cx))
        });
        agg.chain(non).collect()
    }

    fn need(&self, p: &Point, _q: usize) -> u64 {
        4 * p.bytes as u64
    }

    fn refuse(&self, p: &Point, _q: usize) -> Option<String> {
        (p.bytes > i32::MAX as usize).then(|| {
            format!(
                "{}: {} bytes exceed one MPI count (IMB-EXT's lengths are ints)",
                self.info.name, p.bytes
            )
        })
    }

    fn kernel<'a>(&'a self, s: Setup<'a>, p: &Point) -> Result<Box<dyn Kernel + 'a>> {
        let (me, q) = (s.comm.rank, s.comm.size);
        let x = p.bytes;
        let (win, bufs) = s.arena.window(s.comm, WindowKind::Create, x, &[x, x])?;
        // The first epoch of the point, for the warm-up's operations.
        win.fence();
        let (sb, rb) = bufs.split_at_mut(1);
        let (n, dt) = match self.access {
            Access::Accumulate => (x / 4, Elem::Float),
            _ => (x, Elem::Byte),
        };
        let issues = match (self.access, self.both) {
            (Access::Accumulate, _) | (_, true) => true,
            (Access::Put, false) => me == 0,
            (Access::Get, false) => me == 1,
        };
        let nonaggr = (p.u64(MODE_PARAM) == Some(0))
            .then(|| p.u64(NONAGGR_PARAM).unwrap_or(NONAGGR as u64) as usize);
        Ok(Box::new(OneSidedKernel {
            comm: s.comm,
            access: self.access,
            both: self.both,
            win,
            sbuf: &mut sb[0],
            rbuf: &mut rb[0],
            scratch: Buffer::try_new(x).map_err(|e| anyhow::anyhow!("{e}"))?,
            me,
            q,
            x,
            msg: Msg::elems(dt, n)?,
            elem: dt,
            peer: if q > 1 { 1 - me.min(1) } else { 0 },
            issues,
            nonaggr,
            pending: false,
            ready: None,
        }))
    }
}

struct OneSidedKernel<'a> {
    comm: &'a Comm,
    access: Access,
    both: bool,
    win: &'a mut Window,
    sbuf: &'a mut Buffer,
    rbuf: &'a mut Buffer,
    /// A copy of the window's data, for validation.
    scratch: Buffer,
    me: usize,
    q: usize,
    x: usize,
    /// The operation's elements: X bytes, or X/4 MPI_FLOATs (Accumulate).
    msg: Msg,
    /// Their element type (validation).
    elem: Elem,
    /// The other rank of the pair (Put, Get).
    peer: usize,
    /// This rank issues the operation (the others only fence).
    issues: bool,
    /// Non-aggregate mode, with its most repetitions.
    nonaggr: Option<usize>,
    /// Aggregate operations not yet completed by a fence.
    pending: bool,
    /// The repetition whose window data is laid out already.
    ready: Option<usize>,
}

impl OneSidedKernel<'_> {
    fn settle(&mut self) {
        if self.pending {
            self.win.fence();
            self.pending = false;
        }
    }

    /// Whose data this rank holds after a repetition, and where: the
    /// window (Put's target, Accumulate's root) or the receive buffer
    /// (Get's getter).
    fn holds(&self) -> Option<bool> {
        match self.access {
            Access::Put if self.both || self.me == 1 => Some(true),
            Access::Get if self.issues => Some(false),
            Access::Accumulate if self.me == 0 => Some(true),
            _ => None,
        }
    }

    /// Lays out the window data of repetition `rep`: a poison where data
    /// will land, the owner's pattern where it will be read.
    fn stage_window(&mut self, rep: usize) {
        let (x, me) = (self.x, self.me);
        let w = &mut self.win.bytes_mut()[..x];
        match self.access {
            // A sender that does not exist: no real sender's pattern.
            Access::Put if self.both || me == 1 => check::fill_bytes(w, usize::MAX, rep, x),
            Access::Get if self.both || me == 0 => check::fill_bytes(w, me, rep, x),
            Access::Accumulate if me == 0 => w.fill(0),
            _ => {}
        }
        self.ready = Some(rep);
    }

    fn expect(&self) -> Expect {
        match (self.access, self.holds()) {
            (_, None) => Expect::Nothing,
            (Access::Accumulate, _) => Expect::Sum {
                first: 0,
                count: self.x / 4,
            },
            _ => Expect::Bytes(vec![Segment {
                offset: 0,
                len: self.x,
                sender: self.peer,
                sender_offset: 0,
            }]),
        }
    }

    /// The buffer validation reads: the window's data copied, or the
    /// receive buffer.
    fn checked(&mut self) -> &mut Buffer {
        if self.holds() == Some(true) {
            let x = self.x;
            self.scratch.bytes_mut()[..x].copy_from_slice(&self.win.bytes()[..x]);
            &mut self.scratch
        } else {
            self.rbuf
        }
    }
}

impl Kernel for OneSidedKernel<'_> {
    #[inline(always)]
    fn run(&mut self, _rep: usize) {
        if self.issues {
            let (n, dt) = (self.msg.count, self.msg.dt);
            match self.access {
                Access::Put => self.win.put(self.sbuf.ptr(), n, dt, self.peer, 0),
                Access::Get => self.win.get(self.rbuf.mut_ptr(), n, dt, self.peer, 0),
                Access::Accumulate => self.win.accumulate(self.sbuf.ptr(), n, dt, 0, 0),
            }
        }
        if self.nonaggr.is_some() {
            self.win.fence();
        } else {
            self.pending = true;
        }
    }

    fn open(&mut self) {
        if self.nonaggr.is_none() {
            self.win.fence();
        }
    }

    fn close(&mut self) {
        self.settle();
    }

    fn most_reps(&self) -> Option<usize> {
        self.nonaggr
    }

    /// The warm-up's operations complete before the timed repetitions,
    /// and the window is laid out again after them.
    fn planned(&mut self, _reps: usize) {
        self.settle();
        self.ready = None;
    }

    fn prepare(&mut self, rep: usize) {
        self.settle();
        let (me, x) = (self.me, self.x);
        match self.access {
            Access::Put => check::fill_bytes(&mut self.sbuf.bytes_mut()[..x], me, rep, x),
            Access::Get => check::poison(self.rbuf, x, None, rep, x),
            Access::Accumulate => check::fill(self.sbuf, x, Some(Elem::Float), me, rep, x),
        }
        if self.ready != Some(rep) {
            self.stage_window(rep);
        }
    }

    fn verify(&mut self, rep: usize) -> u64 {
        self.settle();
        let e = self.expect();
        let (q, x) = (self.q, self.x);
        let elem = self.elem;
        let bad = check::verify(&e, self.checked(), elem, q, rep, x);
        // The next repetition's window data, before any rank goes on.
        self.stage_window(rep + 1);
        self.comm.barrier();
        bad
    }

    fn corrupt(&mut self) {
        self.settle();
        let x = self.x;
        match self.holds() {
            Some(true) if x > 0 => self.win.bytes_mut()[x.min(4) - 1] ^= 0x40,
            Some(false) if x > 0 => self.rbuf.bytes_mut()[0] ^= 0x5a,
            _ => {}
        }
    }
}

/// IMB-EXT's Window: a window made, used once and freed per repetition.
pub struct WindowBench {
    pub info: &'static Info,
}

impl Benchmark for WindowBench {
    fn info(&self) -> &'static Info {
        self.info
    }

    fn points(&self, cx: &SweepCx) -> Vec<Point> {
        lengths(cx)
            .into_iter()
            .map(|x| Point::bytes(x).with(NONAGGR_PARAM, nonaggr(cx)))
            .collect()
    }

    fn need(&self, p: &Point, _q: usize) -> u64 {
        2 * p.bytes as u64
    }

    fn kernel<'a>(&'a self, s: Setup<'a>, p: &Point) -> Result<Box<dyn Kernel + 'a>> {
        let x = p.bytes;
        let bufs = s.arena.take(&[x.max(1), x.max(1)])?;
        let (sb, rb) = bufs.split_at_mut(1);
        Ok(Box::new(WindowKernel {
            comm: s.comm,
            sbuf: &mut sb[0],
            rbuf: &mut rb[0],
            x,
            most: p.u64(NONAGGR_PARAM).unwrap_or(NONAGGR as u64) as usize,
        }))
    }
}

struct WindowKernel<'a> {
    comm: &'a Comm,
    sbuf: &'a mut Buffer,
    rbuf: &'a mut Buffer,
    x: usize,
    most: usize,
}

impl WindowKernel<'_> {
    fn expect(&self) -> Expect {
        Expect::Bytes(vec![Segment {
            offset: 0,
            len: self.x.min(1),
            sender: self.comm.rank,
            sender_offset: 0,
        }])
    }
}

impl Kernel for WindowKernel<'_> {
    #[inline(always)]
    fn run(&mut self, _rep: usize) {
        window_cycle(self.comm, self.rbuf.mut_ptr(), self.x, self.sbuf.ptr());
    }

    fn most_reps(&self) -> Option<usize> {
        Some(self.most)
    }

    fn prepare(&mut self, rep: usize) {
        let (me, x) = (self.comm.rank, self.x);
        check::fill_bytes(&mut self.sbuf.bytes_mut()[..x.max(1)], me, rep, x);
        check::poison(self.rbuf, x.min(1), None, rep, x);
    }

    fn verify(&mut self, rep: usize) -> u64 {
        check::verify(
            &self.expect(),
            self.rbuf,
            Elem::Byte,
            self.comm.size,
            rep,
            self.x,
        )
    }

    fn corrupt(&mut self) {
        if self.x > 0 {
            self.rbuf.bytes_mut()[0] ^= 0x5a;
        }
    }
}
