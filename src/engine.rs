//! The sweep loop every benchmark shares (PMB §5, Figure 5):
//!
//! ```text
//! for each benchmark, for each process count Q:
//!     MY_COMM = communicator of the Q active processes (or disjoint groups of Q with --multi)
//!     buffers for the largest message length (all ranks agree that allocation worked)
//!     PMB warm-up at the largest length
//!     for each message length X:
//!         if active: warm-up, synchronise, timed repetitions, verify
//!         MPI_Barrier(MPI_COMM_WORLD)          <- inactive processes wait here
//!     gather per-rank records to rank 0
//! ```
//!
//! Only the benchmark's MPI calls run between two clock reads. The engine
//! owns synchronisation (`--sync`), timing (`--timing`), repetitions
//! (IMB policy or `--precision`), validation and the statistics.

use std::cell::RefCell;

use anyhow::{anyhow, Result};

use crate::bench::{mbytes_per_sec, Benchmark, Class, Expect, Op};
use crate::check;
use crate::cli::{SyncMode, TimingMode};
use crate::clock::model::ClockModel;
use crate::comm::{self, request_null, Buffer, Comm};
use crate::plan::Plan;
use crate::report::raw::RawSink;
use crate::results::{BenchResult, GroupRows, Row};
use crate::stats;
use crate::watchdog::Watchdog;

/// Why a run stopped early; every rank returns the same kind.
#[derive(Debug, thiserror::Error)]
pub enum Abort {
    /// --strict found a validation error (exit code 1).
    #[error("{0}")]
    Validation(String),
    /// A rank could not go on, e.g. an allocation failed (exit code 3).
    #[error("{0}")]
    RankFailure(String),
}

/// Repetitions PMB runs at the largest message length before the first one (N_WARMUP).
const PMB_WARMUP: usize = 2;

/// How far ahead of "now" the first window opens, at least (seconds).
const WINDOW_LEAD_S: f64 = 200e-6;

/// Fields of one rank's record per message length (gathered to rank 0).
mod rec {
    pub const ACTIVE: usize = 0;
    pub const GROUP: usize = 1;
    pub const T_MEAN_US: usize = 2;
    pub const REPS: usize = 3;
    pub const ERRORS: usize = 4;
    pub const RANK_MEDIAN_US: usize = 5;
    pub const LATE: usize = 6;
    pub const PER_CALL: usize = 7;
    // Combined statistics, identical on every rank of the synchronised set.
    pub const MEDIAN: usize = 8;
    pub const P5: usize = 9;
    pub const P95: usize = 10;
    pub const CI_LO: usize = 11;
    pub const CI_HI: usize = 12;
    pub const OUTLIERS: usize = 13;
    pub const VALID: usize = 14;
    pub const INVALID: usize = 15;
    pub const GLOBAL_US: usize = 16;
    pub const STOPPED: usize = 17;
    pub const LEN: usize = 18;
}

/// Samples of one rank for one message length (local clock, seconds).
#[derive(Default)]
struct Samples {
    dur: Vec<f64>,
    start: Vec<f64>,
    end: Vec<f64>,
    late: Vec<f64>,
    /// Repetitions behind each sample: 1 per call, n for a loop-timed batch.
    reps_per_sample: usize,
}

/// Per-repetition values reduced over the synchronised ranks (identical everywhere).
#[derive(Default)]
struct Combined {
    /// Maximum duration over ranks (seconds).
    max_dur: Vec<f64>,
    /// 1.0 when any rank started late.
    late: Vec<f64>,
    /// Global time to completion (seconds), when the clocks are synchronised.
    global: Vec<f64>,
}

pub struct Engine<'a> {
    pub world: Comm,
    pub plan: &'a Plan,
    /// This rank's clock model onto world rank 0's clock (when synchronised).
    pub clock: Option<ClockModel>,
    pub watchdog: &'a Watchdog,
    /// Rank 0: where `--raw` samples go.
    pub raw: Option<RefCell<RawSink>>,
}

/// What one active rank measured at one message length.
struct Measured {
    rec: [f64; rec::LEN],
    samples: Samples,
}

