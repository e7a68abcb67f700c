//! Per-rank records: what each rank measured at each point, gathered to
//! rank 0 as typed serde structs, and turned into result rows there.

use serde::{Deserialize, Serialize};

use crate::comm::Comm;
use crate::contract::axis::Point;
use crate::contract::{mbytes_per_sec, Combine, Figure, Info, Method};
use crate::method::Spread;
use crate::results::Row;
use crate::stats::{self, Summary};

/// Minimum, maximum and average where there is no figure: NaN (null in the
/// JSON, "-" in tables), never 0.
pub const NO_FIGURE: (f64, f64, f64) = (f64::NAN, f64::NAN, f64::NAN);

/// At most this many values per row are kept in `samples_us`.
pub const KEEP_SAMPLES: usize = 1024;

/// Statistics over the per-repetition values of a point, computed on the
/// first rank of each synchronised set (identical on all of its ranks).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Combined {
    /// Summary of the valid values (µs, scaled).
    #[serde(flatten)]
    pub summary: Summary,
    pub valid: u64,
    pub invalid: u64,
    pub samples: Vec<f64>,
    /// Median global span max(end) − min(start) (µs), when the clocks are synchronised.
    pub global_us: Option<f64>,
    /// Median start skew (µs), when the clocks are synchronised.
    pub skew_us: Option<f64>,
    /// Final window width (µs), with window synchronisation.
    pub window_us: Option<f64>,
    pub stopped_on_bound: Option<bool>,
}

impl Combined {
    /// From the valid values (µs) and the count of invalid ones.
    pub fn of(values: &[f64], invalid: u64) -> Combined {
        let summary = stats::summarize(values);
        Combined {
            summary,
            valid: summary.n as u64,
            invalid,
            samples: stats::order_statistics(values, KEEP_SAMPLES),
            ..Combined::default()
        }
    }
}

/// What one rank measured at one point.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PointRecord {
    /// This rank's times count (it is active in the placement and, for
    /// single transfers timed per call, the initiator).
    pub counted: bool,
    /// Multi mode: the group this rank belongs to.
    pub group: usize,
    /// Own mean per repetition (µs, scaled).
    pub t_mean_us: f64,
    pub reps: usize,
    /// (rank, repetition) pairs that received wrong data.
    pub errors: u64,
    /// Samples that started late (window synchronisation).
    pub late: u64,
    /// Own median per repetition (µs, scaled), for per-repetition methods.
    pub rank_median_us: Option<f64>,
    pub combined: Option<Combined>,
    /// Figures the kernel measured besides the times ([`crate::contract::Kernel::figures`]).
    #[serde(default)]
    pub figures: Vec<Figure>,
    /// This rank's place in its group (the group's order can differ from
    /// the world's with `--pairs`).
    #[serde(default)]
    pub group_rank: Option<usize>,
    /// Split-completion timing: own mean time until the sends and until the
    /// receives of a repetition completed (µs, scaled).
    #[serde(default)]
    pub sides_us: Option<[f64; 2]>,
    /// This rank's page faults [minor, major] in the timed batches.
    #[serde(default)]
    pub faults: [u64; 2],
}

/// All points of one rank.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RankRecord {
    pub rank: usize,
    /// Took part in this process count at all.
    pub in_group: bool,
    pub points: Vec<PointRecord>,
}

/// Gathers every rank's record to rank 0 of `world` (empty elsewhere).
pub fn gather(world: &Comm, mine: &RankRecord) -> Vec<RankRecord> {
    let bytes = serde_json::to_vec(mine).expect("records serialise");
    world
        .gather_bytes(&bytes, 0)
        .iter()
        .map(|b| serde_json::from_slice(b).expect("records from mpibench ranks parse"))
        .collect()
}

/// How a row is made from the records of the ranks that ran one point.
pub struct RowCx<'a> {
    pub info: &'a Info,
    pub method: Method,
    pub point: &'a Point,
    pub checked: bool,
}

/// One row from the records of the ranks that ran this point.
pub fn row(cx: &RowCx, members: &[&PointRecord]) -> Row {
    let mut row = times_row(cx, members);
    faults(&mut row, members);
    row
}

