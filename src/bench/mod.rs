//! The benchmark contract.
//!
//! A [`Benchmark`] declares what it is ([`Info`]: name, suite, rank rule,
//! axes, element type, figures, placement) and, for each point of its sweep,
//! builds a [`Kernel`] outside the timed region. The kernel owns (or borrows
//! from the engine's arena) everything one repetition touches, frees what it
//! created on drop, and does nothing in [`Kernel::run`] but the measured MPI
//! calls. Timing, repetitions, synchronisation, statistics and output belong
//! to the engine and the methods (`crate::method`).
//!
//! Most benchmarks are buffer patterns ([`buf::Pattern`]): one small file
//! with the pattern, its buffer needs and what a correct receive buffer
//! holds; [`buf`] turns them into kernels.

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::comm::rma::{Window, WindowKind};
use crate::comm::{Buffer, Comm, Elem};
use crate::engine::axis::{Point, SweepCx};
use crate::engine::placement::{Placement, Role};
use crate::method::{Method, MpiCtx, RepBatch, Samples};

pub use definitions::Definitions;

pub mod allreduce;
pub mod buf;
pub mod caf;
pub mod clock;
pub mod commtest;
pub mod cresta;
pub mod datatype;
pub mod definitions;
pub mod entry;
pub mod guidelines;
pub mod imb;
pub mod imb_ext;
pub mod imb_mt;
pub mod imb_nbc;
pub mod imb_p2p;
pub mod imb_rma;
pub mod mpigraph;
pub mod mpitest;
pub mod osu;
pub mod overlap;
pub mod patterns;

/// What a clock tool (`clock::Tool`) reads of the run's plan: its axes
/// and `--iter`.
pub struct ToolCx<'a> {
    pub axes: &'a crate::engine::axis::Axes,
    pub iter: Option<usize>,
}

/// PMB's classification (PMB §4.1), which decides the process-count sweep
/// and how results are reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// One message between two processes (PingPong, PingPing).
    SingleTransfer,
    /// Many processes exchanging at once (Sendrecv, Exchange).
    ParallelTransfer,
    /// Collective operations.
    Collective,
    /// Measurements of the clocks themselves (timing, clocksync).
    Clock,
}

impl Class {
    pub fn label(self) -> &'static str {
        match self {
            Class::SingleTransfer => "single transfer",
            Class::ParallelTransfer => "parallel transfer",
            Class::Collective => "collective",
            Class::Clock => "clock",
        }
    }
}

/// Which process counts a benchmark can run on, and why not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RankRule {
    /// Fewest processes.
    pub min: usize,
    /// Needs an even number of processes (pairs i ↔ i + P/2 with everyone active).
    pub even: bool,
}

impl RankRule {
    pub const ANY: RankRule = RankRule {
        min: 1,
        even: false,
    };
    pub const PAIR: RankRule = RankRule {
        min: 2,
        even: false,
    };

    /// `Err(reason)` when `q` processes cannot run it.
    pub fn check(&self, name: &str, q: usize) -> Result<(), String> {
        if q < self.min {
            return Err(format!(
                "{name} needs at least {} processes, this run has {q}",
                self.min
            ));
        }
        if self.even && q % 2 != 0 {
            return Err(format!(
                "{name} needs an even number of processes, this run has {q}"
            ));
        }
        Ok(())
    }
}

/// How the points of a benchmark's sweep are made, unless it builds them itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    /// One point, no size (Barrier).
    None,
    /// The plan's message sizes in bytes.
    Bytes,
    /// The plan's sizes in bytes, read as N elements of the element type (`params.n`).
    Elems,
}

/// Iteration class: MPITEST's "fast" constructs (TIMING, BARRIER, SIGNAL
/// SENDING) use the `t` iterations, the others `T`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pace {
    Normal,
    Fast,
}

