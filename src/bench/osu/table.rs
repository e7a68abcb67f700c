//! OSU's own tables (OMB 7.4), line for line where parsers read them: a
//! blank line, the title `# OSU MPI ... Test v7.4`, preamble lines such as
//! `# Datatype: MPI_CHAR.`, the header `# Size` left-aligned in 10 columns
//! with every column title right-aligned in 18 (OMB's FIELD_WIDTH), and
//! rows `%-10d` then `%18.2f` per figure. Nothing else goes to stdout.

use std::cell::RefCell;
use std::fmt::Write;

use crate::bench::osu::rma::{self, OsuSync};
use crate::bench::osu::VERSION;
use crate::bench::osu::{self, axis, nbc, Kind, Program};
use crate::comm::rma::WindowKind;
use crate::report::table::{Format, Heading, SectionCx};
use crate::results::{BenchResult, Report, Row};

pub struct Osu;

/// OMB's FIELD_WIDTH.
const W: usize = 18;

/// The display switches of the run (OSU -f, -z, -R 0), from the plan's axes.
#[derive(Debug, Clone, Default)]
struct View {
    full: bool,
    tail: Vec<f64>,
    no_rate: bool,
    /// The run's datatypes (OSU -T), in order: a program's table for the
    /// second and later ones continues its first (no title or preamble).
    datatypes: Vec<&'static str>,
}

thread_local! {
    static VIEW: RefCell<View> = RefCell::new(View::default());
}

impl View {
    fn of(plan: &Heading) -> View {
        View {
            full: osu::one(&plan.axes, axis::FULL).is_some(),
            tail: plan.axes.get(axis::TAIL).cloned().unwrap_or_default(),
            no_rate: osu::one(&plan.axes, axis::NO_RATE).is_some(),
            datatypes: plan.datatypes.iter().map(|d| d.name()).collect(),
        }
    }
}

impl Format for Osu {
    fn header(&self, _report: &Report, plan: &Heading) -> String {
        VIEW.with(|v| *v.borrow_mut() = View::of(plan));
        // OMB's preamble stays line for line (scripts and ReFrame's checks
        // read it): what mpibench adds comes after the tables.
        String::new()
    }

    fn section(&self, r: &BenchResult, cx: &SectionCx) -> String {
        let view = VIEW.with(|v| v.borrow().clone());
        table(r, cx, &view)
    }

    /// Ranks sharing cores, said once after the tables, as a comment line
    /// that OMB's readers skip.
    fn footer(&self, report: &Report) -> String {
        crate::report::table::shared_cores_line(report)
            .map(|l| format!("# {l}\n"))
            .unwrap_or_default()
    }
}

/// One column: its title and its figure of a row.
struct Col {
    title: String,
    width: usize,
    value: Box<dyn Fn(&Row) -> String>,
}

fn num(width: usize, f: impl Fn(&Row) -> Option<f64> + 'static) -> Box<dyn Fn(&Row) -> String> {
    Box::new(move |r| match f(r) {
        Some(v) if v.is_finite() => format!("{v:>width$.2}"),
        _ => format!("{:>width$}", "-"),
    })
}

fn col(title: &str, f: impl Fn(&Row) -> Option<f64> + 'static) -> Col {
    Col {
        title: title.to_string(),
        width: W,
        value: num(W, f),
    }
}

fn param(r: &Row, k: &str) -> Option<f64> {
    r.params.get(k).and_then(|v| v.as_f64())
}

/// OMB 7.4's tail figure of ascending values (omb_calculate_tail_lat):
/// the value at index ⌊n·p/100⌋ − 1 (integer arithmetic in OMB), at least
/// the first.
fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let k = (sorted.len() as f64 * p / 100.0).floor() as usize;
    Some(sorted[k.clamp(1, sorted.len()) - 1])
}

