//! The plan: what every rank runs. Rank 0 builds and validates it from the
//! command line, then broadcasts it, so ranks cannot disagree.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::bench::datatype::{self, Datatype, Derived};
use crate::bench::entry::Entry;
use crate::cli::RunArgs;
use crate::contract::{
    Axes, Axis, Class, Definitions, Info, IterPolicy, Method, Pace, RepsDefault, Split,
};
use crate::engine::{self, Reps};
use crate::method::SyncMode;
use crate::plugin::lookup::{self, LookupError};
use crate::plugin::{Defaults, ProcSweep, Suite};
use crate::results::OffCache;
use crate::units::parse_sizes;

/// A usage error: one line for the user, exit code 2.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum PlanError {
    #[error(transparent)]
    Lookup(#[from] LookupError),
    #[error("{0}")]
    Invalid(String),
}

fn invalid(msg: impl Into<String>) -> PlanError {
    PlanError::Invalid(msg.into())
}

/// Repetition policy; `None` fields fall back to the suite's defaults.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Policy {
    /// `--iter`: repetitions of normal constructs (MPITEST's T).
    pub iter: Option<usize>,
    /// `--fast-iter`: repetitions of fast constructs (MPITEST's t).
    pub fast_iter: Option<usize>,
    /// Fewest repetitions (`--min-iter`).
    pub min_reps: usize,
    /// Most repetitions (`--max-iter`; IMB: 1000).
    pub max_reps: usize,
    pub max_volume: usize,
    pub time_limit_s: f64,
    pub warmup: Option<usize>,
    /// Target relative half-width of the median's 95% CI (`--precision`).
    pub precision: Option<f64>,
    /// Inner repetitions of delay subtraction (`--inner`).
    pub inner: Option<usize>,
    /// Outer repetitions (samples) of delay subtraction (`--outer`).
    #[serde(default)]
    pub outer: Option<usize>,
    /// IMB's iteration policy (`--iter-policy`, IMB -iter_policy).
    #[serde(default)]
    pub iter_policy: IterPolicy,
}

/// The files a run writes besides its tables (each `None`: not written).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Files {
    /// `--json`: the results.
    pub json: Option<PathBuf>,
    /// `--csv`: the rows as CSV.
    pub csv: Option<PathBuf>,
    /// `--raw`: every sample, streamed by rank 0.
    pub raw: Option<PathBuf>,
    /// `--output`: the tables, instead of stdout.
    pub output: Option<PathBuf>,
    /// `--report`: the HTML report.
    pub report: Option<PathBuf>,
    /// `--plot`: a suite's own figure as SVG (CRESTA's Figure 1).
    pub plot: Option<PathBuf>,
    /// `--plots DIR`: one SVG per figure of the run, written at the end.
    pub plots: Option<PathBuf>,
    /// `--history FILE|URL`: the history the run is kept in at its end.
    #[serde(default)]
    pub history: Option<String>,
}

/// How the benchmarks of a run are timed and synchronised: the run's
/// choices, over each benchmark's own and its suite's defaults.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Timing {
    /// `--timing` (None: each suite's default).
    pub method: Option<Method>,
    /// `--sync` (None: each suite's default).
    pub sync: Option<SyncMode>,
    /// `--window-us`: the window of window synchronisation.
    pub window_us: Option<f64>,
    /// Whose definitions the benchmarks follow (`--definitions`): they
    /// choose the lengths, the warm-up and the timing of collectives.
    pub definitions: Definitions,
    /// Under definitions that time each call of a collective: a barrier
    /// before every call (`--imb-sync`, IMB's `-sync 1`), or one before the first.
    pub call_sync: bool,
}

impl Timing {
    /// The suite defaults that apply to a benchmark.
    fn defaults(info: &Info) -> Defaults {
        lookup::suite_of(info).defaults
    }

    /// The timing method of a benchmark: its own definition's, else
    /// `--timing`, else its definitions', else its suite's default.
    pub fn method_for(&self, info: &Info) -> Method {
        info.method
            .or(self.method)
            .or_else(|| self.definitions.method(info, self.call_sync))
            .unwrap_or(Self::defaults(info).method)
    }

    /// PMB §5.2.5: repetitions at the largest length before the first (suite and definitions).
    pub fn warm_largest(&self, info: &Info) -> usize {
        self.definitions
            .warm_largest(Self::defaults(info).warm_largest)
    }

    /// The synchronisation of a benchmark: what its method requires, else
    /// `--sync`, else its suite's default.
    pub fn sync_for(&self, info: &Info) -> SyncMode {
        self.method_for(info)
            .required_sync()
            .unwrap_or_else(|| self.sync.unwrap_or(Self::defaults(info).sync))
    }
}

/// A benchmark selected on the command line.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Selected {
    /// `suite/name`.
    pub name: String,
    /// Named as Multi-NAME: runs in Multi mode.
    pub multi: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Plan {
    pub command: Vec<String>,
    /// The suite of the run: `--suite`, or the suite of the named benchmarks.
    pub suite: String,
    pub benchmarks: Vec<Selected>,
    pub sizes: Vec<usize>,
    /// Axes beyond sizes (name → values).
    pub axes: Axes,
    pub npmin: Option<usize>,
    pub multi: bool,
    pub multi_detail: bool,
    pub policy: Policy,
    /// Runs of the whole list (MPITEST's R).
    pub repeats: usize,
    pub root_shift: bool,
    /// Root of rooted collectives (`--root`, OSU `-k fixed:R`).
    pub root: usize,
    pub check: bool,
    /// The files the run writes besides its tables.
    pub files: Files,
    pub quiet: bool,
    /// How the benchmarks are timed and synchronised.
    pub timing: Timing,
    pub stats: bool,
    /// Memory limit per rank in bytes.
    pub mem_bytes: u64,
    /// The limit came from a front end's buffer size (MPITEST's b), not from --mem.
    /// The limit came from a front end's buffer size (MPITEST's b), not
    /// from --mem: the flag that set it, as the front end spells it.
    #[serde(default)]
    pub buffer_limit: Option<String>,
    pub timeout_s: Option<f64>,
    pub strict: bool,
    /// The faults the hidden test flags plant.
    pub faults: engine::Faults,
    /// A front end's own parameter line for the table header.
    pub frontend: Option<String>,
    /// `--off-cache`: cold data every repetition.
    #[serde(default)]
    pub off_cache: Option<OffCache>,
    /// The table format chosen by a front end (e.g. imb2021), instead of the suite's.
    #[serde(default)]
    pub table: Option<String>,
    /// `--pairs`: where the partners of pair benchmarks run.
    #[serde(default)]
    pub pairs: crate::engine::placement::Pairs,
    /// The stall limit and the disturbance rule.
    #[serde(default)]
    pub watch: engine::Watch,
    /// `--fail-on-outlier`.
    #[serde(default)]
    pub fail_on_outlier: bool,
    /// `--datatype`: the element types every benchmark runs with, one after
    /// the other (empty: each benchmark's own).
    #[serde(default)]
    pub datatypes: Vec<Datatype>,
    /// The element type of reductions where it is not `datatypes`' (IMB's
    /// `-red_data_type`).
    #[serde(default)]
    pub reduction_datatype: Option<Datatype>,
    /// `--derived`: the derived datatype of every message (an index file read on rank 0).
    #[serde(default)]
    pub derived: Option<Derived>,
    /// `--msg-pause`: a pause after every point, outside the timed regions.
    #[serde(default)]
    pub pause_after_point: bool,
    /// The ranks renumbered before groups are cut (IMB's `-map PxQ`).
    #[serde(default)]
    pub rank_order: Option<crate::engine::placement::RankOrder>,
}

