//! The figures of a section, drawn from its shape: time against size,
//! bandwidth, time against each numeric parameter and against process
//! count, bars by case, and the heatmaps.

use super::figure::{Axis, Figure, Kind, Point, Scale, Style, Ticks};
use super::heatmap::heatmaps;
use super::labels::size_label;
use super::parts::PartsOf;
use super::run::Run;
use super::series::{
    auto_scale, band_note, fit_series, make_series, make_series_with, Grouper, Item,
};
use super::shape::{bytes_of, determines, join, pv, strs, Shape};
use super::{slug, Section};

impl<'a, 'x> Shape<'a, 'x> {
    /// 1. Time against message size (log-log), with the error band.
    fn latency(&self) -> Figure {
        let series = make_series(self.by_size(), self.runs, self.runs.len(), |it| {
            Some(Point {
                x: it.row.bytes as f64,
                y: it.y,
                band: it.band.map(|b| b.0),
                range: None,
            })
        });
        let mut notes: Vec<String> = band_note(&self.its).into_iter().collect();
        if self.its.iter().any(|i| i.row.bytes == 0) {
            notes.push("0-byte rows are in the table (no place on a log axis).".into());
        }
        self.lines(
            self.id("latency"),
            format!("{}: time against message size", self.s.title),
            Axis::new("message size [bytes]", Scale::Log2, Ticks::Bytes),
            Axis::new(&self.ylab, Scale::Log10, Ticks::Number),
            series,
            notes,
        )
    }

    /// 2. Bandwidth against message size, where the suite defines a throughput.
    fn bandwidth(&self) -> Option<Figure> {
        if !self.its.iter().any(|i| i.row.mbytes_per_sec.is_some()) {
            return None;
        }
        let series = make_series(self.by_size(), self.runs, self.runs.len(), |it| {
            it.row
                .mbytes_per_sec
                .filter(|v| v.is_finite() && *v > 0.0)
                .map(|mb| Point {
                    x: it.row.bytes as f64,
                    y: mb,
                    band: None,
                    range: None,
                })
        });
        Some(self.lines(
            self.id("bandwidth"),
            format!("{}: bandwidth against message size", self.s.title),
            Axis::new("message size [bytes]", Scale::Log2, Ticks::Bytes),
            Axis::new(
                "bandwidth [MB/s] (MB = 2^20 bytes)",
                Scale::Log10,
                Ticks::Number,
            ),
            series,
            Vec::new(),
        ))
    }

