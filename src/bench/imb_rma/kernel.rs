//! IMB-RMA's transfers (IMB 2021.11, `IMB_rma_put.c`, `IMB_rma_get.c`,
//! `IMB_rma_atomic.c`) over a window made once per length
//! (`MPI_Win_create`), in passive-target epochs opened when the point's
//! kernel is built and closed when it is dropped, both outside every clock
//! pair:
//!
//! - between two processes (rank 0 the origin; rank 1 too in the Bidir
//!   ones): a shared lock of the partner's window; non-aggregate mode
//!   completes every operation (`MPI_Win_flush`, or `MPI_Win_flush_local`
//!   for the `_local` ones), at most MSGS_NONAGGR repetitions; aggregate
//!   mode completes the batch's operations once, inside its clock pair
//!   ([`Kernel::close`]);
//! - one to all (rank 0) and all to all: `MPI_Win_lock_all`, an operation
//!   per other process in IMB's order (rank + 1, rank + 2, ...), and
//!   `MPI_Win_flush_all` (`_local_all`) after the batch;
//! - exchange: shared locks of both neighbours, a put (get) to each and
//!   their flushes every repetition.
//!
//! The layout is IMB's: every put lands at offset 0 of its target's
//! window (the exchanges' second one at X), every get at offset 0 of the
//! getter's buffer (X). Where several operations land on one place
//! (All_put_all, the gets from all), each byte is some sender's.
//!
//! Validation (`--check`): after each checked repetition every rank
//! completes its operations, a barrier, then the rank that holds the data
//! (a target's window, a getter's buffer) compares it with its sender's
//! pattern (the accumulations: rank 0's floats added to zeros; where
//! several senders land on one place, each byte with any of theirs); the
//! next repetition's window data is laid out before another barrier. The
//! barriers order a target's own loads and stores with the remote accesses
//! (the unified memory model of both MPIs' windows; a target outside any
//! epoch may not call `MPI_Win_sync`, MPICH refuses it).

use anyhow::Result;

use crate::bench::patterns::NONAGGR_AXIS;
use crate::bench::{Benchmark, Info, Kernel, Setup};
use crate::check::{self, Expect, Segment};
use crate::comm::rma::{Window, WindowKind};
use crate::comm::{Buffer, Comm, Elem, Msg};
use crate::contract::axis::{Point, SweepCx};

/// Row parameter of the benchmarks with modes: 1 aggregate, 0 non-aggregate.
pub const MODE_PARAM: &str = "aggregate";
/// Row parameter of non-aggregate rows: their most repetitions.
pub const NONAGGR_PARAM: &str = "msgs_nonaggr";
/// IMB's MSGS_NONAGGR default.
const NONAGGR: usize = 100;
/// Bytes of the one element of Fetch_and_op (MPI_FLOAT) and
/// Compare_and_swap (MPI_INT).
const ELEMENT: usize = 4;

/// The one-sided operation of a repetition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Put,
    Get,
    /// MPI_Accumulate of X/4 MPI_FLOATs, MPI_SUM.
    Acc,
    /// MPI_Get_accumulate of X/4 MPI_FLOATs, MPI_SUM.
    GetAcc,
    /// MPI_Fetch_and_op of one MPI_FLOAT, MPI_SUM.
    FetchAdd,
    /// MPI_Compare_and_swap of one MPI_INT.
    Cas,
}

/// Who issues operations to whom.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Rank 0 to rank 1 (and back when `bidir`).
    Pair { bidir: bool },
    /// Rank 0 to every other process.
    OneToAll,
    /// Every process to every other.
    AllToAll,
    /// Every process to its left and right neighbours.
    Exchange,
}

