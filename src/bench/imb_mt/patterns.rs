//! What one IMB-MT repetition does on one thread (IMB 2021.11,
//! `src_cpp/MT/MT_benchmark.cpp`), who its partners are, and what its
//! receive buffer holds afterwards.
//!
//! Partners follow IMB-MT's stride S (`-stride`, 0: P/2): the paired
//! benchmarks pair rank r with r + S where r / S is even (the other rank
//! of the pair is r − S); a rank in the last, incomplete block of 2S ranks
//! idles, and a stride outside 1 ..= P/2 leaves every rank idle. SendRecvMT
//! and ExchangeMT form rings at distance S (P/2 by default) on every rank.

use crate::comm::threads::ThreadComm;

/// IMB-MT's benchmarks, in its order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    PingPong,
    PingPing,
    SendRecv,
    Exchange,
    UniBand,
    BiBand,
    Barrier,
    Bcast,
    Reduce,
    AllReduce,
}

/// How IMB-MT's Mbytes/sec column is formed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bandwidth {
    /// OUT_BW: #bytes × factor / t_max.
    Pair(f64),
    /// OUT_BW_CUMULATIVE: the bytes of every pair's thread over t_max
    /// (with Msg/sec over t_avg).
    Cumulative,
}

/// A rank's partners in one repetition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Partners {
    /// Idle (IMB-MT: the thread's run returns 0, no figure).
    Idle,
    /// The pair (partner, this rank is the lower one: it starts).
    Pair(usize, bool),
    /// A ring: sends to `to` (right), receives from `from` (left).
    Ring { to: usize, from: usize },
    /// A collective over the communicator.
    All,
}

/// The effective stride: IMB-MT's 0 is P/2.
pub fn stride_of(stride: usize, q: usize) -> usize {
    if stride == 0 {
        q / 2
    } else {
        stride
    }
}

/// IMB-MT's pairing at stride `stride` (0: P/2) for `rank` of `q`: its
/// partner and whether it is the lower rank of the pair, or None (idle).
pub fn pair(rank: usize, q: usize, stride: usize) -> Option<(usize, bool)> {
    let s = stride_of(stride, q);
    if s == 0 || s > q / 2 {
        return None;
    }
    let group = rank / s;
    if group / 2 == q / (2 * s) && q % (2 * s) != 0 {
        return None;
    }
    if group % 2 == 0 {
        Some((rank + s, true))
    } else {
        Some((rank - s, false))
    }
}

