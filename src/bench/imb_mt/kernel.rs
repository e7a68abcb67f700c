//! How IMB-MT measures (IMB 2021.11, `src_cpp/MT/MT_benchmark.h`): every
//! rank runs T threads, each on its own duplicate of the communicator
//! ([`ThreadComm`]) with its own buffers, all at once.
//!
//! * Point-to-point benchmarks: each thread runs its warm-up, the threads of
//!   a rank meet, one of them enters `-barrier`'s barrier (MPI_Barrier, a
//!   dissemination barrier of zero-byte Sendrecvs, or none), they meet
//!   again, and each thread times its repetitions with one clock pair.
//! * Collectives: each repetition is timed alone and followed by five such
//!   barriers; the warm-up is the first repetitions, untimed.
//!
//! A thread's time is its sum over the repetitions. The figures are
//! IMB-MT's, over every thread of every rank that took part: t_min and
//! t_max the least and largest thread time, t_avg their mean, each per
//! repetition and divided by the benchmark's divider ([`Op::divider`]).
//! Threads report them through [`Kernel::figures`]; [`MtBench::derive`]
//! makes the row's times, Mbytes/sec (10^6 bytes) and Msg/sec from them.
//!
//! Validation (`--check`): every repetition of every thread is filled,
//! poisoned and verified outside its clock pair (and then timed alone);
//! the pattern of thread t in repetition i is keyed by i · T + t, so that
//! data crossing threads is caught.

use std::sync::Barrier;

use anyhow::Result;

use super::patterns::{Bandwidth, Io, Op, Partners};
use crate::bench::{Benchmark, Combine, Figure, Info, Kernel, Setup};
use crate::check;
use crate::comm::threads::ThreadComm;
use crate::comm::{self, Buffer, Elem, Msg};
use crate::contract::axis::{Point, SweepCx};
use crate::contract::placement::Placement;
use crate::method::{Ctx, Method, MpiCtx, RepBatch, Samples};
use crate::results::BenchResult;

/// Plan axes (the front end's flags, the threads); rows carry the params.
pub const THREADS_AXIS: &str = "mt_threads";
pub const STRIDE_AXIS: &str = "mt_stride";
pub const WINDOW_AXIS: &str = "mt_window_size";
pub const BARRIER_AXIS: &str = "mt_barrier";
pub const WARMUP_AXIS: &str = "mt_warmup";
pub const ELEM_AXIS: &str = "mt_elem_bytes";
pub const ALIGN_AXIS: &str = "mt_malloc_align";
pub const ALGO_AXIS: &str = "mt_malloc_algo";

/// IMB-MT's defaults: -stride 0, -window_size 64, -barrier on, -warmup 100,
/// -datatype int, -malloc_align 64, -malloc_algo serial.
pub const DEFAULT_WINDOW: usize = 64;
pub const DEFAULT_WARMUP: usize = 100;
pub const DEFAULT_ALIGN: usize = 64;

/// The figures a rank's threads report (µs per repetition, divided).
const T_MIN: &str = "mt_t_min_us";
const T_MAX: &str = "mt_t_max_us";
const T_AVG: &str = "mt_t_avg_us";

/// `-barrier`: what separates IMB-MT's timed parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sync {
    Off,
    On,
    Special,
}

impl Sync {
    fn of(code: u64) -> Sync {
        match code {
            0 => Sync::Off,
            2 => Sync::Special,
            _ => Sync::On,
        }
    }
}

/// `-malloc_algo`: serial (each thread's buffers apart) or continuous (one
/// block for all threads' send buffers and one for their receive buffers);
/// parallel is serial here (see docs/suites/imb-mt.md).
pub const ALGOS: [&str; 3] = ["serial", "continuous", "parallel"];

/// One IMB-MT benchmark.
pub struct MtBench {
    pub info: &'static Info,
    pub op: Op,
}

/// A point's settings, from its params.
#[derive(Debug, Clone, Copy)]
struct Setting {
    threads: usize,
    stride: usize,
    window: usize,
    sync: Sync,
    warmup: usize,
    /// Bytes per element: 4 (MPI_INT) or 1 (MPI_CHAR).
    esize: usize,
    align: usize,
    continuous: bool,
}

