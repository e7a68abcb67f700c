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
/// Repetitions of the first chunk of a point, and of every chunk after one
/// that widened the window: a window too narrow (e.g. for a short point, or
/// for validation between repetitions) is found after a few repetitions,
/// not after 32.
pub const SHORT_CHUNK: usize = 4;
/// Fraction of late repetitions in a chunk above which the window doubles.
pub const WIDEN_ABOVE: f64 = 0.1;
/// The window never grows beyond this (seconds).
pub const MAX_WIDTH: f64 = 0.02;

/// The window schedule: repetition i of a chunk starts at t0 + (i − base)·width
/// on the global clock. After every chunk the ranks agree on a new t0 just
/// ahead of the latest rank's "now", so that a rank that was descheduled
/// catches up instead of staying behind a fixed schedule; when more than
/// 10% of a chunk's repetitions were late, the window doubles, and after
/// four chunks in a row without a late start it halves again, never below
/// where it began.
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    /// Current width (seconds).
    pub width: f64,
    /// The width it began with.
    initial: f64,
    /// The widest it has been.
    pub widest: f64,
    t0: f64,
    base: usize,
    in_chunk: usize,
    late_in_chunk: usize,
    /// How often the window was doubled.
    pub widened: u32,
    /// Chunks in a row without a late start.
    quiet: u32,
    /// The current chunk is a short one (`SHORT_CHUNK`).
    short: bool,
}

/// Quiet chunks in a row after which a widened window halves.
pub const QUIET_CHUNKS: u32 = 4;

impl Window {
    #[cfg(test)]
    pub fn new(width: f64) -> Window {
        Window::resume(width, width)
    }

    /// Starts at `start` (e.g. the width an earlier point needed), shrinking
    /// back towards `floor` once starts are in time.
    pub fn resume(floor: f64, start: f64) -> Window {
        let width = start.max(floor);
        Window {
            width,
            initial: floor,
            widest: width,
            t0: 0.0,
            base: 0,
            in_chunk: 0,
            late_in_chunk: 0,
            widened: 0,
            quiet: 0,
            short: true,
        }
    }

    /// How far ahead of the agreed "now" the first slot opens.
    pub fn lead(&self) -> f64 {
        (4.0 * self.width).max(200e-6)
    }

    /// A start later than this after its slot counts as late: 5% of the
    /// window (the default window is about twice the operation, so about 10%
    /// of it), at least 1 µs (leaving a spin-wait on a virtual machine takes
    /// up to about 0.9 µs; a descheduled rank is late by tens of µs or more).
    pub fn tolerance(&self) -> f64 {
        (0.05 * self.width).max(1e-6)
    }

    /// Global start time of repetition `i`.
    pub fn slot(&self, i: usize) -> f64 {
        self.t0 + self.width * i.saturating_sub(self.base) as f64
    }

    /// Whether the chunk is over and the ranks must agree again.
    pub fn due(&self) -> bool {
        self.in_chunk >= if self.short { SHORT_CHUNK } else { CHUNK }
    }

    /// The local values every rank contributes to an agreement (maximum over ranks).
    pub fn proposal(&self, now_global: f64) -> [f64; 2] {
        [self.late_in_chunk as f64, now_global]
    }

