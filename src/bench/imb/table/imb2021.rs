//! IMB-MPI1 2021 tables, line for line as IMB-MPI1 2021.11 prints them
//! (`mpibench imb`): its header block, "# Benchmarking", "# #processes",
//! the waiting processes, Multi- groups, 13-character columns ("%13d",
//! "%13.2f"), rule lines of 13 characters per column, and Mbytes/sec with
//! MB = 10^6 bytes (the JSON keeps MB = 2^20; this table converts).

use std::fmt::Write;

use crate::report::table::{fixed, Format, Heading, SectionCx};
use crate::results::{BenchResult, Report, Row};

/// IMB's column width (`ow_format`).
pub const OW: usize = 13;
/// Ranks per line of a group listing, and groups shown before eliding (IMB's X_PER_ROW, MAX_SHOW).
const PER_ROW: usize = 16;
const MAX_SHOW: usize = 1024;

pub struct Imb2021;

impl Format for Imb2021 {
    fn header(&self, report: &Report, plan: &Heading) -> String {
        header(report, plan, &Sys::current(), "MPI-1")
    }
    fn section(&self, r: &BenchResult, cx: &SectionCx) -> String {
        section(r, cx)
    }
    fn footer(&self, _report: &Report) -> String {
        "\n\n# All processes entering MPI_Finalize\n\n".to_string()
    }
}

/// What IMB's header says about the machine: the local date and uname.
pub struct Sys {
    pub date: String,
    pub machine: String,
    pub system: String,
    pub release: String,
    pub version: String,
}

impl Sys {
    pub fn current() -> Sys {
        let u = crate::sys::uname();
        Sys {
            date: crate::sys::local_time(c"%a %b %e %H:%M:%S %Y"),
            machine: u.machine,
            system: u.sysname,
            release: u.release,
            version: u.version,
        }
    }
}

/// IMB's rule line over `cols` columns.
pub fn rule(cols: usize) -> String {
    format!("#{}", "-".repeat(cols * OW - 1))
}

/// The lines of IMB's header from `# Date` to `# MPI Version`, as every
/// IMB program prints them.
pub fn sys_lines(report: &Report, sys: &Sys) -> String {
    let [major, minor] = report.mpi.version;
    let mut s = format!(
        "# Date                  : {}\n# Machine               : {}\n# System                : {}\n# Release               : {}\n# Version               : {}\n# MPI Version           : {major}.{minor}\n",
        sys.date, sys.machine, sys.system, sys.release, sys.version
    );
    // mpibench's own: the cores, binding, processor and MPI settings.
    let cx = crate::report::table::context_lines(report, "# ");
    if !cx.is_empty() {
        s.push_str(&cx);
        s.push('\n');
    }
    s
}

/// IMB's header block of the program's `part` ("MPI-1": IMB-MPI1,
/// "MPI-NBC": IMB-NBC, ...).
pub fn header(report: &Report, plan: &Heading, sys: &Sys, part: &str) -> String {
    let mut s = String::new();
    let r = rule(5);
    let _ = writeln!(s, "{r}");
    let _ = writeln!(
        s,
        "#    Intel(R) MPI Benchmarks 2021.11, {part} part (mpibench {}, compatible output)",
        report.mpibench_version
    );
    let _ = writeln!(s, "{r}");
    s.push_str(&sys_lines(report, sys));
    let _ = writeln!(s, "# MPI Thread Environment: ");
    let calling = plan
        .frontend
        .clone()
        .unwrap_or_else(|| plan.command.join(" "));
    let _ = write!(
        s,
        "\n\n# Calling sequence was: \n\n# {} \n\n",
        crate::report::table::printable(&calling)
    );
    if calling.split_whitespace().any(|t| t == "-msglen") {
        let _ = writeln!(s, "# Message lengths were user defined");
    } else {
        let sizes = &plan.sizes;
        let _ = writeln!(
            s,
            "# Minimum message length in bytes:   {}",
            sizes.first().copied().unwrap_or(0)
        );
        let _ = writeln!(
            s,
            "# Maximum message length in bytes:   {}",
            sizes.last().copied().unwrap_or(0)
        );
    }
    s.push_str("#\n");
    // IMB-MPI1's -data_type and -red_data_type (the base type of a -contig_type).
    let data = plan.datatypes.first().copied();
    let red = plan.reduction_datatype.or(data);
    let _ = writeln!(
        s,
        "# MPI_Datatype                   :   {} ",
        data.map_or("MPI_BYTE", |d| d.name())
    );
    let _ = writeln!(
        s,
        "# MPI_Datatype for reductions    :   {} ",
        red.map_or("MPI_FLOAT", |d| d.name())
    );
    s.push_str("# MPI_Op                         :   MPI_SUM  \n");
    s.push_str("# \n# \n\n# List of Benchmarks to run:\n\n");
    for b in &plan.benchmarks {
        let name = b.rsplit('/').next().unwrap_or(b);
        let _ = writeln!(s, "# {name}");
    }
    s
}