impl Setting {
    fn of(p: &Point) -> Setting {
        let get = |k: &str, d: usize| p.u64(k).map_or(d, |v| v as usize);
        Setting {
            threads: get("threads", 1).max(1),
            stride: get("stride", 0),
            window: get("window_size", DEFAULT_WINDOW).max(1),
            sync: Sync::of(get("barrier", 1) as u64),
            warmup: get("warmup", DEFAULT_WARMUP),
            esize: if p.str("datatype") == Some("MPI_CHAR") {
                1
            } else {
                4
            },
            align: get("malloc_align", DEFAULT_ALIGN).max(1),
            continuous: p.str("malloc_algo") == Some("continuous"),
        }
    }
}

/// OMP_NUM_THREADS as IMB-MT's OpenMP runtime reads it (the first value of
/// a list); unset: 1.
pub fn threads_from_env() -> Result<usize, String> {
    match std::env::var("OMP_NUM_THREADS") {
        Err(_) => Ok(1),
        Ok(v) => {
            let first = v.split(',').next().unwrap_or_default().trim();
            first
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=MAX_THREADS).contains(n))
                .ok_or_else(|| {
                    format!("OMP_NUM_THREADS '{v}': threads per rank must be 1 to {MAX_THREADS}")
                })
        }
    }
}

/// The most threads per rank (each has a communicator of its own).
pub const MAX_THREADS: usize = 256;

impl MtBench {
    /// Element type and count of a point's messages.
    fn elem(&self, esize: usize) -> Elem {
        match (esize, self.op.reduction()) {
            (1, true) => Elem::UChar,
            (1, false) => Elem::Byte,
            _ => Elem::Int,
        }
    }

    /// Bytes of one thread's send and receive regions (with the
    /// acknowledgement byte after the receive blocks).
    fn regions(&self, x: usize) -> (usize, usize) {
        (x, self.op.recv_blocks() * x + 1)
    }
}

