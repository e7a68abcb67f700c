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
        || runtime_line(t)
        || t.contains("more process has sent help message")
        || t.contains("more processes have sent help message")
        || t.contains("orte_base_help_aggregate")
        || ["error: ", "warning: ", "mpibench: ", "note: "]
            .iter()
            .any(|p| t.starts_with(p))
}

/// "[vm:03098] *** An error occurred" → "*** An error occurred".
fn without_host(line: &str) -> &str {
    let t = line.trim();
    match t.find("] ") {
        Some(i) if t.starts_with('[') => t[i + 2..].trim_start(),
        _ => t,
    }
}

/// "[vm:03098] *** An error occurred" → "An error occurred".
fn strip_prefix(line: &str) -> &str {
    without_host(line).trim_start_matches('*').trim()
}

/// Whether a shown line names a specific: "Framework: btl", "Component:
/// nonexistent", "Host: vm" (a capitalised key of a few words, a colon, a
/// value), as Open MPI's help messages end with the facts they are about.
fn names_a_fact(line: &str) -> bool {
    let Some((key, value)) = line.split_once(':') else {
        return false;
    };
    key.len() <= 24
        && key.starts_with(|c: char| c.is_ascii_uppercase())
        && key.chars().all(|c| c.is_ascii_alphabetic() || c == ' ')
        && !value.trim().is_empty()
}

/// Whether a line is of Open MPI's error handler's message ("[vm:123] ***
/// An error occurred in MPI_Init_thread", "*** reported by process ..."),
/// which a rank prints while the launcher prints a help message to the
/// same pipe: on a loaded machine its lines land inside the help message.
fn handler_line(line: &str) -> bool {
    without_host(line).starts_with("***")
}

/// The kept lines as shown (without host and process prefixes, control
/// characters or noise), in blocks: Open MPI frames each help message in
/// banners of dashes, and a banner ends a block; the error handler's lines
/// are a block of their own, last, wherever they came.
fn blocks(lines: &[Vec<u8>]) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = vec![Vec::new()];
    let mut handler: Vec<String> = Vec::new();
    for l in lines {
        let text = String::from_utf8_lossy(l);
        for line in text.lines() {
            let t = line.trim();
            if !t.is_empty() && t.chars().all(|c| c == '-') {
                out.push(Vec::new());
                continue;
            }
            if noise(line) {
                continue;
            }
            let t: String = strip_prefix(line)
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect();
            if t.is_empty() {
                continue;
            }
            if handler_line(line) {
                handler.push(t);
            } else {
                out.last_mut().expect("one block at least").push(t);
            }
        }
    }
    out.push(handler);
    out.retain(|b| !b.is_empty());
    out
}

/// The first lines that explain, from the kept lines: the blocks that name
/// their facts first (Open MPI's "A requested component was not found ...
/// Framework: btl, Component: nonexistent" before its generic "It looks
/// like MPI_INIT failed", which the ranks may print first on a loaded
/// machine), then the others, each in the order it came; a line already
/// shown is not shown again (every rank prints the same help message).
pub fn explain(lines: &[Vec<u8>]) -> Vec<String> {
    let words = explained(lines);
    if words.is_empty() {
        return runtime_log(lines);
    }
    words
}

/// Whether a line is of Open MPI's runtime error log ("ORTE_ERROR_LOG:
/// Data unpack would read past end of buffer in file .../show_help.c"),
/// which is noise beside a help message but all that is left when the
/// runtime lost the message itself (about 1 launch in 10 on a loaded
/// machine, with a bare mpiexec too).
fn runtime_line(line: &str) -> bool {
    ["ORTE_ERROR_LOG", "PMIX_ERROR", "PMIX ERROR:"]
        .iter()
        .any(|k| line.contains(k))
}

/// The runtime's error log, when nothing else was said: each line once
/// (without the host and job prefixes), the first [`SHOWN`].
fn runtime_log(lines: &[Vec<u8>]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for l in lines {
        for line in String::from_utf8_lossy(l).lines() {
            if !runtime_line(line) {
                continue;
            }
            let t = line.trim();
            let t = t
                .find("ORTE_ERROR_LOG")
                .or_else(|| t.find("PMIX"))
                .map_or(t, |i| &t[i..]);
            let t: String = t
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect();
            if !out.contains(&t) && out.len() < SHOWN {
                out.push(t);
            }
        }
    }
    out
}

