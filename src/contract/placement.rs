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
    /// Pairs i ↔ i + n for i < n, i initiating; ranks from 2n on idle
    /// (OSU's `-p n` of osu_mbw_mr and osu_multi_lat; n = Q/2 is `Halves`).
    FirstPairs(usize),
    /// Rank 0 is the hub, every other rank a leaf that partners only the
    /// hub (OSU's fan-in and fan-out with one process per node): the hub
    /// initiates and lists the leaves in `neighbours`, in rank order.
    Star,
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
    pub fn peer(&self) -> Option<usize> {
        self.to.filter(|t| Some(*t) == self.from)
    }
}

/// Greatest common divisor.
pub fn gcd(a: usize, b: usize) -> usize {
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
            Placement::FirstPairs(n) => format!("i<->i+{n}"),
            Placement::Star => "0<->all".into(),
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
            Placement::FirstPairs(n) => {
                if n == 0 || rank >= 2 * n || 2 * n > q {
                    Role::idle()
                } else if rank < n {
                    Role::pair(rank + n, true)
                } else {
                    Role::pair(rank - n, false)
                }
            }
            Placement::Star => {
                if q < 2 {
                    Role::idle()
                } else if rank == 0 {
                    Role {
                        active: true,
                        initiator: true,
                        neighbours: (1..q).collect(),
                        ..Role::default()
                    }
                } else {
                    Role::pair(0, false)
                }
            }
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
            Placement::Shift(d) => shift_role(d, rank, q, false),
            Placement::ShiftZero(d) => shift_role(d, rank, q, true),
            Placement::Cart3d => cart3d_role(rank, q),
            Placement::Ring(k) => ring_role(&(0..q).collect::<Vec<_>>(), rank, k),
            Placement::RandomRing(k, seed) => ring_role(&permutation(q, seed), rank, k),
        }
    }

    /// The ranks of a group of `q` that are active.
    #[cfg(test)]
    pub fn active(&self, q: usize) -> Vec<usize> {
        (0..q).filter(|&r| self.role(r, q).active).collect()
    }
}

/// A rank's role on a ring at distance `d` (`Shift`), or only on the
/// cycle through node zero (`ShiftZero`).
fn shift_role(d: usize, rank: usize, q: usize, zero_only: bool) -> Role {
    let d = d % q;
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

/// A rank's role in a periodic 3-D grid from MPI_Dims_create(q, 3).
fn cart3d_role(rank: usize, q: usize) -> Role {
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

/// A rank's role on the ring `order` (the ranks in ring order) with
/// neighbours at distances 1 .. k both ways.
fn ring_role(order: &[usize], rank: usize, k: usize) -> Role {
    let q = order.len();
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

/// The runs of consecutive numbers in `v`, as (first, last): [0, 1, 2, 5]
/// gives (0, 2), (5, 5).
pub fn runs(v: &[usize]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        out.push((v[i], v[j]));
        i = j + 1;
    }
    out
}

/// "node1 (ranks 0, 1), node2 (rank 2)": world ranks grouped by host, in
/// order of first appearance, runs of consecutive ranks written a-b.
pub fn ranks_on_hosts(ranks: &[usize], hosts: &[String]) -> String {
    let mut by: Vec<(&str, Vec<usize>)> = Vec::new();
    for (r, h) in ranks.iter().zip(hosts) {
        match by.iter_mut().find(|(x, _)| *x == h.as_str()) {
            Some((_, v)) => v.push(*r),
            None => by.push((h.as_str(), vec![*r])),
        }
    }
    by.iter()
        .map(|(h, rs)| {
            let runs: Vec<String> = runs(rs)
                .into_iter()
                .map(|(a, b)| match b - a {
                    0 => a.to_string(),
                    1 => format!("{a}, {b}"),
                    _ => format!("{a}-{b}"),
                })
                .collect();
            let word = if rs.len() == 1 { "rank" } else { "ranks" };
            format!("{h} ({word} {})", runs.join(", "))
        })
        .collect::<Vec<_>>()
        .join(", ")
}
