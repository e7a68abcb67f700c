//! `mpibench tune COLL... [--sizes LIST]`: which algorithm the MPI library
//! should use. Lists the algorithms the library offers (asking it through
//! MPI_T), measures each collective under each algorithm (one self-launch
//! of `mpibench run` per setting, the setting a rules file in the library's
//! own format), picks the fastest per process count and size when it beats
//! the default significantly, writes the library's rules file, and measures
//! again with that file loaded: before/after per size, and any size the file
//! made significantly slower goes back to the default.

mod library;
mod rules;
mod select;
mod table;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::Result;
use clap::Parser;

use crate::outcome::{Outcome, EXIT_OK};
use crate::{comm, launch};
use library::{Algorithm, Coll, Kind, Library};
use rules::{Choice, CollRules};
use select::{Point, Samples};

pub const USAGE: &str =
    "mpibench tune COLL... [--sizes LIST] [-n N] [--iter N] [--rules FILE] [--json FILE]";

pub const HELP: &str =
    "Finds the fastest algorithm of each collective for the MPI library this binary is linked
against (Open MPI's coll_tuned, MPICH's CVARs), writes the library's own rules file and checks it.
COLL: Allreduce, Bcast, Reduce (case-insensitive). One launch of `mpibench run --suite imb COLL
--timing per-call` per algorithm (self-launch, or the allocation it runs in), the algorithm set by a
rules file, between two launches of the library's defaults (each size keeps the faster of the two).
Per process count and size the fastest algorithm replaces the default when its median is 5% lower
and a one-sided Mann-Whitney test says the default is slower (p < 0.05 / algorithms); a tie keeps
the default. Then one launch with the rules file loaded: before/after per size; a size the file
makes significantly slower is reverted to the default and the file checked again.
Options:
  --sizes LIST   message sizes in bytes, K/M/G suffixes (default 8,1K,64K,1M)
  -n, --np N     ranks of each launch (default: as mpibench run)
  --iter N       repetitions per size and launch, at least 5 (default 100)
  --rules FILE   the rules file to write (default mpibench-tune.conf for Open MPI,
                 mpibench-tune.json for MPICH)
  --json FILE    the measurements and choices as JSON
  --mpiexec PATH the launcher of each launch (default: as mpibench run)
Example: mpibench tune Allreduce Bcast -n 2 --sizes 8,1K,64K,1M";

#[derive(Debug, Parser)]
#[command(
    name = "mpibench tune",
    no_binary_name = true,
    disable_help_flag = true
)]
struct Args {
    #[arg(value_name = "COLL")]
    colls: Vec<String>,
    #[arg(long, value_name = "LIST", default_value = "8,1K,64K,1M")]
    sizes: String,
    #[arg(short = 'n', long = "np", value_name = "N")]
    np: Option<usize>,
    #[arg(long, value_name = "N", default_value_t = 100)]
    iter: usize,
    #[arg(long, value_name = "FILE")]
    rules: Option<PathBuf>,
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    #[arg(long, value_name = "PATH")]
    mpiexec: Option<String>,
    #[arg(short, long)]
    help: bool,
}

/// A usage error: one line (once, under a launcher that started several).
fn usage(msg: &str) -> Result<i32> {
    Ok(if launch::env_rank() == 0 {
        Outcome::Usage.say(msg)
    } else {
        Outcome::Usage.exit_code()
    })
}

