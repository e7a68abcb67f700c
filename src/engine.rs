//! The sweep loop every benchmark shares (PMB §5, Figure 5):
//!
//! ```text
//! for each benchmark, for each process count Q:
//!     MY_COMM = communicator of the Q active processes (or disjoint groups of Q with --multi)
//!     buffers for the largest message length; PMB warm-up at the largest length
//!     for each message length X:
//!         if active: warm-up, synchronise MY_COMM, timed repetitions, verify
//!         MPI_Barrier(MPI_COMM_WORLD)          <- inactive processes wait here
//!     gather per-rank records to rank 0
//! ```
//!
//! Only the benchmark's MPI calls run between the two clock reads.

use anyhow::{Context as _, Result};

use crate::bench::{mbytes_per_sec, Benchmark, Expect, Op};
use crate::check;
use crate::comm::{self, request_null, Buffer, Comm};
use crate::plan::Plan;
use crate::results::{BenchResult, GroupRows, Row};

/// Repetitions PMB runs at the largest message length before the first one (N_WARMUP).
const PMB_WARMUP: usize = 2;

/// Fields of one rank's record per message length (gathered to rank 0).
const REC: usize = 6;
const R_ACTIVE: usize = 0;
const R_GROUP: usize = 1;
const R_T_US: usize = 2;
const R_REPS: usize = 3;
const R_ERRORS: usize = 4;
const R_WORLD_RANK: usize = 5;

