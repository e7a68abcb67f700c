//! The suites' own command lines, each turned into the same `RunArgs` that
//! `mpibench run` takes, so that every suite gets everything the engine gives.

use clap::{CommandFactory, FromArgMatches, Parser};

use crate::cli::RunArgs;

/// A suite's own command line.
pub struct FrontEnd {
    /// The usage line.
    pub usage: &'static str,
    /// What `-h` prints after the usage line.
    pub help: &'static str,
    /// The suite's arguments → the run they ask for, or a one-line usage error.
    pub parse: fn(&[String]) -> Result<RunArgs, String>,
}

impl FrontEnd {
    /// Whether the arguments ask for help.
    pub fn wants_help(&self, params: &[String]) -> bool {
        params.iter().any(|p| p == "-h" || p == "--help")
    }
}

#[derive(Debug, Parser)]
#[command(name = "mpibench", no_binary_name = true, disable_help_flag = true)]
struct Opts {
    #[command(flatten)]
    run: RunArgs,
}

/// Splits a front end's arguments into its own parameters and mpibench
/// options (anything starting with `-`, with its value when it takes one).
pub fn split_options(params: &[String]) -> (Vec<String>, Vec<String>) {
    let cmd = Opts::command();
    let takes_value = |tok: &str| -> bool {
        if tok.contains('=') {
            return false;
        }
        let arg = if let Some(l) = tok.strip_prefix("--") {
            cmd.get_arguments().find(|a| a.get_long() == Some(l))
        } else {
            let c = tok.trim_start_matches('-').chars().next();
            cmd.get_arguments()
                .find(|a| a.get_short().is_some() && a.get_short() == c)
        };
        arg.is_some_and(|a| a.get_action().takes_values() && !a.is_require_equals_set())
    };
    let (mut own, mut opts) = (Vec::new(), Vec::new());
    let mut it = params.iter();
    while let Some(t) = it.next() {
        // A negative number is a parameter (e.g. a delay), not an option.
        if t.starts_with('-') && t.len() > 1 && t.parse::<f64>().is_err() {
            opts.push(t.clone());
            if takes_value(t) {
                if let Some(v) = it.next() {
                    opts.push(v.clone());
                }
            }
        } else {
            own.push(t.clone());
        }
    }
    (own, opts)
}

/// `--NAME` as an mpibench option: whether it takes a value (None: no such option).
pub fn long_option(name: &str) -> Option<bool> {
    Opts::command()
        .get_arguments()
        .find(|a| a.get_long() == Some(name))
        .map(|a| a.get_action().takes_values() && !a.is_require_equals_set())
}

/// Parses mpibench options given to a front end (one line on error).
pub fn parse_options(opts: &[String]) -> Result<RunArgs, String> {
    let m = Opts::command()
        .try_get_matches_from(opts)
        .map_err(|e| first_line(&e.render().to_string()))?;
    let o = Opts::from_arg_matches(&m).map_err(|e| first_line(&e.to_string()))?;
    Ok(o.run)
}

fn first_line(s: &str) -> String {
    s.lines()
        .next()
        .unwrap_or("invalid option")
        .trim_start_matches("error: ")
        .to_string()
}

/// A front end's lengths as `--sizes`.
pub fn sizes_arg(sizes: &[usize]) -> Option<String> {
    Some(
        sizes
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(","),
    )
}

/// The calling sequence a drop-in's header prints: how the program was
/// called and its arguments.
pub fn calling(argv0: &str, params: &[String]) -> Option<String> {
    let mut c = vec![argv0.to_string()];
    c.extend(params.iter().cloned());
    Some(c.join(" "))
}

/// Records that the front end set mpibench's `ours` from what the user
/// typed as `theirs` (e.g. `--iter 100` from MPITEST's `T100`): errors about
/// it then name `theirs` ([`crate::plan::speak`]). The most specific spellings first.
pub fn spelled(args: &mut RunArgs, ours: impl Into<String>, theirs: impl Into<String>) {
    args.spelling.push((ours.into(), theirs.into()));
}