/// `mpibench tune ...`.
pub fn main(params: &[String]) -> Result<i32> {
    let args = match Args::try_parse_from(params) {
        Ok(a) => a,
        Err(e) => {
            let msg = e.render().to_string();
            let line = msg.lines().next().unwrap_or("invalid command line");
            return usage(line.trim_start_matches("error: "));
        }
    };
    if args.help {
        if launch::env_rank() == 0 {
            println!("Usage: {USAGE}\n\n{HELP}");
        }
        return Ok(EXIT_OK);
    }
    if launch::launched() {
        return usage("mpibench tune starts its own launches, one per algorithm: run it without mpiexec or srun (in an allocation, its launches use it)");
    }
    let mut colls: Vec<&'static Coll> = Vec::new();
    for name in &args.colls {
        match library::coll(name) {
            Some(c) if !colls.contains(&c) => colls.push(c),
            Some(_) => {}
            None => {
                return usage(&format!(
                    "mpibench tune knows no collective '{name}' (it tunes {})",
                    names()
                ))
            }
        }
    }
    if colls.is_empty() {
        return usage(&format!(
            "mpibench tune needs a collective to tune: {}",
            names()
        ));
    }
    if let Err(e) = crate::plan::parse_sizes(&args.sizes) {
        return usage(&e.to_string());
    }
    if args.iter < 5 {
        return usage("--iter must be at least 5: the significance test needs samples");
    }
    if args.np == Some(0) {
        return usage("-n must be at least 1");
    }
    let lib = match library::detect(&comm::library_version(), || {
        std::fs::read_to_string("/proc/self/maps")
            .map_err(|e| format!("cannot read /proc/self/maps: {e}"))
    }) {
        Ok(l) => l,
        Err(msg) => return usage(&msg),
    };
    // The outputs are checked before the first launch, as `mpibench run`'s.
    let rules = rules_path(&args, &lib);
    let mut outputs = vec![crate::output::Output::file("--rules", &rules)];
    if let Some(json) = &args.json {
        outputs.push(crate::output::Output::file("--json", json));
    }
    if let Err(msg) = crate::output::validate(&outputs, &[]) {
        return usage(&msg);
    }
    match tune(&args, &lib, &colls) {
        Ok(()) => Ok(EXIT_OK),
        Err(msg) => Ok(Outcome::Error.say(&msg)),
    }
}

fn names() -> String {
    let v: Vec<&str> = library::COLLS.iter().map(|c| c.name).collect();
    v.join(", ")
}

/// The library's rules file format and how a launch loads it.
fn load_env(kind: &Kind, file: &Path) -> Vec<(&'static str, String)> {
    let f = file.display().to_string();
    match kind {
        Kind::OpenMpi => vec![
            ("OMPI_MCA_coll_tuned_use_dynamic_rules", "1".into()),
            ("OMPI_MCA_coll_tuned_dynamic_rules_filename", f),
        ],
        Kind::Mpich { .. } => vec![("MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE", f)],
    }
}

/// The variables of [`load_env`], which the default launch must not see.
const LOAD_VARS: &[&str] = &[
    "OMPI_MCA_coll_tuned_use_dynamic_rules",
    "OMPI_MCA_coll_tuned_dynamic_rules_filename",
    "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE",
];

/// The launches of one tuning: each one `mpibench run` of this binary.
struct Launches<'a> {
    args: &'a Args,
    lib: &'a Library,
    dir: PathBuf,
    count: usize,
}

impl Launches<'_> {
    /// One launch of the collectives' IMB benchmarks, with `rules` loaded
    /// (None: the library's defaults): the samples of its `--raw` file.
    fn run(
        &mut self,
        colls: &[&Coll],
        rules: Option<&Path>,
        what: &str,
    ) -> Result<Samples, String> {
        self.count += 1;
        let raw = self.dir.join(format!("launch{}.csv", self.count));
        eprintln!("mpibench tune: launch {}: {what}", self.count);
        let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
        let mut cmd = Command::new(exe);
        cmd.args(["run", "--suite", "imb"])
            .args(colls.iter().map(|c| c.name))
            .args(["--sizes", &self.args.sizes, "--timing", "per-call"])
            .args(["--iter", &self.args.iter.to_string(), "--raw"])
            .arg(&raw)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if let Some(n) = self.args.np {
            cmd.args(["-n", &n.to_string()]);
        }
        if let Some(m) = &self.args.mpiexec {
            cmd.args(["--mpiexec", m]);
        }
        for v in LOAD_VARS {
            cmd.env_remove(v);
        }
        if let Some(file) = rules {
            cmd.envs(load_env(&self.lib.kind, file));
        }
        let out = cmd
            .output()
            .map_err(|e| format!("cannot start mpibench run: {e}"))?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            let last = err
                .lines()
                .map(str::trim)
                .rfind(|l| !l.is_empty() && !l.starts_with("mpibench: ["))
                .unwrap_or("no message");
            return Err(format!("{what}: the launch failed: {last}"));
        }
        let text = std::fs::read_to_string(&raw)
            .map_err(|e| format!("{what}: cannot read '{}': {e}", raw.display()))?;
        select::read_raw(&text).map_err(|e| format!("{what}: {e}"))
    }
}

