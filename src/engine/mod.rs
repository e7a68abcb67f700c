//! The sweep every benchmark shares (PMB §5, Figure 5):
//!
//! ```text
//! for each benchmark, for each process count Q:
//!     MY_COMM = communicator of the Q active processes (or disjoint groups of Q with --multi)
//!     roles from the benchmark's placement
//!     PMB warm-up at the largest point (suites that ask for it)
//!     for each point of the benchmark's sweep:
//!         if in MY_COMM: build the kernel (untimed); all ranks agree it worked
//!                        warm-up; the method's timed batches; verify
//!         MPI_Barrier(MPI_COMM_WORLD)          <- inactive processes wait here
//!     gather per-rank records to rank 0 → rows
//! ```
//!
//! The engine owns synchronisation, repetitions, validation and the
//! statistics; the method (`crate::method`) owns where the clock reads go;
//! the benchmark owns only its pattern and figures.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use anyhow::{anyhow, Result};

use crate::clock::model::ClockModel;
use crate::clock::sync::{synchronize, SyncParams};
use crate::comm::{self, Comm, Msg};
use crate::contract::Method;
use crate::contract::{Arena, Benchmark, Info, Setup};
use crate::method::{Consts, MpiCtx, Samples, SyncMode};
use crate::results::{BenchResult, GroupRows, Row};
use crate::watchdog::{self, Watchdog};

pub mod aggregate;
mod config;
pub mod disturb;
pub mod launches;
pub mod placement;
mod point;
pub mod record;
mod reps;

pub use config::{Choices, Config, Faults, Watch};
pub use reps::Reps;

use crate::contract::{Placement, Role};
use crate::contract::{Point, SweepCx};
use disturb::Disturbance;
use placement::{Links, Pairs};
use record::{PointRecord, RankRecord, RowCx};

/// Why a run stopped early; every rank returns the same kind.
#[derive(Debug, thiserror::Error)]
pub enum Abort {
    /// --strict found a validation error (exit code 1).
    #[error("{0}")]
    Validation(String),
    /// A rank could not go on, e.g. an allocation failed (exit code 3).
    #[error("{0}")]
    RankFailure(String),
}

/// Inner repetitions of delay subtraction (the coarray suite's default).
pub const DELAY_INNER: usize = 200;

/// Outer repetitions (samples) of delay subtraction (the coarray suite's default).
pub const DELAY_OUTER: usize = 100;

/// Clock reads and barriers averaged for MPITEST's DT and DB.
const CALIBRATION_REPS: usize = 1000;

pub use crate::contract::RawSink;

pub struct Engine<'a> {
    pub world: &'a Comm,
    /// What the engine reads of the run.
    pub cfg: Config<'a>,
    pub watchdog: &'a Watchdog,
    /// Rank 0: where `--raw` samples go.
    pub raw: Option<RefCell<Box<dyn RawSink>>>,
    /// More ranks than cores on this node: waiting ranks yield their core.
    pub polite: bool,
    /// This rank's clock model onto world rank 0's clock, once synchronised.
    clock: RefCell<Option<ClockModel>>,
    /// DT and DB per process count, for the current run of the list.
    consts: RefCell<PerRun<Consts>>,
    /// The window width the last point of this benchmark ended with (seconds).
    window_hint: std::cell::Cell<f64>,
    /// Host of every world rank (index into `host_names`).
    host_of: Vec<usize>,
    host_names: Vec<String>,
    /// The group this rank belongs to in the running benchmark (Multi mode).
    my_group: Cell<usize>,
    /// World rank 0 of the announcements to ranks outside the group, when
    /// the running benchmark leaves ranks out (see [`Engine::announce`]).
    announcer: Cell<Option<usize>>,
    /// The repetitions the last point of this benchmark accepted (target-time rule).
    reps_hint: std::cell::Cell<usize>,
}

/// The values of a point combined over the synchronised ranks, identical on all of them.
#[derive(Debug, Default)]
struct Combo {
    /// Per sample: the method's value (seconds, per sample, not yet per repetition).
    values: Vec<f64>,
    late: Vec<bool>,
    /// Per sample: max(end) − min(start) and max(start) − min(start) on the global clock.
    global: Vec<f64>,
    skew: Vec<f64>,
}

impl Combo {
    fn valid(&self, v: &[f64], per: f64, scale: f64) -> Vec<f64> {
        v.iter()
            .zip(&self.late)
            .filter(|(_, &l)| !l)
            .map(|(&x, _)| x / per * scale)
            .collect()
    }
}

/// Values measured once per process count and run of the list (MPITEST's
/// DT and DB): [`PerRun::next_run`] forgets them, so that each of the R
/// runs measures its own, as the seed repeats the whole test.
struct PerRun<T> {
    by_q: HashMap<usize, T>,
}

impl<T> Default for PerRun<T> {
    fn default() -> PerRun<T> {
        PerRun {
            by_q: HashMap::new(),
        }
    }
}

impl<T: Copy> PerRun<T> {
    fn get(&self, q: usize) -> Option<T> {
        self.by_q.get(&q).copied()
    }

    /// The value for `q` processes in this run, measured by `f` if not yet.
    fn get_or(&mut self, q: usize, f: impl FnOnce() -> T) -> T {
        *self.by_q.entry(q).or_insert_with(f)
    }

    fn next_run(&mut self) {
        self.by_q.clear();
    }
}

/// How the world's ranks take part in one benchmark (see `Engine::arrange`).
struct Arranged {
    used: Vec<Placement>,
    links: Links,
    pairs: Pairs,
    members: Vec<Vec<usize>>,
}