fn explained(lines: &[Vec<u8>]) -> Vec<String> {
    let blocks = blocks(lines);
    let (facts, rest): (Vec<_>, Vec<_>) = blocks
        .iter()
        .partition(|b| b.iter().any(|l| names_a_fact(l)));
    let mut out: Vec<String> = Vec::new();
    for line in facts.into_iter().chain(rest).flatten() {
        if out.contains(line) {
            continue;
        }
        out.push(line.clone());
        if out.len() == SHOWN {
            break;
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

    /// A loaded machine: rank 0's error-handler lines inside the
    /// launcher's help message (a CI run under stress-ng showed only them).
    #[test]
    fn the_error_handlers_lines_inside_the_help_message_go_last() {
        let text = "\
--------------------------------------------------------------------------
A requested component was not found, or was unable to be opened.  This
[vm:04211] *** An error occurred in MPI_Init_thread
[vm:04211] *** reported by process [942800897,0]
means that this component is either not installed or is unable to be
[vm:04211] *** on a NULL communicator
[vm:04211] *** Unknown error
used on your system (e.g., sometimes this means that shared libraries
that the component requires are unable to be found/loaded).  Note that
Open MPI stopped checking at the first component that it did not find.

Host:      vm
Framework: btl
Component: nonexistent
--------------------------------------------------------------------------
";
        let w = explain(&lines(text));
        assert_eq!(w.len(), SHOWN, "{w:?}");
        assert!(w[0].starts_with("A requested component"), "{w:?}");
        assert_eq!(w[6], "Framework: btl", "{w:?}");
        assert_eq!(w[7], "Component: nonexistent", "{w:?}");
        let w = explain(&lines("[vm:1] *** An error occurred in MPI_Init_thread\n"));
        assert_eq!(w, ["An error occurred in MPI_Init_thread"]);
    }

    #[test]
    fn a_lost_help_message_leaves_the_runtime_log() {
        // Open MPI's runtime lost its help message (a loaded machine):
        // its error log is what it said; beside any other words it is not.
        let text = "\
[vm:10463] [[17441,0],0] ORTE_ERROR_LOG: Data unpack had inadequate space in file ../../../orte/util/show_help.c at line 513
[vm:10463] [[17441,0],0] ORTE_ERROR_LOG: Data unpack would read past end of buffer in file ../../../orte/util/show_help.c at line 501
[vm:10463] [[17441,0],0] ORTE_ERROR_LOG: Data unpack had inadequate space in file ../../../orte/util/show_help.c at line 513
mpibench: interrupted by SIGTERM; exit code 143
";
        let w = explain(&lines(text));
        assert_eq!(
            w,
            [
                "ORTE_ERROR_LOG: Data unpack had inadequate space in file ../../../orte/util/show_help.c at line 513",
                "ORTE_ERROR_LOG: Data unpack would read past end of buffer in file ../../../orte/util/show_help.c at line 501",
            ]
        );
        let more = format!("{text}[vm:10467] *** An error occurred in MPI_Init_thread\n");
        assert_eq!(
            explain(&lines(&more)),
            ["An error occurred in MPI_Init_thread"]
        );
        assert!(explain(&lines("mpibench: interrupted by SIGTERM\n")).is_empty());
    }

    #[test]
    fn the_block_that_names_the_component_comes_first() {
        let text = "\
--------------------------------------------------------------------------
It looks like MPI_INIT failed for some reason; your parallel process is
likely to abort.  There are many reasons that a parallel process can
fail during MPI_INIT; some of which are due to configuration or environment
problems.  This failure appears to be an internal failure; here's some
additional information (which may only be relevant to an Open MPI
developer):

  mca_bml_base_open() failed
  --> Returned \"Not found\" (-13) instead of \"Success\" (0)
--------------------------------------------------------------------------
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
A requested component was not found, or was unable to be opened.  This
Host:      vm
Framework: btl
Component: nonexistent
--------------------------------------------------------------------------
";
        let w = explain(&lines(text));
        assert_eq!(w.len(), SHOWN, "{w:?}");
        assert!(w[0].starts_with("A requested component"), "{w:?}");
        assert_eq!(w[6], "Framework: btl");
        assert_eq!(w[7], "Component: nonexistent");
        assert!(names_a_fact("Host:      vm"));
        assert!(!names_a_fact("mca_bml_base_open() failed"));
        assert!(!names_a_fact("problems.  This failure appears: x"));
        assert!(!names_a_fact("Framework:"));
    }

    #[test]
    fn prefixes_noise_and_control_characters_go() {
        let text =
            "[vm:1] *** An error occurred in MPI_Init_thread\n\x1b[31mred\x1b[0m\nerror: ours\n\n";
        assert_eq!(
            explain(&lines(text)),
            // The error handler's block comes last.
            [" [31mred [0m", "An error occurred in MPI_Init_thread"]
        );
        assert!(block(&lines("-----\n\n")).is_empty());
    }
}
