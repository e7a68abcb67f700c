//! Tables on stdout, each suite in its own format: what every format
//! shares (the [`Format`] trait, [`SectionCx`], header and host lines). Each
//! suite's formats are in its folder (`bench/<suite>/table.rs`), named by
//! the suite's registry value, which alone decides which format prints a
//! result. Formatting only; the numbers come from the results.

use crate::bench::datatype::Datatype;
use crate::contract::Axes;
use crate::results::{BenchResult, Report};

/// One suite's table format.
/// What a table's header shows of the run: built from the plan by the
/// layer above ([`crate::plan::Plan::heading`]), so that tables read the
/// run's settings, never the plan.
#[derive(Debug, Clone, Default)]
pub struct Heading {
    /// The command line as the run records it.
    pub command: Vec<String>,
    /// The front end's own parameters, as typed.
    pub frontend: Option<String>,
    /// The benchmarks named, `suite/name`.
    pub benchmarks: Vec<String>,
    /// They run in Multi mode.
    pub multi: bool,
    pub sizes: Vec<usize>,
    pub axes: Axes,
    pub datatypes: Vec<Datatype>,
    pub reduction_datatype: Option<Datatype>,
    /// `--iter` and `--precision`, as given.
    pub iter: Option<usize>,
    pub precision: Option<f64>,
    pub check: bool,
}

pub trait Format: Sync {
    /// The run header: date, hosts, library, command, what will run.
    fn header(&self, report: &Report, plan: &Heading) -> String;
    /// One benchmark at one process count (and one repeat).
    fn section(&self, r: &BenchResult, cx: &SectionCx) -> String;
    /// Lines before a section, given the one before it (e.g. a suite's own
    /// section headers when the part of the suite changes).
    fn between(&self, _prev: Option<&BenchResult>, _next: &BenchResult) -> String {
        String::new()
    }
    /// Closing lines.
    fn footer(&self, report: &Report) -> String;
    /// Closing lines, knowing the run's switches: formats whose tables span
    /// several results (CRESTA's blocks over process counts) print them here.
    fn summary(&self, report: &Report, _cx: &SectionCx) -> String {
        self.footer(report)
    }
}

/// `v` right-aligned in `w` columns with `p` decimals, or "-" when there is
/// no figure (a row without a valid sample carries NaN).
pub fn fixed(v: f64, w: usize, p: usize) -> String {
    if v.is_finite() {
        format!("{v:>w$.p$}")
    } else {
        format!("{:>w$}", "-")
    }
}

/// Text for a table line: control characters (line breaks, terminal escape
/// sequences, MPICH's tab in its version string) become spaces.
pub fn printable(s: &str) -> String {
    replace_controls(s, &[])
}

/// `s` with its control characters, except those in `keep`, replaced by spaces.
pub fn replace_controls(s: &str, keep: &[char]) -> String {
    s.chars()
        .map(|c| {
            if c.is_control() && !keep.contains(&c) {
                ' '
            } else {
                c
            }
        })
        .collect()
}

/// What a section needs beyond its result.
pub struct SectionCx {
    pub world: usize,
    /// Show the statistics columns (`--stats`).
    pub stats: bool,
    /// Runs of the whole list (`--repeats`).
    pub repeats: usize,
    /// IMB's `-map PxQ` with P and Q above 1: P, the rows in which IMB's
    /// tables list the ranks of a process count ("rank order (rowwise)").
    pub rank_rows: Option<usize>,
}

/// Shared header lines: date, hosts, processes, library, command.
pub(crate) fn run_lines(report: &Report, prefix: &str) -> String {
    let hosts: Vec<String> = report
        .hosts
        .iter()
        .zip(&report.ranks_per_host)
        .map(|(h, n)| format!("{} ({n} ranks)", printable(h)))
        .collect();
    [
        format!("{prefix}Date                  : {}", report.started),
        format!("{prefix}Hosts                 : {}", hosts.join(", ")),
        format!("{prefix}Processes             : {}", report.world_size),
        context_lines(report, prefix),
        format!(
            "{prefix}MPI library           : {}",
            printable(&report.mpi.library)
        ),
        format!(
            "{prefix}MPI version           : {}.{}",
            report.mpi.version[0], report.mpi.version[1]
        ),
        format!(
            "{prefix}Command               : {}",
            printable(&report.command.join(" "))
        ),
    ]
    .into_iter()
    .filter(|l| !l.is_empty())
    .collect::<Vec<_>>()
    .join("\n")
        + "\n"
}