impl<'a> Engine<'a> {
    pub fn new(
        world: &'a Comm,
        cfg: Config<'a>,
        watchdog: &'a Watchdog,
        raw: Option<RefCell<Box<dyn RawSink>>>,
        polite: bool,
    ) -> Engine<'a> {
        Engine {
            world,
            cfg,
            watchdog,
            raw,
            polite,
            clock: RefCell::new(None),
            consts: RefCell::new(PerRun::default()),
            window_hint: std::cell::Cell::new(0.0),
            host_of: vec![0; world.size],
            host_names: vec![String::new()],
            my_group: Cell::new(0),
            announcer: Cell::new(None),
            reps_hint: std::cell::Cell::new(1),
        }
    }

    /// The host of every world rank (`MPI_Get_processor_name`, gathered
    /// once by the caller), for host-aware placement and the results.
    pub fn with_hosts(mut self, names: &[String]) -> Engine<'a> {
        (self.host_names, self.host_of) = placement::host_index(names);
        self
    }

    fn host_name(&self, world_rank: usize) -> String {
        self.host_of
            .get(world_rank)
            .and_then(|&h| self.host_names.get(h))
            .cloned()
            .unwrap_or_default()
    }

    /// The global clock, synchronised on first use. Collective over the
    /// world: every rank reaches the same first use, since all run the same cfg.
    fn clock(&self) -> ClockModel {
        if let Some(c) = *self.clock.borrow() {
            return c;
        }
        let c = synchronize(self.world, SyncParams::default());
        *self.clock.borrow_mut() = Some(c);
        c
    }

    /// Runs one benchmark on `q` processes (per group). Collective over the
    /// world; returns the result on rank 0.
    pub fn run(&self, b: &dyn Benchmark, q: usize) -> Result<Option<BenchResult>> {
        let world = self.world;
        let cfg = &self.cfg;
        let info = b.info();
        let method = cfg.method_for(info);
        let sync = cfg.sync_for(info);
        let clock = (sync == SyncMode::Window || method.wants_clock()).then(|| self.clock());
        let (points, note) = self.runnable_points(b, q);
        if points.is_empty() {
            return Ok((world.rank == 0).then(|| {
                let why = note.clone().unwrap_or_else(|| {
                    format!(
                        "{}: no point to run at these sizes on {q} processes",
                        info.name
                    )
                });
                skipped(info, q, cfg.multi, why)
            }));
        }
        let groups = if cfg.multi { world.size / q } else { 1 };
        let n_active = groups * q;
        let me = world.rank;
        let Arranged {
            used,
            links,
            pairs,
            members,
        } = match self.arrange(b, q, &points, groups) {
            Ok(a) => a,
            Err((reason, pairs)) => {
                return Ok((world.rank == 0).then(|| {
                    let mut r = skipped(info, q, cfg.multi, reason);
                    r.pairs = (pairs != Pairs::Any).then(|| pairs.name().to_string());
                    r
                }))
            }
        };
        let mine = members
            .iter()
            .enumerate()
            .find_map(|(g, m)| m.iter().position(|&w| w == me).map(|pos| (g, pos)));
        self.my_group.set(mine.map_or(0, |m| m.0));
        self.announcer
            .set((n_active < world.size).then(|| members[0][0]));
        self.watchdog.arm(format!("{} on {q} processes", info.name));
        let (ranks, hosts) = self.active_members(&used, &members);
        self.watchdog
            .hosts(placement::ranks_on_hosts(&ranks, &hosts));

        let (group, all_active) = self.split_groups(mine, groups > 1);
        let mut arena = Arena::default();
        self.window_hint.set(0.0);
        self.reps_hint.set(1);

        let outcome = self.points(
            b,
            q,
            &points,
            group.as_ref(),
            all_active.as_ref().or(group.as_ref()),
            clock,
            &mut arena,
        );
        self.watchdog.disarm();
        group.iter().for_each(|g| b.finished(g));
        let (mine, raw, disturbed, blocks) = outcome?;
        drop(arena);
        let _phase = crate::phases::span(crate::phases::Phase::Gather);
        let all = record::gather(world, &mine);
        let disturbed = gather_json(world, &disturbed);
        // Split-completion timing (mpiGraph): the repetitions in blocks,
        // repeated measurements of every pair for the outlier test.
        let blocks: Vec<SideBlocks> = if method.repeats_in_blocks() {
            gather_json(world, &blocks)
        } else {
            Vec::new()
        };
        if cfg.raw {
            self.write_raw(info, q, &points, &raw)?;
        }
        if me != 0 {
            return Ok(None);
        }
        let mut r = self.assemble(info, method, sync, q, &members, &points, &all);
        mark_disturbed(&mut r, &disturbed, self.polite);
        r.note = note;
        // Ranks of the groups that no placement used sat out (unpaired).
        r.sat_out = placement::sat_out(&members, &ranks);
        r.active = ranks.len();
        r.ranks = ranks;
        r.hosts = hosts;
        self.name_placement(&mut r, b, &points, &members, &links, pairs);
        // The blocks reach `Benchmark::derive` in `matrix.side_blocks`; a
        // benchmark that does not use them leaves no trace of them.
        if !blocks.is_empty() {
            r.matrix = Some(serde_json::json!({ "side_blocks": blocks }));
        }
        b.derive(&mut r);
        if r.matrix
            .as_ref()
            .is_some_and(|m| m.get("side_blocks").is_some())
        {
            r.matrix = None;
        }
        r.measured_params = measured_params(&points, &r.rows);
        Ok(Some(r))
    }

    /// MY_COMM (PMB §5.2.2): the group this rank belongs to (its group
    /// and place in it, `mine`), and, when groups of a Multi- run start
    /// together, the communicator of all active ranks they synchronise on.
    /// Every rank is in these world-wide calls: one that fails ends the job.
    fn split_groups(
        &self,
        mine: Option<(usize, usize)>,
        multi: bool,
    ) -> (Option<Comm>, Option<Comm>) {
        let _setup = crate::phases::span(crate::phases::Phase::Setup);
        let me = self.world.rank;
        let group = self
            .world
            .split(mine.map(|m| m.0), mine.map_or(me, |m| m.1))
            .unwrap_or_else(|e| e.end_job());
        let all_active = if multi {
            self.world
                .split(mine.is_some().then_some(0), me)
                .unwrap_or_else(|e| e.end_job())
        } else {
            None
        };
        (group, all_active)
    }

    /// `--raw`: every rank's samples, gathered to rank 0's sink.
    fn write_raw(&self, info: &Info, q: usize, points: &[Point], raw: &[[f64; 4]]) -> Result<()> {
        let bytes = serde_json::to_vec(raw).expect("raw samples serialise");
        let per_rank: Vec<Vec<[f64; 4]>> = self
            .world
            .gather_bytes(&bytes, 0)
            .iter()
            .map(|b| serde_json::from_slice(b).unwrap_or_default())
            .collect();
        if let Some(sink) = &self.raw {
            let sizes: Vec<usize> = points.iter().map(|p| p.bytes).collect();
            sink.borrow_mut().write(info.name, q, &sizes, &per_rank)?;
        }
        Ok(())
    }

    /// The result's pairing words: the kind of pair every group formed
    /// (or "mixed"), `--pairs`, and the placement (or "per point" when
    /// points pair ranks differently, each naming its own in params).
    fn name_placement(
        &self,
        r: &mut BenchResult,
        b: &dyn Benchmark,
        points: &[Point],
        members: &[Vec<usize>],
        links: &Links,
        pairs: Pairs,
    ) {
        let kinds: Vec<&str> = members
            .iter()
            .filter_map(|m| placement::pair_kind(links, m, &self.host_of))
            .collect();
        r.pair = kinds.first().map(|&k| {
            if kinds.iter().all(|&x| x == k) {
                k
            } else {
                "mixed"
            }
            .to_string()
        });
        r.pairs = (pairs != Pairs::Any).then(|| pairs.name().to_string());
        let mut names: Vec<String> = points.iter().map(|p| b.placement(p).name()).collect();
        names.dedup();
        if names.len() > 1 {
            r.placement = Some("per point".to_string());
        } else if let Some(n) = names.pop() {
            r.placement = Some(n);
        }
    }

    /// The placements the points use, their links, the pairing that
    /// applies, and which world ranks form each of `groups` groups, in
    /// which order (`--pairs`, or IMB's -map); or why no arrangement
    /// exists, with the pairing asked for.
    fn arrange(
        &self,
        b: &dyn Benchmark,
        q: usize,
        points: &[Point],
        groups: usize,
    ) -> Result<Arranged, (String, Pairs)> {
        let cfg = &self.cfg;
        // The partners of every point (they can change from point to point).
        let mut used: Vec<Placement> = Vec::new();
        for p in points {
            let pl = b.placement(p);
            if !used.contains(&pl) {
                used.push(pl);
            }
        }
        let links = Links::of(&used, q);
        // A benchmark that pairs every rank with every other (mpiGraph)
        // measures both kinds of pairs: --pairs does not apply to it.
        let pairs = if links.all_pairs {
            Pairs::Any
        } else {
            cfg.pairs
        };
        // IMB's -map excludes --pairs inter|intra.
        let arranged = match cfg.rank_order {
            Some(order) => Ok(order.groups(q, groups, self.world.size)),
            None => placement::arrange(&links, q, groups, &self.host_of, pairs),
        };
        match arranged {
            Ok(members) => Ok(Arranged {
                used,
                links,
                pairs,
                members,
            }),
            Err(reason) => Err((reason, pairs)),
        }
    }

    /// The points of `b` on `q` processes that can run, and why the first
    /// that cannot was left out (a refusal, a root outside the group, or
    /// a need above the memory limit).
    fn runnable_points(&self, b: &dyn Benchmark, q: usize) -> (Vec<Point>, Option<String>) {
        let cfg = &self.cfg;
        let info = b.info();
        let sweep = SweepCx {
            sizes: &cfg.sizes,
            axes: &cfg.axes,
            q,
        };
        let mut note: Option<String> = None;
        let points: Vec<Point> = cfg
            .definitions
            .points(info, b.points(&sweep))
            .into_iter()
            .filter_map(|p| info.typed_point(p))
            .filter(|p| {
                let why = b
                    .refuse(p, q)
                    .or_else(|| {
                        // --root (OSU -k fixed:R): a rank of the group.
                        (info.rooted && cfg.root >= q).then(|| {
                            format!(
                                "{}: root {} is not one of the {q} processes",
                                info.name, cfg.root
                            )
                        })
                    })
                    .or_else(|| {
                        let need = b.need(p, q);
                        (need > cfg.mem_bytes).then(|| self.too_big(info, p, q, need))
                    });
                if let Some(w) = why {
                    note.get_or_insert(w);
                    false
                } else {
                    true
                }
            })
            .collect();
        (points, note)
    }

    /// World ranks and hosts of the ranks that are active in the placement,
    /// group after group.
    fn active_members(
        &self,
        used: &[Placement],
        members: &[Vec<usize>],
    ) -> (Vec<usize>, Vec<String>) {
        let ranks: Vec<usize> = members
            .iter()
            .flat_map(|m| {
                let q = m.len();
                m.iter()
                    .enumerate()
                    .filter(move |&(g, _)| used.iter().any(|p| p.role(g, q).active))
                    .map(|(_, &w)| w)
            })
            .collect();
        let hosts = ranks.iter().map(|&w| self.host_name(w)).collect();
        (ranks, hosts)
    }

    /// Tells the ranks outside the group how long the point will take
    /// (seconds), so that their stall limit allows for it: a broadcast over
    /// the world from the first rank of the group, after its warm-up. Ranks
    /// outside the group wait for it sleeping when the node is oversubscribed.
    fn announce(&self, expected_s: f64) -> f64 {
        let _phase = crate::phases::span(crate::phases::Phase::Barrier);
        let Some(root) = self.announcer.get() else {
            return expected_s;
        };
        let mut v = [expected_s];
        let m = Msg::elems(comm::Elem::Double, 1).expect("one double");
        let mut req = comm::request_null();
        self.world.ibcast(v.as_mut_ptr().cast(), &m, root, &mut req);
        if self.polite {
            comm::wait_sleeping(
                std::slice::from_mut(&mut req),
                std::time::Duration::from_micros(500),
            );
        } else {
            comm::wait(&mut req);
        }
        v[0]
    }

    fn too_big(&self, info: &Info, p: &Point, q: usize, need: u64) -> String {
        let limit = self.cfg.mem_bytes;
        let what = if let Some(flag) = &self.cfg.buffer_limit {
            format!("the buffer limit of {limit} bytes ({flag})")
        } else {
            format!("the limit of {limit} bytes (--mem)")
        };
        format!(
            "points from {} skipped: {} needs {need} bytes per rank on {q} processes, above {what}",
            p.label(),
            info.name
        )
    }

    /// PMB §5.2.5: a few repetitions at the largest length, before the
    /// first point (untimed).
    fn warm_at_largest(
        &self,
        b: &dyn Benchmark,
        q: usize,
        points: &[Point],
        group: Option<&Comm>,
        arena: &mut Arena,
        reps: usize,
    ) -> Result<()> {
        let _phase = crate::phases::span(crate::phases::Phase::WarmUp);
        let largest = points.iter().max_by_key(|p| p.bytes).expect("points");
        let mut failure = self.injected_failure(b, largest);
        let mut kernel = None;
        let role = group.map(|g| b.placement(largest).role(g.rank, q));
        if let (Some(g), Some(role), true) = (group, role.as_ref(), failure.is_empty()) {
            match b.kernel(self.setup(g, role, arena), largest) {
                Ok(k) => kernel = Some(k),
                Err(e) => failure = format!("{:#}", ends_on_mpi_error(e)),
            }
        }
        self.agree(&failure)?;
        if let Some(k) = kernel.as_mut() {
            watchdog::expect(1);
            for i in 0..reps {
                k.run(i);
                watchdog::progress(1);
            }
        }
        Ok(())
    }

    /// The point loop of one benchmark and process count, on every rank.
    #[allow(clippy::too_many_arguments)]
    fn points(
        &self,
        b: &dyn Benchmark,
        q: usize,
        points: &[Point],
        group: Option<&Comm>,
        sync_comm: Option<&Comm>,
        clock: Option<ClockModel>,
        arena: &mut Arena,
    ) -> Result<PointsOutcome> {
        let info = b.info();
        let cfg = &self.cfg;
        let me = self.world.rank;
        let mut rec = RankRecord {
            rank: me,
            in_group: group.is_some(),
            points: Vec::new(),
        };
        let mut raw = Vec::new();
        let mut disturbed = Vec::new();
        let mut side_blocks = Vec::new();
        let warm_largest = cfg.warm_largest(info);
        if warm_largest > 0 {
            self.warm_at_largest(b, q, points, group, arena, warm_largest)?;
        }
        for (pi, p) in points.iter().enumerate() {
            let what = format!("{}, {}, {q} processes", info.name, p.label());
            comm::error::set_context(what.clone());
            if info.sized() {
                self.watchdog.at(what);
            }
            let mut failure = if warm_largest == 0 && pi == 0 {
                self.injected_failure(b, p)
            } else {
                String::new()
            };
            let mut kernel = None;
            let role = group.map(|g| b.placement(p).role(g.rank, q));
            let mine = group.zip(role.as_ref());
            if let (Some((g, role)), true) = (mine, failure.is_empty()) {
                if cfg.faults.fail_mpi_rank == Some(me) {
                    // Test hook: a call MPI must reject (a rank that does not exist).
                    g.send([0u8].as_ptr(), &Msg::small(0), g.size + 7, 0);
                }
                let _phase = crate::phases::span(crate::phases::Phase::Setup);
                let built = if cfg.faults.fail_mpi_setup_rank == Some(me) {
                    comm::test::refused_setup_call()
                        .map_err(anyhow::Error::from)
                        .and_then(|()| b.kernel(self.setup(g, role, arena), p))
                } else {
                    b.kernel(self.setup(g, role, arena), p)
                };
                match built {
                    Ok(k) => kernel = Some(k),
                    Err(e) => failure = format!("{:#}", ends_on_mpi_error(e)),
                }
            }
            self.agree(&failure)?;
            let mut bad = false;
            // Seconds this rank spent measuring the point (IMB -msg_pause).
            let mut spent_s = 0.0;
            if mine.is_none() {
                // Outside the group: told how long to wait (see `announce`).
                watchdog::waiting(self.announce(0.0));
            }
            if let (Some(k), Some((g, role)), Some(sc)) = (kernel.as_mut(), mine, sync_comm) {
                let started = std::time::Instant::now();
                let time_scale = b.time_scale(p);
                let (mut prec, samples, dist) =
                    self.measure(info, p, q, time_scale, role, sc, clock, k.as_mut());
                spent_s = started.elapsed().as_secs_f64();
                disturbed.extend(dist.map(|d| Disturbance {
                    point: pi,
                    group: self.my_group.get(),
                    ..d
                }));
                if !samples.sides.is_empty() {
                    side_blocks.push(side_blocks_of(pi, g.rank, &samples, time_scale));
                }
                prec.group_rank = Some(g.rank);
                bad = prec.errors > 0;
                if cfg.raw {
                    raw.extend(raw_rows(pi, &samples, clock));
                }
                rec.points.push(prec);
            }
            drop(kernel);
            // PMB Figure 5: MPI_Barrier(MPI_COMM_WORLD) after each message
            // length (with --strict, an agreement on errors instead).
            if self.end_of_point(bad) {
                return Err(self.strict_failure(info, p, q, &rec));
            }
            if cfg.pause_after_point {
                // After the barrier that ends the point,
                // outside every timed region; the watchdog is told.
                let pause = pause_s(spent_s);
                watchdog::waiting(pause);
                std::thread::sleep(std::time::Duration::from_secs_f64(pause));
            }
            watchdog::waiting(0.0);
        }
        Ok((rec, raw, disturbed, side_blocks))
    }

    fn setup<'s>(&self, g: &'s Comm, role: &Role, arena: &'s mut Arena) -> Setup<'s> {
        Setup {
            comm: g,
            role: role.clone(),
            root_shift: self.cfg.root_shift,
            root: self.cfg.root,
            off_cache: self.cfg.off_cache,
            arena,
        }
    }

    /// The `--fail-alloc-rank` test hook.
    fn injected_failure(&self, b: &dyn Benchmark, p: &Point) -> String {
        if self.cfg.faults.fail_alloc_rank == Some(self.world.rank) {
            format!(
                "cannot allocate {} bytes for {} (injected failure)",
                b.need(p, self.world.size),
                b.info().name
            )
        } else {
            String::new()
        }
    }

    /// The most repetitions of one PMB loop between two progress reports,
    /// with the stall limit S on: a loop expected to take longer than
    /// S/[`CHUNKS_PER_STALL_LIMIT`] (from the warm-up) is timed in chunks of
    /// equal size, each with its own synchronisation and clock pair; the
    /// time per repetition is the total over all repetitions. Without the
    /// stall limit (or with --check, which times every call) PMB's single
    /// clock pair stays.
    fn loop_chunk(&self, method: Method, per_call: f64) -> Option<usize> {
        let s = self.cfg.watch.stall_limit_s.filter(|&s| s > 0.0)?;
        (!method.per_repetition() && !self.cfg.check)
            .then(|| ((s / CHUNKS_PER_STALL_LIMIT / per_call.max(1e-9)).floor() as usize).max(1))
    }

    /// Starts another run of the whole list (`--repeats`, MPITEST's R): as
    /// the seed repeats the whole test, DT and DB are measured again. Every
    /// rank calls it at the same point.
    pub fn next_repeat(&self) {
        self.consts.borrow_mut().next_run();
    }

    /// The method's constants on `q` processes (MPITEST's DT and DB),
    /// measured once per process count and run of the list (see
    /// [`Engine::next_repeat`]); one method of a run calibrates.
    fn calibrated(&self, method: Method, q: usize, sc: &Comm) -> Consts {
        let _phase = crate::phases::span(crate::phases::Phase::Agree);
        if let Some(c) = self.consts.borrow().get(q) {
            return c;
        }
        let n = self
            .cfg
            .fast_iter
            .unwrap_or(CALIBRATION_REPS)
            .min(CALIBRATION_REPS);
        let mut cx = MpiCtx::new(
            sc,
            SyncMode::Barrier,
            None,
            Consts::default(),
            (0.0, 0.0),
            false,
        );
        self.consts
            .borrow_mut()
            .get_or(q, || method.calibrate(&mut cx, n))
    }

    /// Combines one batch over the synchronised ranks (collective on `sc`),
    /// in one reduction: the maximum duration of the ranks that count, late
    /// starts, and with synchronised clocks the global start and end.
    fn combine(
        &self,
        sc: &Comm,
        s: &Samples,
        counts: bool,
        clock: Option<ClockModel>,
        method: Method,
        out: &mut Combo,
    ) {
        let _phase = crate::phases::span(crate::phases::Phase::Combine);
        let n = s.dur.len();
        let parts = if clock.is_some() { 5 } else { 2 };
        let mut v = Vec::with_capacity(parts * n);
        let gone = f64::NEG_INFINITY;
        v.extend(s.dur.iter().map(|&d| if counts { d } else { gone }));
        v.extend(s.late.iter().map(|&l| f64::from(u8::from(l))));
        if let Some(cm) = clock {
            let active = counts || method.global_value();
            let g = |t: f64| if active { cm.to_global(t) } else { f64::NAN };
            v.extend(
                s.start
                    .iter()
                    .map(|&t| g(t))
                    .map(|t| if t.is_nan() { gone } else { -t }),
            );
            v.extend(
                s.start
                    .iter()
                    .map(|&t| g(t))
                    .map(|t| if t.is_nan() { gone } else { t }),
            );
            v.extend(
                s.end
                    .iter()
                    .map(|&t| g(t))
                    .map(|t| if t.is_nan() { gone } else { t }),
            );
        }
        sc.allreduce_max_vec(&mut v);
        out.values.extend_from_slice(&v[..n]);
        out.late.extend(v[n..2 * n].iter().map(|&l| l > 0.0));
        if clock.is_some() {
            let min_start: Vec<f64> = v[2 * n..3 * n].iter().map(|x| -x).collect();
            let (max_start, max_end) = (&v[3 * n..4 * n], &v[4 * n..5 * n]);
            out.global
                .extend(crate::method::global_span(&min_start, max_end));
            out.skew
                .extend(crate::method::start_skew(&min_start, max_start));
        }
    }

    /// Collective over the world: fails everywhere if `failure` is set on any rank,
    /// with that rank's number and message.
    /// The ranks agree on whether any could not build its kernel (see
    /// [`ends_on_mpi_error`] for what cannot wait for the agreement).
    fn agree(&self, failure: &str) -> Result<()> {
        let _phase = crate::phases::span(crate::phases::Phase::Agree);
        let any = self
            .world
            .allreduce_max(if failure.is_empty() { 0.0 } else { 1.0 });
        if any == 0.0 {
            return Ok(());
        }
        let msgs = self.world.gather_strings(failure, 0);
        let detail: Vec<String> = msgs
            .iter()
            .enumerate()
            .filter(|(_, m)| !m.is_empty())
            .map(|(r, m)| format!("rank {r}: {m}"))
            .collect();
        Err(Abort::RankFailure(if detail.is_empty() {
            "a rank failed".to_string()
        } else {
            detail.join("; ")
        })
        .into())
    }

    /// End of a point: the world barrier of PMB, or with --strict an
    /// agreement on whether any rank saw a validation error. On an
    /// oversubscribed node the barrier sleeps while it waits, so that ranks
    /// outside the group leave the cores to the ranks that measure.
    fn end_of_point(&self, bad: bool) -> bool {
        let _phase = crate::phases::span(crate::phases::Phase::Barrier);
        if self.cfg.strict {
            self.world.allreduce_max(if bad { 1.0 } else { 0.0 }) > 0.0
        } else {
            if self.polite {
                self.world
                    .sleeping_barrier(std::time::Duration::from_micros(500));
            } else {
                self.world.barrier();
            }
            false
        }
    }

    /// --strict: the ranks that saw errors, named on every rank's error.
    fn strict_failure(&self, info: &Info, p: &Point, q: usize, rec: &RankRecord) -> anyhow::Error {
        let mine = rec.points.last().is_some_and(|r| r.errors > 0);
        let flags = self.world.gather_f64(&[if mine { 1.0 } else { 0.0 }], 0);
        let ranks: Vec<String> = flags
            .iter()
            .enumerate()
            .filter(|(_, &f)| f > 0.0)
            .map(|(r, _)| r.to_string())
            .collect();
        anyhow!(Abort::Validation(format!(
            "validation error in {} at {} on {q} processes (rank {}; --strict)",
            info.name,
            p.label(),
            ranks.join(", ")
        )))
    }

    /// Rank 0: per-rank records → rows (PMB §6: t_min, t_max, t_avg over active processes).
    #[allow(clippy::too_many_arguments)]
    fn assemble(
        &self,
        info: &Info,
        method: Method,
        sync: SyncMode,
        q: usize,
        groups_of: &[Vec<usize>],
        points: &[Point],
        all: &[RankRecord],
    ) -> BenchResult {
        let cfg = &self.cfg;
        let groups = groups_of.len();
        let n_active = groups * q;
        let members = |pi: usize, group: Option<usize>| -> Vec<&PointRecord> {
            all.iter()
                .filter(|r| r.in_group)
                .filter_map(|r| r.points.get(pi))
                .filter(|p| group.is_none_or(|g| p.group == g))
                .collect()
        };
        let row = |pi: usize, group: Option<usize>| {
            let cx = RowCx {
                info,
                method,
                point: &points[pi],
                checked: cfg.check_for(info),
            };
            let mut r = record::row(&cx, &members(pi, group));
            if let Some(n) = partial_element(info, points[pi].bytes) {
                r.note = Some(match r.note.take() {
                    // The point's own note first (no valid sample keeps its place).
                    Some(old) if old.starts_with("no valid sample") => format!("{old}; {n}"),
                    Some(old) => format!("{n}; {old}"),
                    None => n,
                });
            }
            r
        };
        let rows: Vec<Row> = (0..points.len()).map(|pi| row(pi, None)).collect();
        let group_rows = if cfg.multi && cfg.multi_detail {
            (0..groups)
                .map(|gi| GroupRows {
                    group: gi,
                    ranks: groups_of[gi].clone(),
                    rows: (0..points.len()).map(|pi| row(pi, Some(gi))).collect(),
                })
                .collect()
        } else {
            Vec::new()
        };
        let consts = self.consts.borrow().get(q);
        BenchResult {
            benchmark: info.name.to_string(),
            suite: info.suite.to_string(),
            class: info.class.label().to_string(),
            processes: q,
            mode: if cfg.multi { "multi" } else { "primary" }.to_string(),
            groups,
            active: n_active,
            skipped: None,
            note: None,
            method: Some(method.name().to_string()),
            // The method's own synchronisation (plan::sync_for).
            sync: Some(sync.name().to_string()),
            placement: Some(info.placement.name()),
            datatype: Some(info.elem.mpi_name().to_string()),
            definitions: Some(cfg.definitions.name().to_string()),
            dt_us: consts.map(|c| c.dt * 1e6),
            db_us: consts.map(|c| c.db * 1e6),
            rows,
            group_rows,
            ..BenchResult::default()
        }
    }
}

