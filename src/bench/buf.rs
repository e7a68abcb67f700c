//! Buffer patterns: benchmarks that move data between a send and a receive
//! buffer (all of PMB-MPI1 and MPITEST, most of the others). A pattern is
//! one small file: its buffer needs, the MPI calls of one repetition, and
//! what a correct receive buffer holds. This module turns any pattern into a
//! [`Benchmark`] whose kernel resolves datatypes, counts and partners once
//! per point, so that the timed loop runs only the pattern's calls.

use std::ffi::c_int;

use anyhow::Result;

use crate::check::{self, Expect};
use crate::comm::{request_null, Buffer, Comm, Msg, Request};
use crate::contract::axis::{Point, SweepCx};
use crate::contract::placement::Role;
use crate::contract::{Benchmark, Figure, Info, Kernel, Setup};

/// Buffer needs of one rank for message length X in a group of Q (bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub send: usize,
    pub recv: usize,
}

/// Everything one repetition may touch, resolved once per point.
pub struct Op<'a> {
    pub comm: &'a Comm,
    pub role: Role,
    pub rank: usize,
    pub size: usize,
    /// Message length X in bytes.
    pub x: usize,
    /// Root of rooted collectives for this repetition.
    pub root: usize,
    pub sbuf: &'a mut Buffer,
    pub rbuf: &'a mut Buffer,
    /// X bytes as elements of the benchmark's type.
    pub msg: Msg,
    /// A unit for counts and displacements (Allgatherv), when the pattern asks for one.
    pub unit: Option<Msg>,
    /// Peers resolved from the role (pair partner or ring neighbours).
    pub to: usize,
    pub from: usize,
    /// Per-rank counts and displacements (Allgatherv, Reduce_scatter).
    pub counts: Vec<c_int>,
    pub displs: Vec<c_int>,
    /// Per-rank datatypes (Alltoallw), built in the pattern's `prepare`.
    pub types: Vec<crate::comm::RawType>,
    pub reqs: Vec<Request>,
    /// `--off-cache`: where this repetition's data starts in the send and
    /// receive buffers (0 otherwise). Patterns address data through
    /// [`Op::sp`] and [`Op::rp`].
    pub soff: usize,
    pub roff: usize,
    /// The topology communicator of the neighbourhood collectives, built
    /// by the pattern's `prepare` (None for every other pattern).
    pub topo: Option<crate::comm::neighbor::Neighbourhood>,
}

impl Op<'_> {
    /// This repetition's send data.
    #[inline(always)]
    pub fn sp(&self) -> *const u8 {
        self.sbuf.ptr().wrapping_add(self.soff)
    }

    /// This repetition's receive data.
    #[inline(always)]
    pub fn rp(&mut self) -> *mut u8 {
        self.rbuf.mut_ptr().wrapping_add(self.roff)
    }
}

/// The per-repetition offsets of one point (send, receive).
#[derive(Debug, Clone, Copy)]
struct Cold {
    s: (usize, usize),
    r: (usize, usize),
}

impl Cold {
    #[inline(always)]
    fn offsets(&self, rep: usize) -> (usize, usize) {
        (rep % self.s.1 * self.s.0, rep % self.r.1 * self.r.0)
    }
}

/// A benchmark made of buffers and MPI calls.
pub trait Pattern: Sync {
    fn info(&self) -> &'static Info;

    /// Bytes each rank needs for message length `x` in a group of `q`.
    fn layout(&self, x: usize, q: usize) -> Layout;

    /// Per-point preparation outside the timed region (counts, units, requests).
    fn prepare(&self, _op: &mut Op) -> Result<()> {
        Ok(())
    }

    /// [`Pattern::prepare`] for patterns that read the point's params or can
    /// fail (a topology communicator from `-N`); by default `prepare`.
    fn prepare_point(&self, op: &mut Op, _p: &Point) -> Result<()> {
        self.prepare(op)
    }

    /// One repetition: MPI calls only.
    fn run(&self, op: &mut Op);

    /// What `op.rbuf` holds on `rank` after a repetition with `root`.
    fn expect(&self, x: usize, q: usize, rank: usize, root: usize, role: &Role) -> Expect;

    /// What `op.rbuf` holds after a repetition with `root`, for patterns
    /// whose answer depends on what `prepare` resolved (the neighbours of
    /// a topology); by default [`Pattern::expect`].
    fn expect_in(&self, op: &Op, root: usize) -> Expect {
        self.expect(op.x, op.size, op.rank, root, &op.role)
    }

