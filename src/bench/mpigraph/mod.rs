//! LLNL's mpiGraph: the bandwidth of every ordered pair of ranks, to find
//! the one slow node or link of a cluster.
//!
//! In step k = 1 .. P−1 every rank sends to rank + k and receives from
//! rank − k (mod P) at the same time (placement `Shift(k)`): WINDOW
//! messages of SIZE bytes each way, ITERS times, sends and receives timed
//! apart (method `SplitCompletion`). `Latency` does the same with one
//! 8-byte round trip. Each step is a point (`params.step`); `derive` puts
//! the steps together into the rank × rank matrices, the host × host
//! summary and the outliers (`matrix.rs`).

pub mod args;
pub mod bandwidth;
pub mod front;
pub mod latency;
pub mod matrix;
pub mod table;

pub use args::{axes, MpigraphArgs, HEADING};

use anyhow::Result;
use serde_json::json;

use crate::bench::entry::Entry;
use crate::bench::{Benchmark, Info, Kernel, Setup, Side};
use crate::comm::{self, Comm, Msg, Request};
use crate::contract::axis::{Point, SweepCx};
use crate::contract::placement::Placement;
use crate::contract::RepsDefault;
use crate::method::{Method, SyncMode};
use crate::outcome::Outcome;
use crate::plugin::{benches, Defaults, ProcSweep, Suite, SuiteHelp};
use crate::results::BenchResult;
use crate::results::Report;

pub const SUITE: &str = "mpigraph";

/// mpiGraph's defaults: `mpiGraph 16384 100 50`.
pub const DEFAULT_SIZE: usize = 4096 * 4;
pub const DEFAULT_ITERS: usize = 100;
pub const DEFAULT_WINDOW: usize = 50;

pub fn benchmarks() -> Vec<&'static dyn Benchmark> {
    vec![&bandwidth::BANDWIDTH, &latency::LATENCY]
}

fn entries() -> Vec<Entry> {
    benches(benchmarks())
}

/// The suite's entry in the registry.
pub const REGISTERED: Suite = Suite {
    name: SUITE,
    title: "LLNL mpiGraph: bandwidth and latency of every pair of ranks, host summary, outliers",
    entries,
    defaults: Defaults {
        method: Method::SplitCompletion,
        sync: SyncMode::Barrier,
        reps: RepsDefault::Fixed {
            normal: DEFAULT_ITERS,
            fast: DEFAULT_ITERS,
        },
        sizes: "16384",
        procs: ProcSweep::World,
        warm_largest: 0,
    },
    axes: Some(axes),
    formats: &[(SUITE, &table::Mpigraph)],
    ending: Some(outliers_ending),
    help: SuiteHelp {
        heading: Some(HEADING),
        own: Some("mpibench mpigraph [SIZE [ITERS [WINDOW]]]"),
        example: "mpibench run -n 4 --suite mpigraph Bandwidth --json graph.json",
    },
    front: Some(&front::FRONTEND),
    options: Some(crate::cli::OptionsHook::of::<MpigraphArgs>()),
    run_options: &["fail_on_outlier"],
    ..Suite::PLAIN
};

/// The suite's say in a run's outcome: with `--fail-on-outlier`, outliers
/// in the bandwidth matrix end the run with exit code 6.
pub fn outliers_ending(report: &Report, fail_on_outlier: bool) -> Option<(Outcome, String)> {
    let outliers = report
        .results
        .iter()
        .filter_map(|r| r.outliers.as_ref()?.as_array().map(Vec::len))
        .sum::<usize>();
    (fail_on_outlier && outliers > 0).then(|| {
        (
            Outcome::Outliers,
            format!("the bandwidth matrix shows {outliers} outliers (--fail-on-outlier)"),
        )
    })
}

/// What one benchmark of the suite measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// WINDOW messages of SIZE bytes each way; send and receive MB/s.
    Bandwidth,
    /// One 8-byte round trip to rank + k while serving rank − k's; µs.
    Latency,
}