/// The keys of the rows' params that no point chose: the figures the
/// kernels measured ([`crate::contract::Kernel::figures`]) and those
/// [`Benchmark::derive`] added (CRESTA's t_sc1_us, overlaps).
fn measured_params(points: &[Point], rows: &[Row]) -> Vec<String> {
    let chosen: std::collections::BTreeSet<&String> =
        points.iter().flat_map(|p| p.params.keys()).collect();
    let measured: std::collections::BTreeSet<&String> = rows
        .iter()
        .flat_map(|r| r.params.keys())
        .filter(|k| !chosen.contains(k))
        .collect();
    measured.into_iter().cloned().collect()
}

/// What the point loop of one benchmark leaves on a rank: its record, its
/// raw samples, its disturbances and its split-completion blocks.
/// `--raw`'s rows of one point on this rank: (point, repetition or -1 for
/// a loop, start, end), on the global clock where there is one.
fn raw_rows(pi: usize, samples: &Samples, clock: Option<ClockModel>) -> Vec<[f64; 4]> {
    (0..samples.dur.len())
        .map(|i| {
            let (s, e) = (samples.start[i], samples.end[i]);
            let (s, e) = match clock {
                Some(c) => (c.to_global(s), c.to_global(e)),
                None => (s, e),
            };
            let rep = if samples.reps_per_sample == 1 {
                i as f64
            } else {
                -1.0
            };
            [pi as f64, rep, s, e]
        })
        .collect()
}

