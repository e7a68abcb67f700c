//! osu_latency_mt (OMB 7.4 `c/mpi/pt2pt/standard/osu_latency_mt.c`): the
//! blocking ping-pong of osu_latency between ranks 0 and 1, driven by S
//! sender threads on rank 0 and R receiver threads on rank 1 (OSU
//! `-t [S:]R`, default 1 sender and 2 receivers), under
//! MPI_THREAD_MULTIPLE.
//!
//! * The iterations are dealt out as OMB deals them: sender thread s does
//!   iterations i ≡ s (mod S), receiver thread r those i ≡ r (mod R).
//! * Tags: with one sender every message carries tag 1 and every reply
//!   tag 2, so that any receiver thread takes the next message (OMB's
//!   wildcard pairing); with several senders iteration i carries tag i
//!   (modulo a multiple of lcm(S, R) below MPI_TAG_UB, so that equal tags
//!   always meet in the same pair of threads, in order).
//! * Timing: each sender thread times each of its round trips alone
//!   (MPI_Wtime around MPI_Send + MPI_Recv). Every round trip is a sample;
//!   the row's times are half round trips. OSU's figure is
//!   t_total / (2 · iterations / S), with t_total the sum of every sender
//!   thread's round trips: S times the mean half round trip, which
//!   [`LatencyMt::derive`] puts into the row as `omb_latency_us`.
//! * Validation (`--check`, OSU `-c`) checks every message of every thread
//!   both ways, with any S and R (OMB needs S = R for it). With one sender
//!   a receiver thread learns which iteration it got from a shared
//!   counter: the sender waits for each reply before its next message, so
//!   the counter's order is the messages' order.
//!
//! The warm-up (OSU `-x`) runs on the main threads, one round trip at a
//! time, with the same tags.

use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::Result;

use super::{axis, INFO, LATENCY_REPS};
use crate::bench::{Benchmark, Class, Info, Kernel, RankRule, Setup};
use crate::check::{self, Expect, Segment};
use crate::comm::threads::SharedComm;
use crate::comm::{self, Buffer, Comm, Elem, Msg};
use crate::contract::axis::{Point, SweepCx};
use crate::contract::placement::{gcd, Placement, Role};
use crate::method::{Method, MpiCtx, RepBatch, Samples};
use crate::results::BenchResult;

/// Row params: the thread counts, and OSU's figure.
pub const SENDERS: &str = "sender_threads";
pub const RECEIVERS: &str = "receiver_threads";
pub const THREADS: &str = "threads";
pub const OMB_LATENCY: &str = "omb_latency_us";

/// OMB's defaults: one sender thread, two receiver threads.
pub const DEFAULT_SENDERS: usize = 1;
pub const DEFAULT_RECEIVERS: usize = 2;
/// OMB's MAX_NUM_THREADS: thread counts are 1 ..= 127.
pub const MAX_THREADS: usize = 128;

static INFO_MT: Info = Info {
    name: "osu_latency_mt",
    class: Class::SingleTransfer,
    description: "OSU ping-pong 0 <-> 1 from S sender and R receiver threads (MPI_THREAD_MULTIPLE); runs only when named",
    placement: Placement::XorZero(1),
    time_scale: 0.5,
    reps: Some(LATENCY_REPS),
    ranks: RankRule::PAIR,
    method: Some(Method::PerCallOnce),
    thread_multiple: true,
    default_in: &[],
    ..INFO
};

pub static LATENCY_MT: LatencyMt = LatencyMt;

/// The program.
pub struct LatencyMt;

/// OSU `-t`: `R` (receivers, one sender) or `S:R`; each 1 ..= 127.
pub fn parse_threads(v: &str) -> Result<(usize, usize), String> {
    let one = |s: &str| -> Result<usize, String> {
        match s.trim().parse::<usize>() {
            Ok(n) if (1..MAX_THREADS).contains(&n) => Ok(n),
            _ => Err(format!(
                "threads '{v}': each count must be a whole number from 1 to {}",
                MAX_THREADS - 1
            )),
        }
    };
    match v.split_once(':') {
        None => Ok((DEFAULT_SENDERS, one(v)?)),
        Some((s, r)) => Ok((one(s)?, one(r)?)),
    }
}

