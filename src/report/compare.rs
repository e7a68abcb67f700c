//! `mpibench compare A.json B.json`: rows matched by (suite, benchmark,
//! processes, mode, bytes, params), the ratio B/A of their medians (t_avg
//! with loop timing) and a verdict.
//!
//! A difference is significant
//! - with samples (`samples_us` on both rows): two-sided Mann–Whitney U test,
//!   p < alpha (default 0.05);
//! - without samples but with per-call CIs: the two 95% CIs of the median
//!   do not overlap.
//!
//! A significant difference is "faster" or "slower" when B/A lies beyond the
//! noise threshold (the larger of `--noise` and 3 σ of the launch-to-launch
//! noise), else "faster/slower (within launch noise)": real within one
//! launch, but no larger than two launches of one configuration differ.
//!
//! When both runs have launches (`--launches N`), a row's launch medians
//! are its replicates: two-sided Mann–Whitney U over them, whatever the
//! timing (the basis "launches").
//!
//! Rows with one figure per rank (loop timing) or neither samples nor CIs
//! have nothing to test: they are judged by B/A alone against the same
//! threshold, "slower/faster (by ratio, no significance test)". Rows without
//! a positive figure on both sides, or below the clock's resolution, are
//! "not judged".
//!
//! `--fail-if-slower PCT` ([`gate`]) fails (exit 1) on every row slower by
//! more than PCT percent: significantly slower (either verdict), or by ratio
//! where there is no test. It judges nothing (exit 7) when a run is
//! incomplete, a run has no row, the runs share no row or no shared row
//! could be judged.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;
use serde_json::Value;

use super::view::{self, chosen_params, headline, loop_timed, num, params_label};
use crate::results::{BenchResult, Report, Row};
use crate::stats_test::mann_whitney;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Verdict {
    #[serde(rename = "faster")]
    Faster,
    #[serde(rename = "slower")]
    Slower,
    /// Significant, but B/A within the launch-noise threshold.
    #[serde(rename = "faster (within launch noise)")]
    FasterWithinNoise,
    #[serde(rename = "slower (within launch noise)")]
    SlowerWithinNoise,
    #[serde(rename = "no significant difference")]
    NoDifference,
    /// No significance test (loop timing, or neither samples nor CIs):
    /// judged by B/A against the threshold alone.
    #[serde(rename = "slower (by ratio, no significance test)")]
    SlowerByRatio,
    #[serde(rename = "faster (by ratio, no significance test)")]
    FasterByRatio,
    #[serde(rename = "within noise (by ratio, no significance test)")]
    WithinNoiseByRatio,
    /// No figure to compare on one side (no valid sample, not positive) or
    /// below the clock's resolution.
    #[serde(rename = "not judged")]
    NotJudged,
}

impl Verdict {
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::FasterWithinNoise => "faster (within launch noise)",
            Verdict::SlowerWithinNoise => "slower (within launch noise)",
            Verdict::NoDifference => "no significant difference",
            Verdict::SlowerByRatio => "slower (by ratio, no significance test)",
            Verdict::FasterByRatio => "faster (by ratio, no significance test)",
            Verdict::WithinNoiseByRatio => "within noise (by ratio, no significance test)",
            Verdict::NotJudged => "not judged",
        }
    }
}

/// Which evidence a verdict rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Basis {
    MannWhitneyU,
    /// Mann–Whitney U over the launch medians (`--launches` on both sides):
    /// launches are the unit of replication.
    Launches,
    CiOverlap,
    /// B/A alone: nothing to test.
    Ratio,
    None,
}

#[derive(Debug, Clone, Serialize)]
pub struct RunInfo {
    pub file: String,
    pub library: String,
    pub hosts: Vec<String>,
    pub world_size: usize,
    pub timing: String,
    pub started: String,
    pub complete: bool,
    /// The run's own status ("ok", "running", "aborted", ...), when it has one.
    pub status: Option<String>,
    /// Rows worth comparing (the clock tools and skipped results left out).
    pub rows: usize,
}

/// The identity of a row across runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Key {
    pub suite: String,
    pub benchmark: String,
    pub processes: usize,
    pub mode: String,
    pub bytes: usize,
    /// Chosen parameters (measured ones such as t_calc_achieved_us are left out).
    pub params: BTreeMap<String, Value>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RowComparison {
    #[serde(flatten)]
    pub key: Key,
    /// "median" or "t_avg" (loop timing).
    pub statistic: String,
    /// The compared values; null when a row had no valid sample.
    pub a_us: Option<f64>,
    pub b_us: Option<f64>,
    /// B/A; null when A is 0.
    pub ratio: Option<f64>,
    pub verdict: Verdict,
    pub basis: Basis,
    /// Mann–Whitney U p-value (two-sided), when samples were tested.
    pub p_value: Option<f64>,
    pub n_a: Option<usize>,
    pub n_b: Option<usize>,
    /// Why the verdict is what it is, in words.
    pub reason: String,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    pub faster: usize,
    pub slower: usize,
    /// Significant, but within the launch-noise threshold.
    pub faster_within_noise: usize,
    pub slower_within_noise: usize,
    pub no_significant_difference: usize,
    /// Rows judged by B/A alone (no significance test), of which ...
    pub ratio_only: usize,
    /// ... beyond the threshold either way.
    pub slower_by_ratio: usize,
    pub faster_by_ratio: usize,
    /// Rows in both runs without a figure to compare.
    pub not_judged: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub a: RunInfo,
    pub b: RunInfo,
    pub different_library: bool,
    pub different_hosts: bool,
    /// The fields in which the two runs' contexts differ (`Context::differences`);
    /// empty when they agree or one run has no context.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub context_differences: Vec<String>,
    /// The runs whose ranks shared cores ("A", "B"): every verdict rests on
    /// time-sliced figures there.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shared_cores: Vec<String>,
    pub test: String,
    pub alpha: f64,
    pub noise_pct: f64,
    /// The estimated launch-to-launch noise of B/A (σ, percent).
    pub launch_noise_pct: f64,
    /// Significant differences count beyond ±this percentage.
    pub threshold_pct: f64,
    pub rows: Vec<RowComparison>,
    pub only_in_a: Vec<Key>,
    pub only_in_b: Vec<Key>,
    pub summary: Summary,
    /// Median of B/A over all compared rows.
    pub median_ratio: Option<f64>,
    /// `--fail-if-slower`: what the gate decided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gate: Option<Gate>,
}