impl Benchmark for MtBench {
    fn info(&self) -> &'static Info {
        self.info
    }

    fn points(&self, cx: &SweepCx) -> Vec<Point> {
        let get = |a: &str, d: usize| cx.axis(a).first().map_or(d, |&v| v as usize);
        let threads = get(THREADS_AXIS, 1).max(1);
        let esize = get(ELEM_AXIS, 4);
        let sizes: Vec<usize> = if self.op.sized() {
            cx.sizes.to_vec()
        } else {
            vec![0]
        };
        sizes
            .into_iter()
            .map(|x| {
                let mut p = Point::bytes(x)
                    .with("count", (x / esize) as u64)
                    .with("threads", threads as u64)
                    .with("stride", get(STRIDE_AXIS, 0) as u64)
                    .with("barrier", get(BARRIER_AXIS, 1) as u64)
                    .with("warmup", get(WARMUP_AXIS, DEFAULT_WARMUP) as u64)
                    .with("datatype", if esize == 1 { "MPI_CHAR" } else { "MPI_INT" })
                    .with("malloc_align", get(ALIGN_AXIS, DEFAULT_ALIGN) as u64)
                    .with("malloc_algo", ALGOS[get(ALGO_AXIS, 0).min(2)]);
                if self.op.windowed() {
                    p = p.with("window_size", get(WINDOW_AXIS, DEFAULT_WINDOW) as u64);
                }
                p
            })
            .collect()
    }

    /// Every rank runs every point; IMB-MT's pairs at the default stride
    /// are the engine's halves, so that an idle rank's time is not counted.
    fn placement(&self, p: &Point) -> Placement {
        if self.op.paired() && Setting::of(p).stride == 0 {
            Placement::Halves
        } else {
            Placement::All
        }
    }

    fn need(&self, p: &Point, _q: usize) -> u64 {
        let s = Setting::of(p);
        let (a, b) = self.regions(p.bytes);
        let buffers = s.threads.saturating_mul(a + b + 2 * s.align) as u64;
        // Each thread's window of requests, pending at once.
        let pending = s.threads.saturating_mul(self.op.requests(s.window));
        buffers.saturating_add(comm::pending_bytes(pending))
    }

    fn refuse(&self, p: &Point, _q: usize) -> Option<String> {
        let s = Setting::of(p);
        if p.bytes % s.esize != 0 {
            return Some(format!(
                "{}: {} bytes are not a whole number of {}-byte elements",
                self.info.name, p.bytes, s.esize
            ));
        }
        Msg::count_error(self.elem(s.esize), p.bytes / s.esize)
    }

    fn time_scale(&self, p: &Point) -> f64 {
        1.0 / self.op.divider(Setting::of(p).window)
    }

    fn kernel<'a>(&'a self, s: Setup<'a>, p: &Point) -> Result<Box<dyn Kernel + 'a>> {
        let set = Setting::of(p);
        let (rank, q) = (s.comm.rank, s.comm.size);
        let x = p.bytes;
        let elem = self.elem(set.esize);
        let count = x / elem.size();
        let reqs = self.op.requests(set.window);
        let mut lanes = Vec::with_capacity(set.threads);
        for t in 0..set.threads {
            let msg = Msg::elems(elem, count)?;
            lanes.push(ThreadComm::new(s.comm, t, msg, reqs)?);
        }
        let (a, b) = self.regions(x);
        let pad = set.align;
        let sizes: Vec<usize> = if set.continuous {
            vec![set.threads * a + pad, set.threads * b + pad]
        } else {
            (0..set.threads).flat_map(|_| [a + pad, b + pad]).collect()
        };
        let bufs = s.arena.take(&sizes)?;
        Ok(Box::new(MtKernel {
            g: Geo {
                op: self.op,
                set,
                rank,
                q,
                x,
                who: self.op.partners(rank, q, set.stride),
                check_elem: self.op.reduction().then_some(elem),
            },
            scale_us: 1e6 / self.op.divider(set.window),
            lanes,
            bufs,
            sums: vec![0.0; set.threads],
            timed: 0,
        }))
    }

    /// IMB-MT's figures from the threads' (see the module's comment).
    fn derive(&self, r: &mut BenchResult) {
        let q = r.processes;
        for row in &mut r.rows {
            let get = |k: &str| row.params.get(k).and_then(|v| v.as_f64());
            let threads = get("threads").unwrap_or(1.0) as usize;
            let stride = get("stride").unwrap_or(0.0) as usize;
            let active = self.op.active(q, stride);
            let figures = (get(T_MIN), get(T_MAX), get(T_AVG));
            for k in [T_MIN, T_MAX, T_AVG] {
                row.params.remove(k);
            }
            row.params.insert("active_processes".into(), active.into());
            let (Some(lo), Some(hi), Some(avg)) = figures else {
                row.t_min_us = f64::NAN;
                row.t_max_us = f64::NAN;
                row.t_avg_us = f64::NAN;
                row.mbytes_per_sec = None;
                row.note = Some(
                    "no thread of any rank took part (IMB-MT: no successful executions)".into(),
                );
                continue;
            };
            (row.t_min_us, row.t_max_us, row.t_avg_us) = (lo, hi, avg);
            if active < q && self.placement_all(row) {
                // Idle ranks' zero times are in the engine's statistics: none.
                row.t_median_us = None;
                row.t_p5_us = None;
                row.t_p95_us = None;
                row.ci95_lo_us = None;
                row.ci95_hi_us = None;
            }
            let pairs = (active * threads / 2) as f64;
            let x = row.bytes as f64;
            let positive = |t: f64| (t.is_finite() && t > 0.0).then_some(t);
            match self.op.bandwidth() {
                Some(Bandwidth::Pair(f)) => {
                    row.mbytes_per_sec = positive(hi).map(|t| x * threads as f64 * f / t);
                }
                Some(Bandwidth::Cumulative) => {
                    row.mbytes_per_sec = positive(hi).map(|t| x * pairs / t);
                    row.msg_per_sec = positive(avg).map(|t| (pairs / (t * 1e-6)).trunc());
                }
                None => row.mbytes_per_sec = None,
            }
        }
    }
}

impl MtBench {
    /// The point ran on every rank as Placement::All (a stride given).
    fn placement_all(&self, row: &crate::results::Row) -> bool {
        !self.op.paired() || row.params.get("stride").and_then(|v| v.as_u64()) != Some(0)
    }
}