/// IMB's lengths: the unit is one element of the operation's type (MPI_BYTE,
/// or MPI_FLOAT for the accumulations), and a length is rounded up to it;
/// the atomics run one element only.
pub fn lengths(op: Op, sizes: &[usize]) -> Vec<usize> {
    let unit = match op {
        Op::Put | Op::Get => 1,
        Op::Acc | Op::GetAcc => 4,
        Op::FetchAdd | Op::Cas => return vec![ELEMENT],
    };
    let mut v: Vec<usize> = Vec::new();
    for &x in sizes {
        let x = x.div_ceil(unit).saturating_mul(unit);
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

/// The points of a benchmark: each length in non-aggregate, then in
/// aggregate mode (IMB-RMA's order), or each length once.
pub fn mode_points(xs: &[usize], modes: bool, cx: &SweepCx) -> Vec<Point> {
    if !modes {
        return xs.iter().map(|&x| Point::bytes(x)).collect();
    }
    let non = xs.iter().map(|&x| {
        Point::bytes(x)
            .with(MODE_PARAM, 0u64)
            .with(NONAGGR_PARAM, nonaggr(cx))
    });
    let agg = xs.iter().map(|&x| Point::bytes(x).with(MODE_PARAM, 1u64));
    non.chain(agg).collect()
}

/// One IMB-RMA transfer benchmark.
pub struct Rma {
    pub info: &'static Info,
    pub op: Op,
    pub reach: Reach,
    /// Completed at the origin only (`MPI_Win_flush_local[_all]`).
    pub local: bool,
    /// Runs in non-aggregate and aggregate mode.
    pub modes: bool,
}

/// Where this rank's operations go and its data lands, at one point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// This rank issues operations.
    pub origin: bool,
    /// Its targets, in issue order.
    pub targets: Vec<usize>,
    /// Bytes of its window, send buffer and receive buffer.
    pub win: usize,
    pub send: usize,
    pub recv: usize,
}

impl Rma {
    /// The layout of rank `me` of `q` at length `x`.
    pub fn layout(&self, me: usize, q: usize, x: usize) -> Layout {
        let others: Vec<usize> = (1..q).map(|k| (me + k) % q).collect();
        let (origin, targets) = match self.reach {
            Reach::Pair { bidir } => (me == 0 || (bidir && me == 1), vec![1 - me.min(1)]),
            Reach::OneToAll => (me == 0, others),
            Reach::AllToAll => (true, others),
            Reach::Exchange => (true, vec![(me + q - 1) % q, (me + 1) % q]),
        };
        // The exchanges' two messages each have their X bytes.
        let n = if self.reach == Reach::Exchange {
            2 * x
        } else {
            x
        };
        Layout {
            origin,
            targets,
            win: n,
            send: n,
            recv: n,
        }
    }
}

impl Benchmark for Rma {
    fn info(&self) -> &'static Info {
        self.info
    }

    fn points(&self, cx: &SweepCx) -> Vec<Point> {
        mode_points(&lengths(self.op, cx.sizes), self.modes, cx)
    }

    fn need(&self, p: &Point, q: usize) -> u64 {
        let l = self.layout(0, q.max(2), p.bytes);
        (2 * l.win + l.send + l.recv) as u64
    }

    fn refuse(&self, p: &Point, q: usize) -> Option<String> {
        let l = self.layout(0, q.max(2), p.bytes);
        (l.win.max(l.recv) > i32::MAX as usize).then(|| {
            format!(
                "{}: {} bytes exceed one MPI count (IMB-RMA's lengths are ints)",
                self.info.name, p.bytes
            )
        })
    }

    fn kernel<'a>(&'a self, s: Setup<'a>, p: &Point) -> Result<Box<dyn Kernel + 'a>> {
        let (me, q, x) = (s.comm.rank, s.comm.size, p.bytes);
        let l = self.layout(me, q, x);
        let sizes = [l.send.max(ELEMENT), l.recv.max(ELEMENT), ELEMENT];
        let (win, bufs) = s.arena.window(s.comm, WindowKind::Create, l.win, &sizes)?;
        let [sbuf, rbuf, aux] = bufs else {
            anyhow::bail!("three buffers were asked for");
        };
        let (n, elem) = match self.op {
            Op::Put | Op::Get => (x, Elem::Byte),
            Op::Acc | Op::GetAcc => (x / 4, Elem::Float),
            Op::FetchAdd => (1, Elem::Float),
            Op::Cas => (1, Elem::Int),
        };
        let msg = Msg::elems(elem, n)?;
        let nonaggr = (p.u64(MODE_PARAM) == Some(0))
            .then(|| p.u64(NONAGGR_PARAM).unwrap_or(NONAGGR as u64) as usize);
        let k = RmaKernel {
            comm: s.comm,
            b: self,
            win,
            sbuf,
            rbuf,
            aux,
            scratch: Buffer::try_new(l.win.max(ELEMENT)).map_err(|e| anyhow::anyhow!("{e}"))?,
            me,
            q,
            x,
            msg,
            elem,
            nonaggr,
            l,
            pending: false,
            ready: None,
        };
        k.lock();
        Ok(Box::new(k))
    }
}