/// "Ranks share cores: 4 ranks on 2 cores (vm) ..." when the context says
/// they did; for headers that print nothing else of the context.
pub fn shared_cores_line(report: &Report) -> Option<String> {
    let cx = report.context.as_ref().filter(|c| c.oversubscribed)?;
    let hosts: Vec<String> = cx
        .hosts
        .iter()
        .map(|h| {
            format!(
                "{} ranks on {} cores of {}",
                h.ranks,
                h.cores,
                printable(&h.host)
            )
        })
        .collect();
    Some(format!(
        "Ranks share cores ({}): time slicing is in every figure",
        hosts.join(", ")
    ))
}

/// The context's header lines (no line when the result has no context):
/// cores and binding per host, with a warning when ranks share cores; the
/// processor, NUMA nodes and kernel; the MPI settings of the environment.
pub fn context_lines(report: &Report, prefix: &str) -> String {
    let Some(cx) = &report.context else {
        return String::new();
    };
    let mut lines = Vec::new();
    // Hosts alike are one entry: "vm1 and 99 other hosts: 36 ranks on ...".
    let mut alike: Vec<(String, &str, usize)> = Vec::new();
    for h in &cx.hosts {
        let line = format!(
            "{} rank{} on {} core{} ({}), {}",
            h.ranks,
            if h.ranks == 1 { "" } else { "s" },
            h.cores,
            if h.cores == 1 { "" } else { "s" },
            h.cpus,
            if h.bound { "bound" } else { "not bound" }
        );
        match alike.iter_mut().find(|(l, _, _)| *l == line) {
            Some(a) => a.2 += 1,
            None => alike.push((line, &h.host, 1)),
        }
    }
    let mut cores: Vec<String> = alike
        .iter()
        .map(|(line, host, n)| match (cx.hosts.len(), n) {
            (1, _) => line.clone(),
            (_, 1) => format!("{}: {line}", printable(host)),
            (_, n) => format!("{} and {} other hosts: {line}", printable(host), n - 1),
        })
        .collect();
    if cx.oversubscribed {
        cores.push("ranks share cores: time slicing is in every figure".into());
    }
    lines.push(format!(
        "{prefix}Cores                 : {}",
        cores.join("; ")
    ));
    let machines: Vec<String> = cx
        .hosts
        .iter()
        .map(|h| {
            let mut m = h
                .cpu_model
                .clone()
                .unwrap_or_else(|| "processor unknown".into());
            if h.numa_nodes > 0 {
                let s = if h.numa_nodes == 1 { "" } else { "s" };
                m.push_str(&format!(", {} NUMA node{s}", h.numa_nodes));
            }
            if let Some(g) = &h.governor {
                m.push_str(&format!(", governor {g}"));
            }
            format!("{m}; {}", h.kernel)
        })
        .fold(Vec::new(), |mut v, m| {
            if !v.contains(&m) {
                v.push(m);
            }
            v
        });
    lines.push(format!(
        "{prefix}Processor             : {}",
        printable(&machines.join(" | "))
    ));
    if !cx.mpi_env.is_empty() {
        let env: Vec<String> = cx.mpi_env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        lines.push(format!(
            "{prefix}MPI settings          : {}",
            printable(&env.join(" "))
        ));
    }
    if cx.malloc == "stable" || !cx.malloc_env.is_empty() {
        let mut m = vec![if cx.malloc == "stable" {
            "--malloc stable (mmap threshold 32 MiB, trim threshold 1 GiB)".to_string()
        } else {
            "the C library's".to_string()
        }];
        m.extend(cx.malloc_env.iter().map(|(k, v)| format!("{k}={v}")));
        lines.push(format!(
            "{prefix}Allocator             : {}",
            printable(&m.join("; "))
        ));
    }
    lines.join("\n")
}

