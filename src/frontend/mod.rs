//! What every suite's own command line shares: each front end (in its
//! suite's folder, `bench/<suite>/front.rs`) turns the seed's command line
//! into the same `RunArgs` that `mpibench run` takes, so that every suite
//! gets everything the engine gives. The registry carries each suite's
//! front end ([`Front`]); the app asks it and names no suite.

use clap::{CommandFactory, FromArgMatches, Parser};

use crate::cli::RunArgs;

/// What a suite's own command line asks of mpibench.
pub enum Action {
    /// Print this (help, a list, a version) once, on rank 0, and end (exit 0).
    Say(String),
    /// Run this. Once launched, rank 0 prints the `notes` (whole lines) on
    /// stderr; before a self-launch, `argv0` (how the program was called,
    /// when the ranks must take its command line again) goes to the ranks
    /// as `MPIBENCH_ARGV0`.
    Run {
        args: Box<RunArgs>,
        notes: Vec<String>,
        argv0: Option<String>,
    },
    /// A program of its own lines (osu_init): self-launch `args` (`argv0`
    /// as for [`Action::Run`]); a launched rank calls `launched` instead.
    Startup {
        args: Box<RunArgs>,
        argv0: Option<String>,
        launched: Box<dyn FnOnce() -> anyhow::Result<i32>>,
    },
}

/// A suite's own command line as mpibench takes it: a subcommand
/// (`mpibench imb ...`), maybe listed in `mpibench --help`, and maybe the
/// programs a link or a copy of the binary may be named after (`IMB-MPI1`,
/// `osu_bw`). Each suite's registry entry carries its own ([`Suite::front`]).
///
/// [`Suite::front`]: crate::suite::Suite::front
pub trait Front: Sync {
    /// `mpibench NAME ...`.
    fn subcommand(&self) -> &'static str;
    /// Its entry in `mpibench --help`'s list of commands, if it has one
    /// (else it is reached as an external subcommand and not listed).
    fn listed(&self) -> Option<&'static Listed> {
        None
    }
    /// The arguments after `mpibench NAME` → what they ask for, or a
    /// one-line usage error.
    fn call(&self, params: &[String]) -> Result<Action, String>;
    /// The program's own name if `name` (a file name) is one of its
    /// programs (`IMB-NBC`, `osu_bw`).
    fn program(&self, _name: &str) -> Option<&'static str> {
        None
    }
    /// Called as `program` (a link, or re-launched from one; [`Front::program`]),
    /// `shown` being how: the arguments → what they ask for.
    fn call_as(&self, _program: &str, _shown: &str, params: &[String]) -> Result<Action, String> {
        self.call(params)
    }
    /// Its programs as an installation lays them out: (directory under the
    /// prefix, program name), e.g. ("bin", "IMB-MPI1"); `make install`
    /// links each to `bin/mpibench` (`mpibench --list-drop-ins`).
    fn drop_ins(&self) -> Vec<(&'static str, &'static str)> {
        Vec::new()
    }
    /// What it adds to `mpibench --help` after the options (a line per program).
    fn overview(&self) -> String {
        String::new()
    }
}

/// A suite's subcommand as `mpibench --help` lists it: one argument list,
/// the suite's own words and mpibench options, and its help after them.
pub struct Listed {
    /// Its line in the list of commands.
    pub about: &'static str,
    /// Its place in that list (the common commands are 0, 1, 10, 11, 12, 20).
    pub order: usize,
    /// The argument list's name (`PARAM`) and help.
    pub value_name: &'static str,
    pub arg_help: &'static str,
    /// What its help shows after the arguments (the seed's command line).
    pub after_help: &'static str,
}

impl Listed {
    /// The clap subcommand `name` (its arguments as `params`).
    pub fn command(&self, name: &'static str) -> clap::Command {
        clap::Command::new(name)
            .about(self.about)
            .display_order(self.order)
            .disable_help_flag(true)
            .after_help(self.after_help)
            .arg(
                clap::Arg::new("params")
                    .help(self.arg_help)
                    .value_name(self.value_name)
                    .action(clap::ArgAction::Append)
                    .value_parser(clap::value_parser!(String))
                    .num_args(1..)
                    .trailing_var_arg(true)
                    .allow_hyphen_values(true),
            )
    }
}

/// A suite's own command line that is a run and nothing else (or its help).
pub struct FrontEnd {
    /// `mpibench NAME ...`.
    pub subcommand: &'static str,
    /// Its entry in `mpibench --help`, if listed there.
    pub listed: Option<&'static Listed>,
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

impl Front for FrontEnd {
    fn subcommand(&self) -> &'static str {
        self.subcommand
    }

    fn listed(&self) -> Option<&'static Listed> {
        self.listed
    }

    fn call(&self, params: &[String]) -> Result<Action, String> {
        if self.wants_help(params) {
            return Ok(Action::Say(format!(
                "Usage: {}\n\n{}\n",
                self.usage, self.help
            )));
        }
        Ok(Action::Run {
            args: Box::new((self.parse)(params)?),
            notes: Vec::new(),
            argv0: None,
        })
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
    args.front.spelling.push((ours.into(), theirs.into()));
}