/// The thread counts of a point (S, R).
fn threads_of(p: &Point) -> (usize, usize) {
    let get = |k, d| p.u64(k).map_or(d, |v| v as usize);
    (
        get(SENDERS, DEFAULT_SENDERS),
        get(RECEIVERS, DEFAULT_RECEIVERS),
    )
}

/// Tags of iteration `i`: (message, reply). One sender: 1 and 2 for every
/// iteration; several: `i mod m` both ways, `m` a multiple of lcm(S, R).
fn tags(i: usize, modulus: Option<usize>) -> (i32, i32) {
    match modulus {
        None => (1, 2),
        Some(m) => {
            let t = (i % m) as i32;
            (t, t)
        }
    }
}

/// The tag modulus for S > 1: the largest multiple of lcm(S, R) that is at
/// most `tag_ub + 1`, so that tags i mod m are valid and equal tags belong
/// to the same sender and the same receiver thread.
fn tag_modulus(s: usize, r: usize, tag_ub: usize) -> Option<usize> {
    (s > 1).then(|| {
        let l = s / gcd(s, r) * r;
        (tag_ub + 1) / l * l
    })
}

/// Why this library cannot run it: no MPI_THREAD_MULTIPLE.
fn threading_refused(level: mpi::environment::Threading) -> Option<String> {
    (level != mpi::environment::Threading::Multiple).then(|| {
        format!(
            "osu_latency_mt: MPI_Init_thread did not give MPI_THREAD_MULTIPLE \
             (this MPI library gave {level:?}); the test needs it"
        )
    })
}

impl Benchmark for LatencyMt {
    fn info(&self) -> &'static Info {
        &INFO_MT
    }

    fn points(&self, cx: &SweepCx) -> Vec<Point> {
        let get = |k, d| super::one(cx.axes, k).map_or(d, |v| v as usize);
        let s = get(axis::SENDERS, DEFAULT_SENDERS);
        let r = get(axis::RECEIVERS, DEFAULT_RECEIVERS);
        cx.default_points(self.info())
            .into_iter()
            .map(|p| {
                p.with(SENDERS, s as u64)
                    .with(RECEIVERS, r as u64)
                    .with(THREADS, format!("{s}:{r}"))
            })
            .collect()
    }

    fn need(&self, p: &Point, _q: usize) -> u64 {
        let (s, r) = threads_of(p);
        (2 * s.max(r) * p.bytes.max(1)) as u64
    }

    fn refuse(&self, p: &Point, _q: usize) -> Option<String> {
        threading_refused(mpi::environment::threading_support()).or_else(|| {
            Msg::count_error(Elem::Byte, p.bytes).map(|e| format!("{}: {e}", INFO_MT.name))
        })
    }

    fn kernel<'a>(&'a self, s: Setup<'a>, p: &Point) -> Result<Box<dyn Kernel + 'a>> {
        let (senders, receivers) = threads_of(p);
        let threads = match (s.role.active, s.role.initiator) {
            (false, _) => 0,
            (true, true) => senders,
            (true, false) => receivers,
        };
        let x = p.bytes;
        let bufs = s.arena.take(&vec![x.max(1); 2 * threads])?;
        Ok(Box::new(MtKernel {
            comm: s.comm,
            role: s.role,
            x,
            msg: Msg::bytes(x)?,
            threads,
            modulus: tag_modulus(senders, receivers, s.comm.tag_ub()),
            bufs,
        }))
    }

    /// OSU's figure: t_total / (2 · iterations / S), S × the mean half round trip.
    fn derive(&self, r: &mut BenchResult) {
        for row in &mut r.rows {
            let s = row
                .params
                .get(SENDERS)
                .and_then(|v| v.as_u64())
                .unwrap_or(1) as f64;
            if row.t_avg_us.is_finite() {
                row.params
                    .insert(OMB_LATENCY.into(), (s * row.t_avg_us).into());
            }
        }
    }
}

struct MtKernel<'a> {
    comm: &'a Comm,
    role: Role,
    x: usize,
    msg: Msg,
    /// Threads on this rank: S on the sender, R on the receiver, 0 idle.
    threads: usize,
    /// `Some(m)`: tag i mod m (several senders); `None`: tags 1 and 2.
    modulus: Option<usize>,
    /// Send and receive buffer of thread t at 2t and 2t + 1.
    bufs: &'a mut [Buffer],
}

