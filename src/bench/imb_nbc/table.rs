//! IMB-NBC 2021's tables, as IMB-NBC 2021.11 prints them: IMB-MPI1's header
//! block naming the MPI-NBC part, and per collective "#bytes #repetitions
//! t_ovrl[usec] t_pure[usec] t_CPU[usec] overlap[%]" (the `_pure` variants:
//! t_min, t_max, t_avg; Ibarrier without #bytes), 13-character columns.

use crate::bench::imb::table::imb2021::{self, Sys};
use crate::report::table::{Format, Heading, SectionCx};
use crate::results::{BenchResult, Report};

pub struct ImbNbc;

impl Format for ImbNbc {
    fn header(&self, report: &Report, plan: &Heading) -> String {
        header(report, plan, &Sys::current())
    }
    fn section(&self, r: &BenchResult, cx: &SectionCx) -> String {
        section(r, cx)
    }
    fn footer(&self, _report: &Report) -> String {
        "\n\n# All processes entering MPI_Finalize\n\n".to_string()
    }
}

/// IMB-MPI1's header with IMB-NBC's part and spacing.
fn header(report: &Report, plan: &Heading, sys: &Sys) -> String {
    imb2021::family_header(report, plan, sys, "MPI-NBC")
}

fn section(r: &BenchResult, cx: &SectionCx) -> String {
    // Ibarrier has no length: IMB's "sync" format, without #bytes or defects.
    imb2021::overlap_section(r, cx, !r.benchmark.starts_with("Ibarrier"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::imb::overlap::{OVERLAP, T_CPU, T_PURE};
    use crate::bench::imb::table::imb2021::fixtures::sys;
    use crate::report::table::fixtures::*;

    fn nbc(name: &str, bytes: &[usize]) -> BenchResult {
        let rows = bytes
            .iter()
            .map(|&b| {
                let mut x = row(b, 2.5);
                x.repetitions = 100;
                x.errors = None;
                x.params.insert(T_PURE.into(), 2.0.into());
                x.params.insert(T_CPU.into(), 1.5.into());
                x.params.insert(OVERLAP.into(), 25.0.into());
                x
            })
            .collect();
        result(name, super::super::SUITE, "collective", 4, rows)
    }

    #[test]
    fn sections_as_imb_nbc_prints_them() {
        let mut s = section(&nbc("Ibcast", &[0, 1024]), &cx(4));
        s += &section(&nbc("Ibcast_pure", &[0, 1024]), &cx(4));
        s += &section(&nbc("Ibarrier", &[0]), &cx(4));
        s += &section(&nbc("Ibarrier_pure", &[0]), &cx(6));
        insta::assert_snapshot!(s);
    }

    #[test]
    fn the_header_names_the_nbc_part() {
        let args = crate::cli::RunArgs {
            benchmarks: vec!["Ibcast".into(), "Ibarrier".into()],
            suite: Some(super::super::SUITE.into()),
            time: 10.0,
            sweep: crate::cli::Sweep {
                msglog: Some("0:10".into()),
                ..Default::default()
            },
            front: crate::cli::FrontSet {
                frontend: Some("./IMB-NBC -msglog 0:10 Ibcast Ibarrier".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        let h = header(&report(4), &plan(&args, 4).heading(), &sys());
        assert!(
            h.contains("Intel(R) MPI Benchmarks 2021.11, MPI-NBC part"),
            "{h}"
        );
        assert!(
            h.contains("# MPI_Datatype for reductions    :   MPI_FLOAT\n"),
            "{h}"
        );
        assert!(h.contains("# MPI_Op                         :   MPI_SUM  \n#\n#\n\n# List of Benchmarks to run:\n\n# Ibcast\n# Ibarrier\n"), "{h}");
    }
}
