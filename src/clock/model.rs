//! Clock offset/drift model used to synchronise the clocks of MPI ranks.
//!
//! Every rank has its own local clock (e.g. `MPI_Wtime`). To time collective
//! operations across ranks, local timestamps are mapped onto a common
//! *reference clock* (the clock of rank 0, the "root"). Between two clocks
//! the difference is modelled as linear in time:
//!
//! ```text
//! offset(t_local) = t_local - t_ref = offset + drift * t_local
//! ```
//!
//! This is the model of Jones & Koenig ("Clock synchronization in high-end
//! computing environments", 2013) and of Hunold & Carpen-Amarie's
//! hierarchical clock algorithm "HCA" used in ReproMPI; SKaMPI uses the
//! same ping-pong based offset estimation. The procedure is:
//!
//! 1. At a few well separated moments, the client does a burst of ping-pong
//!    [`Exchange`]s with the reference: it records its local send time, the
//!    reference's clock value when it replied, and its local receive time.
//! 2. Per burst, [`best_offset`] keeps the exchange with the smallest round
//!    trip (Cristian's algorithm): it has the least room for delay asymmetry,
//!    which is the only error the estimate (`local midpoint - server time`)
//!    cannot see.
//! 3. [`fit`] does a least-squares line through the `(local time, offset)`
//!    points, giving a [`ClockModel`] (offset at local time 0 and drift).
//!
//! For hierarchical synchronisation (node leaders to root, then ranks to
//! their node leader), the two models are combined exactly with
//! [`ClockModel::compose`].
//!
//! All times are in seconds. All functions are total and never produce NaN
//! from finite input.

use serde::{Deserialize, Serialize};

/// Linear model of a remote clock relative to the reference clock:
/// `t_ref = t_local - (offset + drift * t_local)`.
///
/// The default value is the identity model (a perfectly synchronised clock).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct ClockModel {
    /// Offset of the local clock ahead of the reference, in seconds, at local
    /// time 0.
    pub offset: f64,
    /// Drift (skew) of the local clock relative to the reference, in seconds
    /// per second (e.g. `20e-6` = 20 ppm: the local clock gains 20 µs per
    /// second).
    pub drift: f64,
}

impl ClockModel {
    /// The identity model: local time equals reference time.
    pub fn identity() -> Self {
        Self {
            offset: 0.0,
            drift: 0.0,
        }
    }

    /// Map a local timestamp to reference (rank 0) time:
    /// `local - (offset + drift * local)`.
    pub fn to_global(self, local: f64) -> f64 {
        local - (self.offset + self.drift * local)
    }

    /// Map a reference timestamp back to local time (the exact inverse of
    /// [`to_global`](Self::to_global)): `(global + offset) / (1 - drift)`.
    ///
    /// A physically meaningless drift of exactly 1 (the local clock standing
    /// still relative to the reference) would make the map non-invertible;
    /// in that case the drift is ignored rather than producing inf/NaN.
    pub fn to_local(self, global: f64) -> f64 {
        let rate = 1.0 - self.drift;
        let local = (global + self.offset) / rate;
        if rate != 0.0 && local.is_finite() {
            local
        } else {
            global + self.offset
        }
    }

    /// Compose two models for hierarchical synchronisation.
    ///
    /// `self` maps this clock to the parent's clock and `parent` maps the
    /// parent's clock to the root's. The result maps this clock directly to
    /// the root's, exactly (the composition of two linear maps is linear):
    ///
    /// ```text
    /// t_root = (1 - d1)(1 - d2) t_local - o1 (1 - d2) - o2
    /// => drift  = d1 + d2 - d1 d2
    ///    offset = o1 (1 - d2) + o2
    /// ```
    ///
    /// so that `self.compose(p).to_global(t) == p.to_global(self.to_global(t))`.
    pub fn compose(&self, parent: &ClockModel) -> ClockModel {
        ClockModel {
            offset: self.offset * (1.0 - parent.drift) + parent.offset,
            drift: self.drift + parent.drift - self.drift * parent.drift,
        }
    }
}

/// One ping-pong exchange as seen by the client: `t_send` (local clock),
/// `t_server` (the reference's clock when it replied), `t_recv` (local clock).
#[derive(Debug, Clone, Copy)]
pub struct Exchange {
    /// Local time at which the client sent its request.
    pub t_send: f64,
    /// Reference clock value sampled by the server when it replied.
    pub t_server: f64,
    /// Local time at which the client received the reply.
    pub t_recv: f64,
}

impl Exchange {
    /// Round-trip time `t_recv - t_send` on the local clock.
    fn round_trip(&self) -> f64 {
        self.t_recv - self.t_send
    }