pub struct Engine<'a> {
    pub world: Comm,
    pub plan: &'a Plan,
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

    /// Runs one benchmark on `q` processes (per group). Collective over the
    /// world; returns the result on rank 0.
    pub fn run(&self, b: &dyn Benchmark, q: usize) -> Result<Option<BenchResult>> {
        let world = self.world;
        let groups = if self.plan.multi { world.size / q } else { 1 };
        let n_active = groups * q;
        let me = world.rank;
        let active = me < n_active;
        // MY_COMM (PMB §5.2.2): the group this rank belongs to.
        let group = world.split(active.then_some(me / q), me);
        // Groups of a Multi- run start together: they synchronise on all active ranks.
        let all_active = if groups > 1 {
            world.split(active.then_some(0), me)
        } else {
            None
        };
        let sizes = self.sizes(b);
        let mut recs = Vec::with_capacity(sizes.len() * REC);
        let mut failure = None;
        match group {
            Some(g) => {
                let sync = all_active.unwrap_or(g);
                match self.measure_all(b, g, sync, &sizes, me / q) {
                    Ok(r) => recs = r,
                    Err(e) => failure = Some(e),
                }
            }
            None => {
                for _ in &sizes {
                    // Inactive processes wait in MPI_Barrier(MPI_COMM_WORLD).
                    world.barrier();
                    recs.extend_from_slice(&[0.0; REC]);
                }
            }
        }
        if let Some(e) = failure {
            return Err(e);
        }
        let all = world.gather_f64(&recs, 0);
        if let Some(g) = group {
            g.free();
        }
        if let Some(a) = all_active {
            a.free();
        }
        if me != 0 {
            return Ok(None);
        }
        Ok(Some(self.assemble(b, q, groups, n_active, &sizes, &all)))
    }

    /// All message lengths on an active rank; returns its records.
    fn measure_all(
        &self,
        b: &dyn Benchmark,
        g: Comm,
        sync: Comm,
        sizes: &[usize],
        group_id: usize,
    ) -> Result<Vec<f64>> {
        let q = g.size;
        let largest = sizes.iter().copied().max().unwrap_or(0);
        let layout = b.layout(largest, q);
        let sbuf = Buffer::try_new(layout.send).with_context(|| {
            format!(
                "cannot allocate {} bytes for {}",
                layout.send,
                b.info().name
            )
        })?;
        let rbuf = Buffer::try_new(layout.recv).with_context(|| {
            format!(
                "cannot allocate {} bytes for {}",
                layout.recv,
                b.info().name
            )
        })?;
        let mut op = Op {
            comm: g,
            rank: g.rank,
            size: q,
            x: largest,
            root: 0,
            sbuf,
            rbuf,
            counts: Vec::new(),
            displs: Vec::new(),
            reqs: [request_null(); 4],
        };
        // PMB §5.2.5 warm-up: a few repetitions at the largest length, before the first.
        b.prepare(&mut op);
        self.fill(b, &mut op, 0);
        for _ in 0..PMB_WARMUP {
            b.run(&mut op);
        }
        let mut recs = Vec::with_capacity(sizes.len() * REC);
        for &x in sizes {
            op.x = x;
            op.root = 0;
            b.prepare(&mut op);
            let (t_us, reps, errors) = self.measure(b, &mut op, sync)?;
            // PMB Figure 5: MPI_Barrier(MPI_COMM_WORLD) after each message length.
            self.world.barrier();
            recs.extend_from_slice(&[
                1.0,
                group_id as f64,
                t_us,
                reps as f64,
                errors as f64,
                self.world.rank as f64,
            ]);
        }
        Ok(recs)
    }

    fn fill(&self, b: &dyn Benchmark, op: &mut Op, rep: usize) {
        let l = b.layout(op.x, op.size);
        if b.info().reduction {
            check::fill_floats(&mut op.sbuf.floats_mut()[..l.send / 4], op.rank, rep);
        } else {
            check::fill_bytes(&mut op.sbuf.bytes_mut()[..l.send], op.rank, rep, op.x);
        }
    }

    /// One message length: warm-up, repetitions policy, sync, timed loop.
    /// Returns (reported time per repetition in µs, repetitions, errors).
    fn measure(&self, b: &dyn Benchmark, op: &mut Op, sync: Comm) -> Result<(f64, usize, u64)> {
        let info = b.info();
        let policy = &self.plan.policy;
        let x = op.x;
        let q = op.size;
        let rotate = info.rooted && self.plan.root_shift;
        // IMB: at most max_reps repetitions and max_volume bytes per message length.
        let cap = policy
            .max_volume
            .checked_div(x)
            .map_or(policy.max_reps, |n| policy.max_reps.min(n.max(1)));
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
        let reps = match policy.iter {
            Some(n) => n,
            None if est > 0.0 => cap.min(((policy.time_limit_s / est) as usize).max(1)),
            None => cap,
        };

        let (elapsed, errors) = if self.plan.check {
            self.checked_loop(b, op, sync, reps, rotate)?
        } else {
            // PMB §5.2.6: synchronise MY_COMM, then one clock pair around the loop.
            sync.barrier();
            let t0 = comm::wtime();
            if rotate {
                for i in 0..reps {
                    op.root = i % q;
                    b.run(op);
                }
            } else {
                for _ in 0..reps {
                    b.run(op);
                }
            }
            (comm::wtime() - t0, 0)
        };
        let t_us = elapsed / reps as f64 * 1e6 * info.time_scale;
        Ok((t_us, reps, errors))
    }

    /// `--check`: every repetition gets fresh send patterns and poisoned
    /// receive buffers, a clock pair around the operation only, and a
    /// verification afterwards. Returns (summed time, failed checks).
    fn checked_loop(
        &self,
        b: &dyn Benchmark,
        op: &mut Op,
        sync: Comm,
        reps: usize,
        rotate: bool,
    ) -> Result<(f64, u64)> {
        let l = b.layout(op.x, op.size);
        let reduction = b.info().reduction;
        let mut elapsed = 0.0;
        let mut errors = 0u64;
        sync.barrier();
        for i in 0..reps {
            if rotate {
                op.root = i % op.size;
            }
            self.fill(b, op, i);
            if reduction {
                check::poison_floats(&mut op.rbuf.floats_mut()[..l.recv / 4]);
            } else {
                check::poison(&mut op.rbuf.bytes_mut()[..l.recv], i, op.x);
            }
            let t0 = comm::wtime();
            b.run(op);
            elapsed += comm::wtime() - t0;
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
        Ok((elapsed, errors))
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
        let per_rank = sizes.len() * REC;
        let recs = |si: usize| -> Vec<&[f64]> {
            (0..self.world.size)
                .map(|r| &all[r * per_rank + si * REC..r * per_rank + (si + 1) * REC])
                .filter(|rec| rec[R_ACTIVE] > 0.0)
                .collect()
        };
        let row = |x: usize, members: &[&[f64]]| -> Row {
            let ts: Vec<f64> = members.iter().map(|r| r[R_T_US]).collect();
            let t_min = ts.iter().copied().fold(f64::INFINITY, f64::min);
            let t_max = ts.iter().copied().fold(0.0, f64::max);
            let t_avg = ts.iter().sum::<f64>() / ts.len().max(1) as f64;
            Row {
                bytes: x,
                repetitions: members.first().map(|r| r[R_REPS] as usize).unwrap_or(0),
                t_min_us: if t_min.is_finite() { t_min } else { 0.0 },
                t_max_us: t_max,
                t_avg_us: t_avg,
                mbytes_per_sec: info.throughput.map(|f| mbytes_per_sec(f, x, t_max)),
                errors: self
                    .plan
                    .check
                    .then(|| members.iter().map(|r| r[R_ERRORS] as u64).sum()),
            }
        };
        let rows = sizes
            .iter()
            .enumerate()
            .map(|(si, &x)| row(x, &recs(si)))
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
                                .filter(|r| r[R_GROUP] as usize == gi)
                                .collect();
                            row(x, &m)
                        })
                        .collect(),
                })
                .collect()
        } else {
            Vec::new()
        };
        debug_assert!(recs(0)
            .iter()
            .all(|r| (r[R_WORLD_RANK] as usize) < n_active));
        BenchResult {
            benchmark: info.name.to_string(),
            suite: info.suite.to_string(),
            class: info.class.label().to_string(),
            processes: q,
            mode: if self.plan.multi { "multi" } else { "primary" }.to_string(),
            groups,
            active: n_active,
            skipped: None,
            rows,
            group_rows,
        }
    }
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
        rows: Vec::new(),
        group_rows: Vec::new(),
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