/// Split-completion timing's blocks of one point on this rank (µs).
fn side_blocks_of(pi: usize, rank: usize, samples: &Samples, time_scale: f64) -> SideBlocks {
    let scale = time_scale * 1e6;
    SideBlocks {
        point: pi,
        rank,
        blocks: blocks_of(&samples.sides, SIDE_BLOCKS)
            .into_iter()
            .map(|[a, b]| [a * scale, b * scale])
            .collect(),
    }
}

type PointsOutcome = (RankRecord, Vec<[f64; 4]>, Vec<Disturbance>, Vec<SideBlocks>);

/// Every rank's items, on rank 0 (collective over the world).
fn gather_json<T: serde::Serialize + serde::de::DeserializeOwned>(
    world: &Comm,
    mine: &[T],
) -> Vec<T> {
    let bytes = serde_json::to_vec(mine).expect("records serialise");
    world
        .gather_bytes(&bytes, 0)
        .iter()
        .flat_map(|b| serde_json::from_slice::<Vec<T>>(b).unwrap_or_default())
        .collect()
}

/// Blocks of the repetitions of a split-completion point (mpiGraph's
/// repeated measurements of each pair).
pub const SIDE_BLOCKS: usize = 5;

/// One rank's split-completion times of one point in [`SIDE_BLOCKS`]
/// blocks of its repetitions: per block, the mean time until the sends and
/// until the receives completed (µs, scaled).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SideBlocks {
    pub point: usize,
    /// The rank's place in its group.
    pub rank: usize,
    pub blocks: Vec<[f64; 2]>,
}