    /// Local midpoint `(t_send + t_recv) / 2`, the local time at which the
    /// server is assumed to have sampled its clock.
    fn midpoint(&self) -> f64 {
        self.t_send + self.round_trip() / 2.0
    }

    fn is_valid(&self) -> bool {
        self.t_send.is_finite()
            && self.t_server.is_finite()
            && self.t_recv.is_finite()
            && self.t_recv >= self.t_send
    }
}

/// Offset estimate of one exchange: local midpoint minus server time,
/// `(t_send + t_recv) / 2 - t_server`.
///
/// If the one-way delays are `d_fwd` and `d_bwd`, the estimate is off by
/// `(d_fwd - d_bwd) / 2`; it is exact for symmetric delays.
pub fn exchange_offset(e: &Exchange) -> f64 {
    e.midpoint() - e.t_server
}

/// Best offset estimate from several exchanges taken at about the same moment
/// (Cristian's algorithm): the exchange with the smallest round trip
/// `t_recv - t_send` bounds the delay asymmetry most tightly.
///
/// Returns `(local midpoint time, offset)` of that exchange, or `None` if
/// there is no valid exchange. Exchanges with non-finite times or a negative
/// round trip are ignored; on ties the first exchange wins.
pub fn best_offset(exchanges: &[Exchange]) -> Option<(f64, f64)> {
    exchanges
        .iter()
        .filter(|e| e.is_valid())
        .fold(None, |best: Option<&Exchange>, e| match best {
            Some(b) if b.round_trip() <= e.round_trip() => Some(b),
            _ => Some(e),
        })
        .map(|e| (e.midpoint(), exchange_offset(e)))
}

