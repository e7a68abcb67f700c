//! LogGP parameters between rank 0 and a partner with netgauge's method
//! (T. Hoefler, A. Lichei, W. Rehm: "Low-Overhead LogGP Parameter
//! Assessment for Modern Interconnection Networks", IPDPS 2007).
//!
//! PRTT(n, d, s), the parametrised round trip: the client (rank 0) sends n
//! messages of s bytes, busy-waiting d after each but the last, then
//! receives one message of s bytes; the server receives the n messages and
//! replies with one. Per size s, medians over the repetitions of
//!
//! * PRTT(1, 0, s), PRTT(n, 0, s) and PRTT(n, d, s) with n = 10 and d = PRTT(1, 0, s);
//! * g + G·s = (PRTT(n, 0, s) − PRTT(1, 0, s)) / (n − 1): g and G are the
//!   intercept and slope of its least-squares fit against s;
//! * o_s(s) = (PRTT(n, d, s) − PRTT(1, 0, s)) / (n − 1) − d;
//! * o_r(s): the time of an MPI_Recv whose message has already arrived (the
//!   server waits d before it receives);
//! * L = PRTT(1, 0, s_min) / 2.
//!
//! o_s is only right where d ≥ g + G·s (the delay, not the gap, paces the
//! sends): a warning names the sizes where d is shorter than the gap
//! measured at s, (PRTT(n, 0, s) − PRTT(1, 0, s)) / (n − 1).
//!
//! A clock tool rather than a benchmark: it runs its own series of round
//! trips, and the delay of one series is the median of another.

use anyhow::Result;
use serde_json::json;

use super::fit::least_squares;
use crate::bench::clock::Tool;
use crate::bench::{Axis, Class, Info, RankRule, ToolCx};
use crate::comm::{self, Buffer, Comm, Msg};
use crate::contract::axis::Axes;
use crate::results::{BenchResult, LogGp, Row};
use crate::stats;

/// Messages per PRTT(n, ., s).
pub const N: usize = 10;
/// Round trips per series and size, unless `--iter` says otherwise.
pub const REPS: usize = 200;
/// Sizes s: 1 byte to 64 KiB, powers of two.
pub const MAX_SIZE: usize = 1 << 16;
const TAG: i32 = 0x47;
/// The row params that are measured (medians and what follows from them),
/// declared in the result's `measured_params`: only `n` is chosen.
pub const MEASURED: [&str; 7] = [
    "prtt_1_0_us",
    "prtt_n_0_us",
    "prtt_n_d_us",
    "d_us",
    "gap_us",
    "o_s_us",
    "o_r_us",
];

static INFO: Info = Info {
    name: "loggp",
    suite: super::SUITE,
    class: Class::SingleTransfer,
    ranks: RankRule::PAIR,
    description: "LogGP parameters L, o_s, o_r, g, G between rank 0 and rank d (--distance, default 1), netgauge's PRTT method",
    axis: Axis::None,
    ..Info::DEFAULT
};

/// The medians of one size (µs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Series {
    pub s: usize,
    pub prtt1: f64,
    pub prttn: f64,
    pub prttnd: f64,
    /// The delay used for PRTT(n, d, s).
    pub d: f64,
    pub o_r: f64,
}

impl Series {
    /// (PRTT(n, 0, s) − PRTT(1, 0, s)) / (n − 1) = g + G·s.
    pub fn gap(&self, n: usize) -> f64 {
        (self.prttn - self.prtt1) / (n - 1) as f64
    }

    /// (PRTT(n, d, s) − PRTT(1, 0, s)) / (n − 1) − d.
    pub fn o_s(&self, n: usize) -> f64 {
        (self.prttnd - self.prtt1) / (n - 1) as f64 - self.d
    }
}

/// The LogGP parameters from the medians of every size (sizes ascending).
pub fn parameters(partner: usize, n: usize, series: &[Series]) -> Option<LogGp> {
    let first = series.first()?;
    let pts: Vec<(f64, f64)> = series.iter().map(|x| (x.s as f64, x.gap(n))).collect();
    let (big_g, g, r2) = least_squares(&pts).unwrap_or((0.0, first.gap(n), None));
    // The gap that matters at s is the one measured there (the fitted line
    // averages over protocol changes, e.g. eager to rendezvous).
    let warnings = series
        .iter()
        .filter(|x| x.d < x.gap(n))
        .map(|x| {
            format!(
                "s = {} bytes: the delay d = {:.3} us is shorter than g + G*s = {:.3} us (measured at s), so o_s there is underestimated",
                x.s,
                x.d,
                x.gap(n)
            )
        })
        .collect();
    let verdict = super::fit::verdict(&gap_misfit(series.len(), big_g, r2)).to_string();
    Some(LogGp {
        verdict,
        partner,
        n,
        l_us: first.prtt1 / 2.0,
        o_s_us: first.o_s(n),
        o_r_us: first.o_r,
        g_us: g,
        big_g_us_per_byte: big_g,
        r2,
        warnings,
    })
}

