//! IMB-MPI4 2021's tables, as IMB-MPI4 2021.11 prints them: IMB-MPI1's
//! header block naming the MPI-4 part (and a line saying which calls the
//! persistent collectives were), and per collective "#bytes #repetitions
//! t_ovrl[usec] t_pure[usec] t_CPU[usec] overlap[%]" (the `_pure` variants:
//! t_min, t_max, t_avg; Barrier_persist without #bytes), 13-character
//! columns, as IMB-NBC's.

use crate::bench::imb::table::imb2021::{self, Sys};
use crate::comm::pcoll;
use crate::report::table::{Format, Heading, SectionCx};
use crate::results::{BenchResult, Report};

pub struct ImbMpi4;

impl Format for ImbMpi4 {
    fn header(&self, report: &Report, plan: &Heading) -> String {
        header(
            report,
            plan,
            &Sys::current(),
            super::calls(pcoll::available()),
        )
    }
    fn section(&self, r: &BenchResult, cx: &SectionCx) -> String {
        section(r, cx)
    }
    fn footer(&self, _report: &Report) -> String {
        "\n\n# All processes entering MPI_Finalize\n\n".to_string()
    }
}

/// IMB-MPI1's header with IMB-MPI4's part and spacing (IMB-NBC's
/// "MPI_FLOAT", IMB-MPI1's "# " lines), and the calls.
fn header(report: &Report, plan: &Heading, sys: &Sys, calls: &str) -> String {
    let h = imb2021::family_header(report, plan, sys, "MPI-4")
        .replace("\n#\n#\n\n# List", "\n# \n# \n\n# List");
    let line = format!("# Persistent collectives        :   {calls}\n");
    match h.find("# MPI_Op ") {
        Some(at) => {
            let end = h[at..].find('\n').map_or(h.len(), |n| at + n + 1);
            format!("{}{line}{}", &h[..end], &h[end..])
        }
        None => h + &line,
    }
}

fn section(r: &BenchResult, cx: &SectionCx) -> String {
    // Barrier_persist has no length: IMB's "sync" format.
    imb2021::overlap_section(r, cx, !r.benchmark.starts_with("Barrier"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::imb::overlap::{OVERLAP, T_CPU, T_PURE};
    use crate::bench::imb::table::imb2021::fixtures::sys;
    use crate::report::table::fixtures::*;

    fn persist(name: &str, bytes: &[usize]) -> BenchResult {
        let rows = bytes
            .iter()
            .map(|&b| {
                let mut x = row(b, 2.5);
                x.repetitions = 50;
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
    fn sections_as_imb_mpi4_prints_them() {
        let s = section(&persist("Allreduce_persist", &[0, 1024]), &cx(4));
        assert!(
            s.contains("# Benchmarking Allreduce_persist \n# #processes = 4 \n"),
            "{s}"
        );
        assert!(
            s.contains(
                "       #bytes #repetitions t_ovrl[usec] t_pure[usec]  t_CPU[usec]   overlap[%]\n"
            ),
            "{s}"
        );
        assert!(
            s.contains(
                "         1024           50         2.75         2.00         1.50        25.00\n"
            ),
            "{s}"
        );
        let s = section(&persist("Allreduce_persist_pure", &[0]), &cx(4));
        assert!(
            s.contains("       #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]\n"),
            "{s}"
        );
        let s = section(&persist("Barrier_persist", &[0]), &cx(4));
        assert!(s.contains("\n #repetitions t_ovrl[usec] t_pure[usec]  t_CPU[usec]   overlap[%]\n           50 "), "{s}");
    }

    #[test]
    fn the_header_names_the_mpi4_part_and_the_calls() {
        let args = crate::cli::RunArgs {
            benchmarks: vec!["Bcast_persist".into(), "Barrier_persist".into()],
            suite: Some(super::super::SUITE.into()),
            time: 10.0,
            sweep: crate::cli::Sweep {
                msglog: Some("0:10".into()),
                ..Default::default()
            },
            front: crate::cli::FrontSet {
                frontend: Some("./IMB-MPI4 -msglog 0:10 Bcast_persist Barrier_persist".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        let calls = super::super::calls(Some(pcoll::Api::Mpix));
        let h = header(&report(4), &plan(&args, 4).heading(), &sys(), calls);
        assert!(
            h.contains("Intel(R) MPI Benchmarks 2021.11, MPI-4 part"),
            "{h}"
        );
        assert!(
            h.contains("# MPI_Op                         :   MPI_SUM  \n# Persistent collectives        :   Open MPI's MPIX_Xxx_init (pcollreq extension), MPI_Start, MPI_Wait\n# \n# \n\n# List of Benchmarks to run:\n\n# Bcast_persist\n# Barrier_persist\n"),
            "{h}"
        );
    }
}