/// The means of `v` over `k` consecutive blocks of equal size (fewer when
/// there are fewer values).
fn blocks_of(v: &[[f64; 2]], k: usize) -> Vec<[f64; 2]> {
    let mut at = 0;
    chunks(v.len(), Some(v.len().div_ceil(k.max(1)).max(1)))
        .into_iter()
        .filter(|&n| n > 0)
        .map(|n| {
            let part = &v[at..at + n];
            at += n;
            let mean = |i: usize| part.iter().map(|x| x[i]).sum::<f64>() / n as f64;
            [mean(0), mean(1)]
        })
        .collect()
}

/// Marks the rows of disturbed points (`disturbed`, and a note with the
/// stall), from the disturbances every rank of the group reported alike.
/// Where ranks share cores, the note says the stall may be the scheduler's.
fn mark_disturbed(r: &mut BenchResult, all: &[Disturbance], shared_cores: bool) {
    let mark = |row: &mut Row, d: &Disturbance| {
        if d.last.is_some() {
            row.disturbed = Some(true);
        }
        let mut n = d.note();
        if shared_cores {
            n.push_str(" (ranks share cores: the scheduler may have made the stall)");
        }
        row.note = Some(match row.note.take() {
            Some(old) => format!("{old}; {n}"),
            None => n,
        });
    };
    // The worst of the groups for the rows over all groups.
    for (pi, row) in r.rows.iter_mut().enumerate() {
        let of_point = all.iter().filter(|d| d.point == pi);
        let worst = of_point.max_by(|a, b| {
            let key = |d: &Disturbance| {
                (
                    d.last.is_some(),
                    d.last.map_or(d.first.stall_s, |s| s.stall_s),
                )
            };
            let (ka, kb) = (key(a), key(b));
            ka.0.cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
        });
        if let Some(d) = worst {
            mark(row, d);
        }
    }
    for g in &mut r.group_rows {
        for (pi, row) in g.rows.iter_mut().enumerate() {
            if let Some(d) = all.iter().find(|d| d.point == pi && d.group == g.group) {
                mark(row, d);
            }
        }
    }
}