/// A benchmark of the suite: its `Info` and its kind.
pub struct Graph {
    pub info: &'static Info,
    pub kind: Kind,
}

fn window_of(p: &Point) -> usize {
    p.u64("window").unwrap_or(1).max(1) as usize
}

impl Benchmark for Graph {
    fn info(&self) -> &'static Info {
        self.info
    }

    /// One point per step k = 1 .. Q−1 (per size, for Bandwidth).
    fn points(&self, cx: &SweepCx) -> Vec<Point> {
        let w = cx
            .axis("graph_window")
            .first()
            .map_or(DEFAULT_WINDOW, |&w| w as usize);
        let sizes: Vec<usize> = match self.kind {
            Kind::Bandwidth => cx.sizes.to_vec(),
            Kind::Latency => vec![8],
        };
        let mut v = Vec::new();
        for x in sizes {
            for k in 1..cx.q {
                let p = Point::bytes(x).with("step", k as u64);
                v.push(match self.kind {
                    Kind::Bandwidth => p.with("window", w as u64),
                    Kind::Latency => p,
                });
            }
        }
        v
    }

    fn placement(&self, p: &Point) -> Placement {
        Placement::Shift(p.u64("step").unwrap_or(1) as usize)
    }

    fn need(&self, p: &Point, _q: usize) -> u64 {
        let w = window_of(p);
        (2 * (p.bytes as u64))
            .saturating_mul(w as u64)
            .saturating_add(comm::pending_bytes(w.saturating_mul(2)))
    }

    fn kernel<'a>(&'a self, s: Setup<'a>, p: &Point) -> Result<Box<dyn Kernel + 'a>> {
        let to = s.role.to.unwrap_or(s.comm.rank);
        let from = s.role.from.unwrap_or(s.comm.rank);
        Ok(match self.kind {
            Kind::Bandwidth => {
                let w = window_of(p);
                let (sb, rb) = s.arena.pair(w * p.bytes.max(1), w * p.bytes.max(1))?;
                Box::new(Flood {
                    comm: s.comm,
                    msg: Msg::bytes(p.bytes)?,
                    bytes: p.bytes,
                    send: sb.ptr(),
                    recv: rb.mut_ptr(),
                    to,
                    from,
                    reqs: vec![comm::request_null(); 2 * w],
                    window: w,
                })
            }
            Kind::Latency => {
                let (sb, rb) = s.arena.pair(16, 16)?;
                Box::new(RoundTrip {
                    comm: s.comm,
                    msg: Msg::small(8),
                    send: sb.ptr(),
                    recv: rb.mut_ptr(),
                    to,
                    from,
                    reqs: [comm::request_null(); 4],
                    ponged: false,
                })
            }
        })
    }

    fn derive(&self, r: &mut BenchResult) {
        derive(self.kind, r);
    }
}

/// Bandwidth: WINDOW receives from `from` and WINDOW sends to `to` at once.
struct Flood<'a> {
    comm: &'a Comm,
    msg: Msg,
    bytes: usize,
    send: *const u8,
    recv: *mut u8,
    to: usize,
    from: usize,
    /// Receives first, then sends.
    reqs: Vec<Request>,
    window: usize,
}

impl Kernel for Flood<'_> {
    fn run(&mut self, rep: usize) {
        self.start(rep);
        comm::waitall(&mut self.reqs);
    }

    #[inline(always)]
    fn start(&mut self, _rep: usize) {
        let w = self.window;
        for k in 0..w {
            // The buffers hold WINDOW messages (Benchmark::kernel).
            let r = self.recv.wrapping_add(k * self.bytes);
            self.comm
                .irecv(r, &self.msg, self.from, k as i32, &mut self.reqs[k]);
        }
        for k in 0..w {
            let s = self.send.wrapping_add(k * self.bytes);
            self.comm
                .isend(s, &self.msg, self.to, k as i32, &mut self.reqs[w + k]);
        }
    }

    #[inline(always)]
    fn test(&mut self, side: Side) -> bool {
        let w = self.window;
        match side {
            Side::Recv => comm::test::testall(&mut self.reqs[..w]),
            Side::Send => comm::test::testall(&mut self.reqs[w..]),
        }
    }
}

