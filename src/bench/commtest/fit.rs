//! COMMTEST's figures over a packet sweep at fixed volume V: the linear
//! "latency, bandwidth" model t(k) = k·α + V/β fitted by least squares to
//! the times of k = 1, 2, 4, ... packets; spot estimates from neighbouring
//! packet counts (the seed's "differences between measurements"); the
//! maximum achieved bandwidth from the minimum observed time; and, per
//! pattern, the fastest protocol at one packet and at the smallest packets.
//!
//! Units: t in µs, α in µs per message, β in MB/s with MB = 2^20 bytes, so
//! V/β [µs] = V / (1.048576 · β).

use serde_json::json;

use crate::results::Params;
use crate::results::{BenchResult, Best, Fit, Row, Spot};

/// MB/s (MB = 2^20 bytes) for `bytes` in `t_us` µs; None unless t > 0.
pub fn mbs(bytes: usize, t_us: f64) -> Option<f64> {
    (t_us > 0.0 && t_us.is_finite()).then(|| bytes as f64 / 1.048576 / t_us)
}

/// Least squares of t = α·k + c over (k, t): (α, c, R²). R² is None with
/// fewer than 3 points or constant times.
pub fn least_squares(pts: &[(f64, f64)]) -> Option<(f64, f64, Option<f64>)> {
    let n = pts.len() as f64;
    if pts.len() < 2 {
        return None;
    }
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let slope = sxy / sxx;
    let c = my - slope * mx;
    let ss_tot: f64 = pts.iter().map(|p| (p.1 - my).powi(2)).sum();
    let ss_res: f64 = pts.iter().map(|p| (p.1 - slope * p.0 - c).powi(2)).sum();
    let r2 = (pts.len() >= 3 && ss_tot > 0.0).then(|| 1.0 - ss_res / ss_tot);
    Some((slope, c, r2))
}

/// One experiment of a sweep: k packets, the reported time and the
/// minimum observed time (µs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    pub packets: u64,
    pub t_us: f64,
    pub t_min_us: f64,
}

/// The fit, spot estimates and maximum bandwidth of one sweep (packet
/// counts ascending); None with fewer than one experiment.
pub fn fit_sweep(volume: usize, sweep: &[Sample]) -> Option<Fit> {
    let first = sweep.first()?;
    let pts: Vec<(f64, f64)> = sweep.iter().map(|s| (s.packets as f64, s.t_us)).collect();
    // One packet count: all of the time is V/β.
    let (alpha, c, r2) = least_squares(&pts).unwrap_or((0.0, first.t_us, None));
    let mins: Vec<(f64, f64)> = sweep
        .iter()
        .map(|s| (s.packets as f64, s.t_min_us))
        .collect();
    let (alpha_min, c_min, r2_min) = least_squares(&mins).unwrap_or((0.0, first.t_min_us, None));
    let spots = sweep
        .windows(2)
        .map(|w| {
            let (k1, k2) = (w[0].packets as f64, w[1].packets as f64);
            let a = (w[1].t_us - w[0].t_us) / (k2 - k1);
            Spot {
                packets: [w[0].packets, w[1].packets],
                alpha_us: a,
                beta_mbs: mbs(volume, w[0].t_us - k1 * a),
            }
        })
        .collect();
    let best = sweep
        .iter()
        .filter(|s| s.t_min_us > 0.0)
        .min_by(|a, b| a.t_min_us.total_cmp(&b.t_min_us))
        .unwrap_or(first);
    let mut fit = Fit {
        volume,
        points: sweep.len(),
        alpha_us: alpha,
        beta_mbs: mbs(volume, c),
        r2,
        t_min_us: best.t_min_us,
        t_min_packets: best.packets,
        max_mbs: mbs(volume, best.t_min_us).unwrap_or(0.0),
        spots,
        alpha_min_us: alpha_min,
        beta_min_mbs: mbs(volume, c_min),
        r2_min,
        ..Fit::default()
    };
    fit.judge();
    Some(fit)
}

/// Below this R² a line is "no linear fit".
pub const MIN_R2: f64 = 0.9;
/// A fitted β below this share of the best achieved bandwidth is "no linear fit".
pub const MIN_BETA_SHARE: f64 = 0.5;

/// The verdict of a fit: "fits" when `reasons` is empty.
pub fn verdict(reasons: &[String]) -> &'static str {
    if reasons.is_empty() {
        "fits"
    } else {
        "no linear fit"
    }
}