/// Faults per repetition at or above which a row is flagged: every
/// repetition mapped fresh memory (a stray fault in a long loop is not).
pub const FAULTS_FLAG: f64 = 1.0;

/// The row's page faults per repetition (the maximum over its ranks), and
/// the flag and note when the timed region faults.
fn faults(row: &mut Row, members: &[&PointRecord]) {
    let per = |r: &PointRecord, major: bool| {
        let n = if major {
            r.faults[1]
        } else {
            r.faults[0] + r.faults[1]
        };
        // To 0.01: the odd fault of a library's lazily grown free list in
        // a long loop (1 in 20000 repetitions) reads 0.
        (n as f64 / r.reps.max(1) as f64 * 100.0).round() / 100.0
    };
    let counted: Vec<&&PointRecord> = members.iter().filter(|r| r.reps > 0).collect();
    if counted.is_empty() {
        return;
    }
    let all = counted.iter().map(|r| per(r, false)).fold(0.0, f64::max);
    let major = counted.iter().map(|r| per(r, true)).fold(0.0, f64::max);
    row.page_faults = Some(all);
    row.major_page_faults = Some(major);
    if all >= FAULTS_FLAG {
        row.faulted = Some(true);
        let n = format!(
            "page faults in the timed region: {all:.1} per repetition ({major:.1} major) on the worst rank; the time includes mapping fresh memory (see --malloc)"
        );
        row.note = Some(match row.note.take() {
            Some(old) => format!("{old}; {n}"),
            None => n,
        });
    }
}

fn times_row(cx: &RowCx, members: &[&PointRecord]) -> Row {
    let counted: Vec<&&PointRecord> = members.iter().filter(|r| r.counted).collect();
    let comb = members.iter().find_map(|r| r.combined.clone());
    let per_rep = cx.method.per_repetition();
    let (t_min, t_max, t_avg) = match (cx.method.spread(), &comb) {
        (Spread::OverReps, Some(c)) if c.summary.n > 0 => {
            (c.summary.min, c.summary.max, c.summary.mean)
        }
        _ => stats::min_max_avg(&counted.iter().map(|r| r.t_mean_us).collect::<Vec<_>>())
            .unwrap_or(NO_FIGURE),
    };
    let reps = members.iter().map(|r| r.reps).max().unwrap_or(0);
    let x = cx.point.bytes;
    let mut row = Row {
        bytes: x,
        params: cx.point.params.clone(),
        repetitions: reps,
        t_min_us: t_min,
        t_max_us: t_max,
        t_avg_us: t_avg,
        mbytes_per_sec: cx.info.throughput.and_then(|f| mbytes_per_sec(f, x, t_max)),
        errors: cx.checked.then(|| members.iter().map(|r| r.errors).sum()),
        ..Row::default()
    };
    // The values the statistics see: per repetition (combined over ranks),
    // or with loop timing the per-rank means of ranks that started in time.
    let c = if per_rep {
        comb.clone().unwrap_or_default()
    } else {
        let valid: Vec<f64> = counted
            .iter()
            .filter(|r| r.late == 0)
            .map(|r| r.t_mean_us)
            .collect();
        let mut c = Combined::of(&valid, (counted.len() - valid.len()) as u64);
        c.samples.clear();
        if let Some(k) = &comb {
            c.global_us = k.global_us;
            c.skew_us = k.skew_us;
            c.window_us = k.window_us;
            c.stopped_on_bound = k.stopped_on_bound;
        }
        c
    };
    for (name, v) in combine_figures(members) {
        row.params.insert(name, v.into());
    }
    let mut sides: Vec<(usize, [f64; 2])> = members
        .iter()
        .filter_map(|r| Some((r.group_rank?, r.sides_us?)))
        .collect();
    if !sides.is_empty() {
        sides.sort_by_key(|s| s.0);
        row.sides_us = Some(sides.into_iter().map(|s| s.1).collect());
    }
    row.valid = Some(c.valid);
    row.invalid = Some(c.invalid);
    row.t_global_us = c.global_us;
    row.skew_us = c.skew_us;
    row.window_us = c.window_us;
    row.stopped_on_bound = c.stopped_on_bound;
    if c.valid == 0 && c.invalid == 0 {
        // No combined samples here (a -multi group's own row): the times
        // over ranks stand, without statistics.
        if !row.t_avg_us.is_finite() {
            row.note = Some("no valid sample: no rank measured this point".to_string());
        }
        return row;
    }
    if c.valid == 0 {
        // Nothing measured in time: no figure at all (null in the JSON,
        // "-" in tables), rather than one made of late samples.
        row.t_min_us = f64::NAN;
        row.t_max_us = f64::NAN;
        row.t_avg_us = f64::NAN;
        row.mbytes_per_sec = None;
        row.note = Some(format!(
            "no valid sample: all {} started late; statistics are null",
            c.invalid
        ));
        return row;
    }
    summarised(&mut row, &c.summary, per_rep);
    row.discrepant = c
        .global_us
        .and_then(|g| cx.method.discrepant(c.summary.median, g));
    if per_rep {
        row.samples_us = Some(c.samples.clone());
        row.samples_n = Some(c.summary.n as u64);
        let medians: Vec<f64> = counted.iter().filter_map(|r| r.rank_median_us).collect();
        if let Some((lo, hi, avg)) = stats::min_max_avg(&medians) {
            row.t_median_min_us = Some(lo);
            row.t_median_max_us = Some(hi);
            row.t_median_avg_us = Some(avg);
        }
    }
    if cx.method.subtracts() {
        let why = stats::below_resolution(&c.summary, cx.method.figure_is_mean());
        row.below_resolution = Some(why.is_some());
        if let Some(why) = why {
            row.note = Some(format!("below resolution: {why}"));
            // A throughput from a time that cannot be told from zero means nothing.
            row.mbytes_per_sec = None;
        }
    }
    row
}