/// A suite's table header: a rule, `# TITLE on mpibench V`, the rule again,
/// the run's lines, the front end's parameters under `label`, then `lines`
/// as `# Name                  : text` (an empty name continues the line above).
pub(crate) fn titled_header(
    rule: &str,
    title: &str,
    report: &Report,
    plan: &Heading,
    label: &str,
    lines: &[(&str, &str)],
) -> String {
    use std::fmt::Write;
    let mut s = format!(
        "{rule}\n# {title} on mpibench {}\n{rule}\n",
        report.mpibench_version
    );
    s.push_str(&run_lines(report, "# "));
    let front = plan.frontend.as_deref().map(|p| (label, p));
    for (name, text) in front.into_iter().chain(lines.iter().copied()) {
        let _ = if name.is_empty() {
            writeln!(s, "#{:25}{text}", "")
        } else {
            writeln!(s, "# {name:<22}: {text}")
        };
    }
    s
}

/// Validation errors over every row of the run.
pub(crate) fn total_errors(report: &Report) -> u64 {
    report
        .results
        .iter()
        .flat_map(|r| &r.rows)
        .filter_map(|r| r.errors)
        .sum()
}

/// Which ranks ran on which hosts, for a section header: "node1 (rank 0),
/// node2 (rank 2); pairs inter-host". Only where it says something: the
/// active ranks span several hosts, or the benchmark pairs ranks.
pub(crate) fn hosts_line(r: &BenchResult) -> Option<String> {
    if r.hosts.is_empty() {
        return None;
    }
    let spans = r.hosts.iter().any(|h| *h != r.hosts[0]);
    if !spans && r.pair.is_none() {
        return None;
    }
    let mut s = crate::contract::placement::ranks_on_hosts(&r.ranks, &r.hosts);
    match r.pair.as_deref() {
        Some("inter") => s.push_str("; pairs inter-host"),
        Some("intra") => s.push_str("; pairs intra-host"),
        Some(_) => s.push_str("; pairs inter- and intra-host"),
        None => {}
    }
    if let Some(p) = &r.pairs {
        s.push_str(&format!(" (--pairs {p})"));
    }
    Some(s)
}

/// [`hosts_line`] only where the active ranks span several hosts or
/// `--pairs inter|intra` chose them: the seeds' own formats (cafbench,
/// COMMTEST, OSU) stay line for line on one host.
pub(crate) fn hosts_line_across(r: &BenchResult) -> Option<String> {
    hosts_line(r).filter(|_| r.pairs.is_some() || r.hosts.iter().any(|h| *h != r.hosts[0]))
}

/// "rank 2 sat out (unpaired)" (for a "# " line) when ranks of the groups did not take
/// part (an odd rank of a pair benchmark); nothing otherwise, so that the
/// seeds' own formats stay line for line when every rank runs.
pub(crate) fn sat_out_line(r: &BenchResult) -> Option<String> {
    let (first, rest) = r.sat_out.split_first()?;
    let list = rest
        .iter()
        .fold(first.to_string(), |s, x| format!("{s}, {x}"));
    let word = if rest.is_empty() { "rank" } else { "ranks" };
    Some(format!("{word} {list} sat out (unpaired)"))
}

/// A statistic or "-" where there is none.
pub(crate) fn opt(v: Option<f64>, prec: usize) -> String {
    v.map_or("-".to_string(), |v| format!("{v:.prec$}"))
}

#[cfg(test)]
pub(crate) mod fixtures {
    //! Deterministic results for the snapshot tests of every format.

    use crate::results::{BenchResult, MpiInfo, Report, Row, Settings};

    /// The plan of `args` on `world` ranks (a drop-in's header reads it).
    pub fn plan(args: &crate::cli::RunArgs, world: usize) -> crate::plan::Plan {
        crate::plan::Plan::build(args, vec!["mpibench".into()], world, world).unwrap()
    }

    /// A section's context on `world` ranks, without statistics or repeats.
    pub fn cx(world: usize) -> super::SectionCx {
        super::SectionCx {
            rank_rows: None,
            world,
            stats: false,
            repeats: 1,
        }
    }

