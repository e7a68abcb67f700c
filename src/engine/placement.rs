//! Arranging groups on hosts: `--pairs` (inter- or intra-host partners),
//! `--rank-order`, and the partner links of a benchmark's placements. The
//! placements themselves, and the role of each rank, are the contract's
//! (`crate::contract::placement`).

use serde::{Deserialize, Serialize};

use crate::contract::placement::Placement;

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
    let comps = components(&adj);
    let mut out = Vec::with_capacity(groups);
    for _ in 0..groups {
        let mut host: Vec<Option<usize>> = vec![None; q];
        let mut left: Vec<usize> = free.iter().map(|f| f.len()).collect();
        let linked = Linked {
            name: &placement.name,
            q,
            comps: &comps,
            adj: &adj,
        };
        match pairs {
            Pairs::Intra => linked.intra(&mut left, &mut host)?,
            Pairs::Inter | Pairs::Any => linked.inter(&mut left, &mut host, &held)?,
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

/// Connected components of the partner graph `adj`, each in breadth-first
/// order from its lowest rank (ranks without partners are in none).
fn components(adj: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let q = adj.len();
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
    comps
}

/// The host with the most free ranks (`left`, at least `need`) among `ok`;
/// ties go to the lower host.
fn pick(left: &[usize], ok: &dyn Fn(usize) -> bool, need: usize) -> Option<usize> {
    (0..left.len())
        .filter(|&h| left[h] >= need && ok(h))
        .max_by(|&a, &b| left[a].cmp(&left[b]).then(b.cmp(&a)))
}

/// The linked ranks of one group, to be given hosts.
struct Linked<'a> {
    name: &'a str,
    q: usize,
    comps: &'a [Vec<usize>],
    adj: &'a [Vec<usize>],
}

impl Linked<'_> {
    /// `--pairs intra`: each component on one host, the largest first.
    fn intra(&self, left: &mut [usize], host: &mut [Option<usize>]) -> Result<(), String> {
        let q = self.q;
        let mut order: Vec<&Vec<usize>> = self.comps.iter().collect();
        order.sort_by_key(|c| std::cmp::Reverse(c.len()));
        for c in order {
            let Some(h) = pick(left, &|_| true, c.len()) else {
                let most = left.iter().max().copied().unwrap_or(0);
                return Err(format!(
                    "--pairs intra cannot be met: {} on {q} processes links {} ranks that must share a host, and no host has {} ranks left (at most {most})",
                    self.name,
                    c.len(),
                    c.len()
                ));
            };
            left[h] -= c.len();
            for &v in c {
                host[v] = Some(h);
            }
        }
        Ok(())
    }

    /// `--pairs inter`: every partner of a rank on another host than its own.
    fn inter(
        &self,
        left: &mut [usize],
        host: &mut [Option<usize>],
        held: &str,
    ) -> Result<(), String> {
        let q = self.q;
        for c in self.comps {
            for &v in c {
                let taken: Vec<usize> = self.adj[v].iter().filter_map(|&n| host[n]).collect();
                let Some(h) = pick(left, &|h| !taken.contains(&h), 1) else {
                    return Err(format!(
                        "--pairs inter cannot be met: {} on {q} processes needs every partner on another host, and the hosts hold {} ranks",
                        self.name, held
                    ));
                };
                left[h] -= 1;
                host[v] = Some(h);
            }
        }
        Ok(())
    }
}

/// IMB's `-map PxQ`: the world ranks in the order of their new ranks. IMB
/// splits the world with the key (Q·r) mod (PQ − 1) (r itself for r = 0 and
/// r = PQ − 1), which for r = n·P + l, the l-th rank of node n when nodes
/// are filled first, is l·Q + n: new ranks 0 .. Q−1 are the first rank of
/// every node, then the second ones, so that new ranks 0 and 1 (PingPong's
/// pair) are on different nodes ("inter node first"). P = 1 or Q = 1 keeps
/// the order. Ranks from PQ on (P·Q < world) follow in their own order.
pub fn inter_node_first_order(p: usize, q: usize, world: usize) -> Vec<usize> {
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
    /// renumbered "inter node first" ([`inter_node_first_order`]).
    InterNodeFirst { per_node: usize, nodes: usize },
}

impl RankOrder {
    /// The new order of the world's ranks.
    pub fn order(self, world: usize) -> Vec<usize> {
        match self {
            RankOrder::InterNodeFirst { per_node, nodes } => {
                inter_node_first_order(per_node, nodes, world)
            }
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

pub use crate::contract::placement::ranks_on_hosts;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::placement::*;

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
        assert_eq!(inter_node_first_order(2, 2, 4), vec![0, 2, 1, 3]);
        // 3 nodes of 4: the first rank of every node, then the second ones, ...
        assert_eq!(
            inter_node_first_order(4, 3, 12),
            vec![0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]
        );
        // P = 1 or Q = 1: the order stays; ranks beyond P·Q follow in order.
        assert_eq!(inter_node_first_order(1, 4, 4), vec![0, 1, 2, 3]);
        assert_eq!(inter_node_first_order(4, 1, 4), vec![0, 1, 2, 3]);
        assert_eq!(inter_node_first_order(2, 2, 6), vec![0, 2, 1, 3, 4, 5]);
        // IMB's key, (Q·r) mod (PQ − 1) with r kept for 0 and PQ − 1, sorts the same.
        for (p, q) in [(2, 3), (3, 2), (4, 4), (5, 3), (2, 7)] {
            let pq = p * q;
            let mut by_key: Vec<usize> = (0..pq).collect();
            by_key.sort_by_key(|&r| match (q * r) % (pq - 1) {
                0 => r,
                k => k,
            });
            assert_eq!(inter_node_first_order(p, q, pq), by_key, "{p}x{q}");
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
