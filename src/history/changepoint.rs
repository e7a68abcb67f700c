//! Steps in a series of runs, as asv finds them: a piecewise-constant fit
//! in which each run weighs by its own noise, then every step judged
//! against that noise.
//!
//! - The figures are compared in logarithms (a step is a ratio).
//! - The series' run-to-run noise σ is read from the differences of
//!   neighbouring runs (1.4826 · median |x[i+1] − x[i]| / √2): a step is one
//!   difference among many and barely moves it.
//! - A run's own variance is its CI's (half-width / 1.96, squared) plus the
//!   part of σ² its CI does not explain; a run without a CI has σ². Its
//!   weight is one over that: a run with a wide CI counts for little.
//! - A run far (5 of its σ) from the running median of the five runs around
//!   it is an outlier, left out of the fit (a step of three runs or more
//!   moves that median with it; one or two strays do not).
//! - Optimal partitioning (exact) minimises the weighted squared deviations
//!   from each segment's weighted mean plus a penalty of `penalty · ln n`
//!   per change, each segment at least [`Rules::min_segment`] runs long.
//! - Each step is then judged: the difference of the two levels against its
//!   standard error (at least `z` of them) and at least `min_step` as a
//!   ratio; the weakest step that fails is merged away, until all pass.
//! - A series whose noise exceeds `max_noise` is unstable: it is listed
//!   apart, and only steps beyond its wide noise are kept.

/// One run of a series: its figure (> 0) and the figure's 95% CI.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Obs {
    pub value: f64,
    pub ci: Option<(f64, f64)>,
}

/// How steps are found and judged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rules {
    /// The smallest step reported, as a ratio less one (0.05: 5%).
    pub min_step: f64,
    /// Above this run-to-run noise (ratio less one) a series is unstable.
    pub max_noise: f64,
    /// Standard errors a step must exceed.
    pub z: f64,
    /// Penalty per change, times ln n.
    pub penalty: f64,
    /// Fewest runs of a level.
    pub min_segment: usize,
    /// The smallest step reported in the figures' own unit (µs): timers
    /// tick in about 10 ns and reading them costs as much, so a figure of
    /// 30 ns that moves to 40 ns has not changed.
    pub min_abs: f64,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            min_step: 0.05,
            max_noise: 0.05,
            z: 5.0,
            penalty: 4.0,
            min_segment: 2,
            min_abs: 0.02,
        }
    }
}

/// One level of the fit: runs `start..end` (indices into the series).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Level {
    pub start: usize,
    pub end: usize,
    /// Weighted mean of the logarithms, and its standard error.
    pub log_mean: f64,
    pub log_se: f64,
}

impl Level {
    pub fn value(&self) -> f64 {
        self.log_mean.exp()
    }
    /// The level's 95% CI.
    pub fn ci(&self) -> (f64, f64) {
        (
            (self.log_mean - 1.96 * self.log_se).exp(),
            (self.log_mean + 1.96 * self.log_se).exp(),
        )
    }
}

/// A step between two levels, at the first run of the later one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    pub at: usize,
    pub before: Level,
    pub after: Level,
    /// after / before.
    pub ratio: f64,
    /// The step in standard errors.
    pub z: f64,
}

/// The fit of a series.
#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    /// Run-to-run noise, as a ratio less one (0.03: ±3%).
    pub noise: f64,
    pub unstable: bool,
    pub levels: Vec<Level>,
    pub steps: Vec<Step>,
    /// Runs left out of the fit as outliers.
    pub outliers: Vec<usize>,
}

/// The smallest noise a run is given (0.01% in logarithms), so that runs
/// with identical figures do not weigh infinitely.
const FLOOR: f64 = 1e-4;

/// Outliers lie beyond this many of their σ from the running median.
const OUTLIER_SIGMAS: f64 = 5.0;

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// σ of the run-to-run noise from neighbouring differences (logarithms).
fn series_noise(x: &[f64]) -> f64 {
    let mut d: Vec<f64> = x.windows(2).map(|w| (w[1] - w[0]).abs()).collect();
    1.4826 * median(&mut d) / std::f64::consts::SQRT_2
}