impl Engine<'_> {
    /// Message lengths a benchmark runs (Barrier has none: one row at 0).
    pub fn sizes(&self, b: &dyn Benchmark) -> Vec<usize> {
        if b.info().sized {
            self.plan.sizes.clone()
        } else {
            vec![0]
        }
    }

    /// Bytes one rank needs for length `x` on `q` processes.
    fn need(b: &dyn Benchmark, x: usize, q: usize) -> u64 {
        let l = b.layout(x, q);
        (l.send + l.recv) as u64
    }

    /// Runs one benchmark on `q` processes (per group). Collective over the
    /// world; returns the result on rank 0.
    pub fn run(&self, b: &dyn Benchmark, q: usize) -> Result<Option<BenchResult>> {
        let world = self.world;
        let info = b.info();
        let all_sizes = self.sizes(b);
        let limit = self.plan.mem_bytes;
        // Reductions count MPI_FLOAT elements in an int (the large-count
        // path covers bytes only).
        let too_many_floats = |x: usize| info.reduction && x / 4 > i32::MAX as usize;
        let fits = |x: usize| Self::need(b, x, q) <= limit && !too_many_floats(x);
        let sizes: Vec<usize> = all_sizes.iter().copied().filter(|&x| fits(x)).collect();
        let note = all_sizes.iter().copied().find(|&x| !fits(x)).map(|first| {
            if too_many_floats(first) {
                format!(
                    "message lengths from {first} bytes skipped: {} reduces more than 2^31 MPI_FLOATs",
                    info.name
                )
            } else {
                format!(
                    "message lengths from {first} bytes skipped: {} needs {} bytes per rank on {q} processes, above the limit of {limit} bytes (--mem)",
                    info.name,
                    Self::need(b, first, q)
                )
            }
        });
        if sizes.is_empty() {
            return Ok((world.rank == 0)
                .then(|| skipped(b, q, self.plan.multi, note.clone().unwrap_or_default())));
        }
        let groups = if self.plan.multi { world.size / q } else { 1 };
        let n_active = groups * q;
        let me = world.rank;
        let active = me < n_active;
        self.watchdog.arm(format!("{} on {q} processes", info.name));

        // MY_COMM (PMB §5.2.2): the group this rank belongs to.
        let group = world.split(active.then_some(me / q), me);
        // Groups of a Multi- run start together: they synchronise on all active ranks.
        let all_active = if groups > 1 {
            world.split(active.then_some(0), me)
        } else {
            None
        };
        let free = || {
            if let Some(g) = group {
                g.free();
            }
            if let Some(a) = all_active {
                a.free();
            }
        };

        // Allocate, then make sure every rank succeeded before anyone communicates.
        let largest = sizes.iter().copied().max().unwrap_or(0);
        let mut op = None;
        let mut failure = String::new();
        if let Some(g) = group {
            match self.allocate(b, g, largest) {
                Ok(o) => op = Some(o),
                Err(e) => failure = format!("{e:#}"),
            }
        }
        if let Err(e) = self.agree(&failure) {
            free();
            self.watchdog.disarm();
            return Err(e);
        }

        let mut recs = Vec::with_capacity(sizes.len() * rec::LEN);
        let mut raw = Vec::new();
        let mut stop_error = String::new();
        if let (Some(g), Some(op)) = (group, op.as_mut()) {
            let sync = all_active.unwrap_or(g);
            // PMB §5.2.5 warm-up: a few repetitions at the largest length, before the first.
            b.prepare(op);
            self.fill(b, op, 0);
            for _ in 0..PMB_WARMUP {
                b.run(op);
            }
            for (si, &x) in sizes.iter().enumerate() {
                if info.sized {
                    self.watchdog
                        .at(format!("{}, {x} bytes, {q} processes", info.name));
                }
                op.x = x;
                op.root = 0;
                b.prepare(op);
                let mut m = self.measure(b, op, sync);
                m.rec[rec::GROUP] = (me / q) as f64;
                if self.plan.raw.is_some() {
                    for i in 0..m.samples.dur.len() {
                        let (s, e) = (m.samples.start[i], m.samples.end[i]);
                        let (s, e) = match self.clock {
                            Some(c) => (c.to_global(s), c.to_global(e)),
                            None => (s, e),
                        };
                        let rep = if m.rec[rec::PER_CALL] > 0.0 {
                            i as f64
                        } else {
                            -1.0
                        };
                        raw.extend_from_slice(&[si as f64, rep, s, e]);
                    }
                }
                let bad = m.rec[rec::ERRORS] > 0.0;
                recs.extend_from_slice(&m.rec);
                // PMB Figure 5: MPI_Barrier(MPI_COMM_WORLD) after each message length
                // (an agreement on errors instead, with --strict).
                if self.end_of_size(bad)? {
                    stop_error = format!(
                        "validation error in {} at {x} bytes on {q} processes",
                        info.name
                    );
                    break;
                }
            }
        } else {
            for _ in &sizes {
                if self.end_of_size(false)? {
                    stop_error = format!("validation error in {} on {q} processes", info.name);
                    break;
                }
            }
        }
        recs.resize(sizes.len() * rec::LEN, 0.0);
        drop(op);
        let all = world.gather_f64(&recs, 0);
        if self.plan.raw.is_some() {
            let per_rank = world.gatherv_f64(&raw, 0);
            if let Some(sink) = &self.raw {
                sink.borrow_mut().write(info.name, q, &sizes, &per_rank)?;
            }
        }
        free();
        self.watchdog.disarm();
        if !stop_error.is_empty() {
            let ranks: Vec<String> = if me == 0 {
                (0..world.size)
                    .filter(|r| {
                        (0..sizes.len())
                            .any(|si| all[(r * sizes.len() + si) * rec::LEN + rec::ERRORS] > 0.0)
                    })
                    .map(|r| r.to_string())
                    .collect()
            } else {
                Vec::new()
            };
            return Err(Abort::Validation(format!(
                "{stop_error} (rank {}; --strict)",
                ranks.join(", ")
            ))
            .into());
        }
        if me != 0 {
            return Ok(None);
        }
        let mut r = self.assemble(b, q, groups, n_active, &sizes, &all);
        r.note = note;
        Ok(Some(r))
    }

    /// Collective over the world: fails everywhere if `failure` is set on any rank,
    /// with that rank's number and message.
    fn agree(&self, failure: &str) -> Result<()> {
        let any = self
            .world
            .allreduce_max(if failure.is_empty() { 0.0 } else { 1.0 });
        if any == 0.0 {
            return Ok(());
        }
        let msgs = self.world.gather_strings(failure, 0);
        let detail: Vec<String> = msgs
            .iter()
            .enumerate()
            .filter(|(_, m)| !m.is_empty())
            .map(|(r, m)| format!("rank {r}: {m}"))
            .collect();
        Err(Abort::RankFailure(if detail.is_empty() {
            "a rank failed".to_string()
        } else {
            detail.join("; ")
        })
        .into())
    }

    /// End of a message length: the world barrier of PMB, or with --strict an
    /// agreement on whether any rank saw a validation error.
    fn end_of_size(&self, bad: bool) -> Result<bool> {
        if self.plan.strict {
            Ok(self.world.allreduce_max(if bad { 1.0 } else { 0.0 }) > 0.0)
        } else {
            self.world.barrier();
            Ok(false)
        }
    }

    fn allocate(&self, b: &dyn Benchmark, g: Comm, largest: usize) -> Result<Op> {
        let layout = b.layout(largest, g.size);
        if self.plan.fail_alloc_rank == Some(self.world.rank) {
            return Err(anyhow!(
                "cannot allocate {} bytes for {} (injected failure)",
                layout.send + layout.recv,
                b.info().name
            ));
        }
        let alloc = |n: usize| {
            Buffer::try_new(n)
                .map_err(|e| anyhow!("cannot allocate {n} bytes for {}: {e}", b.info().name))
        };
        Ok(Op {
            comm: g,
            rank: g.rank,
            size: g.size,
            x: largest,
            root: 0,
            sbuf: alloc(layout.send)?,
            rbuf: alloc(layout.recv)?,
            counts: Vec::new(),
            displs: Vec::new(),
            reqs: [request_null(); 4],
        })
    }

    fn fill(&self, b: &dyn Benchmark, op: &mut Op, rep: usize) {
        let l = b.layout(op.x, op.size);
        if b.info().reduction {
            check::fill_floats(&mut op.sbuf.floats_mut()[..l.send / 4], op.rank, rep);
        } else {
            check::fill_bytes(&mut op.sbuf.bytes_mut()[..l.send], op.rank, rep, op.x);
        }
    }

    /// Synchronises once before a timed section; returns the agreed global
    /// start time for window synchronisation.
    fn sync_once(&self, sync: Comm, window_s: f64) -> Option<f64> {
        match self.plan.sync {
            SyncMode::Barrier => {
                sync.barrier();
                None
            }
            SyncMode::Dissemination => {
                sync.dissemination_barrier();
                None
            }
            SyncMode::None => None,
            SyncMode::Window => {
                let clock = self.clock.unwrap_or_default();
                let now = clock.to_global(comm::wtime());
                let lead = WINDOW_LEAD_S.max(4.0 * window_s);
                Some(sync.bcast_f64(now + lead, 0))
            }
        }
    }

    /// Waits for the window of repetition `i`; returns whether this rank was late.
    #[inline]
    fn wait_window(&self, t0: f64, window_s: f64, i: usize) -> bool {
        let clock = self.clock.unwrap_or_default();
        let target = clock.to_local(t0 + window_s * i as f64);
        if comm::wtime() > target {
            return true;
        }
        while comm::wtime() < target {
            std::hint::spin_loop();
        }
        false
    }

    /// One message length on an active rank.
    fn measure(&self, b: &dyn Benchmark, op: &mut Op, sync: Comm) -> Measured {
        let info = b.info();
        let plan = self.plan;
        let policy = &plan.policy;
        let x = op.x;
        let q = op.size;
        let rotate = info.rooted && plan.root_shift;
        // IMB: at most max_reps repetitions and max_volume bytes per message length.
        let cap = policy
            .max_volume
            .checked_div(x)
            .map_or(policy.max_reps, |n| policy.max_reps.min(n.max(1)))
            .max(policy.min_reps);
        let planned = policy.iter.unwrap_or(cap);
        let warm = policy.warmup.unwrap_or((planned / 10).clamp(2, 100));
        self.fill(b, op, 0);

        // Warm-up, timed only to estimate the repetitions that fit in --time.
        sync.barrier();
        let t0 = comm::wtime();
        for i in 0..warm {
            if rotate {
                op.root = i % q;
            }
            b.run(op);
        }
        let per_rep = (comm::wtime() - t0) / warm.max(1) as f64;
        let est = sync.allreduce_max(per_rep);
        let window_s = plan
            .window_us
            .map(|w| w * 1e-6)
            .unwrap_or_else(|| (2.0 * est + 2e-6).max(5e-6));
        let time_cap = |n: usize| -> usize {
            let per = if plan.sync == SyncMode::Window {
                est.max(window_s)
            } else {
                est
            };
            if per > 0.0 {
                n.min(((policy.time_limit_s / per) as usize).max(1))
            } else {
                n
            }
        };
        let per_call = plan.timing == TimingMode::PerCall;
        let initiator = info.class != Class::SingleTransfer || op.rank == 0;
        let mut s = Samples::default();
        let mut c = Combined::default();
        let mut errors = 0u64;
        let mut stopped = None;
        if let Some(target) = policy.precision {
            // Adaptive: batches double until the median's CI is narrow enough.
            let mut batch = policy.min_reps;
            let mut spent = 0.0;
            loop {
                let from = s.dur.len();
                errors += self.batch(b, op, sync, batch, from, window_s, rotate, &mut s);
                self.combine(sync, &s, from, initiator, &mut c);
                spent += c.max_dur[from..].iter().sum::<f64>()
                    + if plan.sync == SyncMode::Window {
                        batch as f64 * window_s
                    } else {
                        0.0
                    };
                let valid: Vec<f64> = valid_values(&c.max_dur, &c.late);
                let rel = stats::relative_ci_halfwidth(&stats::summarize(&valid));
                let n = s.dur.len();
                if rel <= target && n >= policy.min_reps {
                    stopped = Some(false);
                    break;
                }
                if n >= policy.max_reps || spent >= policy.time_limit_s {
                    stopped = Some(true);
                    break;
                }
                batch = n.min(policy.max_reps - n).max(1);
            }
        } else {
            let reps = match policy.iter {
                Some(n) => n,
                None => time_cap(cap).max(policy.min_reps),
            };
            errors += self.batch(b, op, sync, reps, 0, window_s, rotate, &mut s);
            self.combine(sync, &s, 0, initiator, &mut c);
        }
        let scale = info.time_scale * 1e6;
        let reps_total = s.dur.len() * s.reps_per_sample.max(1);
        let total: f64 = s.dur.iter().sum();
        let mean_us = total / reps_total.max(1) as f64 * scale;
        let mut r = [0.0; rec::LEN];
        r[rec::ACTIVE] = 1.0;
        r[rec::T_MEAN_US] = mean_us;
        r[rec::REPS] = reps_total as f64;
        r[rec::ERRORS] = errors as f64;
        r[rec::LATE] = s.late.iter().sum();
        r[rec::GLOBAL_US] = -1.0;
        r[rec::STOPPED] = match stopped {
            None => -1.0,
            Some(false) => 0.0,
            Some(true) => 1.0,
        };
        if per_call {
            let own: Vec<f64> = s.dur.iter().map(|d| d * scale).collect();
            r[rec::PER_CALL] = 1.0;
            r[rec::RANK_MEDIAN_US] = stats::summarize(&own).median;
            let valid: Vec<f64> = valid_values(&c.max_dur, &c.late)
                .iter()
                .map(|d| d * scale)
                .collect();
            let sm = stats::summarize(&valid);
            r[rec::MEDIAN] = sm.median;
            r[rec::P5] = sm.p5;
            r[rec::P95] = sm.p95;
            r[rec::CI_LO] = sm.ci95_lo;
            r[rec::CI_HI] = sm.ci95_hi;
            r[rec::OUTLIERS] = sm.outliers as f64;
            r[rec::VALID] = valid.len() as f64;
            r[rec::INVALID] = (c.late.len() - valid.len()) as f64;
        }
        if !c.global.is_empty() {
            // Global time to completion per repetition (a loop sample covers reps_per_sample).
            let per = s.reps_per_sample.max(1) as f64;
            let g: Vec<f64> = valid_values(&c.global, &c.late)
                .iter()
                .map(|d| d / per * scale)
                .collect();
            if !g.is_empty() {
                r[rec::GLOBAL_US] = stats::summarize(&g).median;
            }
        }
        Measured { rec: r, samples: s }
    }

    /// Runs `n` repetitions (numbered from `first`) and records samples.
    /// Returns the number of failed validations.
    #[allow(clippy::too_many_arguments)]
    fn batch(
        &self,
        b: &dyn Benchmark,
        op: &mut Op,
        sync: Comm,
        n: usize,
        first: usize,
        window_s: f64,
        rotate: bool,
        s: &mut Samples,
    ) -> u64 {
        let q = op.size;
        let per_call = self.plan.timing == TimingMode::PerCall;
        let window = self.plan.sync == SyncMode::Window;
        if !per_call && !self.plan.check {
            // PMB §5.2.6: synchronise, then one clock pair around the loop.
            let t0w = self.sync_once(sync, window_s);
            let late = t0w.is_some_and(|t| self.wait_window(t, window_s, 0));
            let t0 = comm::wtime();
            if rotate {
                for i in 0..n {
                    op.root = (first + i) % q;
                    b.run(op);
                }
            } else {
                for _ in 0..n {
                    b.run(op);
                }
            }
            let t1 = comm::wtime();
            s.reps_per_sample = n;
            s.dur.push(t1 - t0);
            s.start.push(t0);
            s.end.push(t1);
            s.late.push(if late { 1.0 } else { 0.0 });
            return 0;
        }
        let l = b.layout(op.x, op.size);
        let reduction = b.info().reduction;
        let mut errors = 0u64;
        s.reps_per_sample = 1;
        s.dur.reserve(n);
        s.start.reserve(n);
        s.end.reserve(n);
        s.late.reserve(n);
        // Loop timing with --check: synchronise once, time each call alone.
        let t0w = if per_call && !window {
            None
        } else {
            self.sync_once(sync, window_s)
        };
        // Loop timing with window sync: the whole sequence starts at the first window.
        let late_start = !per_call && t0w.is_some_and(|t| self.wait_window(t, window_s, 0));
        for k in 0..n {
            let i = first + k;
            if rotate {
                op.root = i % q;
            }
            if self.plan.check {
                self.fill(b, op, i);
                if reduction {
                    check::poison_floats(&mut op.rbuf.floats_mut()[..l.recv / 4]);
                } else {
                    check::poison(&mut op.rbuf.bytes_mut()[..l.recv], i, op.x);
                }
            }
            let late = if per_call {
                match (self.plan.sync, t0w) {
                    (SyncMode::Window, Some(t)) => self.wait_window(t, window_s, k),
                    (SyncMode::Barrier, _) => {
                        sync.barrier();
                        false
                    }
                    (SyncMode::Dissemination, _) => {
                        sync.dissemination_barrier();
                        false
                    }
                    _ => false,
                }
            } else {
                late_start && k == 0
            };
            let t0 = comm::wtime();
            b.run(op);
            let t1 = comm::wtime();
            s.dur.push(t1 - t0);
            s.start.push(t0);
            s.end.push(t1);
            s.late.push(if late { 1.0 } else { 0.0 });
            if self.plan.check {
                let expect = b.expect(op.x, op.size, op.rank, op.root);
                if self.plan.corrupt && i == 0 {
                    corrupt(&expect, op);
                }
                let bad = check::verify(
                    &expect,
                    &op.rbuf.bytes()[..l.recv],
                    &op.rbuf.floats()[..l.recv / 4],
                    op.size,
                    i,
                    op.x,
                );
                errors += u64::from(bad > 0);
            }
        }
        errors
    }

    /// Reduces samples `from..` over the synchronised ranks (collective on `sync`).
    /// For single transfers only the initiator's (group rank 0's) clock pair
    /// counts: it spans the whole round trip, while its partner's also spans
    /// waiting for the initiator to leave the synchronisation.
    fn combine(&self, sync: Comm, s: &Samples, from: usize, counts: bool, c: &mut Combined) {
        let mut max_dur = if counts {
            s.dur[from..].to_vec()
        } else {
            vec![0.0; s.dur.len() - from]
        };
        sync.allreduce_max_vec(&mut max_dur);
        let mut late = s.late[from..].to_vec();
        sync.allreduce_max_vec(&mut late);
        c.max_dur.extend(max_dur);
        c.late.extend(late);
        if let (Some(clock), SyncMode::Window) = (self.clock, self.plan.sync) {
            let mut gs: Vec<f64> = s.start[from..]
                .iter()
                .map(|&t| clock.to_global(t))
                .collect();
            let mut ge: Vec<f64> = s.end[from..].iter().map(|&t| clock.to_global(t)).collect();
            sync.allreduce_min_vec(&mut gs);
            sync.allreduce_max_vec(&mut ge);
            c.global.extend(ge.iter().zip(&gs).map(|(e, s)| e - s));
        }
    }

    /// Rank 0: per-rank records → rows (PMB §6: t_min, t_max, t_avg over active processes).
    fn assemble(
        &self,
        b: &dyn Benchmark,
        q: usize,
        groups: usize,
        n_active: usize,
        sizes: &[usize],
        all: &[f64],
    ) -> BenchResult {
        let info = b.info();
        let per_rank = sizes.len() * rec::LEN;
        let recs = |si: usize| -> Vec<&[f64]> {
            (0..self.world.size)
                .map(|r| &all[r * per_rank + si * rec::LEN..r * per_rank + (si + 1) * rec::LEN])
                .filter(|r| r[rec::ACTIVE] > 0.0)
                .collect()
        };
        let rows = sizes
            .iter()
            .enumerate()
            .map(|(si, &x)| self.row(b, x, &recs(si)))
            .collect();
        let group_rows = if self.plan.multi && self.plan.multi_detail {
            (0..groups)
                .map(|gi| GroupRows {
                    group: gi,
                    ranks: (gi * q..(gi + 1) * q).collect(),
                    rows: sizes
                        .iter()
                        .enumerate()
                        .map(|(si, &x)| {
                            let m: Vec<&[f64]> = recs(si)
                                .into_iter()
                                .filter(|r| r[rec::GROUP] as usize == gi)
                                .collect();
                            self.row(b, x, &m)
                        })
                        .collect(),
                })
                .collect()
        } else {
            Vec::new()
        };
        BenchResult {
            benchmark: info.name.to_string(),
            suite: info.suite.to_string(),
            class: info.class.label().to_string(),
            processes: q,
            mode: if self.plan.multi { "multi" } else { "primary" }.to_string(),
            groups,
            active: n_active,
            skipped: None,
            note: None,
            rows,
            group_rows,
            ..Default::default()
        }
    }

    fn row(&self, b: &dyn Benchmark, x: usize, members: &[&[f64]]) -> Row {
        let info = b.info();
        let ts: Vec<f64> = members.iter().map(|r| r[rec::T_MEAN_US]).collect();
        let (t_min, t_max, t_avg) = stats::min_max_avg(&ts);
        let first = members.first().copied().unwrap_or(&[0.0; rec::LEN]);
        let per_call = first[rec::PER_CALL] > 0.0;
        let opt = |v: f64| (v >= 0.0).then_some(v);
        let mut row = Row {
            bytes: x,
            repetitions: first[rec::REPS] as usize,
            t_min_us: t_min,
            t_max_us: t_max,
            t_avg_us: t_avg,
            mbytes_per_sec: info.throughput.map(|f| mbytes_per_sec(f, x, t_max)),
            errors: self
                .plan
                .check
                .then(|| members.iter().map(|r| r[rec::ERRORS] as u64).sum()),
            t_global_us: opt(first[rec::GLOBAL_US]),
            stopped_on_bound: match first[rec::STOPPED] {
                v if v < 0.0 => None,
                v => Some(v > 0.0),
            },
            ..Row::default()
        };
        if per_call {
            let medians: Vec<f64> = members.iter().map(|r| r[rec::RANK_MEDIAN_US]).collect();
            let (lo, hi, avg) = stats::min_max_avg(&medians);
            row.t_median_us = Some(first[rec::MEDIAN]);
            row.t_p5_us = Some(first[rec::P5]);
            row.t_p95_us = Some(first[rec::P95]);
            row.ci95_lo_us = Some(first[rec::CI_LO]);
            row.ci95_hi_us = Some(first[rec::CI_HI]);
            row.outliers = Some(first[rec::OUTLIERS] as u64);
            row.valid = Some(first[rec::VALID] as u64);
            row.invalid = Some(first[rec::INVALID] as u64);
            row.t_median_min_us = Some(lo);
            row.t_median_max_us = Some(hi);
            row.t_median_avg_us = Some(avg);
        } else {
            // Loop timing: one sample per rank, the per-rank averages.
            let valid: Vec<f64> = members
                .iter()
                .filter(|r| r[rec::LATE] == 0.0)
                .map(|r| r[rec::T_MEAN_US])
                .collect();
            let sm = stats::summarize(&valid);
            row.t_median_us = Some(sm.median);
            row.t_p5_us = Some(sm.p5);
            row.t_p95_us = Some(sm.p95);
            row.ci95_lo_us = Some(sm.ci95_lo);
            row.ci95_hi_us = Some(sm.ci95_hi);
            row.outliers = Some(sm.outliers as u64);
            row.valid = Some(valid.len() as u64);
            row.invalid = Some((members.len() - valid.len()) as u64);
        }
        row
    }
}

