//! IMB-RMA 2021's tables, as IMB-RMA 2021.11 prints them: IMB's header
//! naming the MPI-RMA part (with its notes on Compare_and_swap and
//! Truly_passive_put), the transfers between two processes as single
//! transfers (t[usec], Mbytes/sec) in a block per mode, the one-to-all
//! transfers in the same columns on every process, the all-to-all and
//! exchange transfers as collectives (t_min, t_max, t_avg), and
//! Truly_passive_put's t_pure and t_ovrl.

use super::kernel::MODE_PARAM;
use super::passive::T_PURE;
use crate::bench::imb::table::imb2021::{self, Out, Sys, OW};
use crate::report::table::{fixed, Format, Heading, SectionCx};
use crate::results::{BenchResult, Report, Row};

pub struct ImbRma;

/// The transfers from rank 0 to every other process: IMB's
/// MultPassiveTransfer, printed as a single transfer.
const ONE_TO_ALL: [&str; 4] = [
    "Put_all_local",
    "Get_all_local",
    "One_put_all",
    "One_get_all",
];

impl Format for ImbRma {
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

/// IMB's header with the MPI-RMA part and the notes its list carries
/// (IMB-MPI1's spacing but the datatype's).
fn header(report: &Report, plan: &Heading, sys: &Sys) -> String {
    imb2021::header(report, plan, sys, "MPI-RMA")
        .replace("MPI_FLOAT \n", "MPI_FLOAT\n")
        .replace(
            "\n# Compare_and_swap\n",
            "\n# Compare_and_swap\n#     Uses MPI_INT data type\n",
        )
        .replace(
            "\n# Truly_passive_put\n",
            "\n# Truly_passive_put\n\
             #     The benchmark measures execution time of MPI_Put for 2 cases:\n\
             #     1) The target is waiting in MPI_Barrier call (t_pure value)\n\
             #     2) The target performs computation and then enters MPI_Barrier routine (t_ovrl value)\n",
        )
}

fn section(r: &BenchResult, cx: &SectionCx) -> String {
    if r.benchmark == "Truly_passive_put" && r.skipped.is_none() {
        return passive(r, cx);
    }
    let one_to_all = ONE_TO_ALL.contains(&r.benchmark.as_str());
    imb2021::mode_blocks(r, cx, MODE_PARAM, &|part, cx| {
        if one_to_all {
            imb2021::section_as(part, cx, Out::TimeBw)
        } else {
            imb2021::section(part, cx)
        }
    })
}

/// "#bytes #repetitions t_pure[usec] t_ovrl[usec]".
fn passive(r: &BenchResult, cx: &SectionCx) -> String {
    let checked = r.rows.iter().any(|x| x.errors.is_some());
    let mut cols = vec!["#bytes", "#repetitions", "t_pure[usec]", "t_ovrl[usec]"];
    if checked {
        cols.push("defects");
    }
    imb2021::section_with(r, cx, &cols, &|row: &Row| {
        let f = |v: f64| fixed(v, OW, 2);
        let pure = row
            .params
            .get(T_PURE)
            .and_then(|v| v.as_f64())
            .unwrap_or(f64::NAN);
        let mut s = format!("{:>OW$}{:>OW$}", row.bytes, row.repetitions);
        s += &(f(pure) + &f(row.t_max_us));
        if checked {
            s += &f(row.errors.unwrap_or(0) as f64);
        }
        s
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::imb::table::imb2021::fixtures::sys;
    use crate::report::table::fixtures::*;

    fn rma(name: &str, class: &str, q: usize, modes: &[Option<u64>]) -> BenchResult {
        let mut rows = Vec::new();
        for &m in modes {
            for b in [0, 4, 4096] {
                let mut x = row(b, 1.5);
                x.repetitions = if m == Some(0) { 100 } else { 200 };
                x.errors = None;
                x.mbytes_per_sec = Some(b as f64 / 1.048576 / 1.5);
                if let Some(m) = m {
                    x.params.insert(MODE_PARAM.into(), m.into());
                }
                if name == "Truly_passive_put" {
                    x.params.insert(T_PURE.into(), 1.25.into());
                }
                rows.push(x);
            }
        }
        result(name, super::super::SUITE, class, q, rows)
    }

    #[test]
    fn sections_as_imb_rma_prints_them() {
        let mut s = section(
            &rma("Unidir_put", "single transfer", 2, &[Some(0), Some(1)]),
            &cx(4),
        );
        s += &section(&rma("One_put_all", "collective", 4, &[None]), &cx(4));
        s += &section(&rma("All_get_all", "collective", 4, &[None]), &cx(4));
        s += &section(
            &rma("Truly_passive_put", "single transfer", 2, &[None]),
            &cx(2),
        );
        insta::assert_snapshot!(s);
    }

    #[test]
    fn the_header_names_the_rma_part_and_its_notes() {
        let args = crate::cli::RunArgs {
            benchmarks: vec!["Compare_and_swap".into(), "Truly_passive_put".into()],
            suite: Some(super::super::SUITE.into()),
            time: 10.0,
            sweep: crate::cli::Sweep {
                msglog: Some("0:12".into()),
                ..Default::default()
            },
            front: crate::cli::FrontSet {
                frontend: Some("./IMB-RMA -msglog 0:12".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        let h = header(&report(2), &plan(&args, 2).heading(), &sys());
        assert!(
            h.contains("Intel(R) MPI Benchmarks 2021.11, MPI-RMA part"),
            "{h}"
        );
        assert!(
            h.contains("# Compare_and_swap\n#     Uses MPI_INT data type\n# Truly_passive_put\n#     The benchmark measures"),
            "{h}"
        );
    }
}