/// Each run's σ: its CI's, plus the noise its CI does not explain.
fn run_sigmas(obs: &[Obs], x: &[f64], noise: f64) -> Vec<f64> {
    let own: Vec<Option<f64>> = obs
        .iter()
        .map(|o| match o.ci {
            Some((lo, hi)) if lo > 0.0 && hi >= lo && hi.is_finite() => {
                Some((hi.ln() - lo.ln()) / (2.0 * 1.96))
            }
            _ => None,
        })
        .collect();
    let mut known: Vec<f64> = own.iter().flatten().map(|s| s * s).collect();
    let extra = (noise * noise - median(&mut known)).max(0.0);
    own.iter()
        .zip(x)
        .map(|(s, _)| {
            match s {
                Some(s) => (s * s + extra).sqrt(),
                None => noise,
            }
            .max(FLOOR)
        })
        .collect()
}

/// Runs beyond [`OUTLIER_SIGMAS`] from the median of the (up to) five runs
/// centred on them.
fn outliers(x: &[f64], sigma: &[f64]) -> Vec<usize> {
    let n = x.len();
    (0..n)
        .filter(|&i| {
            let k = 2.min(i).min(n - 1 - i);
            let mut w = x[i - k..=i + k].to_vec();
            (x[i] - median(&mut w)).abs() > OUTLIER_SIGMAS * sigma[i]
        })
        .collect()
}

/// Prefix sums of w, w·x, w·x² for segment costs in O(1).
struct Sums {
    w: Vec<f64>,
    wx: Vec<f64>,
    wxx: Vec<f64>,
}

impl Sums {
    fn new(x: &[f64], w: &[f64]) -> Sums {
        let mut s = Sums {
            w: vec![0.0],
            wx: vec![0.0],
            wxx: vec![0.0],
        };
        for (xi, wi) in x.iter().zip(w) {
            s.w.push(s.w.last().unwrap() + wi);
            s.wx.push(s.wx.last().unwrap() + wi * xi);
            s.wxx.push(s.wxx.last().unwrap() + wi * xi * xi);
        }
        s
    }
    /// (Σw, weighted mean, weighted squared deviations) of `a..b`.
    fn seg(&self, a: usize, b: usize) -> (f64, f64, f64) {
        let w = self.w[b] - self.w[a];
        let wx = self.wx[b] - self.wx[a];
        let wxx = self.wxx[b] - self.wxx[a];
        let mean = wx / w;
        (w, mean, (wxx - wx * mean).max(0.0))
    }
}

/// Optimal partitioning: the segment starts (0 first) minimising the
/// costs plus `beta` per change, each segment at least `min` long.
fn partition(s: &Sums, n: usize, beta: f64, min: usize) -> Vec<usize> {
    let mut f = vec![f64::INFINITY; n + 1];
    let mut last = vec![0usize; n + 1];
    f[0] = -beta;
    for t in min..=n {
        for a in (0..=t - min).filter(|&a| a == 0 || a >= min) {
            if !f[a].is_finite() {
                continue;
            }
            let c = f[a] + s.seg(a, t).2 + beta;
            if c < f[t] {
                f[t] = c;
                last[t] = a;
            }
        }
    }
    let mut starts = Vec::new();
    let mut t = n;
    while t > 0 {
        starts.push(last[t]);
        t = last[t];
    }
    starts.reverse();
    if starts.is_empty() {
        starts.push(0);
    }
    starts
}

fn levels_of(s: &Sums, starts: &[usize], n: usize) -> Vec<Level> {
    starts
        .iter()
        .enumerate()
        .map(|(i, &a)| {
            let b = starts.get(i + 1).copied().unwrap_or(n);
            let (w, mean, _) = s.seg(a, b);
            Level {
                start: a,
                end: b,
                log_mean: mean,
                log_se: (1.0 / w).sqrt(),
            }
        })
        .collect()
}

