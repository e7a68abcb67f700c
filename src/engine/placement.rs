//! Placements: which ranks of a group of Q are active and who partners whom.
//!
//! Pure functions of (rank, Q), so every placement is unit-tested without
//! MPI. Benchmarks read their partners from the [`Role`] the engine hands
//! them; they never work out pairings themselves.

use serde::{Deserialize, Serialize};

/// How the Q ranks of a group are used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Placement {
    /// Every rank takes part (collectives; PMB's chain benchmarks).
    All,
    /// Pairs i ↔ i + Q/2 for i < Q/2, all at once, i initiating; with odd Q
    /// the last rank idles. On Q = 2 this is PMB's 0 ↔ 1.
    Halves,
    /// As `Halves`, but every other pair reversed: in odd pairs i + Q/2
    /// initiates (the coarray suite's "crossing" ping-pong).
    Crossing,
    /// Only 0 ↔ Q − 1 (the coarray suite's single ping-pong); the rest idle.
    Ends,
    /// Pairs at distance d: r ↔ r XOR d, the lower rank initiating; ranks
    /// whose partner is outside the group idle (COMMTEST SWAP).
    Xor(usize),
    /// As `Xor`, but only node zero and its partner are active.
    XorZero(usize),
    /// A ring at distance d: send to r + d, receive from r − d (mod Q);
    /// every rank is in some cycle (COMMTEST SENDRECV, mpiGraph's step k).
    Shift(usize),
    /// As `Shift`, but only the cycle through node zero is active.
    ShiftZero(usize),
    /// A periodic 3-D Cartesian grid from MPI_Dims_create(Q, 3), six
    /// neighbours each (the coarray suite's 3-D sync and halo swap).
    Cart3d,
    /// Every rank with neighbours r ± 1 .. r ± k (mod Q) (the coarray
    /// suite's "sync images ring").
    Ring(usize),
    /// As `Ring`, on a ring whose order is a random permutation of the
    /// ranks, the same on every rank for the same seed, so that all
    /// neighbour lists match up (the coarray suite's "sync images random").
    RandomRing(usize, u64),
}

/// Position in a 3-D periodic grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CartRole {
    pub dims: [usize; 3],
    pub coords: [usize; 3],
    /// Neighbour ranks: −x, +x, −y, +y, −z, +z.
    pub neighbours: [usize; 6],
}

/// What one rank does under a placement.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Role {
    /// Communicates in `run` (inactive ranks still take part in synchronisation).
    pub active: bool,
    /// Starts the exchange; for single transfers its clock pair is the one that counts.
    pub initiator: bool,
    /// Partner of a pair, or the rank this one sends to in a ring.
    pub to: Option<usize>,
    /// Partner of a pair, or the rank this one receives from in a ring.
    pub from: Option<usize>,
    pub cart: Option<CartRole>,
    /// Neighbours of ring placements, in order −1, +1, −2, +2, ...
    #[serde(default)]
    pub neighbours: Vec<usize>,
}

impl Role {
    fn idle() -> Role {
        Role::default()
    }

    fn pair(partner: usize, initiator: bool) -> Role {
        Role {
            active: true,
            initiator,
            to: Some(partner),
            from: Some(partner),
            cart: None,
            neighbours: Vec::new(),
        }
    }