/// What a point's repetitions are on this rank: the benchmark, its
/// settings, the rank among `q`, X bytes, its partners.
#[derive(Debug, Clone, Copy)]
struct Geo {
    op: Op,
    set: Setting,
    rank: usize,
    q: usize,
    x: usize,
    who: Partners,
    /// Reductions: the element type the sums are checked in.
    check_elem: Option<Elem>,
}

struct MtKernel<'a> {
    g: Geo,
    /// µs per repetition of a thread's time per repetition in seconds.
    scale_us: f64,
    lanes: Vec<ThreadComm>,
    bufs: &'a mut [Buffer],
    /// Each thread's time over the timed repetitions since the last figures.
    sums: Vec<f64>,
    timed: usize,
}

/// What one thread measured in a batch.
#[derive(Default)]
struct Part {
    time: f64,
    errors: u64,
    t0: f64,
    t1: f64,
}

/// The first `n` pieces of `each` bytes of `buf` from its first byte
/// aligned to `align`.
fn carve(buf: &mut Buffer, align: usize, each: usize, n: usize) -> Vec<&mut [u8]> {
    let off = (align - buf.ptr() as usize % align) % align;
    let mut rest = &mut buf.bytes_mut()[off..];
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let (a, b) = std::mem::take(&mut rest).split_at_mut(each);
        out.push(a);
        rest = b;
    }
    out
}

impl MtKernel<'_> {
    /// Every thread's send and receive regions.
    fn regions(&mut self) -> Vec<(&mut [u8], &mut [u8])> {
        let (a, b) = (self.x, self.op.recv_blocks() * self.x + 1);
        let (t, align) = (self.set.threads, self.set.align);
        if self.set.continuous {
            let (s, r) = self.bufs.split_at_mut(1);
            carve(&mut s[0], align, a, t)
                .into_iter()
                .zip(carve(&mut r[0], align, b, t))
                .collect()
        } else {
            self.bufs
                .chunks_mut(2)
                .take(t)
                .map(|pair| {
                    let (s, r) = pair.split_at_mut(1);
                    let s = carve(&mut s[0], align, a, 1).pop().expect("one");
                    let r = carve(&mut r[0], align, b, 1).pop().expect("one");
                    (s, r)
                })
                .collect()
        }
    }
}

/// The read-only side of a batch that every thread of the rank uses.
struct Shared<'k> {
    g: Geo,
    batch: &'k RepBatch,
    /// Warm-up repetitions before this batch (the first batch only).
    warm: usize,
    gate: Barrier,
}

impl std::ops::Deref for Shared<'_> {
    type Target = Geo;
    fn deref(&self) -> &Geo {
        &self.g
    }
}

impl std::ops::Deref for MtKernel<'_> {
    type Target = Geo;
    fn deref(&self) -> &Geo {
        &self.g
    }
}