#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Significance level of the test.
    pub alpha: f64,
    /// Differences within ±noise_pct % are never called faster or slower.
    pub noise_pct: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            alpha: 0.05,
            noise_pct: 5.0,
        }
    }
}

fn info(file: &str, r: &Report, rows: usize) -> RunInfo {
    RunInfo {
        file: file.to_string(),
        library: view::library_name(&r.mpi.library),
        hosts: r.hosts.clone(),
        world_size: r.world_size,
        timing: r.settings.timing.clone(),
        started: r.started.clone(),
        complete: r.complete,
        status: r.status.clone(),
        rows,
    }
}

impl Key {
    /// A canonical text of the key (numbers compared by value: 1 = 1.0).
    pub(crate) fn canon(&self) -> String {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|(k, v)| match v.as_f64() {
                Some(x) => format!("{k}={x}"),
                None => format!("{k}={v}"),
            })
            .collect();
        format!(
            "{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}",
            self.suite,
            self.benchmark,
            self.processes,
            self.mode,
            self.bytes,
            params.join("\u{1e}")
        )
    }
}

fn key(res: &BenchResult, row: &Row) -> Key {
    Key {
        suite: res.suite.clone(),
        benchmark: res.benchmark.clone(),
        processes: res.processes,
        mode: res.mode.clone(),
        bytes: row.bytes,
        params: chosen_params(res, row),
    }
}

/// Every row worth comparing with its key, in file order: not the clock
/// tools, skipped results or per-rank rows. A key may appear twice.
pub(crate) fn keyed_rows(r: &Report) -> Vec<(Key, &BenchResult, &Row)> {
    let mut v = Vec::new();
    for res in &r.results {
        if res.measures_instruments() || res.skipped.is_some() {
            continue;
        }
        for row in res.rows.iter().filter(|row| row.rank.is_none()) {
            v.push((key(res, row), res, row));
        }
    }
    v
}

/// Rows worth comparing: the first occurrence of each key.
fn rows_of(r: &Report) -> Vec<(Key, &BenchResult, &Row)> {
    let mut seen = std::collections::BTreeSet::new();
    keyed_rows(r)
        .into_iter()
        .filter(|(k, _, _)| seen.insert(k.canon()))
        .collect()
}

fn samples(row: &Row) -> Option<&[f64]> {
    row.samples_us
        .as_deref()
        .filter(|s| s.iter().filter(|v| v.is_finite()).count() >= 2)
}

/// The launch medians of a combined row (`--launches`), at least two.
fn launch_medians(row: &Row) -> Option<Vec<f64>> {
    let m: Vec<f64> = row
        .launch_medians_us
        .as_deref()?
        .iter()
        .copied()
        .filter(|v| v.is_finite())
        .collect();
    (m.len() >= 2).then_some(m)
}

fn ci(row: &Row) -> Option<(f64, f64)> {
    match (row.ci95_lo_us, row.ci95_hi_us) {
        (Some(lo), Some(hi)) if lo.is_finite() && hi.is_finite() => Some((lo, hi)),
        _ => None,
    }
}

/// Robust spread (σ) of the launch-to-launch noise in log(B/A): from the
/// changes of log ratio between neighbouring rows of one result (adjacent
/// message sizes or parameters), 1.4826 · MAD / √2. Real differences
/// between libraries or machines change smoothly with the message size and
/// barely move it; independent per-row noise does. 0 with fewer than 6 pairs.
pub fn launch_noise(rows: &[(usize, &RowComparison)]) -> f64 {
    let mut d = Vec::new();
    for w in rows.windows(2) {
        let ((g0, r0), (g1, r1)) = (w[0], w[1]);
        if g0 != g1 {
            continue;
        }
        if let (Some(x), Some(y)) = (r0.ratio, r1.ratio) {
            if x > 0.0 && y > 0.0 {
                d.push(y.ln() - x.ln());
            }
        }
    }
    if d.len() < 6 {
        return 0.0;
    }
    d.sort_by(f64::total_cmp);
    crate::stats::mad(&d).max(0.0) * 1.4826 / std::f64::consts::SQRT_2
}

/// Compares run B against run A.
pub fn compare(a: (&str, &Report), b: (&str, &Report), opt: Options) -> Comparison {
    let rows_a = rows_of(a.1);
    let rows_b = rows_of(b.1);
    let index_b: BTreeMap<String, (&BenchResult, &Row)> = rows_b
        .iter()
        .map(|(k, r, w)| (k.canon(), (*r, *w)))
        .collect();
    let keys_a: std::collections::BTreeSet<String> =
        rows_a.iter().map(|(k, _, _)| k.canon()).collect();
    // First the evidence of every row, then the verdicts against the noise.
    let mut pending: Vec<(usize, RowComparison, Judgement)> = Vec::new();
    let mut only_in_a = Vec::new();
    for (k, ra, wa) in &rows_a {
        let Some(&(rb, wb)) = index_b.get(&k.canon()) else {
            only_in_a.push(k.clone());
            continue;
        };
        let group =
            a.1.results
                .iter()
                .position(|r| std::ptr::eq(r, *ra))
                .unwrap_or(usize::MAX);
        let (c, j) = compare_row(k, (a.1, ra, wa), (b.1, rb, wb), opt);
        pending.push((group, c, j));
    }
    let sigma = launch_noise(&pending.iter().map(|(g, c, _)| (*g, c)).collect::<Vec<_>>());
    let threshold = (1.0 + opt.noise_pct / 100.0).ln().max(LAUNCH_Z * sigma);
    let mut rows = Vec::new();
    let mut summary = Summary::default();
    for (_, mut c, j) in pending {
        match j {
            Judgement::Test(sig, dir) => decide(&mut c, sig, dir, threshold),
            Judgement::Ratio => decide_by_ratio(&mut c, threshold),
            Judgement::None => {}
        }
        match c.verdict {
            Verdict::Faster => summary.faster += 1,
            Verdict::Slower => summary.slower += 1,
            Verdict::FasterWithinNoise => summary.faster_within_noise += 1,
            Verdict::SlowerWithinNoise => summary.slower_within_noise += 1,
            Verdict::NoDifference => summary.no_significant_difference += 1,
            Verdict::SlowerByRatio => summary.slower_by_ratio += 1,
            Verdict::FasterByRatio => summary.faster_by_ratio += 1,
            Verdict::WithinNoiseByRatio => {}
            Verdict::NotJudged => summary.not_judged += 1,
        }
        if c.basis == Basis::Ratio {
            summary.ratio_only += 1;
        }
        rows.push(c);
    }
    let only_in_b = rows_b
        .iter()
        .filter(|(k, _, _)| !keys_a.contains(&k.canon()))
        .map(|(k, _, _)| k.clone())
        .collect();
    let threshold_pct = (threshold.exp() - 1.0) * 100.0;
    let mut ratios: Vec<f64> = rows.iter().filter_map(|r| r.ratio).collect();
    ratios.sort_by(f64::total_cmp);
    let median_ratio = (!ratios.is_empty()).then(|| crate::stats::percentile(&ratios, 50.0));
    Comparison {
        a: info(a.0, a.1, rows_a.len()),
        b: info(b.0, b.1, rows_b.len()),
        different_library: a.1.mpi.library != b.1.mpi.library,
        different_hosts: a.1.hosts != b.1.hosts,
        context_differences: match (&a.1.context, &b.1.context) {
            (Some(x), Some(y)) => x.differences(y),
            _ => Vec::new(),
        },
        shared_cores: [("A", a.1), ("B", b.1)]
            .into_iter()
            .filter(|(_, r)| r.context.as_ref().is_some_and(|c| c.oversubscribed))
            .map(|(t, _)| t.to_string())
            .collect(),
        test: format!(
            "two-sided Mann-Whitney U on per-repetition samples (p < {}), else non-overlapping 95% CIs of the medians; a significant difference is faster or slower when B/A is beyond ±{threshold_pct:.1}% (the larger of --noise {}% and {LAUNCH_Z} x the launch noise {:.1}%), else faster or slower \"within launch noise\"{}",
            opt.alpha,
            opt.noise_pct,
            (sigma.exp() - 1.0) * 100.0,
            if summary.ratio_only > 0 {
                "; rows with nothing to test (loop timing: one figure per rank) are judged by B/A against the same threshold (by ratio, no significance test)"
            } else {
                ""
            }
        ),
        alpha: opt.alpha,
        noise_pct: opt.noise_pct,
        launch_noise_pct: (sigma.exp() - 1.0) * 100.0,
        threshold_pct,
        rows,
        only_in_a,
        only_in_b,
        summary,
        median_ratio,
        gate: None,
    }
}

