//! Disturbed measurements: a rank stopped, pre-empted or swapped out in the
//! middle of a point inflates a loop-timed figure (one clock pair around many
//! repetitions) by the whole stall. The engine looks for it after each timed
//! batch, outside every clock pair, in the batches' own durations.
//!
//! The rule (also in docs/methodology.md and `--help` of `--disturbance-factor`):
//!
//! * The point's **pace** p is its typical time per repetition: the median
//!   over its timed batches (loop timing times a long point in batches; see
//!   the stall limit) when there are three or more; with one or two, the
//!   fastest batch's, or the warm-up's where that is smaller (a load that
//!   slows the whole loop would hide a stall behind the faster batch).
//! * A batch of n repetitions that took d is **disturbed** when its excess
//!   over its pace, e = d − n·p, is at least F × p (a stall as long as F
//!   repetitions, F = `--disturbance-factor`, 100 by default) *and* the
//!   batch took at least three times its pace (d ≥ 3·n·p: far beyond the
//!   batch-to-batch noise of a busy machine) *or*, among three batches or
//!   more, its time per repetition is at least twice every other batch's
//!   (one batch that stands out: a stall, where a load that came and went
//!   during the point slowed half the batches and moved the median). Every
//!   threshold is relative to the point's own paces; there is no absolute time.
//! * A disturbed point is measured again, up to [`MAX_AGAIN`] times, while
//!   the clean time of the measurements again (n·p each) fits in `--time`.
//!   A measurement again is judged against the first measurement's pace as
//!   well as its own (the smaller of the two is its pace): a load that came
//!   with the stall and slows every batch of the measurement again alike
//!   gives it a slow pace of its own, but not a clean figure. Where the
//!   disturbance stays, the row carries `"disturbed": true` and a note with
//!   the stall's size. A row is never both "measured again ... clean" and
//!   slower than [`MIN_INFLATION`] times the pace its note gives.
//!
//! Only loop timing is checked: per-call methods report medians, which one
//! stalled repetition does not move.

use serde::{Deserialize, Serialize};

/// The default F of `--disturbance-factor`.
pub const DEFAULT_FACTOR: f64 = 100.0;

/// A disturbed batch must have taken at least this many times its pace.
pub const MIN_INFLATION: f64 = 3.0;

/// Or, among three batches or more, its time per repetition at least this
/// many times every other batch's.
pub const STANDOUT: f64 = 2.0;

/// At most this many measurements again of a disturbed point.
pub const MAX_AGAIN: usize = 3;

/// The largest stall of a point's batches.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Stall {
    /// The stall: the batch's excess over its pace (seconds).
    pub stall_s: f64,
    /// The point's pace (seconds per repetition).
    pub pace_s: f64,
}

impl Stall {
    /// The stall in repetitions of the pace.
    pub fn times_pace(&self) -> f64 {
        self.stall_s / self.pace_s
    }

    /// "a stall of 20.1 s, 176000× the pace of 114 µs per repetition".
    pub fn describe(&self) -> String {
        format!(
            "a stall of {}, {}x the pace of {} per repetition",
            duration(self.stall_s),
            round3(self.times_pace()),
            duration(self.pace_s)
        )
    }
}

/// What happened to one point of one group (gathered to rank 0).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Disturbance {
    /// Index of the point in the benchmark's sweep.
    pub point: usize,
    /// Multi mode: the group.
    pub group: usize,
    /// The first stall seen.
    pub first: Stall,
    /// Measurements again.
    pub again: usize,
    /// The stall of the measurement reported (None: it is clean).
    pub last: Option<Stall>,
}

impl Disturbance {
    /// The row's note.
    pub fn note(&self) -> String {
        let times = |n: usize| {
            if n == 1 {
                "once".to_string()
            } else {
                format!("{n} times")
            }
        };
        match self.last {
            None => format!(
                "measured again ({}) after {}: the figure is from a clean measurement",
                times(self.again),
                self.first.describe()
            ),
            Some(s) if self.again == 0 => format!(
                "disturbed: {} (not measured again: --time leaves no room); the figure includes it",
                s.describe()
            ),
            Some(s) => format!(
                "disturbed: {}, still after measuring again {}; the figure includes it",
                s.describe(),
                times(self.again)
            ),
        }
    }
}