/// A long PMB loop is timed in chunks planned to take S/400 each at the
/// warm-up's pace (S: the stall limit), so that a chunk still ends within S
/// when the loop runs 400 times slower than its warm-up. Beside jobs that
/// poll both cores, a 1 MiB PingPong warmed up at 51 us per repetition ran
/// at 4 ms (80 times): chunks of S/40 then took 2 S, and the watchdog took
/// a slow loop for a hung one.
pub const CHUNKS_PER_STALL_LIMIT: f64 = 400.0;

/// `n` repetitions in batches of at most `max` (None: one batch), of equal
/// sizes (differing by one at most).
fn chunks(n: usize, max: Option<usize>) -> Vec<usize> {
    let c = match max {
        Some(m) if m > 0 && n > m => n.div_ceil(m),
        _ => return vec![n],
    };
    (0..c).map(|i| n / c + usize::from(i < n % c)).collect()
}

/// Runs `n` repetitions from `first` through `run`, in chunks (see `chunks`).
/// The timed batches of a point: the engine's `run` (the kernel's timed
/// loop, then the combination over the group) on its MPI context.
struct Runner<'r, 'c, R> {
    run: &'r mut R,
    cx: &'r mut MpiCtx<'c>,
    chunk: Option<usize>,
    sc: &'c Comm,
}

