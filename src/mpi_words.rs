//! The MPI library's own words when it could not start: the first lines of
//! the launcher's and the ranks' stderr that explain it (Open MPI's "A
//! requested component was not found ... Framework: btl, Component:
//! nonexistent", MPICH's "Abort ... PMPI_Init_thread ..."), kept while the
//! relay drops the library's reaction to a failing job, and shown under
//! mpibench's own line.

/// At most this many lines of the library's stderr are kept.
pub const KEPT: usize = 200;

/// At most this many lines are shown.
pub const SHOWN: usize = 8;

/// A line that says nothing: empty, a banner of dashes or stars, Open MPI's
/// note about aggregated help messages, its runtime's internal error log (a
/// loaded machine's `ORTE_ERROR_LOG: Data unpack would read past end of
/// buffer in file show_help.c` as the help messages of a failing job race,
/// which pushed "Component: nonexistent" out of the lines shown), or one of
/// mpibench's own.
fn noise(line: &str) -> bool {
    let t = line.trim();
    t.is_empty()
        || t.chars().all(|c| matches!(c, '-' | '=' | '*' | '#'))
        || t.contains("ORTE_ERROR_LOG")
        || t.contains("PMIX_ERROR")
        || t.contains("PMIX ERROR:")
        || t.contains("more process has sent help message")
        || t.contains("more processes have sent help message")
        || t.contains("orte_base_help_aggregate")
        || ["error: ", "warning: ", "mpibench: ", "note: "]
            .iter()
            .any(|p| t.starts_with(p))
}

/// "[vm:03098] *** An error occurred" → "An error occurred".
fn strip_prefix(line: &str) -> &str {
    let mut t = line.trim();
    if t.starts_with('[') {
        if let Some(i) = t.find("] ") {
            t = t[i + 2..].trim_start();
        }
    }
    t.trim_start_matches('*').trim()
}

/// The first lines that explain, from the kept lines, as they are shown:
/// without host and process prefixes, control characters or noise.
pub fn explain(lines: &[Vec<u8>]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for l in lines {
        let text = String::from_utf8_lossy(l);
        for line in text.lines() {
            if noise(line) {
                continue;
            }
            let t: String = strip_prefix(line)
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect();
            if t.is_empty() || out.last() == Some(&t) {
                continue;
            }
            out.push(t);
            if out.len() == SHOWN {
                return out;
            }
        }
    }
    out
}

/// The lines printed under mpibench's line (empty without words).
pub fn block(lines: &[Vec<u8>]) -> String {
    let words = explain(lines);
    if words.is_empty() {
        return String::new();
    }
    let mut s = String::from("  the MPI library said:\n");
    for w in words {
        s.push_str("    ");
        s.push_str(&w);
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<Vec<u8>> {
        text.lines()
            .map(|l| format!("{l}\n").into_bytes())
            .collect()
    }

    #[test]
    fn open_mpi_names_the_missing_component() {
        let text = "\
--------------------------------------------------------------------------
A requested component was not found, or was unable to be opened.  This
means that this component is either not installed or is unable to be
used on your system (e.g., sometimes this means that shared libraries
that the component requires are unable to be found/loaded).  Note that
Open MPI stopped checking at the first component that it did not find.

Host:      vm
Framework: btl
Component: nonexistent
--------------------------------------------------------------------------
--------------------------------------------------------------------------
It looks like MPI_INIT failed for some reason; your parallel process is
[vm:03098] *** An error occurred in MPI_Init_thread
[vm:03092] 1 more process has sent help message help-mca-base.txt / find-available:not-valid
[vm:03092] Set MCA parameter \"orte_base_help_aggregate\" to 0 to see all help / error messages
";
        let w = explain(&lines(text));
        assert_eq!(w.len(), SHOWN);
        assert_eq!(
            w[0],
            "A requested component was not found, or was unable to be opened.  This"
        );
        assert_eq!(w[6], "Framework: btl");
        assert_eq!(w[7], "Component: nonexistent");
        let b = block(&lines(text));
        assert!(
            b.starts_with("  the MPI library said:\n    A requested"),
            "{b}"
        );
        assert_eq!(b.lines().count(), SHOWN + 1);
    }

    #[test]
    fn the_runtimes_error_log_does_not_push_the_component_out() {
        let text = "\
[[7361,0],0] ORTE_ERROR_LOG: Data unpack would read past end of buffer in file ../../../orte/util/show_help.c at line 501
A requested component was not found, or was unable to be opened.  This
means that this component is either not installed or is unable to be
used on your system (e.g., sometimes this means that shared libraries
that the component requires are unable to be found/loaded).  Note that
Open MPI stopped checking at the first component that it did not find.
[vm:1] PMIX ERROR: UNREACHABLE in file server/pmix_server.c at line 2198
Host:      vm
Framework: btl
Component: nonexistent
";
        let w = explain(&lines(text));
        assert_eq!(w.len(), SHOWN, "{w:?}");
        assert!(w[0].starts_with("A requested component"), "{w:?}");
        assert_eq!(w[SHOWN - 1], "Component: nonexistent");
    }

    #[test]
    fn prefixes_noise_and_control_characters_go() {
        let text =
            "[vm:1] *** An error occurred in MPI_Init_thread\n\x1b[31mred\x1b[0m\nerror: ours\n\n";
        assert_eq!(
            explain(&lines(text)),
            ["An error occurred in MPI_Init_thread", " [31mred [0m"]
        );
        assert!(block(&lines("-----\n\n")).is_empty());
    }
}