    /// The partner of a pair (same rank both ways).
    #[cfg(test)]
    pub fn peer(&self) -> Option<usize> {
        self.to.filter(|t| Some(*t) == self.from)
    }
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl Placement {
    pub fn name(&self) -> String {
        match self {
            Placement::All => "all".into(),
            Placement::Halves => "i<->i+P/2".into(),
            Placement::Crossing => "crossing".into(),
            Placement::Ends => "0<->P-1".into(),
            Placement::Xor(d) => format!("r<->r^{d}"),
            Placement::XorZero(d) => format!("0<->{d}"),
            Placement::Shift(d) => format!("r->r+{d}"),
            Placement::ShiftZero(d) => format!("0->{d} cycle"),
            Placement::Cart3d => "cart3d".into(),
            Placement::Ring(k) => format!("r<->r+-1..{k}"),
            Placement::RandomRing(k, _) => format!("random ring +-1..{k}"),
        }
    }

    /// The role of `rank` in a group of `q`.
    pub fn role(&self, rank: usize, q: usize) -> Role {
        assert!(rank < q, "rank {rank} outside a group of {q}");
        match *self {
            Placement::All => Role {
                active: true,
                initiator: rank == 0,
                ..Role::default()
            },
            Placement::Halves | Placement::Crossing => {
                let h = q / 2;
                if h == 0 || rank >= 2 * h {
                    return Role::idle();
                }
                let (i, low) = if rank < h {
                    (rank, true)
                } else {
                    (rank - h, false)
                };
                let partner = if low { rank + h } else { rank - h };
                let reversed = *self == Placement::Crossing && i % 2 == 1;
                Role::pair(partner, low != reversed)
            }
            Placement::Ends => {
                if q < 2 || (rank != 0 && rank != q - 1) {
                    Role::idle()
                } else if rank == 0 {
                    Role::pair(q - 1, true)
                } else {
                    Role::pair(0, false)
                }
            }
            Placement::Xor(d) | Placement::XorZero(d) => {
                let p = rank ^ d;
                let zero_only = matches!(self, Placement::XorZero(_));
                if d == 0 || p >= q || (zero_only && rank != 0 && p != 0) {
                    Role::idle()
                } else {
                    Role::pair(p, rank < p)
                }
            }
            Placement::Shift(d) | Placement::ShiftZero(d) => {
                let d = d % q;
                let zero_only = matches!(self, Placement::ShiftZero(_));
                // The cycle through 0 under r -> r + d holds the multiples of
                // gcd(d, q); a distance that is a multiple of q talks to itself
                // (PMB's chain on one process).
                if zero_only && d != 0 && rank % gcd(d, q) != 0 {
                    return Role::idle();
                }
                Role {
                    active: true,
                    initiator: rank == 0,
                    to: Some((rank + d) % q),
                    from: Some((rank + q - d) % q),
                    ..Role::default()
                }
            }
            Placement::Cart3d => {
                let dims = dims_create(q, 3);
                let dims = [dims[0], dims[1], dims[2]];
                let coords = cart_coords(rank, &dims);
                let mut neighbours = [0; 6];
                for dim in 0..3 {
                    for (k, step) in [dims[dim] - 1, 1].into_iter().enumerate() {
                        let mut c = coords;
                        c[dim] = (c[dim] + step) % dims[dim];
                        neighbours[2 * dim + k] = cart_rank(&c, &dims);
                    }
                }
                Role {
                    active: true,
                    initiator: rank == 0,
                    cart: Some(CartRole {
                        dims,
                        coords,
                        neighbours,
                    }),
                    ..Role::default()
                }
            }
            Placement::Ring(k) | Placement::RandomRing(k, _) => {
                let order: Vec<usize> = match *self {
                    Placement::RandomRing(_, seed) => permutation(q, seed),
                    _ => (0..q).collect(),
                };
                let pos = order
                    .iter()
                    .position(|&r| r == rank)
                    .expect("a permutation");
                let neighbours = (1..=k)
                    .flat_map(|d| [order[(pos + q - d % q) % q], order[(pos + d) % q]])
                    .collect();
                Role {
                    active: true,
                    initiator: rank == 0,
                    neighbours,
                    ..Role::default()
                }
            }
        }
    }

    /// The ranks of a group of `q` that are active.
    #[cfg(test)]
    pub fn active(&self, q: usize) -> Vec<usize> {
        (0..q).filter(|&r| self.role(r, q).active).collect()
    }
}

/// A random permutation of 0..n from `seed` (Fisher-Yates over splitmix64),
/// identical on every rank.
pub fn permutation(n: usize, seed: u64) -> Vec<usize> {
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut v: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
    v
}

/// MPI_Dims_create(n, nd) with no fixed dimensions: the prime factors of n,
/// largest first, each given to the dimension with the smallest product so
/// far; dimensions in non-increasing order (the algorithm of Open MPI and
/// MPICH, so that ranks agree with MPI_Cart_create).
pub fn dims_create(n: usize, nd: usize) -> Vec<usize> {
    let mut dims = vec![1; nd];
    let mut factors = Vec::new();
    let mut m = n.max(1);
    let mut f = 2;
    while f * f <= m {
        while m % f == 0 {
            factors.push(f);
            m /= f;
        }
        f += 1;
    }
    if m > 1 {
        factors.push(m);
    }
    for &p in factors.iter().rev() {
        let i = (0..nd).min_by_key(|&i| dims[i]).unwrap_or(0);
        dims[i] *= p;
    }
    dims.sort_unstable_by(|a, b| b.cmp(a));
    dims
}

/// Row-major coordinates of `rank` in `dims` (the last dimension varies fastest, as in MPI).
pub fn cart_coords(rank: usize, dims: &[usize; 3]) -> [usize; 3] {
    [
        rank / (dims[1] * dims[2]),
        rank / dims[2] % dims[1],
        rank % dims[2],
    ]
}

pub fn cart_rank(c: &[usize; 3], dims: &[usize; 3]) -> usize {
    (c[0] * dims[1] + c[1]) * dims[2] + c[2]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(p: Placement, q: usize) -> Vec<(usize, usize, bool)> {
        (0..q)
            .filter_map(|r| {
                let role = p.role(r, q);
                role.peer().map(|x| (r, x, role.initiator))
            })
            .collect()
    }

    #[test]
    fn halves_pair_i_with_i_plus_half() {
        assert_eq!(
            pairs(Placement::Halves, 4),
            vec![(0, 2, true), (1, 3, true), (2, 0, false), (3, 1, false)]
        );
        // PMB's PingPong on two processes.
        assert_eq!(
            pairs(Placement::Halves, 2),
            vec![(0, 1, true), (1, 0, false)]
        );
        // Odd: the last rank idles.
        assert_eq!(Placement::Halves.active(5), vec![0, 1, 2, 3]);
        assert!(!Placement::Halves.role(4, 5).active);
        assert!(Placement::Halves.active(1).is_empty());
    }

    #[test]
    fn crossing_reverses_every_other_pair() {
        let p = pairs(Placement::Crossing, 8);
        assert!(p.contains(&(0, 4, true)));
        assert!(p.contains(&(5, 1, true)), "{p:?}");
        assert!(p.contains(&(1, 5, false)));
        assert!(p.contains(&(2, 6, true)));
        assert!(p.contains(&(7, 3, true)));
        // Each pair has exactly one initiator.
        for (a, b, i) in &p {
            let other = p.iter().find(|(x, _, _)| x == b).unwrap();
            assert_eq!(other.1, *a);
            assert_ne!(*i, other.2);
        }
    }

    #[test]
    fn ends_pair_first_and_last() {
        assert_eq!(pairs(Placement::Ends, 5), vec![(0, 4, true), (4, 0, false)]);
        assert_eq!(Placement::Ends.active(1), Vec::<usize>::new());
    }

    #[test]
    fn xor_distance_and_node_zero() {
        assert_eq!(
            pairs(Placement::Xor(1), 4),
            vec![(0, 1, true), (1, 0, false), (2, 3, true), (3, 2, false)]
        );
        // Partner outside the group idles.
        assert_eq!(Placement::Xor(2).active(3), vec![0, 2]);
        assert_eq!(
            pairs(Placement::XorZero(2), 8),
            vec![(0, 2, true), (2, 0, false)]
        );
        assert!(Placement::Xor(0).active(4).is_empty());
    }

    #[test]
    fn shifts_form_cycles_covering_every_rank() {
        for q in 1..9 {
            for d in 1..q {
                let mut seen = vec![0; q];
                for r in 0..q {
                    let role = Placement::Shift(d).role(r, q);
                    assert!(role.active);
                    seen[role.to.unwrap()] += 1;
                    assert_eq!(Placement::Shift(d).role(role.to.unwrap(), q).from, Some(r));
                }
                assert!(seen.iter().all(|&s| s == 1), "q {q} d {d}");
            }
        }
        // One process: its own neighbour (PMB Sendrecv and Exchange on 1 process).
        let one = Placement::Shift(1).role(0, 1);
        assert_eq!((one.active, one.to, one.from), (true, Some(0), Some(0)));
        // The cycle through zero at distance 2 in 6: 0, 2, 4.
        assert_eq!(Placement::ShiftZero(2).active(6), vec![0, 2, 4]);
        assert_eq!(Placement::ShiftZero(1).active(3), vec![0, 1, 2]);
    }

    #[test]
    fn dims_create_is_balanced_and_non_increasing() {
        assert_eq!(dims_create(1, 3), vec![1, 1, 1]);
        assert_eq!(dims_create(2, 3), vec![2, 1, 1]);
        assert_eq!(dims_create(4, 3), vec![2, 2, 1]);
        assert_eq!(dims_create(8, 3), vec![2, 2, 2]);
        assert_eq!(dims_create(12, 3), vec![3, 2, 2]);
        assert_eq!(dims_create(16, 3), vec![4, 2, 2]);
        assert_eq!(dims_create(7, 3), vec![7, 1, 1]);
        assert_eq!(dims_create(60, 3), vec![5, 4, 3]);
        for n in 1..200 {
            assert_eq!(dims_create(n, 3).iter().product::<usize>(), n);
        }
    }

    #[test]
    fn cart3d_neighbours_are_periodic_and_mutual() {
        for q in 1..13 {
            for r in 0..q {
                let c = Placement::Cart3d.role(r, q).cart.unwrap();
                assert_eq!(cart_rank(&c.coords, &c.dims), r);
                for k in 0..6 {
                    let n = c.neighbours[k];
                    let back = Placement::Cart3d.role(n, q).cart.unwrap().neighbours[k ^ 1];
                    assert_eq!(back, r, "q {q} rank {r} dir {k}");
                }
            }
        }
        let c = Placement::Cart3d.role(0, 8).cart.unwrap();
        assert_eq!(c.neighbours, [4, 4, 2, 2, 1, 1]);
    }

    #[test]
    fn rings_give_mutual_neighbour_lists() {
        assert_eq!(Placement::Ring(2).role(0, 8).neighbours, vec![7, 1, 6, 2]);
        for p in [Placement::Ring(3), Placement::RandomRing(3, 42)] {
            for q in [7, 8, 12] {
                for r in 0..q {
                    let n = p.role(r, q).neighbours;
                    assert_eq!(n.len(), 6);
                    let mut d = n.clone();
                    d.sort_unstable();
                    d.dedup();
                    assert_eq!(d.len(), 6, "{p:?} q {q} r {r}: {n:?}");
                    assert!(!n.contains(&r));
                    for x in n {
                        assert!(p.role(x, q).neighbours.contains(&r), "{p:?} {q} {r} {x}");
                    }
                }
            }
        }
        let a = permutation(12, 7);
        assert_eq!(a, permutation(12, 7));
        assert_ne!(a, permutation(12, 8));
        let mut s = a.clone();
        s.sort_unstable();
        assert_eq!(s, (0..12).collect::<Vec<_>>());
        assert_ne!(a, (0..12).collect::<Vec<_>>());
    }
}
