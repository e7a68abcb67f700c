//! OSU's one-sided programs, between ranks 0 (origin) and 1 (target), on
//! the coarray suite's windows (`-w create|allocate|dynamic`, default
//! allocate) under OSU's six synchronisations (`-s`, default flush):
//!
//! | -s | one iteration on the origin (the target) |
//! |---|---|
//! | lock | MPI_Win_lock(shared); ops; MPI_Win_unlock |
//! | lock_all | MPI_Win_lock_all; ops; MPI_Win_unlock_all |
//! | flush | ops; MPI_Win_flush (in one shared-lock epoch per size) |
//! | flush_local | ops; MPI_Win_flush_local (likewise) |
//! | fence | ops; MPI_Win_fence (every rank fences) |
//! | pscw | MPI_Win_start; ops; MPI_Win_complete (MPI_Win_post; MPI_Win_wait) |
//!
//! "ops" is one operation (latency programs) or a window of W of them to
//! consecutive slots of the target (bandwidth programs). Latency = time per
//! iteration; bandwidth = X · W / t (MB = 10^6 bytes). osu_put_bibw puts
//! both ways (fence or pscw). With `--check` every slot is verified byte
//! for byte on the side that receives it, and the atomics' fetched and
//! stored values are checked.
//!
//! The latency programs under fence and pscw alternate the direction, as
//! OMB 7.4 (a ping-pong of operations), and report half an iteration:
//!
//! | -s | rank 0 | rank 1 |
//! |---|---|---|
//! | fence | fence; op → 1; fence; fence | fence; fence; op → 0; fence |
//! | pscw | start; op → 1; complete; post; wait | post; wait; start; op → 0; complete |

use anyhow::Result;
use clap::ValueEnum;
use serde::{Deserialize, Serialize};

use super::{axis, BW_REPS, INFO, LATENCY_REPS, WINDOW};
use crate::bench::{Benchmark, Class, Info, Kernel, RankRule, Setup};
use crate::check::{self, Expect, Segment};
use crate::comm::rma::{Group, Window, WindowKind};
use crate::comm::{self, Buffer, Comm, Elem};
use crate::contract::axis::{Point, SweepCx};
use crate::contract::placement::{Placement, Role};
use crate::results::BenchResult;

/// OSU's `-s` synchronisations, in OMB's order (sync_info).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ValueEnum)]
#[serde(rename_all = "snake_case")]
#[value(rename_all = "snake_case")]
pub enum OsuSync {
    Lock,
    Pscw,
    Fence,
    Flush,
    FlushLocal,
    LockAll,
}

impl OsuSync {
    pub const ALL: [OsuSync; 6] = [
        OsuSync::Lock,
        OsuSync::Pscw,
        OsuSync::Fence,
        OsuSync::Flush,
        OsuSync::FlushLocal,
        OsuSync::LockAll,
    ];

    pub fn name(self) -> &'static str {
        match self {
            OsuSync::Lock => "lock",
            OsuSync::Pscw => "pscw",
            OsuSync::Fence => "fence",
            OsuSync::Flush => "flush",
            OsuSync::FlushLocal => "flush_local",
            OsuSync::LockAll => "lock_all",
        }
    }

    /// OSU's `# Synchronization:` line.
    pub fn calls(self) -> &'static str {
        match self {
            OsuSync::Lock => "MPI_Win_lock/unlock",
            OsuSync::Pscw => "MPI_Win_post/start/complete/wait",
            OsuSync::Fence => "MPI_Win_fence",
            OsuSync::Flush => "MPI_Win_flush",
            OsuSync::FlushLocal => "MPI_Win_flush_local",
            OsuSync::LockAll => "MPI_Win_lock_all/unlock_all",
        }
    }

    pub fn from_name(s: &str) -> Option<OsuSync> {
        OsuSync::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// OSU's `# Window creation:` line.
pub fn window_call(k: WindowKind) -> &'static str {
    match k {
        WindowKind::Create => "MPI_Win_create",
        WindowKind::Allocate => "MPI_Win_allocate",
        WindowKind::Dynamic => "MPI_Win_create_dynamic",
    }
}

/// The one-sided operation of a program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RmaOp {
    Put,
    Get,
    Acc,
    GetAcc,
    Fop,
    Cas,
}

impl RmaOp {
    fn atomic(self) -> bool {
        matches!(self, RmaOp::Fop | RmaOp::Cas)
    }
}

