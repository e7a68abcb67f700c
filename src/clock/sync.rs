//! Global clock: every rank learns a linear model (offset + drift) that maps
//! its `MPI_Wtime` onto the clock of world rank 0.
//!
//! Algorithm (after Hunold & Carpen-Amarie's hierarchical clock
//! synchronisation, HCA): ranks pair up in a binomial tree, ceil(log2 P)
//! rounds; in round k rank r with r mod 2^(k+1) = 2^k measures its offset to
//! rank r - 2^k. Each measurement point is the best (smallest round trip) of
//! `exchanges` ping-pongs (Cristian); `points` such points spread over a few
//! milliseconds give a least-squares line offset(t) = offset + drift·t. The
//! drift is kept only when it is statistically significant (|drift| > 3
//! standard errors), since on one node all ranks read the same clock and a
//! fitted drift would only add noise. Models are then composed top-down
//! along the tree so that each maps onto rank 0's clock.

use super::model::{best_offset, fit, ClockModel, Exchange};
use crate::comm::{self, Comm};

const TAG_SYNC: i32 = 0x5c;
const TAG_MODEL: i32 = 0x5d;
const TAG_READY: i32 = 0x5b;

/// Parameters of one synchronisation.
#[derive(Debug, Clone, Copy)]
pub struct SyncParams {
    /// Measurement points per pair for the line fit.
    pub points: usize,
    /// Ping-pongs per point (the fastest one counts).
    pub exchanges: usize,
    /// Seconds between points.
    pub spacing_s: f64,
}

impl Default for SyncParams {
    fn default() -> Self {
        SyncParams {
            points: 12,
            exchanges: 12,
            spacing_s: 2e-3,
        }
    }
}

/// Sleeps until local time `t`, leaving the cores to ranks that measure.
fn sleep_until(t: f64) {
    let left = t - comm::wtime();
    if left > 0.0 {
        std::thread::sleep(std::time::Duration::from_secs_f64(left));
    }
}

/// Client side of `n` ping-pongs with `server`, local times mapped by `local`.
fn exchanges(c: &Comm, server: usize, n: usize, local: ClockModel) -> Vec<Exchange> {
    let mut out = Vec::with_capacity(n);
    let mut t = [0.0f64];
    for _ in 0..n {
        let t_send = comm::wtime();
        c.send_f64(&[t_send], server, TAG_SYNC);
        c.recv_f64(&mut t, server, TAG_SYNC);
        let t_recv = comm::wtime();
        out.push(Exchange {
            t_send: local.to_global(t_send),
            t_server: t[0],
            t_recv: local.to_global(t_recv),
        });
    }
    out
}

/// Server side: answers `points` × `n` ping-pongs with its clock mapped by
/// `model`. It tells the client when it is ready, and waits for the first
/// request of each point without spinning (the client sleeps between points).
fn serve(c: &Comm, client: usize, points: usize, n: usize, model: ClockModel) {
    let mut t = [0.0f64];
    c.send_f64(&[0.0], client, TAG_READY);
    for _ in 0..points {
        for i in 0..n {
            if i == 0 {
                c.recv_f64_polite(&mut t, client, TAG_SYNC);
            } else {
                c.recv_f64(&mut t, client, TAG_SYNC);
            }
            c.send_f64(&[model.to_global(comm::wtime())], client, TAG_SYNC);
        }
    }
}

/// Client side: waits, without spinning, until the server is ready.
fn await_server(c: &Comm, server: usize) {
    let mut t = [0.0f64];
    c.recv_f64_polite(&mut t, server, TAG_READY);
}

/// Smallest round trip of a set of exchanges (seconds).
fn min_round_trip(ex: &[Exchange]) -> f64 {
    ex.iter()
        .map(|e| e.t_recv - e.t_send)
        .fold(f64::INFINITY, f64::min)
}

/// Keeps the points whose best round trip was close to the fastest seen:
/// a point measured while a process was descheduled (oversubscribed nodes)
/// has a long, asymmetric round trip and would bias the fit by up to half of it.
pub fn trusted_points(pts: &[((f64, f64), f64)]) -> Vec<(f64, f64)> {
    let best = pts.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let bound = (2.0 * best).max(best + 1e-6);
    pts.iter().filter(|p| p.1 <= bound).map(|p| p.0).collect()
}

/// Fits offset(t) and keeps the drift only if it is significant.
pub fn fit_significant(points: &[(f64, f64)]) -> ClockModel {
    let full = fit(points);
    let n = points.len();
    if n < 3 {
        return ClockModel {
            offset: full.offset + full.drift * points.first().map_or(0.0, |p| p.0),
            drift: 0.0,
        };
    }
    let tbar = points.iter().map(|p| p.0).sum::<f64>() / n as f64;
    let sxx: f64 = points.iter().map(|p| (p.0 - tbar).powi(2)).sum();
    let ss: f64 = points
        .iter()
        .map(|p| (p.1 - full.offset - full.drift * p.0).powi(2))
        .sum();
    let se = (ss / (n - 2) as f64 / sxx).sqrt();
    if sxx > 0.0 && se.is_finite() && full.drift.abs() > 3.0 * se {
        full
    } else {
        let mean = points.iter().map(|p| p.1).sum::<f64>() / n as f64;
        ClockModel {
            offset: mean,
            drift: 0.0,
        }
    }
}