/// What a row's verdict rests on: a test (significant or not, and its
/// direction, +1: B slower), the ratio alone, or nothing.
enum Judgement {
    Test(bool, i32),
    Ratio,
    None,
}

/// Multiples of the launch noise σ a ratio must exceed.
const LAUNCH_Z: f64 = 3.0;

fn decide(c: &mut RowComparison, sig: bool, dir: i32, threshold: f64) {
    let Some(r) = c.ratio else {
        c.verdict = Verdict::NotJudged;
        c.reason = "A is 0: no ratio".into();
        return;
    };
    let pct = (threshold.exp() - 1.0) * 100.0;
    let within = format!("significant, but within the ±{pct:.1}% launch-noise threshold");
    let (verdict, reason) = if !sig {
        (Verdict::NoDifference, "not significant".to_string())
    } else if dir > 0 && r > 1.0 {
        if r.ln() > threshold {
            (Verdict::Slower, "significant".to_string())
        } else {
            (Verdict::SlowerWithinNoise, within)
        }
    } else if dir < 0 && r < 1.0 {
        if -r.ln() > threshold {
            (Verdict::Faster, "significant".to_string())
        } else {
            (Verdict::FasterWithinNoise, within)
        }
    } else {
        (
            Verdict::NoDifference,
            "the test and the ratio of the medians point in opposite directions".to_string(),
        )
    };
    c.verdict = verdict;
    c.reason = reason;
}

/// A row with nothing to test: B/A against the noise threshold alone.
fn decide_by_ratio(c: &mut RowComparison, threshold: f64) {
    let Some(r) = c.ratio else {
        c.verdict = Verdict::NotJudged;
        c.basis = Basis::None;
        return;
    };
    c.verdict = if r.ln() > threshold {
        Verdict::SlowerByRatio
    } else if -r.ln() > threshold {
        Verdict::FasterByRatio
    } else {
        Verdict::WithinNoiseByRatio
    };
}

/// The row's figures and ratio, with what its verdict will rest on.
fn compare_row(
    k: &Key,
    (rep_a, res_a, a): (&Report, &BenchResult, &Row),
    (rep_b, res_b, b): (&Report, &BenchResult, &Row),
    opt: Options,
) -> (RowComparison, Judgement) {
    let (lt_a, lt_b) = (loop_timed(rep_a, res_a), loop_timed(rep_b, res_b));
    let va = headline(lt_a, a);
    let vb = headline(lt_b, b);
    let statistic = match (lt_a, lt_b) {
        (true, true) => "t_avg",
        (false, false) => "median",
        _ => "median (A or B: t_avg)",
    };
    let ratio = match (va, vb) {
        // Two finite times always have a ratio: one that overflows is the
        // largest there is, not "no finite ratio".
        (Some(x), Some(y)) if x > 0.0 && y >= 0.0 && x.is_finite() && y.is_finite() => {
            Some((y / x).min(f64::MAX))
        }
        _ => None,
    };
    let mut c = RowComparison {
        key: k.clone(),
        statistic: statistic.into(),
        a_us: va,
        b_us: vb,
        ratio,
        verdict: Verdict::NotJudged,
        basis: Basis::None,
        p_value: None,
        n_a: None,
        n_b: None,
        reason: String::new(),
    };
    let not_judged = |mut c: RowComparison, why: String| {
        c.reason = format!("not judged: {why}");
        (c, Judgement::None)
    };
    match (va, vb) {
        (None, _) => return not_judged(c, "no valid sample in A".into()),
        (_, None) => return not_judged(c, "no valid sample in B".into()),
        (Some(x), Some(y)) if x <= 0.0 || y < 0.0 => {
            let side = if x <= 0.0 { ("A", x) } else { ("B", y) };
            return not_judged(c, format!("{} is {}", side.0, num(side.1)));
        }
        _ => {}
    }
    if a.below_resolution == Some(true) || b.below_resolution == Some(true) {
        return not_judged(c, "below the clock's resolution".into());
    }
    if c.ratio.is_none() {
        return not_judged(c, "no finite ratio".into());
    }
    // Both runs have launches: their medians are the replicates, whatever
    // the timing (one launch's samples overstate the precision).
    if let (Some(ma), Some(mb)) = (launch_medians(a), launch_medians(b)) {
        if let Some(mw) = mann_whitney(&mb, &ma) {
            c.basis = Basis::Launches;
            c.p_value = Some(mw.p);
            c.n_a = Some(ma.len());
            c.n_b = Some(mb.len());
            let mean = ma.len() as f64 * mb.len() as f64 / 2.0;
            return (
                c,
                Judgement::Test(mw.p < opt.alpha, if mw.u > mean { 1 } else { -1 }),
            );
        }
    }
    if lt_a || lt_b {
        c.basis = Basis::Ratio;
        c.reason = "by ratio, no significance test: loop timing has one figure per rank".into();
        return (c, Judgement::Ratio);
    }
    // Significant, and in which direction (+1: B slower).
    if let (Some(sa), Some(sb)) = (samples(a), samples(b)) {
        if let Some(mw) = mann_whitney(sb, sa) {
            c.basis = Basis::MannWhitneyU;
            c.p_value = Some(mw.p);
            c.n_a = Some(sa.len());
            c.n_b = Some(sb.len());
            let mean = sa.len() as f64 * sb.len() as f64 / 2.0;
            return (
                c,
                Judgement::Test(mw.p < opt.alpha, if mw.u > mean { 1 } else { -1 }),
            );
        }
    }
    if let (Some((la, ha)), Some((lb, hb))) = (ci(a), ci(b)) {
        c.basis = Basis::CiOverlap;
        let j = if lb > ha {
            Judgement::Test(true, 1)
        } else if hb < la {
            Judgement::Test(true, -1)
        } else {
            Judgement::Test(false, 0)
        };
        return (c, j);
    }
    c.basis = Basis::Ratio;
    c.reason =
        "by ratio, no significance test: neither samples nor confidence intervals on both rows"
            .into();
    (c, Judgement::Ratio)
}