/// Why the line g + G·s over `sizes` sizes does not fit (empty when it
/// does): the commtest fits' rule without a best achieved bandwidth.
pub fn gap_misfit(sizes: usize, big_g: f64, r2: Option<f64>) -> Vec<String> {
    let mut why = Vec::new();
    if sizes < 3 {
        why.push(format!("{sizes} sizes: nothing tests the line"));
    }
    if let Some(r) = r2.filter(|r| *r < super::fit::MIN_R2) {
        why.push(format!("R^2 = {r:.4} below {:.2}", super::fit::MIN_R2));
    }
    if big_g < 0.0 {
        why.push("G < 0: the gap falls as messages grow".to_string());
    }
    why
}

pub struct LogGpTool;

pub static LOGGP: LogGpTool = LogGpTool;

fn partner(axes: &Axes) -> usize {
    axes.get("distance")
        .and_then(|v| v.first())
        .map_or(1, |&d| d as usize)
}

fn busy_wait(d: f64) {
    let t = comm::wtime();
    while comm::wtime() - t < d {}
}

fn median(v: &[f64]) -> f64 {
    stats::summarize(v).median
}

struct Pair<'a> {
    pc: &'a Comm,
    client: bool,
    sbuf: Buffer,
    rbuf: Buffer,
    reps: usize,
}

impl Pair<'_> {
    /// PRTT(n, d, s) `reps` times; the client's times in seconds.
    fn prtt(&mut self, n: usize, d: f64, m: &Msg) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.reps);
        for _ in 0..self.reps {
            self.pc.barrier();
            if self.client {
                let t0 = comm::wtime();
                for i in 0..n {
                    self.pc.send(self.sbuf.ptr(), m, 1, TAG);
                    if i + 1 < n && d > 0.0 {
                        busy_wait(d);
                    }
                }
                self.pc.recv(self.rbuf.mut_ptr(), m, 1, TAG);
                out.push(comm::wtime() - t0);
            } else {
                for _ in 0..n {
                    self.pc.recv(self.rbuf.mut_ptr(), m, 0, TAG);
                }
                self.pc.send(self.sbuf.ptr(), m, 0, TAG);
            }
        }
        out
    }

    /// o_r: the server's MPI_Recv of a message that has had `d` to arrive.
    fn receive_overhead(&mut self, d: f64, m: &Msg) -> Vec<f64> {
        let zero = Msg::small(0);
        let mut out = Vec::with_capacity(self.reps);
        for _ in 0..self.reps {
            self.pc.barrier();
            if self.client {
                self.pc.send(self.sbuf.ptr(), m, 1, TAG);
                self.pc.recv(self.rbuf.mut_ptr(), &zero, 1, TAG);
            } else {
                busy_wait(d);
                let t0 = comm::wtime();
                self.pc.recv(self.rbuf.mut_ptr(), m, 0, TAG);
                out.push(comm::wtime() - t0);
                self.pc.send(self.sbuf.ptr(), &zero, 0, TAG);
            }
        }
        out
    }

    /// The medians of one size, on the client (µs).
    fn size(&mut self, s: usize) -> Result<Series> {
        let m = Msg::bytes(s)?;
        let p1 = median(&self.prtt(1, 0.0, &m));
        let pn = median(&self.prtt(N, 0.0, &m));
        // d = PRTT(1, 0, s): the client's median, known to both.
        let d = self.pc.bcast_f64(if self.client { p1 } else { 0.0 }, 0);
        let pnd = median(&self.prtt(N, d, &m));
        let or = self.receive_overhead(d, &m);
        let o_r = if self.client {
            let mut v = [0.0];
            self.pc.recv_f64(&mut v, 1, TAG);
            v[0]
        } else {
            self.pc.send_f64(&[median(&or)], 0, TAG);
            0.0
        };
        Ok(Series {
            s,
            prtt1: p1 * 1e6,
            prttn: pn * 1e6,
            prttnd: pnd * 1e6,
            d: d * 1e6,
            o_r: o_r * 1e6,
        })
    }
}

impl Tool for LogGpTool {
    fn info(&self) -> &'static Info {
        &INFO
    }

    fn run(&self, world: &Comm) -> Result<Option<BenchResult>> {
        self.measure(world, 1, REPS)
    }

    fn run_planned(&self, world: &Comm, cx: &ToolCx) -> Result<Option<BenchResult>> {
        self.measure(world, partner(cx.axes), cx.iter.unwrap_or(REPS))
    }
}