/// What a rank holds after a repetition: one sender's bytes or sum per
/// place, or, where several senders land on one place, any of theirs.
enum Holds {
    Exact(Expect),
    AnyOf(Vec<usize>),
}

struct RmaKernel<'a> {
    comm: &'a Comm,
    b: &'a Rma,
    win: &'a mut Window,
    sbuf: &'a mut Buffer,
    rbuf: &'a mut Buffer,
    /// Compare_and_swap's compare value.
    aux: &'a mut Buffer,
    /// A copy of the window's data, for validation.
    scratch: Buffer,
    me: usize,
    q: usize,
    x: usize,
    /// One operation's elements.
    msg: Msg,
    elem: Elem,
    /// Non-aggregate mode, with its most repetitions.
    nonaggr: Option<usize>,
    l: Layout,
    /// Operations not completed yet (aggregate batches).
    pending: bool,
    /// The repetition whose window data is laid out already.
    ready: Option<usize>,
}

impl RmaKernel<'_> {
    fn all(&self) -> bool {
        matches!(self.b.reach, Reach::OneToAll | Reach::AllToAll)
    }

    /// Opens this origin's passive-target epoch.
    fn lock(&self) {
        if !self.l.origin {
            return;
        }
        if self.all() {
            self.win.lock_all();
        } else {
            self.win.lock_shared_each(&self.l.targets);
        }
    }

    /// Completes this origin's operations: every target's, or the one
    /// target's, remotely or locally.
    #[inline(always)]
    fn complete(&self) {
        match (self.all(), self.b.local) {
            (true, false) => self.win.flush_all(),
            (true, true) => self.win.flush_local_all(),
            (false, local) => {
                let mut last = usize::MAX;
                for &t in &self.l.targets {
                    if t != last {
                        if local {
                            self.win.flush_local(t);
                        } else {
                            self.win.flush(t);
                        }
                    }
                    last = t;
                }
            }
        }
    }

    /// The operation to target number `i` of this origin.
    #[inline(always)]
    fn issue(&mut self, i: usize, t: usize) {
        let x = self.x;
        let (n, dt) = (self.msg.count, self.msg.dt);
        match self.b.op {
            Op::Put => {
                // To the left at 0, to the right at X (IMB's layout).
                let (from, to) = match self.b.reach {
                    Reach::Exchange => (i * x, i * x),
                    _ => (0, 0),
                };
                self.win
                    .put(self.sbuf.ptr().wrapping_add(from), n, dt, t, to);
            }
            Op::Get => {
                // From the right at 0, from the left at X.
                let (into, from) = match self.b.reach {
                    Reach::Exchange => ((1 - i) * x, (1 - i) * x),
                    _ => (0, 0),
                };
                self.win
                    .get(self.rbuf.mut_ptr().wrapping_add(into), n, dt, t, from);
            }
            Op::Acc => self.win.accumulate(self.sbuf.ptr(), n, dt, t, 0),
            Op::GetAcc => {
                self.win
                    .get_accumulate(self.sbuf.ptr(), self.rbuf.mut_ptr(), n, dt, t, 0)
            }
            Op::FetchAdd => self
                .win
                .fetch_and_sum(self.sbuf.ptr(), self.rbuf.mut_ptr(), dt, t, 0),
            Op::Cas => self.win.swap_if(
                self.sbuf.ptr() as *const i32,
                self.aux.ptr() as *const i32,
                self.rbuf.mut_ptr() as *mut i32,
                t,
                0,
            ),
        }
    }

    fn settle(&mut self) {
        if self.pending {
            self.complete();
            self.pending = false;
        }
    }

    /// What this rank holds after a repetition, in its window (true) or
    /// its receive buffer (false), and what it must be.
    fn expect(&self) -> Option<(bool, Holds)> {
        let (me, q, x) = (self.me, self.q, self.x);
        let one = |offset: usize, sender: usize, sender_offset: usize| Segment {
            offset,
            len: x,
            sender,
            sender_offset,
        };
        let exact = |segs: Vec<Segment>| Holds::Exact(Expect::Bytes(segs));
        let others: Vec<usize> = (0..q).filter(|&s| s != me).collect();
        let (left, right) = ((me + q - 1) % q, (me + 1) % q);
        match (self.b.op, self.b.reach) {
            (Op::Put, Reach::Pair { bidir }) if bidir || me == 1 => {
                Some((true, exact(vec![one(0, 1 - me.min(1), 0)])))
            }
            (Op::Put, Reach::OneToAll) if me != 0 => Some((true, exact(vec![one(0, 0, 0)]))),
            (Op::Put, Reach::AllToAll) if q > 1 => Some((true, Holds::AnyOf(others))),
            (Op::Put | Op::Get, Reach::Exchange) => Some((
                self.b.op == Op::Put,
                exact(vec![one(0, right, 0), one(x, left, x)]),
            )),
            (Op::Get, Reach::Pair { .. }) if self.l.origin => {
                Some((false, exact(vec![one(0, 1 - me.min(1), 0)])))
            }
            (Op::Get, Reach::OneToAll | Reach::AllToAll) if self.l.origin && q > 1 => {
                Some((false, Holds::AnyOf(others)))
            }
            (Op::Acc | Op::GetAcc | Op::FetchAdd, _) if me == 1 => Some((
                true,
                Holds::Exact(Expect::Sum {
                    first: 0,
                    count: self.msg.count as usize,
                }),
            )),
            (Op::Cas, _) if me == 1 => Some((
                true,
                exact(vec![Segment {
                    offset: 0,
                    len: ELEMENT,
                    sender: 0,
                    sender_offset: 0,
                }]),
            )),
            _ => None,
        }
    }

    /// Lays out this rank's window for repetition `rep`: a poison where
    /// data will land, the owner's pattern where it will be read, zeros
    /// where it will be added to, the compare value of Compare_and_swap.
    fn stage_window(&mut self, rep: usize) {
        let (x, me, len) = (self.x, self.me, self.l.win);
        match self.b.op {
            Op::Put => check::fill_bytes(&mut self.win.bytes_mut()[..len], usize::MAX, rep, x),
            Op::Get => check::fill_bytes(&mut self.win.bytes_mut()[..len], me, rep, x),
            Op::Acc | Op::GetAcc | Op::FetchAdd => self.win.bytes_mut()[..len].fill(0),
            Op::Cas => {
                check::poison(self.aux, ELEMENT, None, rep, x);
                let v = self.aux.bytes()[..ELEMENT].to_vec();
                self.win.bytes_mut()[..ELEMENT].copy_from_slice(&v);
            }
        }
        self.ready = Some(rep);
    }

    /// The buffer validation reads: the window's data copied, or the
    /// receive buffer.
    fn held(&mut self, window: bool) -> &mut Buffer {
        if window {
            let n = self.l.win;
            self.scratch.bytes_mut()[..n].copy_from_slice(&self.win.bytes()[..n]);
            &mut self.scratch
        } else {
            self.rbuf
        }
    }
}

