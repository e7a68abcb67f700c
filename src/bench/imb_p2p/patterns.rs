//! IMB-P2P's eight patterns (IMB 2021.11): who talks to whom in one
//! iteration, and what a rank holds after it.

use super::kernel::{matched, next_random, Exchange, Io};
use crate::comm::{wait, waitall};

/// i ↔ i + P/2 (PingPong, PingPing): an even number of at least 2.
fn halves(q: usize) -> bool {
    q >= 2 && q % 2 == 0
}

fn partner(rank: usize, q: usize) -> usize {
    (rank + q / 2) % q
}

/// PingPong (`BOUNCE`): the lower half sends and receives, the upper half
/// receives and sends back. PingPing: both of a pair send at once
/// (MPI_Irecv, MPI_Send, MPI_Wait).
pub struct Pairs<const BOUNCE: bool>;
pub type PingPong = Pairs<true>;
pub type PingPing = Pairs<false>;

impl<const BOUNCE: bool> Exchange for Pairs<BOUNCE> {
    fn valid(&self, q: usize) -> bool {
        halves(q)
    }
    fn peers(&self, rank: usize, q: usize) -> Vec<usize> {
        vec![partner(rank, q)]
    }
    #[inline(always)]
    fn run(&self, io: &mut Io) {
        let p = io.peers[0];
        if !BOUNCE {
            let r = io.rp(0);
            io.comm.irecv(r, &io.msg, p, 0, &mut io.reqs[0]);
            io.touch_send(0);
            io.comm.send(io.sp(0), &io.msg, p, 0);
            wait(&mut io.reqs[0]);
            io.touch_recv(0, false);
        } else if io.rank < io.q / 2 {
            io.touch_send(0);
            io.comm.send(io.sp(0), &io.msg, p, 0);
            let r = io.rp(0);
            io.comm.recv(r, &io.msg, p, 0);
            io.touch_recv(0, false);
        } else {
            let r = io.rp(0);
            io.comm.recv(r, &io.msg, p, 0);
            io.touch_recv(0, false);
            io.touch_send(0);
            io.comm.send(io.sp(0), &io.msg, p, 0);
        }
    }
}

/// The pair of one step of the random patterns: two different ranks.
#[inline(always)]
fn random_pair(seed: &mut u64, q: usize) -> (usize, usize) {
    let a = next_random(seed) as usize % q;
    loop {
        let b = next_random(seed) as usize % q;
        if b != a {
            return (a, b);
        }
    }
}

/// Unirandom: P steps, each a message between a random pair (MPI_Send, MPI_Recv).
pub struct Unirandom;

impl Exchange for Unirandom {
    #[inline(always)]
    fn run(&self, io: &mut Io) {
        for _ in 0..io.q {
            let (a, b) = random_pair(&mut io.seed, io.q);
            if io.rank == a {
                io.touch_send(0);
                io.comm.send(io.sp(0), &io.msg, b, 0);
            } else if io.rank == b {
                let r = io.rp(0);
                io.comm.recv(r, &io.msg, a, 0);
                io.touch_recv(0, false);
                io.got = Some(a);
            }
        }
    }
}

/// Birandom: P steps, each an exchange between a random pair (MPI_Irecv, MPI_Send, MPI_Wait).
pub struct Birandom;

impl Exchange for Birandom {
    fn messages(&self, q: usize) -> usize {
        2 * q
    }
    #[inline(always)]
    fn run(&self, io: &mut Io) {
        for _ in 0..io.q {
            let (a, b) = random_pair(&mut io.seed, io.q);
            let other = if io.rank == a {
                b
            } else if io.rank == b {
                a
            } else {
                continue;
            };
            let r = io.rp(0);
            io.comm.irecv(r, &io.msg, other, 0, &mut io.reqs[0]);
            io.touch_send(0);
            io.comm.send(io.sp(0), &io.msg, other, 0);
            wait(&mut io.reqs[0]);
            io.touch_recv(0, false);
            io.got = Some(other);
        }
    }
}

/// Corandom: every iteration a new random ring of all ranks; each receives
/// from its predecessor and sends to its successor.
pub struct Corandom;