/// Why a line t(k) = k·α + V/β over `points` packet counts does not fit,
/// against the best achieved bandwidth `max_mbs`; empty when it fits.
/// Times that are all equal (R² undefined over 3 or more points) fit with α = 0.
pub fn misfit(
    points: usize,
    alpha_us: f64,
    beta_mbs: Option<f64>,
    r2: Option<f64>,
    max_mbs: f64,
) -> Vec<String> {
    let mut why = Vec::new();
    if points < 3 {
        why.push(format!(
            "{points} packet count{}: nothing tests the line",
            if points == 1 { "" } else { "s" }
        ));
    }
    if let Some(r) = r2.filter(|r| *r < MIN_R2) {
        why.push(format!("R^2 = {r:.4} below {MIN_R2:.2}"));
    }
    if alpha_us < 0.0 {
        why.push(format!(
            "alpha = {alpha_us:.3} usec: the time falls as packets are added"
        ));
    }
    match beta_mbs.filter(|b| *b > 0.0 && b.is_finite()) {
        None => why.push("no positive V/beta".to_string()),
        Some(b) if b < MIN_BETA_SHARE * max_mbs => why.push(format!(
            "beta = {b:.1} MB/s below half the {max_mbs:.1} MB/s achieved"
        )),
        Some(_) => {}
    }
    why
}

impl Fit {
    /// Stores the verdicts of both fits and their reasons.
    pub fn judge(&mut self) {
        self.no_fit = self.misfit();
        self.verdict = verdict(&self.no_fit).to_string();
        self.no_fit_min = self.misfit_min();
        self.verdict_min = verdict(&self.no_fit_min).to_string();
    }

    /// Why the fit to the reported times does not fit (empty when it does).
    pub fn misfit(&self) -> Vec<String> {
        misfit(
            self.points,
            self.alpha_us,
            self.beta_mbs,
            self.r2,
            self.max_mbs,
        )
    }

    /// Why the fit to the minimum times does not fit (empty when it does).
    pub fn misfit_min(&self) -> Vec<String> {
        misfit(
            self.points,
            self.alpha_min_us,
            self.beta_min_mbs,
            self.r2_min,
            self.max_mbs,
        )
    }

    /// The fitted time of `packets` packets of the sweep's volume V:
    /// k·α + V/β (µs); None where β is null (no positive intercept).
    pub fn model_us(&self, packets: f64) -> Option<f64> {
        let beta = self.beta_mbs.filter(|b| *b > 0.0 && b.is_finite())?;
        let t = packets * self.alpha_us + self.volume as f64 / 1.048576 / beta;
        t.is_finite().then_some(t)
    }
}

fn u(row: &Row, k: &str) -> u64 {
    row.params.get(k).and_then(|v| v.as_u64()).unwrap_or(0)
}

fn s<'r>(row: &'r Row, k: &str) -> &'r str {
    row.params.get(k).and_then(|v| v.as_str()).unwrap_or("")
}

fn b(row: &Row, k: &str) -> bool {
    row.params.get(k).and_then(|v| v.as_bool()).unwrap_or(false)
}

/// The time of an experiment: per iteration, the maximum over processes of
/// each one's own elapsed time; the median of it over the iterations
/// (`t_median_us`; with loop timing, the engine's `t_max_us`).
pub fn time(row: &Row) -> f64 {
    row.t_median_us.unwrap_or(row.t_max_us)
}

/// The minimum observed time: the smallest per-iteration maximum over processes.
pub fn min_time(row: &Row) -> f64 {
    row.samples_us
        .as_ref()
        .and_then(|v| v.first().copied())
        .unwrap_or(row.t_min_us)
}

fn sample(row: &Row) -> Sample {
    Sample {
        packets: u(row, "packets"),
        t_us: time(row),
        t_min_us: min_time(row),
    }
}

/// Rows grouped by what they share beyond `within`, in first-seen order.
fn groups(rows: &[Row], key: impl Fn(&Row) -> String) -> Vec<Vec<&Row>> {
    let mut keys: Vec<String> = Vec::new();
    let mut out: Vec<Vec<&Row>> = Vec::new();
    for r in rows {
        let k = key(r);
        match keys.iter().position(|x| *x == k) {
            Some(i) => out[i].push(r),
            None => {
                keys.push(k);
                out.push(vec![r]);
            }
        }
    }
    out
}