impl Drop for RmaKernel<'_> {
    /// Closes the epoch: its operations complete, then the locks go.
    fn drop(&mut self) {
        if !self.l.origin {
            return;
        }
        self.pending = false;
        if self.all() {
            self.win.unlock_all();
        } else {
            self.win.unlock_each(&self.l.targets);
        }
    }
}

impl Kernel for RmaKernel<'_> {
    #[inline(always)]
    fn run(&mut self, _rep: usize) {
        if !self.l.origin {
            return;
        }
        for i in 0..self.l.targets.len() {
            let t = self.l.targets[i];
            self.issue(i, t);
        }
        if self.nonaggr.is_some() || self.b.reach == Reach::Exchange {
            self.complete();
        } else {
            self.pending = true;
        }
    }

    fn close(&mut self) {
        self.settle();
    }

    fn most_reps(&self) -> Option<usize> {
        self.nonaggr
    }

    /// The warm-up's operations complete, on every rank, before the window
    /// is laid out again.
    fn planned(&mut self, _reps: usize) {
        self.settle();
        self.comm.barrier();
        self.ready = None;
    }

    fn prepare(&mut self, rep: usize) {
        self.settle();
        let (me, x) = (self.me, self.x);
        let (send, recv) = (self.l.send.max(ELEMENT), self.l.recv.max(ELEMENT));
        match self.b.op {
            Op::Put | Op::Cas => check::fill_bytes(&mut self.sbuf.bytes_mut()[..send], me, rep, x),
            Op::Get => check::poison(self.rbuf, recv, None, rep, x),
            Op::Acc | Op::GetAcc | Op::FetchAdd => {
                check::fill(self.sbuf, send, Some(Elem::Float), me, rep, x)
            }
        }
        if self.b.op == Op::Cas {
            check::poison(self.aux, ELEMENT, None, rep, x);
        }
        if self.ready != Some(rep) {
            self.stage_window(rep);
        }
    }

    fn verify(&mut self, rep: usize) -> u64 {
        self.settle();
        self.comm.barrier();
        let (x, elem) = (self.x, self.elem);
        let bad = match self.expect() {
            // The accumulations add rank 0's floats only.
            Some((window, Holds::Exact(e))) => {
                check::verify(&e, self.held(window), elem, 1, rep, x)
            }
            Some((window, Holds::AnyOf(senders))) => {
                let got = &self.held(window).bytes()[..x];
                got.iter()
                    .enumerate()
                    .filter(|&(j, &v)| {
                        !senders
                            .iter()
                            .any(|&s| check::pattern_byte(s, rep, x, j) == v)
                    })
                    .count() as u64
            }
            None => 0,
        };
        // The next repetition's window data, before any rank goes on.
        self.stage_window(rep + 1);
        self.comm.barrier();
        bad
    }

    fn corrupt(&mut self) {
        self.settle();
        self.comm.barrier();
        let Some((window, holds)) = self.expect() else {
            return;
        };
        let data = if window {
            self.win.bytes_mut()
        } else {
            self.rbuf.bytes_mut()
        };
        match holds {
            Holds::Exact(Expect::Bytes(segs)) => {
                if let Some(s) = segs.iter().find(|s| s.len > 0) {
                    data[s.offset] ^= 0x40;
                }
            }
            Holds::Exact(Expect::Sum { count, .. }) if count > 0 => data[ELEMENT - 1] ^= 0x40,
            // A first byte no sender's pattern has.
            Holds::AnyOf(senders) if self.x > 0 => {
                let (rep, x) = (self.ready.unwrap_or(0), self.x);
                if let Some(v) = (0..=255u8).find(|&v| {
                    !senders
                        .iter()
                        .any(|&s| check::pattern_byte(s, rep, x, 0) == v)
                }) {
                    data[0] = v;
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static INFO: Info = Info::DEFAULT;

    fn rma(op: Op, reach: Reach) -> Rma {
        Rma {
            info: &INFO,
            op,
            reach,
            local: false,
            modes: false,
        }
    }

    #[test]
    fn lengths_round_up_to_the_operations_unit() {
        let sizes = [0, 1, 2, 4, 5, 4096];
        assert_eq!(lengths(Op::Put, &sizes), vec![0, 1, 2, 4, 5, 4096]);
        assert_eq!(lengths(Op::Acc, &sizes), vec![0, 4, 8, 4096]);
        assert_eq!(lengths(Op::Cas, &sizes), vec![4]);
        assert_eq!(lengths(Op::FetchAdd, &[]), vec![4]);
    }

    #[test]
    fn targets_follow_imbs_order() {
        let b = rma(Op::Put, Reach::AllToAll);
        let l = b.layout(1, 4, 8);
        assert_eq!(l.targets, vec![2, 3, 0]);
        // IMB's layout: every origin at offset 0.
        assert_eq!(l.win, 8);
        let e = rma(Op::Get, Reach::Exchange).layout(0, 4, 8);
        assert_eq!(e.targets, vec![3, 1]);
        assert_eq!((e.win, e.send, e.recv), (16, 16, 16));
        let one = rma(Op::Get, Reach::OneToAll);
        assert!(one.layout(0, 3, 8).origin && !one.layout(2, 3, 8).origin);
        assert_eq!(one.layout(0, 3, 8).recv, 8);
        let pair = rma(Op::Put, Reach::Pair { bidir: false });
        assert!(pair.layout(0, 2, 8).origin && !pair.layout(1, 2, 8).origin);
        assert_eq!(pair.layout(1, 2, 8).targets, vec![0]);
        let bidir = rma(Op::Put, Reach::Pair { bidir: true });
        assert!(bidir.layout(1, 2, 8).origin);
    }
}