/// `--datatype` and `--derived`, checked against every selected benchmark
/// and size: (datatypes in the order given, derived datatype).
fn typed(
    args: &RunArgs,
    entries: &[Entry],
    sizes: &[usize],
    definitions: Definitions,
) -> Result<(Vec<Datatype>, Option<Derived>), PlanError> {
    let mut datatypes: Vec<Datatype> = Vec::new();
    for &d in &args.types.datatype {
        if !datatypes.contains(&d) {
            datatypes.push(d);
        }
    }
    let derived = args
        .types
        .derived
        .as_deref()
        .map(Derived::parse)
        .transpose()
        .map_err(invalid)?;
    if derived.as_ref().is_some_and(|d| !d.ordered()) && args.check {
        return Err(invalid(
            "--derived: messages of a derived datatype are not validated (OSU refuses -D with -c); drop --check",
        ));
    }
    if datatypes.is_empty() && derived.is_none() {
        return Ok((datatypes, derived));
    }
    let list: Vec<Option<Datatype>> = if datatypes.is_empty() {
        vec![None]
    } else {
        datatypes.iter().copied().map(Some).collect()
    };
    for e in entries {
        for &dt in &list {
            let types = datatype::Types {
                transfer: dt,
                reduction: args.front.reduction_datatype.or(dt),
            };
            let t = datatype::retype(*e, types, derived.as_ref()).map_err(invalid)?;
            let i = t.info();
            let k = i.elem.size();
            if definitions.rounds(i) {
                continue;
            }
            // Sizes below one element are skipped (as OSU); others are whole elements.
            if let Some(bad) = sizes.iter().find(|&&x| x > k && x % k != 0) {
                return Err(invalid(format!(
                    "{} with {}: message size {bad} is not a multiple of {k} bytes",
                    e.qualified(),
                    i.datatype.unwrap_or(i.elem.mpi_name())
                )));
            }
        }
    }
    Ok((datatypes, derived))
}

pub const IMB_MAX_REPS: usize = 1000;
pub const IMB_MAX_VOLUME: usize = 40 << 20;
/// Upper bound of time options (a week), so that every deadline stays representable.
pub const MAX_SECONDS: f64 = 7.0 * 24.0 * 3600.0;

/// Bytes per repetition and rank that the samples of a per-repetition
/// method take while a point runs (start, end, duration, lateness, their
/// combination over ranks), with a margin.
pub const SAMPLE_BYTES: u64 = 128;
/// More per repetition and rank on rank 0 with `--raw` (every rank's samples, as JSON).
pub const RAW_SAMPLE_BYTES: u64 = 256;

impl Plan {
    /// What a table's header shows of this run.
    pub fn heading(&self) -> crate::report::table::Heading {
        crate::report::table::Heading {
            command: self.command.clone(),
            frontend: self.frontend.clone(),
            benchmarks: self.benchmarks.iter().map(|b| b.name.clone()).collect(),
            multi: self.multi,
            sizes: self.sizes.clone(),
            axes: self.axes.clone(),
            datatypes: self.datatypes.clone(),
            reduction_datatype: self.reduction_datatype,
            iter: self.policy.iter,
            precision: self.policy.precision,
            check: self.check,
        }
    }

    /// Builds and validates the whole plan for a world of `world` ranks.
    /// Errors speak the front end's syntax when one set the options.
    pub fn build(
        args: &RunArgs,
        command: Vec<String>,
        world: usize,
        ranks_per_node: usize,
    ) -> Result<Plan, PlanError> {
        Plan::build_as_given(args, command, world, ranks_per_node).map_err(|e| {
            if args.front.spelling.is_empty() {
                e
            } else {
                invalid(speak(&e.to_string(), &args.front.spelling))
            }
        })
    }

    fn build_as_given(
        args: &RunArgs,
        command: Vec<String>,
        world: usize,
        ranks_per_node: usize,
    ) -> Result<Plan, PlanError> {
        let definitions = args.knobs.definitions.unwrap_or_default();
        let sel = select(args, definitions)?;
        let sizes = sizes_of(args, sel.home, &sel.entries)?;
        let (datatypes, derived) = typed(args, &sel.entries, &sizes, definitions)?;
        let (policy, method) = repetitions(args, &sel, world)?;
        if args.strict && !args.check {
            return Err(invalid("--strict needs --check"));
        }
        if args.knobs.call_sync.is_some() && definitions != Definitions::Imb2021 {
            return Err(invalid(
                "--imb-sync needs --definitions imb2021 (PMB times collectives in a loop)",
            ));
        }
        if let Some((p, q)) = args.front.rank_grid {
            if p * q > world {
                return Err(invalid(format!(
                    "-map {p}x{q}: P x Q = {} exceeds the {world} processes of this run (IMB needs P*Q <= NP)",
                    p * q
                )));
            }
            if args.pairs.host() != crate::engine::placement::Pairs::Any {
                return Err(invalid(format!(
                    "-map and --pairs {} both choose the partners: use one",
                    args.pairs.host().name()
                )));
            }
        }
        let res = resources(args, &sizes, ranks_per_node)?;
        outputs(args, sel.home)?;
        let axes = axes_of(args, &sel, world, res.mem_bytes)?;
        if let Some(r) = args.roots.root.filter(|&r| r >= world) {
            return Err(invalid(format!(
                "--root {r}: root {r} is not one of the {world} processes of this run (0 to {})",
                world - 1
            )));
        }
        let plan = Plan {
            command,
            suite: sel.home.name.to_string(),
            benchmarks: sel.benchmarks,
            sizes,
            axes,
            npmin: args.sweep.npmin,
            multi: sel.multi,
            multi_detail: args.sweep.multi_detail,
            policy,
            repeats: args.reps.repeats.unwrap_or(1),
            root_shift: args.roots.root_shift,
            root: args.roots.root.unwrap_or(0),
            check: args.check,
            files: Files {
                json: args.out.json.clone(),
                csv: args.out.csv.clone(),
                raw: args.raw.clone(),
                output: args.out.output.clone(),
                report: args.out.report.clone(),
                plot: args.figures.plot.clone(),
                plots: args.figures.plots.clone(),
                history: args.out.history.clone(),
            },
            quiet: args.quiet,
            timing: Timing {
                method,
                sync: args.measure.sync,
                window_us: args.measure.window_us,
                definitions,
                call_sync: args.knobs.call_sync.unwrap_or(true),
            },
            stats: args.stats,
            mem_bytes: res.mem_bytes,
            buffer_limit: res.buffer_limit,
            timeout_s: args.limits.timeout,
            strict: args.strict,
            faults: engine::Faults {
                corrupt: args.hooks.corrupt,
                fail_alloc_rank: args.hooks.fail_alloc_rank,
                fail_mpi_rank: args.hooks.fail_mpi_rank,
                fail_mpi_setup_rank: args.hooks.fail_mpi_setup_rank,
                fresh_pages: args.hooks.test_fresh_pages.unwrap_or(0),
            },
            frontend: args.front.frontend.clone(),
            off_cache: res.off_cache,
            table: args.front.table.clone(),
            pairs: args.pairs.host(),
            watch: engine::Watch {
                stall_limit_s: res.stall_limit_s,
                disturbance_factor: res.disturbance_factor,
            },
            fail_on_outlier: args.fail_on_outlier,
            datatypes,
            reduction_datatype: args.front.reduction_datatype,
            derived,
            pause_after_point: args.knobs.msg_pause,
            rank_order: args.front.rank_grid.map(|(per_node, nodes)| {
                crate::engine::placement::RankOrder::InterNodeFirst { per_node, nodes }
            }),
        };
        plan.check_samples(args, world, res.sample_mem)?;
        if args.front.refuse_skips {
            for e in plan.entries() {
                if let Entry::Bench(b) = e {
                    plan.process_counts(b.info(), world).map_err(invalid)?;
                }
            }
        }
        Ok(plan)
    }