/// A one-sided OSU program.
pub struct OneSided {
    pub info: &'static Info,
    pub op: RmaOp,
    /// A window of W operations per iteration (bandwidth programs).
    pub windowed: bool,
    /// Both ranks put at once (osu_put_bibw; fence or pscw only).
    pub both: bool,
}

impl OneSided {
    /// OSU's default synchronisation: flush (pscw for osu_put_bibw, lock
    /// for osu_get_acc_latency, as OMB 7.4 runs them).
    pub fn default_sync(&self) -> OsuSync {
        if self.both {
            OsuSync::Pscw
        } else if self.op == RmaOp::GetAcc {
            OsuSync::Lock
        } else {
            OsuSync::Flush
        }
    }

    /// OSU's default window: MPI_Win_allocate (MPI_Win_create for
    /// osu_get_acc_latency, as OMB 7.4 runs it).
    pub fn default_kind(&self) -> WindowKind {
        if self.op == RmaOp::GetAcc {
            WindowKind::Create
        } else {
            WindowKind::Allocate
        }
    }

    /// Whether a synchronisation applies (osu_put_bibw: fence or pscw).
    pub fn allows(&self, s: OsuSync) -> bool {
        !self.both || matches!(s, OsuSync::Fence | OsuSync::Pscw)
    }

    /// OMB's latency programs under fence and pscw: both ranks take turns
    /// (an operation each way per iteration), and half an iteration counts.
    pub fn alternates(&self, s: OsuSync) -> bool {
        !self.windowed && !self.both && matches!(s, OsuSync::Fence | OsuSync::Pscw)
    }
}

const fn one_sided(name: &'static str, description: &'static str) -> Info {
    Info {
        name,
        class: Class::SingleTransfer,
        description,
        placement: Placement::XorZero(1),
        reps: Some(LATENCY_REPS),
        ranks: RankRule::PAIR,
        ..INFO
    }
}

macro_rules! programs {
    ($($stat:ident, $info:ident, $decl:expr, $op:ident, $windowed:expr, $both:expr;)*) => {
        $(
            static $info: Info = $decl;
            pub static $stat: OneSided = OneSided { info: &$info, op: RmaOp::$op, windowed: $windowed, both: $both };
        )*
        /// The one-sided programs, in OMB's order.
        pub fn benchmarks() -> Vec<&'static dyn Benchmark> {
            vec![$(&$stat),*]
        }
        /// A one-sided program by name.
        pub fn find(name: &str) -> Option<&'static OneSided> {
            [$(&$stat),*].into_iter().find(|p| p.info.name == name)
        }
    };
}

const fn bw(i: Info) -> Info {
    Info {
        reps: Some(BW_REPS),
        ..i
    }
}

programs! {
    PUT_LATENCY, PUT_LATENCY_INFO, one_sided("osu_put_latency", "OSU MPI_Put latency 0 -> 1"), Put, false, false;
    GET_LATENCY, GET_LATENCY_INFO, one_sided("osu_get_latency", "OSU MPI_Get latency 0 <- 1"), Get, false, false;
    PUT_BW, PUT_BW_INFO, bw(one_sided("osu_put_bw", "OSU MPI_Put bandwidth 0 -> 1, W puts per sync (MB = 10^6 B)")), Put, true, false;
    GET_BW, GET_BW_INFO, bw(one_sided("osu_get_bw", "OSU MPI_Get bandwidth 0 <- 1, W gets per sync (MB = 10^6 B)")), Get, true, false;
    PUT_BIBW, PUT_BIBW_INFO, bw(one_sided("osu_put_bibw", "OSU MPI_Put bandwidth both ways, W puts per sync (MB = 10^6 B)")), Put, true, true;
    ACC_LATENCY, ACC_LATENCY_INFO, one_sided("osu_acc_latency", "OSU MPI_Accumulate (MPI_SUM) latency 0 -> 1"), Acc, false, false;
    GET_ACC_LATENCY, GET_ACC_LATENCY_INFO, one_sided("osu_get_acc_latency", "OSU MPI_Get_accumulate (MPI_SUM) latency 0 <-> 1"), GetAcc, false, false;
    FOP_LATENCY, FOP_LATENCY_INFO, Info { axis: crate::bench::Axis::None, ..one_sided("osu_fop_latency", "OSU MPI_Fetch_and_op (MPI_SUM, one 32-bit integer) latency") }, Fop, false, false;
    CAS_LATENCY, CAS_LATENCY_INFO, Info { axis: crate::bench::Axis::None, ..one_sided("osu_cas_latency", "OSU MPI_Compare_and_swap (one 32-bit integer) latency") }, Cas, false, false;
}