    /// 3. Time against a numeric parameter (halo n, t_delay, t_calc, packets, ...).
    fn against(&self, k: &str) -> Figure {
        let its = &self.its;
        // Parameters that follow from the size and this one (COMMTEST's
        // packet_bytes = V/packets) split no series here; the size does
        // unless this parameter determines it.
        let by_size_and_k = |it: &Item<'_>| format!("{} {}", it.row.bytes, pv(it, k));
        let mut skip: Vec<&str> = self
            .varying
            .iter()
            .map(String::as_str)
            .filter(|&j| j != k && determines(its, by_size_and_k, |it| pv(it, j)))
            .collect();
        skip.push(k);
        let size_splits = self.sizes.len() > 1 && !determines(its, |it| pv(it, k), bytes_of);
        let size_key = |it: &Item<'_>| {
            if size_splits {
                size_label(it.row.bytes)
            } else {
                String::new()
            }
        };
        let mut g = Grouper::new();
        for it in its.iter().filter(|i| i.params.contains_key(k)) {
            g.add(
                it.run,
                join(&[self.p_key(it), size_key(it), self.plabel(&it.params, &skip)]),
                it,
            );
        }
        let at = |it: &Item<'_>| it.params.get(k).and_then(|v| v.as_f64());
        let series = make_series_with(
            g,
            self.runs,
            self.runs.len(),
            |it| {
                at(it).map(|x| Point {
                    x,
                    y: it.y,
                    band: it.band.map(|b| b.0),
                    range: None,
                })
            },
            |data, members| fit_series(data, members, &at, self.parts),
        );
        let xs: Vec<f64> = its.iter().filter_map(at).collect();
        let ys: Vec<f64> = its.iter().map(|i| i.y).collect();
        let mut notes: Vec<String> = band_note(its).into_iter().collect();
        if series.iter().any(|s| s.style == Style::Fit) {
            notes.push(
                "Dashed: the fitted model t(k) = k·α + V/β (k packets of the fixed volume V; β in MB/s, MB = 2^20 bytes)."
                    .into(),
            );
        }
        self.lines(
            self.id(&format!("vs-{}", slug(k))),
            format!("{}: time against {k}", self.s.title),
            Axis::new(k, auto_scale(&xs, 16.0), Ticks::Number),
            Axis::new(&self.ylab, auto_scale(&ys, 16.0), Ticks::Number),
            series,
            notes,
        )
    }

    /// 5. Time against process count, min–max bars over ranks (3 sizes).
    fn against_processes(&self) -> Figure {
        let chosen: Vec<f64> = if self.sized {
            let pos: Vec<f64> = self.sizes.iter().copied().filter(|b| *b > 0.0).collect();
            let mut c = vec![pos[0], pos[pos.len() / 2], pos[pos.len() - 1]];
            c.dedup();
            c
        } else {
            self.sizes.clone()
        };
        let mut g = Grouper::new();
        for it in self
            .its
            .iter()
            .filter(|i| chosen.contains(&(i.row.bytes as f64)))
        {
            let size = if self.sized {
                size_label(it.row.bytes)
            } else {
                String::new()
            };
            g.add(
                it.run,
                join(&[size, self.plabel(&it.params, &strs(&self.size_bound))]),
                it,
            );
        }
        let series = make_series(g, self.runs, self.runs.len(), |it| {
            let range = (it.row.t_min_us.is_finite()
                && it.row.t_max_us.is_finite()
                && it.row.t_max_us > it.row.t_min_us)
                .then_some((it.row.t_min_us, it.row.t_max_us));
            Some(Point {
                x: it.res.processes as f64,
                y: it.y,
                band: None,
                range,
            })
        });
        let ys: Vec<f64> = self.its.iter().map(|i| i.y).collect();
        let mut notes = vec!["Bars: t_min–t_max over ranks.".to_string()];
        if self.sized {
            notes.push("Three message sizes: the smallest, a middle and the largest.".into());
        }
        let mut x = Axis::new("processes", auto_scale(&self.procs, 16.0), Ticks::Number);
        if self.procs.len() <= 16 {
            x.fixed_ticks = self.procs.clone();
        }
        self.lines(
            self.id("vs-processes"),
            format!("{}: time against process count", self.s.title),
            x,
            Axis::new(&self.ylab, auto_scale(&ys, 16.0), Ticks::Number),
            series,
            notes,
        )
    }

    /// 4. Categories without a numeric axis (coarray sync kinds): bars with CIs.
    fn bars(&self) -> Figure {
        let by_params = self
            .its
            .iter()
            .any(|it| !self.plabel(&it.params, &[]).is_empty());
        let cat_of = |it: &Item<'_>| {
            if by_params {
                self.plabel(&it.params, &[])
            } else {
                format!("P={}", it.res.processes)
            }
        };
        let key_of = |it: &Item<'_>| {
            if by_params {
                self.p_key(it)
            } else {
                String::new()
            }
        };
        bar_figure(
            self.s,
            self.runs,
            &self.its,
            &cat_of,
            &key_of,
            &self.legend,
            &self.ylab,
        )
    }
}

/// The figures of one section (see the module doc of `report::html` for the list).
pub(super) fn figures(s: &Section<'_>, runs: &[Run], parts: PartsOf) -> Vec<Figure> {
    let sh = Shape::of(s, runs, parts);
    let mut figs = Vec::new();
    if sh.sized {
        figs.push(sh.latency());
        figs.extend(sh.bandwidth());
    }
    for k in &sh.numeric_axes {
        figs.push(sh.against(k));
    }
    let bars = sh.categorical_varies && sh.numeric_axes.is_empty() && !sh.sized;
    if sh.procs.len() > 1 && !bars {
        figs.push(sh.against_processes());
    }
    if bars || (figs.is_empty() && !sh.its.is_empty()) {
        figs.push(sh.bars());
    }
    if let Some(n) = sh.constant_note() {
        for f in &mut figs {
            f.notes.push(n.clone());
        }
    }
    figs.extend(heatmaps(s, runs));
    figs
}