impl Exchange for Corandom {
    #[inline(always)]
    fn run(&self, io: &mut Io) {
        let q = io.q;
        for i in 0..q {
            let j = next_random(&mut io.seed) as usize % q;
            io.ring.swap(i, j);
        }
        let at = io.ring.iter().position(|&r| r == io.rank).unwrap_or(0);
        let (prev, next) = (io.ring[(at + q - 1) % q], io.ring[(at + 1) % q]);
        let r = io.rp(0);
        io.comm.irecv(r, &io.msg, prev, 0, &mut io.reqs[0]);
        io.touch_send(0);
        io.comm.send(io.sp(0), &io.msg, next, 0);
        wait(&mut io.reqs[0]);
        io.touch_recv(0, false);
        io.got = Some(prev);
    }
}

/// IMB-P2P's 2-D grid of `q` processes: (x side, y side), both at least 2,
/// or none.
pub fn grid2(q: usize) -> Option<(usize, usize)> {
    let (mut lx, mut ly) = (2usize, 2usize);
    while lx * ly < q {
        lx += 1;
        ly += 1;
    }
    if lx * ly > q {
        while ly > 1 && q % ly != 0 {
            ly -= 1;
        }
        lx = q / ly;
    }
    (lx >= 2 && ly >= 2 && lx * ly == q).then_some((lx, ly))
}

/// IMB-P2P's 3-D grid of `q` processes: (x, y, z sides), each at least 2, or none.
pub fn grid3(q: usize) -> Option<(usize, usize, usize)> {
    let (mut lx, mut ly, mut lz) = (2usize, 2usize, 2usize);
    while lx * ly * lz < q {
        lx += 1;
        ly += 1;
        lz += 1;
    }
    while lx * ly * lz > q && lz > 1 {
        lz -= 1;
        while lz > 1 && q % lz != 0 {
            lz -= 1;
        }
        let n = q / lz;
        let (mut x, mut y) = (2usize, 2usize);
        while x * y < n {
            x += 1;
            y += 1;
        }
        if x * y > n {
            while y > 1 && n % y != 0 {
                y -= 1;
            }
            x = n / y;
        }
        if y >= lz {
            (lx, ly) = (x, y);
        }
    }
    (lx >= 2 && ly >= 2 && lz >= 2 && lx * ly * lz == q).then_some((lx, ly, lz))
}

/// One iteration of a stencil: MPI_Irecv from and MPI_Isend to every
/// neighbour, then MPI_Waitall, each neighbour with its own buffers.
#[inline(always)]
fn stencil(io: &mut Io) {
    let k = io.peers.len();
    for b in 0..k {
        io.touch_send(b);
    }
    for b in 0..k {
        let (p, r) = (io.peers[b], io.rp(b));
        io.comm.irecv(r, &io.msg, p, 0, &mut io.reqs[b]);
    }
    for b in 0..k {
        let (p, s) = (io.peers[b], io.sp(b));
        io.comm.isend(s, &io.msg, p, 0, &mut io.reqs[k + b]);
    }
    waitall(&mut io.reqs);
    for b in 0..k {
        io.touch_recv(b, false);
    }
}

/// The sides of IMB-P2P's `D`-dimensional grid of `q` processes (x first).
pub fn sides(d: usize, q: usize) -> Option<Vec<usize>> {
    match d {
        2 => grid2(q).map(|(x, y)| vec![x, y]),
        3 => grid3(q).map(|(x, y, z)| vec![x, y, z]),
        _ => None,
    }
}

/// Stencil2D and Stencil3D: the 2D neighbours on IMB-P2P's periodic
/// `D`-dimensional grid (x varies fastest in the rank), in the order
/// x − 1, x + 1, y − 1, y + 1, z − 1, z + 1.
pub struct Stencil<const D: usize>;