/// The header of IMB's programs other than IMB-MPI1 (IMB-NBC, IMB-EXT, ...):
/// IMB-MPI1's, with their spacing of the datatype and empty lines.
pub fn family_header(report: &Report, plan: &Heading, sys: &Sys, part: &str) -> String {
    header(report, plan, sys, part)
        .replace("MPI_FLOAT \n", "MPI_FLOAT\n")
        .replace("\n# \n# \n\n# List", "\n#\n#\n\n# List")
}

/// IMB's output formats (IMB_output.c). A family whose benchmark's class
/// does not say its format (IMB-RMA's one-to-all transfers print a single
/// transfer's columns on every process) names it ([`section_as`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Out {
    /// #bytes #repetitions t[usec] Mbytes/sec (single transfers)
    TimeBw,
    /// #bytes #repetitions Mbytes/sec Msg/sec (Uniband, Biband)
    BwRate,
    /// #bytes #repetitions t_min t_max t_avg Mbytes/sec (parallel transfers)
    RangeBw,
    /// #bytes #repetitions t_min t_max t_avg (collectives)
    Range,
    /// #repetitions t_min t_max t_avg (Barrier)
    Sync,
}

impl Out {
    fn of(r: &BenchResult) -> Out {
        if r.benchmark == "Barrier" {
            Out::Sync
        } else if r.rows.iter().any(|x| x.msg_per_sec.is_some()) {
            Out::BwRate
        } else if r.class == "single transfer" {
            // IMB: -multi 0 reports single transfers over all groups, with ranges.
            if r.mode == "multi" && r.group_rows.is_empty() {
                Out::RangeBw
            } else {
                Out::TimeBw
            }
        } else if r.class == "parallel transfer" {
            Out::RangeBw
        } else {
            Out::Range
        }
    }

    fn columns(self) -> &'static [&'static str] {
        match self {
            Out::TimeBw => &["#bytes", "#repetitions", "t[usec]", "Mbytes/sec"],
            Out::BwRate => &["#bytes", "#repetitions", "Mbytes/sec", "Msg/sec"],
            Out::RangeBw => &[
                "#bytes",
                "#repetitions",
                "t_min[usec]",
                "t_max[usec]",
                "t_avg[usec]",
                "Mbytes/sec",
            ],
            Out::Range => &[
                "#bytes",
                "#repetitions",
                "t_min[usec]",
                "t_max[usec]",
                "t_avg[usec]",
            ],
            Out::Sync => &["#repetitions", "t_min[usec]", "t_max[usec]", "t_avg[usec]"],
        }
    }
}

/// IMB's throughput: MB = 10^6 bytes (the rows hold MB = 2^20 bytes).
fn mb_si(row: &Row) -> f64 {
    if !row.t_max_us.is_finite() {
        return f64::NAN; // no valid sample: no figure
    }
    row.mbytes_per_sec.map_or(0.0, |m| m * 1.048576)
}