    /// The points of its sweep (default: from [`Info::axis`]).
    fn points(&self, cx: &SweepCx) -> Vec<Point> {
        cx.default_points(self.info())
    }

    /// Why a point cannot run, beyond the memory limit (e.g. a reduction
    /// beyond the MPI count range); by default, element counts beyond 2^31 − 1.
    fn refuse(&self, p: &Point, _q: usize) -> Option<String> {
        let i = self.info();
        Msg::count_error(i.elem, p.bytes / i.elem.size()).map(|e| format!("{}: {e}", i.name))
    }
    /// Figures that combine the rows, on rank 0 (see [`Benchmark::derive`]).
    fn derive(&self, _r: &mut crate::results::BenchResult) {}

    /// Figures of the point besides the times (see [`Kernel::figures`]),
    /// e.g. what building a topology communicator took.
    fn figures(&self, _op: &Op) -> Vec<Figure> {
        Vec::new()
    }

    /// The same pattern over another declaration (see [`Benchmark::retyped`]);
    /// `None` where its element type is fixed.
    fn over(&self, _info: &'static Info) -> Option<Self>
    where
        Self: Sized,
    {
        None
    }
}

/// A pattern whose repetition splits into issuing the operation and
/// completing it, so that a scenario can put work between the two (CRESTA
/// scenario 3): a non-blocking collective starts in `issue` and waits in
/// `complete`; a blocking one does everything in `issue`.
pub trait Phased: Pattern {
    fn issue(&self, op: &mut Op);
    fn complete(&self, op: &mut Op);
}

impl<P: Pattern + 'static> Benchmark for P {
    fn info(&self) -> &'static Info {
        Pattern::info(self)
    }

    fn points(&self, cx: &SweepCx) -> Vec<Point> {
        Pattern::points(self, cx)
    }

    fn need(&self, p: &Point, q: usize) -> u64 {
        let l = self.layout(Pattern::info(self).span(p.bytes), q);
        (l.send + l.recv) as u64
    }

    fn refuse(&self, p: &Point, q: usize) -> Option<String> {
        Pattern::refuse(self, p, q)
    }

    fn derive(&self, r: &mut crate::results::BenchResult) {
        Pattern::derive(self, r)
    }

    fn kernel<'a>(&'a self, s: Setup<'a>, p: &Point) -> Result<Box<dyn Kernel + 'a>> {
        Ok(Box::new(BufKernel::new(self, s, p)?))
    }

    fn retyped(&self, info: &'static Info) -> Option<&'static dyn Benchmark> {
        let p: &'static P = Box::leak(Box::new(self.over(info)?));
        Some(p)
    }
}

impl<'a, P: Pattern> BufKernel<'a, P> {
    /// Resolves buffers, datatype, counts and partners of one point.
    pub fn new(pat: &'a P, s: Setup<'a>, p: &Point) -> Result<BufKernel<'a, P>> {
        let info = Pattern::info(pat);
        let q = s.comm.size;
        let x = p.bytes;
        // A derived datatype may reach beyond X bytes (an index file);
        // resized elements spread every message over `stretch` times its bytes.
        let stretch = info.stretch();
        let l = match stretch {
            1 => pat.layout(info.span(x), q),
            _ => pat.layout(x, q),
        };
        let (real_send, real_recv) = (l.send * stretch, l.recv * stretch);
        // IMB: -off_cache applies to every benchmark that moves data.
        let cold = s
            .off_cache
            .filter(|_| info.sized() && l.send + l.recv > 0)
            .map(|c| Cold {
                s: c.stride(real_send),
                r: c.stride(real_recv),
            });
        let (sbuf, rbuf) = match (cold, s.off_cache) {
            (Some(_), Some(c)) => s.arena.pair(c.alloc(real_send), c.alloc(real_recv))?,
            _ => s.arena.pair(real_send, real_recv)?,
        };
        let msg = info.msg(x)?;
        let me = s.comm.rank;
        let base = if info.rooted { s.root } else { 0 };
        let mut op = Op {
            comm: s.comm,
            rank: me,
            size: q,
            x,
            root: base,
            sbuf,
            rbuf,
            msg,
            unit: None,
            to: s.role.to.unwrap_or(me),
            from: s.role.from.unwrap_or(me),
            role: s.role,
            counts: Vec::new(),
            displs: Vec::new(),
            types: Vec::new(),
            reqs: vec![request_null(); 4],
            soff: 0,
            roff: 0,
            topo: None,
        };
        pat.prepare_point(&mut op, p)?;
        Ok(BufKernel {
            pat,
            op,
            rotate: s.root_shift && info.rooted,
            base,
            cold,
            send_len: l.send,
            recv_len: l.recv,
            stretch,
        })
    }

    /// Before the pattern's calls of repetition `rep`: the root of this
    /// repetition, and with `-off_cache` its buffer offsets.
    #[inline(always)]
    pub fn begin(&mut self, rep: usize) {
        if self.rotate {
            self.op.root = (self.base + rep) % self.op.size;
        }
        if let Some(c) = &self.cold {
            (self.op.soff, self.op.roff) = c.offsets(rep);
        }
    }
}