    /// Refuses a repetition count whose samples would not fit in `mem`
    /// bytes per rank, before any is allocated: the option that asked for
    /// it, the need and the limit, in one line.
    fn check_samples(&self, args: &RunArgs, world: usize, mem: u64) -> Result<(), PlanError> {
        let per_rep = SAMPLE_BYTES
            + if self.files.raw.is_some() {
                RAW_SAMPLE_BYTES.saturating_mul(world as u64)
            } else {
                0
            };
        let sampled = self
            .entries()
            .iter()
            .any(|e| self.method_for(e.info()).per_repetition());
        if !sampled {
            return Ok(());
        }
        let most = mem / per_rep;
        for (flag, v) in [
            ("--iter", args.reps.iter),
            ("--fast-iter", args.reps.fast_iter),
            ("--max-iter", args.measure.max_iter),
            ("--outer", args.reps.outer),
        ] {
            let Some(n) = v else { continue };
            let need = (n as u64).saturating_mul(per_rep);
            if need > mem {
                return Err(invalid(format!(
                    "{flag} {n}: {n} repetitions need {need} bytes of samples per rank, above the memory limit of {mem} bytes per rank (--mem; at most {most} repetitions)"
                )));
            }
        }
        Ok(())
    }

    /// The selected benchmarks, resolved: each once per chosen datatype,
    /// re-declared over it (and the derived datatype).
    pub fn entries(&self) -> Vec<Entry> {
        self.benchmarks
            .iter()
            .filter_map(|b| {
                lookup::resolve_in(&b.name, None, self.timing.definitions)
                    .ok()
                    .map(|r| r.0)
            })
            .flat_map(|e| self.typed(e).unwrap_or_default())
            .collect()
    }

    /// An entry under the run's datatypes (itself when none is chosen).
    fn typed(&self, e: Entry) -> Result<Vec<Entry>, String> {
        if self.datatypes.is_empty() && self.derived.is_none() {
            return Ok(vec![e]);
        }
        let list: Vec<Option<Datatype>> = if self.datatypes.is_empty() {
            vec![None]
        } else {
            self.datatypes.iter().copied().map(Some).collect()
        };
        list.into_iter()
            .map(|dt| {
                let types = datatype::Types {
                    transfer: dt,
                    reduction: self.reduction_datatype.or(dt),
                };
                datatype::retype(e, types, self.derived.as_ref())
            })
            .collect()
    }

    /// The suite defaults that apply to a benchmark.
    pub fn defaults(&self, info: &Info) -> Defaults {
        lookup::suite_of(info).defaults
    }

    /// The timing method of a benchmark ([`Timing::method_for`]).
    pub fn method_for(&self, info: &Info) -> Method {
        self.timing.method_for(info)
    }

    /// Repetitions at the largest length before the first ([`Timing::warm_largest`]).
    pub fn warm_largest(&self, info: &Info) -> usize {
        self.timing.warm_largest(info)
    }

    /// The synchronisation of a benchmark ([`Timing::sync_for`]).
    pub fn sync_for(&self, info: &Info) -> SyncMode {
        self.timing.sync_for(info)
    }

    /// Whether every repetition of a benchmark is validated: `--check`, or
    /// a benchmark that always validates (Info::validated).
    pub fn check_for(&self, info: &Info) -> bool {
        self.check || info.validated
    }

    /// The repetitions of a benchmark's points.
    pub fn reps_for(&self, info: &Info) -> Reps {
        let p = &self.policy;
        if let Some(target) = p.precision {
            return Reps::Precision {
                target,
                min: p.min_reps,
                max: p.max_reps,
            };
        }
        if self.method_for(info).nested() {
            // Delay subtraction's samples are its outer repetitions.
            return Reps::Fixed(p.outer.or(p.iter).unwrap_or(crate::engine::DELAY_OUTER));
        }
        let fast = info.pace == Pace::Fast;
        let given = if fast { p.fast_iter.or(p.iter) } else { p.iter };
        if let Some(n) = given {
            // A fixed count keeps a split warm-up (OSU -i with its -x defaults).
            if let Some(RepsDefault::Split(s)) = info.reps {
                return Reps::Split(Split {
                    small: n,
                    large: n,
                    ..s
                });
            }
            return Reps::Fixed(n);
        }
        match info.reps.unwrap_or(self.defaults(info).reps) {
            RepsDefault::Split(s) => Reps::Split(s),
            RepsDefault::Imb => {
                let imb = Reps::Imb {
                    max: p.max_reps,
                    min: p.min_reps,
                };
                let hyperbola = Reps::MultipleNp {
                    msgs: p.max_reps,
                    largest: self.sizes.last().copied().unwrap_or(0),
                };
                match p.iter_policy {
                    IterPolicy::Dynamic => imb,
                    IterPolicy::Off => Reps::Fixed(p.max_reps),
                    IterPolicy::MultipleNp => hyperbola,
                    IterPolicy::Auto if info.rooted => hyperbola,
                    IterPolicy::Auto => imb,
                }
            }
            RepsDefault::Fixed { normal, fast: f } => Reps::Fixed(if fast { f } else { normal }),
            RepsDefault::TargetTime { target } => Reps::TargetTime { target },
        }
    }

    /// Process counts of a benchmark in a world of `world`, or why there are none.
    pub fn process_counts(&self, info: &Info, world: usize) -> Result<Vec<usize>, String> {
        let counts = match (self.defaults(info).procs, self.npmin) {
            (ProcSweep::World, None) => vec![world],
            _ => process_counts(info.class, info.ranks.min, world, self.npmin),
        };
        let ok: Vec<usize> = counts
            .iter()
            .copied()
            .filter(|&q| info.ranks.check(info.name, q).is_ok())
            .collect();
        if ok.is_empty() {
            let q = counts.last().copied().unwrap_or(world);
            return Err(info
                .ranks
                .check(info.name, q.max(1))
                .err()
                .unwrap_or_else(|| {
                    format!(
                        "{} needs at least {} processes, this run has {world}",
                        info.name, info.ranks.min
                    )
                }));
        }
        Ok(ok)
    }
}