    pub fn report(world: usize) -> Report {
        Report {
            schema: "mpibench/1".into(),
            mpibench_version: "0.1.0".into(),
            command: vec!["mpibench".into(), "run".into()],
            started: "2026-11-23T12:00:00Z".into(),
            complete: true,
            mpi: MpiInfo {
                library: "Open MPI v4.1.4".into(),
                version: [3, 1],
            },
            world_size: world,
            hosts: vec!["node01".into()],
            ranks_per_host: vec![world],
            settings: Settings {
                sync: "barrier".into(),
                timing: "loop".into(),
                check: true,
                iter: None,
                time_limit_s: 10.0,
                root_shift: false,
                root: 0,
                min_iter: 1,
                max_iter: 1000,
                precision: None,
                window_us: None,
                mem_limit_bytes: 1 << 30,
                timeout_s: None,
                large_messages: "derived-datatype".into(),
                warmup: None,
                off_cache: None,
                msg_pause: false,
                imb_map: None,
            },
            results: Vec::new(),
            slurm: None,
            status: Some("ok".into()),
            interrupted_by: None,
            reason: None,
            signal: None,
            launches: Vec::new(),
            context: None,
        }
    }

    pub fn row(bytes: usize, t: f64) -> Row {
        Row {
            bytes,
            repetitions: 1000,
            t_min_us: t * 0.9,
            t_max_us: t * 1.1,
            t_avg_us: t,
            errors: Some(0),
            t_median_us: Some(t),
            t_p5_us: Some(t * 0.8),
            t_p95_us: Some(t * 1.3),
            ci95_lo_us: Some(t * 0.95),
            ci95_hi_us: Some(t * 1.05),
            valid: Some(1000),
            invalid: Some(0),
            outliers: Some(3),
            ..Row::default()
        }
    }

    pub fn result(name: &str, suite: &str, class: &str, q: usize, rows: Vec<Row>) -> BenchResult {
        BenchResult {
            benchmark: name.into(),
            suite: suite.into(),
            class: class.into(),
            processes: q,
            mode: "primary".into(),
            groups: 1,
            active: q,
            method: Some("loop".into()),
            sync: Some("barrier".into()),
            rows,
            ..BenchResult::default()
        }
    }
}

#[cfg(test)]
mod hosts_tests {
    use super::*;

    #[test]
    fn seed_formats_name_hosts_only_across_hosts_or_when_chosen() {
        let on = |hosts: &[&str], pairs: Option<&str>| BenchResult {
            ranks: (0..hosts.len()).collect(),
            hosts: hosts.iter().map(|h| h.to_string()).collect(),
            pair: Some("intra".into()),
            pairs: pairs.map(str::to_string),
            ..BenchResult::default()
        };
        // One host: PMB's line names it; the seeds' formats stay as they are.
        assert!(hosts_line(&on(&["vm", "vm"], None)).is_some());
        assert_eq!(hosts_line_across(&on(&["vm", "vm"], None)), None);
        // Across hosts, or chosen with --pairs: named.
        let r = on(&["n1", "n2"], None);
        assert_eq!(hosts_line_across(&r), hosts_line(&r));
        assert!(hosts_line_across(&on(&["n1", "n1"], Some("intra")))
            .unwrap()
            .contains("(--pairs intra)"));
    }

    #[test]
    fn ranks_that_sat_out_are_named() {
        let mut r = BenchResult::default();
        assert_eq!(sat_out_line(&r), None);
        r.sat_out = vec![2];
        assert_eq!(sat_out_line(&r).unwrap(), "rank 2 sat out (unpaired)");
        r.sat_out = vec![2, 5];
        assert_eq!(sat_out_line(&r).unwrap(), "ranks 2, 5 sat out (unpaired)");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_become_spaces() {
        let evil = "vm\x1b]0;evil\x07\nnext\tcol";
        assert_eq!(printable(evil), "vm ]0;evil  next col");
        assert_eq!(replace_controls(evil, &['\n']), "vm ]0;evil \nnext col");
        assert_eq!(
            crate::report::html::esc("<b>\x1b[31m\n"),
            "&lt;b&gt; [31m\n"
        );
    }
}