impl<P: Phased> BufKernel<'_, P> {
    /// A non-blocking collective alone (issue; MPI_Wait) as a kernel of
    /// its own times it: its time in seconds (the pure loops of OSU and
    /// IMB-NBC).
    #[inline(always)]
    pub fn alone(&mut self, rep: usize) -> f64 {
        self.begin(rep);
        let t0 = crate::comm::wtime();
        self.pat.issue(&mut self.op);
        self.pat.complete(&mut self.op);
        crate::comm::wtime() - t0
    }
}

/// Inside `impl Kernel` of a kernel that wraps a [`BufKernel`] as
/// `self.inner`: its validation is the inner kernel's (`prepare`, `verify`,
/// `corrupt`).
macro_rules! validated_by_inner {
    () => {
        fn prepare(&mut self, rep: usize) {
            self.inner.prepare(rep);
        }

        fn verify(&mut self, rep: usize) -> u64 {
            self.inner.verify(rep)
        }

        fn corrupt(&mut self) {
            self.inner.corrupt();
        }
    };
}
pub(crate) use validated_by_inner;

/// The kernel of a pattern: monomorphised per pattern, so `run` inlines
/// the pattern's calls. Other kernels wrap it to add work around the
/// pattern's calls (CRESTA's scenarios), reusing its buffers and validation.
pub struct BufKernel<'a, P> {
    pub pat: &'a P,
    pub op: Op<'a>,
    rotate: bool,
    /// The root (`--root`), or where rotating roots start.
    base: usize,
    cold: Option<Cold>,
    /// The buffers' data as the pattern sees it, contiguous; in memory
    /// each element lies `stretch` elements apart (resized elements).
    send_len: usize,
    recv_len: usize,
    stretch: usize,
}

/// The requests a pattern leaves in `op.reqs` (a persistent collective's,
/// `bench::persist`) are freed with the kernel; a completed non-blocking
/// request is already null.
impl<P> Drop for BufKernel<'_, P> {
    fn drop(&mut self) {
        crate::comm::persistent::free(&mut self.op.reqs);
    }
}

impl<P: Pattern> BufKernel<'_, P> {
    fn root_of(&self, rep: usize) -> usize {
        if self.rotate {
            (self.base + rep) % self.op.size
        } else {
            self.base
        }
    }

    fn expect(&self, rep: usize) -> Expect {
        self.pat.expect_in(&self.op, self.root_of(rep))
    }

    fn reduction(&self) -> Option<crate::comm::Elem> {
        let i = self.pat.info();
        i.reduction.then_some(i.elem)
    }

    /// The element size when elements lie apart in memory (resized), else 0.
    fn stretch_unit(&self) -> usize {
        match self.stretch {
            1 => 0,
            _ => self.pat.info().elem.size(),
        }
    }
}

impl<P: Pattern> Kernel for BufKernel<'_, P> {
    #[inline(always)]
    fn run(&mut self, rep: usize) {
        self.begin(rep);
        self.pat.run(&mut self.op);
    }

    fn prepare(&mut self, rep: usize) {
        let red = self.reduction();
        let (rank, x) = (self.op.rank, self.op.x);
        check::fill(self.op.sbuf, self.send_len, red, rank, rep, x);
        check::poison(self.op.rbuf, self.recv_len, red, rep, x);
        let k = self.stretch_unit();
        restride(self.op.sbuf, self.send_len, k, true);
        restride(self.op.rbuf, self.recv_len, k, true);
        // Off-cache: this repetition's data lives at its own offsets.
        if let Some(c) = &self.cold {
            let (so, ro) = c.offsets(rep);
            let (sl, rl) = (self.send_len * self.stretch, self.recv_len * self.stretch);
            self.op.sbuf.bytes_mut().copy_within(0..sl, so);
            self.op.rbuf.bytes_mut().copy_within(0..rl, ro);
        }
    }

    fn verify(&mut self, rep: usize) -> u64 {
        if let Some(c) = &self.cold {
            let (_, ro) = c.offsets(rep);
            let rl = self.recv_len * self.stretch;
            self.op.rbuf.bytes_mut().copy_within(ro..ro + rl, 0);
        }
        restride(self.op.rbuf, self.recv_len, self.stretch_unit(), false);
        let e = self.expect(rep);
        let elem = self.pat.info().elem;
        check::verify(&e, self.op.rbuf, elem, self.op.size, rep, self.op.x)
    }

    fn corrupt(&mut self) {
        let e = self.expect(0);
        let k = self.stretch_unit();
        restride(self.op.rbuf, self.recv_len, k, false);
        check::corrupt(&e, self.op.rbuf, self.pat.info().elem);
        restride(self.op.rbuf, self.recv_len, k, true);
    }

    fn figures(&mut self) -> Vec<Figure> {
        self.pat.figures(&self.op)
    }
}