impl Shared<'_> {
    fn io<'t>(&'t self, tc: &'t mut ThreadComm, s: &mut [u8], r: &mut [u8]) -> Io<'t> {
        let rb = r.len() - 1;
        Io {
            tc,
            who: self.who,
            sbuf: s.as_ptr(),
            rbuf: r.as_mut_ptr(),
            x: self.x,
            window: self.set.window,
            ack: r.as_mut_ptr().wrapping_add(rb),
            gate: (self.set.threads > 1).then_some(&self.gate),
        }
    }

    /// IMB-MT's barrier between timed parts: the threads meet, thread 0
    /// synchronises the ranks on its communicator, they meet again.
    fn barrier(&self, t: usize, tc: &ThreadComm) {
        if self.set.sync == Sync::Off {
            return;
        }
        self.gate.wait();
        if t == 0 {
            match self.set.sync {
                Sync::Special => tc.comm.dissemination_barrier(),
                _ => tc.comm.barrier(),
            }
        }
        self.gate.wait();
    }

    /// Thread `t`'s part of the batch.
    fn lane(&self, t: usize, tc: &mut ThreadComm, s: &mut [u8], r: &mut [u8]) -> Part {
        if self.op.collective() {
            self.each(t, tc, s, r)
        } else {
            self.looped(t, tc, s, r)
        }
    }

    /// Point-to-point: warm-up, barrier, one clock pair around the loop.
    fn looped(&self, t: usize, tc: &mut ThreadComm, s: &mut [u8], r: &mut [u8]) -> Part {
        let (op, b) = (self.op, self.batch);
        {
            let mut io = self.io(tc, s, r);
            op.run(&mut io, self.warm);
        }
        self.barrier(t, tc);
        let mut part = Part::default();
        if b.check {
            for i in b.first..b.first + b.n {
                let want = self.prepare(t, i, s, r);
                let mut io = self.io(tc, s, r);
                let t0 = comm::wtime();
                op.run(&mut io, 1);
                let t1 = comm::wtime();
                part.time += t1 - t0;
                part.errors += self.verify(t, i, r, &want);
            }
            return part;
        }
        let mut io = self.io(tc, s, r);
        let t0 = comm::wtime();
        op.run(&mut io, b.n);
        let t1 = comm::wtime();
        (part.time, part.t0, part.t1) = (t1 - t0, t0, t1);
        part
    }

    /// Collectives: each repetition timed alone, five barriers after it
    /// (none after BarrierMT's); the warm-up's repetitions untimed.
    fn each(&self, t: usize, tc: &mut ThreadComm, s: &mut [u8], r: &mut [u8]) -> Part {
        let (op, b) = (self.op, self.batch);
        let mut part = Part::default();
        for k in 0..self.warm + b.n {
            let timed = k >= self.warm;
            let i = b.first + k.saturating_sub(self.warm);
            let want = (timed && b.check).then(|| self.prepare(t, i, s, r));
            let mut io = self.io(tc, s, r);
            let t0 = comm::wtime();
            op.run(&mut io, 1);
            let t1 = comm::wtime();
            if timed {
                if part.time == 0.0 {
                    part.t0 = t0;
                }
                part.time += t1 - t0;
                part.t1 = t1;
            }
            if let Some(w) = want {
                part.errors += self.verify(t, i, r, &w);
            }
            if op != Op::Barrier {
                for _ in 0..5 {
                    self.barrier(t, tc);
                }
            }
        }
        part
    }

    /// The pattern key of thread `t` in repetition `i`.
    fn key(&self, t: usize, i: usize) -> usize {
        i * self.set.threads + t
    }

    /// Before a checked repetition: this rank's send data, and the receive
    /// region poisoned with the complement of what must arrive (returned).
    fn prepare(&self, t: usize, i: usize, s: &mut [u8], r: &mut [u8]) -> Vec<u8> {
        let key = self.key(t, i);
        self.pattern(self.rank, key, s);
        let want = self.expected(key);
        for (v, w) in r.iter_mut().zip(&want) {
            *v = !w;
        }
        want
    }

    /// What sender `sender` sends in repetition `key`: IMB's byte pattern,
    /// or small integers for the sums.
    fn pattern(&self, sender: usize, key: usize, out: &mut [u8]) {
        match self.check_elem {
            None | Some(Elem::Byte) => check::fill_bytes(out, sender, key, self.x),
            Some(e) => {
                for (i, c) in out.chunks_exact_mut(e.size()).enumerate() {
                    let v = check::small_at(sender, key, i);
                    if e == Elem::Int {
                        c.copy_from_slice(&i32::from(v).to_ne_bytes());
                    } else {
                        c[0] = v;
                    }
                }
            }
        }
    }

    /// What this rank's receive region holds after repetition `key`.
    fn expected(&self, key: usize) -> Vec<u8> {
        let x = self.x;
        if let (true, Some(e)) = (self.op.sums_here(self.rank), self.check_elem) {
            let mut sum = vec![0u8; x];
            let mut one = vec![0u8; x];
            for sender in 0..self.q {
                self.pattern(sender, key, &mut one);
                for (acc, v) in sum
                    .chunks_exact_mut(e.size())
                    .zip(one.chunks_exact(e.size()))
                {
                    if e == Elem::Int {
                        let a = i32::from_ne_bytes(acc.try_into().expect("4 bytes"));
                        let b = i32::from_ne_bytes(v.try_into().expect("4 bytes"));
                        acc.copy_from_slice(&a.wrapping_add(b).to_ne_bytes());
                    } else {
                        acc[0] = acc[0].wrapping_add(v[0]);
                    }
                }
            }
            return sum;
        }
        let mut want = Vec::new();
        for sender in self.op.senders(self.rank, self.who) {
            let mut block = vec![0u8; x];
            check::fill_bytes(&mut block, sender, key, x);
            want.extend(block);
        }
        want
    }

    /// After a checked repetition: 1 when anything that arrived is wrong.
    fn verify(&self, t: usize, i: usize, r: &mut [u8], want: &[u8]) -> u64 {
        if self.batch.corrupt && t == 0 && i == 0 && !want.is_empty() {
            r[0] ^= 0x5a;
        }
        u64::from(r.iter().zip(want).any(|(a, b)| a != b))
    }
}