/// The rows that fail `--fail-if-slower PCT`: B/A > 1 + PCT/100 and
/// significantly slower (verdict "slower" or "slower (within launch
/// noise)"), or, with nothing to test, by ratio alone (whatever the
/// noise threshold says).
pub fn slower_than(c: &Comparison, pct: f64) -> Vec<&RowComparison> {
    c.rows
        .iter()
        .filter(|r| {
            let judged_slower = match r.basis {
                Basis::Ratio => true,
                Basis::MannWhitneyU | Basis::Launches | Basis::CiOverlap => {
                    matches!(r.verdict, Verdict::Slower | Verdict::SlowerWithinNoise)
                }
                Basis::None => false,
            };
            judged_slower && r.ratio.is_some_and(|x| x > 1.0 + pct / 100.0)
        })
        .collect()
}

/// How `--fail-if-slower` ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GateOutcome {
    /// Rows were judged and none is slower by more than PCT.
    Passed,
    /// Exit code 1.
    Slower,
    /// Exit code 7: nothing to judge.
    NothingJudged,
}

/// The decision of `--fail-if-slower PCT`, as the JSON and the exit code tell it.
#[derive(Debug, Clone, Serialize)]
pub struct Gate {
    pub fail_if_slower_pct: f64,
    pub outcome: GateOutcome,
    pub exit_code: i32,
    /// Rows judged (by a test or by ratio) and, of them, failing the gate.
    pub judged: usize,
    pub failed: usize,
    /// The one line on stderr (without its "error: " prefix when nothing was judged).
    pub message: String,
}

/// Exit code of a gate that failed: a row slower by more than PCT.
pub const EXIT_SLOWER: i32 = 1;
/// Exit code of a gate with nothing to judge.
pub const EXIT_NOTHING_JUDGED: i32 = crate::outcome::EXIT_NOTHING_JUDGED;

/// Why a run cannot be gated on, if it cannot: not finished, or no row.
fn unfit(tag: &str, r: &RunInfo) -> Option<String> {
    let status = r.status.as_deref();
    let finished = r.complete && matches!(status, None | Some("ok" | "validation_errors"));
    if !finished {
        return Some(format!(
            "{tag} '{}' is incomplete (status \"{}\")",
            r.file,
            status.unwrap_or("none, complete: false")
        ));
    }
    (r.rows == 0).then(|| format!("{tag} '{}' has no result rows", r.file))
}

/// Why a comparison judged nothing, if it did not: a run incomplete or
/// empty, no row in common, or no row in common with figures to compare.
pub fn nothing_judged(c: &Comparison) -> Option<String> {
    let why: Vec<String> = [unfit("A", &c.a), unfit("B", &c.b)]
        .into_iter()
        .flatten()
        .collect();
    if !why.is_empty() {
        return Some(why.join("; "));
    }
    if c.rows.is_empty() {
        return Some(format!(
            "A '{}' and B '{}' share no row ({} rows only in A, {} only in B)",
            c.a.file,
            c.b.file,
            c.only_in_a.len(),
            c.only_in_b.len()
        ));
    }
    if c.rows.iter().all(|r| r.verdict == Verdict::NotJudged) {
        return Some(format!(
            "none of the {} rows in common has figures to compare (first: {}: {})",
            c.rows.len(),
            key_text(&c.rows[0].key),
            c.rows[0].reason
        ));
    }
    None
}

/// `--fail-if-slower PCT`: rows slower by more than PCT fail it (exit 1);
/// a comparison that judged nothing fails it too (exit 7), whatever its rows.
pub fn gate(c: &Comparison, pct: f64) -> Gate {
    let judged = c
        .rows
        .iter()
        .filter(|r| r.verdict != Verdict::NotJudged)
        .count();
    let mut g = Gate {
        fail_if_slower_pct: pct,
        outcome: GateOutcome::Passed,
        exit_code: 0,
        judged,
        failed: 0,
        message: String::new(),
    };
    if let Some(why) = nothing_judged(c) {
        g.outcome = GateOutcome::NothingJudged;
        g.exit_code = EXIT_NOTHING_JUDGED;
        g.message = format!("--fail-if-slower judged nothing: {why}");
        return g;
    }
    let slow = slower_than(c, pct);
    g.failed = slow.len();
    let not_judged = c.rows.len() - judged + c.only_in_a.len() + c.only_in_b.len();
    if slow.is_empty() {
        if not_judged > 0 {
            g.message = format!(
                "mpibench: --fail-if-slower {pct} passed on {judged} rows; not judged: {} only in A, {} only in B, {} without figures to compare",
                c.only_in_a.len(),
                c.only_in_b.len(),
                c.rows.len() - judged
            );
        }
        return g;
    }
    g.outcome = GateOutcome::Slower;
    g.exit_code = EXIT_SLOWER;
    let by_ratio = slow.iter().filter(|r| r.basis == Basis::Ratio).count();
    let noisy = slow
        .iter()
        .filter(|r| r.verdict == Verdict::SlowerWithinNoise)
        .count();
    g.message = format!(
        "mpibench: {} rows are slower by more than {pct}% (--fail-if-slower): {} significantly, {by_ratio} by ratio (no significance test){}",
        slow.len(),
        slow.len() - by_ratio,
        if noisy > 0 {
            format!(
                "; {noisy} significantly slower within the launch noise (±{:.1}%): repeat both runs, or gate above that",
                c.threshold_pct
            )
        } else {
            String::new()
        }
    );
    g
}