/// Bytes of the atomics' one element.
const ATOM: usize = 4;

fn sync_of(p: &Point) -> OsuSync {
    p.str("sync")
        .and_then(OsuSync::from_name)
        .unwrap_or(OsuSync::Flush)
}

fn kind_of(p: &Point) -> WindowKind {
    p.str("win")
        .and_then(WindowKind::from_name)
        .unwrap_or(WindowKind::Allocate)
}

impl OneSided {
    fn x(&self, p: &Point) -> usize {
        if self.op.atomic() {
            ATOM
        } else {
            p.bytes
        }
    }

    fn w(&self, p: &Point) -> usize {
        if self.windowed {
            p.u64("window").map_or(WINDOW, |w| w as usize).max(1)
        } else {
            1
        }
    }

    /// (window bytes, send bytes, receive bytes) per rank.
    fn lens(&self, p: &Point) -> (usize, usize, usize) {
        let (x, w) = (self.x(p), self.w(p));
        // At least 64 bytes: MPICH 4.0.2 loses puts into MPI_Win_allocate windows of 8 bytes.
        let span = w.saturating_mul(x).max(64);
        (span, span, span)
    }
}

impl Benchmark for OneSided {
    fn info(&self) -> &'static Info {
        self.info
    }

    fn points(&self, cx: &SweepCx) -> Vec<Point> {
        let kind = super::one(cx.axes, axis::WIN)
            .and_then(|c| WindowKind::ALL.get(c as usize).copied())
            .unwrap_or(self.default_kind());
        let sync = super::one(cx.axes, axis::SYNC)
            .and_then(|c| OsuSync::ALL.get(c as usize).copied())
            .unwrap_or(self.default_sync());
        let w = super::one(cx.axes, axis::WINDOW).map_or(WINDOW, |w| w as usize);
        // OSU -T: sizes below one element are skipped (osu_acc_latency).
        let elem = self.info.elem.size();
        let base: Vec<Point> = if self.op.atomic() {
            vec![Point::bytes(ATOM)]
        } else {
            cx.sizes
                .iter()
                .filter(|&&x| x >= elem)
                .map(|&x| Point::bytes(x))
                .collect()
        };
        base.into_iter()
            .map(|p| {
                let p = p.with("win", kind.name()).with("sync", sync.name());
                if self.windowed {
                    p.with("window", w as u64)
                } else {
                    p
                }
            })
            .collect()
    }

    fn need(&self, p: &Point, _q: usize) -> u64 {
        let (a, b, c) = self.lens(p);
        // The window's W operations, queued in one epoch by the library.
        (a as u64)
            .saturating_add(b as u64)
            .saturating_add(c as u64)
            .saturating_add(comm::pending_bytes(self.w(p)))
    }

    fn refuse(&self, p: &Point, _q: usize) -> Option<String> {
        let s = sync_of(p);
        if !self.allows(s) {
            return Some(format!(
                "{}: -s {} does not apply (fence or pscw)",
                self.info.name,
                s.name()
            ));
        }
        (self.x(p) * self.w(p) > i32::MAX as usize).then(|| {
            format!(
                "{}: {} bytes per window exceed an MPI count",
                self.info.name,
                self.x(p) * self.w(p)
            )
        })
    }

    /// osu_acc_latency takes OSU's -T (MPI_INT, MPI_FLOAT); the others
    /// move bytes.
    fn retyped(&self, info: &'static Info) -> Option<&'static dyn Benchmark> {
        (self.op == RmaOp::Acc).then(|| {
            let b: &'static dyn Benchmark = Box::leak(Box::new(OneSided { info, ..*self }));
            b
        })
    }

    /// Half an iteration where the ranks take turns (fence, pscw latency).
    fn time_scale(&self, p: &Point) -> f64 {
        if self.alternates(sync_of(p)) {
            0.5
        } else {
            self.info.time_scale
        }
    }

    fn kernel<'a>(&'a self, s: Setup<'a>, p: &Point) -> Result<Box<dyn Kernel + 'a>> {
        let (span, send, recv) = self.lens(p);
        let sync = sync_of(p);
        let me = s.comm.rank;
        let (win, bufs) = s
            .arena
            .window(s.comm, kind_of(p), span, &[send, recv, span])?;
        let [sbuf, rbuf, scratch] = bufs else {
            unreachable!("three buffers asked for")
        };
        let peer = s.role.to.unwrap_or(me);
        let group = (s.role.active && sync == OsuSync::Pscw)
            .then(|| Group::of(s.comm, &[peer]))
            .transpose()?;
        let k = RmaKernel {
            comm: s.comm,
            win,
            sbuf,
            rbuf,
            scratch,
            role: s.role,
            peer,
            group,
            sync,
            op: self.op,
            both: self.both,
            alternate: self.alternates(sync),
            x: self.x(p),
            w: self.w(p),
            // Accumulates: X bytes as elements of -T (chars: unsigned, for MPI_SUM).
            n: (self.x(p) / self.info.elem.size()) as std::ffi::c_int,
            elem: self.info.elem.size(),
            dt: match (self.op, self.info.elem) {
                (RmaOp::Acc | RmaOp::GetAcc, Elem::Byte | Elem::UChar) => Elem::UChar.datatype(),
                (RmaOp::Acc | RmaOp::GetAcc, e) => e.datatype(),
                _ => Elem::Byte.datatype(),
            },
            value: [0; 3],
        };
        k.open();
        Ok(Box::new(k))
    }

    /// Bandwidth programs: X · W / t (× 2 both ways), MB = 10^6 bytes.
    fn derive(&self, r: &mut BenchResult) {
        if !self.windowed {
            return;
        }
        let ways = if self.both { 2.0 } else { 1.0 };
        super::window_rates(r, ways);
    }
}

