//! JSON: the results contract of `shared/design.md`.

use anyhow::Result;

use super::Exporter;
use crate::results::Report;

pub struct Json;

impl Exporter for Json {
    fn render(&self, report: &Report) -> Result<Vec<u8>> {
        let mut v = serde_json::to_vec_pretty(report)?;
        v.push(b'\n');
        Ok(v)
    }
}