/// Per-iteration bandwidths of a row (MB/s), ascending.
fn bandwidths(r: &Row) -> Vec<f64> {
    let (Some(s), Some(mb)) = (&r.samples_us, r.mbytes_per_sec) else {
        return Vec::new();
    };
    // mbytes_per_sec = k / t_avg, so each iteration's is k / t_i.
    let k = mb * r.t_avg_us;
    let mut v: Vec<f64> = s.iter().filter(|t| **t > 0.0).map(|t| k / t).collect();
    v.sort_by(f64::total_cmp);
    v
}

fn latencies(r: &Row) -> Vec<f64> {
    let mut v = r.samples_us.clone().unwrap_or_default();
    v.sort_by(f64::total_cmp);
    v
}

fn columns(p: &Program, view: &View, checked: bool, transmit: bool, stats: bool) -> Vec<Col> {
    let mut c = Vec::new();
    match p.kind {
        // osu_latency_mt with several senders: OSU's own figure (see latency_mt).
        Kind::Latency => c.push(col("Avg Latency(us)", |r| {
            Some(param(r, osu::latency_mt::OMB_LATENCY).unwrap_or(r.t_avg_us))
        })),
        Kind::OneSided { bw: false } | Kind::Atomic => {
            c.push(col("Latency (us)", |r| Some(r.t_avg_us)))
        }
        Kind::OneSided { bw: true } => c.push(col("Bandwidth (MB/s)", |r| r.mbytes_per_sec)),
        // OMB 7.4's fan programs print their bandwidth under this title.
        Kind::Bandwidth { .. } if p.name.starts_with("osu_bw_fan_") => {
            c.push(col("Avg Latency(us)", |r| r.mbytes_per_sec))
        }
        Kind::Bandwidth { .. } => c.push(col("Bandwidth (MB/s)", |r| r.mbytes_per_sec)),
        Kind::MessageRate => {
            c.push(col("MB/s", |r| r.mbytes_per_sec));
            if !view.no_rate {
                c.push(col("Messages/s", |r| r.msg_per_sec));
            }
        }
        Kind::Collective => {
            c.push(col("Avg Latency(us)", |r| Some(r.t_avg_us)));
            if view.full {
                c.push(col("Min Latency(us)", |r| Some(r.t_min_us)));
                c.push(col("Max Latency(us)", |r| Some(r.t_max_us)));
                c.push(Col {
                    title: "Iterations".into(),
                    width: 12,
                    value: Box::new(|r| format!("{:>12}", r.repetitions)),
                });
            }
        }
        Kind::NonBlocking => {
            c.push(col("Overall(us)", |r| Some(r.t_avg_us)));
            // OSU: Overall = Coll. Init + Compute + MPI_Test + MPI_Wait.
            c.push(col("Compute(us)", |r| {
                Some(param(r, nbc::T_CPU)? - param(r, nbc::T_TEST).unwrap_or(0.0))
            }));
            if view.full {
                c.push(col("Coll. Init(us)", |r| param(r, nbc::T_INIT)));
                c.push(col("MPI_Test(us)", |r| param(r, nbc::T_TEST)));
                c.push(col("MPI_Wait(us)", |r| param(r, nbc::T_WAIT)));
            }
            c.push(col("Pure Comm.(us)", |r| param(r, nbc::T_PURE)));
            if view.full {
                c.push(col("Min Comm.(us)", |r| param(r, nbc::T_PURE_MIN)));
                c.push(col("Max Comm.(us)", |r| param(r, nbc::T_PURE_MAX)));
            }
            c.push(col("Overlap(%)", |r| param(r, nbc::OVERLAP)));
        }
    }
    if checked {
        c.push(Col {
            title: "Validation".into(),
            width: W,
            value: Box::new(|r| {
                let v = if r.errors == Some(0) { "Pass" } else { "Fail" };
                format!("{v:>W$}")
            }),
        });
    }
    let bw = matches!(
        p.kind,
        Kind::Bandwidth { .. } | Kind::MessageRate | Kind::OneSided { bw: true }
    );
    for &q in &view.tail {
        let label = format!("{q}");
        if bw {
            c.push(col(&format!("P{label} Tail BW(MB/s)"), move |r| {
                percentile(&bandwidths(r), q)
            }));
        } else {
            c.push(col(&format!("P{label} Tail Lat(us)"), move |r| {
                percentile(&latencies(r), q)
            }));
        }
    }
    if transmit {
        // OSU -D: the bytes a message transmits.
        c.push(Col {
            title: "Transmit Size".into(),
            width: W,
            value: Box::new(|r| match param(r, "transmit_bytes") {
                Some(v) => format!("{:>W$}", v as u64),
                None => format!("{:>W$}", "-"),
            }),
        });
    }
    if stats {
        c.push(col("Median(us)", |r| r.t_median_us));
        c.push(col("CI95 Lo(us)", |r| r.ci95_lo_us));
        c.push(col("CI95 Hi(us)", |r| r.ci95_hi_us));
    }
    c
}