impl Op {
    pub const ALL: [Op; 10] = [
        Op::PingPong,
        Op::PingPing,
        Op::SendRecv,
        Op::Exchange,
        Op::UniBand,
        Op::BiBand,
        Op::Barrier,
        Op::Bcast,
        Op::Reduce,
        Op::AllReduce,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            Op::PingPong => "PingPongMT",
            Op::PingPing => "PingPingMT",
            Op::SendRecv => "SendRecvMT",
            Op::Exchange => "ExchangeMT",
            Op::UniBand => "UniBandMT",
            Op::BiBand => "BiBandMT",
            Op::Barrier => "BarrierMT",
            Op::Bcast => "BcastMT",
            Op::Reduce => "ReduceMT",
            Op::AllReduce => "AllReduceMT",
        }
    }

    /// The benchmark of a name as IMB-MT prints it.
    pub fn of(name: &str) -> Option<Op> {
        Op::ALL.into_iter().find(|o| o.name() == name)
    }

    /// Pairs of ranks (IMB-MT's set_stride decides who idles).
    pub fn paired(self) -> bool {
        matches!(self, Op::PingPong | Op::PingPing | Op::UniBand | Op::BiBand)
    }

    /// A collective: each repetition timed alone and followed by five
    /// barriers (IMB-MT's SEPARATE_MEASURING); the others are one timed
    /// loop per thread after one barrier.
    pub const fn collective(self) -> bool {
        matches!(self, Op::Barrier | Op::Bcast | Op::Reduce | Op::AllReduce)
    }

    /// A reduction (MPI_SUM over the elements).
    pub fn reduction(self) -> bool {
        matches!(self, Op::Reduce | Op::AllReduce)
    }

    /// Sends `window` messages per repetition (UniBandMT, BiBandMT).
    pub fn windowed(self) -> bool {
        matches!(self, Op::UniBand | Op::BiBand)
    }

    /// Has a message (BarrierMT has none).
    pub fn sized(self) -> bool {
        self != Op::Barrier
    }

    /// What the time per repetition is divided by: a half round trip
    /// (PingPongMT), a message of the window (UniBandMT; both ways:
    /// BiBandMT).
    pub fn divider(self, window: usize) -> f64 {
        match self {
            Op::PingPong => 2.0,
            Op::UniBand => window as f64,
            Op::BiBand => 2.0 * window as f64,
            _ => 1.0,
        }
    }

    pub fn bandwidth(self) -> Option<Bandwidth> {
        match self {
            Op::PingPong | Op::PingPing => Some(Bandwidth::Pair(1.0)),
            Op::SendRecv => Some(Bandwidth::Pair(2.0)),
            Op::Exchange => Some(Bandwidth::Pair(4.0)),
            Op::UniBand | Op::BiBand => Some(Bandwidth::Cumulative),
            _ => None,
        }
    }

    /// Messages of X bytes the receive buffer holds (ExchangeMT: one from
    /// each side).
    pub fn recv_blocks(self) -> usize {
        if self == Op::Exchange {
            2
        } else {
            1
        }
    }

    /// Requests a thread needs.
    pub fn requests(self, window: usize) -> usize {
        match self {
            Op::UniBand => window,
            Op::BiBand => 2 * window,
            _ => 2,
        }
    }

    /// Partners of `rank` of `q` at stride `stride`.
    pub fn partners(self, rank: usize, q: usize, stride: usize) -> Partners {
        if self.collective() {
            return Partners::All;
        }
        if self.paired() {
            return match pair(rank, q, stride) {
                Some((p, lower)) => Partners::Pair(p, lower),
                None => Partners::Idle,
            };
        }
        let s = stride_of(stride, q);
        Partners::Ring {
            to: (rank + s) % q,
            from: (rank + q - s % q.max(1)) % q,
        }
    }

    /// Ranks of `q` that take part at stride `stride`.
    pub fn active(self, q: usize, stride: usize) -> usize {
        (0..q)
            .filter(|&r| self.partners(r, q, stride) != Partners::Idle)
            .count()
    }

    /// The senders of what this rank receives, one per block of X bytes
    /// of its receive buffer, in order (None: nothing arrives).
    pub fn senders(self, rank: usize, who: Partners) -> Vec<usize> {
        match (self, who) {
            (_, Partners::Idle) => Vec::new(),
            (Op::UniBand, Partners::Pair(_, true)) => Vec::new(),
            (_, Partners::Pair(p, _)) => vec![p],
            (Op::Exchange, Partners::Ring { to, from }) => vec![from, to],
            (_, Partners::Ring { from, .. }) => vec![from],
            (Op::Bcast, _) if rank != ROOT => vec![ROOT],
            _ => Vec::new(),
        }
    }

    /// Whether this rank's receive buffer holds the sum over all ranks.
    pub fn sums_here(self, rank: usize) -> bool {
        self == Op::AllReduce || (self == Op::Reduce && rank == ROOT)
    }

    /// `n` repetitions on the thread's communicator: the measured MPI
    /// calls only (the benchmark and partners are resolved before the loop).
    #[inline(always)]
    pub fn run(self, io: &mut Io, n: usize) {
        let (s, r, x, w, ack) = (io.sbuf, io.rbuf, io.x, io.window, io.ack);
        let tc = &mut *io.tc;
        match (self, io.who) {
            (_, Partners::Idle) => {}
            (Op::PingPong, Partners::Pair(p, true)) => {
                for _ in 0..n {
                    tc.comm.send(s, &tc.msg, p, 0);
                    tc.comm.recv(r, &tc.msg, p, 0);
                }
            }
            (Op::PingPong, Partners::Pair(p, false)) => {
                for _ in 0..n {
                    tc.comm.recv(r, &tc.msg, p, 0);
                    tc.comm.send(s, &tc.msg, p, 0);
                }
            }
            (Op::PingPing, Partners::Pair(p, _)) => {
                for _ in 0..n {
                    tc.isend(s, p, 0, 0);
                    tc.comm.recv(r, &tc.msg, p, 0);
                    tc.wait(0);
                }
            }
            (Op::SendRecv, Partners::Ring { to, from }) => {
                for _ in 0..n {
                    tc.comm.sendrecv(s, &tc.msg, to, r, from, 0);
                }
            }
            (Op::Exchange, Partners::Ring { to, from }) => {
                let r2 = r.wrapping_add(x);
                for _ in 0..n {
                    tc.isend(s, from, 0, 0);
                    tc.isend(s, to, 0, 1);
                    tc.comm.recv(r, &tc.msg, from, 0);
                    tc.comm.recv(r2, &tc.msg, to, 0);
                    tc.waitall(2);
                }
            }
            (Op::UniBand, Partners::Pair(p, true)) => {
                for _ in 0..n {
                    for i in 0..w {
                        tc.isend(s, p, 0, i);
                    }
                    tc.waitall(w);
                    tc.comm.recv(ack, &tc.one, p, 0);
                }
            }
            (Op::UniBand, Partners::Pair(p, false)) => {
                for _ in 0..n {
                    for i in 0..w {
                        tc.irecv(r, p, 0, i);
                    }
                    tc.waitall(w);
                    tc.comm.send(ack, &tc.one, p, 0);
                }
            }
            (Op::BiBand, Partners::Pair(p, lower)) => {
                for _ in 0..n {
                    for i in 0..w {
                        tc.irecv(r, p, 0, i);
                    }
                    for i in 0..w {
                        tc.isend(s, p, 0, w + i);
                    }
                    tc.waitall(2 * w);
                    if lower {
                        tc.comm.recv(ack, &tc.one, p, 0);
                    } else {
                        tc.comm.send(ack, &tc.one, p, 0);
                    }
                }
            }
            (Op::Barrier, _) => {
                for _ in 0..n {
                    if let Some(g) = io.gate {
                        g.wait();
                    }
                    tc.comm.barrier();
                }
            }
            (Op::Bcast, _) => {
                let b = if tc.comm.rank == ROOT {
                    s as *mut u8
                } else {
                    r
                };
                for _ in 0..n {
                    tc.comm.bcast(b, &tc.msg, ROOT);
                }
            }
            (Op::Reduce, _) => {
                for _ in 0..n {
                    tc.comm.reduce(s, r, &tc.msg, ROOT);
                }
            }
            (Op::AllReduce, _) => {
                for _ in 0..n {
                    tc.comm.allreduce(s, r, &tc.msg);
                }
            }
            _ => unreachable!("{self:?} with {:?}", io.who),
        }
    }
}

