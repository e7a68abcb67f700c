//! What a benchmark declares about itself: [`Info`], its class and its rank rule.

use super::axis::{Axis, Point};
use super::definitions::Definitions;
use super::placement::Placement;
use super::reps::RepsDefault;
use super::Method;
use crate::comm::{Derived, Elem, Msg};
use crate::results::BenchResult;

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

/// A result's class is a [`Class`] label; the classes are the contract's,
/// so this is where a result is asked about its class.
impl BenchResult {
    /// Whether the result measures the instruments themselves (the clock
    /// tools' class): its rows hold no communication times to compare, plot
    /// or judge.
    pub fn measures_instruments(&self) -> bool {
        self.class == Class::Clock.label()
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
    pub reps: Option<RepsDefault>,
    /// The name of its element type as its suite prints it and rows carry
    /// it (`params.datatype`), e.g. OSU's "MPI_CHAR"; set for the datatype
    /// a run chose ([`crate::bench::datatype::retype`]). `None`: not reported.
    pub datatype: Option<&'static str>,
    /// A derived datatype of its messages a run chose (OSU -D): one element
    /// of it per message instead of N elements of `elem`.
    pub derived: Option<&'static Derived>,
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

impl Info {
    /// Elements of this benchmark's type in X bytes.
    pub fn elems(&self, x: usize) -> usize {
        x / self.elem.size()
    }

    /// The message of X bytes: its elements, or the derived datatype over them.
    pub fn msg(&self, x: usize) -> Result<Msg, crate::comm::Error> {
        Msg::of(self.elem, self.derived, self.elems(x))
    }

    /// How far apart the elements of its messages lie (2: resized elements).
    pub fn stretch(&self) -> usize {
        self.derived.map_or(1, Derived::stretch)
    }

    /// Bytes one message of X bytes touches in a buffer: X, or more where a
    /// derived datatype reaches beyond it (an index file, resized elements).
    pub fn span(&self, x: usize) -> usize {
        match self.derived {
            Some(d) => x.max(d.span(self.elems(x)) * self.elem.size()),
            None => x,
        }
    }

    /// A point under the run's datatype: its `datatype` (and derived
    /// datatype, transmitted bytes) in `params`; `None` where X bytes hold
    /// no element of a chosen type (OSU skips those sizes).
    pub fn typed_point(&self, p: Point) -> Option<Point> {
        let Some(name) = self.datatype else {
            return Some(p);
        };
        if p.bytes > 0 && self.elems(p.bytes) == 0 {
            return None;
        }
        let mut p = p.with("datatype", name);
        if let Some(d) = self.derived {
            let n = self.elems(p.bytes);
            p = p
                .with("derived", d.label())
                .with("transmit_bytes", (d.transmit(n) * self.elem.size()) as u64);
        }
        Some(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_rules_give_reasons() {
        assert!(RankRule::PAIR.check("PingPong", 2).is_ok());
        let e = RankRule::PAIR.check("PingPong", 1).unwrap_err();
        assert!(e.contains("at least 2"), "{e}");
        let even = RankRule { min: 2, even: true };
        assert!(even.check("x", 4).is_ok());
        assert!(even.check("x", 3).unwrap_err().contains("even"));
    }
}
