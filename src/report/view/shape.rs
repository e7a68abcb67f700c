//! A section's shape: its plotted rows and how its parameters vary over
//! them, from which the figures are chosen.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::figure::{Axis, Figure, Kind, Series};
use super::labels::{param_value, params_label};
use super::parts::PartsOf;
use super::run::Run;
use super::series::{cap, distinct_f64, items, run_legend, y_label, Grouper, Item};
use super::Section;

/// What the figures of a section are drawn from: its rows, and how its
/// parameters vary over them.
pub(super) struct Shape<'a, 'x> {
    pub(super) s: &'x Section<'a>,
    pub(super) runs: &'x [Run<'x>],
    /// The suites' parts of the report (identifiers, fitted models).
    pub(super) parts: PartsOf,
    pub(super) its: Vec<Item<'a>>,
    pub(super) legend: Vec<(String, String, usize)>,
    /// The process counts and message sizes of the section.
    pub(super) procs: Vec<f64>,
    pub(super) sizes: Vec<f64>,
    /// Parameters with one value in the whole section (they label no series).
    pub(super) constant: Vec<String>,
    /// The others, and those of them the message size determines.
    pub(super) varying: Vec<String>,
    pub(super) size_bound: Vec<String>,
    /// Numeric parameters with three or more values: axes of their own.
    pub(super) numeric_axes: Vec<String>,
    /// Another varying parameter splits series without an axis.
    pub(super) categorical_varies: bool,
    /// Message size varies for one set of other parameters.
    pub(super) sized: bool,
    pub(super) ylab: String,
}

pub(super) fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

pub(super) fn join(parts: &[String]) -> String {
    parts
        .iter()
        .filter(|p| !p.is_empty())
        .cloned()
        .collect::<Vec<_>>()
        .join(", ")
}

pub(super) fn pv(it: &Item<'_>, k: &str) -> String {
    it.params.get(k).map_or(String::new(), |v| v.to_string())
}

pub(super) fn bytes_of(it: &Item<'_>) -> String {
    it.row.bytes.to_string()
}