/// Latency: a ping to `to` and its pong back, while answering the ping of
/// `from`. Requests: ping in, pong in, ping out, pong out.
struct RoundTrip<'a> {
    comm: &'a Comm,
    msg: Msg,
    send: *const u8,
    recv: *mut u8,
    to: usize,
    from: usize,
    reqs: [Request; 4],
    ponged: bool,
}

impl RoundTrip<'_> {
    /// Answers the ping of `from` once it has arrived.
    #[inline(always)]
    fn serve(&mut self) {
        if !self.ponged && comm::test::testall(&mut self.reqs[..1]) {
            self.comm
                .isend(self.send, &self.msg, self.from, 2, &mut self.reqs[3]);
            self.ponged = true;
        }
    }
}

impl Kernel for RoundTrip<'_> {
    fn run(&mut self, rep: usize) {
        self.start(rep);
        while !(self.test(Side::Send) && self.test(Side::Recv)) {}
    }

    #[inline(always)]
    fn start(&mut self, _rep: usize) {
        self.ponged = false;
        // The receive buffer holds 16 bytes: ping at 0, pong at 8.
        let pong = self.recv.wrapping_add(8);
        self.comm
            .irecv(self.recv, &self.msg, self.from, 1, &mut self.reqs[0]);
        self.comm
            .irecv(pong, &self.msg, self.to, 2, &mut self.reqs[1]);
        self.comm
            .isend(self.send, &self.msg, self.to, 1, &mut self.reqs[2]);
    }

    /// Send: my round trip to `to` is over; Recv: I have answered `from`.
    #[inline(always)]
    fn test(&mut self, side: Side) -> bool {
        self.serve();
        match side {
            Side::Send => comm::test::testall(&mut self.reqs[1..3]),
            Side::Recv => self.ponged && comm::test::testall(&mut self.reqs[3..4]),
        }
    }
}

