//! mpiGraph-style tables: `START mpiGraph`, MsgSize / Times / Window /
//! Procs, "Send max/avg", the send table (`host:rank to`), the receive
//! table (`host:rank from`), min/max/avg lines, `END mpiGraph`; then the
//! host × host summary and the outliers. Latency prints its matrix the
//! same way, in microseconds.

use std::fmt::Write;

use serde_json::Value;

use crate::report::table::{run_lines, Format, Heading, SectionCx};
use crate::results::{BenchResult, Report};

pub struct Mpigraph;

impl Format for Mpigraph {
    fn header(&self, report: &Report, _plan: &Heading) -> String {
        let mut s = format!(
            "# mpibench {}: LLNL mpiGraph, every ordered pair of ranks\n",
            report.mpibench_version
        );
        s.push_str(&run_lines(report, "# "));
        if let Some(l) = crate::report::table::shared_cores_line(report) {
            let _ = writeln!(
                s,
                "# {l}: the outliers below may be the scheduler's, not the links'"
            );
        }
        s
    }

    fn section(&self, r: &BenchResult, _cx: &SectionCx) -> String {
        let mut s = String::new();
        if let Some(why) = &r.skipped {
            let _ = writeln!(s, "# {} skipped: {why}", r.benchmark);
            return s;
        }
        let Some(m) = &r.matrix else {
            return s;
        };
        let labels: Vec<String> = strings(&m["hosts"])
            .iter()
            .zip(numbers(&m["ranks"]))
            .map(|(h, r)| format!("{h}:{r}"))
            .collect();
        let reps = r.rows.first().map_or(0, |x| x.repetitions);
        let _ = writeln!(s, "START mpiGraph ({})", r.benchmark);
        let _ = writeln!(s, "MsgSize\t{}", m["bytes"]);
        let _ = writeln!(s, "Times\t{reps}");
        if let Some(w) = m.get("window") {
            let _ = writeln!(s, "Window\t{w}");
        }
        let _ = writeln!(s, "Procs\t{}\n", labels.len());
        if let Some(send) = cells(&m["send_mbs"]) {
            let recv = cells(&m["recv_mbs"]).unwrap_or_default();
            // mpiGraph prints receive rows by receiver: transpose (rows are senders here).
            let recv_t: Vec<Vec<Option<f64>>> = (0..recv.len())
                .map(|j| (0..recv.len()).map(|i| recv[i][j]).collect())
                .collect();
            for (name, m, dir) in [("Send", &send, "to"), ("Recv", &recv_t, "from")] {
                let [_, hi, avg] = min_max_avg(m, 6);
                let _ = writeln!(s, "{name} max\t{hi}\n{name} avg\t{avg}\n");
                s.push_str(&table(name, dir, &labels, m));
            }
            for (name, m) in [("Send", &send), ("Recv", &recv_t)] {
                let [lo, hi, avg] = min_max_avg(m, 6);
                let _ = writeln!(
                    s,
                    "{name} MB/sec min:\t{lo}\n{name} MB/sec max:\t{hi}\n{name} MB/sec avg:\t{avg}\n"
                );
            }
        }
        if let Some(lat) = cells(&m["latency_us"]) {
            let [lo, hi, avg] = min_max_avg(&lat, 3);
            s.push_str(&table("Latency(us)", "to", &labels, &lat));
            let _ = writeln!(
                s,
                "Latency us min:\t{lo}\nLatency us max:\t{hi}\nLatency us avg:\t{avg}\n"
            );
        }
        let _ = writeln!(s, "END mpiGraph");
        // The host summary and the findings.
        let names = strings(&m["host_names"]);
        let (key, unit) = if m.get("host_recv_mbs").is_some() {
            ("host_recv_mbs", "receive MB/s")
        } else {
            ("host_latency_us", "latency us")
        };
        if let (Some(h), true) = (cells(&m[key]), names.len() > 1) {
            let _ = writeln!(
                s,
                "\n# Hosts ({unit}, median of the rank pairs; the diagonal: within the host)"
            );
            s.push_str(&table("Host", "", &names, &h));
        }
        if let Some(Value::Array(o)) = &r.outliers {
            let undecided = m.get("undecided").and_then(Value::as_array);
            if o.is_empty() && undecided.is_none_or(|u| u.is_empty()) {
                let _ = writeln!(s, "# Outliers: none");
            }
            for u in undecided.into_iter().flatten() {
                let _ = writeln!(
                    s,
                    "# Undecided (too noisy to name): {} {} ({}) well below its peers in {} of {} repeated measurements",
                    u["kind"].as_str().unwrap_or(""),
                    strings(&u["hosts"]).join(" - "),
                    u["class"].as_str().unwrap_or(""),
                    u["found_in"],
                    u["of"]
                );
            }
            for x in o {
                let _ = writeln!(
                    s,
                    "# Outlier: {} {} ({}): {:.1} MB/s, {:.3} x the median of its peers",
                    x["kind"].as_str().unwrap_or(""),
                    strings(&x["hosts"]).join(" - "),
                    x["class"].as_str().unwrap_or(""),
                    x["mbytes_per_sec"].as_f64().unwrap_or(f64::NAN),
                    x["ratio_to_median"].as_f64().unwrap_or(f64::NAN)
                );
            }
        }
        s.push('\n');
        s
    }

    fn footer(&self, _report: &Report) -> String {
        String::new()
    }
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn numbers(v: &Value) -> Vec<u64> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default()
}

