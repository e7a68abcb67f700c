//! The classic allreduce algorithms as schedules of point-to-point steps,
//! computed once per point outside the timed region and pure functions of
//! (rank, P, n), so that every algorithm is tested here without MPI.
//!
//! Every rank starts with its own vector copied into the result buffer;
//! a step sends a range of the result buffer and/or receives a range, which
//! is either added into the result (`combine`, through a temporary buffer)
//! or copied there.
//!
//! Non-powers of two (recursive doubling, Rabenseifner): with p' the largest
//! power of two ≤ P and r = P − p', the first 2r ranks fold in pairs first
//! (each even rank sends its vector to the odd rank above, which adds it),
//! the p' remaining ranks run the algorithm, and the odd ranks send the
//! result back to the even ones at the end (as MPICH does).

use super::Algorithm;
use crate::bench::buf::split_counts;

/// A range of the vector (elements) and the rank it goes to or comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Xfer {
    pub peer: usize,
    pub off: usize,
    pub len: usize,
}

/// One step: an optional send and an optional receive (both: MPI_Sendrecv).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub send: Option<Xfer>,
    pub recv: Option<Xfer>,
    /// Add the received range into the result (else copy it there).
    pub combine: bool,
}

fn send(peer: usize, off: usize, len: usize) -> Step {
    Step {
        send: Some(Xfer { peer, off, len }),
        recv: None,
        combine: false,
    }
}

fn recv(peer: usize, off: usize, len: usize, combine: bool) -> Step {
    Step {
        send: None,
        recv: Some(Xfer { peer, off, len }),
        combine,
    }
}

fn exchange(peer: usize, s: (usize, usize), r: (usize, usize), combine: bool) -> Step {
    Step {
        send: Some(Xfer {
            peer,
            off: s.0,
            len: s.1,
        }),
        recv: Some(Xfer {
            peer,
            off: r.0,
            len: r.1,
        }),
        combine,
    }
}

/// The steps of `rank` for an allreduce of `n` elements on `p` ranks
/// (empty for the library's MPI_Allreduce).
pub fn schedule(alg: Algorithm, rank: usize, p: usize, n: usize) -> Vec<Step> {
    match alg {
        Algorithm::Mpi => Vec::new(),
        Algorithm::RecursiveDoubling => folded(rank, p, n, recursive_doubling),
        Algorithm::Rabenseifner => folded(rank, p, n, rabenseifner),
        Algorithm::Ring => ring(rank, p, n),
        Algorithm::Binomial => binomial(rank, p, n),
    }
}

/// The largest power of two ≤ p.
fn pof2(p: usize) -> usize {
    1 << (usize::BITS - 1 - p.max(1).leading_zeros())
}

/// An algorithm on a power of two of ranks: (newrank, p', n, real rank of a newrank).
type Core = fn(usize, usize, usize, &dyn Fn(usize) -> usize) -> Vec<Step>;

/// Runs `core(newrank, p', n, real)` on p' = pof2(P) ranks after folding
/// the first 2r ranks in pairs, and unfolds the result.
fn folded(rank: usize, p: usize, n: usize, core: Core) -> Vec<Step> {
    let p2 = pof2(p);
    let rem = p - p2;
    let real = move |nr: usize| if nr < rem { 2 * nr + 1 } else { nr + rem };
    let mut v = Vec::new();
    let newrank = if rank < 2 * rem {
        if rank % 2 == 0 {
            v.push(send(rank + 1, 0, n));
            None
        } else {
            v.push(recv(rank - 1, 0, n, true));
            Some(rank / 2)
        }
    } else {
        Some(rank - rem)
    };
    if let Some(nr) = newrank {
        v.extend(core(nr, p2, n, &real));
    }
    if rank < 2 * rem {
        if rank % 2 == 1 {
            v.push(send(rank - 1, 0, n));
        } else {
            v.push(recv(rank + 1, 0, n, false));
        }
    }
    v
}

/// Recursive doubling on p2 ranks: log2(p2) exchanges of the whole vector.
fn recursive_doubling(nr: usize, p2: usize, n: usize, real: &dyn Fn(usize) -> usize) -> Vec<Step> {
    let mut v = Vec::new();
    let mut mask = 1;
    while mask < p2 {
        v.push(exchange(real(nr ^ mask), (0, n), (0, n), true));
        mask <<= 1;
    }
    v
}

