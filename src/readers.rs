//! The subcommands that read JSON results: `report`, `plot` and `compare`
//! (commands over the report layer, which formats).
//! Plain programs: they never initialise MPI nor launch anything.

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::cli::{CompareArgs, PlotArgs, ReportArgs};
use crate::files::{is_stdout, Output};
use crate::report::compare::{self, Options};
use crate::report::view::{self, load, PartsOf};
use crate::report::{gnuplot, html, plot, validate, write_atomic};
use crate::results::Report;

const EXIT_OK: i32 = 0;
const EXIT_USAGE: i32 = 2;

fn name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.display().to_string())
}

/// Refuses, before anything is read or written, outputs that cannot be
/// written or that would overwrite an input (exit code 2).
fn check_outputs(outputs: &[Output], inputs: &[PathBuf]) -> Result<(), i32> {
    let inputs: Vec<(&str, &Path)> = inputs.iter().map(|p| ("", p.as_path())).collect();
    crate::files::validate(outputs, &inputs).map_err(|msg| {
        eprintln!("error: {msg}");
        EXIT_USAGE
    })
}

/// Loads every file and checks it (`validate::check_report`: the one
/// validator of `report`, `plot` and `compare`), or prints why one cannot
/// be used (exit code 2); a file's doubts are one warning line each.
pub fn load_all(paths: &[PathBuf]) -> Result<Vec<(String, Report)>, i32> {
    let refuse = |msg: String| {
        eprintln!("error: {msg}");
        EXIT_USAGE
    };
    if let Some(second) = paths.iter().filter(|p| p.as_os_str() == "-").nth(1) {
        return Err(refuse(format!(
            "'{}' (standard input) is named twice: it can be read once",
            second.display()
        )));
    }
    let mut out = Vec::new();
    for p in paths {
        let r = load(p).map_err(|e| refuse(format!("{e:#}")))?;
        let shown = if p.as_os_str() == "-" {
            "(stdin)".to_string()
        } else {
            format!("'{}'", p.display())
        };
        match validate::check_report(&r) {
            Ok(warnings) => {
                for w in warnings {
                    eprintln!("warning: {shown}: {w}");
                }
            }
            Err(e) => return Err(refuse(format!("{shown}: {e}"))),
        }
        out.push((name(p), r));
    }
    Ok(out)
}

pub fn report(args: &ReportArgs, parts: PartsOf) -> Result<i32> {
    if let Err(code) = check_outputs(&[Output::file("-o", &args.output)], &args.files) {
        return Ok(code);
    }
    let loaded = match load_all(&args.files) {
        Ok(l) => l,
        Err(code) => return Ok(code),
    };
    let runs = view::runs(loaded.iter().map(|(n, r)| (n.clone(), r)).collect());
    let page = html::render_runs(&runs, parts)?;
    write_atomic(&args.output, page.as_bytes())?;
    if !is_stdout(&args.output) {
        eprintln!(
            "mpibench: wrote {} ({} KiB, {} figures)",
            args.output.display(),
            page.len().div_ceil(1024),
            page.matches("<figure").count()
        );
    }
    Ok(EXIT_OK)
}

pub fn plot(args: &PlotArgs, parts: PartsOf) -> Result<i32> {
    if let Err(code) = check_outputs(&[Output::dir("-o", &args.output)], &args.files) {
        return Ok(code);
    }
    let loaded = match load_all(&args.files) {
        Ok(l) => l,
        Err(code) => return Ok(code),
    };
    let reports: Vec<(String, &Report)> = loaded.iter().map(|(n, r)| (n.clone(), r)).collect();
    let files = plot_files(reports, args.gnuplot, parts)?;
    if let Some((input, name)) = crate::files::set_overwrites(
        &args.output,
        files.iter().map(|(n, _)| n.as_str()),
        &args.files,
    ) {
        eprintln!(
            "error: -o '{}' would overwrite the input '{}' with its {name}; give the plots another directory",
            args.output.display(),
            input.display()
        );
        return Ok(EXIT_USAGE);
    }
    crate::files::write_set(&args.output, &files)?;
    let written = if args.gnuplot {
        files.len() / 2
    } else {
        files.len()
    };
    eprintln!(
        "mpibench: wrote {written} {} to {}",
        if args.gnuplot {
            "gnuplot scripts (.gp + .dat)"
        } else {
            "SVG plots"
        },
        args.output.display()
    );
    Ok(EXIT_OK)
}

/// The files of one plot per figure of these runs: SVG, or gnuplot data
/// and scripts, as (file name, contents).
fn plot_files(
    reports: Vec<(String, &Report)>,
    gnuplot: bool,
    parts: PartsOf,
) -> Result<Vec<(String, Vec<u8>)>> {
    let runs = view::runs(reports);
    let mut files = Vec::new();
    for s in view::sections(&runs, parts) {
        for f in &s.figures {
            if gnuplot {
                files.push((format!("{}.dat", f.id), gnuplot::dat(f).into_bytes()));
                files.push((format!("{}.gp", f.id), gnuplot::script(f).into_bytes()));
            } else {
                files.push((format!("{}.svg", f.id), plot::svg(f)?.into_bytes()));
            }
        }
    }
    Ok(files)
}

/// Writes one plot per figure of these runs into `dir` (created if
/// missing), as a whole (`files::write_set`): SVG, or gnuplot data and
/// scripts. Returns how many figures. A run's `--plots DIR` uses it.
pub fn write_plots(
    reports: Vec<(String, &Report)>,
    dir: &Path,
    gnuplot: bool,
    parts: PartsOf,
) -> Result<usize> {
    let files = plot_files(reports, gnuplot, parts)?;
    crate::files::write_set(dir, &files)?;
    Ok(if gnuplot {
        files.len() / 2
    } else {
        files.len()
    })
}

pub fn compare(args: &CompareArgs) -> Result<i32> {
    let inputs = [args.a.clone(), args.b.clone()];
    let outputs: Vec<Output> = args
        .json
        .iter()
        .map(|p| Output::file("--json", p))
        .collect();
    if let Err(code) = check_outputs(&outputs, &inputs) {
        return Ok(code);
    }
    let loaded = match load_all(&inputs) {
        Ok(l) => l,
        Err(code) => return Ok(code),
    };
    let (a, b) = (&loaded[0], &loaded[1]);
    let opt = Options {
        alpha: args.alpha,
        noise_pct: args.noise,
    };
    let mut c = compare::compare((&a.0, &a.1), (&b.0, &b.1), opt);
    c.gate = args.fail_if_slower.map(|pct| compare::gate(&c, pct));
    if let Some(p) = &args.json {
        let mut bytes = serde_json::to_vec_pretty(&c)?;
        bytes.push(b'\n');
        write_atomic(p, &bytes)?;
    }
    // Stdout carries one format: the JSON when it goes there (`-`, /dev/stdout).
    let to_stdout = args.json.as_deref().is_some_and(is_stdout);
    if !to_stdout {
        // Names from the files reach a terminal: no control characters
        // (escape sequences) but the line breaks.
        print!(
            "{}",
            crate::report::table::replace_controls(&compare::text(&c), &['\n'])
        );
    }
    match &c.gate {
        Some(g) => {
            if g.outcome == compare::GateOutcome::NothingJudged {
                eprintln!("error: {}", g.message);
            } else if !g.message.is_empty() {
                eprintln!("{}", g.message);
            }
            Ok(g.exit_code)
        }
        None => {
            // Without a gate nothing fails, but what was not compared is said.
            if let Some(why) = compare::nothing_judged(&c) {
                eprintln!("warning: {why}");
            }
            Ok(EXIT_OK)
        }
    }
}
