//! One point on a rank of the group, in the order the ranks run it:
//!
//! ```text
//! setting      method, sync, repetition policy and inner count from the plan
//! planned      the policy's repetitions (at most the kernel's)
//! warm-up      untimed but for the pace estimate, in chunks (see disturb::warm_pace)
//! pace         the slowest rank's time per repetition, the window's floor
//! calibration  the method's constants, once per process count (MPITEST's DT, DB)
//! timed        the policy drives the method's batches; measured again after a disturbance
//! record       this rank's figures, and on the group's rank 0 the combined values
//! ```
//!
//! Each step is a function of its own; the timed loop itself is the
//! kernel's (`Kernel::measure`, monomorphised per kernel type), and no step
//! puts anything between its clock reads.

use super::disturb::{self, Disturbance};
use super::record::{Combined, PointRecord};
use super::reps::{self, Policy};
use super::{Combo, Engine, Runner, DELAY_INNER};
use crate::clock::model::ClockModel;
use crate::comm::{self, Comm};
use crate::contract::axis::Point;
use crate::contract::placement::Role;
use crate::contract::{Class, Info, Kernel, Method};
use crate::method::{Consts, MpiCtx, RepBatch, Samples, SyncMode};
use crate::stats;
use crate::sys;
use crate::watchdog;

/// How a point is measured on this rank: from the plan and the benchmark.
pub(super) struct Setting {
    pub method: Method,
    pub sync: SyncMode,
    pub policy: Box<dyn Policy>,
    /// Repetitions per sample of a nested method (delay subtraction); 1 otherwise.
    pub inner: usize,
    /// This rank's clock pairs count: for single transfers timed per
    /// repetition only the initiator's do, since its pair spans the whole
    /// round trip, while its partner's also spans waiting for the initiator
    /// to leave the synchronisation.
    pub counts: bool,
    /// `--check`: every repetition verified.
    pub check: bool,
}

/// What the timed batches gave, and whether a disturbance made them run again.
struct Timed {
    s: Samples,
    c: Combo,
    stopped: Option<bool>,
    disturbance: Option<Disturbance>,
}