/// Values whose repetition was not late.
fn valid_values(v: &[f64], late: &[f64]) -> Vec<f64> {
    v.iter()
        .zip(late)
        .filter(|(_, &l)| l == 0.0)
        .map(|(&x, _)| x)
        .collect()
}

/// `--corrupt` test hook: damage the first received byte or element, after
/// the transfer and before verification, so that `--check` must catch it.
fn corrupt(expect: &Expect, op: &mut Op) {
    match expect {
        Expect::Bytes(segs) => {
            if let Some(s) = segs.iter().find(|s| s.len > 0) {
                op.rbuf.bytes_mut()[s.offset] ^= 0x5a;
            }
        }
        Expect::FloatSum { count, .. } if *count > 0 => op.rbuf.floats_mut()[0] += 1.0,
        _ => {}
    }
}

/// A result entry for a benchmark that cannot run at this process count.
pub fn skipped(b: &dyn Benchmark, q: usize, multi: bool, reason: String) -> BenchResult {
    let info = b.info();
    BenchResult {
        benchmark: info.name.to_string(),
        suite: info.suite.to_string(),
        class: info.class.label().to_string(),
        processes: q,
        mode: if multi { "multi" } else { "primary" }.to_string(),
        groups: 0,
        active: 0,
        skipped: Some(reason),
        note: None,
        rows: Vec::new(),
        group_rows: Vec::new(),
        ..Default::default()
    }
}

/// Process counts to run, or the reason there are none.
pub fn sweep(b: &dyn Benchmark, plan: &Plan, world: usize) -> Result<Vec<usize>, String> {
    let info = b.info();
    let counts = crate::plan::process_counts(info.class, info.min_ranks, world, plan.npmin);
    if counts.is_empty() {
        return Err(format!(
            "{} needs at least {} processes, this run has {}",
            info.name, info.min_ranks, world
        ));
    }
    Ok(counts)
}
