//! The series of a history: per case and machine, every stored run's
//! figure in time order (start time, then run id); the cases a command
//! names (`[SUITE/]BENCHMARK[:SIZE][@PROCESSES]`); and what changed
//! between two runs of a series (library, MPI variables, kernel, ...).

use std::collections::BTreeMap;

use super::store::{Case, Point, RunRecord};
use crate::results::Context;

/// One run's figure in a series.
#[derive(Debug, Clone)]
pub struct Entry<'a> {
    pub run: &'a RunRecord,
    pub statistic: String,
    pub value_us: Option<f64>,
    pub ci_us: Option<(f64, f64)>,
}

impl Entry<'_> {
    /// A point of the series: a finished run with a positive figure.
    pub fn used(&self) -> bool {
        self.run.usable && self.value_us.is_some_and(|v| v > 0.0 && v.is_finite())
    }
}

/// One case on one machine.
#[derive(Debug, Clone)]
pub struct Series<'a> {
    pub machine: String,
    pub case: Case,
    pub entries: Vec<Entry<'a>>,
}

impl Series<'_> {
    pub fn used(&self) -> Vec<&Entry<'_>> {
        self.entries.iter().filter(|e| e.used()).collect()
    }
}

/// A case a command names.
#[derive(Debug, Clone, PartialEq)]
pub struct Filter {
    pub text: String,
    suite: Option<String>,
    benchmark: String,
    bytes: Option<usize>,
    processes: Option<usize>,
}

/// `[SUITE/]BENCHMARK[:SIZE][@PROCESSES]` (sizes with K/M/G suffixes).
pub fn parse_filter(s: &str) -> Result<Filter, String> {
    let bad = |why: String| {
        format!("case '{s}': {why} (a case is [SUITE/]BENCHMARK[:SIZE][@PROCESSES], e.g. imb/PingPong:1K@2)")
    };
    let (rest, processes) = match s.rsplit_once('@') {
        Some((r, p)) => (
            r,
            Some(
                p.trim()
                    .parse::<usize>()
                    .map_err(|_| bad(format!("'{p}' is not a process count")))?,
            ),
        ),
        None => (s, None),
    };
    let (rest, bytes) = match rest.rsplit_once(':') {
        Some((r, b)) => (
            r,
            Some(crate::units::parse_size(b.trim()).map_err(|e| bad(e.to_string()))?),
        ),
        None => (rest, None),
    };
    let (suite, benchmark) = match rest.split_once('/') {
        Some((s, b)) => (Some(s.trim().to_string()), b.trim().to_string()),
        None => (None, rest.trim().to_string()),
    };
    if benchmark.is_empty() || suite.as_deref() == Some("") {
        return Err(bad("no benchmark named".into()));
    }
    Ok(Filter {
        text: s.to_string(),
        suite,
        benchmark,
        bytes,
        processes,
    })
}

impl Filter {
    pub fn matches(&self, c: &Case) -> bool {
        let k = &c.key;
        self.suite
            .as_ref()
            .is_none_or(|s| s.eq_ignore_ascii_case(&k.suite))
            && self.benchmark.eq_ignore_ascii_case(&k.benchmark)
            && self.bytes.is_none_or(|b| b == k.bytes)
            && self.processes.is_none_or(|p| p == k.processes)
    }
}

/// The order of series: suite, benchmark, mode, method, processes, size,
/// parameters, machine.
fn order(s: &Series) -> (String, String, String, String, usize, usize, String, String) {
    let k = &s.case.key;
    (
        k.suite.clone(),
        k.benchmark.clone(),
        k.mode.clone(),
        s.case.method.clone(),
        k.processes,
        k.bytes,
        s.case.canon(),
        s.machine.clone(),
    )
}

/// The series of every case the filters name (all without filters), each
/// in time order. A filter that names no stored case is an error.
pub fn series<'a>(
    runs: &'a [RunRecord],
    points: Vec<Point>,
    filters: &[Filter],
) -> Result<Vec<Series<'a>>, String> {
    let by_id: BTreeMap<i64, &RunRecord> = runs.iter().map(|r| (r.id, r)).collect();
    let mut all: BTreeMap<(String, String), Series<'a>> = BTreeMap::new();
    for p in points {
        let Some(&run) = by_id.get(&p.run) else {
            continue;
        };
        let s = all
            .entry((run.machine.clone(), p.case.canon()))
            .or_insert_with(|| Series {
                machine: run.machine.clone(),
                case: p.case.clone(),
                entries: Vec::new(),
            });
        s.entries.push(Entry {
            run,
            statistic: p.statistic,
            value_us: p.value_us,
            ci_us: p.ci_us,
        });
    }
    for f in filters {
        if !all.values().any(|s| f.matches(&s.case)) {
            let mut names: Vec<String> =
                all.values().map(|s| s.case.key.benchmark.clone()).collect();
            names.sort();
            names.dedup();
            return Err(format!(
                "case '{}' is not in the history (its benchmarks: {})",
                f.text,
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ));
        }
    }
    let mut out: Vec<Series<'a>> = all
        .into_values()
        .filter(|s| filters.is_empty() || filters.iter().any(|f| f.matches(&s.case)))
        .collect();
    for s in &mut out {
        s.entries
            .sort_by(|a, b| (&a.run.started, a.run.id).cmp(&(&b.run.started, b.run.id)));
    }
    out.sort_by_key(order);
    Ok(out)
}