/// The smallest step that counts, beyond its standard errors: in
/// logarithms (`--min-step`; an unstable series' wide noise), and in the
/// figure's own unit (three of its quanta: figures at the timer's
/// resolution move by one quantum).
#[derive(Debug, Clone, Copy)]
struct Floor {
    log: f64,
    quantum: f64,
    /// Judge with Student's t for the noise's degrees of freedom (the
    /// final fits), rather than the normal's `z` (the first, which only
    /// finds the levels to estimate the noise around).
    strict: bool,
}

/// The quantum of a series whose figures take few values (at most one
/// for every two runs: figures at the timer's resolution, 0.03 and 0.04
/// µs): the smallest positive difference between two of them. 0 for
/// figures that vary continuously.
fn quantum(obs: &[Obs]) -> f64 {
    let mut v: Vec<f64> = obs.iter().map(|o| o.value).collect();
    v.sort_by(f64::total_cmp);
    let gaps: Vec<f64> = v
        .windows(2)
        .map(|w| w[1] - w[0])
        .filter(|d| *d > 0.0)
        .collect();
    if (gaps.len() + 1) * 2 > v.len() {
        return 0.0;
    }
    gaps.into_iter()
        .fold(0.0, |q, d| if q == 0.0 { d } else { q.min(d) })
}

/// The critical value of Student's t with `dof` degrees of freedom at the
/// tail probability of the normal's `z` (Cornish–Fisher, three terms): the
/// noise is estimated from the series itself, and a short series knows it
/// roughly (10 runs in two levels: 5 becomes about 14).
fn t_critical(z: f64, dof: usize) -> f64 {
    let v = dof.max(1) as f64;
    let (z3, z5, z7) = (z.powi(3), z.powi(5), z.powi(7));
    let t = z
        + (z3 + z) / (4.0 * v)
        + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * v * v)
        + (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / (384.0 * v * v * v);
    t.min(1e3)
}

/// The steps between levels, and the index of the weakest that fails the
/// rules (`n`: the runs fitted, for the degrees of freedom).
fn judge(levels: &[Level], n: usize, rules: &Rules, floor: Floor) -> (Vec<Step>, Option<usize>) {
    let mut steps = Vec::new();
    let mut weakest: Option<(usize, f64)> = None;
    let crit = if floor.strict {
        t_critical(rules.z, n.saturating_sub(levels.len()))
    } else {
        rules.z
    };
    for (i, w) in levels.windows(2).enumerate() {
        let d = w[1].log_mean - w[0].log_mean;
        let z = d.abs() / (w[0].log_se.powi(2) + w[1].log_se.powi(2)).sqrt();
        let ratio = d.exp();
        let moved = (w[1].value() - w[0].value()).abs();
        let small = d.abs() < floor.log || moved < (3.0 * floor.quantum).max(rules.min_abs);
        let fails = z < crit || small;
        if fails && weakest.is_none_or(|(_, wz)| z < wz) {
            weakest = Some((i, z));
        }
        steps.push(Step {
            at: w[1].start,
            before: w[0],
            after: w[1],
            ratio,
            z,
        });
    }
    (steps, weakest.map(|(i, _)| i))
}

/// The fit of the logarithms `x` with run-to-run noise `noise`: the
/// outliers, and the levels and steps in the series' own indices.
fn segment(
    obs: &[Obs],
    x: &[f64],
    noise: f64,
    rules: &Rules,
    floor: Floor,
) -> (Vec<Level>, Vec<Step>, Vec<usize>) {
    let sigma = run_sigmas(obs, x, noise.max(FLOOR));
    let out = outliers(x, &sigma);
    let kept: Vec<usize> = (0..x.len()).filter(|i| !out.contains(i)).collect();
    let kx: Vec<f64> = kept.iter().map(|&i| x[i]).collect();
    let kw: Vec<f64> = kept.iter().map(|&i| 1.0 / (sigma[i] * sigma[i])).collect();
    let n = kx.len();
    let sums = Sums::new(&kx, &kw);
    let min = rules.min_segment.max(1);
    let mut starts = if n >= 2 * min {
        let beta = rules.penalty * (n as f64).ln().max(1.0);
        partition(&sums, n, beta, min)
    } else {
        vec![0]
    };
    let (steps, levels) = loop {
        let levels = levels_of(&sums, &starts, n);
        match judge(&levels, n, rules, floor) {
            (_, Some(i)) => {
                starts.remove(i + 1);
            }
            (steps, None) => break (steps, levels),
        }
    };
    // Back to the series' own indices: a level starts right after the last
    // run of the one before (an outlier between two levels is the first run
    // of the later one: where the change began).
    let at = |k: usize| {
        if k == 0 {
            0
        } else {
            kept.get(k - 1).map_or(x.len(), |i| i + 1)
        }
    };
    let map = |l: Level| Level {
        start: at(l.start),
        end: if l.end >= n { x.len() } else { at(l.end) },
        ..l
    };
    let steps = steps
        .into_iter()
        .map(|s| Step {
            at: at(s.at),
            before: map(s.before),
            after: map(s.after),
            ..s
        })
        .collect();
    (levels.into_iter().map(map).collect(), steps, out)
}