impl Engine<'_> {
    /// One point on a rank of the group: warm-up, calibration, the method's
    /// batches, and the combination over the synchronised ranks.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn measure(
        &self,
        info: &Info,
        p: &Point,
        q: usize,
        time_scale: f64,
        role: &Role,
        sc: &Comm,
        clock: Option<ClockModel>,
        k: &mut (dyn Kernel + '_),
    ) -> (PointRecord, Samples, Option<Disturbance>) {
        let set = self.setting(info, role);
        let planned = self.planned(&set, p, q, k);
        if set.check {
            k.prepare(0);
        }
        let warm = self
            .cfg
            .warmup
            .or_else(|| k.warm_reps(planned))
            .unwrap_or_else(|| set.policy.warmup(planned, p.bytes));
        let factor = self.cfg.watch.disturbance_factor.unwrap_or(0.0);
        let warmed = crate::phases::span(crate::phases::Phase::WarmUp);
        let own = warm_up(k, warm, factor);
        drop(warmed);
        k.planned(planned);
        let per_call = {
            let _phase = crate::phases::span(crate::phases::Phase::Agree);
            sc.allreduce_max(own)
        };
        let window_s = self
            .cfg
            .window_us
            .map_or(2.0 * per_call + 2e-6, |w| w * 1e-6);
        let consts = if set.method.calibrates() {
            self.calibrated(set.method, q, sc)
        } else {
            Consts::default()
        };
        let pace = self.pace(&set, per_call, window_s);
        // How long the timed part should take, for the ranks outside the group.
        self.announce(set.policy.expected(planned, &pace));
        // Start where the previous point's window ended (it agreed over the
        // same ranks), so that each point does not learn the width again.
        let start = window_s.max(self.window_hint.get());
        let mut cx = MpiCtx::new(sc, set.sync, clock, consts, (window_s, start), self.polite);
        let mut t = self.timed(&set, planned, &pace, &mut cx, sc, clock, k);
        // The note gives the pace in the figure's units (PingPong: half a
        // round trip), as the rows do.
        if let Some(d) = t.disturbance.as_mut() {
            d.first.pace_s *= time_scale;
            if let Some(l) = d.last.as_mut() {
                l.pace_s *= time_scale;
            }
        }
        let mut rec = self.own_record(&set, &t.s, time_scale, k);
        if sc.rank == 0 {
            rec.combined = Some(combined(&set, &t, &cx, time_scale));
        }
        if let Some(w) = cx.window() {
            self.window_hint.set(w.width);
        }
        (rec, t.s, t.disturbance)
    }

    /// The plan's method, sync and repetitions for this benchmark, on this rank.
    pub(super) fn setting(&self, info: &Info, role: &Role) -> Setting {
        let cfg = &self.cfg;
        let method = cfg.method_for(info);
        Setting {
            method,
            sync: cfg.sync_for(info),
            policy: reps::policy(cfg.reps_for(info)),
            inner: if method.nested() {
                cfg.inner.unwrap_or(DELAY_INNER)
            } else {
                1
            },
            counts: role.active && (info.class != Class::SingleTransfer || role.initiator),
            check: cfg.check_for(info),
        }
    }

    /// The policy's repetitions for the point, at most the kernel's.
    fn planned(&self, set: &Setting, p: &Point, q: usize, k: &dyn Kernel) -> usize {
        let planned = set.policy.planned(&reps::Before {
            bytes: p.bytes,
            q,
            max_volume: self.cfg.max_volume,
            hint: self.reps_hint.get(),
            most: k.most_reps(),
        });
        k.most_reps().map_or(planned, |m| planned.min(m.max(1)))
    }

    /// What the warm-up told, for the policy.
    fn pace(&self, set: &Setting, per_call: f64, window_s: f64) -> reps::Pace {
        reps::Pace {
            per_call,
            floor: if set.sync == SyncMode::Window {
                window_s
            } else {
                0.0
            },
            inner: set.inner,
            time_limit_s: self.cfg.time_limit_s,
        }
    }

    /// The timed batches, driven by the policy. Disturbances (see
    /// `disturb`) are looked for after them, in their durations combined
    /// over the ranks (identical on all of them, so that all measure again
    /// together), and the point is measured again while there is room.
    #[allow(clippy::too_many_arguments)]
    fn timed<'c>(
        &self,
        set: &Setting,
        planned: usize,
        pace: &reps::Pace,
        cx: &mut MpiCtx<'c>,
        sc: &'c Comm,
        clock: Option<ClockModel>,
        k: &mut (dyn Kernel + '_),
    ) -> Timed {
        let cfg = &self.cfg;
        let method = set.method;
        // With the stall limit on, a long PMB loop is timed in chunks, so
        // that its progress shows before the limit (see `loop_chunk`).
        let chunk = self.loop_chunk(method, pace.per_call);
        let closes_at_a_cost = k.closes_at_a_cost();
        let batch = |first: usize, n: usize| RepBatch {
            first,
            n,
            inner: set.inner,
            check: set.check,
            corrupt: cfg.faults.corrupt,
        };
        let fresh_pages = cfg.faults.fresh_pages;
        let mut run = |cx: &mut MpiCtx, first: usize, n: usize, s: &mut Samples, c: &mut Combo| {
            cx.begin(first);
            // The batch's page faults, read outside its clock pairs (less
            // those of mapping its sample room before the loop).
            crate::method::reserve_faults();
            let before = sys::thread_faults();
            // Test hook (--test-fresh-pages): faults planted in the batch.
            sys::touch_fresh_pages(fresh_pages.saturating_mul(n));
            let timed = crate::phases::span(crate::phases::Phase::Timed);
            let mut got = k.measure(method, cx, &batch(first, n));
            drop(timed);
            let after = sys::thread_faults();
            let room = crate::method::reserve_faults();
            got.faults = [
                after[0].saturating_sub(before[0]).saturating_sub(room[0]),
                after[1].saturating_sub(before[1]).saturating_sub(room[1]),
            ];
            self.combine(sc, &got, set.counts, clock, method, c);
            s.extend(got);
        };
        let factor = cfg.watch.disturbance_factor.unwrap_or(0.0);
        let watch = !method.per_repetition() && !set.check && factor > 0.0 && !closes_at_a_cost;
        let measure = || {
            let driven = set.policy.drive(
                planned,
                pace,
                &mut Runner {
                    run: &mut run,
                    cx: &mut *cx,
                    chunk,
                    sc,
                },
            );
            if let Some(h) = driven.hint {
                self.reps_hint.set(h);
            }
            driven
        };
        let batches = |d: &reps::Driven| {
            let per = d.s.reps_per_sample.max(1);
            d.c.values.iter().map(|&v| (v, per)).collect()
        };
        let (driven, disturbance) = disturb::settle(
            measure,
            batches,
            watch.then_some(factor),
            pace.per_call,
            cfg.time_limit_s,
        );
        Timed {
            s: driven.s,
            c: driven.c,
            stopped: driven.stopped,
            disturbance,
        }
    }

    /// This rank's own figures of the point (the group's rank 0 adds the
    /// combined values).
    fn own_record(
        &self,
        set: &Setting,
        s: &Samples,
        time_scale: f64,
        k: &mut (dyn Kernel + '_),
    ) -> PointRecord {
        let scale = time_scale * 1e6;
        let per = s.reps_per_sample.max(1) as f64;
        PointRecord {
            counted: set.counts,
            group: self.my_group.get(),
            t_mean_us: s.mean_per_rep() * scale,
            reps: s.reps(),
            errors: s.errors,
            late: s.late.iter().filter(|&&l| l).count() as u64,
            rank_median_us: set.method.per_repetition().then(|| {
                let own: Vec<f64> = s.dur.iter().map(|d| d / per * scale).collect();
                stats::summarize(&own).median
            }),
            combined: None,
            figures: k.figures(),
            group_rank: None,
            faults: s.faults,
            sides_us: (!s.sides.is_empty()).then(|| {
                let n = s.sides.len() as f64;
                let mean = |i: usize| s.sides.iter().map(|x| x[i]).sum::<f64>() / n * scale;
                [mean(0), mean(1)]
            }),
        }
    }
}