/// The MPI variables of a context as `K=V` pairs.
fn env(c: Option<&Context>) -> BTreeMap<String, String> {
    c.map(|c| c.mpi_env.clone()).unwrap_or_default()
}

/// What differs between the run before a step (`a`) and the run at it
/// (`b`), as short phrases: the MPI library, each of its variables (set,
/// unset, changed), then the other fields `Context::differences` names
/// (kernel, governor, allocator, mpibench, binding, shared cores).
pub fn changes(a: &RunRecord, b: &RunRecord) -> Vec<String> {
    let mut out = Vec::new();
    let (ca, cb) = (a.context.as_ref(), b.context.as_ref());
    if a.library != b.library {
        out.push(format!("MPI library {} -> {}", a.library, b.library));
    } else if let (Some(x), Some(y)) = (ca, cb) {
        if x.mpi_library != y.mpi_library {
            out.push(format!("{} build changed", b.library));
        }
    }
    let (ea, eb) = (env(ca), env(cb));
    for (k, v) in &eb {
        match ea.get(k) {
            None => out.push(format!("{k}={v} set")),
            Some(w) if w != v => out.push(format!("{k}={v} (was {w})")),
            _ => {}
        }
    }
    for k in ea.keys().filter(|k| !eb.contains_key(*k)) {
        out.push(format!("{k} unset"));
    }
    // The rest as compare names it (the machine's own fields cannot
    // differ within a series; binding, kernel, governor, ... can).
    if let (Some(x), Some(y)) = (ca, cb) {
        out.extend(
            x.differences(y)
                .into_iter()
                .filter(|d| !d.starts_with("mpi_library:") && !d.starts_with("mpi_env:")),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(id: i64, lib: &str, env: &[(&str, &str)]) -> RunRecord {
        RunRecord {
            id,
            started: format!("2026-01-0{id}T00:00:00Z"),
            status: "ok".into(),
            complete: true,
            usable: true,
            machine: "m".into(),
            library: lib.into(),
            world_size: 2,
            hosts: 1,
            source: "run".into(),
            rows: 1,
            context: Some(Context {
                mpi_env: env
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                ..Context::default()
            }),
        }
    }

    #[test]
    fn what_changed_between_two_runs() {
        let a = rec(1, "Open MPI v4.1.4", &[("OMPI_MCA_pml", "ob1")]);
        let b = rec(
            2,
            "Open MPI v4.1.4",
            &[("OMPI_MCA_btl", "self,tcp"), ("OMPI_MCA_pml", "ob1")],
        );
        assert_eq!(changes(&a, &b), ["OMPI_MCA_btl=self,tcp set"]);
        assert_eq!(changes(&b, &a), ["OMPI_MCA_btl unset"]);
        let c = rec(3, "Open MPI v5.0.3", &[("OMPI_MCA_pml", "ucx")]);
        assert_eq!(
            changes(&a, &c),
            [
                "MPI library Open MPI v4.1.4 -> Open MPI v5.0.3",
                "OMPI_MCA_pml=ucx (was ob1)"
            ]
        );
        assert!(changes(&a, &a).is_empty());
    }

    #[test]
    fn cases_are_named_with_their_size_and_processes() {
        let f = parse_filter("imb/PingPong:1K@2").unwrap();
        assert_eq!(
            (
                f.suite.as_deref(),
                f.benchmark.as_str(),
                f.bytes,
                f.processes
            ),
            (Some("imb"), "PingPong", Some(1024), Some(2))
        );
        let f = parse_filter("allreduce").unwrap();
        assert_eq!((f.suite, f.bytes, f.processes), (None, None, None));
        for bad in ["", "imb/", "PingPong:x", "PingPong@two"] {
            let e = parse_filter(bad).unwrap_err();
            assert!(e.contains("a case is [SUITE/]BENCHMARK"), "{bad}: {e}");
        }
    }
}