/// The spread of the runs around their levels (the outliers left out):
/// the standard deviation with one degree of freedom per level. None with
/// fewer than two runs beyond the levels.
fn residual_noise(x: &[f64], levels: &[Level], outliers: &[usize]) -> Option<f64> {
    let mut sum = 0.0;
    let mut n = 0usize;
    for l in levels {
        for (i, xi) in x.iter().enumerate().take(l.end).skip(l.start) {
            if !outliers.contains(&i) {
                sum += (xi - l.log_mean).powi(2);
                n += 1;
            }
        }
    }
    let dof = n.checked_sub(levels.len()).filter(|&d| d >= 2)?;
    Some((sum / dof as f64).sqrt())
}

/// Multiples of its run-to-run noise a step must exceed in an unstable
/// series: its noise is not the Gaussian jitter the standard errors assume
/// (a virtual machine whose figures double for a while and come back, a
/// drift), so only a step far beyond it counts.
pub const UNSTABLE_MARGIN: f64 = 14.0;

/// Finds and judges the steps of a series (in time order). A first fit,
/// with the noise of neighbouring differences, finds the levels; the
/// spread of the runs around them (the more precise estimate, and the
/// wider one where the series drifts) is the noise the series is then
/// fitted and judged with, steps against Student's t for its degrees of
/// freedom. In an unstable series a step must also exceed
/// [`UNSTABLE_MARGIN`] times that noise.
pub fn fit(obs: &[Obs], rules: &Rules) -> Fit {
    let x: Vec<f64> = obs.iter().map(|o| o.value.max(1e-300).ln()).collect();
    let mut floor = Floor {
        log: (1.0 + rules.min_step).ln(),
        quantum: quantum(obs),
        strict: false,
    };
    let first = series_noise(&x);
    let (levels, _, outliers) = segment(obs, &x, first, rules, floor);
    let spread = residual_noise(&x, &levels, &outliers).unwrap_or(first);
    floor.strict = true;
    let (mut levels, mut steps, mut outliers) = segment(obs, &x, spread, rules, floor);
    let noise = residual_noise(&x, &levels, &outliers).unwrap_or(spread);
    let noise_ratio = noise.exp() - 1.0;
    let unstable = noise_ratio > rules.max_noise;
    if unstable {
        // The margin counts in the neighbouring differences' noise where
        // that is the smaller: spells of a few runs at another level widen
        // the spread around the levels, not the differences.
        floor.log = floor.log.max(UNSTABLE_MARGIN * noise.min(first));
        (levels, steps, outliers) = segment(obs, &x, noise, rules, floor);
    }
    Fit {
        noise: noise_ratio,
        unstable,
        levels,
        steps,
        outliers,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SplitMix64 and Box–Muller: a seeded normal generator.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> f64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            ((z >> 11) as f64 + 0.5) / (1u64 << 53) as f64
        }
        fn normal(&mut self) -> f64 {
            let (u, v) = (self.next(), self.next());
            (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
        }
    }

    /// `n` runs of 10 µs with `noise` (σ of the logarithm), `step` from
    /// run `at` on; each run's CI reflects a within-run precision of a
    /// third of the noise (between-run noise dominates, as on real machines).
    fn series(seed: u64, n: usize, noise: f64, step: f64, at: usize) -> Vec<Obs> {
        let mut r = Rng(seed);
        (0..n)
            .map(|i| {
                let level = if i >= at { 10.0 * (1.0 + step) } else { 10.0 };
                let v = level * (noise * r.normal()).exp();
                let h = 1.96 * noise / 3.0 * (0.5 + r.next());
                Obs {
                    value: v,
                    ci: Some((v * (-h).exp(), v * h.exp())),
                }
            })
            .collect()
    }

    #[test]
    fn a_ten_percent_step_in_three_percent_noise_is_found_where_it_is() {
        let mut found = Vec::new();
        for seed in 0..100 {
            let f = fit(&series(seed, 40, 0.03, 0.10, 20), &Rules::default());
            assert_eq!(f.steps.len(), 1, "seed {seed}: {:?}", f.steps);
            let s = f.steps[0];
            assert!((s.ratio - 1.10).abs() < 0.04, "seed {seed}: {}", s.ratio);
            assert!(!f.unstable, "seed {seed}: noise {}", f.noise);
            found.push(s.at);
        }
        // Where the step is (the maximum-likelihood estimate) is off by two
        // or three when the runs beside it fall against it: a step of 3.3
        // σ leaves that to chance in a few series of a hundred.
        let within = found.iter().filter(|&&a| (19..=21).contains(&a)).count();
        let exact = found.iter().filter(|&&a| a == 20).count();
        eprintln!("10% step at run 20 in 3% noise: at 20 in {exact}, at 20 ± 1 in {within} of 100 seeds; {found:?}");
        assert!(within >= 95, "at run 20 ± 1 in {within} of 100: {found:?}");
        assert!(found.iter().all(|a| (17..=23).contains(a)), "{found:?}");
        assert!(exact >= 75, "at run 20 exactly in {exact} of 100");
        // Without CIs (loop timing) the same.
        let mut bare = series(7, 40, 0.03, 0.10, 20);
        for o in &mut bare {
            o.ci = None;
        }
        let f = fit(&bare, &Rules::default());
        assert_eq!(f.steps.len(), 1, "{:?}", f.steps);
        assert!((19..=21).contains(&f.steps[0].at), "{:?}", f.steps);
    }

    /// False alarms over 100 seeds of 40 stationary runs, at several noise
    /// levels; with `min_step` 0 the statistics alone decide.
    fn false_alarms(noise: f64, rules: &Rules) -> usize {
        (0..100)
            .filter(|&seed| {
                !fit(&series(1000 + seed, 40, noise, 0.0, 40), rules)
                    .steps
                    .is_empty()
            })
            .count()
    }

    #[test]
    fn stationary_series_raise_few_false_alarms() {
        for noise in [0.005, 0.03] {
            let n = false_alarms(noise, &Rules::default());
            let bare = Rules {
                min_step: 0.0,
                ..Rules::default()
            };
            let m = false_alarms(noise, &bare);
            eprintln!(
                "noise {noise}: {n} false alarms in 100 seeds ({m} without the --min-step floor)"
            );
            assert!(n <= 5, "noise {noise}: {n} false alarms in 100");
            assert!(m <= 5, "noise {noise}, no floor: {m} false alarms in 100");
        }
    }

    #[test]
    fn a_small_step_in_wide_noise_is_unstable_not_a_change() {
        for seed in 0..20 {
            let f = fit(&series(seed, 40, 0.10, 0.02, 20), &Rules::default());
            assert!(f.unstable, "seed {seed}: noise {}", f.noise);
            assert!(f.steps.is_empty(), "seed {seed}: {:?}", f.steps);
        }
    }

    #[test]
    fn each_run_weighs_by_its_own_ci() {
        // Four runs 30% slower in 1% noise: with CIs as narrow as the
        // others' they are a step up and back; with CIs of ±40% (runs that
        // say themselves they are unsure) they are not.
        let mut s = series(3, 30, 0.01, 0.0, 30);
        for o in &mut s[12..16] {
            o.value *= 1.3;
        }
        let f = fit(&s, &Rules::default());
        assert_eq!(f.steps.iter().map(|s| s.at).collect::<Vec<_>>(), [12, 16]);
        for o in &mut s[12..16] {
            o.ci = Some((o.value / 1.5, o.value * 1.5));
        }
        let f = fit(&s, &Rules::default());
        assert!(f.steps.is_empty(), "{:?}", f.steps);
    }

    #[test]
    fn a_stray_run_is_an_outlier_not_a_step() {
        let mut s = series(5, 20, 0.02, 0.0, 20);
        s[9].value *= 3.0;
        let f = fit(&s, &Rules::default());
        assert_eq!(f.outliers, [9]);
        assert!(f.steps.is_empty());
        // A new level in the last two runs is a step, not two strays.
        let s = series(5, 20, 0.02, 0.5, 18);
        let f = fit(&s, &Rules::default());
        assert_eq!(f.steps.iter().map(|s| s.at).collect::<Vec<_>>(), [18]);
        assert!(f.outliers.is_empty());
    }

    #[test]
    fn an_unstable_series_keeps_only_steps_far_beyond_its_noise() {
        // 10% noise: a doubling for a while (a virtual machine's slow
        // spell) is no change; a step to 40 times (a library that falls
        // back to TCP) is.
        let mut s = series(21, 20, 0.10, 0.0, 20);
        for o in &mut s[6..14] {
            o.value *= 2.0;
        }
        let f = fit(&s, &Rules::default());
        assert!(f.unstable, "noise {}", f.noise);
        assert!(f.steps.is_empty(), "{:?}", f.steps);
        let s = series(21, 10, 0.10, 39.0, 5);
        let f = fit(&s, &Rules::default());
        assert!(f.unstable);
        assert_eq!(f.steps.iter().map(|s| s.at).collect::<Vec<_>>(), [5]);
    }

    #[test]
    fn figures_at_the_timers_resolution_move_by_quanta() {
        // 0.03 and 0.04 µs alternate in stretches: one quantum, no step.
        let v = [3, 3, 3, 3, 4, 4, 4, 4, 4, 3, 3, 3, 3, 3, 4, 4, 4, 4, 3, 3];
        let s: Vec<Obs> = v
            .iter()
            .map(|&q| Obs {
                value: q as f64 / 100.0,
                ci: None,
            })
            .collect();
        assert!((quantum(&s) - 0.01).abs() < 1e-12);
        assert!(fit(&s, &Rules::default()).steps.is_empty());
        assert_eq!(quantum(&series(1, 10, 0.01, 0.0, 10)), 0.0);
    }

    #[test]
    fn a_short_series_needs_a_wider_margin() {
        assert!((t_critical(5.0, 1000) - 5.0).abs() < 0.05);
        let ten = t_critical(5.0, 8);
        assert!((10.0..20.0).contains(&ten), "{ten}");
        assert!(t_critical(5.0, 38) < 6.5);
    }

    #[test]
    fn a_stray_first_run_at_the_new_level_is_where_the_change_began() {
        // The first run at the new level strays beyond it (a cold start).
        let mut s = series(4, 10, 0.02, 20.0, 5);
        s[5].value *= 3.0;
        let f = fit(&s, &Rules::default());
        assert_eq!(f.outliers, [5]);
        assert_eq!(f.steps.iter().map(|s| s.at).collect::<Vec<_>>(), [5]);
        assert_eq!((f.levels[1].start, f.levels[1].end), (5, 10));
    }

    #[test]
    fn levels_cover_the_series_and_have_cis() {
        let s = series(11, 10, 0.02, 1.0, 5);
        let f = fit(&s, &Rules::default());
        assert_eq!(f.levels.len(), 2);
        assert_eq!((f.levels[0].start, f.levels[0].end), (0, 5));
        assert_eq!((f.levels[1].start, f.levels[1].end), (5, 10));
        let (lo, hi) = f.levels[1].ci();
        assert!(lo < f.levels[1].value() && f.levels[1].value() < hi);
        assert!((f.steps[0].ratio - 2.0).abs() < 0.1);
    }
}
