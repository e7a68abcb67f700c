//! `mpibench help [TOPIC]` and `mpibench run --suite SUITE -h`: the
//! overview, a subcommand's help, or a suite's own page (what it is, its
//! seed's command line, one example, its defaults, its benchmarks and its
//! options), all from the registry.

use clap::CommandFactory;

use crate::cli::Cli;
use crate::plugin::lookup;
use crate::plugin::Suite;

/// mpibench's command line: the common subcommands (`cli`), each suite's
/// own that `mpibench --help` lists (from the registry, each at its place
/// in the list), and after the options [`top_help`] (and after `run`'s,
/// every suite's defaults).
pub fn command() -> clap::Command {
    let mut cmd = Cli::command()
        .after_help(top_help())
        .mut_subcommand("run", |run| {
            // The common options that are a suite's knobs, under its heading.
            let run = lookup::registry().iter().fold(run, |run, s| {
                let Some(heading) = s.help.heading else {
                    return run;
                };
                s.run_options
                    .iter()
                    .fold(run, |run, id| run.mut_arg(*id, |a| a.help_heading(heading)))
            });
            run.after_help(lookup::defaults_help())
        });
    for f in lookup::registry().iter().filter_map(|s| s.front) {
        if let Some(l) = f.listed() {
            cmd = cmd.subcommand(l.command(f.subcommand()));
        }
    }
    cmd
}

/// What `mpibench help TOPIC` prints, or a one-line usage error.
pub fn text(topic: Option<&str>) -> Result<String, String> {
    let mut cli = command().bin_name("mpibench");
    cli.build();
    let Some(t) = topic else {
        return Ok(cli.render_help().to_string());
    };
    if let Some(s) = lookup::suite(t) {
        return Ok(suite_page(s));
    }
    if let Some(sub) = cli.find_subcommand_mut(t) {
        return Ok(sub.render_help().to_string());
    }
    let mut listed: Vec<&clap::Command> = cli.get_subcommands().collect();
    listed.sort_by_key(|c| c.get_display_order());
    let subcommands: Vec<&str> = listed.iter().map(|c| c.get_name()).collect();
    Err(format!(
        "no subcommand or suite '{t}' (subcommands: {}; suites: {})",
        subcommands.join(", "),
        lookup::suite_names()
    ))
}

/// After `mpibench --help`'s options: how to run, the suites' programs
/// that are not listed among the commands (from the registry: IMB's other
/// programs), tuning, the exit codes. Explicit lines of at most 80 columns:
/// clap wraps longer ones mid-sentence.
fn top_help() -> String {
    let mut s = String::from(
        "Run under mpiexec/srun, or let `mpibench run -n N` launch its own local ranks.\n",
    );
    for f in lookup::registry().iter().filter_map(|s| s.front) {
        s.push_str(&f.overview());
    }
    s.push_str(
        "Tuning: mpibench tune COLL... [--sizes LIST]: the library's fastest algorithms,\n  written to its own rules file and checked; see mpibench tune -h.\n",
    );
    s + EXIT_CODES
}

const EXIT_CODES: &str = concat!(
    "\n",
    "Exit codes (JSON status / reason):\n",
    "  0      ok (ok / ok)\n",
    "  1      validation errors (validation_errors / validation_errors);\n",
    "         compare --fail-if-slower failed\n",
    "  2      usage errors (no JSON)\n",
    "  3      aborted: --timeout (aborted / timeout), the stall limit (stall),\n",
    "         a rank died of a signal (rank_died, + signal), a failed write\n",
    "         or closed stdout (write_failed), another failure (error)\n",
    "  4      the launcher failed or started no rank (launcher_failed)\n",
    "  5      MPI could not start (mpi_start_failed)\n",
    "  6      outliers, --fail-on-outlier (ok / outliers)\n",
    "  7      compare --fail-if-slower or history check judged nothing\n",
    "  8      history check found a regression\n",
    "  128+N  interrupted by signal N (interrupted / interrupted,\n",
    "         + interrupted_by; 141: stdout pipe closed, quietly)"
);

/// The suite `mpibench run ARGS` asks help for (`run --suite X -h`), if
/// it asks for help and names a suite.
pub fn run_suite_topic(args: &[String]) -> Option<String> {
    if args.first().map(String::as_str) != Some("run") {
        return None;
    }
    if !args.iter().any(|a| a == "-h" || a == "--help") {
        return None;
    }
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--suite" {
            return it.next().cloned();
        }
        if let Some(v) = a.strip_prefix("--suite=") {
            return Some(v.to_string());
        }
    }
    None
}