/// The largest stall among `batches` (duration in seconds, repetitions),
/// against the pace (the median batch with three or more, with one or two
/// the smaller of the fastest and `warm_pace`); None when no batch is
/// disturbed by the rule above with factor `factor` (0: never).
pub fn detect(batches: &[(f64, usize)], warm_pace: f64, factor: f64) -> Option<Stall> {
    detect_against(batches, warm_pace, factor, None)
}

/// [`detect`] with a `reference` pace, known from an earlier measurement
/// of the same point: the pace is at most the reference.
pub fn detect_against(
    batches: &[(f64, usize)],
    warm_pace: f64,
    factor: f64,
    reference: Option<f64>,
) -> Option<Stall> {
    if factor <= 0.0 || !factor.is_finite() {
        return None;
    }
    let per_rep =
        |&(d, n): &(f64, usize)| (n > 0 && d.is_finite() && d > 0.0).then(|| d / n as f64);
    let mut paces: Vec<f64> = batches.iter().filter_map(per_rep).collect();
    paces.sort_by(f64::total_cmp);
    let fastest = *paces.first()?;
    // One or two batches give no median to trust: a load that slows the
    // whole loop (busy-polling neighbours: 20 to 30 times) hides a stall
    // shorter than twice the loop's clean time behind the faster batch's
    // pace. The warm-up, just before, bounds it (issue 36: a CI run's two
    // chunks at 3.5 ms against a warm-up of 197 us, one of them stopped
    // 40 s, were called undisturbed).
    let warm = (warm_pace.is_finite() && warm_pace > 0.0).then_some(warm_pace);
    let pace = match (paces.len(), warm) {
        (1 | 2, Some(w)) => fastest.min(w),
        (1 | 2, None) => fastest,
        _ => crate::stats::percentile(&paces, 50.0),
    };
    let pace = match reference {
        Some(r) if r.is_finite() && r > 0.0 => pace.min(r),
        _ => pace,
    };
    if pace <= 0.0 {
        return None;
    }
    // Whether batch i's pace is at least STANDOUT times every other's.
    let stands_out = |i: usize| {
        let Some(own) = per_rep(&batches[i]) else {
            return false;
        };
        paces.len() >= 3
            && batches
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .filter_map(|(_, b)| per_rep(b))
                .all(|other| own >= STANDOUT * other)
    };
    batches
        .iter()
        .enumerate()
        .filter(|(_, b)| per_rep(b).is_some())
        .filter_map(|(i, &(d, n))| {
            let clean = n as f64 * pace;
            let excess = d - clean;
            (excess >= factor * pace && (d >= MIN_INFLATION * clean || stands_out(i)))
                .then_some(excess)
        })
        .max_by(f64::total_cmp)
        .map(|stall_s| Stall {
            stall_s,
            pace_s: pace,
        })
}