impl LogGpTool {
    fn measure(&self, world: &Comm, partner: usize, reps: usize) -> Result<Option<BenchResult>> {
        let me = world.rank;
        let inside = me == 0 || me == partner;
        let pc = world.split(inside.then_some(0), me)?;
        let mut series = Vec::new();
        if let Some(pc) = pc.as_ref() {
            let alloc = |n| {
                Buffer::try_new(n).map_err(|e| anyhow::anyhow!("cannot allocate {n} bytes: {e}"))
            };
            let mut pair = Pair {
                pc,
                client: pc.rank == 0,
                sbuf: alloc(MAX_SIZE)?,
                rbuf: alloc(MAX_SIZE)?,
                reps: reps.max(1),
            };
            let mut s = 1;
            while s <= MAX_SIZE {
                series.push(pair.size(s)?);
                s *= 2;
            }
        }
        world.sleeping_barrier(std::time::Duration::from_micros(200));
        if me != 0 {
            return Ok(None);
        }
        let rows = series
            .iter()
            .map(|x| {
                let mut r = Row {
                    bytes: x.s,
                    repetitions: reps,
                    t_min_us: x.prtt1,
                    t_max_us: x.prtt1,
                    t_avg_us: x.prtt1,
                    ..Row::default()
                };
                let measured = [x.prtt1, x.prttn, x.prttnd, x.d, x.gap(N), x.o_s(N), x.o_r];
                for (k, v) in MEASURED.iter().zip(measured) {
                    r.params.insert(k.to_string(), json!(v));
                }
                r.params.insert("n".into(), json!(N));
                r
            })
            .collect();
        let mut r = crate::engine::skipped(&INFO, world.size, false, String::new());
        r.skipped = None;
        r.groups = 1;
        r.active = 2;
        r.method = Some("median PRTT(n, d, s) of the client (netgauge)".into());
        r.placement = Some(format!("0<->{partner}"));
        r.datatype = Some("MPI_BYTE".into());
        r.rows = rows;
        r.measured_params = MEASURED.iter().map(|k| k.to_string()).collect();
        r.figures.loggp = parameters(partner, N, &series);
        Ok(Some(r))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
    }

    /// PRTT values from the LogGP model give the parameters back.
    #[test]
    fn parameters_from_synthetic_prtt() {
        let (l, o_s, o_r, g, big_g) = (2.5, 0.4, 0.3, 0.6, 0.0005);
        let n = N;
        let series: Vec<Series> = (0..17)
            .map(|e| {
                let s = 1usize << e;
                let gap = g + big_g * s as f64;
                // PRTT(1,0,s) = 2 L by the method's definition of L at s_min;
                // any growth with s leaves g, G and o_s alone.
                let p1 = 2.0 * l + 2.0 * big_g * (s - 1) as f64;
                let d = p1.max(gap);
                Series {
                    s,
                    prtt1: p1,
                    prttn: p1 + (n - 1) as f64 * gap,
                    prttnd: p1 + (n - 1) as f64 * (o_s + d),
                    d,
                    o_r,
                }
            })
            .collect();
        let p = parameters(1, n, &series).unwrap();
        assert!(close(p.l_us, l));
        assert!(close(p.g_us, g), "{}", p.g_us);
        assert!(close(p.big_g_us_per_byte, big_g), "{}", p.big_g_us_per_byte);
        assert!(close(p.o_s_us, o_s), "{}", p.o_s_us);
        assert!(close(p.o_r_us, o_r));
        assert!(close(p.r2.unwrap(), 1.0));
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(p.verdict, "fits");
        // A delay below the gap measured at s is named.
        let mut short = series.clone();
        short[16].d = 1.0;
        assert!(short[16].gap(n) > 1.0);
        let p = parameters(1, n, &short).unwrap();
        assert_eq!(p.warnings.len(), 1);
        assert!(
            p.warnings[0].contains("s = 65536 bytes"),
            "{:?}",
            p.warnings
        );
        assert!(parameters(1, n, &[]).is_none());
        // Gaps that zigzag around the line: R² far below 0.9.
        let mut noisy = series.clone();
        for (i, x) in noisy.iter_mut().enumerate() {
            x.prttn += if i % 2 == 0 { 0.0 } else { 900.0 };
        }
        let p = parameters(1, n, &noisy).unwrap();
        assert!(p.r2.unwrap() < 0.9);
        assert_eq!(p.verdict, "no linear fit");
        assert_eq!(gap_misfit(2, 0.1, None).len(), 1);
        assert_eq!(gap_misfit(17, -0.1, Some(0.95)).len(), 1);
    }
}