/// A program's table.
fn table(r: &BenchResult, cx: &SectionCx, view: &View) -> String {
    let mut s = String::new();
    let Some(p) = osu::program(&r.benchmark) else {
        return s;
    };
    if let Some(why) = &r.skipped {
        let _ = writeln!(s, "# {}: {why}", p.name);
        return s;
    }
    let one_sided = matches!(p.kind, Kind::OneSided { .. } | Kind::Atomic);
    let datatype = r
        .rows
        .first()
        .and_then(|row| row.params.get("datatype"))
        .and_then(|v| v.as_str())
        .unwrap_or("MPI_CHAR");
    // OSU -T: the tables of the second and later datatypes continue the first.
    let continued = view.datatypes.iter().position(|d| *d == datatype) > Some(0);
    if !continued {
        before_title(&mut s, r);
        // OMB prints no blank line before these titles.
        if p.kind != Kind::MessageRate && !one_sided {
            s.push('\n');
        }
        preamble(&mut s, p, r, one_sided);
    }
    // osu_mbw_mr -V: OSU's bandwidth and message-rate profiles instead of the table.
    let windows = windows_of(r);
    if p.kind == Kind::MessageRate && windows.len() > 1 {
        varied(&mut s, r, datatype, &windows, view);
        return s;
    }
    // Barrier has no size: OMB prints no datatype and the first figure
    // without a size column. osu_get_acc_latency prints no datatype
    // either (OMB 7.4).
    let sized = r.rows.iter().any(|row| row.bytes > 0)
        || !p.name.trim_end_matches("_persistent").ends_with("barrier");
    let typed = p.name != "osu_get_acc_latency";
    if sized && typed {
        let _ = writeln!(s, "# Datatype: {datatype}.");
    }
    placement(&mut s, r);
    let checked = r.rows.iter().any(|row| row.errors.is_some());
    let transmit = r
        .rows
        .iter()
        .any(|row| row.params.contains_key("transmit_bytes"));
    let cols = columns(p, view, checked, transmit, cx.stats);
    figures(&mut s, p, r, &cols, sized);
    // A disturbed measurement (see engine::disturb) or a timed region that
    // page-faults: a '#' line after the table, which OMB's parsers skip, so
    // the figures keep OMB's shape.
    let flagged =
        |row: &&crate::results::Row| row.disturbed == Some(true) || row.faulted == Some(true);
    for row in r.rows.iter().filter(flagged) {
        let note = row.note.as_deref().unwrap_or("disturbed");
        let _ = writeln!(s, "# {} bytes: {note}", row.bytes);
    }
    s
}

