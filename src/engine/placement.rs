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

/// The ranks of the groups (`members`) that are not among the `active`
/// ones: they sat out, e.g. unpaired.
pub fn sat_out(members: &[Vec<usize>], active: &[usize]) -> Vec<usize> {
    let mut v: Vec<usize> = members
        .iter()
        .flatten()
        .copied()
        .filter(|w| !active.contains(w))
        .collect();
    v.sort_unstable();
    v
}

/// Where the partners of a pair placement run (`--pairs`): on different
/// hosts, on the same host, or wherever the ranks happen to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Pairs {
    /// The first Q ranks in rank order, wherever they run (PMB).
    #[default]
    Any,
    /// Every partner on another host.
    Inter,
    /// Every partner on the same host.
    Intra,
}

impl Pairs {
    pub fn name(self) -> &'static str {
        match self {
            Pairs::Any => "any",
            Pairs::Inter => "inter",
            Pairs::Intra => "intra",
        }
    }
}

impl Placement {
    /// The partner links (a, b), a < b, of a group of `q`: pair partners,
    /// ring neighbours and Cartesian neighbours; `None` when the placement
    /// has no partners (`All`).
    #[cfg(test)]
    pub fn edges(&self, q: usize) -> Option<Vec<(usize, usize)>> {
        Links::of(&[*self], q).edges
    }

    fn own_edges(&self, q: usize) -> Option<Vec<(usize, usize)>> {
        if *self == Placement::All {
            return None;
        }
        let mut e: Vec<(usize, usize)> = Vec::new();
        for r in 0..q {
            let role = self.role(r, q);
            if !role.active {
                continue;
            }
            let cart = role.cart.map(|c| c.neighbours.to_vec()).unwrap_or_default();
            let near = role.neighbours.iter().copied();
            for p in role.to.into_iter().chain(role.from).chain(cart).chain(near) {
                if p != r {
                    e.push((r.min(p), r.max(p)));
                }
            }
        }
        e.sort_unstable();
        e.dedup();
        Some(e)
    }
}

/// The partner links of a benchmark whose points may pair ranks
/// differently (`Benchmark::placement`): the union over its placements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Links {
    /// (a, b), a < b; `None` when no placement has partners.
    pub edges: Option<Vec<(usize, usize)>>,
    /// The placements' names, for the reasons of a skip.
    pub name: String,
    /// Every rank of a group of 3 or more partners every other (mpiGraph's
    /// shifts): the benchmark measures both kinds of pairs, and `--pairs`
    /// does not apply.
    pub all_pairs: bool,
}

impl Links {
    pub fn of(placements: &[Placement], q: usize) -> Links {
        let mut names: Vec<String> = placements.iter().map(|p| p.name()).collect();
        names.dedup();
        let mut edges: Option<Vec<(usize, usize)>> = None;
        for p in placements {
            if let Some(e) = p.own_edges(q) {
                edges.get_or_insert_with(Vec::new).extend(e);
            }
        }
        if let Some(e) = edges.as_mut() {
            e.sort_unstable();
            e.dedup();
        }
        let all_pairs = q >= 3 && edges.as_ref().is_some_and(|e| e.len() == q * (q - 1) / 2);
        Links {
            edges,
            name: names.join("/"),
            all_pairs,
        }
    }
}