impl Plan {
    /// What the engine reads of this plan.
    pub fn engine_config(&self) -> engine::Config<'_> {
        let p = &self.policy;
        engine::Config {
            sizes: self.sizes.clone(),
            axes: self.axes.clone(),
            definitions: self.timing.definitions,
            multi: self.multi,
            multi_detail: self.multi_detail,
            root_shift: self.root_shift,
            root: self.root,
            check: self.check,
            raw: self.files.raw.is_some(),
            mem_bytes: self.mem_bytes,
            buffer_limit: self.buffer_limit.clone(),
            strict: self.strict,
            faults: self.faults,
            off_cache: self.off_cache,
            pairs: self.pairs,
            rank_order: self.rank_order,
            watch: self.watch,
            pause_after_point: self.pause_after_point,
            window_us: self.timing.window_us,
            fast_iter: p.fast_iter,
            warmup: p.warmup,
            inner: p.inner,
            max_volume: p.max_volume,
            time_limit_s: p.time_limit_s,
            choices: self,
        }
    }
}

/// The engine's per-benchmark choices are the plan's.
impl engine::Choices for Plan {
    fn method_for(&self, info: &Info) -> Method {
        Plan::method_for(self, info)
    }

    fn sync_for(&self, info: &Info) -> SyncMode {
        Plan::sync_for(self, info)
    }

    fn check_for(&self, info: &Info) -> bool {
        Plan::check_for(self, info)
    }

    fn reps_for(&self, info: &Info) -> Reps {
        Plan::reps_for(self, info)
    }

    fn warm_largest(&self, info: &Info) -> usize {
        Plan::warm_largest(self, info)
    }
}

/// What a run's names select: the benchmarks (in order, without
/// duplicates), their entries, the home suite (`--suite`, else the first
/// name's, else the default) and whether they run in Multi mode.
struct Selection {
    benchmarks: Vec<Selected>,
    entries: Vec<Entry>,
    home: &'static Suite,
    multi: bool,
}

fn select(args: &RunArgs, definitions: Definitions) -> Result<Selection, PlanError> {
    let suite_arg = args.suite.as_deref();
    let mut benchmarks: Vec<Selected> = Vec::new();
    let mut entries: Vec<Entry> = Vec::new();
    for name in &args.benchmarks {
        let (e, multi) = lookup::resolve_in(name, suite_arg, definitions)?;
        let sel = Selected {
            name: e.qualified(),
            multi,
        };
        if !benchmarks.contains(&sel) {
            benchmarks.push(sel);
            entries.push(e);
        }
    }
    let home = match suite_arg {
        Some(s) => lookup::suite(s)
            .ok_or_else(|| LookupError::UnknownSuite(s.to_string(), lookup::suite_names()))?,
        None => match entries.first() {
            Some(e) => lookup::suite_of(e.info()),
            None => &lookup::registry()[0],
        },
    };
    if args.benchmarks.is_empty() {
        for e in lookup::default_entries(home, definitions) {
            benchmarks.push(Selected {
                name: e.qualified(),
                multi: false,
            });
            entries.push(e);
        }
    }
    let multi_names = benchmarks.iter().any(|b| b.multi);
    if multi_names && benchmarks.iter().any(|b| !b.multi) && !args.sweep.multi {
        return Err(invalid(
            "Multi- names and plain names cannot be mixed in one run (use --multi for all)",
        ));
    }
    let multi = args.sweep.multi || multi_names;
    if args.sweep.multi_detail && !multi {
        return Err(invalid("--multi-detail needs --multi"));
    }
    Ok(Selection {
        benchmarks,
        entries,
        home,
        multi,
    })
}

/// The message sizes (`--msglog`, `--sizes`, else the home suite's), each a
/// whole number of elements for benchmarks that count elements.
fn sizes_of(args: &RunArgs, home: &Suite, entries: &[Entry]) -> Result<Vec<usize>, PlanError> {
    let sizes = match (&args.sweep.msglog, &args.sweep.sizes) {
        (Some(m), _) => parse_msglog(m)?,
        (None, Some(s)) => parse_sizes(s).map_err(PlanError::Invalid)?,
        (None, None) if home.defaults.sizes.contains(':') => parse_msglog(home.defaults.sizes)?,
        (None, None) => parse_sizes(home.defaults.sizes).map_err(PlanError::Invalid)?,
    };
    for e in entries {
        let i = e.info();
        if let (Axis::Elems, Entry::Bench(_)) = (i.axis, e) {
            let k = i.elem.size();
            if let Some(bad) = sizes.iter().find(|&&x| x % k != 0) {
                return Err(invalid(format!(
                    "{} works on N {} of {k} bytes: message size {bad} is not a multiple of {k}",
                    e.qualified(),
                    i.elem.mpi_name()
                )));
            }
        }
    }
    Ok(sizes)
}

/// The repetition policy and the timing method the options ask for, or the
/// usage error of the first option that does not fit.
fn repetitions(
    args: &RunArgs,
    sel: &Selection,
    world: usize,
) -> Result<(Policy, Option<Method>), PlanError> {
    check_npmin(args, world)?;
    check_counts(args, sel)?;
    check_time(args.time)?;
    let method = timing_method(args)?;
    let (min_reps, max_reps) = rep_bounds(args)?;
    if args.knobs.volume == Some(0) {
        return Err(invalid("--volume must be at least 1 byte"));
    }
    let policy = Policy {
        iter: args.reps.iter,
        fast_iter: args.reps.fast_iter,
        min_reps,
        max_reps,
        precision: args.measure.precision,
        max_volume: args.knobs.volume.unwrap_or(IMB_MAX_VOLUME),
        time_limit_s: args.time,
        warmup: args.warmup,
        inner: args.reps.inner,
        outer: args.reps.outer,
        iter_policy: args.knobs.iter_policy.unwrap_or_default(),
    };
    Ok((policy, method))
}

/// `--npmin`: from 1, and within the world (unless a front end lets it
/// run on all processes instead, as IMB).
fn check_npmin(args: &RunArgs, world: usize) -> Result<(), PlanError> {
    let Some(np) = args.sweep.npmin else {
        return Ok(());
    };
    if np == 0 {
        return Err(invalid("--npmin must be at least 1"));
    }
    if np > world && !args.front.npmin_up_to_world {
        return Err(invalid(format!(
            "--npmin {np} is larger than the {world} processes of this run"
        )));
    }
    Ok(())
}

/// The repetition counts: each from 1, `--iter` without bounds, and no
/// count for suites that repeat a fixed number of times.
fn check_counts(args: &RunArgs, sel: &Selection) -> Result<(), PlanError> {
    for (flag, v) in [
        ("--iter", args.reps.iter),
        ("--fast-iter", args.reps.fast_iter),
        ("--repeats", args.reps.repeats),
        ("--min-iter", args.measure.min_iter),
        ("--max-iter", args.measure.max_iter),
        ("--inner", args.reps.inner),
        ("--outer", args.reps.outer),
    ] {
        if v == Some(0) {
            return Err(invalid(format!("{flag} must be at least 1")));
        }
    }
    let bounds = [
        ("--min-iter", args.measure.min_iter),
        ("--max-iter", args.measure.max_iter),
    ];
    if let (Some(_), Some(flag)) = (
        args.reps.iter,
        bounds.into_iter().find_map(|(f, v)| v.map(|_| f)),
    ) {
        return Err(invalid(format!(
            "--iter fixes the repetitions; it excludes {flag}"
        )));
    }
    // The clock tools repeat a fixed number of times: a repetition
    // count would be recorded but not used.
    if let Some(flag) = std::iter::once(("--iter", args.reps.iter))
        .chain(bounds)
        .find_map(|(f, v)| v.map(|_| f))
    {
        let fixed: Vec<_> = sel
            .entries
            .iter()
            .map(|e| lookup::suite_of(e.info()).fixed_repetitions)
            .collect();
        if let Some(Some(why)) = fixed.first().filter(|_| fixed.iter().all(Option::is_some)) {
            return Err(invalid(format!("{flag} does not apply: {}", why())));
        }
    }
    Ok(())
}