impl<'a, 'x> Shape<'a, 'x> {
    pub(super) fn of(s: &'x Section<'a>, runs: &'x [Run<'x>], parts: PartsOf) -> Shape<'a, 'x> {
        let its = items(s, runs);
        let used: BTreeSet<usize> = its.iter().map(|i| i.run).collect();
        let legend = run_legend(runs, &used, runs.len());
        let procs = distinct_f64(its.iter().map(|i| i.res.processes as f64));
        let sizes = distinct_f64(its.iter().map(|i| i.row.bytes as f64));
        // Parameters: the values each takes over the section.
        let mut values: BTreeMap<String, Vec<Value>> = BTreeMap::new();
        for it in &its {
            for (k, v) in &it.params {
                values.entry(k.clone()).or_default().push(v.clone());
            }
        }
        let distinct = |vs: &[Value]| vs.iter().map(|v| v.to_string()).collect::<BTreeSet<_>>();
        let constant: Vec<String> = values
            .iter()
            .filter(|(_, vs)| distinct(vs).len() == 1)
            .map(|(k, _)| k.clone())
            .collect();
        let varying: Vec<String> = values
            .keys()
            .filter(|k| !constant.contains(k))
            .cloned()
            .collect();
        // Parameters the message size determines (ALLREDUCE's element count n,
        // a halo's n and ndata): another name for the size, never a series of
        // their own.
        let size_bound: Vec<String> = varying
            .iter()
            .filter(|k| determines(&its, bytes_of, |it| pv(it, k)))
            .cloned()
            .collect();
        // Message size is an axis of its own when it varies for one set of other
        // parameters (IMB); not when the parameters determine it (COMMTEST's
        // packets · packet_bytes).
        let mut per_point: BTreeMap<(usize, usize, String), BTreeSet<usize>> = BTreeMap::new();
        for it in &its {
            per_point
                .entry((
                    it.run,
                    it.res.processes,
                    params_label(&it.params, &strs(&size_bound)),
                ))
                .or_default()
                .insert(it.row.bytes);
        }
        let sized = per_point
            .values()
            .any(|b| b.iter().filter(|&&x| x > 0).count() >= 2);
        // Numeric parameters with three or more values are axes; identifiers
        // (a rank, those the suite declares: CRESTA's scenario), two-valued
        // switches and the other varying parameters split series. A
        // size-bound parameter proportional to the size (ndata = bytes/8)
        // and one equal to an earlier axis on every row (a halo's nx = n)
        // draw no figure of their own.
        let mut numeric_axes: Vec<String> = Vec::new();
        let mut categorical_varies = false;
        for k in &varying {
            let vs = &values[k];
            let numeric = vs.iter().all(|v| v.is_number());
            let id_like = k.ends_with("rank")
                || its
                    .iter()
                    .any(|it| parts(&it.res.suite).identifiers.contains(&k.as_str()));
            if numeric && distinct(vs).len() > 2 && !id_like {
                let rescaled_size = size_bound.contains(k) && proportional_to_size(&its, k);
                let same_as_earlier = numeric_axes
                    .iter()
                    .any(|j| its.iter().all(|it| it.params.get(j) == it.params.get(k)));
                if !rescaled_size && !same_as_earlier {
                    numeric_axes.push(k.clone());
                }
            } else if !size_bound.contains(k) {
                categorical_varies = true;
            }
        }
        let ylab = y_label(&its, runs);
        Shape {
            s,
            runs,
            parts,
            its,
            legend,
            procs,
            sizes,
            constant,
            varying,
            size_bound,
            numeric_axes,
            categorical_varies,
            sized,
            ylab,
        }
    }

    pub(super) fn id(&self, kind: &str) -> String {
        format!("{}-{kind}", self.s.id)
    }

    /// The process count, where it varies (or in Multi mode).
    pub(super) fn p_key(&self, it: &Item<'_>) -> String {
        if self.procs.len() > 1 || self.s.mode == "multi" {
            format!("P={}", it.res.processes)
        } else {
            String::new()
        }
    }

    /// A series label of the parameters, without `skip` and the constant ones.
    pub(super) fn plabel(&self, params: &BTreeMap<String, Value>, skip: &[&str]) -> String {
        let mut sk: Vec<&str> = skip.to_vec();
        sk.extend(self.constant.iter().map(String::as_str));
        params_label(params, &sk)
    }

    pub(super) fn constant_note(&self) -> Option<String> {
        self.its.first().and_then(|it| {
            let l: Vec<String> = self
                .constant
                .iter()
                .filter_map(|k| it.params.get(k).map(|v| format!("{k}={}", param_value(v))))
                .collect();
            (!l.is_empty()).then(|| format!("All rows: {}.", l.join(", ")))
        })
    }

    pub(super) fn lines(
        &self,
        id: String,
        title: String,
        x: Axis,
        y: Axis,
        series: Vec<Series>,
        notes: Vec<String>,
    ) -> Figure {
        let mut f = Figure {
            id,
            title,
            kind: Kind::Lines,
            x,
            y,
            series,
            heat: None,
            runs: self.legend.clone(),
            notes,
        };
        cap(&mut f);
        f
    }

    /// The rows of sized messages grouped into series by process count and
    /// the parameters the size does not determine.
    pub(super) fn by_size(&self) -> Grouper<'a, '_> {
        let mut g = Grouper::new();
        for it in self.its.iter().filter(|i| i.row.bytes > 0) {
            g.add(
                it.run,
                join(&[
                    self.p_key(it),
                    self.plabel(&it.params, &strs(&self.size_bound)),
                ]),
                it,
            );
        }
        g
    }
}

/// True when `to` is a function of `from` over the items: each value of
/// `from` goes with one value of `to`.
pub(super) fn determines<'a>(
    its: &[Item<'a>],
    from: impl Fn(&Item<'a>) -> String,
    to: impl Fn(&Item<'a>) -> String,
) -> bool {
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    its.iter().all(|it| {
        let v = to(it);
        seen.entry(from(it)).or_insert_with(|| v.clone()) == &v
    })
}

/// True when parameter `k` is the message size in other units on every
/// row: k = c · bytes for one c (ALLREDUCE's n = bytes/8).
pub(super) fn proportional_to_size(its: &[Item<'_>], k: &str) -> bool {
    let mut c: Option<f64> = None;
    its.iter().all(|it| {
        let Some(v) = it.params.get(k).and_then(|v| v.as_f64()) else {
            return false;
        };
        if it.row.bytes == 0 {
            return v == 0.0;
        }
        let r = v / it.row.bytes as f64;
        let c0 = *c.get_or_insert(r);
        (r - c0).abs() <= 1e-9 * c0.abs()
    })
}