/// Resized elements of `k` bytes (k = 0: none): the first `len` bytes of
/// `buf`, element by element, moved to where a message's elements lie,
/// every other element-sized slot (`spread`), or back (`!spread`), so that
/// filling and validation see them contiguous.
fn restride(buf: &mut Buffer, len: usize, k: usize, spread: bool) {
    if k == 0 {
        return;
    }
    let b = buf.bytes_mut();
    let n = len / k;
    if spread {
        for i in (1..n).rev() {
            b.copy_within(i * k..(i + 1) * k, 2 * i * k);
        }
    } else {
        for i in 1..n {
            b.copy_within(2 * i * k..(2 * i + 1) * k, i * k);
        }
    }
}

/// PMB §4.4.2: L items scattered over Q ranks; with L = Q·r + s the first s
/// ranks get r + 1 items and the others r.
pub fn split_counts(l: usize, q: usize) -> Vec<usize> {
    let r = l / q;
    let s = l % q;
    (0..q).map(|i| if i < s { r + 1 } else { r }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::OffCache;

    #[test]
    fn off_cache_strides_are_imbs() {
        let c = OffCache::IMB_DEFAULT;
        // 1000 bytes: 16 lines, plus one: 1088 bytes apart; 16 MiB / 1088 slots.
        assert_eq!(c.stride(1000), (1088, (16usize << 20).div_ceil(1088)));
        assert_eq!(c.stride(0), (64, (16 << 20) / 64));
        // A message larger than twice the cache: one slot, the buffer itself.
        let big = 32 << 20;
        assert_eq!(c.stride(big), (big + 64, 1));
        assert_eq!(c.alloc(big), big + 64);
        assert!(c.alloc(1000) >= 16 << 20);
        let small = OffCache {
            cache_bytes: 1000,
            line: 128,
        };
        assert_eq!(small.stride(100), (256, 8));
        let cold = Cold {
            s: (256, 8),
            r: (512, 3),
        };
        assert_eq!(cold.offsets(0), (0, 0));
        assert_eq!(cold.offsets(9), (256, 0));
        assert_eq!(cold.offsets(5), (1280, 1024));
    }

    #[test]
    fn resized_elements_spread_and_come_back() {
        let mut b = Buffer::try_new(16).unwrap();
        b.bytes_mut()[..8].copy_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
        restride(&mut b, 8, 2, true);
        assert_eq!(&b.bytes()[..2], &[1, 2]);
        assert_eq!(&b.bytes()[4..6], &[3, 4]);
        assert_eq!(&b.bytes()[8..10], &[5, 6]);
        assert_eq!(&b.bytes()[12..14], &[7, 8]);
        restride(&mut b, 8, 2, false);
        assert_eq!(&b.bytes()[..8], &[1, 2, 3, 4, 5, 6, 7, 8]);
        // k = 0: contiguous elements stay.
        restride(&mut b, 8, 0, true);
        assert_eq!(&b.bytes()[..8], &[1, 2, 3, 4, 5, 6, 7, 8]);
    }

    #[test]
    fn split_is_pmb_4_4_2() {
        assert_eq!(split_counts(10, 4), vec![3, 3, 2, 2]);
        assert_eq!(split_counts(8, 4), vec![2, 2, 2, 2]);
        assert_eq!(split_counts(1, 3), vec![1, 0, 0]);
        assert_eq!(split_counts(0, 2), vec![0, 0]);
        for l in 0..100 {
            for q in 1..9 {
                let c = split_counts(l, q);
                assert_eq!(c.iter().sum::<usize>(), l);
                assert!(c.windows(2).all(|w| w[0] >= w[1] && w[0] - w[1] <= 1));
            }
        }
    }
}