/// A suite's page.
pub fn suite_page(s: &Suite) -> String {
    let mut out = format!("{}: {}\n\n", s.name, s.title);
    let mut line = |k: &str, v: &str| out.push_str(&format!("{k:<13} {v}\n"));
    line(
        "Run it:",
        &format!("mpibench run --suite {} [BENCHMARK]... [OPTIONS]", s.name),
    );
    if let Some(own) = s.help.own {
        line("Its own line:", own);
    }
    line("Example:", s.help.example);
    line("Defaults:", &lookup::defaults_line(s));
    line("Docs:", &format!("docs/suites/{}.md", s.name));
    let names: Vec<&str> = (s.entries)().iter().map(|e| e.info().name).collect();
    out.push_str(&format!("\nBenchmarks ({}):\n", names.len()));
    out.push_str(&wrap(&names.join(", "), 2, 100));
    match s.help.heading {
        Some(h) => {
            out.push('\n');
            out.push_str(&options(h));
        }
        None => {
            out.push_str("\nNo options of its own: the common ones of `mpibench run -h` apply.\n")
        }
    }
    out
}

/// The options of `mpibench run` under `heading`, as clap shows them.
fn options(heading: &str) -> String {
    let cli = command();
    let Some(run) = cli.find_subcommand("run") else {
        return String::new();
    };
    let args: Vec<clap::Arg> = run
        .get_arguments()
        .filter(|a| a.get_help_heading() == Some(heading) && !a.is_hide_set())
        .cloned()
        .collect();
    let mut cmd = clap::Command::new("options")
        .disable_help_flag(true)
        .help_template("{all-args}")
        .args(args);
    let text = cmd.render_help().to_string();
    text.trim_end().to_string() + "\n"
}

/// Words wrapped at `width` columns, each line indented by `indent`.
fn wrap(text: &str, indent: usize, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for w in text.split(' ') {
        if !line.is_empty() && indent + line.len() + 1 + w.len() > width {
            out.push_str(&format!("{:indent$}{line}\n", ""));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(w);
    }
    if !line.is_empty() {
        out.push_str(&format!("{:indent$}{line}\n", ""));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::SUITES;
    use clap::Parser;

    #[test]
    fn every_suite_has_a_page_with_its_options_and_benchmarks() {
        for s in SUITES {
            let page = text(Some(s.name)).unwrap();
            assert!(
                page.starts_with(&format!("{}: {}", s.name, s.title)),
                "{page}"
            );
            assert!(page.contains(s.help.example), "{}", s.name);
            let first = (s.entries)()[0].info().name;
            assert!(page.contains(first), "{}: {first}", s.name);
            if let Some(h) = s.help.heading {
                let opts = options(h);
                assert!(opts.contains(&format!("{h}:")), "{}: {opts}", s.name);
                assert!(opts.contains("--"), "{}: no option under {h}", s.name);
            }
        }
    }

    /// Every option of `mpibench run` under a suite's heading belongs to a
    /// suite that shows it on its page.
    #[test]
    fn every_suite_heading_belongs_to_a_suite() {
        let cli = Cli::command();
        let run = cli.find_subcommand("run").unwrap();
        let known: Vec<&str> = SUITES.iter().filter_map(|s| s.help.heading).collect();
        for a in run.get_arguments() {
            if let Some(h) = a.get_help_heading() {
                assert!(known.contains(&h), "--{:?} under '{h}'", a.get_long());
            }
        }
    }

    /// The example parses, names the suite and resolves its benchmarks, and
    /// the suite's options in it pass the suite's own checks.
    #[test]
    fn every_example_is_a_valid_run() {
        for s in SUITES {
            let words: Vec<&str> = s.help.example.split_whitespace().collect();
            assert_eq!(&words[..2], ["mpibench", "run"], "{}", s.name);
            let cli = Cli::try_parse_from(&words).unwrap_or_else(|e| panic!("{}: {e}", s.name));
            let crate::cli::Command::Run(args) = cli.command else {
                panic!("{}: not a run", s.name)
            };
            assert_eq!(args.suite.as_deref(), Some(s.name));
            for b in &args.benchmarks {
                lookup::resolve(b, Some(s.name)).unwrap_or_else(|e| panic!("{}: {b}: {e}", s.name));
            }
            if let Some(axes) = s.axes {
                axes(&args, true, args.launch.np.unwrap_or(2), u64::MAX)
                    .unwrap_or_else(|e| panic!("{}: {e}", s.name));
            }
        }
    }

    #[test]
    fn topics() {
        assert!(text(None).unwrap().contains("Usage: mpibench <COMMAND>"));
        assert!(text(Some("compare")).unwrap().contains("--fail-if-slower"));
        assert!(text(Some("OSU")).unwrap().starts_with("osu: "));
        let e = text(Some("nosuch")).unwrap_err();
        assert!(
            e.starts_with("no subcommand or suite 'nosuch'") && e.contains("imb"),
            "{e}"
        );
    }

    #[test]
    fn run_suite_h_is_the_suite_page() {
        let v = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        assert_eq!(
            run_suite_topic(&v("run --suite osu -h")),
            Some("osu".into())
        );
        assert_eq!(
            run_suite_topic(&v("run --help --suite=caf")),
            Some("caf".into())
        );
        assert_eq!(run_suite_topic(&v("run -h")), None);
        assert_eq!(run_suite_topic(&v("run --suite osu")), None);
        assert_eq!(run_suite_topic(&v("list --suite osu -h")), None);
    }
}