struct RmaKernel<'a> {
    comm: &'a Comm,
    win: &'a mut Window,
    sbuf: &'a mut Buffer,
    rbuf: &'a mut Buffer,
    scratch: &'a mut Buffer,
    role: Role,
    peer: usize,
    group: Option<Group>,
    sync: OsuSync,
    op: RmaOp,
    both: bool,
    /// Both ranks take turns, an operation each way per iteration
    /// ([`OneSided::alternates`]).
    alternate: bool,
    x: usize,
    w: usize,
    /// Elements of `dt` per operation, and their bytes.
    n: std::ffi::c_int,
    elem: usize,
    dt: crate::comm::RawType,
    /// Atomics: the operand (add or new value), the compare value, the fetched value.
    value: [i32; 3],
}

impl RmaKernel<'_> {
    /// Issues operations on this rank.
    fn origin(&self) -> bool {
        self.role.active && (self.role.initiator || self.both || self.alternate)
    }

    /// Is written or read by the other rank.
    fn target(&self) -> bool {
        self.role.active && (!self.role.initiator || self.both || self.alternate)
    }

    /// Untimed, at the start of a size: the epochs that span it.
    fn open(&self) {
        match self.sync {
            OsuSync::Flush | OsuSync::FlushLocal if self.origin() => {
                self.win.lock_shared(self.peer)
            }
            OsuSync::Fence => self.win.fence(),
            _ => {}
        }
    }

    #[inline(always)]
    fn ops(&mut self) {
        let n = self.n;
        for k in 0..self.w {
            let off = k * self.x;
            match self.op {
                RmaOp::Put => self.win.put(self.sbuf.ptr(), n, self.dt, self.peer, off),
                RmaOp::Get => {
                    let at = self.rbuf.mut_ptr().wrapping_add(off);
                    self.win.get(at, n, self.dt, self.peer, off)
                }
                RmaOp::Acc => self
                    .win
                    .accumulate(self.sbuf.ptr(), n, self.dt, self.peer, off),
                RmaOp::GetAcc => {
                    let at = self.rbuf.mut_ptr().wrapping_add(off);
                    self.win
                        .get_accumulate(self.sbuf.ptr(), at, n, self.dt, self.peer, off)
                }
                RmaOp::Fop => {
                    let [add, _, old] = &mut self.value;
                    self.win.fetch_and_add(add, old, self.peer, 0)
                }
                RmaOp::Cas => {
                    let [new, cmp, old] = &mut self.value;
                    self.win.swap_if(new, cmp, old, self.peer, 0)
                }
            }
        }
    }

    /// What this rank's receive buffer holds after repetition `rep` (gets).
    fn fetched(&self) -> Expect {
        if !self.origin() || self.op != RmaOp::Get {
            return Expect::Nothing;
        }
        Expect::Bytes(
            (0..self.w)
                .map(|k| Segment {
                    offset: k * self.x,
                    len: self.x,
                    sender: self.peer,
                    sender_offset: k * self.x,
                })
                .collect(),
        )
    }

    /// Passive-target synchronisation: local loads and stores of the
    /// window need an epoch of this rank's own (MPICH refuses MPI_Win_sync
    /// outside one); a shared lock, compatible with the origin's.
    fn passive(&self) -> bool {
        matches!(
            self.sync,
            OsuSync::Lock | OsuSync::LockAll | OsuSync::Flush | OsuSync::FlushLocal
        )
    }

    /// Untimed, after a repetition, on every rank: the operations are
    /// complete at their targets (flush_local completes only locally).
    fn settle(&self) {
        if self.origin() && self.sync == OsuSync::FlushLocal {
            self.win.flush(self.peer);
        }
        self.comm.barrier();
    }

    /// Before local access to this rank's window memory (untimed).
    fn local_begin(&self) {
        if self.passive() {
            self.win.lock_shared(self.comm.rank);
            self.win.sync();
        }
    }

    /// After local access to this rank's window memory (untimed).
    fn local_end(&self) {
        if self.passive() {
            self.win.sync();
            self.win.unlock(self.comm.rank);
        }
    }

    /// MPI_Accumulate or MPI_Get_accumulate: validated with small values
    /// (Open MPI 4.1's vectorised MPI_SUM on bytes saturates at 255).
    fn accumulates(&self) -> bool {
        matches!(self.op, RmaOp::Acc | RmaOp::GetAcc)
    }

    /// The target's value of the atomics before repetition `rep`.
    fn before(rep: usize) -> i32 {
        (rep % 100_000) as i32 + 11
    }
}

