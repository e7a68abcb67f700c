//! The real [`Ctx`]: MPI_Wtime, MPI_Barrier on the synchronised ranks, and
//! the `--sync` modes, including window synchronisation on the global clock.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{Consts, Ctx};
use crate::clock::model::ClockModel;
use crate::comm::{self, Comm};

/// Synchronisation before a timed section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SyncMode {
    /// MPI_Barrier (PMB/IMB).
    Barrier,
    /// mpibench's own dissemination barrier from point-to-point messages.
    Dissemination,
    /// Synchronised clocks; every section starts at an agreed global time.
    Window,
    /// No synchronisation.
    None,
}

impl SyncMode {
    pub fn name(self) -> &'static str {
        match self {
            SyncMode::Barrier => "barrier",
            SyncMode::Dissemination => "dissemination",
            SyncMode::Window => "window",
            SyncMode::None => "none",
        }
    }
}

/// Repetitions between two agreements of the window schedule.
pub const CHUNK: usize = 32;
/// Fraction of late repetitions in a chunk above which the window doubles.
pub const WIDEN_ABOVE: f64 = 0.2;
/// The window never grows beyond this (seconds).
pub const MAX_WIDTH: f64 = 0.1;

/// The window schedule: repetition i of a chunk starts at t0 + (i − base)·width
/// on the global clock. After every chunk the ranks agree on a new t0 just
/// ahead of the latest rank's "now", so that a rank that was descheduled
/// catches up instead of staying behind a fixed schedule; when too many of
/// a chunk's repetitions were late, the window doubles.
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    /// Current width (seconds).
    pub width: f64,
    t0: f64,
    base: usize,
    in_chunk: usize,
    late_in_chunk: usize,
    /// How often the window was doubled.
    pub widened: u32,
}

impl Window {
    pub fn new(width: f64) -> Window {
        Window {
            width,
            t0: 0.0,
            base: 0,
            in_chunk: 0,
            late_in_chunk: 0,
            widened: 0,
        }
    }

    /// How far ahead of the agreed "now" the first slot opens.
    pub fn lead(&self) -> f64 {
        (4.0 * self.width).max(200e-6)
    }

    /// A start later than this after its slot counts as late: 2% of the
    /// window, at least 0.2 µs.
    pub fn tolerance(&self) -> f64 {
        (0.02 * self.width).max(0.2e-6)
    }

    /// Global start time of repetition `i`.
    pub fn slot(&self, i: usize) -> f64 {
        self.t0 + self.width * i.saturating_sub(self.base) as f64
    }

    /// Whether the chunk is over and the ranks must agree again.
    pub fn due(&self) -> bool {
        self.in_chunk >= CHUNK
    }

    /// The local values every rank contributes to an agreement (maximum over ranks).
    pub fn proposal(&self, now_global: f64) -> [f64; 2] {
        [self.late_in_chunk as f64, now_global]
    }

    /// Applies the agreed maxima: a new start just ahead of the latest rank,
    /// for repetition `next`, and a wider window if the chunk had too many late starts.
    pub fn agree(&mut self, agreed: [f64; 2], next: usize) {
        if self.in_chunk > 0
            && agreed[0] > WIDEN_ABOVE * self.in_chunk as f64
            && self.width < MAX_WIDTH
        {
            self.width = (2.0 * self.width).min(MAX_WIDTH);
            self.widened += 1;
        }
        self.t0 = agreed[1] + self.lead();
        self.base = next;
        self.in_chunk = 0;
        self.late_in_chunk = 0;
    }

    fn started(&mut self, late: bool) {
        self.in_chunk += 1;
        self.late_in_chunk += usize::from(late);
    }
}

/// The context of one point on one rank.
pub struct MpiCtx<'a> {
    comm: &'a Comm,
    mode: SyncMode,
    clock: ClockModel,
    consts: Consts,
    window: Option<Window>,
    /// Local time the last window slot opened, until `late` reads it.
    pending: Option<f64>,
    /// Oversubscribed node: yield the core while waiting for a slot.
    polite: bool,
}