/// The root of BcastMT and ReduceMT.
pub const ROOT: usize = 0;

/// What one repetition of one thread works on.
pub struct Io<'a> {
    pub tc: &'a mut ThreadComm,
    pub who: Partners,
    /// Send and receive buffers (the receive one: `recv_blocks` × X bytes).
    pub sbuf: *const u8,
    pub rbuf: *mut u8,
    /// X: the message's bytes.
    pub x: usize,
    pub window: usize,
    /// A byte for the acknowledgements of UniBandMT and BiBandMT.
    pub ack: *mut u8,
    /// The rank's threads meet here before BarrierMT's MPI_Barrier (more
    /// than one thread).
    pub gate: Option<&'a std::sync::Barrier>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_as_imb_mt_strides_them() {
        // Default stride P/2: i <-> i + P/2; the last rank of an odd count idles.
        let pairs = |q: usize, s: usize| -> Vec<Option<(usize, bool)>> {
            (0..q).map(|r| pair(r, q, s)).collect()
        };
        assert_eq!(pairs(2, 0), [Some((1, true)), Some((0, false))]);
        assert_eq!(pairs(3, 0), [Some((1, true)), Some((0, false)), None]);
        assert_eq!(
            pairs(4, 0),
            [
                Some((2, true)),
                Some((3, true)),
                Some((0, false)),
                Some((1, false))
            ]
        );
        assert_eq!(pairs(5, 0)[4], None);
        // Stride 1: (0,1), (2,3); 4 idles.
        assert_eq!(
            pairs(5, 1),
            [
                Some((1, true)),
                Some((0, false)),
                Some((3, true)),
                Some((2, false)),
                None
            ]
        );
        // Stride 3 on 6: (0,3), (1,4), (2,5).
        assert_eq!(pairs(6, 3)[2], Some((5, true)));
        // A stride beyond P/2, or one process: nobody.
        assert!(pairs(4, 3).iter().all(Option::is_none));
        assert_eq!(pairs(1, 0), [None]);
        assert_eq!(Op::PingPong.active(3, 0), 2);
        assert_eq!(Op::SendRecv.active(3, 0), 3);
    }

    #[test]
    fn rings_and_receivers() {
        assert_eq!(
            Op::SendRecv.partners(0, 3, 0),
            Partners::Ring { to: 1, from: 2 }
        );
        assert_eq!(
            Op::Exchange.partners(1, 4, 0),
            Partners::Ring { to: 3, from: 3 }
        );
        // One process: a ring onto itself.
        assert_eq!(
            Op::SendRecv.partners(0, 1, 0),
            Partners::Ring { to: 0, from: 0 }
        );
        let who = Op::Exchange.partners(0, 3, 0);
        assert_eq!(Op::Exchange.senders(0, who), [2, 1]);
        assert!(Op::UniBand
            .senders(0, Op::UniBand.partners(0, 2, 0))
            .is_empty());
        assert_eq!(Op::UniBand.senders(1, Op::UniBand.partners(1, 2, 0)), [0]);
        assert_eq!(Op::Bcast.senders(2, Partners::All), [ROOT]);
        assert!(Op::Bcast.senders(ROOT, Partners::All).is_empty());
        assert!(Op::Reduce.sums_here(ROOT) && !Op::Reduce.sums_here(1));
        assert!(Op::AllReduce.sums_here(3));
    }

    #[test]
    fn figures_scale_as_imb_mt_divides_them() {
        assert_eq!(Op::PingPong.divider(64), 2.0);
        assert_eq!(Op::UniBand.divider(64), 64.0);
        assert_eq!(Op::BiBand.divider(64), 128.0);
        assert_eq!(Op::Exchange.bandwidth(), Some(Bandwidth::Pair(4.0)));
        assert_eq!(Op::Bcast.bandwidth(), None);
        for o in Op::ALL {
            assert_eq!(Op::of(o.name()), Some(o));
        }
    }
}