/// The world ranks of each of `groups` groups of `q`, in group-rank order,
/// so that the partners of `placement` are on other hosts (`Inter`) or on
/// the same host (`Intra`); `host_of[w]` is the host of world rank `w`.
/// `Any`, and placements without partners, keep PMB's order: group g holds
/// world ranks g·q .. (g+1)·q. `Err` says why the hosts cannot meet it.
pub fn arrange(
    placement: &Links,
    q: usize,
    groups: usize,
    host_of: &[usize],
    pairs: Pairs,
) -> Result<Vec<Vec<usize>>, String> {
    let identity = || {
        (0..groups)
            .map(|g| (g * q..(g + 1) * q).collect())
            .collect()
    };
    let edges = match (pairs, &placement.edges) {
        (Pairs::Any, _) | (_, None) => return Ok(identity()),
        _ if placement.all_pairs => return Ok(identity()),
        (_, Some(e)) => e.clone(),
    };
    let hosts = host_of.iter().copied().max().map_or(0, |m| m + 1);
    // Free world ranks per host, lowest first.
    let mut free: Vec<std::collections::VecDeque<usize>> = vec![Default::default(); hosts];
    for (w, &h) in host_of.iter().enumerate() {
        free[h].push_back(w);
    }
    let held = free
        .iter()
        .filter(|f| !f.is_empty())
        .map(|f| f.len().to_string())
        .collect::<Vec<_>>()
        .join(" + ");
    if pairs == Pairs::Inter && hosts < 2 {
        return Err(format!(
            "--pairs inter needs ranks on two hosts or more; all {} ranks run on one host",
            host_of.len()
        ));
    }
    let mut adj = vec![Vec::new(); q];
    for &(a, b) in &edges {
        adj[a].push(b);
        adj[b].push(a);
    }
    // Connected components, each in breadth-first order from its lowest rank.
    let mut comp_of = vec![usize::MAX; q];
    let mut comps: Vec<Vec<usize>> = Vec::new();
    for s in 0..q {
        if comp_of[s] != usize::MAX || adj[s].is_empty() {
            continue;
        }
        let mut c = vec![s];
        comp_of[s] = comps.len();
        let mut i = 0;
        while i < c.len() {
            for &n in &adj[c[i]] {
                if comp_of[n] == usize::MAX {
                    comp_of[n] = comps.len();
                    c.push(n);
                }
            }
            i += 1;
        }
        comps.push(c);
    }
    let mut out = Vec::with_capacity(groups);
    for _ in 0..groups {
        let mut host: Vec<Option<usize>> = vec![None; q];
        let mut left: Vec<usize> = free.iter().map(|f| f.len()).collect();
        // The host with the most free ranks among `ok`; ties go to the lower host.
        let pick = |left: &[usize], ok: &dyn Fn(usize) -> bool, need: usize| {
            (0..left.len())
                .filter(|&h| left[h] >= need && ok(h))
                .max_by(|&a, &b| left[a].cmp(&left[b]).then(b.cmp(&a)))
        };
        match pairs {
            Pairs::Intra => {
                let mut order: Vec<&Vec<usize>> = comps.iter().collect();
                order.sort_by_key(|c| std::cmp::Reverse(c.len()));
                for c in order {
                    let Some(h) = pick(&left, &|_| true, c.len()) else {
                        let most = left.iter().max().copied().unwrap_or(0);
                        return Err(format!(
                            "--pairs intra cannot be met: {} on {q} processes links {} ranks that must share a host, and no host has {} ranks left (at most {most})",
                            placement.name,
                            c.len(),
                            c.len()
                        ));
                    };
                    left[h] -= c.len();
                    for &v in c {
                        host[v] = Some(h);
                    }
                }
            }
            Pairs::Inter | Pairs::Any => {
                for c in &comps {
                    for &v in c {
                        let taken: Vec<usize> = adj[v].iter().filter_map(|&n| host[n]).collect();
                        let Some(h) = pick(&left, &|h| !taken.contains(&h), 1) else {
                            return Err(format!(
                                "--pairs inter cannot be met: {} on {q} processes needs every partner on another host, and the hosts hold {} ranks",
                                placement.name,
                                held
                            ));
                        };
                        left[h] -= 1;
                        host[v] = Some(h);
                    }
                }
            }
        }
        // Ranks without partners (the idle rank of an odd group) take what is left.
        for slot in host.iter_mut() {
            if slot.is_none() {
                let Some(h) = pick(&left, &|_| true, 1) else {
                    return Err(format!(
                        "{} groups of {q} need {} ranks; the run has {}",
                        groups,
                        groups * q,
                        host_of.len()
                    ));
                };
                left[h] -= 1;
                *slot = Some(h);
            }
        }
        let members: Vec<usize> = host
            .iter()
            .map(|h| free[h.expect("assigned")].pop_front().expect("counted"))
            .collect();
        out.push(members);
    }
    Ok(out)
}

/// IMB's `-map PxQ`: the world ranks in the order of their new ranks. IMB
/// splits the world with the key (Q·r) mod (PQ − 1) (r itself for r = 0 and
/// r = PQ − 1), which for r = n·P + l, the l-th rank of node n when nodes
/// are filled first, is l·Q + n: new ranks 0 .. Q−1 are the first rank of
/// every node, then the second ones, so that new ranks 0 and 1 (PingPong's
/// pair) are on different nodes ("inter node first"). P = 1 or Q = 1 keeps
/// the order. Ranks from PQ on (P·Q < world) follow in their own order.
pub fn imb_map_order(p: usize, q: usize, world: usize) -> Vec<usize> {
    let pq = p * q;
    let key = |r: usize| if r < pq { (r % p) * q + r / p } else { r };
    let mut order: Vec<usize> = (0..world).collect();
    order.sort_by_key(|&r| key(r));
    order
}