/// What one thread measured: (iteration, start, end) of each round trip,
/// and the iterations that received wrong data.
#[derive(Default)]
struct Part {
    times: Vec<(usize, f64, f64)>,
    errors: u64,
}

/// The shared, read-only side of a batch that every thread uses.
struct Shared<'k> {
    comm: SharedComm<'k>,
    peer: usize,
    rank: usize,
    x: usize,
    modulus: Option<usize>,
    check: bool,
    corrupt: bool,
    /// Iterations received so far (one sender: which one a receiver got).
    next: AtomicUsize,
}

impl Shared<'_> {
    /// The peer's data of iteration `i` in `rbuf`: wrong bytes.
    fn verify(&self, rbuf: &Buffer, i: usize) -> u64 {
        let e = Expect::Bytes(vec![Segment {
            offset: 0,
            len: self.x,
            sender: self.peer,
            sender_offset: 0,
        }]);
        check::verify(&e, rbuf, Elem::Byte, 2, i, self.x)
    }

    fn fill(&self, sbuf: &mut Buffer, rbuf: &mut Buffer, i: usize) {
        check::fill(sbuf, self.x, None, self.rank, i, self.x);
        check::poison(rbuf, self.x, None, i, self.x);
    }

    /// Sender thread `t` of `n`: its iterations of the batch, each timed alone.
    fn send(&self, t: usize, n: usize, b: &RepBatch, sbuf: &mut Buffer, rbuf: &mut Buffer) -> Part {
        let mut part = Part::default();
        for i in (b.first..b.first + b.n).filter(|i| i % n == t) {
            if self.check {
                self.fill(sbuf, rbuf, i);
            }
            let (tm, tr) = tags(i, self.modulus);
            let t0 = comm::wtime();
            self.comm.send(sbuf.ptr(), self.peer, tm);
            self.comm.recv(rbuf.mut_ptr(), self.peer, tr);
            let t1 = comm::wtime();
            part.times.push((i, t0, t1));
            if self.check {
                if self.corrupt && i == 0 && self.x > 0 {
                    rbuf.bytes_mut()[0] ^= 0x5a;
                }
                part.errors += u64::from(self.verify(rbuf, i) > 0);
            }
        }
        part
    }

    /// Receiver thread `t` of `n`: receives its share of the iterations and replies.
    fn answer(
        &self,
        t: usize,
        n: usize,
        b: &RepBatch,
        sbuf: &mut Buffer,
        rbuf: &mut Buffer,
    ) -> Part {
        let mut part = Part::default();
        for i in (b.first..b.first + b.n).filter(|i| i % n == t) {
            if self.check {
                // With one sender the iteration is known only after the receive.
                let guess = if self.modulus.is_some() {
                    i
                } else {
                    self.next.load(Ordering::Acquire)
                };
                check::poison(rbuf, self.x, None, guess, self.x);
            }
            let (tm, tr) = tags(i, self.modulus);
            self.comm.recv(rbuf.mut_ptr(), self.peer, tm);
            let got = if self.modulus.is_some() {
                i
            } else {
                self.next.fetch_add(1, Ordering::AcqRel)
            };
            if self.check {
                part.errors += u64::from(self.verify(rbuf, got) > 0);
                check::fill(sbuf, self.x, None, self.rank, got, self.x);
            }
            self.comm.send(sbuf.ptr(), self.peer, tr);
        }
        part
    }
}