/// What OMB prints before a program's title: the neighbourhood programs'
/// grid, osu_latency_mt's thread counts, osu_latency_mp's processes.
fn before_title(s: &mut String, r: &BenchResult) {
    if let Some(dims) = r.rows.first().and_then(osu::neighbor::preamble) {
        s.push_str(&dims);
    }
    let Some(row) = r.rows.first() else {
        return;
    };
    let threads = |k| row.params.get(k).and_then(|v| v.as_u64());
    // osu_latency_mt's thread counts (with OMB's trailing space).
    if let (Some(st), Some(rt)) = (
        threads(osu::latency_mt::SENDERS),
        threads(osu::latency_mt::RECEIVERS),
    ) {
        let _ = writeln!(s, "# Number of Sender threads: {st} ");
        let _ = writeln!(s, "# Number of Receiver threads: {rt}");
    }
    // osu_latency_mp: its forked processes.
    if let (Some(sp), Some(rp)) = (
        threads(osu::latency_mp::SENDER),
        threads(osu::latency_mp::RECEIVER),
    ) {
        let _ = writeln!(s, "# Number of forked processes in sender: {sp}");
        let _ = writeln!(s, "# Number of forked processes in receiver: {rp}");
    }
}

/// Which ranks on which hosts, only where the ranks span hosts (one host
/// prints OMB's own preamble, line for line), and the ranks left without
/// a partner (osu_bw on 3): said, never silent.
fn placement(s: &mut String, r: &BenchResult) {
    if let Some(h) = crate::report::table::hosts_line_across(r) {
        let _ = writeln!(s, "# Hosts: {h}");
    }
    if let Some(l) = crate::report::table::sat_out_line(r) {
        let _ = writeln!(s, "# {l}");
    }
}

/// The table's head and a line per row: the size (when `sized`), then
/// the columns.
fn figures(s: &mut String, p: &Program, r: &BenchResult, cols: &[Col], sized: bool) {
    // Its first figure in 17 columns (print_stats), 13 non-blocking (print_stats_nbc).
    let first = if p.kind == Kind::NonBlocking { 13 } else { 17 };
    let mut head = String::new();
    for (i, c) in cols.iter().enumerate() {
        if i == 0 && !sized {
            let _ = write!(head, "# {}", c.title);
        } else {
            let _ = write!(head, "{:>w$}", c.title, w = c.width);
        }
    }
    if sized {
        let _ = writeln!(s, "{:<10}{head}", "# Size");
    } else {
        let _ = writeln!(s, "{head}");
    }
    for row in &r.rows {
        let mut line = String::new();
        if p.kind == Kind::Atomic {
            // OMB prints the element count (one).
            let _ = write!(line, "{:<10}", 1);
        } else if sized {
            let _ = write!(line, "{:<10}", row.bytes);
        }
        for (i, c) in cols.iter().enumerate() {
            let v = (c.value)(row);
            if i == 0 && !sized {
                let _ = write!(line, "{:>first$}", v.trim());
            } else {
                line.push_str(&v);
            }
        }
        let _ = writeln!(s, "{line}");
    }
}

/// The title and the lines before the first `# Datatype:` line.
fn preamble(s: &mut String, p: &Program, r: &BenchResult, one_sided: bool) {
    let _ = writeln!(s, "# {} v{VERSION}", p.title);
    if one_sided {
        let first = r.rows.first();
        let str_of = |k: &str| {
            first
                .and_then(|row| row.params.get(k))
                .and_then(|v| v.as_str())
                .unwrap_or("")
                .to_string()
        };
        let win = WindowKind::from_name(&str_of("win")).unwrap_or(WindowKind::Allocate);
        let sync = OsuSync::from_name(&str_of("sync")).unwrap_or(OsuSync::Flush);
        let _ = writeln!(s, "# Window creation: {}", rma::window_call(win));
        let _ = writeln!(s, "# Synchronization: {}", sync.calls());
    }
    if p.kind == Kind::NonBlocking {
        s.push_str("# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait\n\n");
    }
    if p.kind == Kind::MessageRate {
        let first = |k: &str| {
            r.rows
                .first()
                .and_then(|row| row.params.get(k))
                .and_then(|v| v.as_u64())
        };
        let pairs = first("pairs").unwrap_or(r.processes as u64 / 2);
        if windows_of(r).len() > 1 {
            let _ = writeln!(s, "# [ pairs: {pairs} ] [ window size: varied ]");
        } else {
            let w = first("window").unwrap_or(osu::WINDOW as u64);
            let _ = writeln!(s, "# [ pairs: {pairs} ] [ window size: {w} ]");
        }
    }
}

