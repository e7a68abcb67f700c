//! What `tune` prints and writes: the before/after table per collective and
//! process count, and the same as JSON.

use std::path::Path;

use serde::Serialize;

use super::library::{Algorithm, Coll, Kind, Library};
use super::select::median;
use super::Tuning;

/// One row: a collective at one process count and size.
#[derive(Debug, Serialize)]
pub struct Row {
    pub collective: String,
    pub processes: usize,
    pub bytes: u64,
    /// Median time per call with the library's defaults, µs.
    pub default_us: f64,
    /// Every algorithm's median (null where its launch failed).
    pub algorithms: Vec<AlgTime>,
    /// The fastest algorithm, its median and the p-value of "the default is slower".
    pub fastest: Option<String>,
    pub fastest_us: Option<f64>,
    pub p: Option<f64>,
    /// The rule written: an algorithm's name, or "default".
    pub rule: String,
    /// Set when the check with the file loaded found this size slower with
    /// the fastest algorithm's rule and gave it back to the default: the
    /// p-value and the median's change against the default then.
    pub reverted_p: Option<f64>,
    pub reverted_change: Option<f64>,
    /// Median with the rules file loaded, µs.
    pub after_us: Option<f64>,
}

#[derive(Debug, Serialize)]
pub struct AlgTime {
    pub id: i64,
    pub name: String,
    pub median_us: Option<f64>,
}

#[derive(Debug, Serialize)]
pub struct Document {
    pub schema: &'static str,
    pub mpibench_version: &'static str,
    pub library: String,
    pub rules_file: String,
    /// The environment that loads the rules file.
    pub load: Vec<String>,
    /// Set when the launches' ranks shared cores: the choices rest on
    /// time-sliced figures.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shared_cores: Option<String>,
    pub rows: Vec<Row>,
}

fn label(a: &Algorithm) -> String {
    format!("{} {}", a.id, a.name)
}

/// The rows, in the order of the collectives, then process count and size.
pub fn rows(colls: &[&'static Coll], algs: &[Vec<Algorithm>], t: &Tuning) -> Vec<Row> {
    let mut out = Vec::new();
    for (ci, c) in colls.iter().enumerate() {
        for (pt, before) in t.before.iter().filter(|(p, _)| p.0 == c.name) {
            let at = |s: &Result<super::Samples, String>| {
                s.as_ref().ok().and_then(|s| s.get(pt)).map(|v| median(v))
            };
            let pick = &t.picks[pt];
            let fastest = pick.fastest.map(|i| &algs[ci][i]);
            let chosen = pick.chosen && !t.reverted.contains_key(pt);
            out.push(Row {
                collective: c.name.to_string(),
                processes: pt.1,
                bytes: pt.2,
                default_us: median(before),
                algorithms: algs[ci]
                    .iter()
                    .zip(&t.per_alg[ci])
                    .map(|(a, s)| AlgTime {
                        id: a.id,
                        name: a.name.clone(),
                        median_us: at(s),
                    })
                    .collect(),
                fastest: fastest.map(label),
                fastest_us: pick.fastest.and_then(|i| at(&t.per_alg[ci][i])),
                p: pick.p,
                rule: match (chosen, fastest) {
                    (true, Some(a)) => label(a),
                    _ => "default".to_string(),
                },
                reverted_p: t.reverted.get(pt).map(|r| r.0),
                reverted_change: t.reverted.get(pt).map(|r| r.1 - 1.0),
                after_us: t.after.get(pt).map(|v| median(v)),
            });
        }
    }
    out
}

fn format_name(kind: &Kind) -> &'static str {
    match kind {
        Kind::OpenMpi => "coll_tuned dynamic rules, classic format",
        Kind::Mpich { .. } => "collective selection JSON",
    }
}