/// What a benchmark declares about itself.
#[derive(Debug)]
pub struct Info {
    pub name: &'static str,
    pub suite: &'static str,
    pub class: Class,
    pub ranks: RankRule,
    pub description: &'static str,
    /// The element type of its messages.
    pub elem: Elem,
    pub axis: Axis,
    /// Who is active and who partners whom inside the group of Q processes.
    pub placement: Placement,
    /// Reported time = measured time per repetition × `time_scale` (PingPong: 0.5).
    pub time_scale: f64,
    /// Throughput = `factor` × X / 1.048576 / t[usec] in MB/s (MB = 2^20 bytes); `None` where the suite defines none.
    pub throughput: Option<f64>,
    /// Has a root that `--root-shift` rotates.
    pub rooted: bool,
    pub pace: Pace,
    /// Sums typed elements (MPI_SUM): validation fills small integers.
    pub reduction: bool,
    /// A method this benchmark's definition requires, whatever the suite default.
    pub method: Option<Method>,
    /// Named variants that are values of an axis of its points (COMMTEST's
    /// protocols, ALLREDUCE's algorithms): (name, description), for `mpibench list`.
    pub variants: &'static [(&'static str, &'static str)],
    /// Other names it answers to (the coarray suite's compiler variants of
    /// one MPI operation); `mpibench list` shows them.
    pub aliases: &'static [&'static str],
    /// Validates every repetition whether or not `--check` is given (the
    /// coarray halo swap, which the seed always validates).
    pub validated: bool,
    /// The definitions (PMB v2.2, IMB 2021) whose default list has it; a
    /// name shared by benchmarks of different definitions resolves to the
    /// one of the run's definitions. Empty: it runs only when named.
    pub default_in: &'static [Definitions],
    /// The repetitions this benchmark's definition uses, whatever the
    /// suite default (OSU's iterations per kind of program).
    pub reps: Option<crate::suite::RepsDefault>,
    /// The name of its element type as its suite prints it and rows carry
    /// it (`params.datatype`), e.g. OSU's "MPI_CHAR"; set for the datatype
    /// a run chose ([`datatype::retype`]). `None`: not reported.
    pub datatype: Option<&'static str>,
    /// A derived datatype of its messages a run chose (OSU -D): one element
    /// of it per message instead of N elements of `elem`.
    pub derived: Option<&'static datatype::Derived>,
    /// Calls MPI from several threads at once: MPI is initialised with
    /// MPI_THREAD_MULTIPLE when a run names it (osu_latency_mt), and only then.
    pub thread_multiple: bool,
}

impl Info {
    /// The common case, for `..Info::DEFAULT` in benchmark declarations.
    pub const DEFAULT: Info = Info {
        name: "",
        suite: "",
        class: Class::Collective,
        ranks: RankRule::ANY,
        description: "",
        elem: Elem::Byte,
        axis: Axis::Bytes,
        placement: Placement::All,
        time_scale: 1.0,
        throughput: None,
        rooted: false,
        pace: Pace::Normal,
        reduction: false,
        method: None,
        variants: &[],
        aliases: &[],
        validated: false,
        default_in: Definitions::BOTH,
        reps: None,
        datatype: None,
        derived: None,
        thread_multiple: false,
    };
}

impl Info {
    /// Has a message size (Barrier has none).
    pub fn sized(&self) -> bool {
        self.axis != Axis::None
    }
}

/// What a kernel is built from: the group communicator, this rank's role,
/// the run's switches, and the engine's reusable buffers.
pub struct Setup<'a> {
    /// The Q processes of this process count (MY_COMM, PMB §5.2.2).
    pub comm: &'a Comm,
    pub role: Role,
    /// Rotate roots every repetition (`--root-shift`).
    pub root_shift: bool,
    /// Root of rooted collectives (`--root`; the first one when rotating),
    /// below the group's size.
    pub root: usize,
    /// `--off-cache`: cold data every repetition (buffer patterns).
    pub off_cache: Option<buf::OffCache>,
    pub arena: &'a mut Arena,
}

/// Buffers reused across the points of one benchmark and process count, as
/// PMB allocates them once for the largest length.
#[derive(Default)]
pub struct Arena {
    bufs: Vec<Buffer>,
    /// A one-sided window reused across the points (making one is
    /// collective, and slow with some libraries: 100 ms with MPICH 4 here).
    window: Option<Window>,
}

impl Arena {
    /// Two buffers of at least `send` and `recv` bytes (grown when needed).
    pub fn pair(&mut self, send: usize, recv: usize) -> Result<(&mut Buffer, &mut Buffer)> {
        self.ensure(&[send, recv])?;
        let (a, b) = self.bufs.split_at_mut(1);
        Ok((&mut a[0], &mut b[0]))
    }

    /// Buffers of at least `sizes[i]` bytes each (grown when needed).
    pub fn take(&mut self, sizes: &[usize]) -> Result<&mut [Buffer]> {
        self.ensure(sizes)?;
        Ok(&mut self.bufs[..sizes.len()])
    }

    /// Makes sure buffer i holds at least `sizes[i]` bytes.
    pub fn ensure(&mut self, sizes: &[usize]) -> Result<()> {
        for (i, &n) in sizes.iter().enumerate() {
            if i >= self.bufs.len() {
                self.bufs.push(alloc(n)?);
            } else if self.bufs[i].len() < n {
                self.bufs[i] = alloc(n)?;
            }
        }
        Ok(())
    }