/// Rabenseifner on p2 ranks: reduce-scatter by recursive halving (the
/// vector in p2 blocks), then allgather by recursive doubling.
fn rabenseifner(nr: usize, p2: usize, n: usize, real: &dyn Fn(usize) -> usize) -> Vec<Step> {
    let counts = split_counts(n, p2);
    let mut displs = vec![0; p2 + 1];
    for b in 0..p2 {
        displs[b + 1] = displs[b] + counts[b];
    }
    let span = |lo: usize, hi: usize| (displs[lo], displs[hi] - displs[lo]);
    let mut v = Vec::new();
    let (mut lo, mut hi) = (0, p2);
    let mut mask = p2 / 2;
    while mask >= 1 {
        let peer = real(nr ^ mask);
        let mid = lo + (hi - lo) / 2;
        if nr & mask == 0 {
            v.push(exchange(peer, span(mid, hi), span(lo, mid), true));
            hi = mid;
        } else {
            v.push(exchange(peer, span(lo, mid), span(mid, hi), true));
            lo = mid;
        }
        mask /= 2;
    }
    let mut mask = 1;
    while mask < p2 {
        let peer = real(nr ^ mask);
        let theirs = if nr & mask == 0 {
            (hi, hi + mask)
        } else {
            (lo - mask, lo)
        };
        v.push(exchange(
            peer,
            span(lo, hi),
            span(theirs.0, theirs.1),
            false,
        ));
        lo = lo.min(theirs.0);
        hi = hi.max(theirs.1);
        mask <<= 1;
    }
    v
}

/// Ring: reduce-scatter in P − 1 steps (block r − s to the right, block
/// r − s − 1 from the left, added), then allgather in P − 1 steps.
fn ring(rank: usize, p: usize, n: usize) -> Vec<Step> {
    let counts = split_counts(n, p);
    let mut displs = vec![0; p];
    for b in 1..p {
        displs[b] = displs[b - 1] + counts[b - 1];
    }
    let block = |b: usize| (displs[b % p], counts[b % p]);
    let (right, left) = ((rank + 1) % p, (rank + p - 1) % p);
    // Step s sends block sb to the right and receives block rb from the left.
    let step = |sb: usize, rb: usize, combine: bool| Step {
        send: Some(Xfer {
            peer: right,
            off: block(sb).0,
            len: block(sb).1,
        }),
        recv: Some(Xfer {
            peer: left,
            off: block(rb).0,
            len: block(rb).1,
        }),
        combine,
    };
    let steps = 0..p.saturating_sub(1);
    // Reduce-scatter, then allgather.
    let mut v: Vec<Step> = steps
        .clone()
        .map(|s| step(rank + p - s, rank + 2 * p - s - 1, true))
        .collect();
    v.extend(steps.map(|s| step(rank + p + 1 - s, rank + p - s, false)));
    v
}