/// Synchronises every rank of `c` to rank 0 of `c`. Collective.
pub fn synchronize(c: &Comm, p: SyncParams) -> ClockModel {
    let (r, n) = (c.rank, c.size);
    // Bottom-up: each child fits its clock against its parent's.
    let mut to_parent = ClockModel::identity();
    let mut parent = None;
    let mut step = 1;
    let mut steps = Vec::new();
    while step < n {
        steps.push(step);
        if r % (2 * step) == step {
            let server = r - step;
            await_server(c, server);
            let mut pts = Vec::with_capacity(p.points);
            for i in 0..p.points {
                if i > 0 {
                    sleep_until(comm::wtime() + p.spacing_s);
                }
                let ex = exchanges(c, server, p.exchanges, ClockModel::identity());
                if let Some(pt) = best_offset(&ex) {
                    pts.push((pt, min_round_trip(&ex)));
                }
            }
            to_parent = fit_significant(&trusted_points(&pts));
            parent = Some(server);
        } else if r % (2 * step) == 0 && r + step < n {
            serve(c, r + step, p.points, p.exchanges, ClockModel::identity());
        }
        step *= 2;
    }
    // Top-down: parents hand their model onto rank 0's clock to their children.
    let mut to_root = if parent.is_none() {
        ClockModel::identity()
    } else {
        to_parent
    };
    for &step in steps.iter().rev() {
        if r % (2 * step) == step {
            let mut m = [0.0f64; 2];
            c.recv_f64_polite(&mut m, r - step, TAG_MODEL);
            to_root = to_parent.compose(&ClockModel {
                offset: m[0],
                drift: m[1],
            });
        } else if r % (2 * step) == 0 && r + step < n {
            c.send_f64(&[to_root.offset, to_root.drift], r + step, TAG_MODEL);
        }
    }
    c.polite_barrier();
    to_root
}

/// Residual error after the fit: rank 0 measures, with fresh ping-pongs,
/// each rank's remaining offset between its modelled clock and rank 0's.
/// Returns |residual| in seconds per rank on rank 0 (0 for rank 0 itself).
pub fn residuals(c: &Comm, model: ClockModel, exchanges_per_rank: usize) -> Vec<f64> {
    let mut mine = 0.0;
    for k in 1..c.size {
        if c.rank == 0 {
            serve(c, k, 1, exchanges_per_rank, ClockModel::identity());
        } else if c.rank == k {
            await_server(c, 0);
            let ex = exchanges(c, 0, exchanges_per_rank, model);
            mine = best_offset(&ex).map_or(f64::NAN, |(_, off)| off.abs());
        }
    }
    c.polite_barrier();
    c.gather_f64(&[mine], 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insignificant_drift_is_dropped() {
        // Same clock, offset noise of ±20 ns: no drift should survive.
        let pts: Vec<(f64, f64)> = (0..12)
            .map(|i| {
                (
                    1.0 + i as f64 * 2e-3,
                    5e-6 + if i % 2 == 0 { 2e-8 } else { -2e-8 },
                )
            })
            .collect();
        let m = fit_significant(&pts);
        assert_eq!(m.drift, 0.0);
        assert!((m.offset - 5e-6).abs() < 1e-9);
    }

    #[test]
    fn real_drift_is_kept() {
        // 50 ppm drift with ±5 ns noise over 22 ms is clearly significant.
        let pts: Vec<(f64, f64)> = (0..12)
            .map(|i| {
                let t = 10.0 + i as f64 * 2e-3;
                (t, 1e-3 + 50e-6 * t + if i % 3 == 0 { 5e-9 } else { -2e-9 })
            })
            .collect();
        let m = fit_significant(&pts);
        assert!((m.drift - 50e-6).abs() < 2e-6, "{m:?}");
        assert!((m.to_global(10.01) - (10.01 - 1e-3 - 50e-6 * 10.01)).abs() < 1e-7);
    }

    #[test]
    fn slow_round_trips_are_not_trusted() {
        let pts = [
            ((1.0, 5e-6), 1e-6),
            ((1.1, 400e-6), 900e-6),
            ((1.2, 5.1e-6), 1.2e-6),
        ];
        let kept = trusted_points(&pts);
        assert_eq!(kept, vec![(1.0, 5e-6), (1.2, 5.1e-6)]);
        let off = fit_significant(&kept).offset;
        assert!((5e-6 - 1e-12..=5.1e-6 + 1e-12).contains(&off), "{off}");
    }

    #[test]
    fn one_or_two_points_give_offset_only() {
        let m = fit_significant(&[(2.0, 3e-6)]);
        assert_eq!(m.drift, 0.0);
        assert!((m.offset - 3e-6).abs() < 1e-15);
        let m = fit_significant(&[(2.0, 3e-6), (2.001, 3.2e-6)]);
        assert_eq!(m.drift, 0.0);
        assert!(m.offset.is_finite());
    }
}