    /// Collective over `comm` (every rank asks for the same): a window of
    /// `kind` with at least `len` bytes, its first `len` bytes zeroed, and
    /// buffers of at least `sizes` bytes. The window is made again only
    /// when the kind changes or it is too small.
    pub fn window(
        &mut self,
        comm: &Comm,
        kind: WindowKind,
        len: usize,
        sizes: &[usize],
    ) -> Result<(&mut Window, &mut [Buffer])> {
        if self
            .window
            .as_ref()
            .is_none_or(|w| w.kind() != kind || w.len() < len)
        {
            self.window = None;
            self.window = Some(Window::new(comm, kind, len)?);
        }
        self.ensure(sizes)?;
        let w = self.window.as_mut().expect("made above");
        w.zero(len);
        Ok((w, &mut self.bufs[..sizes.len()]))
    }

    /// Bytes held, for the memory accounting of tests.
    #[cfg(test)]
    pub fn held(&self) -> usize {
        self.bufs.iter().map(Buffer::len).sum()
    }
}

fn alloc(n: usize) -> Result<Buffer> {
    Buffer::try_new(n).map_err(|e| anyhow::anyhow!("cannot allocate {n} bytes: {e}"))
}

/// A benchmark of any suite: one small file and one registry line.
pub trait Benchmark: Sync {
    fn info(&self) -> &'static Info;

    /// The points of the sweep on `cx.q` processes (default: from [`Info::axis`]).
    fn points(&self, cx: &SweepCx) -> Vec<Point> {
        cx.default_points(self.info())
    }

    /// Who is active and who partners whom at a point (default: the
    /// benchmark's one placement, [`Info::placement`]); a benchmark whose
    /// points differ in pairing (the coarray ping-pong kinds) says so here.
    fn placement(&self, _p: &Point) -> Placement {
        self.info().placement
    }

    /// Bytes one rank needs at a point on `q` processes (checked against `--mem`).
    fn need(&self, p: &Point, q: usize) -> u64;

    /// Why a point cannot run (checked before any kernel is built), e.g. a
    /// reduction beyond the MPI count range.
    fn refuse(&self, _p: &Point, _q: usize) -> Option<String> {
        None
    }

    /// Builds the kernel of one point, outside any timed region. Collective
    /// over the group only in what it creates (communicators, windows).
    fn kernel<'a>(&'a self, s: Setup<'a>, p: &Point) -> Result<Box<dyn Kernel + 'a>>;

    /// Reported time = measured time per repetition × this at point `p`
    /// (default: the declaration's `time_scale`; OSU's one-sided latency
    /// programs halve their round trips under fence and pscw only).
    fn time_scale(&self, _p: &Point) -> f64 {
        self.info().time_scale
    }

    /// On rank 0, after the rows are assembled: figures that combine rows
    /// (e.g. an overlap from two scenarios, a latency/bandwidth fit over a
    /// packet sweep). Formatting stays with the reporters.
    fn derive(&self, _r: &mut crate::results::BenchResult) {}

    /// After `--launches N`, on the combined result (each row made from the
    /// same row of every launch, with `launch_medians_us`): the figures the
    /// benchmark can judge again over the launches. Default: none (each
    /// launch's figures stay with that launch).
    fn derive_combined(&self, _r: &mut crate::results::BenchResult) {}

    /// The same benchmark over another declaration of itself: `info` is its
    /// own with the element type and derived datatype a run chose
    /// ([`datatype::retype`]); `None` where its element type is fixed.
    fn retyped(&self, _info: &'static Info) -> Option<&'static dyn Benchmark> {
        None
    }
}

/// What one repetition does, and nothing else.
pub trait Kernel {
    /// One repetition: the measured MPI calls only.
    fn run(&mut self, rep: usize);

    /// Before a checked repetition, untimed: fill send data, poison receive buffers.
    fn prepare(&mut self, _rep: usize) {}

    /// Before the synchronisation of every repetition timed alone, untimed
    /// (after `prepare`): e.g. COMMTEST's prepost of the first receive. A
    /// kernel whose `run` is called without it (warm-up, loop timing) does
    /// it inside `run`.
    fn stage(&mut self, _rep: usize) {}

    /// After a checked repetition, untimed: the number of wrong elements received.
    fn verify(&mut self, _rep: usize) -> u64 {
        0
    }

    /// `--corrupt` test hook: damage received data after a repetition.
    fn corrupt(&mut self) {}

    /// The reference of delay subtraction: the delay alone, without the operation.
    fn reference(&mut self, _rep: usize) {}

    /// Split-completion timing (mpiGraph): starts the repetition's sends and
    /// receives without waiting for them (default: the whole repetition).
    fn start(&mut self, rep: usize) {
        self.run(rep)
    }

    /// Split-completion timing: whether this rank's sends (or receives) of
    /// the repetition begun by [`Kernel::start`] have completed; MPI test
    /// calls only (default: done, since `start` ran the whole repetition).
    fn test(&mut self, _side: Side) -> bool {
        true
    }