/// The rules of `colls` at the measured points: `choice` of each point.
fn rules_of(
    colls: &[&'static Coll],
    points: &[Point],
    choice: impl Fn(&Point) -> Choice,
) -> Vec<CollRules> {
    colls
        .iter()
        .map(|c| {
            let mut counts: BTreeMap<usize, Vec<(u64, Choice)>> = BTreeMap::new();
            for pt in points.iter().filter(|p| p.0 == c.name) {
                counts.entry(pt.1).or_default().push((pt.2, choice(pt)));
            }
            for v in counts.values_mut() {
                v.sort_by_key(|(b, _)| *b);
            }
            CollRules {
                coll: c,
                counts: counts.into_iter().collect(),
            }
        })
        .collect()
}

/// Writes the library's rules file.
fn write_rules(
    lib: &Library,
    rules: &[CollRules],
    path: &Path,
    header: &str,
) -> Result<(), String> {
    let text = match &lib.kind {
        Kind::OpenMpi => rules::open_mpi(rules, header),
        Kind::Mpich { defaults, .. } => rules::mpich(rules, defaults)?,
    };
    std::fs::write(path, text).map_err(|e| format!("cannot write '{}': {e}", path.display()))
}

/// The rules file to write: `--rules`, or the library's default name.
fn rules_path(args: &Args, lib: &Library) -> PathBuf {
    let default_name = match lib.kind {
        Kind::OpenMpi => "mpibench-tune.conf",
        Kind::Mpich { .. } => "mpibench-tune.json",
    };
    args.rules
        .clone()
        .unwrap_or_else(|| PathBuf::from(default_name))
}

fn tune(args: &Args, lib: &Library, colls: &[&'static Coll]) -> Result<(), String> {
    let vars = comm::mpit::control_variables()?;
    let mut algs: Vec<Vec<Algorithm>> = Vec::new();
    for c in colls {
        let a = library::algorithms(&lib.kind, &vars, c)?;
        if a.is_empty() {
            return Err(format!(
                "the library offers no algorithm of {} to choose",
                c.name
            ));
        }
        algs.push(a);
    }
    let path = rules_path(args, lib);
    let path = std::path::absolute(&path)
        .map_err(|e| format!("cannot resolve '{}': {e}", path.display()))?;
    let dir = std::env::temp_dir().join(format!("mpibench-tune-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create '{}': {e}", dir.display()))?;
    let mut launches = Launches {
        args,
        lib,
        dir: dir.clone(),
        count: 0,
    };
    let result = measure(&mut launches, lib, colls, &algs, &path);
    let _ = std::fs::remove_dir_all(&dir);
    let outcome = result?;
    print!("{}", table::render(lib, colls, &algs, &outcome, &path));
    if let Some(json) = &args.json {
        let text = serde_json::to_string_pretty(&table::json(lib, colls, &algs, &outcome, &path))
            .map_err(|e| e.to_string())?;
        std::fs::write(json, text + "\n")
            .map_err(|e| format!("cannot write '{}': {e}", json.display()))?;
    }
    Ok(())
}

/// Everything measured and decided.
pub struct Tuning {
    pub before: Samples,
    /// Per collective (as `colls`), per algorithm (as its list), the samples.
    pub per_alg: Vec<Vec<Result<Samples, String>>>,
    pub picks: BTreeMap<Point, select::Pick>,
    /// The points whose choice the check reverted: the p-value and the
    /// ratio to the default's median, with the rule loaded.
    pub reverted: BTreeMap<Point, (f64, f64)>,
    pub after: Samples,
    pub load: Vec<(&'static str, String)>,
}

fn measure(
    launches: &mut Launches,
    lib: &Library,
    colls: &[&'static Coll],
    algs: &[Vec<Algorithm>],
    path: &Path,
) -> Result<Tuning, String> {
    let first = launches.run(colls, None, "the library's defaults")?;
    let points: Vec<Point> = first.keys().cloned().collect();
    let mut per_alg = Vec::new();
    for (c, list) in colls.iter().zip(algs) {
        let mut v = Vec::new();
        for a in list {
            let file = launches.dir.join(format!("{}-{}.rules", c.lower, a.id));
            let forced = rules_of(&[c], &points, |_| Some(a.clone()));
            write_rules(lib, &forced, &file, "mpibench tune: one algorithm")?;
            let what = format!("{} algorithm {} {}", c.name, a.id, a.name);
            let r = launches.run(&[c], Some(&file), &what);
            if let Err(e) = &r {
                eprintln!("mpibench tune: {e} (the algorithm is left out)");
            }
            v.push(r);
        }
        per_alg.push(v);
    }
    // The defaults again, after the algorithms: a launch-to-launch drift
    // (a first launch slower than the rest, a machine that got busier) must
    // not make an algorithm look faster. Each point keeps its faster launch.
    let again = launches.run(colls, None, "the library's defaults, again")?;
    let before = select::faster_of(first, again);
    let mut picks = BTreeMap::new();
    for pt in &points {
        let Some(ci) = colls.iter().position(|c| c.name == pt.0) else {
            continue;
        };
        let cand: Vec<&[f64]> = per_alg[ci]
            .iter()
            .map(|r| {
                r.as_ref()
                    .ok()
                    .and_then(|s| s.get(pt))
                    .map_or(&[][..], |v| v.as_slice())
            })
            .collect();
        picks.insert(pt.clone(), select::pick(&before[pt], &cand));
    }
    let chosen = |pt: &Point, reverted: &BTreeMap<Point, (f64, f64)>| -> Choice {
        let ci = colls.iter().position(|c| c.name == pt.0)?;
        let p = picks.get(pt)?;
        let i = p
            .fastest
            .filter(|_| p.chosen && !reverted.contains_key(pt))?;
        Some(algs[ci][i].clone())
    };
    let header = format!(
        "mpibench tune {}: {}\nsizes {}; the library's default wherever no algorithm was significantly faster",
        env!("CARGO_PKG_VERSION"),
        lib.name(),
        points
            .iter()
            .map(|p| p.2)
            .collect::<std::collections::BTreeSet<_>>()
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(",")
    );
    let mut reverted = BTreeMap::new();
    loop {
        let rules = rules_of(colls, &points, |pt| chosen(pt, &reverted));
        write_rules(lib, &rules, path, &header)?;
        let after = launches
            .run(colls, Some(path), "with the rules file")
            .map_err(|e| format!("the library did not accept '{}': {e}", path.display()))?;
        let mut more = false;
        for pt in &points {
            if chosen(pt, &reverted).is_none() {
                continue;
            }
            let slower = after.get(pt).map_or(Some((1.0, f64::NAN)), |a| {
                let ratio = select::median(a) / select::median(&before[pt]);
                select::slower(a, &before[pt]).map(|p| (p, ratio))
            });
            if let Some(r) = slower {
                reverted.insert(pt.clone(), r);
                more = true;
            }
        }
        if !more {
            return Ok(Tuning {
                before,
                per_alg,
                picks,
                reverted,
                after,
                load: load_env(&lib.kind, path),
            });
        }
    }
}