/// The warm-up: `warm` repetitions, timed only to estimate the time per
/// repetition; returns that estimate on this rank. (Its progress reports,
/// one plain store each, may sit inside its clock pairs. It is timed in a
/// few chunks, so that a stall in it does not plan the point: see
/// `disturb::warm_pace`.) What the kernel measured meanwhile is dropped.
fn warm_up(k: &mut (dyn Kernel + '_), warm: usize, factor: f64) -> f64 {
    watchdog::expect(1);
    let size = disturb::warm_chunk_size(warm);
    let mut chunks = [(0.0, 0usize); disturb::WARM_CHUNKS];
    let mut tw = comm::wtime();
    for i in 0..warm {
        k.run(i);
        watchdog::progress(1);
        if (i + 1) % size == 0 || i + 1 == warm {
            let now = comm::wtime();
            chunks[i / size] = (now - tw, (i % size) + 1);
            tw = now;
        }
    }
    let _ = k.figures();
    let timed = &chunks[..warm.div_ceil(size).min(disturb::WARM_CHUNKS)];
    disturb::warm_pace(timed, factor).max(0.0)
}

/// The point's values combined over the group (on its rank 0): the
/// method's value per repetition, the global span and start skew with
/// synchronised clocks, the window's width, and whether the repetitions
/// stopped on a bound.
fn combined(set: &Setting, t: &Timed, cx: &MpiCtx, time_scale: f64) -> Combined {
    let (s, c) = (&t.s, &t.c);
    let per = s.reps_per_sample.max(1) as f64;
    let values = if set.method.global_value() {
        &c.global
    } else {
        &c.values
    };
    let valid = c.valid(values, per, time_scale * 1e6);
    let mut comb = Combined::of(&valid, (c.late.len() - valid.len()) as u64);
    let median = |v: &[f64]| {
        let g = c.valid(v, per, 1e6);
        (!g.is_empty()).then(|| stats::summarize(&g).median)
    };
    comb.global_us = median(&c.global).map(|g| g * time_scale);
    comb.skew_us = median(&c.skew);
    comb.window_us = cx.window().map(|w| w.widest * 1e6);
    comb.stopped_on_bound = t.stopped;
    comb
}