impl<R> reps::Batches for Runner<'_, '_, R>
where
    R: FnMut(&mut MpiCtx, usize, usize, &mut Samples, &mut Combo),
{
    fn run(&mut self, first: usize, n: usize, s: &mut Samples, c: &mut Combo) {
        chunked_from(self.run, self.cx, first, n, self.chunk, s, c);
    }

    fn run_walled(&mut self, n: usize, s: &mut Samples, c: &mut Combo) -> f64 {
        let w0 = comm::wtime();
        (self.run)(self.cx, 0, n, s, c);
        self.sc.allreduce_max(comm::wtime() - w0)
    }
}

fn chunked_from<R>(
    run: &mut R,
    cx: &mut MpiCtx,
    first: usize,
    n: usize,
    chunk: Option<usize>,
    s: &mut Samples,
    c: &mut Combo,
) where
    R: FnMut(&mut MpiCtx, usize, usize, &mut Samples, &mut Combo),
{
    let mut at = first;
    for len in chunks(n, chunk) {
        run(cx, at, len, s, c);
        at += len;
    }
}

/// PMB's reductions take L = X/4 elements: say so where X is not a multiple.
fn partial_element(info: &Info, x: usize) -> Option<String> {
    let k = info.elem.size();
    (info.reduction && x % k != 0).then(|| {
        format!(
            "{x} bytes hold {} {} (L = X/{k}): the call reduces {} bytes",
            x / k,
            info.elem.mpi_name(),
            x / k * k
        )
    })
}