fn cells(out: Out, row: &Row, checked: bool) -> String {
    let f = |v: f64| fixed(v, OW, 2);
    let d = |v: usize| format!("{v:>OW$}");
    let mut s = match out {
        Out::TimeBw => d(row.bytes) + &d(row.repetitions) + &f(row.t_max_us) + &f(mb_si(row)),
        Out::BwRate => {
            d(row.bytes)
                + &d(row.repetitions)
                + &f(mb_si(row))
                + &format!("{:>OW$.0}", row.msg_per_sec.unwrap_or(0.0))
        }
        Out::RangeBw => {
            d(row.bytes)
                + &d(row.repetitions)
                + &f(row.t_min_us)
                + &f(row.t_max_us)
                + &f(row.t_avg_us)
                + &f(mb_si(row))
        }
        Out::Range => {
            d(row.bytes)
                + &d(row.repetitions)
                + &f(row.t_min_us)
                + &f(row.t_max_us)
                + &f(row.t_avg_us)
        }
        Out::Sync => d(row.repetitions) + &f(row.t_min_us) + &f(row.t_max_us) + &f(row.t_avg_us),
    };
    if checked {
        // IMB built with -DCHECK: a "defects" column.
        s.push_str(&f(row.errors.unwrap_or(0) as f64));
    }
    s
}

/// IMB_print_array: "# Group  g: " and the ranks, 16 per line, each list
/// closed by "# "; beyond 1024 groups the middle ones are elided.
fn groups(s: &mut String, n: usize, q: usize) {
    let one = |s: &mut String, g: usize| {
        let _ = write!(s, "# Group  {g}: ");
        let ranks: Vec<usize> = (g * q..(g + 1) * q).collect();
        for chunk in ranks.chunks(PER_ROW) {
            for r in chunk {
                let _ = write!(s, " {r:>4}");
            }
            s.push_str("\n# ");
        }
        s.push('\n');
    };
    if n <= MAX_SHOW {
        (0..n).for_each(|g| one(s, g));
    } else {
        (0..MAX_SHOW / 2).for_each(|g| one(s, g));
        s.push_str("#  . \n#  . \n");
        (n - MAX_SHOW / 2..n).for_each(|g| one(s, g));
    }
}

/// IMB_show_procids under `-map PxQ`: the process count's ranks (world
/// ranks in their new order) in P rows of world/P (the first world mod P
/// one more), each as IMB_print_array prints a row: "# ", " %4d" per rank,
/// "\n# " after every 16, then a line break.
fn rank_order(s: &mut String, ranks: &[usize], rows: usize, world: usize) {
    let _ = writeln!(s, "# #processes = {}; rank order (rowwise): ", ranks.len());
    let mut at = 0;
    for i in 0..rows {
        if at >= ranks.len() {
            break;
        }
        let width = (world / rows + usize::from(i < world % rows)).min(ranks.len() - at);
        s.push_str("# ");
        for chunk in ranks[at..at + width].chunks(PER_ROW) {
            for r in chunk {
                let _ = write!(s, " {r:>4}");
            }
            s.push_str("\n# ");
        }
        s.push('\n');
        at += width;
    }
}

/// IMB-MPI1's section of a result: its format from the benchmark's class.
pub fn section(r: &BenchResult, cx: &SectionCx) -> String {
    section_as(r, cx, Out::of(r))
}

/// IMB's section of a result in the output format `out`.
pub fn section_as(r: &BenchResult, cx: &SectionCx, out: Out) -> String {
    let checked = r.rows.iter().any(|x| x.errors.is_some());
    let mut cols: Vec<&str> = out.columns().to_vec();
    if checked {
        cols.push("defects");
    }
    section_with(r, cx, &cols, &|row| cells(out, row, checked))
}

/// IMB's modes (IMB-EXT, IMB-RMA): the rows of each value of the row
/// parameter `param`, in the order they ran, each as its own `block`
/// headed "MODE: AGGREGATE" (1) or "MODE: NON-AGGREGATE" (0) after the
/// block's second rule. A result without the parameter is one block.
pub fn mode_blocks(
    r: &BenchResult,
    cx: &SectionCx,
    param: &str,
    block: &dyn Fn(&BenchResult, &SectionCx) -> String,
) -> String {
    let mode = |row: &Row| row.params.get(param).and_then(|v| v.as_u64());
    if r.skipped.is_some() || r.rows.iter().all(|x| mode(x).is_none()) {
        return block(r, cx);
    }
    let mut order: Vec<u64> = Vec::new();
    for m in r.rows.iter().filter_map(mode) {
        if !order.contains(&m) {
            order.push(m);
        }
    }
    let mut s = String::new();
    for m in order {
        let mut part = r.clone();
        part.rows.retain(|x| mode(x) == Some(m));
        let name = if m == 1 { "AGGREGATE" } else { "NON-AGGREGATE" };
        let mut rules = 0;
        for line in block(&part, cx).split_inclusive('\n') {
            s.push_str(line);
            if line.starts_with("#---") {
                rules += 1;
                if rules == 2 {
                    let _ = write!(s, "#\n#    MODE: {name} \n#\n");
                }
            }
        }
    }
    s
}

