//! IMB-IO 2021's tables, as IMB-IO 2021.11 prints them: IMB's header
//! naming the MPI-IO part, with its "io portion" lines instead of the
//! message lengths and no datatype lines; S_ benchmarks as single
//! transfers (t[usec], Mbytes/sec), P_ and C_ as parallel transfers
//! (t_min, t_max, t_avg, Mbytes/sec), Open_Close without #bytes; a block
//! per mode, headed "MODE: AGGREGATE" or "MODE: NON-AGGREGATE"; the
//! non-blocking twins as IMB-IO's overlap tables (t_ovrl, t_pure, t_CPU,
//! overlap[%]), its CPU_Exploit lines in the header. mpibench's own lines:
//! the page cache and `--io-sync` under the header, the hints taken before
//! the first section, and a line under a read table whose rows beat a
//! memory copy.

use std::sync::atomic::{AtomicBool, Ordering};

use super::file::{HINTS_PARAM, MODE_PARAM};
use super::memory::MEMCPY_PARAM;
use crate::bench::imb::table::imb2021::{self, Out, Sys};
use crate::report::table::{Format, Heading, SectionCx};
use crate::results::{BenchResult, Report, Row};

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
    let mut h = match (h.find("#\n# MPI_Datatype"), h.find("# List of Benchmarks")) {
        (Some(a), Some(b)) if a < b => format!("{}#\n#\n#\n\n{}", &h[..a], &h[b..]),
        _ => h,
    };
    if plan.benchmarks.iter().any(|b| nonblocking(b)) {
        h += &format!(
            "\n\n# For nonblocking benchmarks:\n\n# Function CPU_Exploit obtains an undisturbed\n# performance of {:7.2} MFlops\n",
            super::cpu::mflops()
        );
    }
    h + &own_lines(super::args::sync_state())
}

/// mpibench's own header lines: the page cache and `--io-sync`.
fn own_lines(sync: &str) -> String {
    format!(
        "\n# Page cache: read figures of a local file system measure memory unless the data exceed it; rows faster than a memory copy are flagged\n# --io-sync: {sync}\n"
    )
}

/// IMB-IO's non-blocking names: S_IWrite_Indv, P_IRead_Expl, ...
fn nonblocking(name: &str) -> bool {
    let name = name.rsplit('/').next().unwrap_or(name);
    name.get(2..3) == Some("I")
}

/// Whether the hints line was printed (before the first section).
static HINTS_SHOWN: AtomicBool = AtomicBool::new(false);

/// The hints the library took, as one `#` line (the first section that
/// has them; the header is printed before any file is opened).
fn hints_line(r: &BenchResult) -> Option<String> {
    let h = r.rows.iter().find_map(|x| x.params.get(HINTS_PARAM))?;
    let obj = h.as_object()?;
    let pairs: Vec<String> = obj
        .iter()
        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
        .collect();
    Some(format!(
        "# MPI-IO hints taken (MPI_File_get_info): {}\n",
        if pairs.is_empty() {
            "none".to_string()
        } else {
            pairs.join(" ")
        }
    ))
}

/// A line under a read table whose rows beat a memory copy.
fn memory_line(r: &BenchResult) -> String {
    let flagged: Vec<&Row> = r
        .rows
        .iter()
        .filter(|x| x.params.contains_key(MEMCPY_PARAM))
        .collect();
    let Some(rate) = flagged
        .first()
        .and_then(|x| x.params[MEMCPY_PARAM].as_f64())
    else {
        return String::new();
    };
    let sizes: Vec<String> = flagged.iter().map(|x| x.bytes.to_string()).collect();
    format!(
        "# faster than a memory copy ({rate:.0} Mbytes/sec), not a file system's figure: #bytes {}\n",
        sizes.join(", ")
    )
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
    let mut s = String::new();
    if let Some(h) = hints_line(r) {
        if !HINTS_SHOWN.swap(true, Ordering::Relaxed) {
            s += &h;
        }
    }
    s += &imb2021::mode_blocks(r, cx, MODE_PARAM, &|r, cx| {
        if nonblocking(&r.benchmark) {
            imb2021::overlap_section(r, cx, true)
        } else {
            imb2021::section_as(r, cx, out(r))
        }
    });
    s + &memory_line(r)
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

    #[test]
    fn nonblocking_twins_print_imb_ios_overlap_table() {
        use crate::bench::imb::overlap::{OVERLAP, T_CPU, T_PURE};
        let mut r = io("P_IWrite_Indv", "parallel transfer", 2, &[1]);
        for x in &mut r.rows {
            x.params.insert(T_PURE.into(), 11.8.into());
            x.params.insert(T_CPU.into(), 1588.98.into());
            x.params.insert(OVERLAP.into(), 0.0.into());
        }
        let s = section(&r, &cx(2));
        let rule = format!("#{}\n", "-".repeat(77));
        assert!(
            s.starts_with(&rule) || s.contains(&format!("\n{rule}")),
            "{s}"
        );
        assert!(s.contains("#    MODE: AGGREGATE \n"), "{s}");
        assert!(
            s.contains(
                "       #bytes #repetitions t_ovrl[usec] t_pure[usec]  t_CPU[usec]   overlap[%]\n"
            ),
            "{s}"
        );
        assert!(
            s.contains("        11.80      1588.98         0.00\n"),
            "{s}"
        );
        assert!(nonblocking("C_IRead_Expl") && nonblocking("imb-io/S_IWrite_Indv"));
        assert!(!nonblocking("P_Write_Indv") && !nonblocking("Open_Close"));
    }

    #[test]
    fn a_read_faster_than_memory_gets_a_line() {
        let mut r = io("P_Read_Indv", "parallel transfer", 2, &[1]);
        assert_eq!(memory_line(&r), "");
        r.rows[2].params.insert(MEMCPY_PARAM.into(), 9000.0.into());
        let l = memory_line(&r);
        assert_eq!(
            l,
            "# faster than a memory copy (9000 Mbytes/sec), not a file system's figure: #bytes 4096\n"
        );
        assert!(own_lines("off").contains("\n# --io-sync: off\n"));
    }
}
