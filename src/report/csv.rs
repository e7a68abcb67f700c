//! CSV: one line per row (and per group with --multi-detail).

use anyhow::Result;

use super::Exporter;
use crate::results::{BenchResult, Report, Row};

pub struct Csv;

const HEADER: [&str; 14] = [
    "benchmark",
    "suite",
    "processes",
    "mode",
    "group",
    "bytes",
    "repetitions",
    "t_min_us",
    "t_max_us",
    "t_avg_us",
    "mbytes_per_sec",
    "errors",
    "skipped",
    "params",
];

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

fn record(r: &BenchResult, group: &str, row: &Row) -> Vec<String> {
    vec![
        r.benchmark.clone(),
        r.suite.clone(),
        r.processes.to_string(),
        r.mode.clone(),
        group.to_string(),
        row.bytes.to_string(),
        row.repetitions.to_string(),
        row.t_min_us.to_string(),
        row.t_max_us.to_string(),
        row.t_avg_us.to_string(),
        opt(row.mbytes_per_sec),
        opt(row.errors),
        String::new(),
        if row.params.is_empty() {
            String::new()
        } else {
            serde_json::Value::Object(row.params.clone()).to_string()
        },
    ]
}

impl Exporter for Csv {
    fn render(&self, report: &Report) -> Result<Vec<u8>> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(HEADER)?;
        for r in &report.results {
            if let Some(why) = &r.skipped {
                let mut rec = vec![String::new(); HEADER.len()];
                rec[0] = r.benchmark.clone();
                rec[1] = r.suite.clone();
                rec[2] = r.processes.to_string();
                rec[3] = r.mode.clone();
                rec[12] = why.clone();
                w.write_record(&rec)?;
            }
            for row in &r.rows {
                w.write_record(record(r, "all", row))?;
            }
            for g in &r.group_rows {
                for row in &g.rows {
                    w.write_record(record(r, &g.group.to_string(), row))?;
                }
            }
        }
        Ok(w.into_inner()?)
    }
}