/// The rows' per-rank times (one row per step) as rank × rank matrices
/// (rows: senders), the host × host summary and, for Bandwidth, the outliers.
pub fn derive(kind: Kind, r: &mut BenchResult) {
    let n = r.processes;
    if n < 2 || r.rows.is_empty() {
        return;
    }
    let hosts: Vec<String> = if r.hosts.len() == n {
        r.hosts.clone()
    } else {
        vec![String::new(); n]
    };
    // The repeated measurements of every pair (the engine's blocks of each
    // step's repetitions), taken out of the matrix field they came in.
    let blocks: Vec<crate::engine::SideBlocks> = r
        .matrix
        .take()
        .and_then(|m| serde_json::from_value(m.get("side_blocks")?.clone()).ok())
        .unwrap_or_default();
    // The largest size measured (mpiGraph measures one).
    let bytes = r.rows.iter().map(|x| x.bytes).max().unwrap_or(0);
    let repeats = blocks.iter().map(|b| b.blocks.len()).min().unwrap_or(0);
    let mut each: Vec<matrix::Matrix> = vec![vec![vec![None; n]; n]; repeats];
    let mut send: matrix::Matrix = vec![vec![None; n]; n];
    let mut recv: matrix::Matrix = vec![vec![None; n]; n];
    let mut window = 1;
    for (pi, row) in r
        .rows
        .iter_mut()
        .enumerate()
        .filter(|(_, x)| x.bytes == bytes)
    {
        let (Some(k), Some(sides)) = (
            row.params.get("step").and_then(|v| v.as_u64()),
            row.sides_us.as_ref(),
        ) else {
            continue;
        };
        let k = k as usize;
        window = row
            .params
            .get("window")
            .and_then(|v| v.as_u64())
            .unwrap_or(1) as usize;
        let bw = |t_us: f64| (t_us > 0.0).then(|| (window * bytes) as f64 / 1.048576 / t_us);
        for b in blocks.iter().filter(|b| b.point == pi && b.rank < n) {
            let from = (b.rank + n - k % n) % n;
            for (m, side) in each.iter_mut().zip(&b.blocks) {
                m[from][b.rank] = bw(side[1]);
            }
        }
        let mut step_recv = Vec::new();
        for (i, side) in sides.iter().enumerate().take(n) {
            let (to, from) = ((i + k) % n, (i + n - k % n) % n);
            match kind {
                Kind::Bandwidth => {
                    send[i][to] = bw(side[0]);
                    // Rows are senders: `from` sent to i.
                    recv[from][i] = bw(side[1]);
                    step_recv.extend(bw(side[1]));
                }
                Kind::Latency => send[i][to] = Some(side[0]),
            }
        }
        if kind == Kind::Bandwidth {
            // The row's figure: the median receive bandwidth of the step.
            step_recv.sort_by(f64::total_cmp);
            if !step_recv.is_empty() {
                row.mbytes_per_sec = Some(crate::stats::percentile(&step_recv, 50.0));
            }
        }
    }
    let ranks: Vec<usize> = if r.ranks.len() == n {
        r.ranks.clone()
    } else {
        (0..n).collect()
    };
    let summary_of = |m: &matrix::Matrix| matrix::host_summary(m, &hosts);
    let mut m = json!({ "ranks": ranks, "hosts": hosts, "bytes": bytes });
    match kind {
        Kind::Bandwidth => {
            let (names, summary) = summary_of(&recv);
            m["window"] = json!(window);
            m["send_mbs"] = json!(send);
            m["recv_mbs"] = json!(recv);
            m["host_names"] = json!(names);
            m["host_recv_mbs"] = json!(summary);
            if each.len() >= 2 {
                // A finding must repeat (matrix.rs).
                let v = matrix::repeated_outliers(&each, &hosts);
                m["repeats"] = json!(each.len());
                m["undecided"] = json!(v.undecided);
                if !v.undecided.is_empty() {
                    let list: Vec<String> = v.undecided.iter().map(|u| u.describe()).collect();
                    let n = format!(
                        "outliers undecided, too noisy to name: {} repeated measurements",
                        list.join(", ")
                    );
                    r.note = Some(match r.note.take() {
                        Some(old) => format!("{old}; {n}"),
                        None => n,
                    });
                }
                r.outliers = Some(json!(v.named));
            } else {
                r.outliers = Some(json!(matrix::outliers(&recv, &hosts)));
            }
        }
        Kind::Latency => {
            let (names, summary) = summary_of(&send);
            m["latency_us"] = json!(send);
            m["host_names"] = json!(names);
            m["host_latency_us"] = json!(summary);
        }
    }
    r.matrix = Some(m);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outliers_end_the_run_only_when_asked() {
        use crate::report::table::fixtures::{report, result, row};
        let mut rep = report(4);
        let mut r = result("Bandwidth", "mpigraph", "pairs", 4, vec![row(16384, 1.0)]);
        rep.results.push(r.clone());
        assert_eq!(outliers_ending(&rep, true), None);
        r.outliers = Some(serde_json::json!([{"host": "node4"}, {"link": "a-b"}]));
        rep.results.push(r);
        assert_eq!(outliers_ending(&rep, false), None);
        let (o, line) = outliers_ending(&rep, true).expect("outliers");
        assert_eq!(o, Outcome::Outliers);
        assert_eq!(
            line,
            "the bandwidth matrix shows 2 outliers (--fail-on-outlier)"
        );
    }
}