/// The table of a collective under IMB-NBC's and IMB-MPI4's overlap
/// measurement ([`crate::bench::imb::overlap`]): "#bytes #repetitions
/// t_ovrl[usec] t_pure[usec] t_CPU[usec] overlap[%]", the `_pure` variants
/// t_min, t_max and t_avg; without #bytes (or defects) unless `sized`
/// (the barriers: IMB's "sync" format).
pub fn overlap_section(r: &BenchResult, cx: &SectionCx, sized: bool) -> String {
    use crate::bench::imb::overlap::{OVERLAP, T_CPU, T_PURE};
    let pure = r.benchmark.ends_with("_pure");
    let checked = sized && r.rows.iter().any(|x| x.errors.is_some());
    let mut cols: Vec<&str> = Vec::new();
    if sized {
        cols.push("#bytes");
    }
    cols.push("#repetitions");
    if pure {
        cols.extend(["t_min[usec]", "t_max[usec]", "t_avg[usec]"]);
    } else {
        cols.extend(["t_ovrl[usec]", "t_pure[usec]", "t_CPU[usec]", "overlap[%]"]);
    }
    if checked {
        cols.push("defects");
    }
    section_with(r, cx, &cols, &|row: &Row| {
        let f = |v: f64| fixed(v, OW, 2);
        let param = |k: &str| {
            row.params
                .get(k)
                .and_then(|v| v.as_f64())
                .unwrap_or(f64::NAN)
        };
        let mut s = String::new();
        if sized {
            s += &format!("{:>OW$}", row.bytes);
        }
        s += &format!("{:>OW$}", row.repetitions);
        if pure {
            s += &(f(row.t_min_us) + &f(row.t_max_us) + &f(row.t_avg_us));
        } else {
            s += &(f(row.t_max_us) + &f(param(T_PURE)) + &f(param(T_CPU)) + &f(param(OVERLAP)));
        }
        if checked {
            s += &f(row.errors.unwrap_or(0) as f64);
        }
        s
    })
}

/// One IMB section: its rule lines, "# Benchmarking" (or the Multi- groups),
/// "# #processes", the waiting processes, the column titles `cols` (a
/// "Group" column first in group mode), a line of `cells` per row (per
/// group in group mode) and the rows' notes.
pub fn section_with(
    r: &BenchResult,
    cx: &SectionCx,
    cols: &[&str],
    cells: &dyn Fn(&Row) -> String,
) -> String {
    let mut s = String::new();
    if let Some(why) = &r.skipped {
        let _ = writeln!(
            s,
            "\n# {} not run on {} processes: {why}",
            r.benchmark, r.processes
        );
        return s;
    }
    let group_mode = !r.group_rows.is_empty();
    let mut cols: Vec<&str> = cols.to_vec();
    if group_mode {
        cols.insert(0, "Group");
    }
    let line = rule(cols.len());
    let _ = writeln!(s, "\n{line}");
    let idle = if r.groups > 1 {
        let _ = writeln!(s, "# Benchmarking Multi-{} ", r.benchmark);
        let _ = writeln!(
            s,
            "# ( {} groups of {} processes each running simultaneous ) ",
            r.groups, r.processes
        );
        groups(&mut s, r.groups, r.processes);
        cx.world.saturating_sub(r.groups * r.processes)
    } else {
        let _ = writeln!(s, "# Benchmarking {} ", r.benchmark);
        match cx.rank_rows {
            Some(rows) if !r.ranks.is_empty() => rank_order(&mut s, &r.ranks, rows, cx.world),
            _ => {
                let _ = writeln!(s, "# #processes = {} ", r.processes);
            }
        }
        cx.world.saturating_sub(r.processes)
    };
    match idle {
        0 => {}
        1 => s.push_str("# ( 1 additional process waiting in MPI_Barrier)\n"),
        n => {
            let _ = writeln!(s, "# ( {n} additional processes waiting in MPI_Barrier)");
        }
    }
    let _ = writeln!(s, "{line}");
    for c in &cols {
        let _ = write!(s, "{c:>OW$}");
    }
    s.push('\n');
    if group_mode {
        for i in 0..r.rows.len() {
            s.push('\n');
            for g in &r.group_rows {
                if let Some(row) = g.rows.get(i) {
                    let _ = writeln!(s, "{:>OW$}{}", g.group, cells(row));
                }
            }
        }
    } else {
        for row in &r.rows {
            let _ = writeln!(s, "{}", cells(row));
        }
    }
    if let Some(note) = &r.note {
        let _ = writeln!(s, "# note: {note}");
    }
    for row in r.rows.iter().filter(|x| x.note.is_some()) {
        let _ = writeln!(
            s,
            "# note ({} bytes): {}",
            row.bytes,
            row.note.as_deref().unwrap_or("")
        );
    }
    s
}