/// Grouped bars: one group per category, one bar per series (run, and
/// process count when the categories are parameters), error bars from the band.
fn bar_figure(
    s: &Section<'_>,
    runs: &[Run],
    its: &[Item<'_>],
    cat_of: &dyn Fn(&Item<'_>) -> String,
    key_of: &dyn Fn(&Item<'_>) -> String,
    legend: &[(String, String, usize)],
    ylab: &str,
) -> Figure {
    let mut cats: Vec<String> = Vec::new();
    let mut g = Grouper::new();
    for it in its {
        let c = cat_of(it);
        if !cats.contains(&c) {
            cats.push(c);
        }
        g.add(it.run, key_of(it), it);
    }
    let series = make_series(g, runs, runs.len(), |it| {
        Some(Point {
            x: cats.iter().position(|c| *c == cat_of(it)).unwrap_or(0) as f64,
            y: it.y,
            band: it.band.map(|b| b.0),
            range: None,
        })
    });
    let mut x = Axis::new("", Scale::Linear, Ticks::Category);
    x.categories = cats;
    Figure {
        id: format!("{}-bars", s.id),
        title: format!("{}: time by case", s.title),
        kind: Kind::Bars,
        x,
        y: Axis::new(ylab, Scale::Linear, Ticks::Number),
        series,
        heat: None,
        runs: legend.to_vec(),
        notes: band_note(its)
            .map(|n| vec![n.replace("Shaded band", "Error bars")])
            .unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use crate::report::plot::tests::{report, result, row, with};
    use crate::report::view::rows::measured_param;
    use crate::report::view::{runs, sections, Figure};
    use crate::results::{BenchResult, Report, Row};
    use serde_json::json;

    fn figure_ids(reports: &[Report]) -> Vec<String> {
        let runs = runs(reports.iter().map(|r| ("r.json".to_string(), r)).collect());
        sections(&runs, crate::plugin::lookup::report_parts)
            .iter()
            .flat_map(|s| s.figures.iter().map(|f| f.id.clone()))
            .collect()
    }

    fn the_figure(reports: &[Report], id: &str) -> Figure {
        let runs = runs(reports.iter().map(|r| ("r.json".to_string(), r)).collect());
        sections(&runs, crate::plugin::lookup::report_parts)
            .into_iter()
            .flat_map(|s| s.figures)
            .find(|f| f.id == id)
            .unwrap_or_else(|| panic!("no {id} in {:?}", figure_ids(reports)))
    }

    /// Which figures a section's shape draws: sizes and process counts give
    /// time against size and against processes; a throughput adds
    /// bandwidth; a categorical parameter alone gives bars.
    #[test]
    fn the_shape_chooses_the_figures() {
        let sized: Vec<BenchResult> = [2, 4]
            .into_iter()
            .map(|p| {
                let rows = (0..4)
                    .map(|e| {
                        let mut r = row(1 << e, p as f64 + e as f64);
                        r.mbytes_per_sec = Some(1.0);
                        r
                    })
                    .collect();
                result("imb", "Allreduce", p, rows)
            })
            .collect();
        let reports = [report("Open MPI v4.1.4", "loop", sized)];
        assert_eq!(
            figure_ids(&reports),
            [
                "imb-allreduce-primary-latency",
                "imb-allreduce-primary-bandwidth",
                "imb-allreduce-primary-vs-processes"
            ]
        );
        let f = the_figure(&reports, "imb-allreduce-primary-vs-processes");
        assert_eq!(f.x.fixed_ticks, [2.0, 4.0]);
        let kinds: Vec<Row> = ["fence", "lock", "pscw"]
            .iter()
            .map(|k| with(row(8, 1.0), json!({"sync": k})))
            .collect();
        let reports = [report(
            "Open MPI v4.1.4",
            "loop",
            vec![result("caf", "sync", 2, kinds)],
        )];
        assert_eq!(figure_ids(&reports), ["caf-sync-primary-bars"]);
        let f = the_figure(&reports, "caf-sync-primary-bars");
        assert_eq!(f.x.categories, ["sync=fence", "sync=lock", "sync=pscw"]);
    }

    /// ALLREDUCE rows carry n = bytes/8, one value per size: time against
    /// size, one series per algorithm; n is the size again, no figure.
    #[test]
    fn parameters_the_size_determines_split_no_series() {
        let rows: Vec<Row> = ["mpi", "recursive-doubling", "ring"]
            .iter()
            .enumerate()
            .flat_map(|(a, alg)| {
                (0..8).map(move |e| {
                    let n = 1usize << e;
                    with(
                        row(8 * n, 1.0 + a as f64 + n as f64 / 100.0),
                        json!({"n": n, "algorithm": alg}),
                    )
                })
            })
            .collect();
        let a = report(
            "Open MPI v4.1.4",
            "per-call",
            vec![result("allreduce", "allreduce", 4, rows)],
        );
        let reports = [a];
        assert_eq!(
            figure_ids(&reports),
            ["allreduce-allreduce-primary-latency"]
        );
        let f = the_figure(&reports, "allreduce-allreduce-primary-latency");
        let labels: Vec<&str> = f.series.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "algorithm=mpi",
                "algorithm=recursive-doubling",
                "algorithm=ring"
            ]
        );
        assert!(f.series.iter().all(|s| s.points.len() == 8));
    }

    /// Halo rows as the engine writes them: bytes = 8·ndata, n = nx = ny = nz
    /// and ndata follow from the size; time against size and against n.
    #[test]
    fn halo_rows_plot_against_size_and_n() {
        let mut rows = Vec::new();
        for sync in ["global", "p2p"] {
            for n in [10usize, 50, 100, 150] {
                let nd = 6 * n * n;
                let mut r = with(
                    row(nd * 8, n as f64 * if sync == "p2p" { 2.0 } else { 1.0 }),
                    json!({"mode": "put-put", "n": n, "nx": n, "ny": n, "nz": n, "ndata": nd,
                           "codims": "2x2x1", "sync": sync, "window": "create",
                           "rma_sync": "lockall"}),
                );
                r.mbytes_per_sec = Some(1.0);
                rows.push(r);
            }
        }
        let reports = [report(
            "Open MPI v4.1.4",
            "per-call",
            vec![result("caf", "halo put-put", 4, rows)],
        )];
        assert_eq!(
            figure_ids(&reports),
            [
                "caf-halo-put-put-primary-latency",
                "caf-halo-put-put-primary-bandwidth",
                "caf-halo-put-put-primary-vs-n"
            ]
        );
        for id in [
            "caf-halo-put-put-primary-latency",
            "caf-halo-put-put-primary-vs-n",
        ] {
            let f = the_figure(&reports, id);
            let labels: Vec<&str> = f.series.iter().map(|s| s.label.as_str()).collect();
            assert_eq!(labels, ["sync=global", "sync=p2p"], "{id}");
        }
    }

    /// LogGP declares its measured params: no figure against them, and two
    /// runs with other measured values match row for row.
    #[test]
    fn measured_params_are_declared_not_guessed() {
        let run = |f: f64| {
            let rows = (0..6)
                .map(|e| {
                    with(
                        row(1 << e, f * (1.0 + e as f64)),
                        json!({"n": 10, "prtt_1_0_us": f * (1.0 + e as f64),
                               "prtt_n_0_us": f * 3.0 * (1.0 + e as f64), "prtt_n_d_us": f * 9.0,
                               "d_us": f, "gap_us": f * 0.3, "o_s_us": f * 0.1, "o_r_us": f * 0.2}),
                    )
                })
                .collect();
            let mut r = result("commtest", "loggp", 2, rows);
            r.measured_params = crate::bench::commtest::loggp::MEASURED
                .iter()
                .map(|k| k.to_string())
                .collect();
            report("Open MPI v4.1.4", "per-call", vec![r])
        };
        let (a, b) = (run(1.0), run(1.1));
        assert_eq!(
            figure_ids(std::slice::from_ref(&a)),
            ["commtest-loggp-primary-latency"]
        );
        assert!(measured_param(&a.results[0], "o_s_us"));
        assert!(!measured_param(&a.results[0], "n"));
        // Files written before `measured_params`: CRESTA's names.
        assert!(measured_param(&a.results[0], "t_calc_achieved_us"));
        let c = crate::report::compare::compare(("a", &a), ("b", &b), Default::default());
        assert_eq!(c.rows.len(), 6);
        assert!(c.only_in_a.is_empty() && c.only_in_b.is_empty());
        assert_eq!(c.rows[0].key.params.len(), 1);
    }
}