/// A row's name in the table: benchmark, processes, mode (unless
/// primary), size and parameters.
fn row_name(k: &Key) -> String {
    let mut n = format!("{} P={}", k.benchmark, k.processes);
    if k.mode != "primary" {
        let _ = write!(n, " {}", k.mode);
    }
    if k.bytes > 0 || k.params.is_empty() {
        let _ = write!(n, " {}", view::size_label(k.bytes));
    }
    if !k.params.is_empty() {
        let _ = write!(n, " {}", params_label(&k.params, &[]));
    }
    n
}

/// A row's name with its suite, for the lists and messages.
pub(crate) fn key_text(k: &Key) -> String {
    format!("{} {}", k.suite, row_name(k))
}

fn run_line(tag: &str, r: &RunInfo) -> String {
    format!(
        "{tag}: {}  {} @ {} ({} ranks), {} timing, {}{}",
        r.file,
        r.library,
        r.hosts.join(", "),
        r.world_size,
        r.timing,
        r.started,
        if r.complete { "" } else { ", INCOMPLETE run" }
    )
}

/// The two runs' lines and the notes and warnings about what differs between them.
fn head_lines(c: &Comparison) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}", run_line("A", &c.a));
    let _ = writeln!(s, "{}", run_line("B", &c.b));
    if c.different_library {
        let _ = writeln!(
            s,
            "note: different MPI libraries ({} / {}): the ratios compare the libraries",
            c.a.library, c.b.library
        );
    }
    if c.different_hosts {
        let _ = writeln!(
            s,
            "note: different hosts ({} / {}): the ratios include the machines",
            c.a.hosts.join(","),
            c.b.hosts.join(",")
        );
    }
    if !c.context_differences.is_empty() {
        let _ = writeln!(
            s,
            "warning: the runs' contexts differ in {}: the ratios include the difference",
            c.context_differences.join("; ")
        );
    }
    if !c.shared_cores.is_empty() {
        let _ = writeln!(
            s,
            "warning: ranks shared cores in {}: every verdict below rests on time-sliced figures",
            c.shared_cores.join(" and ")
        );
    }
    s
}

/// The comparison as text for a terminal.
pub fn text(c: &Comparison) -> String {
    let mut s = head_lines(c);
    let _ = writeln!(s, "test: {}", c.test);
    let _ = writeln!(s);
    let names: Vec<String> = c.rows.iter().map(|r| row_name(&r.key)).collect();
    let w = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let wv = c
        .rows
        .iter()
        .map(|r| r.verdict.text().len())
        .max()
        .unwrap_or(0)
        .max(28);
    let _ = writeln!(
        s,
        "{:<w$}  {:>10}  {:>10}  {:>6}  {:<wv$}  evidence",
        "row", "A [us]", "B [us]", "B/A", "verdict"
    );
    for (r, n) in c.rows.iter().zip(&names) {
        let evidence = match r.basis {
            Basis::MannWhitneyU => format!(
                "Mann-Whitney U p={} (n={}/{})",
                fmt_p(r.p_value.unwrap_or(1.0)),
                r.n_a.unwrap_or(0),
                r.n_b.unwrap_or(0)
            ),
            Basis::Launches => format!(
                "Mann-Whitney U over launch medians p={} (n={}/{})",
                fmt_p(r.p_value.unwrap_or(1.0)),
                r.n_a.unwrap_or(0),
                r.n_b.unwrap_or(0)
            ),
            Basis::CiOverlap => "95% CIs".to_string(),
            Basis::Ratio | Basis::None => r.reason.clone(),
        };
        let _ = writeln!(
            s,
            "{n:<w$}  {:>10}  {:>10}  {:>6}  {:<wv$}  {evidence}",
            r.a_us.map_or("-".to_string(), num),
            r.b_us.map_or("-".to_string(), num),
            r.ratio.map_or("-".to_string(), |x| format!("{x:.3}")),
            r.verdict.text(),
        );
    }
    for (tag, keys) in [("A", &c.only_in_a), ("B", &c.only_in_b)] {
        if !keys.is_empty() {
            let _ = writeln!(s, "\nonly in {tag} ({} rows):", keys.len());
            for k in keys {
                let _ = writeln!(s, "  {}", key_text(k));
            }
        }
    }
    let m = &c.summary;
    let decided = m.faster
        + m.slower
        + m.faster_within_noise
        + m.slower_within_noise
        + m.no_significant_difference;
    let one_way = m.slower.max(m.faster);
    if decided >= 8 && one_way * 10 >= decided * 8 {
        let _ =
            writeln!(
            s,
            "\nnote: B is {} on {one_way} of {decided} tested rows (median ratio {:.3}): a change that moves every row alike can be the machine (load, clock frequency, placement) as well as the library; repeat both runs to tell them apart.",
            if m.slower >= m.faster { "slower" } else { "faster" },
            c.median_ratio.unwrap_or(f64::NAN)
        );
    }
    let _ = writeln!(
        s,
        "\n{} rows compared: {} faster, {} slower, {} faster and {} slower within launch noise, {} no significant difference, {} by ratio (no significance test: {} slower, {} faster), {} not judged; {} only in A, {} only in B",
        c.rows.len(),
        m.faster,
        m.slower,
        m.faster_within_noise,
        m.slower_within_noise,
        m.no_significant_difference,
        m.ratio_only,
        m.slower_by_ratio,
        m.faster_by_ratio,
        m.not_judged,
        c.only_in_a.len(),
        c.only_in_b.len()
    );
    s
}