/// A fixed machine for the IMB programs' headers (their tables' tests).
#[cfg(test)]
pub(crate) mod fixtures {
    pub fn sys() -> super::Sys {
        super::Sys {
            date: "Mon Nov 23 02:48:17 2026".into(),
            machine: "x86_64".into(),
            system: "Linux".into(),
            release: "6.1.0".into(),
            version: "#1 SMP".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::sys;
    use super::*;
    use crate::report::table::fixtures::*;
    use crate::results::GroupRows;

    fn unchecked(mut rows: Vec<Row>) -> Vec<Row> {
        for r in &mut rows {
            r.errors = None;
        }
        rows
    }

    #[test]
    fn header_block() {
        let args = crate::cli::RunArgs {
            benchmarks: vec!["PingPong".into(), "Barrier".into()],
            time: 10.0,
            sweep: crate::cli::Sweep {
                msglog: Some("3:12".into()),
                ..Default::default()
            },
            front: crate::cli::FrontSet {
                frontend: Some("./IMB-MPI1 -msglog 3:12 PingPong Barrier".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        let plan = crate::plan::Plan::build(&args, vec!["mpibench".into()], 4, 4).unwrap();
        let mut rep = report(4);
        rep.mpibench_version = "0.1.0".into();
        insta::assert_snapshot!(header(&rep, &plan.heading(), &sys(), "MPI-1"));
    }

    #[test]
    fn map_lists_the_rank_order_in_rows() {
        // -map 2x2 on 4: rows of 2, the world ranks in their new order.
        let mut r = result(
            "PingPong",
            "imb",
            "single transfer",
            2,
            unchecked(vec![row(0, 1.0)]),
        );
        r.ranks = vec![0, 2];
        let mut c = cx(4);
        c.rank_rows = Some(2);
        let s = section(&r, &c);
        assert!(
            s.contains("# Benchmarking PingPong \n# #processes = 2; rank order (rowwise): \n#     0    2\n# \n# ( 2 additional processes waiting in MPI_Barrier)\n"),
            "{s}"
        );
        r.processes = 4;
        r.ranks = vec![0, 2, 1, 3];
        let s = section(&r, &c);
        assert!(
            s.contains("rank order (rowwise): \n#     0    2\n# \n#     1    3\n# \n#---"),
            "{s}"
        );
        // Without -map, IMB's usual line.
        assert!(section(&r, &cx(4)).contains("# #processes = 4 \n"));
    }

    #[test]
    fn user_defined_lengths_are_said_so() {
        let args = crate::cli::RunArgs {
            time: 10.0,
            sweep: crate::cli::Sweep {
                sizes: Some("0,1024".into()),
                ..Default::default()
            },
            front: crate::cli::FrontSet {
                frontend: Some("IMB-MPI1 -msglen lengths.txt".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        let plan = crate::plan::Plan::build(&args, vec!["mpibench".into()], 2, 2).unwrap();
        let h = header(&report(2), &plan.heading(), &sys(), "MPI-1");
        assert!(h.contains("\n# Message lengths were user defined\n"), "{h}");
        assert!(!h.contains("Minimum message length"));
    }

    #[test]
    fn every_format() {
        let mut s = String::new();
        // Single transfer on 2 of 4: "t[usec]" (t_max) and MB = 10^6.
        let mut pp = result(
            "PingPong",
            "imb",
            "single transfer",
            2,
            unchecked(vec![row(0, 0.17), row(4194304, 509.01)]),
        );
        pp.rows[0].mbytes_per_sec = Some(0.0);
        pp.rows[1].t_max_us = 509.01;
        pp.rows[1].mbytes_per_sec = Some(4194304.0 / 1.048576 / 509.01);
        s.push_str(&section(&pp, &cx(4)));
        // Parallel transfer: ranges and Mbytes/sec.
        let mut sr = result(
            "Sendrecv",
            "imb",
            "parallel transfer",
            4,
            unchecked(vec![row(1, 2.0)]),
        );
        sr.rows[0].mbytes_per_sec = Some(0.9);
        s.push_str(&section(&sr, &cx(4)));
        // Collective: ranges only.
        s.push_str(&section(
            &result(
                "Allreduce",
                "imb",
                "collective",
                4,
                unchecked(vec![row(4, 5.0)]),
            ),
            &cx(4),
        ));
        // Barrier: no #bytes.
        s.push_str(&section(
            &result(
                "Barrier",
                "imb",
                "collective",
                3,
                unchecked(vec![row(0, 4.5)]),
            ),
            &cx(4),
        ));
        // Uniband: Mbytes/sec and Msg/sec; validated: a defects column.
        let mut ub = result(
            "Uniband",
            "imb",
            "parallel transfer",
            2,
            vec![row(1024, 64.0)],
        );
        ub.rows[0].msg_per_sec = Some(1_000_000.0);
        ub.rows[0].mbytes_per_sec = Some(1024.0 * 1e6 / 1_048_576.0);
        s.push_str(&section(&ub, &cx(2)));
        insta::assert_snapshot!(s);
    }

    #[test]
    fn multi_modes() {
        let mut s = String::new();
        // -multi 1: a Group column, a blank line before each length.
        let rows = unchecked(vec![row(0, 2.0), row(1, 2.1)]);
        let mut m = result("PingPong", "imb", "single transfer", 2, rows.clone());
        m.mode = "multi".into();
        m.groups = 2;
        m.active = 4;
        m.group_rows = (0..2)
            .map(|g| GroupRows {
                group: g,
                ranks: vec![2 * g, 2 * g + 1],
                rows: rows.clone(),
            })
            .collect();
        for g in &mut m.group_rows {
            for r in &mut g.rows {
                r.mbytes_per_sec = Some(r.bytes as f64 / 1.048576 / r.t_max_us);
            }
        }
        s.push_str(&section(&m, &cx(5)));
        // -multi 1 on all processes: one group, no "Multi-", still the Group column.
        let mut all = result(
            "Barrier",
            "imb",
            "collective",
            4,
            unchecked(vec![row(0, 4.5)]),
        );
        all.mode = "multi".into();
        all.group_rows = vec![GroupRows {
            group: 0,
            ranks: (0..4).collect(),
            rows: all.rows.clone(),
        }];
        s.push_str(&section(&all, &cx(4)));
        // -multi 0: no Group column; single transfers get ranges.
        let mut m0 = result("PingPong", "imb", "single transfer", 2, rows);
        m0.mode = "multi".into();
        m0.groups = 2;
        m0.active = 4;
        s.push_str(&section(&m0, &cx(4)));
        insta::assert_snapshot!(s);
    }

    #[test]
    fn rules_are_13_characters_per_column() {
        assert_eq!(rule(4).len(), 52);
        assert_eq!(rule(5).len(), 65);
        assert_eq!(rule(7).len(), 91);
        let mut big = String::new();
        groups(&mut big, 2, 17);
        assert!(big.starts_with("# Group  0:     0    1"), "{big}");
        assert!(big.contains("\n#    16\n# \n# Group  1:    17"), "{big}");
        let mut many = String::new();
        groups(&mut many, 1100, 1);
        assert_eq!(many.matches("# Group").count(), 1024);
        assert!(many.contains("#  . \n#  . \n# Group  588: "));
    }

    #[test]
    fn skipped_benchmarks_leave_a_comment() {
        let mut r = result("PingPong", "imb", "single transfer", 1, vec![]);
        r.skipped = Some("PingPong needs at least 2 processes, this run has 1".into());
        let s = section(&r, &cx(1));
        assert!(s.lines().all(|l| l.is_empty() || l.starts_with('#')), "{s}");
        assert!(!s.contains("Benchmarking"));
    }
}