/// `Benchmark::derive` of SWAP and SENDRECV: one fit per (volume, prepost,
/// protocol), and per (volume, prepost) the fastest protocol at one packet
/// and at the smallest packets.
pub fn derive(r: &mut BenchResult) {
    let rows: Vec<Row> = r
        .rows
        .iter()
        .filter(|x| time(x) > 0.0 && x.valid != Some(0))
        .cloned()
        .collect();
    let mut fits = Vec::new();
    for g in groups(&rows, |x| {
        format!("{} {} {}", x.bytes, b(x, "prepost"), s(x, "protocol"))
    }) {
        let mut sweep: Vec<Sample> = g.iter().map(|x| sample(x)).collect();
        sweep.sort_by_key(|x| x.packets);
        if let Some(mut f) = fit_sweep(g[0].bytes, &sweep) {
            f.protocol = s(g[0], "protocol").to_string();
            f.name = s(g[0], "protocol_name").to_string();
            f.prepost = b(g[0], "prepost");
            fits.push(f);
        }
    }
    let mut best = Vec::new();
    for g in groups(&rows, |x| format!("{} {}", x.bytes, b(x, "prepost"))) {
        let one = g.iter().filter(|x| u(x, "packets") == 1);
        let most = g.iter().map(|x| u(x, "packets")).max().unwrap_or(1);
        let small = g.iter().filter(|x| u(x, "packets") == most);
        for set in [one.copied().collect::<Vec<_>>(), small.copied().collect()] {
            if let Some(w) = set.iter().min_by(|a, b| time(a).total_cmp(&time(b))) {
                let mut at = Params::new();
                at.insert("volume".into(), json!(w.bytes));
                at.insert("prepost".into(), json!(b(w, "prepost")));
                at.insert("packets".into(), json!(u(w, "packets")));
                at.insert("packet_bytes".into(), json!(u(w, "packet_bytes")));
                let entry = Best {
                    at,
                    axis: "protocol".into(),
                    winner: format!("{} {}", s(w, "protocol"), s(w, "protocol_name")),
                    t_us: time(w),
                    ..Best::default()
                };
                if !best.contains(&entry) {
                    best.push(entry);
                }
            }
        }
    }
    r.figures.fits = fits;
    r.figures.best = best;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
    }

    /// Times that follow the model exactly give α and β back exactly.
    #[test]
    fn the_fit_recovers_alpha_and_beta() {
        let v = 2 << 20;
        for (alpha, beta) in [(1.5, 5000.0), (0.25, 12_000.0), (20.0, 80.0)] {
            let sweep: Vec<Sample> = (0..11)
                .map(|e| {
                    let k = 1u64 << e;
                    let t = k as f64 * alpha + v as f64 / 1.048576 / beta;
                    Sample {
                        packets: k,
                        t_us: t,
                        t_min_us: t * 0.99,
                    }
                })
                .collect();
            let f = fit_sweep(v, &sweep).unwrap();
            assert!(close(f.alpha_us, alpha), "{} vs {alpha}", f.alpha_us);
            assert!(
                close(f.beta_mbs.unwrap(), beta),
                "{:?} vs {beta}",
                f.beta_mbs
            );
            assert!(close(f.r2.unwrap(), 1.0));
            assert_eq!(f.points, 11);
            // The model gives the times back.
            for x in &sweep {
                assert!(close(f.model_us(x.packets as f64).unwrap(), x.t_us));
            }
            // Minimum times 1% below the model: α and β scale by 0.99 and 1/0.99.
            assert!(close(f.alpha_min_us, 0.99 * alpha));
            assert!(close(f.beta_min_mbs.unwrap(), beta / 0.99));
            assert!(close(f.r2_min.unwrap(), 1.0));
            // Every spot estimate is exact too.
            assert_eq!(f.spots.len(), 10);
            for sp in &f.spots {
                assert!(close(sp.alpha_us, alpha));
                assert!(close(sp.beta_mbs.unwrap(), beta));
            }
            // The maximum achieved bandwidth comes from the smallest minimum time (1 packet).
            assert_eq!(f.t_min_packets, 1);
            assert!(close(f.max_mbs, v as f64 / 1.048576 / sweep[0].t_min_us));
        }
    }

    fn model_sweep(v: usize, alpha: f64, beta: f64, noise: &dyn Fn(u64) -> f64) -> Vec<Sample> {
        (0..7)
            .map(|e| {
                let k = 1u64 << e;
                let t = k as f64 * alpha + v as f64 / 1.048576 / beta + noise(k);
                Sample {
                    packets: k,
                    t_us: t,
                    t_min_us: t,
                }
            })
            .collect()
    }

    /// The rule: a clean line fits; scatter (R² < 0.9), a β below half the
    /// best achieved, a falling time and too few points each make it
    /// "no linear fit", with the reasons named.
    #[test]
    fn a_line_that_does_not_fit_is_said() {
        let v = 256 << 10;
        let f = fit_sweep(v, &model_sweep(v, 2.0, 10_000.0, &|_| 0.0)).unwrap();
        assert_eq!((f.verdict.as_str(), f.no_fit.len()), ("fits", 0));
        assert_eq!(f.verdict_min, "fits");
        // Small noise (±1% of the time) still fits.
        let wobble = |k: u64| if k % 4 == 0 { 0.3 } else { -0.3 };
        let f = fit_sweep(v, &model_sweep(v, 2.0, 10_000.0, &wobble)).unwrap();
        assert_eq!(f.verdict, "fits", "{:?}", f.no_fit);
        // COMMTEST's (0,1) on 2 ranks: a fast first packet count, then times
        // that scatter around a flat line (R² ≈ 0.36, β a third of the best).
        let scatter = [
            (1, 10.0),
            (2, 42.0),
            (4, 30.0),
            (8, 45.0),
            (16, 33.0),
            (32, 48.0),
            (64, 50.0),
        ];
        let sweep: Vec<Sample> = scatter
            .iter()
            .map(|&(k, t)| Sample {
                packets: k,
                t_us: t,
                t_min_us: t,
            })
            .collect();
        let f = fit_sweep(v, &sweep).unwrap();
        assert!(f.r2.unwrap() < MIN_R2, "{:?}", f.r2);
        assert!(f.beta_mbs.unwrap() < 0.5 * f.max_mbs);
        assert_eq!(f.verdict, "no linear fit");
        assert_eq!(f.no_fit.len(), 2, "{:?}", f.no_fit);
        assert!(f.no_fit[0].starts_with("R^2 = "), "{:?}", f.no_fit);
        assert!(f.no_fit[1].contains("below half the"), "{:?}", f.no_fit);
        // β alone below half the best: a line with R² = 1 but a minimum
        // time far below the medians.
        let mut fast = model_sweep(v, 2.0, 10_000.0, &|_| 0.0);
        fast[0].t_min_us /= 3.0;
        let f = fit_sweep(v, &fast).unwrap();
        assert_eq!(f.no_fit.len(), 1, "{:?}", f.no_fit);
        assert!(f.no_fit[0].starts_with("beta = "));
        // Falling times, two points, no positive intercept.
        assert!(misfit(7, -1.0, Some(5.0), Some(0.99), 5.0)[0].starts_with("alpha = "));
        assert_eq!(misfit(2, 1.0, Some(5.0), None, 5.0).len(), 1);
        assert_eq!(
            misfit(5, 1.0, None, Some(0.99), 5.0),
            ["no positive V/beta"]
        );
        // Equal times over 3 points: R² undefined, the flat line fits.
        assert!(misfit(3, 0.0, Some(5.0), None, 5.0).is_empty());
    }

    #[test]
    fn degenerate_sweeps() {
        let one = [Sample {
            packets: 1,
            t_us: 100.0,
            t_min_us: 90.0,
        }];
        let f = fit_sweep(1 << 20, &one).unwrap();
        assert_eq!(f.alpha_us, 0.0);
        assert!(close(f.beta_mbs.unwrap(), 10_000.0));
        assert_eq!(f.r2, None);
        assert!(f.spots.is_empty());
        assert!(fit_sweep(1, &[]).is_none());
        // Times that fall with k faster than the model allows: no positive V/β.
        let odd = [
            Sample {
                packets: 1,
                t_us: 10.0,
                t_min_us: 10.0,
            },
            Sample {
                packets: 2,
                t_us: 30.0,
                t_min_us: 30.0,
            },
        ];
        let f = fit_sweep(1024, &odd).unwrap();
        assert_eq!(f.beta_mbs, None);
        assert_eq!(f.model_us(1.0), None);
        assert_eq!(f.spots[0].beta_mbs, None);
        assert_eq!(least_squares(&[(1.0, 1.0), (1.0, 2.0)]), None);
    }
}