/// A result entry for a benchmark that cannot run at this process count.
pub fn skipped(info: &Info, q: usize, multi: bool, reason: String) -> BenchResult {
    BenchResult {
        benchmark: info.name.to_string(),
        suite: info.suite.to_string(),
        class: info.class.label().to_string(),
        processes: q,
        mode: if multi { "multi" } else { "primary" }.to_string(),
        groups: 0,
        active: 0,
        skipped: Some(reason),
        ..BenchResult::default()
    }
}

/// `--msg-pause` (IMB's `-msg_pause`): after a point a rank sleeps a tenth of the
/// time it spent on it, and at least 0.1 s (seconds).
fn pause_s(spent_s: f64) -> f64 {
    (spent_s / 10.0).max(0.1)
}

/// What a rank does with an error from a setup step (building a kernel, a
/// tool's run): a failed MPI call (`comm::Error::Call`) ends the job at
/// once, with its one line and exit code 3, since other ranks may wait
/// inside the same collective call and could never agree on it; any other
/// error (memory, a refused size) is returned for the ranks to agree on.
pub fn ends_on_mpi_error(e: anyhow::Error) -> anyhow::Error {
    if let Some(c) = e
        .chain()
        .find_map(|c| c.downcast_ref::<comm::Error>())
        .filter(|c| c.is_call())
    {
        c.end_job()
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::imb;

    #[test]
    fn the_pause_is_a_tenth_and_at_least_a_tenth_of_a_second() {
        assert_eq!(pause_s(0.0), 0.1);
        assert_eq!(pause_s(0.5), 0.1);
        assert!((pause_s(3.0) - 0.3).abs() < 1e-12);
    }

    #[test]
    fn long_loops_split_into_equal_chunks() {
        assert_eq!(chunks(10, None), vec![10]);
        assert_eq!(chunks(10, Some(20)), vec![10]);
        assert_eq!(chunks(10, Some(3)), vec![3, 3, 2, 2]);
        assert_eq!(chunks(100_000, Some(1500)).len(), 67);
        for n in 1..200 {
            for m in 1..20 {
                let c = chunks(n, Some(m));
                assert_eq!(c.iter().sum::<usize>(), n);
                assert!(c.iter().all(|&x| x <= m && x + 1 >= c[0]));
            }
        }
    }

    #[test]
    fn split_times_fall_into_blocks() {
        let v: Vec<[f64; 2]> = (0..10).map(|i| [i as f64, 2.0 * i as f64]).collect();
        let b = blocks_of(&v, 5);
        assert_eq!(
            b,
            vec![[0.5, 1.0], [2.5, 5.0], [4.5, 9.0], [6.5, 13.0], [8.5, 17.0]]
        );
        assert_eq!(blocks_of(&v[..3], 5).len(), 3);
        assert!(blocks_of(&[], 5).is_empty());
    }

    #[test]
    fn measured_params_are_the_keys_no_point_chose() {
        let points = vec![
            Point::bytes(0).with("t_calc_us", 64u64),
            Point::bytes(0).with("t_calc_us", 128u64),
        ];
        let rows: Vec<Row> = points
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let mut params = p.params.clone();
                params.insert("t_calc_achieved_us".into(), 65.0.into());
                if i == 1 {
                    params.insert("b_extra".into(), 1.0.into());
                }
                Row {
                    params,
                    ..Row::default()
                }
            })
            .collect();
        assert_eq!(
            measured_params(&points, &rows),
            ["b_extra", "t_calc_achieved_us"]
        );
        assert!(measured_params(&points, &[]).is_empty());
    }

    #[test]
    fn calibrations_are_measured_again_in_each_run_of_the_list() {
        let mut c: PerRun<f64> = PerRun::default();
        let mut measured = 0;
        let mut measure = |v: f64| {
            measured += 1;
            v
        };
        assert_eq!(c.get_or(4, || measure(1.0)), 1.0);
        assert_eq!(c.get_or(4, || measure(2.0)), 1.0);
        assert_eq!(c.get_or(2, || measure(3.0)), 3.0);
        assert_eq!(c.get(4), Some(1.0));
        // The next repeat measures again.
        c.next_run();
        assert_eq!(c.get(4), None);
        assert_eq!(c.get_or(4, || measure(5.0)), 5.0);
        assert_eq!(measured, 3);
    }

    #[test]
    fn partial_elements_are_named() {
        let ar = imb::find("Allreduce").unwrap().info();
        assert!(partial_element(ar, 3).unwrap().contains("0 MPI_FLOAT"));
        assert!(partial_element(ar, 9).unwrap().contains("2 MPI_FLOAT"));
        assert_eq!(partial_element(ar, 8), None);
        assert_eq!(partial_element(imb::find("Bcast").unwrap().info(), 3), None);
    }
}