    /// Applies the agreed maxima: a new start just ahead of the latest rank,
    /// for repetition `next`, and a wider window if the chunk had too many late starts.
    pub fn agree(&mut self, agreed: [f64; 2], next: usize) {
        if self.in_chunk > 0 {
            let n = self.in_chunk as f64;
            let widened = self.widened;
            if agreed[0] > WIDEN_ABOVE * n && self.width < MAX_WIDTH {
                // Most of the chunk late: the window is far too small.
                let factor = if agreed[0] > 0.5 * n { 4.0 } else { 2.0 };
                self.width = (factor * self.width).min(MAX_WIDTH.max(self.initial));
                self.widened += 1;
                self.widest = self.widest.max(self.width);
                self.quiet = 0;
            } else if agreed[0] == 0.0 {
                self.quiet += 1;
                if self.quiet >= QUIET_CHUNKS && self.width > self.initial {
                    self.width = (self.width / 2.0).max(self.initial);
                    self.quiet = 0;
                }
            } else {
                self.quiet = 0;
            }
            self.short = self.widened > widened;
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
    /// `window_s` is the smallest window width, `start_s` the one to begin with.
    pub fn new(
        comm: &'a Comm,
        mode: SyncMode,
        clock: Option<ClockModel>,
        consts: Consts,
        (window_s, start_s): (f64, f64),
        polite: bool,
    ) -> MpiCtx<'a> {
        MpiCtx {
            comm,
            mode,
            clock: clock.unwrap_or_default(),
            consts,
            window: (mode == SyncMode::Window).then(|| Window::resume(window_s, start_s)),
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

    /// Waits until local time `target`: sleeps while far from it, then spins.
    /// On an oversubscribed node it sleeps right up to the slot (with a timer
    /// slack of 1 µs, see [`precise_sleep`]) and yields the core while it
    /// spins, so that the ranks sharing a core are not runnable at once.
    fn wait_until(&self, target: f64) {
        let left = target - comm::wtime();
        let margin = if self.polite { 20e-6 } else { 1e-3 };
        if left > margin + 50e-6 {
            std::thread::sleep(Duration::from_secs_f64(left - margin));
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

/// Makes sleeps end within about 1 µs of their deadline instead of the
/// kernel's default 50 µs timer slack (once per process).
pub fn precise_sleep() {
    crate::sys::set_timer_slack(1000);
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

    #[inline(always)]
    fn done(&mut self, n: usize) {
        crate::watchdog::progress(n);
    }

    #[inline(always)]
    fn expect(&mut self, n: usize) {
        crate::watchdog::expect(n);
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
        // A quarter late: the window doubles, and is reported as widened.
        for i in 0..CHUNK {
            w.started(i % 4 == 0);
        }
        w.agree(w.proposal(3.0), 64);
        assert_eq!(w.width, 20e-6);
        assert_eq!(w.widened, 1);
        // Nearly all late: it quadruples.
        for _ in 0..CHUNK {
            w.started(true);
        }
        w.agree(w.proposal(4.0), 96);
        assert_eq!(w.width, 80e-6);
        // Resuming from an earlier point's width, with its own floor.
        let r = Window::resume(10e-6, 80e-6);
        assert_eq!((r.width, r.initial), (80e-6, 10e-6));
    }

    #[test]
    fn window_growth_is_bounded_and_shrinks_back() {
        let mut w = Window::new(0.015);
        let chunk = |w: &mut Window, late: bool| {
            for _ in 0..CHUNK {
                w.started(late);
            }
            let n = if late { CHUNK as f64 } else { 0.0 };
            w.agree([n, 0.0], 0);
        };
        chunk(&mut w, true);
        assert_eq!(w.width, MAX_WIDTH);
        chunk(&mut w, true);
        assert_eq!(w.width, MAX_WIDTH);
        assert_eq!(w.widest, MAX_WIDTH);
        // Quiet chunks in a row bring it back, never below where it began.
        for _ in 0..QUIET_CHUNKS - 1 {
            chunk(&mut w, false);
        }
        assert_eq!(w.width, MAX_WIDTH);
        chunk(&mut w, false);
        assert_eq!(w.width, 0.015);
        for _ in 0..QUIET_CHUNKS {
            chunk(&mut w, false);
        }
        assert_eq!(w.width, 0.015);
        // A window given wider than the bound stays as given.
        let mut big = Window::new(0.5);
        chunk(&mut big, true);
        assert_eq!(big.width, 0.5);
    }

    #[test]
    fn short_chunks_until_the_window_fits() {
        let mut w = Window::new(2e-6);
        w.agree([0.0, 0.0], 0);
        for _ in 0..SHORT_CHUNK {
            assert!(!w.due());
            w.started(true);
        }
        // The first chunk of a point is short: all late, the window quadruples.
        assert!(w.due());
        w.agree([SHORT_CHUNK as f64, 0.0], SHORT_CHUNK);
        assert_eq!(w.width, 8e-6);
        // Widened: the next chunk is short again; in time, then long chunks.
        for _ in 0..SHORT_CHUNK {
            w.started(false);
        }
        assert!(w.due());
        w.agree([0.0, 0.0], 2 * SHORT_CHUNK);
        for _ in 0..SHORT_CHUNK {
            w.started(false);
        }
        assert!(!w.due());
    }

    #[test]
    fn tolerance_scales_with_the_window() {
        assert_eq!(Window::new(1e-6).tolerance(), 1e-6);
        assert!((Window::new(1e-3).tolerance() - 50e-6).abs() < 1e-15);
    }
}