/// A renumbering of the world's ranks that the groups are cut from, as
/// consecutive slices of the new order (IMB's `-map PxQ`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum RankOrder {
    /// `per_node` ranks on each of `nodes` nodes, filled node by node,
    /// renumbered "inter node first" ([`imb_map_order`]).
    InterNodeFirst { per_node: usize, nodes: usize },
}

impl RankOrder {
    /// The new order of the world's ranks.
    pub fn order(self, world: usize) -> Vec<usize> {
        match self {
            RankOrder::InterNodeFirst { per_node, nodes } => imb_map_order(per_node, nodes, world),
        }
    }

    /// As the results state it ("PxQ").
    pub fn label(self) -> String {
        match self {
            RankOrder::InterNodeFirst { per_node, nodes } => format!("{per_node}x{nodes}"),
        }
    }

    /// The rows in which IMB lists the ranks it renumbered (`-map PxQ`: P
    /// rows, when P and Q are both above 1).
    pub fn rows(self) -> Option<usize> {
        match self {
            RankOrder::InterNodeFirst { per_node, nodes } => {
                (per_node > 1 && nodes > 1).then_some(per_node)
            }
        }
    }

    /// The world ranks of `groups` groups of `size`: consecutive slices of
    /// the new order, as IMB's groups are consecutive new ranks.
    pub fn groups(self, size: usize, groups: usize, world: usize) -> Vec<Vec<usize>> {
        let order = self.order(world);
        (0..groups)
            .map(|g| order[g * size..(g + 1) * size].to_vec())
            .collect()
    }
}

/// Whether the partners of `placement` among `members` (world ranks in
/// group order) are all on other hosts ("inter"), all on the same host
/// ("intra"), or both ("mixed"); `None` without partners.
pub fn pair_kind(placement: &Links, members: &[usize], host_of: &[usize]) -> Option<&'static str> {
    let edges = placement.edges.as_ref()?;
    let host = |g: usize| host_of.get(members[g]).copied();
    let inter = edges.iter().filter(|&&(a, b)| host(a) != host(b)).count();
    match (inter, edges.len() - inter) {
        (0, 0) => None,
        (_, 0) => Some("inter"),
        (0, _) => Some("intra"),
        _ => Some("mixed"),
    }
}