/// Least-squares fit of `offset(t) = offset + drift * t` through
/// `(local_time, offset)` points (ordinary linear regression, computed on
/// centred data for numerical stability).
///
/// Never NaN:
/// * points with a non-finite coordinate are ignored;
/// * no points gives [`ClockModel::identity`];
/// * one point, or no usable spread in local time (all `x` equal up to
///   rounding), gives `drift = 0` and `offset = mean of the offsets`.
pub fn fit(points: &[(f64, f64)]) -> ClockModel {
    let pts: Vec<(f64, f64)> = points
        .iter()
        .copied()
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .collect();
    if pts.is_empty() {
        return ClockModel::identity();
    }
    let n = pts.len() as f64;
    let mean_x = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_y = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let flat = ClockModel {
        offset: if mean_y.is_finite() { mean_y } else { 0.0 },
        drift: 0.0,
    };
    if pts.len() < 2 || !mean_x.is_finite() || !mean_y.is_finite() {
        return flat;
    }

    // Degenerate spread: all x equal, or differing only by a few ulps.
    let (min_x, max_x) = pts
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p.0), hi.max(p.0))
        });
    let scale = min_x.abs().max(max_x.abs());
    if max_x - min_x <= 16.0 * f64::EPSILON * scale {
        return flat;
    }

    let (mut sxx, mut sxy) = (0.0, 0.0);
    for &(x, y) in &pts {
        let dx = x - mean_x;
        sxx += dx * dx;
        sxy += dx * (y - mean_y);
    }
    let drift = sxy / sxx;
    let offset = mean_y - drift * mean_x;
    if sxx > 0.0 && drift.is_finite() && offset.is_finite() {
        ClockModel { offset, drift }
    } else {
        flat
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRUE_OFFSET: f64 = 1.5e-3;
    const TRUE_DRIFT: f64 = 20e-6;

    fn truth() -> ClockModel {
        ClockModel {
            offset: TRUE_OFFSET,
            drift: TRUE_DRIFT,
        }
    }

    /// Tiny deterministic LCG -> uniform [0, 1).
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> f64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// Simulate one ping-pong starting at reference time `t_ref` with one-way
    /// delays `d_fwd`, `d_bwd` (seconds, reference clock), for a client whose
    /// clock is described by `model`.
    fn simulate(model: &ClockModel, t_ref: f64, d_fwd: f64, d_bwd: f64) -> Exchange {
        Exchange {
            t_send: model.to_local(t_ref),
            t_server: t_ref + d_fwd,
            t_recv: model.to_local(t_ref + d_fwd + d_bwd),
        }
    }

    /// Run `rounds` bursts of `per_round` exchanges, 0.1 s apart, with delays
    /// drawn by `delays`, and fit the model from the best exchange per burst.
    fn sync(
        model: &ClockModel,
        rounds: usize,
        per_round: usize,
        mut delays: impl FnMut() -> (f64, f64),
    ) -> ClockModel {
        let mut points = Vec::new();
        for r in 0..rounds {
            let mut t = 0.05 + 0.1 * r as f64;
            let burst: Vec<Exchange> = (0..per_round)
                .map(|_| {
                    let (f, b) = delays();
                    let e = simulate(model, t, f, b);
                    t += f + b + 1e-6;
                    e
                })
                .collect();
            points.push(best_offset(&burst).expect("non-empty burst"));
        }
        fit(&points)
    }

    #[test]
    fn identity_and_default() {
        let id = ClockModel::identity();
        assert_eq!(id, ClockModel::default());
        assert_eq!(id.to_global(3.25), 3.25);
        assert_eq!(id.to_local(3.25), 3.25);
    }

    #[test]
    fn to_global_follows_definition() {
        let m = truth();
        let t = 100.0;
        assert_eq!(m.to_global(t), t - (TRUE_OFFSET + TRUE_DRIFT * t));
        assert_eq!(m.to_global(0.0), -TRUE_OFFSET);
    }

    #[test]
    fn to_local_inverts_to_global() {
        let models = [
            truth(),
            ClockModel {
                offset: -0.25,
                drift: -35e-6,
            },
            ClockModel {
                offset: 1e3,
                drift: 1e-3,
            },
        ];
        for m in &models {
            for &x in &[0.0, 1e-9, 0.5, -3.0, 17.25, 1234.5678] {
                assert!((m.to_local(m.to_global(x)) - x).abs() <= 1e-12, "{m:?} {x}");
                assert!((m.to_global(m.to_local(x)) - x).abs() <= 1e-12, "{m:?} {x}");
            }
        }
        // Degenerate drift of exactly 1 does not produce inf/NaN.
        let bad = ClockModel {
            offset: 1.0,
            drift: 1.0,
        };
        assert!(bad.to_local(5.0).is_finite());
    }

    #[test]
    fn compose_matches_applying_in_turn() {
        let child = ClockModel {
            offset: 2.5e-4,
            drift: -7e-6,
        };
        let parent = truth();
        let c = child.compose(&parent);
        for &t in &[0.0, 0.001, 1.0, 42.0, 3600.0] {
            let in_turn = parent.to_global(child.to_global(t));
            assert!((c.to_global(t) - in_turn).abs() <= 1e-12, "t={t}");
            assert!((c.to_local(in_turn) - t).abs() <= 1e-9, "t={t}");
        }
        assert_eq!(ClockModel::identity().compose(&parent), parent);
        assert_eq!(child.compose(&ClockModel::identity()), child);
    }

    #[test]
    fn exchange_offset_and_best_offset() {
        let e = Exchange {
            t_send: 10.0,
            t_server: 9.0,
            t_recv: 10.5,
        };
        assert_eq!(exchange_offset(&e), 1.25);
        let wide = Exchange {
            t_send: 20.0,
            t_server: 0.0,
            t_recv: 21.0,
        };
        let narrow = Exchange {
            t_send: 30.0,
            t_server: 29.0,
            t_recv: 30.1,
        };
        let (mid, off) = best_offset(&[wide, narrow, e]).unwrap();
        assert!((mid - 30.05).abs() < 1e-12);
        assert!((off - 1.05).abs() < 1e-12);
        assert_eq!(best_offset(&[]), None);
        // Invalid exchanges are ignored.
        let backwards = Exchange {
            t_send: 5.0,
            t_server: 0.0,
            t_recv: 4.0,
        };
        let nan = Exchange {
            t_send: f64::NAN,
            t_server: 0.0,
            t_recv: 1.0,
        };
        assert_eq!(best_offset(&[backwards, nan]), None);
        assert_eq!(best_offset(&[backwards, e, nan]), Some((10.25, 1.25)));
    }

    #[test]
    fn single_exchange_symmetric_delay_is_exact() {
        let m = truth();
        let e = simulate(&m, 3.0, 2e-6, 2e-6);
        let (mid, off) = best_offset(&[e]).unwrap();
        let true_off = mid - m.to_global(mid);
        assert!((off - true_off).abs() < 1e-12);
    }

    #[test]
    fn fit_exact_line() {
        let pts: Vec<(f64, f64)> = (0..10)
            .map(|i| {
                let t = i as f64;
                (t, 0.5 + 1e-5 * t)
            })
            .collect();
        let m = fit(&pts);
        assert!((m.offset - 0.5).abs() < 1e-12);
        assert!((m.drift - 1e-5).abs() < 1e-12);
    }

    #[test]
    fn synthetic_clock_symmetric_jitter() {
        let mut rng = Lcg(1);
        // Same (random) delay in both directions: every estimate is exact.
        let m = sync(&truth(), 100, 10, || {
            let d = 1e-6 + 5e-6 * rng.next();
            (d, d)
        });
        assert!((m.offset - TRUE_OFFSET).abs() < 1e-7, "{m:?}");
        assert!((m.drift - TRUE_DRIFT).abs() < 1e-7, "{m:?}");
        // In fact it is exact up to rounding.
        assert!((m.offset - TRUE_OFFSET).abs() < 1e-10, "{m:?}");
        assert!((m.drift - TRUE_DRIFT).abs() < 1e-10, "{m:?}");
    }

    #[test]
    fn synthetic_clock_asymmetric_jitter() {
        let mut rng = Lcg(0x5eed);
        // Independent jitter per direction: small noise plus occasional large
        // one-sided delay spikes (20 % per direction, up to 200 µs).
        let mut one_way = move || {
            let mut d = 1e-6 + 0.2e-6 * rng.next();
            if rng.next() < 0.2 {
                d += 200e-6 * rng.next();
            }
            d
        };
        let m = sync(&truth(), 100, 10, || (one_way(), one_way()));
        assert!((m.offset - TRUE_OFFSET).abs() < 1e-7, "{m:?}");
        assert!((m.drift - TRUE_DRIFT).abs() < 1e-7, "{m:?}");
    }

    #[test]
    fn min_round_trip_rejects_asymmetric_spikes() {
        // Without Cristian's selection (averaging all exchanges of a burst)
        // the spikes bias the offset far beyond the tolerance.
        let mut rng = Lcg(99);
        let model = truth();
        let mut naive = Vec::new();
        let mut best = Vec::new();
        for r in 0..50 {
            let t = 0.1 * r as f64;
            let burst: Vec<Exchange> = (0..10)
                .map(|i| {
                    let spike = if i % 3 == 0 { 50e-6 * rng.next() } else { 0.0 };
                    simulate(&model, t + 1e-3 * i as f64, 1e-6 + spike, 1e-6)
                })
                .collect();
            let mean_mid = burst
                .iter()
                .map(|e| (e.t_send + e.t_recv) / 2.0)
                .sum::<f64>()
                / 10.0;
            let mean_off = burst.iter().map(exchange_offset).sum::<f64>() / 10.0;
            naive.push((mean_mid, mean_off));
            best.push(best_offset(&burst).unwrap());
        }
        let naive = fit(&naive);
        let best = fit(&best);
        assert!((naive.offset - TRUE_OFFSET).abs() > 1e-6, "{naive:?}");
        assert!((best.offset - TRUE_OFFSET).abs() < 1e-9, "{best:?}");
        assert!((best.drift - TRUE_DRIFT).abs() < 1e-9, "{best:?}");
    }

    #[test]
    fn constant_delay_asymmetry_is_a_pure_offset_bias() {
        // A systematic asymmetry is unobservable: the offset is biased by
        // exactly (d_fwd - d_bwd) / 2 while the drift is still exact.
        let m = sync(&truth(), 50, 5, || (3e-6, 1e-6));
        assert!((m.offset - (TRUE_OFFSET - 1e-6)).abs() < 1e-10, "{m:?}");
        assert!((m.drift - TRUE_DRIFT).abs() < 1e-10, "{m:?}");
    }

    #[test]
    fn fit_degenerate_inputs_never_nan() {
        assert_eq!(fit(&[]), ClockModel::identity());

        let one = fit(&[(5.0, 1e-3)]);
        assert_eq!(
            one,
            ClockModel {
                offset: 1e-3,
                drift: 0.0
            }
        );

        let same_x = fit(&[(0.1, 1.0), (0.1, 2.0), (0.1, 3.0)]);
        assert_eq!(same_x.drift, 0.0);
        assert!((same_x.offset - 2.0).abs() < 1e-15);

        // x values that differ only by rounding noise.
        let x = 0.1 + 0.2;
        let noisy = fit(&[(x, 1.0), (0.3, 3.0), (x, 2.0)]);
        assert_eq!(noisy.drift, 0.0);
        assert!((noisy.offset - 2.0).abs() < 1e-15);

        // Non-finite points are ignored.
        let m = fit(&[
            (f64::NAN, 1.0),
            (0.0, 1.0),
            (1.0, f64::INFINITY),
            (1.0, 2.0),
        ]);
        assert_eq!(
            m,
            ClockModel {
                offset: 1.0,
                drift: 1.0
            }
        );
        assert_eq!(fit(&[(f64::NAN, f64::NAN)]), ClockModel::identity());

        for m in [one, same_x, noisy, fit(&[(1e300, 1e300), (-1e300, -1e300)])] {
            assert!(m.offset.is_finite() && m.drift.is_finite(), "{m:?}");
        }
    }

    #[test]
    fn serde_round_trip_shape() {
        // The model is stored in result files: make sure the serde derives
        // stay in place (checked at compile time, no serde_json needed).
        fn assert_serde<T: Serialize + for<'de> Deserialize<'de>>() {}
        assert_serde::<ClockModel>();
    }
}