impl Kernel for RmaKernel<'_> {
    #[inline(always)]
    fn run(&mut self, _rep: usize) {
        let origin = self.origin();
        match self.sync {
            OsuSync::Lock if origin => {
                self.win.lock_shared(self.peer);
                self.ops();
                self.win.unlock(self.peer);
            }
            OsuSync::LockAll if origin => {
                self.win.lock_all();
                self.ops();
                self.win.unlock_all();
            }
            OsuSync::Flush if origin => {
                self.ops();
                self.win.flush(self.peer);
            }
            OsuSync::FlushLocal if origin => {
                self.ops();
                self.win.flush_local(self.peer);
            }
            OsuSync::Fence if self.alternate => {
                // OMB: the initiator's operation in the first epoch, the
                // partner's in the second (every rank of the window fences).
                let active = self.role.active;
                let first = self.role.initiator;
                self.win.fence();
                if active && first {
                    self.ops();
                }
                self.win.fence();
                if active && !first {
                    self.ops();
                }
                self.win.fence();
            }
            OsuSync::Fence => {
                if origin {
                    self.ops();
                }
                self.win.fence();
            }
            OsuSync::Pscw if self.alternate => {
                // (The group is put back after the operations borrow `self`.)
                if let Some(g) = self.group.take() {
                    if self.role.initiator {
                        self.win.start(&g);
                        self.ops();
                        self.win.complete();
                        self.win.post(&g);
                        self.win.wait();
                    } else {
                        self.win.post(&g);
                        self.win.wait();
                        self.win.start(&g);
                        self.ops();
                        self.win.complete();
                    }
                    self.group = Some(g);
                }
            }
            OsuSync::Pscw => {
                if let Some(g) = &self.group {
                    if self.target() {
                        self.win.post(g);
                    }
                    if origin {
                        self.win.start(g);
                        self.ops();
                        self.win.complete();
                    }
                    if self.target() {
                        self.win.wait();
                    }
                }
            }
            _ => {}
        }
    }

    /// The origin's data and the target's window for repetition `rep`,
    /// visible to the other side before it starts (a barrier).
    fn prepare(&mut self, rep: usize) {
        let (x, span) = (self.x, self.w * self.x);
        let me = self.comm.rank;
        if self.op.atomic() {
            self.value = match self.op {
                RmaOp::Fop => [me as i32 + 1, 0, -1],
                _ => [rep as i32 + 7, Self::before(rep), -1],
            };
        } else if self.accumulates() {
            // Small values, so that sums never overflow a byte.
            for (i, v) in self.sbuf.bytes_mut()[..x].iter_mut().enumerate() {
                *v = check::small_at(me, rep, i);
            }
            self.rbuf.bytes_mut()[..span].fill(0xff);
        } else {
            check::fill(self.sbuf, x, None, me, rep, x);
            let len = self.rbuf.len().min(span);
            check::poison(self.rbuf, len, None, rep, x);
        }
        if self.target() {
            self.local_begin();
            let mem = self.win.bytes_mut();
            match self.op {
                RmaOp::Put | RmaOp::Acc => mem[..span].fill(0),
                RmaOp::Get => check::fill_bytes(&mut mem[..span], me, rep, x),
                RmaOp::GetAcc => {
                    for (i, v) in mem[..span].iter_mut().enumerate() {
                        *v = check::small_at(me, rep, i);
                    }
                }
                RmaOp::Fop | RmaOp::Cas => {
                    mem[..ATOM].copy_from_slice(&Self::before(rep).to_ne_bytes())
                }
            }
            self.local_end();
        }
        if self.sync == OsuSync::Fence {
            self.win.fence();
        }
        self.comm.barrier();
    }

    fn verify(&mut self, rep: usize) -> u64 {
        let (x, span) = (self.x, self.w * self.x);
        self.settle();
        let mut bad = 0;
        // The origin: what came back (gets, get-accumulate, atomics).
        if self.origin() && self.op == RmaOp::GetAcc {
            let got = &self.rbuf.bytes()[..span];
            let peer = self.peer;
            bad += (0..span)
                .filter(|&i| got[i] != check::small_at(peer, rep, i))
                .count() as u64;
        }
        if self.origin() {
            bad += check::verify(
                &self.fetched(),
                self.rbuf,
                Elem::Byte,
                self.comm.size,
                rep,
                x,
            );
            if self.op.atomic() && self.value[2] != Self::before(rep) {
                bad += 1;
            }
        }
        // The target: what was written (put, accumulate, atomics).
        if self.target() {
            self.local_begin();
            let mem = self.win.bytes();
            let origin = self.peer;
            match self.op {
                RmaOp::Acc => {
                    // The bytes of whole elements (zero plus the origin's).
                    let moved = self.n as usize * self.elem;
                    bad += (0..span)
                        .filter(|&i| i % x < moved && mem[i] != check::small_at(origin, rep, i % x))
                        .count() as u64;
                }
                RmaOp::Put => {
                    self.scratch.bytes_mut()[..span].copy_from_slice(&mem[..span]);
                    let e = Expect::Bytes(
                        (0..self.w)
                            .map(|k| Segment {
                                offset: k * x,
                                len: x,
                                sender: origin,
                                sender_offset: 0,
                            })
                            .collect(),
                    );
                    bad += check::verify(&e, self.scratch, Elem::Byte, self.comm.size, rep, x);
                }
                RmaOp::GetAcc => {
                    // Old value (this rank's) plus the origin's.
                    let me = self.comm.rank;
                    bad += (0..span)
                        .filter(|&i| {
                            mem[i]
                                != check::small_at(me, rep, i) + check::small_at(origin, rep, i % x)
                        })
                        .count() as u64;
                }
                RmaOp::Fop => {
                    let got = i32::from_ne_bytes(mem[..ATOM].try_into().expect("4 bytes"));
                    bad += u64::from(got != Self::before(rep) + origin as i32 + 1);
                }
                RmaOp::Cas => {
                    let got = i32::from_ne_bytes(mem[..ATOM].try_into().expect("4 bytes"));
                    bad += u64::from(got != rep as i32 + 7);
                }
                RmaOp::Get => {}
            }
        }
        if self.target() {
            self.local_end();
        }
        bad
    }

    fn corrupt(&mut self) {
        self.settle();
        if self.target() && matches!(self.op, RmaOp::Put | RmaOp::Acc | RmaOp::GetAcc) && self.x > 0
        {
            self.local_begin();
            self.win.bytes_mut()[0] ^= 0x5a;
            self.local_end();
        }
        if self.origin() && self.op == RmaOp::Get && self.x > 0 {
            self.rbuf.bytes_mut()[0] ^= 0x5a;
        }
    }
}

impl Drop for RmaKernel<'_> {
    /// Closes the epochs [`RmaKernel::open`] opened.
    fn drop(&mut self) {
        match self.sync {
            OsuSync::Flush | OsuSync::FlushLocal if self.origin() => self.win.unlock(self.peer),
            OsuSync::Fence => self.win.fence(),
            _ => {}
        }
    }
}