/// `--time`: a positive number of seconds, at most [`MAX_SECONDS`].
fn check_time(time: f64) -> Result<(), PlanError> {
    if !(time.is_finite() && time > 0.0) {
        return Err(invalid(format!(
            "--time must be a positive number of seconds, not {time}"
        )));
    }
    if time > MAX_SECONDS {
        return Err(invalid(format!(
            "--time must be at most {MAX_SECONDS} seconds, not {time}"
        )));
    }
    Ok(())
}

/// The timing method `--timing` and `--precision` ask for (per-call for
/// `--precision` alone), with `--precision`'s and `--window-us`' checks.
fn timing_method(args: &RunArgs) -> Result<Option<Method>, PlanError> {
    let m = &args.measure;
    if let Some(r) = m.precision {
        if !(r > 0.0 && r < 1.0) {
            return Err(invalid(format!(
                "--precision must be between 0 and 1 (e.g. 0.02), not {r}"
            )));
        }
        if m.timing.is_some_and(|m| !m.per_repetition()) {
            return Err(invalid(
                "--precision needs per-repetition samples: it excludes --timing loop",
            ));
        }
        if args.reps.iter.is_some() {
            return Err(invalid(
                "--iter and --precision exclude each other (fixed or adaptive repetitions)",
            ));
        }
    }
    // --precision judges per-call samples: per-call timing unless a per-repetition method is named.
    let method = match (m.timing, m.precision) {
        (None, Some(_)) => Some(Method::PerCall),
        (t, _) => t,
    };
    if let Some(w) = m.window_us {
        if m.sync != Some(SyncMode::Window)
            && method.and_then(Method::required_sync) != Some(SyncMode::Window)
        {
            return Err(invalid("--window-us needs --sync window"));
        }
        if !(w.is_finite() && w > 0.0 && w <= 1e6) {
            return Err(invalid(format!(
                "--window-us must be a number of microseconds between 0 and 1000000, not {w}"
            )));
        }
    }
    Ok(method)
}

/// The fewest and most repetitions per length: `--iter` (what ran is
/// recorded), else `--min-iter`/`--max-iter`, else the defaults (wider
/// with `--precision`).
fn rep_bounds(args: &RunArgs) -> Result<(usize, usize), PlanError> {
    let adaptive = args.measure.precision.is_some();
    let min_reps = args
        .reps
        .iter
        .or(args.measure.min_iter)
        .unwrap_or(if adaptive { 10 } else { 1 });
    let max_reps = args
        .reps
        .iter
        .or(args.measure.max_iter)
        .unwrap_or(if adaptive { 100_000 } else { IMB_MAX_REPS });
    if max_reps < min_reps {
        return Err(invalid(format!(
            "--max-iter {max_reps} is smaller than --min-iter {min_reps}"
        )));
    }
    Ok((min_reps, max_reps))
}

/// What a run may use and how it watches itself: memory per rank (and
/// for samples), cold buffers, the stall limit and the disturbance factor.
struct Resources {
    mem_bytes: u64,
    sample_mem: u64,
    buffer_limit: Option<String>,
    off_cache: Option<OffCache>,
    stall_limit_s: Option<f64>,
    disturbance_factor: Option<f64>,
}

fn resources(
    args: &RunArgs,
    sizes: &[usize],
    ranks_per_node: usize,
) -> Result<Resources, PlanError> {
    let off_cache = args
        .knobs
        .off_cache
        .as_deref()
        .map(parse_off_cache)
        .transpose()?
        .flatten();
    let stall = args
        .guard
        .stall_limit
        .unwrap_or(crate::watchdog::DEFAULT_STALL_S);
    if !(stall.is_finite() && (0.0..=MAX_SECONDS).contains(&stall)) {
        return Err(invalid(format!(
            "--stall-limit must be a number of seconds between 0 (off) and {MAX_SECONDS}, not {stall}"
        )));
    }
    let disturbance = args
        .guard
        .disturbance_factor
        .unwrap_or(crate::engine::disturb::DEFAULT_FACTOR);
    if !(disturbance.is_finite() && disturbance >= 0.0) {
        return Err(invalid(format!(
            "--disturbance-factor must be a number of repetitions, at least 0 (off), not {disturbance}"
        )));
    }
    if let Some(t) = args.limits.timeout {
        if !(t.is_finite() && t > 0.0 && t <= MAX_SECONDS) {
            return Err(invalid(format!(
                "--timeout must be a number of seconds between 0 and {MAX_SECONDS}, not {t}"
            )));
        }
    }
    let mut mem_bytes = match args.limits.mem {
        Some(g) if g.is_finite() && g > 0.0 => (g * (1u64 << 30) as f64) as u64,
        Some(g) => {
            return Err(invalid(format!(
                "--mem must be a positive number of GiB, not {g}"
            )))
        }
        None => default_mem_bytes(ranks_per_node),
    };
    // Samples are held whatever the buffer limit (MPITEST's b).
    let sample_mem = mem_bytes;
    let buffer_limit = args.front.buffer_bytes.filter(|&b| b < mem_bytes).map(|_| {
        args.front
            .buffer_flag
            .unwrap_or("a front end's buffer size")
            .to_string()
    });
    if let Some(b) = args.front.buffer_bytes {
        mem_bytes = mem_bytes.min(b);
    }
    // Sizes the user chose must fit; a suite's default sizes that do not
    // are skipped per point with a note (the engine's memory check).
    if buffer_limit.is_none() && (args.sweep.msglog.is_some() || args.sweep.sizes.is_some()) {
        if let Some(&big) = sizes.iter().max() {
            if big as u64 > mem_bytes {
                return Err(invalid(format!(
                    "message size {big} bytes exceeds the memory limit of {mem_bytes} bytes ({:.3} GiB) per rank (--mem)",
                    mem_bytes as f64 / (1u64 << 30) as f64
                )));
            }
        }
    }
    Ok(Resources {
        mem_bytes,
        sample_mem,
        buffer_limit,
        off_cache,
        stall_limit_s: (stall > 0.0).then_some(stall),
        disturbance_factor: (disturbance > 0.0).then_some(disturbance),
    })
}

/// The output files can be written, and `--plot` has a suite figure to draw.
fn outputs(args: &RunArgs, home: &Suite) -> Result<(), PlanError> {
    crate::files::validate(&args.outputs(), &args.inputs()).map_err(PlanError::Invalid)?;
    if args.figures.plot.is_some() && home.figure.is_none() {
        let with: Vec<String> = lookup::registry()
            .iter()
            .filter_map(|s| {
                s.figure
                    .map(|f| format!("{}: use it with --suite {}", f.what, s.name))
            })
            .collect();
        return Err(invalid(format!("--plot draws {}", with.join("; "))));
    }
    Ok(())
}

