//! IMB-IO 2021's tables, as IMB-IO 2021.11 prints them: IMB's header
//! naming the MPI-IO part, with its "io portion" lines instead of the
//! message lengths and no datatype lines; S_ benchmarks as single
//! transfers (t[usec], Mbytes/sec), P_ and C_ as parallel transfers
//! (t_min, t_max, t_avg, Mbytes/sec), Open_Close without #bytes; a block
//! per mode, headed "MODE: AGGREGATE" or "MODE: NON-AGGREGATE".

use super::file::MODE_PARAM;
use crate::bench::imb::table::imb2021::{self, Out, Sys};
use crate::report::table::{Format, Heading, SectionCx};
use crate::results::{BenchResult, Report};

pub struct ImbIo;

impl Format for ImbIo {
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

fn header(report: &Report, plan: &Heading, sys: &Sys) -> String {
    let h = imb2021::header(report, plan, sys, "MPI-IO")
        .replace("message length in bytes", "io portion in bytes");
    match (h.find("#\n# MPI_Datatype"), h.find("# List of Benchmarks")) {
        (Some(a), Some(b)) if a < b => format!("{}#\n#\n#\n\n{}", &h[..a], &h[b..]),
        _ => h,
    }
}

fn out(r: &BenchResult) -> Out {
    if r.benchmark.starts_with("S_") {
        Out::TimeBw
    } else if r.benchmark == "Open_Close" {
        Out::Sync
    } else {
        Out::RangeBw
    }
}

fn section(r: &BenchResult, cx: &SectionCx) -> String {
    imb2021::mode_blocks(r, cx, MODE_PARAM, &|r, cx| {
        imb2021::section_as(r, cx, out(r))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::table::fixtures::*;

    fn io(name: &str, class: &str, q: usize, modes: &[u64]) -> BenchResult {
        let mut rows = Vec::new();
        for &m in modes {
            for b in [0, 4, 4096] {
                let mut x = row(b, 1.5);
                x.repetitions = if m == 1 { 50 } else { 10 };
                x.errors = None;
                x.mbytes_per_sec = Some(b as f64 / 1.048576 / 1.5);
                x.params.insert(MODE_PARAM.into(), m.into());
                rows.push(x);
            }
        }
        result(name, super::super::SUITE, class, q, rows)
    }

    #[test]
    fn sections_as_imb_io_prints_them() {
        let s = section(&io("S_Write_Indv", "single transfer", 1, &[1, 0]), &cx(2));
        assert!(s.contains("#    MODE: AGGREGATE \n"), "{s}");
        assert!(s.contains("#    MODE: NON-AGGREGATE \n"), "{s}");
        assert!(s.contains("      t[usec]   Mbytes/sec"), "{s}");
        let p = section(&io("P_Read_Indv", "parallel transfer", 2, &[1]), &cx(2));
        assert!(
            p.contains("  t_min[usec]  t_max[usec]  t_avg[usec]   Mbytes/sec"),
            "{p}"
        );
        assert!(!p.contains("NON-AGGREGATE"), "{p}");
    }
}
