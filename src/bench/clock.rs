//! Clock tools: `timing` (MPITEST's TIMING construct: the timer's resolution
//! and DT, the cost of one clock read) and `clocksync` (each rank's fitted
//! offset and drift against rank 0, and the residual error after the fit).

use anyhow::Result;

use super::ToolCx;
use crate::clock::sync::{residuals, synchronize, SyncParams};
use crate::comm::{self, Comm};
use crate::contract::{Axis, Class, Info};
use crate::results::{BenchResult, Row};

pub const SUITE: &str = "clock";

/// A measurement of the measuring instruments themselves; not a communication pattern.
pub trait Tool: Sync {
    fn info(&self) -> &'static Info;
    /// Collective over `world`; returns the result on rank 0.
    fn run(&self, world: &Comm) -> Result<Option<BenchResult>>;

    /// As `run`, for tools that read the run's options (repetitions, a
    /// partner distance); by default `run`.
    fn run_planned(&self, world: &Comm, _cx: &ToolCx) -> Result<Option<BenchResult>> {
        self.run(world)
    }
}

pub fn tools() -> Vec<&'static dyn Tool> {
    vec![&Timing, &ClockSync]
}

fn info(name: &'static str, description: &'static str) -> Info {
    Info {
        name,
        suite: SUITE,
        class: Class::Clock,
        description,
        axis: Axis::None,
        ..Info::DEFAULT
    }
}

fn result(i: &Info, world: usize, rows: Vec<Row>) -> BenchResult {
    BenchResult {
        benchmark: i.name.to_string(),
        suite: i.suite.to_string(),
        class: i.class.label().to_string(),
        processes: world,
        mode: "primary".to_string(),
        groups: 1,
        active: world,
        skipped: None,
        rows,
        ..Default::default()
    }
}

/// Clock reads per DT measurement.
pub const READS: usize = 200_000;

pub struct Timing;

static TIMING: std::sync::LazyLock<Info> = std::sync::LazyLock::new(|| {
    info(
        "timing",
        "timer resolution and overhead: MPI_Wtick, smallest clock step, DT = cost of one MPI_Wtime",
    )
});

impl Tool for Timing {
    fn info(&self) -> &'static Info {
        &TIMING
    }

    fn run(&self, world: &Comm) -> Result<Option<BenchResult>> {
        let tick = comm::wtick();
        // DT (MPITEST): the cost of one timer read, from back-to-back reads.
        let t0 = comm::wtime();
        let mut last = t0;
        for _ in 0..READS {
            last = std::hint::black_box(comm::wtime());
        }
        let dt = (last - t0) / READS as f64;
        // Resolution: the smallest positive step between consecutive reads.
        let mut res = f64::INFINITY;
        let mut prev = comm::wtime();
        let mut steps = 0;
        while steps < 2000 {
            let t = comm::wtime();
            if t > prev {
                res = res.min(t - prev);
                steps += 1;
                prev = t;
            }
        }
        let all = world.gather_f64(&[tick, res, dt], 0);
        if world.rank != 0 {
            return Ok(None);
        }
        let rows = all
            .chunks_exact(3)
            .enumerate()
            .map(|(rank, v)| Row {
                repetitions: READS,
                t_min_us: v[2] * 1e6,
                t_max_us: v[2] * 1e6,
                t_avg_us: v[2] * 1e6,
                rank: Some(rank),
                tick_us: Some(v[0] * 1e6),
                resolution_us: Some(v[1] * 1e6),
                overhead_us: Some(v[2] * 1e6),
                ..Row::default()
            })
            .collect();
        Ok(Some(result(self.info(), world.size, rows)))
    }
}

pub struct ClockSync;

static CLOCKSYNC: std::sync::LazyLock<Info> = std::sync::LazyLock::new(|| {
    info("clocksync", "fitted clock offset and drift of every rank against rank 0, and the residual error after the fit")
});

/// Fresh ping-pongs per rank for the residual.
pub const RESIDUAL_EXCHANGES: usize = 20;

/// Why a repetition count does not apply to the clock tools.
pub fn fixed_repetitions() -> String {
    format!(
        "clock/timing and clock/clocksync use fixed repetitions ({READS} clock reads, {RESIDUAL_EXCHANGES} exchanges per rank)"
    )
}

impl Tool for ClockSync {
    fn info(&self) -> &'static Info {
        &CLOCKSYNC
    }

    fn run(&self, world: &Comm) -> Result<Option<BenchResult>> {
        let model = synchronize(world, SyncParams::default());
        let resid = residuals(world, model, RESIDUAL_EXCHANGES);
        let fits = world.gather_f64(&[model.offset, model.drift], 0);
        if world.rank != 0 {
            return Ok(None);
        }
        let rows = fits
            .chunks_exact(2)
            .zip(&resid)
            .enumerate()
            .map(|(rank, (m, &r))| Row {
                repetitions: RESIDUAL_EXCHANGES,
                t_min_us: r * 1e6,
                t_max_us: r * 1e6,
                t_avg_us: r * 1e6,
                rank: Some(rank),
                offset_us: Some(m[0] * 1e6),
                drift_ppm: Some(m[1] * 1e6),
                residual_us: Some(r * 1e6),
                ..Row::default()
            })
            .collect();
        Ok(Some(result(self.info(), world.size, rows)))
    }
}