/// Measures a point until a measurement is clean or there is no room for
/// another (the rule in the module's documentation). `measure` runs the
/// point's timed batches once; `batches` gives their (duration in seconds,
/// repetitions), identical on every rank so that all measure again
/// together; `factor` is F (None or 0: nothing is looked for); `warm_pace`
/// the warm-up's time per repetition; `time_limit_s` is `--time`. Returns
/// the measurement to report and what disturbed the point, if anything.
pub fn settle<M>(
    mut measure: impl FnMut() -> M,
    batches: impl Fn(&M) -> Vec<(f64, usize)>,
    factor: Option<f64>,
    warm_pace: f64,
    time_limit_s: f64,
) -> (M, Option<Disturbance>) {
    let mut disturbance: Option<Disturbance> = None;
    let (mut again, mut again_s) = (0, 0.0);
    loop {
        let m = measure();
        let Some(factor) = factor.filter(|f| *f > 0.0) else {
            return (m, None);
        };
        let b = batches(&m);
        let reference = disturbance.map(|d| d.first.pace_s);
        let found = detect_against(&b, warm_pace, factor, reference);
        let d = match (disturbance.as_mut(), found) {
            (None, None) => return (m, None),
            (None, Some(first)) => disturbance.insert(Disturbance {
                point: 0,
                group: 0,
                first,
                again: 0,
                last: None,
            }),
            (Some(d), _) => d,
        };
        d.again = again;
        d.last = found;
        let Some(f) = found else {
            return (m, disturbance);
        };
        // The clean time of a measurement again.
        let reps: usize = b.iter().map(|x| x.1).sum();
        let next_s = reps as f64 * f.pace_s;
        if !room_for_again(again, again_s, next_s, time_limit_s) {
            return (m, disturbance);
        }
        again += 1;
        again_s += next_s;
    }
}

/// The warm-up's time per repetition, from its chunks (duration, repetitions):
/// their mean, unless a chunk is disturbed by the rule above (factor
/// `factor`, or the default when the detection is off), in which case the
/// undisturbed pace. A rank stopped during the warm-up then neither thins
/// the point's repetitions under `--time` nor widens its windows or
/// shortens its loop chunks: the warm-up only plans, and its stall is no
/// part of the figure.
pub fn warm_pace(chunks: &[(f64, usize)], factor: f64) -> f64 {
    let (d, n) = chunks
        .iter()
        .filter(|(d, _)| d.is_finite() && *d >= 0.0)
        .fold((0.0, 0usize), |(d, n), &(cd, cn)| (d + cd, n + cn));
    let mean = d / n.max(1) as f64;
    let factor = if factor > 0.0 && factor.is_finite() {
        factor
    } else {
        DEFAULT_FACTOR
    };
    match detect(chunks, f64::NAN, factor) {
        Some(s) => s.pace_s.min(mean),
        None => mean,
    }
}

/// The repetitions per chunk of a warm-up of `warm` repetitions, so that
/// it has at most [`WARM_CHUNKS`] chunks, of equal size but the last.
pub fn warm_chunk_size(warm: usize) -> usize {
    warm.div_ceil(WARM_CHUNKS).max(1)
}

/// A warm-up is timed in at most this many chunks.
pub const WARM_CHUNKS: usize = 8;

/// Whether another measurement fits: its clean time `next_s` plus the clean
/// time already spent measuring again `spent_s` within `--time` (seconds).
pub fn room_for_again(again: usize, spent_s: f64, next_s: f64, time_limit_s: f64) -> bool {
    again < MAX_AGAIN && spent_s + next_s <= time_limit_s
}

/// A duration with three significant digits in the unit that reads best.
fn duration(s: f64) -> String {
    let (v, unit) = if s >= 1.0 {
        (s, "s")
    } else if s >= 1e-3 {
        (s * 1e3, "ms")
    } else if s >= 1e-6 {
        (s * 1e6, "us")
    } else {
        (s * 1e9, "ns")
    };
    let digits = if v >= 100.0 {
        0
    } else if v >= 10.0 {
        1
    } else {
        2
    };
    format!("{v:.digits$} {unit}")
}