impl Kernel for MtKernel<'_> {
    /// One round trip on the main threads (the warm-up).
    fn run(&mut self, rep: usize) {
        let (tm, tr) = tags(rep, self.modulus);
        let Some(peer) = self.role.peer() else {
            return;
        };
        let (sb, rest) = self.bufs.split_at_mut(1);
        let (s, r) = (&mut sb[0], &mut rest[0]);
        if self.role.initiator {
            self.comm.send(s.ptr(), &self.msg, peer, tm);
            self.comm.recv(r.mut_ptr(), &self.msg, peer, tr);
        } else {
            self.comm.recv(r.mut_ptr(), &self.msg, peer, tm);
            self.comm.send(s.ptr(), &self.msg, peer, tr);
        }
    }

    /// The batch on this rank's threads: one sample per round trip (sender
    /// side; the receiver's and an idle rank's samples do not count).
    fn measure(&mut self, _method: Method, cx: &mut MpiCtx<'_>, b: &RepBatch) -> Samples {
        use crate::method::Ctx;
        cx.expect(b.n);
        cx.sync(b.first);
        let mut s = Samples {
            dur: vec![0.0; b.n],
            start: vec![0.0; b.n],
            end: vec![0.0; b.n],
            late: vec![false; b.n],
            reps_per_sample: 1,
            ..Samples::default()
        };
        if let (Some(peer), true) = (self.role.peer(), self.threads > 0) {
            let sh = Shared {
                comm: SharedComm::new(self.comm, &self.msg),
                peer,
                rank: self.comm.rank,
                x: self.x,
                modulus: self.modulus,
                check: b.check,
                corrupt: b.corrupt,
                next: AtomicUsize::new(b.first),
            };
            let (n, sender) = (self.threads, self.role.initiator);
            let parts: Vec<Part> = std::thread::scope(|scope| {
                let handles: Vec<_> = self
                    .bufs
                    .chunks_mut(2)
                    .take(n)
                    .enumerate()
                    .map(|(t, pair)| {
                        let sh = &sh;
                        scope.spawn(move || {
                            let (sb, rb) = pair.split_at_mut(1);
                            if sender {
                                sh.send(t, n, b, &mut sb[0], &mut rb[0])
                            } else {
                                sh.answer(t, n, b, &mut sb[0], &mut rb[0])
                            }
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_default())
                    .collect()
            });
            for part in parts {
                s.errors += part.errors;
                for (i, t0, t1) in part.times {
                    let j = i - b.first;
                    s.dur[j] = t1 - t0;
                    s.start[j] = t0;
                    s.end[j] = t1;
                }
            }
        }
        cx.done(b.n);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_as_omb_parses_them() {
        assert_eq!(parse_threads("4"), Ok((1, 4)));
        assert_eq!(parse_threads("2:3"), Ok((2, 3)));
        assert_eq!(parse_threads("127:1"), Ok((127, 1)));
        for bad in ["0", "128", "2:0", "x", "1:2:3", ":2", "-1", ""] {
            let e = parse_threads(bad).unwrap_err();
            assert!(e.contains("from 1 to 127"), "{bad}: {e}");
        }
    }

    #[test]
    fn one_sender_uses_two_tags_several_use_the_iteration() {
        assert_eq!(tag_modulus(1, 2, 32767), None);
        assert_eq!(tags(7, None), (1, 2));
        // lcm(2, 3) = 6: the largest multiple of 6 not above 32768.
        let m = tag_modulus(2, 3, 32767).unwrap();
        assert_eq!(m, 32766);
        assert_eq!(tags(5, Some(m)), (5, 5));
        assert_eq!(tags(m + 5, Some(m)), (5, 5));
        // Equal tags belong to the same sender and receiver thread.
        for (s, r) in [(2, 2), (3, 4), (127, 126), (4, 6)] {
            let m = tag_modulus(s, r, 32767).unwrap();
            assert_eq!(m % s, 0);
            assert_eq!(m % r, 0);
            assert!(m - 1 <= 32767);
        }
    }

    #[test]
    fn omb_figure_is_senders_times_the_mean_half_round_trip() {
        let mut r = BenchResult::default();
        let mut row = crate::results::Row {
            t_avg_us: 0.5,
            ..Default::default()
        };
        row.params.insert(SENDERS.into(), 3u64.into());
        r.rows.push(row);
        LATENCY_MT.derive(&mut r);
        assert_eq!(r.rows[0].params[OMB_LATENCY].as_f64(), Some(1.5));
    }

    #[test]
    fn refuses_without_thread_multiple() {
        let e = threading_refused(mpi::environment::Threading::Serialized).unwrap();
        assert!(
            e.contains("MPI_THREAD_MULTIPLE") && !e.contains('\n'),
            "{e}"
        );
        assert_eq!(
            threading_refused(mpi::environment::Threading::Multiple),
            None
        );
        assert!(LATENCY_MT.info().default_in.is_empty());
        assert!(LATENCY_MT.info().thread_multiple);
    }
}