impl Kernel for MtKernel<'_> {
    /// One repetition on thread 0's communicator, from the main thread
    /// (only an mpibench `--warmup` calls it).
    fn run(&mut self, _rep: usize) {
        let (op, who, x, window) = (self.op, self.who, self.x, self.set.window);
        let mut lanes = std::mem::take(&mut self.lanes);
        if let Some((s, r)) = self.regions().into_iter().next() {
            let rb = r.len() - 1;
            let mut io = Io {
                tc: &mut lanes[0],
                who,
                sbuf: s.as_ptr(),
                rbuf: r.as_mut_ptr(),
                x,
                window,
                ack: r.as_mut_ptr().wrapping_add(rb),
                gate: None,
            };
            op.run(&mut io, 1);
        }
        self.lanes = lanes;
    }

    /// The batch on the rank's T threads (see the module's comment).
    fn measure(&mut self, _method: Method, cx: &mut MpiCtx<'_>, b: &RepBatch) -> Samples {
        cx.expect(b.n);
        let sh = Shared {
            g: self.g,
            batch: b,
            warm: if b.first == 0 { self.set.warmup } else { 0 },
            gate: Barrier::new(self.set.threads),
        };
        let mut lanes = std::mem::take(&mut self.lanes);
        let parts: Vec<Part> = {
            let regions = self.regions();
            std::thread::scope(|scope| {
                let handles: Vec<_> = lanes
                    .iter_mut()
                    .zip(regions)
                    .enumerate()
                    .map(|(t, (tc, (s, r)))| {
                        let sh = &sh;
                        scope.spawn(move || sh.lane(t, tc, s, r))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                    .collect()
            })
        };
        self.lanes = lanes;
        cx.done(b.n);
        let mut s = Samples {
            reps_per_sample: b.n,
            ..Samples::default()
        };
        let n = parts.len().max(1) as f64;
        let idle = self.who == Partners::Idle;
        let mean = if idle {
            0.0
        } else {
            parts.iter().map(|p| p.time).sum::<f64>() / n
        };
        let t0 = parts.iter().map(|p| p.t0).fold(f64::INFINITY, f64::min);
        let t1 = parts.iter().map(|p| p.t1).fold(0.0, f64::max);
        s.dur.push(mean);
        s.start.push(if t0.is_finite() { t0 } else { 0.0 });
        s.end.push(t1);
        s.late.push(false);
        s.errors = parts.iter().map(|p| p.errors).sum();
        for (sum, p) in self.sums.iter_mut().zip(&parts) {
            *sum += p.time;
        }
        self.timed += b.n;
        s
    }

    /// This rank's threads: the least, largest and mean time per
    /// repetition (µs, divided), where it took part.
    fn figures(&mut self) -> Vec<Figure> {
        let (timed, sums) = (self.timed, std::mem::take(&mut self.sums));
        self.sums = vec![0.0; sums.len()];
        self.timed = 0;
        if timed == 0 || self.who == Partners::Idle || sums.is_empty() {
            return Vec::new();
        }
        let per: Vec<f64> = sums
            .iter()
            .map(|s| s / timed as f64 * self.scale_us)
            .collect();
        let lo = per.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = per.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let avg = per.iter().sum::<f64>() / per.len() as f64;
        vec![
            Figure::new(T_MIN, lo, Combine::Min),
            Figure::new(T_MAX, hi, Combine::Max),
            Figure::new(T_AVG, avg, Combine::Mean),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_come_from_omp_num_threads() {
        // (The variable is the test process's: read, not set.)
        if std::env::var("OMP_NUM_THREADS").is_err() {
            assert_eq!(threads_from_env(), Ok(1));
        }
    }

    fn bench(op: Op) -> MtBench {
        let info = super::super::benchmarks()
            .into_iter()
            .find(|b| b.info().name == op.name())
            .expect("declared")
            .info();
        MtBench { info, op }
    }

    #[test]
    fn points_carry_imb_mts_settings() {
        let mut axes = crate::contract::axis::Axes::new();
        axes.insert(THREADS_AXIS.into(), vec![2.0]);
        axes.insert(WINDOW_AXIS.into(), vec![8.0]);
        let cx = SweepCx {
            sizes: &[4, 32],
            axes: &axes,
            q: 2,
        };
        let p = bench(Op::UniBand).points(&cx);
        assert_eq!(p.len(), 2);
        assert_eq!(p[1].u64("count"), Some(8));
        assert_eq!(p[1].u64("threads"), Some(2));
        assert_eq!(p[1].u64("window_size"), Some(8));
        assert_eq!(p[0].str("datatype"), Some("MPI_INT"));
        assert_eq!(bench(Op::UniBand).time_scale(&p[0]), 1.0 / 8.0);
        assert_eq!(bench(Op::UniBand).placement(&p[0]), Placement::Halves);
        assert_eq!(bench(Op::PingPong).points(&cx)[0].u64("window_size"), None);
        assert_eq!(bench(Op::Barrier).points(&cx).len(), 1);
        assert_eq!(bench(Op::SendRecv).placement(&p[0]), Placement::All);
        // 6 bytes are no whole number of MPI_INTs.
        let odd = Point::bytes(6).with("datatype", "MPI_INT");
        assert!(bench(Op::PingPong)
            .refuse(&odd, 2)
            .unwrap()
            .contains("6 bytes"));
        let chars = Point::bytes(6).with("datatype", "MPI_CHAR");
        assert_eq!(bench(Op::Reduce).refuse(&chars, 2), None);
        // Two threads: two send and two receive regions, each padded, and
        // each thread's two pending requests with the library's objects.
        let need = bench(Op::Exchange).need(&p[1], 2);
        assert_eq!(
            need,
            2 * (32 + 2 * 32 + 1 + 2 * 64) + crate::comm::pending_bytes(2 * 2)
        );
    }

    fn row(bytes: usize, threads: u64, lo: f64, hi: f64, avg: f64) -> crate::results::Row {
        let mut r = crate::results::Row {
            bytes,
            ..Default::default()
        };
        r.params.insert("threads".into(), threads.into());
        r.params.insert("stride".into(), 0u64.into());
        r.params.insert(T_MIN.into(), lo.into());
        r.params.insert(T_MAX.into(), hi.into());
        r.params.insert(T_AVG.into(), avg.into());
        r
    }

    /// `op`'s figures from a row of figures on `q` processes.
    fn derived(op: Op, q: usize, row: crate::results::Row) -> BenchResult {
        let mut r = BenchResult {
            processes: q,
            rows: vec![row],
            ..Default::default()
        };
        bench(op).derive(&mut r);
        r
    }

    #[test]
    fn figures_are_imb_mts() {
        // PingPongMT of the fixture: 4 bytes, t_max 0.3843 us: 10.41 MB/s.
        let r = derived(Op::PingPong, 2, row(4, 1, 0.38, 0.3843, 0.382));
        let x = &r.rows[0];
        assert_eq!((x.t_min_us, x.t_max_us, x.t_avg_us), (0.38, 0.3843, 0.382));
        assert!((x.mbytes_per_sec.unwrap() - 10.41).abs() < 0.01);
        assert_eq!(x.params["active_processes"], 2);
        assert!(!x.params.contains_key(T_MIN));
        // UniBandMT on 2 ranks with 2 threads: 2 pairs of threads; MB/s over
        // t_max, Msg/sec over t_avg, truncated.
        let r = derived(Op::UniBand, 2, row(4, 2, 0.5, 0.514, 0.514));
        let x = &r.rows[0];
        assert!((x.mbytes_per_sec.unwrap() - 4.0 * 2.0 / 0.514).abs() < 1e-9);
        assert_eq!(x.msg_per_sec, Some((2.0 / 0.514e-6f64).trunc()));
        // ExchangeMT: 4 X per repetition over t_max.
        let r = derived(Op::Exchange, 2, row(256, 1, 1.0, 2.0, 1.5));
        assert_eq!(r.rows[0].mbytes_per_sec, Some(4.0 * 256.0 / 2.0));
        // Nobody took part (one process): no figure.
        let r = derived(Op::PingPing, 1, crate::results::Row::default());
        assert!(r.rows[0].t_avg_us.is_nan() && r.rows[0].note.is_some());
        assert_eq!(r.rows[0].params["active_processes"], 0);
    }

    fn shared(op: Op, rank: usize, q: usize, x: usize, b: &RepBatch) -> Shared<'_> {
        let set = Setting::of(&Point::bytes(x));
        Shared {
            g: Geo {
                op,
                set,
                rank,
                q,
                x,
                who: op.partners(rank, q, 0),
                check_elem: op.reduction().then_some(Elem::Int),
            },
            batch: b,
            warm: 0,
            gate: Barrier::new(1),
        }
    }

    #[test]
    fn checked_data_is_the_senders_and_the_sums() {
        let b = RepBatch {
            check: true,
            ..RepBatch::new(0, 1)
        };
        // ExchangeMT on rank 0 of 3: from the left (2), then the right (1).
        let sh = shared(Op::Exchange, 0, 3, 8, &b);
        let want = sh.expected(5);
        let mut left = vec![0u8; 8];
        check::fill_bytes(&mut left, 2, 5, 8);
        assert_eq!(&want[..8], &left[..]);
        assert_eq!(want.len(), 16);
        // AllReduceMT: the sum of every rank's small integers.
        let sh = shared(Op::AllReduce, 1, 3, 8, &b);
        let want = sh.expected(0);
        let e0 = i32::from_ne_bytes(want[..4].try_into().unwrap());
        let s: i32 = (0..3).map(|r| i32::from(check::small_at(r, 0, 0))).sum();
        assert_eq!(e0, s);
        // Poisoned before, right after the transfer, caught when corrupted.
        let (mut s_buf, mut r_buf) = (vec![0u8; 8], vec![0u8; 9]);
        let want = sh.prepare(0, 0, &mut s_buf, &mut r_buf);
        assert!(r_buf.iter().zip(&want).all(|(a, b)| a != b));
        r_buf[..8].copy_from_slice(&want);
        assert_eq!(sh.verify(0, 0, &mut r_buf, &want), 0);
        let bad = RepBatch { corrupt: true, ..b };
        let sh = shared(Op::AllReduce, 1, 3, 8, &bad);
        assert_eq!(sh.verify(0, 0, &mut r_buf, &want), 1);
        // UniBandMT's sender receives nothing; BarrierMT nobody.
        assert!(shared(Op::UniBand, 0, 2, 8, &b).expected(0).is_empty());
        assert!(shared(Op::Barrier, 0, 2, 0, &b).expected(0).is_empty());
    }

    #[test]
    fn regions_are_aligned_and_apart() {
        let mut b = Buffer::try_new(4 * 10 + 64).unwrap();
        let parts = carve(&mut b, 64, 10, 4);
        assert_eq!(parts.len(), 4);
        for p in &parts {
            assert_eq!(p.len(), 10);
        }
        assert_eq!(parts[0].as_ptr() as usize % 64, 0);
        assert_eq!(parts[1].as_ptr() as usize - parts[0].as_ptr() as usize, 10);
        let mut z = Buffer::try_new(8).unwrap();
        assert_eq!(carve(&mut z, 1, 0, 3).len(), 3);
    }

    #[test]
    fn barrier_codes_are_the_front_ends() {
        // -barrier off, on, special: 0, 1, 2.
        assert_eq!(
            [Sync::of(0), Sync::of(1), Sync::of(2)],
            [Sync::Off, Sync::On, Sync::Special]
        );
    }
}
