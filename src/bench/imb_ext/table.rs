//! IMB-EXT 2021's tables, as IMB-EXT 2021.11 prints them: IMB's header
//! naming the MPI-2 part, IMB-MPI1's sections (single transfers: t[usec]
//! and Mbytes/sec; Window and Accumulate: t_min, t_max, t_avg), and a block
//! per mode, headed "MODE: AGGREGATE" or "MODE: NON-AGGREGATE".

use super::onesided::MODE_PARAM;
use crate::bench::imb::table::imb2021::{self, Sys};
use crate::report::table::{Format, Heading, SectionCx};
use crate::results::{BenchResult, Report};

pub struct ImbExt;

impl Format for ImbExt {
    fn header(&self, report: &Report, plan: &Heading) -> String {
        imb2021::family_header(report, plan, &Sys::current(), "MPI-2")
    }
    fn section(&self, r: &BenchResult, cx: &SectionCx) -> String {
        section(r, cx)
    }
    fn footer(&self, _report: &Report) -> String {
        "\n\n# All processes entering MPI_Finalize\n\n".to_string()
    }
}

fn section(r: &BenchResult, cx: &SectionCx) -> String {
    imb2021::mode_blocks(r, cx, MODE_PARAM, &imb2021::section)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::table::fixtures::*;

    fn ext(name: &str, class: &str, q: usize, modes: &[u64]) -> BenchResult {
        let mut rows = Vec::new();
        for &m in modes {
            for b in [0, 4, 4096] {
                let mut x = row(b, 1.5);
                x.repetitions = if m == 1 { 200 } else { 100 };
                x.errors = None;
                x.mbytes_per_sec =
                    (class == "single transfer").then_some(b as f64 / 1.048576 / 1.5);
                x.params.insert(MODE_PARAM.into(), m.into());
                rows.push(x);
            }
        }
        result(name, super::super::SUITE, class, q, rows)
    }

    #[test]
    fn sections_as_imb_ext_prints_them() {
        let mut s = section(&ext("Unidir_Put", "single transfer", 2, &[1, 0]), &cx(2));
        s += &section(&ext("Accumulate", "collective", 2, &[1, 0]), &cx(2));
        let mut w = ext("Window", "collective", 2, &[0]);
        for x in &mut w.rows {
            x.params.clear();
        }
        s += &section(&w, &cx(2));
        insta::assert_snapshot!(s);
    }

    #[test]
    fn the_header_names_the_mpi2_part() {
        let args = crate::cli::RunArgs {
            benchmarks: vec!["Window".into(), "Unidir_Put".into()],
            suite: Some(super::super::SUITE.into()),
            time: 10.0,
            sweep: crate::cli::Sweep {
                msglog: Some("0:12".into()),
                ..Default::default()
            },
            front: crate::cli::FrontSet {
                frontend: Some("./IMB-EXT -msglog 0:12".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        let h = ImbExt.header(&report(2), &plan(&args, 2).heading());
        assert!(
            h.contains("Intel(R) MPI Benchmarks 2021.11, MPI-2 part"),
            "{h}"
        );
        assert!(
            h.contains("#\n#\n\n# List of Benchmarks to run:\n\n# Window\n# Unidir_Put\n"),
            "{h}"
        );
    }
}