/// Binomial tree reduce to rank 0, then binomial broadcast from rank 0.
fn binomial(rank: usize, p: usize, n: usize) -> Vec<Step> {
    let mut v = Vec::new();
    let mut mask = 1;
    while mask < p {
        if rank & mask != 0 {
            v.push(send(rank - mask, 0, n));
            break;
        } else if rank + mask < p {
            v.push(recv(rank + mask, 0, n, true));
        }
        mask <<= 1;
    }
    let mut mask = 1;
    while mask < p {
        if rank & mask != 0 {
            v.push(recv(rank - mask, 0, n, false));
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    while mask > 0 {
        if rank + mask < p {
            v.push(send(rank + mask, 0, n));
        }
        mask >>= 1;
    }
    v
}

#[cfg(test)]
mod tests {
    use std::collections::{HashMap, VecDeque};

    use super::*;

    /// Runs the schedules of all p ranks with eager messages (FIFO per
    /// pair); returns every rank's result, panicking on a deadlock or a
    /// length mismatch.
    fn simulate(alg: Algorithm, p: usize, n: usize) -> Vec<Vec<f64>> {
        let input = |r: usize, i: usize| ((r * 7 + i * 3) % 16) as f64;
        let mut res: Vec<Vec<f64>> = (0..p)
            .map(|r| (0..n).map(|i| input(r, i)).collect())
            .collect();
        let plans: Vec<Vec<Step>> = (0..p).map(|r| schedule(alg, r, p, n)).collect();
        let mut pc = vec![0usize; p];
        let mut sent = vec![false; p];
        let mut q: HashMap<(usize, usize), VecDeque<Vec<f64>>> = HashMap::new();
        loop {
            let mut progress = false;
            for r in 0..p {
                let Some(st) = plans[r].get(pc[r]) else {
                    continue;
                };
                if let (Some(s), Some(rv)) = (st.send, st.recv) {
                    if !st.combine {
                        let overlap = s.off < rv.off + rv.len && rv.off < s.off + s.len;
                        assert!(
                            !overlap || s.len == 0 || rv.len == 0,
                            "{alg:?} overlapping sendrecv"
                        );
                    }
                }
                if let (Some(s), false) = (st.send, sent[r]) {
                    assert!(s.peer < p && s.peer != r, "{alg:?} bad peer");
                    q.entry((r, s.peer))
                        .or_default()
                        .push_back(res[r][s.off..s.off + s.len].to_vec());
                    sent[r] = true;
                    progress = true;
                }
                if let Some(rv) = st.recv {
                    let Some(data) = q.get_mut(&(rv.peer, r)).and_then(|x| x.pop_front()) else {
                        continue;
                    };
                    assert_eq!(
                        data.len(),
                        rv.len,
                        "{alg:?} p {p} n {n} rank {r} step {}",
                        pc[r]
                    );
                    for (j, x) in data.into_iter().enumerate() {
                        if st.combine {
                            res[r][rv.off + j] += x;
                        } else {
                            res[r][rv.off + j] = x;
                        }
                    }
                }
                pc[r] += 1;
                sent[r] = false;
                progress = true;
            }
            if pc.iter().zip(&plans).all(|(&c, pl)| c == pl.len()) {
                break;
            }
            assert!(progress, "{alg:?} deadlocks on {p} ranks, n = {n}: {pc:?}");
        }
        assert!(
            q.values().all(VecDeque::is_empty),
            "{alg:?}: unreceived messages"
        );
        res
    }

    #[test]
    fn every_algorithm_sums_exactly_on_any_number_of_ranks() {
        for alg in Algorithm::ALL.into_iter().filter(|a| *a != Algorithm::Mpi) {
            for p in 1..=12 {
                for n in [0, 1, 2, 3, 5, 8, 13, 64, 100] {
                    let res = simulate(alg, p, n);
                    let want: Vec<f64> = (0..n)
                        .map(|i| (0..p).map(|r| ((r * 7 + i * 3) % 16) as f64).sum())
                        .collect();
                    for (r, got) in res.iter().enumerate() {
                        assert_eq!(got, &want, "{alg:?} p {p} n {n} rank {r}");
                    }
                }
            }
        }
    }

    #[test]
    fn step_counts_are_the_textbook_ones() {
        // Recursive doubling: log2 P exchanges of the whole vector.
        assert_eq!(schedule(Algorithm::RecursiveDoubling, 0, 8, 100).len(), 3);
        // Ring: 2 (P - 1) steps of about n/P each.
        let r = schedule(Algorithm::Ring, 0, 4, 100);
        assert_eq!(r.len(), 6);
        assert!(r.iter().all(|s| s.send.unwrap().len == 25));
        // Rabenseifner: 2 log2 P steps, halving then doubling.
        let rb = schedule(Algorithm::Rabenseifner, 0, 8, 64);
        let lens: Vec<usize> = rb.iter().map(|s| s.send.unwrap().len).collect();
        assert_eq!(lens, vec![32, 16, 8, 8, 16, 32]);
        // Binomial on 8: rank 0 receives 3 times and sends 3 times.
        assert_eq!(schedule(Algorithm::Binomial, 0, 8, 10).len(), 6);
        assert_eq!(schedule(Algorithm::Binomial, 7, 8, 10).len(), 2);
        // Non-power of two: the folded rank sends, then receives the result.
        let f = schedule(Algorithm::RecursiveDoubling, 0, 5, 10);
        assert_eq!(f.len(), 2);
        assert!(schedule(Algorithm::Mpi, 0, 4, 10).is_empty());
        assert_eq!(pof2(5), 4);
        assert_eq!(pof2(8), 8);
        assert_eq!(pof2(1), 1);
    }
}