/// The point statistics of a row are [`stats::Summary`]'s: the row holds
/// them under the JSON's names (an API: `t_median_us`, `t_p5_us`, ...),
/// filled here and nowhere else. With `spread`, the standard deviation too.
pub fn summarised(row: &mut Row, s: &Summary, spread: bool) {
    row.t_median_us = Some(s.median);
    row.t_p5_us = Some(s.p5);
    row.t_p95_us = Some(s.p95);
    row.ci95_lo_us = Some(s.ci95_lo);
    row.ci95_hi_us = Some(s.ci95_hi);
    row.outliers = Some(s.outliers as u64);
    if spread {
        row.t_stddev_us = Some(s.stddev);
    }
}

/// The kernels' figures of one point, each combined over the ranks that
/// report it, in the order they first appear.
fn combine_figures(members: &[&PointRecord]) -> Vec<(String, f64)> {
    let mut names: Vec<(&str, Combine)> = Vec::new();
    for f in members.iter().flat_map(|r| &r.figures) {
        if !names.iter().any(|(n, _)| *n == f.name) {
            names.push((&f.name, f.combine));
        }
    }
    names
        .into_iter()
        .map(|(name, how)| {
            let of = |r: &PointRecord| {
                r.figures
                    .iter()
                    .filter(|f| f.name == name)
                    .map(|f| f.value)
                    .collect::<Vec<f64>>()
            };
            let v: Vec<f64> = members.iter().flat_map(|r| of(r)).collect();
            let (lo, hi, avg) = stats::min_max_avg(&v).unwrap_or(NO_FIGURE);
            let value = match how {
                Combine::Mean => avg,
                Combine::Min => lo,
                Combine::Max => hi,
                Combine::Slowest => members
                    .iter()
                    .filter(|r| !of(r).is_empty() && r.t_mean_us.is_finite())
                    .max_by(|a, b| a.t_mean_us.total_cmp(&b.t_mean_us))
                    .and_then(|r| of(r).first().copied())
                    .unwrap_or(NO_FIGURE.2),
            };
            (name.to_string(), value)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::imb;

    fn rec(t: f64, counted: bool) -> PointRecord {
        PointRecord {
            counted,
            t_mean_us: t,
            reps: 10,
            ..PointRecord::default()
        }
    }

    #[test]
    fn records_round_trip_through_serde() {
        let r = RankRecord {
            rank: 3,
            in_group: true,
            points: vec![PointRecord {
                combined: Some(Combined::of(&[1.0, 2.0, 0.1 + 0.2], 1)),
                rank_median_us: Some(1.5),
                ..rec(1.25, true)
            }],
        };
        let back: RankRecord = serde_json::from_slice(&serde_json::to_vec(&r).unwrap()).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn loop_rows_reduce_over_counted_ranks() {
        let info = imb::find("Sendrecv").unwrap().info();
        let p = Point::bytes(1 << 20);
        let cx = RowCx {
            info,
            method: Method::Loop,
            point: &p,
            checked: true,
        };
        let (a, b, idle) = (rec(2.0, true), rec(4.0, true), rec(0.01, false));
        let r = row(&cx, &[&a, &b, &idle]);
        assert_eq!((r.t_min_us, r.t_max_us, r.t_avg_us), (2.0, 4.0, 3.0));
        // Throughput from t_max: 2X / 1.048576 / t.
        assert!((r.mbytes_per_sec.unwrap() - 2.0 * (1 << 20) as f64 / 1.048576 / 4.0).abs() < 1e-9);
        assert_eq!(r.errors, Some(0));
        assert_eq!(r.valid, Some(2));
        assert!(r.samples_us.is_none());
    }

    #[test]
    fn a_row_without_valid_samples_has_null_statistics_and_a_note() {
        let info = imb::find("PingPong").unwrap().info();
        let p = Point::bytes(8);
        let cx = RowCx {
            info,
            method: Method::PerCall,
            point: &p,
            checked: false,
        };
        let mut a = rec(1.0, true);
        a.combined = Some(Combined::of(&[], 1000));
        let r = row(&cx, &[&a]);
        assert_eq!(r.t_median_us, None);
        assert_eq!(r.valid, Some(0));
        assert_eq!(r.invalid, Some(1000));
        assert!(r.note.as_ref().unwrap().contains("no valid sample"));
        assert!(r.t_min_us.is_nan() && r.t_max_us.is_nan() && r.t_avg_us.is_nan());
        assert_eq!(r.mbytes_per_sec, None);
        let json = serde_json::to_value(&r).unwrap();
        assert!(json["t_avg_us"].is_null(), "{json}");
    }

    #[test]
    fn differences_whose_ci_contains_zero_are_below_resolution() {
        let info = crate::bench::mpitest::find("BARRIER").unwrap().info();
        let p = Point::bytes(0);
        let cx = RowCx {
            info,
            method: Method::Mpitest,
            point: &p,
            checked: false,
        };
        let mut a = rec(0.01, true);
        a.combined = Some(Combined::of(&[-0.2, 0.1, -0.05, 0.3, 0.0, -0.1, 0.2], 0));
        let r = row(&cx, &[&a]);
        assert_eq!(r.below_resolution, Some(true));
        assert!(r.note.is_some());
        a.combined = Some(Combined::of(&[1.0, 1.1, 0.9, 1.2, 1.05, 0.95, 1.0], 0));
        let r = row(&cx, &[&a]);
        assert_eq!(r.below_resolution, Some(false));
        assert_eq!(r.samples_n, Some(7));
    }

    #[test]
    fn below_resolution_and_non_positive_times_have_no_throughput() {
        let info = crate::bench::mpitest::find("BLOCKING SEND").unwrap().info();
        assert!(info.throughput.is_some());
        let p = Point::bytes(400).with("n", 100);
        let cx = RowCx {
            info,
            method: Method::Mpitest,
            point: &p,
            checked: false,
        };
        let mut a = rec(1.0, true);
        a.combined = Some(Combined::of(&[2.0, 2.1, 1.9, 2.2, 2.05, 1.95, 2.0], 0));
        let r = row(&cx, &[&a]);
        assert_eq!(r.below_resolution, Some(false));
        assert!(r.mbytes_per_sec.unwrap() > 0.0);
        // The CI of the median contains zero.
        a.combined = Some(Combined::of(&[-0.2, 0.1, -0.05, 0.3, 0.0, -0.1, 0.2], 0));
        let r = row(&cx, &[&a]);
        assert_eq!(r.below_resolution, Some(true));
        assert_eq!(r.mbytes_per_sec, None, "{r:?}");
        // A median clear of zero, a mean below it: the printed t is no time.
        let mut skewed: Vec<f64> = (0..29).map(|i| 0.1 + 0.001 * f64::from(i)).collect();
        skewed.push(-50.0);
        a.combined = Some(Combined::of(&skewed, 0));
        let r = row(&cx, &[&a]);
        assert_eq!(r.below_resolution, Some(true));
        assert!(r.note.unwrap().contains("mean is not positive"));
        assert_eq!(r.mbytes_per_sec, None);
        // Every sample at or below zero: the max is no time either.
        a.combined = Some(Combined::of(&[-3.0, -2.0, -2.5, -2.2, -2.9, -2.1, -2.4], 0));
        let r = row(&cx, &[&a]);
        assert_eq!(r.mbytes_per_sec, None);
    }

    #[test]
    fn a_group_row_without_counted_ranks_is_null_with_a_note() {
        let info = imb::find("Sendrecv").unwrap().info();
        let p = Point::bytes(8);
        let cx = RowCx {
            info,
            method: Method::Loop,
            point: &p,
            checked: false,
        };
        let idle = rec(0.5, false);
        let r = row(&cx, &[&idle]);
        assert!(r.t_avg_us.is_nan() && r.t_min_us.is_nan() && r.t_max_us.is_nan());
        assert_eq!(r.mbytes_per_sec, None);
        assert!(r.note.unwrap().contains("no valid sample"));
    }

    #[test]
    fn figures_combine_over_the_ranks_that_report_them() {
        let info = imb::find("Bcast").unwrap().info();
        let p = Point::bytes(64).with("scenario", 3);
        let cx = RowCx {
            info,
            method: Method::GlobalCompletion,
            point: &p,
            checked: false,
        };
        let fig = |v: f64| {
            vec![
                Figure::new("calc_us", v, Combine::Mean),
                Figure::new("calc_min_us", v - 1.0, Combine::Min),
                Figure::new("calc_max_us", v + 1.0, Combine::Max),
            ]
        };
        let mut a = rec(9.0, true);
        a.combined = Some(Combined::of(&[10.0], 0));
        a.figures = fig(4.0);
        let mut b = rec(9.0, true);
        b.figures = fig(8.0);
        let r = row(&cx, &[&a, &b, &rec(1.0, true)]);
        assert_eq!(r.params["scenario"], 3);
        assert_eq!(r.params["calc_us"], 6.0);
        assert_eq!(r.params["calc_min_us"], 3.0);
        assert_eq!(r.params["calc_max_us"], 9.0);
        let r = row(&cx, &[&rec(1.0, true)]);
        assert_eq!(r.params.len(), 1);
    }

    #[test]
    fn a_slowest_figure_is_the_slowest_ranks() {
        let info = imb::find("Bcast").unwrap().info();
        let p = Point::bytes(64);
        let cx = RowCx {
            info,
            method: Method::PerCall,
            point: &p,
            checked: false,
        };
        let with = |t: f64, v: f64| {
            let mut r = rec(t, true);
            r.figures = vec![Figure::new("t_pure_us", v, Combine::Slowest)];
            r
        };
        // The rank of 9 µs is the slowest: its 2.0, not the largest (7.0)
        // nor the mean.
        let (a, b, c) = (with(5.0, 7.0), with(9.0, 2.0), with(1.0, 4.0));
        let r = row(&cx, &[&a, &b, &c]);
        assert_eq!(r.params["t_pure_us"], 2.0);
        // A slower rank that reports no such figure does not count.
        let r = row(&cx, &[&a, &rec(20.0, true), &c]);
        assert_eq!(r.params["t_pure_us"], 7.0);
    }

    #[test]
    fn completion_rows_spread_over_repetitions() {
        let info = imb::find("Bcast").unwrap().info();
        let p = Point::bytes(64);
        let cx = RowCx {
            info,
            method: Method::GlobalCompletion,
            point: &p,
            checked: false,
        };
        let mut a = rec(9.0, true);
        a.combined = Some(Combined::of(&[10.0, 12.0, 14.0], 0));
        let r = row(&cx, &[&a, &rec(1.0, true)]);
        assert_eq!((r.t_min_us, r.t_max_us, r.t_avg_us), (10.0, 14.0, 12.0));
        assert!((r.t_stddev_us.unwrap() - 2.0).abs() < 1e-12);
    }
}