/// Suite-specific options as axes of the plan: every suite reads its own
/// options (and refuses them when it is not in the run); then the axes a
/// front end set by name.
fn axes_of(
    args: &RunArgs,
    sel: &Selection,
    world: usize,
    mem_bytes: u64,
) -> Result<Axes, PlanError> {
    let mut axes = Axes::new();
    for s in lookup::registry() {
        let involved = s.name == sel.home.name
            || sel
                .entries
                .iter()
                .any(|e| lookup::suite_of(e.info()).name == s.name);
        if let Some(f) = s.axes {
            axes.extend(f(args, involved, world, mem_bytes).map_err(PlanError::Invalid)?);
        }
    }
    for (name, v) in &args.front.front_axes {
        axes.insert(name.clone(), vec![*v]);
    }
    Ok(axes)
}

/// Default memory limit per rank: 80% of the node's available memory
/// (MemAvailable, else physical memory) divided by the ranks on the node.
pub fn default_mem_bytes(ranks_per_node: usize) -> u64 {
    let avail = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find(|l| l.starts_with("MemAvailable:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map(|kib| kib * 1024)
        .unwrap_or_else(crate::sys::physical_memory);
    let share = avail / 5 * 4 / ranks_per_node.max(1) as u64;
    // A rank cannot use more than its address space (`ulimit -v`), of which
    // MPI and the program take their part: half of it at most.
    share.min(crate::sys::address_space_limit().unwrap_or(u64::MAX) / 2)
}

/// `--off-cache CACHE_MB[,LINE]` as IMB reads -off_cache: a negative size
/// means IMB's defaults (8 MB, 64-byte lines), 0 turns it off.
pub fn parse_off_cache(s: &str) -> Result<Option<OffCache>, PlanError> {
    let bad = || {
        invalid(format!(
            "invalid --off-cache '{s}' (expected CACHE_MB or CACHE_MB,LINE_BYTES, e.g. -1, 2.5 or 16,128)"
        ))
    };
    let (size, line) = match s.split_once(',') {
        Some((a, b)) => (a, Some(b)),
        None => (s, None),
    };
    let mb: f64 = size.trim().parse().map_err(|_| bad())?;
    if !mb.is_finite() || mb > 1e6 {
        return Err(bad());
    }
    let line = match line {
        Some(l) => l
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|&l| (1..=1 << 20).contains(&l))
            .ok_or_else(bad)?,
        None => OffCache::IMB_DEFAULT.line,
    };
    if mb < 0.0 {
        return Ok(Some(OffCache {
            line,
            ..OffCache::IMB_DEFAULT
        }));
    }
    if mb == 0.0 {
        return Ok(None);
    }
    Ok(Some(OffCache {
        cache_bytes: (mb * (1u64 << 20) as f64) as usize,
        line,
    }))
}

/// PMB/IMB `-msglog`: "A:B" gives 0, 2^A..2^B; "B" gives 0, 2^0..2^B.
pub fn parse_msglog(s: &str) -> Result<Vec<usize>, PlanError> {
    let bad = || {
        invalid(format!(
            "invalid --msglog '{s}' (expected A:B with 0 <= A <= B <= 40)"
        ))
    };
    let (a, b) = match s.split_once(':') {
        Some((a, b)) => (
            a.trim().parse::<u32>().map_err(|_| bad())?,
            b.trim().parse::<u32>().map_err(|_| bad())?,
        ),
        None => (0, s.trim().parse::<u32>().map_err(|_| bad())?),
    };
    if a > b {
        return Err(invalid(format!(
            "invalid --msglog '{s}': A ({a}) is larger than B ({b})"
        )));
    }
    if b > 40 {
        return Err(bad());
    }
    let mut v = vec![0];
    v.extend((a..=b).map(|e| 1usize << e));
    Ok(v)
}

/// The process counts Q a benchmark runs on in a world of P (PMB §5.1.1):
/// single transfers on 2 (on 1 when their rank rule allows one); the others on npmin, 2·npmin, 4·npmin, ... < P, then P
/// (default npmin 2, e.g. P = 11 gives 2, 4, 8, 11). P = 1 runs on 1.
pub fn process_counts(
    class: Class,
    min_ranks: usize,
    world: usize,
    npmin: Option<usize>,
) -> Vec<usize> {
    if class == Class::SingleTransfer {
        // On 2 (a pair); on 1 where one process is the transfer (IMB-IO's S_).
        let q = min_ranks.clamp(1, 2);
        return if world >= q { vec![q] } else { vec![] };
    }
    let start = npmin.unwrap_or(2).min(world).max(min_ranks).max(1);
    if start > world {
        return vec![];
    }
    let mut v = Vec::new();
    let mut q = start;
    while q < world {
        v.push(q);
        q *= 2;
    }
    v.push(world);
    v
}

/// A usage error in the syntax the user typed: every whole-word occurrence
/// of an option a front end set (`--npmin 8`, `--npmin`) becomes the user's
/// spelling (`P_min 8`, `P_min`).
pub fn speak(msg: &str, spelling: &[(String, String)]) -> String {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    let mut out = msg.to_string();
    for (ours, theirs) in spelling {
        let mut done = String::with_capacity(out.len());
        let mut rest = out.as_str();
        while let Some(i) = rest.find(ours.as_str()) {
            let before = if i > 0 {
                rest[..i].chars().last()
            } else {
                done.chars().last()
            };
            let after = rest[i + ours.len()..].chars().next();
            let whole = !before.is_some_and(word) && !after.is_some_and(word);
            done.push_str(&rest[..i]);
            done.push_str(if whole { theirs } else { ours });
            rest = &rest[i + ours.len()..];
        }
        done.push_str(rest);
        out = done;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::parse_size;

    #[test]
    fn sizes_with_suffixes() {
        assert_eq!(parse_size("0").unwrap(), 0);
        assert_eq!(parse_size("4K").unwrap(), 4096);
        assert_eq!(parse_size("1m").unwrap(), 1 << 20);
        assert_eq!(parse_size("2G").unwrap(), 2 << 30);
        assert_eq!(parse_size("3KiB").unwrap(), 3072);
        assert_eq!(parse_size("8B").unwrap(), 8);
        assert_eq!(parse_size("2^31").unwrap(), 1 << 31);
        assert_eq!(parse_sizes("1M, 0,4K,4K").unwrap(), vec![0, 4096, 1 << 20]);
        for bad in [
            "",
            "-1",
            "1.5K",
            "K",
            "12X",
            "2^99",
            "99999999999999999999",
            "1,,2",
        ] {
            assert!(parse_sizes(bad).is_err(), "{bad}");
        }
    }

    fn plan(args: &[&str]) -> Result<Plan, PlanError> {
        use clap::Parser;
        let mut v = vec!["mpibench", "run"];
        v.extend_from_slice(args);
        let crate::cli::Command::Run(a) = crate::cli::Cli::try_parse_from(v).unwrap().command
        else {
            unreachable!()
        };
        Plan::build(&a, vec![], 4, 4)
    }

    /// `mpibench run` arguments, parsed.
    fn run_args(args: &[&str]) -> RunArgs {
        use clap::Parser;
        let mut v = vec!["mpibench", "run"];
        v.extend_from_slice(args);
        let crate::cli::Command::Run(a) = crate::cli::Cli::try_parse_from(v).unwrap().command
        else {
            unreachable!()
        };
        *a
    }

    fn err<T>(r: Result<T, PlanError>) -> String {
        r.err().expect("a usage error").to_string()
    }

    #[test]
    fn select_names_the_home_suite_and_its_defaults() {
        let d = Definitions::Pmb;
        // No name: the default suite's default list.
        let s = select(&run_args(&[]), d).unwrap();
        assert_eq!(s.home.name, "imb");
        assert_eq!(s.benchmarks.len(), 12);
        // A name: its suite is home; a name twice runs once.
        let s = select(&run_args(&["BROADCAST", "BROADCAST"]), d).unwrap();
        assert_eq!(s.home.name, "mpitest");
        assert_eq!(s.entries.len(), 1);
        // --suite without names: that suite's defaults.
        let s = select(&run_args(&["--suite", "imb-p2p"]), d).unwrap();
        assert_eq!(s.entries.len(), 8);
        assert!(!s.multi);
        let s = select(&run_args(&["Multi-PingPong"]), d).unwrap();
        assert!(s.multi);
        assert!(
            err(select(&run_args(&["Multi-PingPong", "Barrier"]), d)).contains("cannot be mixed")
        );
        assert!(err(select(&run_args(&["--multi-detail"]), d)).contains("needs --multi"));
        assert!(err(select(&run_args(&["--suite", "nosuch"]), d)).contains("nosuch"));
    }

    #[test]
    fn sizes_come_from_the_options_or_the_home_suite() {
        let sel = |a: &[&str]| select(&run_args(a), Definitions::Pmb).unwrap();
        let s = sel(&["--suite", "mpitest"]);
        assert_eq!(
            sizes_of(&run_args(&[]), s.home, &s.entries).unwrap(),
            [4, 40, 400, 4000, 40000, 400000]
        );
        let s = sel(&["PingPong"]);
        assert_eq!(
            sizes_of(&run_args(&["--msglog", "2:3"]), s.home, &s.entries).unwrap(),
            [0, 4, 8]
        );
        // A benchmark that counts elements takes whole elements only.
        let s = sel(&["BROADCAST"]);
        let e = err(sizes_of(&run_args(&["--sizes", "6"]), s.home, &s.entries));
        assert!(e.contains("not a multiple of 4"), "{e}");
    }

    #[test]
    fn repetitions_refuse_what_does_not_fit() {
        let s = select(&run_args(&["PingPong"]), Definitions::Pmb).unwrap();
        let reps = |a: &[&str]| repetitions(&run_args(a), &s, 4);
        let (p, m) = reps(&["--iter", "50"]).unwrap();
        assert_eq!((p.min_reps, p.max_reps, m), (50, 50, None));
        let (p, m) = reps(&["--precision", "0.05"]).unwrap();
        assert_eq!(
            (p.min_reps, p.max_reps, m),
            (10, 100_000, Some(Method::PerCall))
        );
        for (a, says) in [
            (
                &["--iter", "5", "--max-iter", "9"][..],
                "excludes --max-iter",
            ),
            (
                &["--min-iter", "9", "--max-iter", "5"],
                "smaller than --min-iter",
            ),
            (&["--precision", "2"], "between 0 and 1"),
            (
                &["--precision", "0.1", "--timing", "loop"],
                "excludes --timing loop",
            ),
            (&["--window-us", "5"], "needs --sync window"),
            (&["--npmin", "9"], "larger than the 4 processes"),
            (&["--time", "0"], "--time must be a positive"),
            (&["--volume", "0"], "--volume must be at least 1"),
        ] {
            assert!(err(reps(a)).contains(says), "{a:?}: {}", err(reps(a)));
        }
    }

    #[test]
    fn resources_hold_the_limits() {
        let r = resources(&run_args(&["--mem", "0.5"]), &[8], 4).unwrap();
        assert_eq!(
            (r.mem_bytes, r.sample_mem, r.buffer_limit),
            (1 << 29, 1 << 29, None)
        );
        assert!(r.stall_limit_s.is_some() && r.disturbance_factor.is_some());
        let r = resources(
            &run_args(&["--stall-limit", "0", "--disturbance-factor", "0"]),
            &[8],
            4,
        )
        .unwrap();
        assert_eq!((r.stall_limit_s, r.disturbance_factor), (None, None));
        // A front end's buffer limit lowers the memory, not the samples'.
        let mut a = run_args(&["--mem", "1"]);
        a.front.buffer_bytes = Some(1000);
        a.front.buffer_flag = Some("b");
        let r = resources(&a, &[8], 4).unwrap();
        assert_eq!(
            (r.mem_bytes, r.sample_mem, r.buffer_limit.as_deref()),
            (1000, 1 << 30, Some("b"))
        );
        let big = resources(
            &run_args(&["--mem", "0.0005", "--sizes", "1M"]),
            &[1 << 20],
            4,
        );
        assert!(err(big).contains("exceeds the memory limit"));
        assert!(
            err(resources(&run_args(&["--stall-limit", "-1"]), &[8], 4)).contains("--stall-limit")
        );
        assert!(err(resources(&run_args(&["--mem", "0"]), &[8], 4)).contains("--mem"));
    }

    #[test]
    fn axes_come_from_the_suites_in_the_run_and_the_front_end() {
        let s = select(&run_args(&["Uniband"]), Definitions::Imb2021).unwrap();
        let mut a = run_args(&["Uniband"]);
        a.front.front_axes.push(("pause_us".into(), 0.0));
        let axes = axes_of(&a, &s, 4, 1 << 30).unwrap();
        assert_eq!(axes[crate::bench::patterns::WINDOW_AXIS], vec![64.0]);
        assert_eq!(axes["pause_us"], vec![0.0]);
        // A suite's option given when the suite is not in the run.
        let s = select(&run_args(&["BROADCAST"]), Definitions::Pmb).unwrap();
        let a = run_args(&["BROADCAST", "--imb-window", "4"]);
        assert!(err(axes_of(&a, &s, 4, 1 << 30)).contains("--imb-window"));
    }

    /// A plan from `mpibench imb` arguments in a world of 4.
    fn imb_plan(args: &str) -> Result<Plan, PlanError> {
        let argv: Vec<String> = args.split_whitespace().map(String::from).collect();
        match crate::bench::imb::front::parse(&crate::bench::imb::front::MPI1, &argv, "IMB-MPI1")
            .unwrap()
        {
            crate::bench::imb::front::Action::Run(a, _) => Plan::build(&a, vec![], 4, 4),
            _ => unreachable!(),
        }
    }

    #[test]
    fn imb_map_and_npmin_against_the_world() {
        // IMB: P*Q <= NP; the map and --pairs inter|intra exclude each other.
        assert_eq!(
            imb_plan("-map 2x2").unwrap().rank_order.map(|o| o.label()),
            Some("2x2".into())
        );
        assert_eq!(
            imb_plan("-map 1x3").unwrap().rank_order.map(|o| o.label()),
            Some("1x3".into())
        );
        let e = imb_plan("-map 4x2").unwrap_err().to_string();
        assert!(e.contains("P x Q = 8 exceeds the 4 processes"), "{e}");
        let e = imb_plan("-map 2x2 --pairs inter").unwrap_err().to_string();
        assert!(e.contains("-map and --pairs inter"), "{e}");
        // -npmin above the world runs on all (IMB); --npmin stays a usage error.
        let p = imb_plan("-npmin 8").unwrap();
        let allreduce = crate::bench::imb::find("Allreduce").unwrap().info();
        assert_eq!(p.process_counts(allreduce, 4).unwrap(), vec![4]);
        assert!(plan(&["--npmin", "8"]).is_err());
        // -msg_pause and -window_size reach the plan.
        let p = imb_plan("-msg_pause on -window_size 4 Uniband").unwrap();
        assert!(p.pause_after_point);
        assert_eq!(p.axes[crate::bench::patterns::WINDOW_AXIS], vec![4.0]);
        assert_eq!(imb_plan("").unwrap().axes["imb_window"], vec![256.0]);
        // A front end's own axes reach the plan by name.
        let args = RunArgs {
            benchmarks: vec!["PingPong".into()],
            time: 10.0,
            front: crate::cli::FrontSet {
                front_axes: vec![("a_front_axis".into(), 7.0)],
                ..Default::default()
            },
            ..Default::default()
        };
        let p = Plan::build(&args, vec!["mpibench".into()], 2, 2).unwrap();
        assert_eq!(p.axes["a_front_axis"], vec![7.0]);
        assert_eq!(
            imb_plan("--definitions pmb").unwrap().axes["imb_window"],
            vec![64.0]
        );
    }

    #[test]
    fn multi_names_select_multi_mode() {
        assert!(plan(&["Multi-Allreduce"]).unwrap().multi);
        assert!(!plan(&["Allreduce"]).unwrap().multi);
        assert!(plan(&["Multi-Allreduce", "Multi-Bcast"]).unwrap().multi);
        let e = plan(&["Multi-Allreduce", "PingPong"]).unwrap_err();
        assert!(e.to_string().contains("mixed"), "{e}");
        assert!(
            plan(&["--multi", "Multi-Allreduce", "PingPong"])
                .unwrap()
                .multi
        );
    }

    #[test]
    fn plot_needs_a_suite_with_a_figure() {
        let e = plan(&["--plot", "f.svg"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--plot draws CRESTA's Figure 1: use it with --suite cresta"
        );
        assert!(plan(&["--suite", "cresta", "--plot", "f.svg"]).is_ok());
    }

    #[test]
    fn iter_excludes_bounds_and_is_recorded() {
        let p = plan(&["--iter", "5"]).unwrap();
        assert_eq!((p.policy.min_reps, p.policy.max_reps), (5, 5));
        assert!(plan(&["--iter", "5", "--min-iter", "10"]).is_err());
        assert!(plan(&["--iter", "5000", "--max-iter", "10"]).is_err());
        let e = plan(&["--sync", "window", "--window-us", "-5"]).unwrap_err();
        assert!(e.to_string().contains("between 0 and 1000000"), "{e}");
        // The clock tools use fixed repetitions: a count would not be used.
        for flag in ["--iter", "--min-iter", "--max-iter"] {
            let e = plan(&["--suite", "clock", flag, "5"]).unwrap_err();
            assert!(
                e.to_string().starts_with(&format!("{flag} does not apply")),
                "{e}"
            );
        }
        let e = plan(&["clock/timing", "--iter", "5"]).unwrap_err();
        assert!(e.to_string().contains("fixed repetitions"), "{e}");
        assert!(
            plan(&["clock/timing", "pingpong", "--iter", "5"]).is_ok(),
            "pingpong uses it"
        );
        // caf ranges are checked whatever the suite.
        let e = plan(&["pingpong", "--delay-us", "-3"]).unwrap_err();
        assert!(e.to_string().contains("from 0 to 1000000"), "{e}");
        let e = plan(&["pingpong", "--max-ndata", "-3"]).unwrap_err();
        assert!(e.to_string().contains("from 2 to 2^28"), "{e}");
    }

    #[test]
    fn msglog_like_imb() {
        assert_eq!(parse_msglog("0:3").unwrap(), vec![0, 1, 2, 4, 8]);
        assert_eq!(parse_msglog("2").unwrap(), vec![0, 1, 2, 4]);
        assert_eq!(parse_msglog("10:10").unwrap(), vec![0, 1024]);
        assert_eq!(parse_msglog("0:22").unwrap().len(), 24);
        assert!(parse_msglog("5:3")
            .unwrap_err()
            .to_string()
            .contains("larger"));
        assert!(parse_msglog("a:b").is_err());
        assert!(parse_msglog("-1:3").is_err());
    }

    #[test]
    fn off_cache_reads_like_imb() {
        assert_eq!(parse_off_cache("-1").unwrap(), Some(OffCache::IMB_DEFAULT));
        assert_eq!(
            parse_off_cache("2.5").unwrap(),
            Some(OffCache {
                cache_bytes: 5 << 19,
                line: 64
            })
        );
        assert_eq!(
            parse_off_cache("16,128").unwrap(),
            Some(OffCache {
                cache_bytes: 16 << 20,
                line: 128
            })
        );
        assert_eq!(parse_off_cache("0").unwrap(), None);
        for bad in ["", "x", "16,", "16,0", "16,1.5", "nan", "1,2,3"] {
            assert!(parse_off_cache(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn process_count_sweep_is_pmb_5_1_1() {
        let c = Class::Collective;
        assert_eq!(process_counts(c, 1, 11, None), vec![2, 4, 8, 11]);
        assert_eq!(process_counts(c, 1, 8, None), vec![2, 4, 8]);
        assert_eq!(process_counts(c, 1, 2, None), vec![2]);
        assert_eq!(process_counts(c, 1, 3, None), vec![2, 3]);
        assert_eq!(process_counts(c, 1, 1, None), vec![1]);
        assert_eq!(process_counts(c, 1, 11, Some(5)), vec![5, 10, 11]);
        assert_eq!(process_counts(c, 1, 4, Some(4)), vec![4]);
        assert_eq!(
            process_counts(Class::ParallelTransfer, 1, 16, Some(3)),
            vec![3, 6, 12, 16]
        );
        assert_eq!(process_counts(Class::SingleTransfer, 2, 11, None), vec![2]);
        assert_eq!(process_counts(Class::SingleTransfer, 1, 4, None), vec![1]);
        assert_eq!(
            process_counts(Class::SingleTransfer, 2, 1, None),
            Vec::<usize>::new()
        );
    }
}

#[cfg(test)]
mod speak_tests {
    use super::*;

    #[test]
    fn errors_speak_the_front_ends_syntax() {
        let sp = vec![
            ("--iter 7".to_string(), "T7".to_string()),
            ("--iter".to_string(), "T".to_string()),
            ("--npmin".to_string(), "P_min".to_string()),
        ];
        assert_eq!(
            speak("--iter 7: too many (--mem)", &sp),
            "T7: too many (--mem)"
        );
        assert_eq!(speak("--npmin 8 is larger", &sp), "P_min 8 is larger");
        // Only whole words: --iter-policy and --min-iter stay.
        assert_eq!(
            speak("--iter-policy x --min-iter y, --iter", &sp),
            "--iter-policy x --min-iter y, T"
        );
        assert_eq!(speak("nothing here", &sp), "nothing here");
    }
}