    /// Figures this rank measured besides the method's times since the last
    /// call, which resets them (e.g. the calc time a CRESTA scenario
    /// achieved). The engine drops those of the warm-up and puts the others,
    /// combined over the ranks that report them, into the row's `params`.
    fn figures(&mut self) -> Vec<Figure> {
        Vec::new()
    }

    /// Before the synchronisation of a batch of repetitions, untimed (IMB-EXT's
    /// aggregate modes: the MPI_Win_fence that opens the epoch).
    fn open(&mut self) {}

    /// After the repetitions of a batch, inside its clock pair: what
    /// completes them all at once (IMB-EXT's aggregate modes: the closing
    /// MPI_Win_fence). Methods that time each repetition alone call it after
    /// each one, inside its clock pair.
    fn close(&mut self) {}

    /// The most timed repetitions this point allows, whatever the policy
    /// plans (IMB's non-aggregate modes: MSGS_NONAGGR).
    fn most_reps(&self) -> Option<usize> {
        None
    }

    /// After the warm-up and before the timed repetitions, on every rank of
    /// the group, outside every timed region: the repetitions the point
    /// plans (before `--time` caps them). A kernel that measures a reference
    /// loop of its own first (IMB-NBC's pure loop of as many repetitions as
    /// the overlapped one) runs it here.
    fn planned(&mut self, _reps: usize) {}

    /// Runs `method` on this kernel: dispatched once per batch, and
    /// monomorphised per kernel type so that the timed loop calls `run`
    /// directly.
    fn measure(&mut self, method: Method, cx: &mut MpiCtx<'_>, batch: &RepBatch) -> Samples {
        crate::method::measure(method, self, cx, batch)
    }
}

/// The two halves of a split-completion repetition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Send,
    Recv,
}

/// How the ranks' values of a [`Figure`] become the row's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Combine {
    Mean,
    Min,
    Max,
    /// The value of the slowest rank: the one whose own mean time per
    /// repetition is the largest (IMB-NBC reports t_pure and t_CPU of the
    /// rank with the largest t_ovrl).
    Slowest,
}

/// A named value one rank measured at a point (see [`Kernel::figures`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    pub name: String,
    pub value: f64,
    pub combine: Combine,
}

impl Figure {
    pub fn new(name: &str, value: f64, combine: Combine) -> Figure {
        Figure {
            name: name.to_string(),
            value,
            combine,
        }
    }
}

/// Throughput in MB/s (MB = 2^20 bytes) for `factor` × `x` bytes moved in
/// `t_us` microseconds; none (null) where the time is not a positive figure
/// (no valid sample, or a difference of times at or below zero).
pub fn mbytes_per_sec(factor: f64, x: usize, t_us: f64) -> Option<f64> {
    (t_us.is_finite() && t_us > 0.0).then(|| factor * x as f64 / 1.048576 / t_us)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throughput_uses_mebibytes() {
        // 1 MiB in 1 second is exactly 1 MB/s.
        let mb = |f, x, t| mbytes_per_sec(f, x, t).unwrap();
        assert!((mb(1.0, 1 << 20, 1e6) - 1.0).abs() < 1e-12);
        // Sendrecv: 2X/1.048576/t; Exchange: 4X/1.048576/t.
        assert!((mb(2.0, 1_048_576, 1.0) - 2_000_000.0).abs() < 1e-6);
        assert!((mb(4.0, 1000, 2.0) - 4000.0 / 1.048576 / 2.0).abs() < 1e-9);
        assert_eq!(mb(1.0, 0, 3.0), 0.0);
        // No positive time, no throughput: neither 0 nor a huge figure.
        for t in [0.0, -0.5, -1e-9, f64::NAN, f64::INFINITY] {
            assert_eq!(mbytes_per_sec(1.0, 100, t), None, "{t}");
        }
    }

    #[test]
    fn rank_rules_give_reasons() {
        assert!(RankRule::PAIR.check("PingPong", 2).is_ok());
        let e = RankRule::PAIR.check("PingPong", 1).unwrap_err();
        assert!(e.contains("at least 2"), "{e}");
        let even = RankRule { min: 2, even: true };
        assert!(even.check("x", 4).is_ok());
        assert!(even.check("x", 3).unwrap_err().contains("even"));
    }

    #[test]
    fn arena_reuses_and_grows() {
        let mut a = Arena::default();
        a.pair(100, 10).unwrap();
        assert_eq!(a.held(), 110);
        a.pair(50, 10).unwrap();
        assert_eq!(a.held(), 110);
        let (s, r) = a.pair(200, 5).unwrap();
        assert_eq!((s.len(), r.len()), (200, 10));
    }
}