/// Distinct hosts in order of first appearance, and each rank's index into them.
pub fn host_index(hosts: &[String]) -> (Vec<String>, Vec<usize>) {
    let mut names: Vec<String> = Vec::new();
    let idx = hosts
        .iter()
        .map(|h| match names.iter().position(|n| n == h) {
            Some(i) => i,
            None => {
                names.push(h.clone());
                names.len() - 1
            }
        })
        .collect();
    (names, idx)
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
    fn first_pairs_and_star() {
        assert_eq!(
            pairs(Placement::FirstPairs(1), 4),
            vec![(0, 1, true), (1, 0, false)]
        );
        assert_eq!(
            pairs(Placement::FirstPairs(2), 5),
            pairs(Placement::Halves, 5)
        );
        assert_eq!(Placement::FirstPairs(2).active(6), vec![0, 1, 2, 3]);
        // More pairs than the group holds: nobody.
        assert!(Placement::FirstPairs(3).active(4).is_empty());
        let hub = Placement::Star.role(0, 4);
        assert!(hub.active && hub.initiator);
        assert_eq!(hub.neighbours, vec![1, 2, 3]);
        assert_eq!(
            pairs(Placement::Star, 3),
            vec![(1, 0, false), (2, 0, false)]
        );
        assert!(Placement::Star.active(1).is_empty());
        assert_eq!(Placement::Star.edges(4), Some(vec![(0, 1), (0, 2), (0, 3)]));
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
        assert_eq!(sat_out(&[vec![0, 1, 2]], &[0, 2]), vec![1]);
        assert_eq!(
            sat_out(&[vec![3, 1], vec![0, 2]], &[3, 1, 0, 2]),
            Vec::<usize>::new()
        );
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
    fn imb_map_numbers_inter_node_first() {
        // 2 nodes of 2 ranks, nodes filled first (0, 1 | 2, 3), -map 2x2:
        // new ranks 0, 1, 2, 3 are world 0, 2, 1, 3; PingPong's 0 <-> 1 crosses nodes.
        assert_eq!(imb_map_order(2, 2, 4), vec![0, 2, 1, 3]);
        // 3 nodes of 4: the first rank of every node, then the second ones, ...
        assert_eq!(
            imb_map_order(4, 3, 12),
            vec![0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]
        );
        // P = 1 or Q = 1: the order stays; ranks beyond P·Q follow in order.
        assert_eq!(imb_map_order(1, 4, 4), vec![0, 1, 2, 3]);
        assert_eq!(imb_map_order(4, 1, 4), vec![0, 1, 2, 3]);
        assert_eq!(imb_map_order(2, 2, 6), vec![0, 2, 1, 3, 4, 5]);
        // IMB's key, (Q·r) mod (PQ − 1) with r kept for 0 and PQ − 1, sorts the same.
        for (p, q) in [(2, 3), (3, 2), (4, 4), (5, 3), (2, 7)] {
            let pq = p * q;
            let mut by_key: Vec<usize> = (0..pq).collect();
            by_key.sort_by_key(|&r| match (q * r) % (pq - 1) {
                0 => r,
                k => k,
            });
            assert_eq!(imb_map_order(p, q, pq), by_key, "{p}x{q}");
        }
        // Groups are consecutive new ranks: two groups of 2 under -map 2x2.
        let map = |per_node, nodes| RankOrder::InterNodeFirst { per_node, nodes };
        assert_eq!(map(2, 2).groups(2, 2, 4), vec![vec![0, 2], vec![1, 3]]);
        assert_eq!(map(2, 2).groups(3, 1, 4), vec![vec![0, 2, 1]]);
        assert_eq!(map(2, 2).label(), "2x2");
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

    fn hosts(per: &[usize]) -> Vec<usize> {
        per.iter()
            .enumerate()
            .flat_map(|(h, &n)| vec![h; n])
            .collect()
    }

    fn arrange(
        p: Placement,
        q: usize,
        groups: usize,
        h: &[usize],
        pairs: Pairs,
    ) -> Result<Vec<Vec<usize>>, String> {
        super::arrange(&Links::of(&[p], q), q, groups, h, pairs)
    }

    fn pair_kind(p: Placement, members: &[usize], h: &[usize]) -> Option<&'static str> {
        super::pair_kind(&Links::of(&[p], members.len()), members, h)
    }

    #[test]
    fn links_of_several_placements() {
        // The coarray ping-pong kinds on 4: 0-3, 0-2, 1-3, as one graph.
        let k = [Placement::Ends, Placement::Halves, Placement::Crossing];
        let l = Links::of(&k, 4);
        assert_eq!(l.edges, Some(vec![(0, 2), (0, 3), (1, 3)]));
        assert!(!l.all_pairs);
        let m = super::arrange(&l, 4, 1, &hosts(&[2, 2]), Pairs::Inter).unwrap();
        for (a, b) in l.edges.clone().unwrap() {
            assert_ne!(m[0][a] / 2, m[0][b] / 2, "{m:?}");
        }
        // mpiGraph's shifts 1..P-1 pair everyone: --pairs does not apply.
        let shifts: Vec<Placement> = (1..4).map(Placement::Shift).collect();
        let l = Links::of(&shifts, 4);
        assert!(l.all_pairs);
        assert_eq!(
            super::arrange(&l, 4, 1, &hosts(&[2, 2]), Pairs::Inter).unwrap(),
            vec![vec![0, 1, 2, 3]]
        );
        assert_eq!(Links::of(&[Placement::All], 4).edges, None);
    }

    fn check(p: Placement, q: usize, groups: usize, h: &[usize], pairs: Pairs) -> Vec<Vec<usize>> {
        let m = arrange(p, q, groups, h, pairs).unwrap();
        let mut all: Vec<usize> = m.iter().flatten().copied().collect();
        assert_eq!(all.len(), groups * q);
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), groups * q, "a world rank twice: {m:?}");
        for g in &m {
            for (a, b) in p.edges(q).unwrap_or_default() {
                let same = h[g[a]] == h[g[b]];
                match pairs {
                    Pairs::Inter => assert!(!same, "{p:?} {g:?} {a}-{b}"),
                    Pairs::Intra => assert!(same, "{p:?} {g:?} {a}-{b}"),
                    Pairs::Any => {}
                }
            }
        }
        m
    }

    #[test]
    fn ranks_are_listed_per_host() {
        let h = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            ranks_on_hosts(&[0, 2], &h(&["node1", "node2"])),
            "node1 (rank 0), node2 (rank 2)"
        );
        assert_eq!(
            ranks_on_hosts(&[0, 1, 2, 3, 5, 4], &h(&["a", "a", "a", "a", "b", "b"])),
            "a (ranks 0-3), b (ranks 5, 4)"
        );
        assert_eq!(ranks_on_hosts(&[], &[]), "");
    }

    #[test]
    fn pairs_any_keeps_pmb_order() {
        let h = hosts(&[2, 2]);
        assert_eq!(
            arrange(Placement::Halves, 2, 1, &h, Pairs::Any).unwrap(),
            vec![vec![0, 1]]
        );
        assert_eq!(
            arrange(Placement::Halves, 2, 2, &h, Pairs::Any).unwrap(),
            vec![vec![0, 1], vec![2, 3]]
        );
        // Collectives have no partners: --pairs changes nothing.
        assert_eq!(
            arrange(Placement::All, 3, 1, &h, Pairs::Inter).unwrap(),
            vec![vec![0, 1, 2]]
        );
    }

    #[test]
    fn pingpong_inter_and_intra_on_two_hosts() {
        let h = hosts(&[2, 2]);
        assert_eq!(
            check(Placement::Halves, 2, 1, &h, Pairs::Inter),
            vec![vec![0, 2]]
        );
        assert_eq!(
            check(Placement::Halves, 2, 1, &h, Pairs::Intra),
            vec![vec![0, 1]]
        );
        assert_eq!(pair_kind(Placement::Halves, &[0, 2], &h), Some("inter"));
        assert_eq!(pair_kind(Placement::Halves, &[0, 1], &h), Some("intra"));
        assert_eq!(
            pair_kind(Placement::Halves, &[0, 1, 2, 3], &h),
            Some("inter")
        );
        assert_eq!(
            pair_kind(Placement::Xor(1), &[0, 1, 2, 3], &h),
            Some("intra")
        );
        assert_eq!(
            pair_kind(Placement::Shift(1), &[0, 1, 2, 3], &h),
            Some("mixed")
        );
        assert_eq!(pair_kind(Placement::All, &[0, 1], &h), None);
        // Hosts given round-robin (node1, node2, node1, node2).
        let rr = vec![0, 1, 0, 1];
        assert_eq!(
            check(Placement::Halves, 2, 1, &rr, Pairs::Inter),
            vec![vec![0, 1]]
        );
        assert_eq!(
            check(Placement::Halves, 2, 1, &rr, Pairs::Intra),
            vec![vec![0, 2]]
        );
    }

    #[test]
    fn every_pair_placement_can_be_arranged() {
        for per in [vec![2, 2], vec![4, 4], vec![3, 3, 2], vec![2, 2, 2, 2]] {
            let h = hosts(&per);
            let n = h.len();
            for q in 2..=n {
                for p in [
                    Placement::Halves,
                    Placement::Crossing,
                    Placement::Ends,
                    Placement::Xor(1),
                    Placement::XorZero(1),
                ] {
                    check(p, q, 1, &h, Pairs::Inter);
                }
                // A ring at distance 1 of even length alternates hosts.
                if q % 2 == 0 {
                    check(Placement::Shift(1), q, 1, &h, Pairs::Inter);
                    check(Placement::ShiftZero(1), q, 1, &h, Pairs::Inter);
                }
            }
            for q in [2, 4] {
                for p in [Placement::Halves, Placement::Crossing, Placement::Xor(1)] {
                    check(p, q, 1, &h, Pairs::Intra);
                }
            }
        }
        // Multi mode: two disjoint groups of inter-host pairs.
        let m = check(Placement::Halves, 2, 2, &hosts(&[2, 2]), Pairs::Inter);
        assert_eq!(m, vec![vec![0, 2], vec![1, 3]]);
    }

    #[test]
    fn impossible_placements_say_why() {
        let one = hosts(&[4]);
        let e = arrange(Placement::Halves, 2, 1, &one, Pairs::Inter).unwrap_err();
        assert!(e.contains("two hosts"), "{e}");
        let e = arrange(Placement::Shift(1), 4, 1, &hosts(&[2, 2]), Pairs::Intra).unwrap_err();
        assert!(e.contains("must share a host"), "{e}");
        // An odd ring cannot alternate between two hosts.
        let e = arrange(Placement::Shift(1), 5, 1, &hosts(&[3, 2]), Pairs::Inter).unwrap_err();
        assert!(e.contains("another host"), "{e}");
        // Four pairs across hosts of 3 and 1 ranks: only one pair fits.
        let e = arrange(Placement::Halves, 4, 1, &hosts(&[3, 1]), Pairs::Inter).unwrap_err();
        assert!(e.contains("3 + 1") || e.contains("another host"), "{e}");
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