/// The distinct window sizes of a result's rows, in order.
fn windows_of(r: &BenchResult) -> Vec<u64> {
    let mut v: Vec<u64> = Vec::new();
    for row in &r.rows {
        if let Some(w) = row.params.get("window").and_then(|v| v.as_u64()) {
            if !v.contains(&w) {
                v.push(w);
            }
        }
    }
    v
}

/// osu_mbw_mr -V (OMB 7.4): a bandwidth profile (a row per size, a column
/// per window) and, unless -R 0, the message-rate profile.
fn varied(s: &mut String, r: &BenchResult, datatype: &str, windows: &[u64], view: &View) {
    let _ = writeln!(
        s,
        "\n# Uni-directional Bandwidth (MB/sec)\n# Datatype: {datatype}."
    );
    let head = |s: &mut String| {
        s.push_str("#      ");
        for w in windows {
            let _ = write!(s, "  {w:>10}");
        }
        s.push('\n');
    };
    let mut sizes: Vec<usize> = Vec::new();
    for row in &r.rows {
        if !sizes.contains(&row.bytes) {
            sizes.push(row.bytes);
        }
    }
    let profile = |s: &mut String, f: &dyn Fn(&Row) -> Option<f64>| {
        head(s);
        for &x in &sizes {
            let _ = write!(s, "{x:<7}");
            for &w in windows {
                let v = r
                    .rows
                    .iter()
                    .find(|row| {
                        row.bytes == x
                            && row.params.get("window").and_then(|v| v.as_u64()) == Some(w)
                    })
                    .and_then(f);
                match v {
                    Some(v) if v.is_finite() => {
                        let _ = write!(s, "  {v:>10.2}");
                    }
                    _ => {
                        let _ = write!(s, "  {:>10}", "-");
                    }
                }
            }
            s.push('\n');
        }
    };
    profile(s, &|row: &Row| row.mbytes_per_sec);
    if !view.no_rate {
        s.push_str("\n# Message Rate Profile\n");
        profile(s, &|row: &Row| row.msg_per_sec);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::table::fixtures::{result, row};

    fn cx() -> SectionCx {
        SectionCx {
            rank_rows: None,
            world: 2,
            stats: false,
            repeats: 1,
        }
    }

    #[test]
    fn latency_table_is_omb_7_4() {
        let mut r = result(
            "osu_latency",
            "osu",
            "single transfer",
            2,
            vec![row(1, 0.25), row(4096, 1.38)],
        );
        for x in &mut r.rows {
            x.errors = None;
        }
        let t = table(&r, &cx(), &View::default());
        insta::assert_snapshot!(t);
        assert!(t.contains("\n# Size       Avg Latency(us)\n1                       0.25\n"));
    }

    #[test]
    fn a_disturbed_row_is_marked_after_the_table() {
        let mut r = result(
            "osu_latency",
            "osu",
            "single transfer",
            2,
            vec![row(1, 4.0), row(2, 9.0)],
        );
        r.rows[1].disturbed = Some(true);
        r.rows[1].note = Some("disturbed: a stall of 20.1 s, 938x the pace".into());
        let t = table(&r, &cx(), &View::default());
        assert!(
            t.ends_with("\n# 2 bytes: disturbed: a stall of 20.1 s, 938x the pace\n"),
            "{t}"
        );
        r.rows[1].disturbed = None;
        assert!(!table(&r, &cx(), &View::default()).contains("disturbed"));
    }

    #[test]
    fn fan_get_acc_and_neighbour_preambles_are_omb_7_4() {
        // The fan programs: their bandwidth under "Avg Latency(us)".
        // One row of size 1, without a validation column.
        let bare = |name: &str, class: &str, ranks: usize, t: f64| {
            let mut r = result(name, "osu", class, ranks, vec![row(1, t)]);
            r.rows[0].errors = None;
            r
        };
        let mut r = bare("osu_bw_fan_in", "single transfer", 4, 4.0);
        r.rows[0].mbytes_per_sec = Some(8.84);
        let t = table(&r, &cx(), &View::default());
        assert_eq!(
            t,
            "\n# OSU MPI Bandwidth Test v7.4\n# Datatype: MPI_CHAR.\n# Size       Avg Latency(us)\n1                       8.84\n"
        );
        // osu_get_acc_latency: create and lock, no datatype line.
        let mut r = bare("osu_get_acc_latency", "single transfer", 2, 3.22);
        r.rows[0].params.insert("win".into(), "create".into());
        r.rows[0].params.insert("sync".into(), "lock".into());
        let t = table(&r, &cx(), &View::default());
        assert!(
            t.starts_with("# OSU MPI_Get_accumulate latency Test v7.4\n# Window creation: MPI_Win_create\n# Synchronization: MPI_Win_lock/unlock\n# Size          Latency (us)\n"),
            "{t}"
        );
        // The neighbourhood programs: the grid, then the topology's creation time.
        let mut r = bare("osu_neighbor_allgather", "collective", 4, 4.87);
        r.rows[0]
            .params
            .insert(osu::neighbor::DIMS.into(), vec![4u64].into());
        r.rows[0]
            .params
            .insert(osu::neighbor::CREATED.into(), 157.14.into());
        let t = table(&r, &cx(), &View::default());
        assert!(
            t.starts_with("Dimensions size = 4 \nTime took to create topology graph:157.14 us.\n\n# OSU MPI Neighborhood Allgather Latency Test v7.4\n# Datatype: MPI_CHAR.\n"),
            "{t}"
        );
    }

    #[test]
    fn full_checked_tail_and_rate_tables() {
        let r = result("osu_allreduce", "osu", "collective", 4, vec![row(4, 6.45)]);
        let v = View {
            full: true,
            ..View::default()
        };
        insta::assert_snapshot!(table(&r, &cx(), &v));
        let mut r = result("osu_mbw_mr", "osu", "single transfer", 4, vec![row(1, 3.0)]);
        r.rows[0].mbytes_per_sec = Some(18.92);
        r.rows[0].msg_per_sec = Some(18924888.89);
        r.rows[0].errors = None;
        insta::assert_snapshot!(table(&r, &cx(), &View::default()));
        let mut r = result("osu_bw", "osu", "single transfer", 2, vec![row(8, 4.0)]);
        r.rows[0].mbytes_per_sec = Some(128.0);
        r.rows[0].samples_us = Some(vec![2.0, 4.0, 8.0]);
        r.rows[0].errors = None;
        let v = View {
            tail: vec![50.0, 99.0],
            ..View::default()
        };
        let t = table(&r, &cx(), &v);
        insta::assert_snapshot!(t);
        // 128 MB/s at 4 us: 256 at 2 us, 64 at 8 us; ascending 64, 128,
        // 256: OMB's P50 is the first (⌊1.5⌋ − 1 = 0), P99 the second.
        assert!(
            t.contains("128.00             64.00            128.00"),
            "{t}"
        );
        let mut r = result("osu_iallreduce", "osu", "collective", 4, vec![row(4, 9.54)]);
        for (k, v) in [(nbc::T_CPU, 4.16), (nbc::T_PURE, 3.44), (nbc::OVERLAP, 0.0)] {
            r.rows[0].params.insert(k.into(), v.into());
        }
        r.rows[0].errors = None;
        insta::assert_snapshot!(table(&r, &cx(), &View::default()));
        let mut r = result("osu_barrier", "osu", "collective", 4, vec![row(0, 1.5)]);
        r.rows[0].errors = None;
        insta::assert_snapshot!(table(&r, &cx(), &View::default()));
    }

    #[test]
    fn barriers_print_no_datatype() {
        // OMB 7.4's barriers: no `# Datatype:` line, no size column; the
        // first figure in 17 columns (print_stats), 13 non-blocking.
        for (name, first) in [
            ("osu_barrier", "# Avg Latency(us)\n             1.50\n"),
            (
                "osu_barrier_persistent",
                "# Avg Latency(us)\n             1.50\n",
            ),
            ("osu_ibarrier", "# Overall(us)       Compute(us)"),
        ] {
            let mut r = result(name, "osu", "collective", 4, vec![row(0, 1.5)]);
            r.rows[0].errors = None;
            let t = table(&r, &cx(), &View::default());
            assert!(!t.contains("Datatype"), "{t}");
            assert!(t.contains(first), "{name}: {t}");
            if name == "osu_ibarrier" {
                let last = t.lines().last().unwrap();
                assert!(last.starts_with("         1.50"), "{t}");
                assert!(!last.starts_with("          1.50"), "{t}");
            }
        }
    }

    #[test]
    fn later_datatypes_continue_the_table_with_transmit_sizes() {
        let mut r = result(
            "osu_latency",
            "osu",
            "single transfer",
            2,
            vec![row(64, 1.5)],
        );
        r.rows[0].errors = None;
        r.rows[0].params.insert("datatype".into(), "MPI_INT".into());
        r.rows[0].params.insert("transmit_bytes".into(), 32.into());
        let v = View {
            datatypes: vec!["MPI_CHAR", "MPI_INT"],
            ..View::default()
        };
        let t = table(&r, &cx(), &v);
        assert_eq!(
            t,
            "# Datatype: MPI_INT.\n# Size       Avg Latency(us)     Transmit Size\n64                      1.50                32\n"
        );
        // The first datatype's table has the title.
        r.rows[0]
            .params
            .insert("datatype".into(), "MPI_CHAR".into());
        let t = table(&r, &cx(), &v);
        assert!(
            t.starts_with("\n# OSU MPI Latency Test v7.4\n# Datatype: MPI_CHAR.\n"),
            "{t}"
        );
    }

    #[test]
    fn varied_window_profiles_are_omb_7_4() {
        let mut rows = Vec::new();
        for x in [1usize, 2] {
            for w in [1u64, 2] {
                let mut r = row(x, 1.0);
                r.errors = None;
                r.params.insert("window".into(), w.into());
                r.params.insert("pairs".into(), 1.into());
                r.mbytes_per_sec = Some((x as u64 * w) as f64);
                r.msg_per_sec = Some(1e6 * w as f64);
                rows.push(r);
            }
        }
        let r = result("osu_mbw_mr", "osu", "single transfer", 4, rows);
        let t = table(&r, &cx(), &View::default());
        insta::assert_snapshot!(t);
        assert!(t.starts_with(&format!("# OSU MPI Multiple Bandwidth / Message Rate Test v7.4\n# [ pairs: 1 ] [ window size: varied ]\n\n# Uni-directional Bandwidth (MB/sec)\n# Datatype: MPI_CHAR.\n#{}1           2\n1              1.00        2.00\n", " ".repeat(17))), "{t}");
        assert!(t.contains("\n# Message Rate Profile\n"), "{t}");
        let v = View {
            no_rate: true,
            ..View::default()
        };
        assert!(!table(&r, &cx(), &v).contains("Message Rate Profile"));
    }

    #[test]
    fn percentiles_are_omb_indices() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(percentile(&v, 50.0), Some(2.0));
        // ⌊4·99/100⌋ − 1 = 2 (nearest rank would give the last).
        assert_eq!(percentile(&v, 99.0), Some(3.0));
        assert_eq!(percentile(&v, 100.0), Some(4.0));
        // ⌊4·10/100⌋ − 1 = −1 (OMB reads before its array): the first.
        assert_eq!(percentile(&v, 10.0), Some(1.0));
        let hundred: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&hundred, 90.0), Some(90.0));
        assert_eq!(percentile(&[], 50.0), None);
    }
}