fn fmt_p(p: f64) -> String {
    if p < 1e-4 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::plot::tests::{report, result, row, with};
    use serde_json::json;

    /// Deterministic pseudo-random samples around `t` (xorshift, a right-skewed spread).
    fn samples(seed: u64, t: f64, n: usize) -> Vec<f64> {
        let mut x = seed.wrapping_mul(0x9E3779B97F4A7C15) | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let u = (x >> 11) as f64 / (1u64 << 53) as f64;
                t * (1.0 + 0.1 * u * u)
            })
            .collect()
    }

    fn sampled(bytes: usize, t: f64, seed: u64) -> Row {
        let mut r = row(bytes, t);
        let s = samples(seed, t, 200);
        let mut sorted = s.clone();
        sorted.sort_by(f64::total_cmp);
        r.t_median_us = Some(crate::stats::percentile(&sorted, 50.0));
        let (lo, hi) = crate::stats::median_ci95(&sorted);
        r.ci95_lo_us = Some(lo);
        r.ci95_hi_us = Some(hi);
        r.samples_n = Some(s.len() as u64);
        r.samples_us = Some(s);
        r
    }

    /// Every sample (and the median and CI) of a row times `f`.
    fn scale(r: &mut Row, f: f64) {
        for v in r.samples_us.as_mut().unwrap() {
            *v *= f;
        }
        r.t_median_us = r.t_median_us.map(|v| v * f);
        r.ci95_lo_us = r.ci95_lo_us.map(|v| v * f);
        r.ci95_hi_us = r.ci95_hi_us.map(|v| v * f);
    }

    fn run(seed: u64, f: f64) -> Report {
        let rows: Vec<Row> = (0..10)
            .map(|k| {
                let mut r = sampled(1 << k, 1.0 + k as f64, seed + k);
                if f != 1.0 {
                    scale(&mut r, f);
                }
                r
            })
            .collect();
        report(
            "Open MPI v4.1.4",
            "per-call",
            vec![result("imb", "PingPong", 2, rows)],
        )
    }

    #[test]
    fn differing_contexts_and_shared_cores_are_said() {
        use crate::results::{Context, HostContext};
        let (mut a, mut b) = (run(1, 1.0), run(2, 1.0));
        let cx = Context {
            hosts: vec![HostContext {
                host: "vm".into(),
                cores: 2,
                ranks: 4,
                kernel: "Linux 6.1".into(),
                ..HostContext::default()
            }],
            oversubscribed: true,
            ..Context::default()
        };
        let mut other = cx.clone();
        other.oversubscribed = false;
        other.hosts[0].kernel = "Linux 6.2".into();
        a.context = Some(cx.clone());
        b.context = Some(other);
        let c = compare(("a.json", &a), ("b.json", &b), Options::default());
        assert_eq!(
            c.context_differences.len(),
            2,
            "{:?}",
            c.context_differences
        );
        let t = text(&c);
        assert!(
            t.contains(
                "contexts differ in kernel: Linux 6.1 vs Linux 6.2; oversubscribed: true vs false"
            ),
            "{t}"
        );
        assert!(t.contains("ranks shared cores in A: every verdict"), "{t}");
        // Alike contexts, or one side without any: nothing is said.
        b.context = Some(cx);
        let c = compare(("a.json", &a), ("b.json", &b), Options::default());
        assert!(c.context_differences.is_empty());
        b.context = None;
        assert!(
            !text(&compare(("a.json", &a), ("b.json", &b), Options::default()))
                .contains("contexts differ")
        );
    }

    #[test]
    fn same_configuration_is_not_different() {
        let (a, b) = (run(1, 1.0), run(1000, 1.0));
        let c = compare(("a", &a), ("b", &b), Options::default());
        assert_eq!(c.rows.len(), 10);
        assert!(c.summary.no_significant_difference >= 9, "{}", text(&c));
        assert!(!c.different_library && !c.different_hosts);
    }

    #[test]
    fn scaled_copy_is_slower_everywhere_and_fails_the_gate() {
        let a = run(1, 1.0);
        let b = run(1, 1.3);
        let c = compare(("a", &a), ("b", &b), Options::default());
        assert_eq!(c.summary.slower, 10, "{}", text(&c));
        assert!(c.rows.iter().all(|r| r.basis == Basis::MannWhitneyU));
        assert_eq!(slower_than(&c, 10.0).len(), 10);
        assert!(slower_than(&c, 40.0).is_empty());
        let back = compare(("b", &b), ("a", &a), Options::default());
        assert_eq!(back.summary.faster, 10);
    }

    /// The case of docs/reports.md's Open MPI / MPICH comparison: a threshold of
    /// 41.8% and rows 32% slower with p far below 0.05. They are "slower
    /// (within launch noise)", not "no significant difference", and the
    /// gate counts them; rows beyond the threshold are "slower".
    #[test]
    fn significant_rows_within_the_noise_have_their_own_verdict_and_gate() {
        let a = run(1, 1.0);
        let mut b = run(1, 1.0);
        for (i, r) in b.results[0].rows.iter_mut().enumerate() {
            scale(r, if i < 5 { 1.32 } else { 1.6 });
        }
        let opt = Options {
            noise_pct: 41.8,
            ..Options::default()
        };
        let c = compare(("a", &a), ("b", &b), opt);
        assert!((c.threshold_pct - 41.8).abs() < 1e-9, "{}", text(&c));
        let v: Vec<Verdict> = c.rows.iter().map(|r| r.verdict).collect();
        assert_eq!(v[..5], [Verdict::SlowerWithinNoise; 5], "{}", text(&c));
        assert_eq!(v[5..], [Verdict::Slower; 5], "{}", text(&c));
        assert!(c.rows.iter().all(|r| r.p_value.unwrap() < 1e-9));
        assert_eq!((c.summary.slower_within_noise, c.summary.slower), (5, 5));
        assert_eq!(c.summary.no_significant_difference, 0);
        // The gate: significantly slower by more than PCT, whatever the noise.
        assert_eq!(slower_than(&c, 10.0).len(), 10);
        assert_eq!(slower_than(&c, 40.0).len(), 5);
        assert!(slower_than(&c, 60.0).is_empty());
        let t = text(&c);
        assert!(t.contains("slower (within launch noise)"), "{t}");
        let j = serde_json::to_value(&c).unwrap();
        assert_eq!(j["rows"][0]["verdict"], "slower (within launch noise)");
        assert_eq!(j["summary"]["slower_within_noise"], 5);
        // And the other way round.
        let back = compare(("b", &b), ("a", &a), opt);
        assert_eq!(back.summary.faster_within_noise, 5);
        assert_eq!(back.summary.faster, 5);
        assert!(slower_than(&back, 0.0).is_empty());
    }

    #[test]
    fn verdicts_on_known_evidence() {
        let threshold = 1.2f64.ln();
        let verdict = |ratio: f64, sig: bool, dir: i32| {
            let mut c = compare_row(
                &key(&result("imb", "PingPong", 2, vec![]), &row(8, 1.0)),
                (
                    &run(1, 1.0),
                    &result("imb", "PingPong", 2, vec![]),
                    &row(8, 1.0),
                ),
                (
                    &run(1, 1.0),
                    &result("imb", "PingPong", 2, vec![]),
                    &row(8, ratio),
                ),
                Options::default(),
            )
            .0;
            decide(&mut c, sig, dir, threshold);
            c.verdict
        };
        assert_eq!(verdict(1.1, true, 1), Verdict::SlowerWithinNoise);
        assert_eq!(verdict(1.3, true, 1), Verdict::Slower);
        assert_eq!(verdict(1.3, false, 1), Verdict::NoDifference);
        assert_eq!(verdict(0.9, true, -1), Verdict::FasterWithinNoise);
        assert_eq!(verdict(0.7, true, -1), Verdict::Faster);
        // The test and the medians disagree: no claim.
        assert_eq!(verdict(0.9, true, 1), Verdict::NoDifference);
    }

    fn loop_run(library: &str, t: f64) -> Report {
        let rows = (0..5).map(|k| row(1 << k, t)).collect::<Vec<_>>();
        report(library, "loop", vec![result("imb", "Bcast", 4, rows)])
    }

    /// A loop-timed run of `--launches`: each row's launch medians around `t`.
    fn launched_run(t: f64, medians: &[f64]) -> Report {
        let rows = (0..5)
            .map(|k| {
                let mut r = row(1 << k, t);
                r.launch_medians_us = Some(medians.iter().map(|m| m * t).collect());
                r
            })
            .collect::<Vec<_>>();
        report(
            "Open MPI v4.1.4",
            "loop",
            vec![result("imb", "Bcast", 4, rows)],
        )
    }

    #[test]
    fn launches_are_the_replicates_when_both_runs_have_them() {
        let spread = [1.0, 1.02, 0.99, 1.01, 1.0];
        let a = launched_run(1.0, &spread);
        let b = launched_run(1.5, &spread);
        let c = compare(("a", &a), ("b", &b), Options::default());
        assert!(c.rows.iter().all(|r| r.basis == Basis::Launches
            && r.verdict == Verdict::Slower
            && r.n_a == Some(5)
            && r.p_value.unwrap() < 0.05));
        assert!(text(&c).contains("Mann-Whitney U over launch medians"));
        assert_eq!(slower_than(&c, 10.0).len(), 5);
        let j = serde_json::to_value(&c).unwrap();
        assert_eq!(j["rows"][0]["basis"], "launches");
        // Launches that overlap: no significant difference.
        let b = launched_run(1.0, &[1.01, 0.99, 1.0, 1.02, 0.995]);
        let c = compare(("a", &a), ("b", &b), Options::default());
        assert!(c
            .rows
            .iter()
            .all(|r| r.basis == Basis::Launches && r.verdict == Verdict::NoDifference));
        // One side without launches: loop timing is judged by ratio as before.
        let c = compare(
            ("a", &a),
            ("b", &loop_run("Open MPI v4.1.4", 1.5)),
            Options::default(),
        );
        assert!(c.rows.iter().all(|r| r.basis == Basis::Ratio));
    }

    #[test]
    fn loop_timing_is_judged_by_ratio_without_a_test() {
        let a = loop_run("Open MPI v4.1.4", 1.0);
        let b = loop_run("MPICH 4.0.2", 3.0);
        let c = compare(("a", &a), ("b", &b), Options::default());
        assert_eq!(c.summary.ratio_only, 5);
        assert_eq!(c.summary.slower_by_ratio, 5);
        assert!(c.rows.iter().all(|r| r.verdict == Verdict::SlowerByRatio
            && r.basis == Basis::Ratio
            && r.p_value.is_none()
            && (r.ratio.unwrap() - 3.0).abs() < 1e-9));
        assert!(c.different_library);
        let t = text(&c);
        assert!(t.contains("different MPI libraries"), "{t}");
        assert!(t.contains("by ratio, no significance test"), "{t}");
        // An explicit method wins over the settings.
        let mut a2 = a.clone();
        a2.settings.timing = "per-call".into();
        a2.results[0].method = Some("pmb-loop".into());
        let c = compare(("a", &a2), ("b", &b), Options::default());
        assert_eq!(c.summary.ratio_only, 5);
        // The other way round: faster by ratio; within the threshold: within noise.
        let back = compare(("b", &b), ("a", &a), Options::default());
        assert_eq!(back.summary.faster_by_ratio, 5);
        let same = compare(("a", &a), ("a", &a), Options::default());
        assert!(same
            .rows
            .iter()
            .all(|r| r.verdict == Verdict::WithinNoiseByRatio));
        let j = serde_json::to_value(&c).unwrap();
        assert_eq!(
            j["rows"][0]["verdict"],
            "slower (by ratio, no significance test)"
        );
        assert_eq!(j["rows"][0]["basis"], "ratio");
    }

    #[test]
    fn ten_times_slower_under_loop_timing_fails_the_gate() {
        let a = loop_run("Open MPI v4.1.4", 1.0);
        let b = loop_run("Open MPI v4.1.4", 10.0);
        let c = compare(("a", &a), ("b", &b), Options::default());
        let g = gate(&c, 5.0);
        assert_eq!((g.outcome, g.exit_code), (GateOutcome::Slower, EXIT_SLOWER));
        assert_eq!((g.judged, g.failed), (5, 5));
        assert!(
            g.message.contains("5 by ratio (no significance test)"),
            "{}",
            g.message
        );
        // The gate uses PCT, not the noise threshold: 6% fails a 5% gate.
        let b = loop_run("Open MPI v4.1.4", 1.06);
        let c = compare(("a", &a), ("b", &b), Options::default());
        assert_eq!(gate(&c, 5.0).outcome, GateOutcome::Slower);
        assert_eq!(gate(&c, 10.0).outcome, GateOutcome::Passed);
    }

    #[test]
    fn within_noise_passes_the_gate_quietly() {
        let (a, b) = (run(1, 1.0), run(1000, 1.0));
        let c = compare(("a", &a), ("b", &b), Options::default());
        let g = gate(&c, 5.0);
        assert_eq!(
            (g.outcome, g.exit_code),
            (GateOutcome::Passed, 0),
            "{}",
            text(&c)
        );
        assert_eq!(g.judged, 10);
        assert!(g.message.is_empty(), "{}", g.message);
    }

    fn nothing(a: &Report, b: &Report) -> Gate {
        let c = compare(("a.json", a), ("b.json", b), Options::default());
        let g = gate(&c, 5.0);
        assert_eq!(g.outcome, GateOutcome::NothingJudged, "{}", text(&c));
        assert_eq!(g.exit_code, EXIT_NOTHING_JUDGED);
        assert!(nothing_judged(&c).is_some());
        g
    }

    #[test]
    fn an_empty_side_judges_nothing() {
        let a = run(1, 1.0);
        let mut b = run(1, 10.0);
        b.results.clear();
        let g = nothing(&a, &b);
        assert!(
            g.message.contains("B 'b.json' has no result rows"),
            "{}",
            g.message
        );
        let g = nothing(&b, &a);
        assert!(
            g.message.contains("A 'a.json' has no result rows"),
            "{}",
            g.message
        );
        // Skipped results and clock tools are no rows either.
        let mut b = run(1, 10.0);
        b.results[0].skipped = Some("too few ranks".into());
        nothing(&a, &b);
    }

    #[test]
    fn an_incomplete_side_judges_nothing() {
        let a = run(1, 1.0);
        for status in ["running", "aborted", "interrupted"] {
            let mut b = run(1, 10.0);
            b.complete = false;
            b.status = Some(status.into());
            let g = nothing(&a, &b);
            assert_eq!(
                g.message,
                format!(
                    "--fail-if-slower judged nothing: B 'b.json' is incomplete (status \"{status}\")"
                )
            );
            let g = nothing(&b, &a);
            assert!(
                g.message.contains("A 'a.json' is incomplete"),
                "{}",
                g.message
            );
        }
        // A file without a status: `complete` decides.
        let mut b = run(1, 1.0);
        b.status = None;
        b.complete = false;
        nothing(&a, &b);
        b.complete = true;
        let c = compare(("a", &a), ("b", &b), Options::default());
        assert_eq!(gate(&c, 5.0).outcome, GateOutcome::Passed);
        // Validation errors are a finished run.
        b.status = Some("validation_errors".into());
        let c = compare(("a", &a), ("b", &b), Options::default());
        assert_eq!(gate(&c, 5.0).outcome, GateOutcome::Passed);
    }

    #[test]
    fn no_common_row_judges_nothing() {
        let a = run(1, 1.0);
        let mut b = run(1, 10.0);
        b.results[0].benchmark = "Exchange".into();
        let g = nothing(&a, &b);
        assert!(
            g.message
                .contains("share no row (10 rows only in A, 10 only in B)"),
            "{}",
            g.message
        );
    }

    #[test]
    fn rows_without_figures_are_not_judged() {
        let a = run(1, 1.0);
        let mut b = run(1, 10.0);
        for r in &mut b.results[0].rows {
            r.t_median_us = None;
            r.t_avg_us = f64::NAN;
        }
        let c = compare(("a", &a), ("b", &b), Options::default());
        assert_eq!(c.summary.not_judged, 10);
        assert!(c.rows[0].reason.contains("no valid sample in B"));
        let g = nothing(&a, &b);
        assert!(
            g.message.contains("none of the 10 rows in common"),
            "{}",
            g.message
        );
        // One row with figures is enough to judge, and it is 10x slower.
        b.results[0].rows[3] = run(1, 10.0).results[0].rows[3].clone();
        let c = compare(("a", &a), ("b", &b), Options::default());
        let g = gate(&c, 5.0);
        assert_eq!((g.outcome, g.judged, g.failed), (GateOutcome::Slower, 1, 1));
    }

    #[test]
    fn rows_in_one_run_only_are_listed_and_counted() {
        let a = run(1, 1.0);
        let mut b = run(1000, 1.0);
        b.results[0].rows.truncate(7);
        let c = compare(("a", &a), ("b", &b), Options::default());
        assert_eq!(c.only_in_a.len(), 3);
        let t = text(&c);
        assert!(
            t.contains("only in A (3 rows):\n  imb PingPong P=2 128"),
            "{t}"
        );
        let g = gate(&c, 5.0);
        assert_eq!(g.outcome, GateOutcome::Passed, "{}", text(&c));
        assert!(
            g.message
                .contains("passed on 7 rows; not judged: 3 only in A, 0 only in B"),
            "{}",
            g.message
        );
        let mut j = c.clone();
        j.gate = Some(g);
        let j = serde_json::to_value(&j).unwrap();
        assert_eq!(j["gate"]["outcome"], "passed");
        assert_eq!(j["only_in_a"].as_array().unwrap().len(), 3);
    }

    #[test]
    fn cis_without_samples_and_mismatched_rows() {
        let a = report(
            "Open MPI v4.1.4",
            "per-call",
            vec![result("imb", "Bcast", 4, vec![row(8, 1.0), row(16, 1.0)])],
        );
        let mut b = report(
            "Open MPI v4.1.4",
            "per-call",
            vec![result("imb", "Bcast", 4, vec![row(8, 2.0), row(32, 1.0)])],
        );
        b.hosts = vec!["other".into()];
        let c = compare(("a", &a), ("b", &b), Options::default());
        assert_eq!(c.rows.len(), 1);
        assert_eq!(c.rows[0].verdict, Verdict::Slower);
        assert_eq!(c.rows[0].basis, Basis::CiOverlap);
        assert_eq!(c.only_in_a.len(), 1);
        assert_eq!(c.only_in_b.len(), 1);
        assert!(c.different_hosts);
        let t = text(&c);
        assert!(t.contains("only in A") && t.contains("only in B"), "{t}");
    }

    #[test]
    fn params_match_and_measured_params_are_ignored() {
        let mk = |achieved: f64, t: f64| {
            report(
                "Open MPI v4.1.4",
                "per-call",
                vec![result(
                    "cresta",
                    "calc",
                    4,
                    vec![
                        with(
                            row(0, t),
                            json!({"scenario": 3, "t_calc_us": 128, "t_calc_achieved_us": achieved}),
                        ),
                        with(row(0, t), json!({"scenario": 3, "t_calc_us": 256})),
                    ],
                )],
            )
        };
        let c = compare(
            ("a", &mk(131.2, 1.0)),
            ("b", &mk(129.9, 1.0)),
            Options::default(),
        );
        assert_eq!(c.rows.len(), 2);
        assert!(c.only_in_a.is_empty() && c.only_in_b.is_empty());
        let j = serde_json::to_value(&c).unwrap();
        assert_eq!(j["rows"][0]["verdict"], "no significant difference");
        assert_eq!(j["rows"][0]["params"]["t_calc_us"], 128);
    }
}