/// A count rounded to three significant digits ("176000", "12.3").
fn round3(x: f64) -> String {
    if !(x.is_finite() && x > 0.0) {
        return format!("{x}");
    }
    let mag = x.log10().floor() as i32;
    let step = 10f64.powi(mag - 2);
    let r = (x / step).round() * step;
    if mag >= 2 {
        format!("{r:.0}")
    } else {
        format!("{r:.*}", (2 - mag) as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `k` batches of `n` repetitions at `pace` with `jitter` (relative,
    /// spread deterministically over the batches).
    fn batches(k: usize, n: usize, pace: f64, jitter: f64) -> Vec<(f64, usize)> {
        (0..k)
            .map(|i| {
                let j = 1.0 + jitter * ((i * 7 % 5) as f64 / 4.0);
                (n as f64 * pace * j, n)
            })
            .collect()
    }

    #[test]
    fn a_stall_far_beyond_the_pace_is_caught() {
        // The case: 20000 repetitions of 114 us in two batches,
        // rank 1 stopped for 20 s in the second.
        let mut b = batches(2, 10_000, 114e-6, 0.0);
        b[1].0 += 20.1;
        let s = detect(&b, 114e-6, DEFAULT_FACTOR).expect("caught");
        assert!((s.stall_s - 20.1).abs() < 1e-6, "{s:?}");
        assert!((s.pace_s - 114e-6).abs() < 1e-12);
        assert_eq!(
            s.describe(),
            "a stall of 20.1 s, 176000x the pace of 114 us per repetition"
        );
        // One batch only (no stall limit): the warm-up gives the pace.
        let one = vec![(20000.0 * 114e-6 + 5.0, 20000)];
        assert!(detect(&one, 114e-6, DEFAULT_FACTOR).is_some());
        // A stall in the warm-up does not hide one in the loop: the
        // fastest batch sets the pace.
        assert!(detect(&b, 1.0, DEFAULT_FACTOR).is_some());
    }

    #[test]
    fn a_stall_in_the_warm_up_does_not_plan_the_point() {
        // 100 warm-up repetitions of 114 us in 8 chunks of 13 (the last 9),
        // rank 1 stopped for 20 s in the third.
        let size = warm_chunk_size(100);
        assert_eq!(size, 13);
        let mut c: Vec<(f64, usize)> = (0..100)
            .step_by(size)
            .map(|i| {
                let n = size.min(100 - i);
                (n as f64 * 114e-6, n)
            })
            .collect();
        assert_eq!(c.len(), 8);
        let clean = warm_pace(&c, DEFAULT_FACTOR);
        assert!((clean - 114e-6).abs() < 1e-12, "{clean}");
        c[2].0 += 20.0;
        let p = warm_pace(&c, DEFAULT_FACTOR);
        assert!((p - 114e-6).abs() < 1e-9, "{p}");
        // Off, the default rule still plans.
        assert!((warm_pace(&c, 0.0) - 114e-6).abs() < 1e-9);
        // Two repetitions, the second stopped: the first sets the pace.
        let two = [(114e-6, 1), (114e-6 + 20.0, 1)];
        assert!((warm_pace(&two, DEFAULT_FACTOR) - 114e-6).abs() < 1e-9);
        // Ordinary jitter keeps the mean.
        let j = [(1e-3, 10), (1.5e-3, 10), (2e-3, 10)];
        assert!((warm_pace(&j, DEFAULT_FACTOR) - 1.5e-4).abs() < 1e-12);
        // Nothing timed.
        assert_eq!(warm_pace(&[], DEFAULT_FACTOR), 0.0);
        assert_eq!(warm_chunk_size(0), 1);
        assert_eq!(warm_chunk_size(2), 1);
    }

    #[test]
    fn ordinary_jitter_is_not_a_disturbance() {
        // Up to 60 % slower batches on a busy machine: no finding.
        for (k, n, pace) in [(2, 10_000, 114e-6), (40, 1000, 1e-6), (1, 1000, 3e-3)] {
            let b = batches(k, n, pace, 0.6);
            assert_eq!(detect(&b, pace, DEFAULT_FACTOR), None, "{k} {n} {pace}");
            // A warm-up a little slower or faster than the loop neither.
            assert_eq!(detect(&b, pace * 1.3, DEFAULT_FACTOR), None);
            assert_eq!(detect(&b, pace * 0.6, DEFAULT_FACTOR), None);
        }
        // A batch four times as slow, but by fewer than F repetitions: no finding.
        let b = vec![(10.0 * 1e-3, 10), (40.0 * 1e-3, 10)];
        assert_eq!(detect(&b, 1e-3, DEFAULT_FACTOR), None);
        // A busy machine: batches of 600 repetitions from 1x to 2.6x the
        // fastest, typically 2x: the median is the pace, nothing is found.
        let b: Vec<(f64, usize)> = (0..32)
            .map(|i| (600.0 * 2.4e-3 * [1.0, 2.0, 2.0, 2.6][i % 4], 600))
            .collect();
        assert_eq!(detect(&b, 2.4e-3, DEFAULT_FACTOR), None);
        // ... but a batch stopped for 20 s among them is.
        let mut b = b;
        b[5].0 += 20.0;
        let s = detect(&b, 2.4e-3, DEFAULT_FACTOR).expect("caught");
        assert!((s.pace_s - 4.8e-3).abs() < 1e-9, "{s:?}");
        // Off.
        let mut b = batches(2, 10_000, 114e-6, 0.0);
        b[1].0 += 20.0;
        assert_eq!(detect(&b, 114e-6, 0.0), None);
        assert_eq!(detect(&[], 1.0, DEFAULT_FACTOR), None);
    }

    #[test]
    fn a_stall_while_a_load_comes_is_caught() {
        // A robustness run: 25111 repetitions in chunks of 6276 (and 7);
        // another job started mid-point and slowed the later chunks 4 to 5
        // times, which moved the median; rank 1 stopped for 16 s in the
        // second chunk: 3 times the median pace is missed, but that chunk
        // is twice as slow per repetition as any other.
        let b = vec![
            (6276.0 * 239e-6, 6276),
            (6276.0 * 239e-6 + 16.0, 6276),
            (6276.0 * 956e-6, 6276),
            (6276.0 * 1.27e-3, 6276),
            (7.0 * 1e-3, 7),
        ];
        let s = detect(&b, 239e-6, DEFAULT_FACTOR).expect("caught");
        assert!((s.pace_s - 1e-3).abs() < 1e-9, "{s:?}");
        // The load alone (no stall): no batch stands out twice over.
        let mut quiet = b.clone();
        quiet[1].0 = 6276.0 * 239e-6;
        assert_eq!(detect(&quiet, 239e-6, DEFAULT_FACTOR), None);
        // Two batches: nothing to stand out from (the fastest is the pace).
        assert_eq!(detect(&b[2..4], 956e-6, DEFAULT_FACTOR), None);
    }

    #[test]
    fn the_thresholds_are_relative_to_the_pace() {
        // The same shape at any scale: 10 ms stalled in 1 ms of 1 us
        // repetitions, or 10 s in 1 s of 1 ms repetitions, or 10000 s.
        for pace in [1e-6, 1e-3, 1.0] {
            let b = vec![(1000.0 * pace, 1000), (11_000.0 * pace, 1000)];
            let s = detect(&b, pace, DEFAULT_FACTOR).expect("caught");
            assert!((s.times_pace() - 10_000.0).abs() < 1e-6 * 10_000.0);
            // The same absolute stall is nothing against a slower pace.
            let b = vec![(1000.0 * pace, 1000), (1000.0 * pace + 10_000e-6, 1000)];
            assert_eq!(detect(&b, pace, DEFAULT_FACTOR).is_some(), pace < 1e-4);
        }
        // F scales the stall needed: 10000 repetitions caught by F = 1000,
        // not by F = 20000.
        let b = vec![(1.0, 1000), (11.0, 1000)];
        assert!(detect(&b, 1e-3, 1000.0).is_some());
        assert!(detect(&b, 1e-3, 20_000.0).is_none());
    }

    #[test]
    fn measuring_again_stays_within_the_time_limit() {
        assert!(room_for_again(0, 0.0, 2.3, 60.0));
        assert!(room_for_again(2, 4.6, 2.3, 60.0));
        assert!(!room_for_again(MAX_AGAIN, 0.0, 0.1, 60.0));
        assert!(!room_for_again(0, 0.0, 11.0, 10.0));
        assert!(!room_for_again(1, 9.0, 2.0, 10.0));
    }

    /// Measurements of a point, planted: each call of the returned closure
    /// gives the next of `runs` (batches of duration, repetitions).
    fn planted(runs: Vec<Vec<(f64, usize)>>) -> impl FnMut() -> Vec<(f64, usize)> {
        let mut runs = runs.into_iter();
        move || runs.next().expect("no more measurements planted")
    }

    fn settled(
        runs: Vec<Vec<(f64, usize)>>,
        limit: f64,
    ) -> (Vec<(f64, usize)>, Option<Disturbance>) {
        settle(
            planted(runs),
            |m: &Vec<(f64, usize)>| m.clone(),
            Some(DEFAULT_FACTOR),
            198e-6,
            limit,
        )
    }

    /// Whether a row from `m` with disturbance `d` keeps the promise: clean
    /// by its note and within MIN_INFLATION of the pace the note gives,
    /// or marked.
    fn kept(m: &[(f64, usize)], d: &Option<Disturbance>) -> bool {
        let (t, n) = m.iter().fold((0.0, 0), |(t, n), b| (t + b.0, n + b.1));
        match d {
            None => true,
            Some(d) if d.last.is_some() => true,
            Some(d) => t / n as f64 <= MIN_INFLATION * d.first.pace_s,
        }
    }

    #[test]
    fn a_measurement_again_slowed_alike_in_every_batch_is_not_clean() {
        // The CI run of issue 36: 20197 repetitions in two chunks at 177 us;
        // rank 1 stopped for 40 s in the first; the measurement again ran
        // beside busy-polling jobs, 4.2 ms per repetition in both chunks.
        // Against its own pace it looked clean; against the first's it is not.
        let first = vec![(10099.0 * 177e-6 + 43.1, 10099), (10098.0 * 177e-6, 10098)];
        let slow = vec![(10099.0 * 4.23e-3, 10099), (10098.0 * 4.23e-3, 10098)];
        let (m, d) = settled(vec![first.clone(), slow.clone()], 4.0);
        let d = d.expect("disturbed");
        assert_eq!(m, slow, "the last measurement is reported");
        assert_eq!(d.again, 1);
        let last = d.last.expect("still disturbed");
        assert!((last.pace_s - 177e-6).abs() < 1e-9, "{last:?}");
        assert!(
            d.note().contains("still after measuring again once"),
            "{}",
            d.note()
        );
        assert!(kept(&m, &Some(d)));
        // With room for more, it is measured until clean: the figure is then
        // the clean one, at the first's pace.
        let clean = vec![(10099.0 * 180e-6, 10099), (10098.0 * 181e-6, 10098)];
        let (m, d) = settled(vec![first, slow, clean.clone()], 60.0);
        let d = d.expect("noted");
        assert_eq!((m.clone(), d.again, d.last), (clean, 2, None));
        assert!(
            d.note().contains("measured again (2 times)"),
            "{}",
            d.note()
        );
        assert!(kept(&m, &Some(d)));
    }

    #[test]
    fn a_stall_in_a_loop_slowed_from_the_start_is_caught() {
        // The CI run of 6152fcf: 20300 repetitions planned from a warm-up
        // of 197 us, timed in chunks of 15228 and 5072 under the stall
        // limit; busy-polling jobs slowed the whole loop to 3.5 ms per
        // repetition, and rank 1 was stopped for 40 s in the first chunk.
        // Against the faster chunk's pace the stall was under 3 times the
        // clean time, and the row (55.6 s in all) went out unmarked.
        let loaded = 3.5e-3;
        let b = vec![(15228.0 * loaded + 40.0, 15228), (5072.0 * loaded, 5072)];
        let s = detect(&b, 197e-6, DEFAULT_FACTOR).expect("caught");
        assert!((s.pace_s - 197e-6).abs() < 1e-12, "{s:?}");
        // Without a warm-up's pace, two batches fall back on the faster.
        assert_eq!(detect(&b, f64::NAN, DEFAULT_FACTOR), None);
        // Measured again, as slow: still marked, never called clean.
        let again = vec![(15228.0 * loaded, 15228), (5072.0 * loaded, 5072)];
        let (m, d) = settle(
            planted(vec![b.clone(), again.clone()]),
            |m: &Vec<(f64, usize)>| m.clone(),
            Some(DEFAULT_FACTOR),
            197e-6,
            4.0,
        );
        let d = d.expect("disturbed");
        assert_eq!((m, d.again), (again, 1));
        assert!(d.last.is_some(), "{}", d.note());
        // A warm-up no faster than the loop: a steady loop is clean.
        let steady = vec![(15228.0 * loaded, 15228), (5072.0 * loaded * 1.05, 5072)];
        assert_eq!(detect(&steady, loaded, DEFAULT_FACTOR), None);
    }

    /// Repetition costs of the fake kernel below: the warm-up's from
    /// `WARM0` (197 us), a loop slowed to 3.5 ms by a load, with rank 1
    /// stopped for 40 s at repetition `STALL`; measurements again from
    /// `AGAIN` (as slow) or `CLEAN` (the warm-up's pace).
    const WARM0: usize = 1 << 30;
    const STALL: usize = 7_000;
    const AGAIN: usize = 1 << 20;
    const CLEAN: usize = 1 << 24;

    fn planted_cost(i: usize) -> f64 {
        match i {
            i if i >= WARM0 => 197e-6,
            i if i >= CLEAN => 199e-6,
            STALL => 3.5e-3 + 40.0,
            _ => 3.5e-3,
        }
    }

    /// A point through PMB's loop method on a fake clock, as the engine
    /// times it: the warm-up in chunks, its pace, then the loop in chunks
    /// under the stall limit, measured again from `again_from` while
    /// disturbed. Returns (time per repetition, disturbance).
    fn through_the_loop_method(again_from: usize) -> (f64, Option<Disturbance>) {
        use crate::contract::Kernel;
        use crate::method::fake::{Clock, FakeCtx, FakeKernel};
        use crate::method::{PmbLoop, RepBatch, Timing};
        let clock = Clock::default();
        let mut k = FakeKernel::new(&clock, planted_cost);
        let mut cx = FakeCtx::new(&clock);
        let size = warm_chunk_size(100);
        let chunks: Vec<(f64, usize)> = (0..100 / size)
            .map(|c| {
                let t0 = clock.get();
                (0..size).for_each(|i| k.run(WARM0 + c * size + i));
                (clock.get() - t0, size)
            })
            .collect();
        let warm = warm_pace(&chunks, DEFAULT_FACTOR);
        // IMB's --time 4 at the warm-up's pace, in the engine's chunks (S = 120 s).
        let planned = (4.0 / warm).floor() as usize;
        let chunk = (120.0 / crate::engine::CHUNKS_PER_STALL_LIMIT / warm).floor() as usize;
        let mut call = 0;
        let measure = || {
            let first = if call == 0 { 0 } else { again_from };
            call += 1;
            let mut b = Vec::new();
            let mut done = 0;
            while done < planned {
                let n = chunk.min(planned - done);
                let s = PmbLoop::sample(&mut k, &mut cx, &RepBatch::new(first + done, n));
                b.push((s.dur[0], n));
                done += n;
            }
            b
        };
        let (m, d) = settle(
            measure,
            |m: &Vec<(f64, usize)>| m.clone(),
            Some(DEFAULT_FACTOR),
            warm,
            4.0,
        );
        let (t, n) = m.iter().fold((0.0, 0), |(t, n), b| (t + b.0, n + b.1));
        (t / n as f64, d)
    }

    #[test]
    fn a_planted_stall_through_the_loop_method_is_measured_again_or_marked() {
        // Measured again, as slow: marked, with the stall in its note.
        let (per_rep, d) = through_the_loop_method(AGAIN);
        let d = d.expect("disturbed");
        assert!(d.last.is_some(), "{}", d.note());
        assert!(d.first.stall_s > 39.0, "{:?}", d.first);
        assert!(
            d.note().starts_with("disturbed: a stall of"),
            "{}",
            d.note()
        );
        assert!(per_rep > 3e-3, "{per_rep}");
        // A measurement again would run at the warm-up's pace: in chunks of
        // S/400 the loop's own pace is the median chunk's (3.5 ms), at which
        // measuring again does not fit --time: marked, the stall in its
        // figure and its note; never called clean.
        let (per_rep, d) = through_the_loop_method(CLEAN);
        let d = d.expect("noted");
        if d.last.is_some() {
            assert!(
                d.note().starts_with("disturbed: a stall of"),
                "{}",
                d.note()
            );
            assert!(per_rep > 3e-3, "{per_rep}");
        } else {
            assert_eq!(d.again, 1, "{}", d.note());
            assert!((per_rep - 199e-6).abs() < 1e-9, "{per_rep}");
        }
    }

    #[test]
    fn a_planted_stall_is_measured_again_clean_or_marked() {
        // Every place a stall of 40 s can land among 1 to 6 batches of a
        // point of 20000 repetitions at 177 us, then measurements again
        // that are clean, slowed alike by 1.5x to 30x, or stalled again.
        let pace = 177e-6;
        for k in 1..=6usize {
            let n = 20_000 / k;
            let even = |f: f64| vec![(n as f64 * pace * f, n); k];
            for (at, load) in (0..k).flat_map(|at| [1.0, 3.1, 30.0].map(|l| (at, l))) {
                // The first measurement slowed alike from the start, too
                // (a load that came before the loop, after the warm-up).
                let mut first = even(load);
                first[at].0 += 40.0;
                for slow in [1.0, 1.5, 2.9, 3.1, 10.0, 30.0] {
                    let mut stalled = even(slow);
                    stalled[k - 1].0 += 40.0;
                    for again in [even(slow), stalled] {
                        for limit in [1.0, 4.0, 60.0] {
                            let runs =
                                vec![first.clone(), again.clone(), again.clone(), again.clone()];
                            let (m, d) = settled(runs, limit);
                            assert!(
                                d.is_some(),
                                "{k} batches, stall at {at}, {load}x: not found"
                            );
                            assert!(kept(&m, &d), "{k} {at} {load} {slow} {limit}: {m:?} {d:?}");
                        }
                    }
                }
            }
        }
        // Nothing planted: the first measurement, no note.
        let (m, d) = settled(vec![vec![(1.0, 5000); 3]], 4.0);
        assert_eq!((m.len(), d), (3, None));
        // Off: never measured again.
        let mut calls = 0;
        let (_, d) = settle(
            || {
                calls += 1;
                vec![(100.0, 10)]
            },
            |m: &Vec<(f64, usize)>| m.clone(),
            None,
            1e-3,
            60.0,
        );
        assert_eq!((calls, d), (1, None));
    }

    #[test]
    fn notes_say_what_happened() {
        let s = Stall {
            stall_s: 3.05,
            pace_s: 114e-6,
        };
        let d = |again, last| Disturbance {
            point: 0,
            group: 0,
            first: s,
            again,
            last,
        };
        assert_eq!(
            d(1, None).note(),
            "measured again (once) after a stall of 3.05 s, 26800x the pace of 114 us per repetition: the figure is from a clean measurement"
        );
        assert!(d(3, Some(s))
            .note()
            .starts_with("disturbed: a stall of 3.05 s"));
        assert!(d(3, Some(s)).note().contains("measuring again 3 times"));
        assert!(d(0, Some(s)).note().contains("--time leaves no room"));
        assert_eq!(round3(12.345), "12.3");
        assert_eq!(round3(1.0), "1.00");
        assert_eq!(duration(0.5e-6), "500 ns");
    }
}