fn cells(v: &Value) -> Option<Vec<Vec<Option<f64>>>> {
    v.as_array()?
        .iter()
        .map(|r| r.as_array().map(|c| c.iter().map(Value::as_f64).collect()))
        .collect()
}

/// Minimum, maximum and average of the cells that hold a value, with `prec`
/// decimals; "-" for each where no cell does (never 0).
fn min_max_avg(m: &[Vec<Option<f64>>], prec: usize) -> [String; 3] {
    let v: Vec<f64> = m.iter().flatten().flatten().copied().collect();
    match crate::stats::min_max_avg(&v) {
        Some((lo, hi, avg)) => [lo, hi, avg].map(|x| format!("{x:.prec$}")),
        None => ["-", "-", "-"].map(String::from),
    }
}

/// mpiGraph's table: a header of labels, then `label dir` and the values:
/// 0.000 on the diagonal of a rank table, as mpiGraph prints it; "-" for
/// any other cell without a value (a pair that was not measured), never 0.
fn table(name: &str, dir: &str, labels: &[String], m: &[Vec<Option<f64>>]) -> String {
    let mut s = format!("{name}\t");
    for l in labels {
        let _ = write!(s, "{l}\t");
    }
    s.push('\n');
    for (j, row) in m.iter().enumerate() {
        let l = labels.get(j).map_or("", String::as_str);
        if dir.is_empty() {
            let _ = write!(s, "{l}\t");
        } else {
            let _ = write!(s, "{l} {dir}\t");
        }
        for (i, v) in row.iter().enumerate() {
            let _ = match v {
                Some(v) => write!(s, "{v:.3}\t"),
                None if i == j && !dir.is_empty() => write!(s, "{:.3}\t", 0.0),
                None => write!(s, "-\t"),
            };
        }
        s.push('\n');
    }
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::mpigraph::{derive, Kind};

    #[test]
    fn the_tables_read_as_mpigraphs() {
        let rows = (1..3u64)
            .map(|k| {
                let mut row = crate::report::table::fixtures::row(1 << 20, 1.0);
                row.params.insert("step".into(), k.into());
                row.params.insert("window".into(), 1.into());
                // 1 MiB in 1000 us = 1000 MB/s everywhere.
                row.sides_us = Some(vec![[1000.0, 1000.0]; 3]);
                row
            })
            .collect();
        let mut r = crate::report::table::fixtures::result(
            "Bandwidth",
            "mpigraph",
            "parallel transfer",
            3,
            rows,
        );
        r.ranks = vec![0, 1, 2];
        r.hosts = vec!["node1".into(), "node2".into(), "node3".into()];
        derive(Kind::Bandwidth, &mut r);
        let s = Mpigraph.section(
            &r,
            &SectionCx {
                rank_rows: None,
                world: 3,
                stats: false,
                repeats: 1,
            },
        );
        assert!(s.contains("Send\tnode1:0\tnode2:1\tnode3:2\t\n"), "{s}");
        assert!(
            s.contains("node1:0 to\t0.000\t1000.000\t1000.000\t\n"),
            "{s}"
        );
        assert!(
            s.contains("node3:2 from\t1000.000\t1000.000\t0.000\t\n"),
            "{s}"
        );
        assert!(s.contains("# Outliers: none"), "{s}");
        assert!(s.contains("END mpiGraph"), "{s}");
        insta::assert_snapshot!(s);
    }

    fn cx() -> SectionCx {
        SectionCx {
            rank_rows: None,
            world: 4,
            stats: false,
            repeats: 1,
        }
    }

    #[test]
    fn latency_matrix_hosts_and_empty_matrices() {
        // Two hosts of two ranks; the round trip to rank + k costs 10·k µs,
        // plus 5 µs across hosts.
        let rows = (1..4u64)
            .map(|k| {
                let mut row = crate::report::table::fixtures::row(8, 1.0);
                row.params.insert("step".into(), k.into());
                let sides = (0..4usize)
                    .map(|i| {
                        let across = (i < 2) != ((i + k as usize) % 4 < 2);
                        let t = 10.0 * k as f64 + if across { 5.0 } else { 0.0 };
                        [t, t]
                    })
                    .collect();
                row.sides_us = Some(sides);
                row
            })
            .collect();
        let mut r = crate::report::table::fixtures::result(
            "Latency",
            "mpigraph",
            "parallel transfer",
            4,
            rows,
        );
        r.ranks = vec![0, 1, 2, 3];
        r.hosts = ["a", "a", "b", "b"].map(String::from).to_vec();
        derive(Kind::Latency, &mut r);
        let mut s = Mpigraph.section(&r, &cx());
        // A bandwidth matrix without a single value: "-", never 0.
        let mut empty = crate::report::table::fixtures::result(
            "Bandwidth",
            "mpigraph",
            "parallel transfer",
            2,
            Vec::new(),
        );
        empty.matrix = Some(serde_json::json!({
            "ranks": [0, 1], "hosts": ["a", "b"], "bytes": 8,
            "send_mbs": [[null, null], [null, null]],
            "recv_mbs": [[null, null], [null, null]],
        }));
        let e = Mpigraph.section(&empty, &cx());
        assert!(e.contains("Send MB/sec min:\t-\n"), "{e}");
        assert!(!e.contains("max\t0.000000"), "{e}");
        s += &e;
        let mut skipped = crate::report::table::fixtures::result(
            "Bandwidth",
            "mpigraph",
            "parallel transfer",
            1,
            Vec::new(),
        );
        skipped.skipped = Some("mpiGraph needs at least 2 processes".into());
        s += &Mpigraph.section(&skipped, &cx());
        insta::assert_snapshot!(s);
    }
}