impl<'a> MpiCtx<'a> {
    /// `clock` maps the local clock onto the global one (window sync);
    /// `window_s` is the initial window width.
    pub fn new(
        comm: &'a Comm,
        mode: SyncMode,
        clock: Option<ClockModel>,
        consts: Consts,
        window_s: f64,
        polite: bool,
    ) -> MpiCtx<'a> {
        MpiCtx {
            comm,
            mode,
            clock: clock.unwrap_or_default(),
            consts,
            window: (mode == SyncMode::Window).then(|| Window::new(window_s)),
            pending: None,
            polite,
        }
    }

    /// Collective: before a batch starting at repetition `first`, agree on
    /// where the window schedule starts.
    pub fn begin(&mut self, first: usize) {
        if self.window.is_some() {
            self.agree(first);
        }
    }

    fn agree(&mut self, next: usize) {
        let now = self.clock.to_global(comm::wtime());
        let w = self.window.as_mut().expect("window sync");
        let mut v = w.proposal(now);
        self.comm.allreduce_max_vec(&mut v);
        w.agree(v, next);
    }

    /// The window width in use now (seconds), with window synchronisation.
    pub fn window(&self) -> Option<&Window> {
        self.window.as_ref()
    }

    pub fn set_consts(&mut self, c: Consts) {
        self.consts = c;
    }

    /// Waits until local time `target`: sleeps while far from it, then spins
    /// (yielding the core on an oversubscribed node).
    fn wait_until(&self, target: f64) {
        let left = target - comm::wtime();
        if left > 2e-3 {
            std::thread::sleep(Duration::from_secs_f64(left - 1e-3));
        }
        while comm::wtime() < target {
            if self.polite {
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
    }
}

impl Ctx for MpiCtx<'_> {
    #[inline(always)]
    fn now(&self) -> f64 {
        comm::wtime()
    }

    fn barrier(&mut self) {
        self.comm.barrier();
    }

    fn sync(&mut self, i: usize) {
        match self.mode {
            SyncMode::Barrier => self.comm.barrier(),
            SyncMode::Dissemination => self.comm.dissemination_barrier(),
            SyncMode::None => {}
            SyncMode::Window => {
                if self.window.as_ref().is_some_and(Window::due) {
                    self.agree(i);
                }
                let w = self.window.as_ref().expect("window sync");
                let target = self.clock.to_local(w.slot(i));
                self.wait_until(target);
                self.pending = Some(target);
            }
        }
    }

    #[inline]
    fn late(&mut self, t0: f64) -> bool {
        let Some(target) = self.pending.take() else {
            return false;
        };
        let w = self.window.as_mut().expect("window sync");
        let late = t0 - target > w.tolerance();
        w.started(late);
        late
    }

    fn consts(&self) -> Consts {
        self.consts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_recovers_after_late_starts() {
        let mut w = Window::new(10e-6);
        w.agree([0.0, 1.0], 0);
        assert!((w.slot(0) - (1.0 + w.lead())).abs() < 1e-12);
        assert!((w.slot(3) - w.slot(0) - 30e-6).abs() < 1e-12);
        // A chunk with one late start out of 32: same width, new start after the latest rank.
        for i in 0..CHUNK {
            w.started(i == 5);
        }
        assert!(w.due());
        w.agree(w.proposal(2.0), 32);
        assert_eq!(w.width, 10e-6);
        assert!((w.slot(32) - (2.0 + w.lead())).abs() < 1e-12);
        assert!(!w.due());
        // Half late: the window doubles, and is reported as widened.
        for i in 0..CHUNK {
            w.started(i % 2 == 0);
        }
        w.agree(w.proposal(3.0), 64);
        assert_eq!(w.width, 20e-6);
        assert_eq!(w.widened, 1);
    }

    #[test]
    fn window_growth_is_bounded() {
        let mut w = Window::new(0.08);
        for _ in 0..CHUNK {
            w.started(true);
        }
        w.agree([CHUNK as f64, 0.0], 0);
        assert_eq!(w.width, MAX_WIDTH);
        for _ in 0..CHUNK {
            w.started(true);
        }
        w.agree([CHUNK as f64, 0.0], 0);
        assert_eq!(w.width, MAX_WIDTH);
    }

    #[test]
    fn tolerance_scales_with_the_window() {
        assert_eq!(Window::new(1e-6).tolerance(), 0.2e-6);
        assert!((Window::new(1e-3).tolerance() - 20e-6).abs() < 1e-15);
    }
}