/// The table on stdout.
pub fn render(
    lib: &Library,
    colls: &[&'static Coll],
    algs: &[Vec<Algorithm>],
    t: &Tuning,
    path: &Path,
) -> String {
    let mut s = format!("# mpibench tune: {}\n", lib.name());
    if let Some(l) = &t.shared_cores {
        s += &format!("# {l}: the choices rest on time-sliced figures and may not hold with one rank per core\n");
    }
    for (c, list) in colls.iter().zip(algs) {
        let names: Vec<String> = list.iter().map(label).collect();
        s += &format!(
            "# {}: {} algorithms: {}\n",
            c.name,
            list.len(),
            names.join(", ")
        );
    }
    let rows = rows(colls, algs, t);
    let mut last: Option<(&str, usize)> = None;
    for r in &rows {
        if last != Some((r.collective.as_str(), r.processes)) {
            s += &format!(
                "\n# {} on {} processes: median time per call [usec]\n",
                r.collective, r.processes
            );
            s += &format!(
                "{:>10} {:>10}  {:<28} {:>10} {:>8}  {:<28} {:>10} {:>8}\n",
                "#bytes", "default", "fastest", "[usec]", "p", "rule", "after", "change"
            );
            last = Some((r.collective.as_str(), r.processes));
        }
        let us = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.2}"));
        let change = r.after_us.map_or("-".to_string(), |a| {
            format!("{:+.1}%", (a / r.default_us - 1.0) * 100.0)
        });
        let rule = match (r.reverted_p, r.reverted_change) {
            (Some(_), Some(c)) => format!("default ({:+.0}% with it)", c * 100.0),
            _ if r.rule == "default" && r.fastest.is_some() => "default (no gain)".to_string(),
            _ => r.rule.clone(),
        };
        s += &format!(
            "{:>10} {:>10.2}  {:<28} {:>10} {:>8}  {:<28} {:>10} {:>8}\n",
            r.bytes,
            r.default_us,
            r.fastest.as_deref().unwrap_or("-"),
            us(r.fastest_us),
            r.p.map_or("-".to_string(), |p| format!("{p:.4}")),
            rule,
            us(r.after_us),
            change
        );
    }
    let reverted = rows.iter().filter(|r| r.reverted_p.is_some()).count();
    if reverted > 0 {
        s += &format!(
            "\n# {reverted} size(s) were significantly slower with the fastest algorithm's rule loaded (+N% with it)\n# and were given back to the library's default; their after column is with the default\n"
        );
    }
    let load: Vec<String> = t.load.iter().map(|(k, v)| format!("{k}={v}")).collect();
    s += &format!(
        "\n# rules file ({}): {}\n# load it with: {}\n",
        format_name(&lib.kind),
        path.display(),
        load.join(" ")
    );
    s
}

/// The `--json` document.
pub fn json(
    lib: &Library,
    colls: &[&'static Coll],
    algs: &[Vec<Algorithm>],
    t: &Tuning,
    path: &Path,
) -> Document {
    Document {
        schema: "mpibench-tune/1",
        mpibench_version: env!("CARGO_PKG_VERSION"),
        library: lib.version.clone(),
        rules_file: path.display().to_string(),
        load: t.load.iter().map(|(k, v)| format!("{k}={v}")).collect(),
        shared_cores: t.shared_cores.clone(),
        rows: rows(colls, algs, t),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::super::library::coll;
    use super::super::select::Pick;
    use super::*;

    #[test]
    fn a_table_per_collective_and_process_count() {
        let c = coll("bcast").unwrap();
        let pt = |b: u64| ("Bcast".to_string(), 2usize, b);
        let s = |v: f64| vec![v; 6];
        let algs = vec![vec![
            Algorithm {
                id: 1,
                name: "basic_linear".into(),
            },
            Algorithm {
                id: 6,
                name: "binomial".into(),
            },
        ]];
        let t = Tuning {
            before: BTreeMap::from([(pt(8), s(2.0)), (pt(1024), s(4.0))]),
            per_alg: vec![vec![
                Ok(BTreeMap::from([(pt(8), s(3.0)), (pt(1024), s(2.0))])),
                Err("failed".into()),
            ]],
            picks: BTreeMap::from([
                (
                    pt(8),
                    Pick {
                        fastest: Some(0),
                        p: Some(0.9),
                        chosen: false,
                    },
                ),
                (
                    pt(1024),
                    Pick {
                        fastest: Some(0),
                        p: Some(0.001),
                        chosen: true,
                    },
                ),
            ]),
            reverted: BTreeMap::new(),
            after: BTreeMap::from([(pt(8), s(2.0)), (pt(1024), s(2.2))]),
            load: vec![("X", "f".into())],
            shared_cores: None,
        };
        let lib = Library {
            version: "Open MPI v4.1.4".into(),
            kind: Kind::OpenMpi,
        };
        let text = render(&lib, &[c], &algs, &t, Path::new("/tmp/r.conf"));
        assert_eq!(
            text,
            "# mpibench tune: Open MPI v4.1.4
# Bcast: 2 algorithms: 1 basic_linear, 6 binomial

# Bcast on 2 processes: median time per call [usec]
    #bytes    default  fastest                          [usec]        p  rule                              after   change
         8       2.00  1 basic_linear                     3.00   0.9000  default (no gain)                  2.00    +0.0%
      1024       4.00  1 basic_linear                     2.00   0.0010  1 basic_linear                     2.20   -45.0%

# rules file (coll_tuned dynamic rules, classic format): /tmp/r.conf
# load it with: X=f
"
        );
        let doc = json(&lib, &[c], &algs, &t, Path::new("/tmp/r.conf"));
        assert_eq!(doc.rows[1].rule, "1 basic_linear");
        assert_eq!(doc.rows[1].algorithms[1].median_us, None);
        // A reverted size: the default, and how much slower the rule was.
        let mut t = t;
        t.reverted.insert(pt(1024), (0.01, 1.12));
        let text = render(&lib, &[c], &algs, &t, Path::new("/tmp/r.conf"));
        assert!(text.contains("  default (+12% with it)  "), "{text}");
        assert!(
            text.contains("# 1 size(s) were significantly slower"),
            "{text}"
        );
        assert_eq!(
            json(&lib, &[c], &algs, &t, Path::new("x")).rows[1].rule,
            "default"
        );
    }
}