impl<const D: usize> Exchange for Stencil<D> {
    fn blocks(&self) -> usize {
        2 * D
    }
    fn valid(&self, q: usize) -> bool {
        sides(D, q).is_some()
    }
    fn messages(&self, q: usize) -> usize {
        2 * D * q
    }
    fn peers(&self, rank: usize, q: usize) -> Vec<usize> {
        let Some(l) = sides(D, q) else {
            return Vec::new();
        };
        // Mixed radix: the coordinate along dimension i and its stride.
        let stride = |i: usize| l[..i].iter().product::<usize>();
        let coord = |i: usize| rank / stride(i) % l[i];
        let mut v = Vec::with_capacity(2 * D);
        for (i, &side) in l.iter().enumerate() {
            let base = rank - coord(i) * stride(i);
            for step in [side - 1, 1] {
                v.push(base + (coord(i) + step) % side * stride(i));
            }
        }
        v
    }
    #[inline(always)]
    fn run(&self, io: &mut Io) {
        stencil(io);
    }
    fn received(&self, io: &Io) -> Vec<Option<(usize, usize)>> {
        let of = |r: usize| self.peers(r, io.q);
        (0..io.peers.len())
            .map(|b| matched(&of, io.rank, &io.peers, b))
            .collect()
    }
}

/// SendRecv_Replace: a ring, MPI_Sendrecv_replace to the next rank from
/// the previous one, in one buffer.
pub struct SendRecvReplace;

impl Exchange for SendRecvReplace {
    /// The previous rank (it receives from), then the next.
    fn peers(&self, rank: usize, q: usize) -> Vec<usize> {
        vec![(rank + q - 1) % q, (rank + 1) % q]
    }
    #[inline(always)]
    fn run(&self, io: &mut Io) {
        io.touch_send(0);
        let b = io.sp_mut(0);
        io.comm
            .sendrecv_replace(b, &io.msg, io.peers[1], io.peers[0], 0);
    }
    fn in_place(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_are_imb_p2ps() {
        assert_eq!(grid2(4), Some((2, 2)));
        assert_eq!(grid2(6), Some((2, 3)));
        assert_eq!(grid2(8), Some((4, 2)));
        assert_eq!(grid2(12), Some((3, 4)));
        for q in [1, 2, 3, 5, 7] {
            assert_eq!(grid2(q), None, "{q}");
        }
        assert_eq!(grid3(8), Some((2, 2, 2)));
        assert_eq!(grid3(12), Some((2, 3, 2)));
        assert_eq!(grid3(27), Some((3, 3, 3)));
        for q in [1, 2, 3, 4, 6, 7] {
            assert_eq!(grid3(q), None, "{q}");
        }
        // Every process count ends (IMB's search, bounded).
        for q in 1..200 {
            if let Some((x, y, z)) = grid3(q) {
                assert_eq!(x * y * z, q);
            }
        }
    }

    #[test]
    fn stencil_neighbours_are_symmetric_and_matched() {
        for q in [4, 6, 8, 9, 12] {
            for r in 0..q {
                let mine = Stencil::<2>.peers(r, q);
                assert_eq!(mine.len(), 4);
                for b in 0..4 {
                    let of = |x: usize| Stencil::<2>.peers(x, q);
                    let (from, j) = matched(&of, r, &mine, b).unwrap();
                    assert_eq!(from, mine[b]);
                    assert_eq!(of(from)[j], r, "q {q} rank {r} block {b}");
                }
            }
        }
        // 2 x 2: left and right are the same rank, matched in order.
        let of = |x: usize| Stencil::<2>.peers(x, 4);
        let mine = of(0);
        assert_eq!(mine[0], mine[1]);
        assert_ne!(matched(&of, 0, &mine, 0), matched(&of, 0, &mine, 1));
        let of3 = |x: usize| Stencil::<3>.peers(x, 8);
        for r in 0..8 {
            let mine = of3(r);
            for b in 0..6 {
                let (from, j) = matched(&of3, r, &mine, b).unwrap();
                assert_eq!(of3(from)[j], r);
            }
        }
    }

    #[test]
    fn random_pairs_differ_and_agree() {
        let (mut s1, mut s2) = (0u64, 0u64);
        for _ in 0..1000 {
            let a = random_pair(&mut s1, 3);
            assert_ne!(a.0, a.1);
            assert_eq!(a, random_pair(&mut s2, 3));
        }
    }

    #[test]
    fn messages_per_iteration() {
        assert_eq!(Pairs::<true>.messages(4), 4);
        assert_eq!(Birandom.messages(4), 8);
        assert_eq!(Stencil::<2>.messages(4), 16);
        assert_eq!(Stencil::<3>.messages(8), 48);
        assert!(!Pairs::<true>.valid(3) && !Pairs::<false>.valid(1) && Unirandom.valid(3));
    }
}
