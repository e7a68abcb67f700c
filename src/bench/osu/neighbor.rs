//! OSU's neighbourhood collectives (OMB 7.4): `osu_neighbor_allgather[v]`,
//! `osu_neighbor_alltoall[v,w]` and their non-blocking `osu_ineighbor_*`
//! forms, on the topology of `-N`:
//!
//! * `-N cart:D:R` (the default, `cart:1:1`): the periodic grid of D
//!   dimensions that `MPI_Dims_create` / `MPI_Cart_create` (no reordering)
//!   give for the processes; every rank's neighbours are the ranks at the
//!   (2R + 1)^D − 1 displacements of [−R, R]^D other than 0, in
//!   lexicographic order (the last dimension fastest), both in and out. R
//!   must be at most (smallest dimension − 1)/2, so that no neighbour
//!   repeats; OMB prints `Dimensions size = ...` first;
//! * `-N graph:FILE`: one directed edge `SOURCE,DESTINATION` per line
//!   (lines starting with `#` are comments); a rank receives from the
//!   sources of its in-edges and sends to the destinations of its
//!   out-edges, in the order of the file.
//!
//! Either way the benchmark runs on the `MPI_Dist_graph_create_adjacent`
//! communicator of those lists (weights 1, no reordering), built per point
//! outside the timed region. Every block is X bytes: allgather sends the
//! same X bytes to every destination, alltoall block i to destination i;
//! the v forms use equal counts, the w form byte displacements, as OMB.
//! Timing as the other OSU collectives: blocking forms per call with a
//! barrier between calls; non-blocking forms with OSU's overlap figures
//! ([`super::nbc::Overlapped`]).
//!
//! Differences from OMB: mpibench checks every rank named in a graph file
//! (OMB only the edges of each rank), refuses malformed lines and repeated
//! edges (OMB reads what `atoi` makes of them), and a radius that does not
//! fit is a usage error (exit 2; OMB prints it and exits 0). OMB's
//! `Time took to create topology graph:T us.` line gives rank 0's time in
//! `MPI_Dist_graph_create_adjacent` at the first size (the communicator is
//! built per size here; every row carries its own, `topology_create_us`).

use anyhow::Result;
use serde_json::Value;

use super::nbc::Overlapped;
use super::{COLL_REPS, INFO};
use crate::bench::buf::{Layout, Op, Pattern, Phased};
use crate::bench::{Benchmark, Class, Combine, Figure, Info, RankRule};
use crate::check::{Expect, Segment};
use crate::comm::neighbor::Neighbourhood;
use crate::comm::topo;
use crate::contract::axis::{Axes, Point, SweepCx};
use crate::contract::placement::Role;
use crate::method::Method;

/// OMB's default topology.
pub const DEFAULT: &str = "cart:1:1";

/// The plan axis that carries `-N` (its text, one byte per value).
pub const AXIS: &str = "osu_topology";

/// The row params: the topology and, for a grid, its dimensions.
pub const TOPOLOGY: &str = "topology";
pub const DIMS: &str = "dims";
/// The row param: rank 0's microseconds in `MPI_Dist_graph_create_adjacent`.
pub const CREATED: &str = "topology_create_us";

/// What `-N` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Spec {
    /// A periodic grid of `d` dimensions, neighbours within radius `r`.
    Cart { d: usize, r: usize },
    /// The directed edges of a file.
    Graph(String),
}

impl Spec {
    /// `cart:D:R` or `graph:FILE` (the kind in any case, as OMB).
    pub fn parse(v: &str) -> Result<Spec, String> {
        let bad = || {
            format!("invalid argument '{v}' for -N (cart:DIMENSIONS:RADIUS with both >= 1, or graph:FILE)")
        };
        let (kind, rest) = v.split_once(':').ok_or_else(bad)?;
        if kind.eq_ignore_ascii_case("cart") {
            let (d, r) = rest.split_once(':').ok_or_else(bad)?;
            let num = |t: &str| t.trim().parse::<usize>().ok().filter(|n| *n >= 1);
            match (num(d), num(r)) {
                (Some(d), Some(r)) if d <= 64 => Ok(Spec::Cart { d, r }),
                _ => Err(bad()),
            }
        } else if kind.eq_ignore_ascii_case("graph") && !rest.is_empty() {
            Ok(Spec::Graph(rest.to_string()))
        } else {
            Err(bad())
        }
    }

    /// As `-N` spells it.
    pub fn label(&self) -> String {
        match self {
            Spec::Cart { d, r } => format!("cart:{d}:{r}"),
            Spec::Graph(f) => format!("graph:{f}"),
        }
    }
}

/// Every rank's sources and destinations, in block order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Adjacency {
    pub sources: Vec<Vec<usize>>,
    pub destinations: Vec<Vec<usize>>,
}

impl Adjacency {
    /// For every source of `rank`, the block of that source's send buffer
    /// that goes to `rank` (edges never repeat, so it is unique).
    pub fn source_blocks(&self, rank: usize) -> Vec<usize> {
        self.sources[rank]
            .iter()
            .map(|&s| {
                self.destinations[s]
                    .iter()
                    .position(|&d| d == rank)
                    .expect("every in-edge is an out-edge of its source")
            })
            .collect()
    }
}

/// The edges of a graph file's text: `SOURCE,DESTINATION` per line, `#`
/// comments and blank lines skipped; no edge twice.
pub fn parse_graph(text: &str, file: &str) -> Result<Vec<(usize, usize)>, String> {
    let mut edges: Vec<(usize, usize)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = || {
            format!(
                "-N graph:{file}: line {}: '{t}' is not SOURCE,DESTINATION (two ranks)",
                i + 1
            )
        };
        let (a, b) = t.split_once(',').ok_or_else(bad)?;
        let a = a.trim().parse::<usize>().map_err(|_| bad())?;
        let b = b.trim().parse::<usize>().map_err(|_| bad())?;
        if edges.contains(&(a, b)) {
            return Err(format!(
                "-N graph:{file}: line {}: the edge {a},{b} repeats (mpibench builds graphs without repeated edges)",
                i + 1
            ));
        }
        edges.push((a, b));
    }
    Ok(edges)
}

/// The edges of a graph file.
pub fn read_graph(file: &str) -> Result<Vec<(usize, usize)>, String> {
    let text = crate::input::read_text(
        std::path::Path::new(file),
        crate::input::LIST_CAP,
        "the -N graph file",
        crate::input::Stdin::NotAllowed,
    )?;
    parse_graph(&text, file)
}

/// The adjacency of edges among `q` processes.
pub fn graph_adjacency(
    edges: &[(usize, usize)],
    q: usize,
    file: &str,
) -> Result<Adjacency, String> {
    if let Some(&(a, b)) = edges.iter().find(|&&(a, b)| a >= q || b >= q) {
        return Err(format!(
            "-N graph:{file}: the edge {a},{b} names rank {}, outside the {q} processes (ranks 0 to {})",
            a.max(b),
            q - 1
        ));
    }
    let mut adj = Adjacency {
        sources: vec![Vec::new(); q],
        destinations: vec![Vec::new(); q],
    };
    for &(a, b) in edges {
        adj.destinations[a].push(b);
        adj.sources[b].push(a);
    }
    Ok(adj)
}

/// Whether radius `r` fits a grid of `dims` (no neighbour twice).
pub fn cart_fits(dims: &[usize], r: usize, q: usize) -> Result<(), String> {
    let min = dims.iter().copied().min().unwrap_or(0);
    if min == 0 || r > (min - 1) / 2 {
        let shown: Vec<String> = dims.iter().map(usize::to_string).collect();
        return Err(format!(
            "-N cart:{}:{r}: radius {r} does not fit the grid of {q} processes with dimensions {} (at most (smallest dimension - 1)/2 = {}); use more processes or a smaller dimension count or radius",
            dims.len(),
            shown.join("x"),
            min.saturating_sub(1) / 2
        ));
    }
    Ok(())
}

/// The displacements of [−r, r]^d other than 0, the last dimension fastest.
pub fn cart_offsets(d: usize, r: usize) -> Vec<Vec<i64>> {
    let r = r as i64;
    let mut v = vec![-r; d];
    let mut out = Vec::new();
    loop {
        if v.iter().any(|&c| c != 0) {
            out.push(v.clone());
        }
        let mut i = d;
        loop {
            if i == 0 {
                return out;
            }
            i -= 1;
            if v[i] == r {
                v[i] = -r;
            } else {
                v[i] += 1;
                break;
            }
        }
    }
}

/// Row-major coordinates of `rank` in a grid of `dims` (MPI's Cartesian order).
fn coords(rank: usize, dims: &[usize]) -> Vec<i64> {
    let mut c = vec![0; dims.len()];
    let mut k = rank;
    for i in (0..dims.len()).rev() {
        c[i] = (k % dims[i]) as i64;
        k /= dims[i];
    }
    c
}

/// The rank at (periodic) coordinates.
fn rank_at(c: &[i64], dims: &[usize]) -> usize {
    c.iter()
        .zip(dims)
        .fold(0, |k, (&x, &n)| k * n + x.rem_euclid(n as i64) as usize)
}

/// The neighbours of every rank of a periodic grid (in = out).
pub fn cart_adjacency(dims: &[usize], r: usize) -> Adjacency {
    let q: usize = dims.iter().product();
    let offs = cart_offsets(dims.len(), r);
    let lists: Vec<Vec<usize>> = (0..q)
        .map(|k| {
            let c = coords(k, dims);
            offs.iter()
                .map(|v| {
                    let n: Vec<i64> = c.iter().zip(v).map(|(a, b)| a + b).collect();
                    rank_at(&n, dims)
                })
                .filter(|&n| n != k)
                .collect()
        })
        .collect();
    Adjacency {
        sources: lists.clone(),
        destinations: lists,
    }
}

/// This rank's neighbourhood on `op.comm`: the lists of `spec`, the Cartesian
/// ones through the library (MPI_Cart_create, MPI_Cart_coords,
/// MPI_Cart_rank) as OMB, then the graph communicator of them. Collective.
fn build(spec: &Spec, op: &Op) -> Result<Neighbourhood> {
    let (q, me) = (op.size, op.rank);
    let (adj, mine) = match spec {
        Spec::Cart { d, r } => {
            let dims = topo::dims_create(q, *d);
            cart_fits(&dims, *r, q).map_err(anyhow::Error::msg)?;
            let adj = cart_adjacency(&dims, *r);
            let cart = op.comm.cart(&dims)?;
            let c = cart.cart_coords(me, *d);
            let mine: Vec<usize> = cart_offsets(*d, *r)
                .iter()
                .map(|v| {
                    let n: Vec<i64> = c.iter().zip(v).map(|(a, b)| a + b).collect();
                    cart.cart_rank(&n)
                })
                .filter(|&n| n != me)
                .collect();
            if mine != adj.destinations[me] {
                anyhow::bail!(
                    "rank {me}: the library's Cartesian neighbours {mine:?} differ from the row-major grid's {:?}",
                    adj.destinations[me]
                );
            }
            (adj, mine.clone())
        }
        Spec::Graph(file) => {
            let edges = read_graph(file).map_err(anyhow::Error::msg)?;
            let adj = graph_adjacency(&edges, q, file).map_err(anyhow::Error::msg)?;
            let mine = adj.destinations[me].clone();
            (adj, mine)
        }
    };
    let blocks = adj.source_blocks(me);
    Ok(Neighbourhood::new(
        op.comm,
        adj.sources[me].clone(),
        mine,
        blocks,
        &op.msg,
        op.x,
    )?)
}

/// The topology of a run: `-N` from the plan, or OMB's default.
pub fn spec_of(axes: &Axes) -> Spec {
    axes.get(AXIS)
        .map(|v| {
            String::from_utf8_lossy(&v.iter().map(|&b| b as u8).collect::<Vec<u8>>()).into_owned()
        })
        .and_then(|s| Spec::parse(&s).ok())
        .unwrap_or(Spec::Cart { d: 1, r: 1 })
}

fn spec_at(p: &Point) -> Spec {
    p.str(TOPOLOGY)
        .and_then(|s| Spec::parse(s).ok())
        .unwrap_or(Spec::Cart { d: 1, r: 1 })
}

/// The programs that take `-N`.
pub fn is_neighbour(name: &str) -> bool {
    name.starts_with("osu_neighbor_") || name.starts_with("osu_ineighbor_")
}

/// OMB's lines before the title: a grid's `Dimensions size = 2 2 `, then
/// `Time took to create topology graph:115.25 us.`.
pub fn preamble(row: &crate::results::Row) -> Option<String> {
    let mut s = String::new();
    if let Some(dims) = row.params.get(DIMS).and_then(Value::as_array) {
        s.push_str("Dimensions size = ");
        for d in dims {
            s.push_str(&format!("{} ", d.as_u64()?));
        }
        s.push('\n');
    }
    if let Some(t) = row.params.get(CREATED).and_then(Value::as_f64) {
        s.push_str(&format!("Time took to create topology graph:{t:.2} us.\n"));
    }
    (!s.is_empty()).then_some(s)
}

/// Rank 0's time to build the topology communicator (OMB prints rank 0's).
fn created(op: &Op) -> Vec<Figure> {
    match &op.topo {
        Some(t) if op.rank == 0 => vec![Figure::new(CREATED, t.created_us, Combine::Mean)],
        _ => Vec::new(),
    }
}

/// The points of a neighbourhood benchmark: the plan's sizes, each with
/// the topology (and a grid's dimensions on `cx.q` processes).
fn points(info: &Info, cx: &SweepCx) -> Vec<Point> {
    let spec = spec_of(cx.axes);
    let dims = match spec {
        Spec::Cart { d, .. } => Some(topo::dims_create(cx.q, d)),
        Spec::Graph(_) => None,
    };
    cx.default_points(info)
        .into_iter()
        .map(|p| {
            let p = p.with(TOPOLOGY, spec.label());
            match &dims {
                Some(d) => p.with(DIMS, Value::from(d.clone())),
                None => p,
            }
        })
        .collect()
}

/// Why a point cannot run on `q` processes: a radius that does not fit,
/// a graph beyond `q`, or blocks beyond the int range of counts.
fn refuse(info: &Info, p: &Point, q: usize) -> Option<String> {
    let why = match spec_at(p) {
        Spec::Cart { r, .. } => {
            let dims: Vec<usize> = p
                .params
                .get(DIMS)
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_u64())
                        .map(|v| v as usize)
                        .collect()
                })
                .unwrap_or_default();
            cart_fits(&dims, r, q).err()
        }
        Spec::Graph(file) => read_graph(&file)
            .and_then(|e| graph_adjacency(&e, q, &file))
            .err(),
    };
    why.or_else(|| {
        (q.saturating_mul(p.bytes) > i32::MAX as usize).then(|| {
            format!(
                "{}: {q} blocks of {} bytes exceed the int range of MPI counts and displacements",
                info.name, p.bytes
            )
        })
    })
}

/// Blocks from every source in order: the same X bytes of each (allgather)
/// or the block of its send buffer meant for this rank (alltoall).
fn expect_blocks(op: &Op, personal: bool) -> Expect {
    let Some(t) = &op.topo else {
        return Expect::Nothing;
    };
    let x = op.x;
    Expect::Bytes(
        t.sources
            .iter()
            .zip(&t.source_block)
            .enumerate()
            .map(|(j, (&s, &k))| Segment {
                offset: j * x,
                len: x,
                sender: s,
                sender_offset: if personal { k * x } else { 0 },
            })
            .collect(),
    )
}

/// One neighbourhood collective, blocking and non-blocking: buffers for at
/// most Q neighbours (edges never repeat), the topology built per point.
macro_rules! neighbour {
    ($(#[$doc:meta])* $name:ident, $iname:ident, personal: $personal:expr,
     |$op:ident, $t:ident| $call:block, |$iop:ident, $it:ident, $req:ident| $icall:block) => {
        $(#[$doc])*
        pub struct $name(pub &'static Info);
        /// The non-blocking form of the same collective.
        pub struct $iname(pub &'static Info);

        neighbour!(@pattern $name, $personal, fn run(&self, $op: &mut Op) {
            let $t = $op.topo.as_ref().expect("topology built in prepare");
            $call
        });
        neighbour!(@pattern $iname, $personal, fn run(&self, op: &mut Op) {
            self.issue(op);
            self.complete(op);
        });

        impl Phased for $iname {
            #[inline(always)]
            fn issue(&self, $iop: &mut Op) {
                let $it = $iop.topo.as_ref().expect("topology built in prepare");
                let $req = &mut $iop.reqs[0];
                $icall
            }
            #[inline(always)]
            fn complete(&self, op: &mut Op) {
                crate::comm::wait(&mut op.reqs[0]);
            }
        }
    };
    (@pattern $name:ident, $personal:expr, $run:item) => {
        impl Pattern for $name {
            fn info(&self) -> &'static Info {
                self.0
            }
            fn layout(&self, x: usize, q: usize) -> Layout {
                Layout {
                    send: if $personal { q * x } else { x },
                    recv: q * x,
                }
            }
            fn prepare_point(&self, op: &mut Op, p: &Point) -> Result<()> {
                op.topo = Some(build(&spec_at(p), op)?);
                Ok(())
            }
            fn figures(&self, op: &Op) -> Vec<Figure> {
                created(op)
            }
            #[inline(always)]
            $run
            fn expect(&self, _x: usize, _q: usize, _rank: usize, _root: usize, _role: &Role) -> Expect {
                Expect::Nothing
            }
            fn expect_in(&self, op: &Op, _root: usize) -> Expect {
                expect_blocks(op, $personal)
            }
            fn points(&self, cx: &SweepCx) -> Vec<Point> {
                points(self.0, cx)
            }
            fn refuse(&self, p: &Point, q: usize) -> Option<String> {
                refuse(self.0, p, q)
            }
        }
    };
}

neighbour!(
    /// MPI_Neighbor_allgather of X bytes to every destination.
    NeighborAllgather, NeighborIallgather, personal: false,
    |op, t| { t.allgather(op.sbuf.ptr(), &op.msg, op.rbuf.mut_ptr()); },
    |op, t, req| { t.iallgather(op.sbuf.ptr(), &op.msg, op.rbuf.mut_ptr(), req); }
);

neighbour!(
    /// MPI_Neighbor_allgatherv, X bytes from every source (equal counts).
    NeighborAllgatherv, NeighborIallgatherv, personal: false,
    |op, t| { t.allgatherv(op.sbuf.ptr(), &op.msg, op.rbuf.mut_ptr()); },
    |op, t, req| { t.iallgatherv(op.sbuf.ptr(), &op.msg, op.rbuf.mut_ptr(), req); }
);

neighbour!(
    /// MPI_Neighbor_alltoall: block i of X bytes to destination i.
    NeighborAlltoall, NeighborIalltoall, personal: true,
    |op, t| { t.alltoall(op.sbuf.ptr(), &op.msg, op.rbuf.mut_ptr()); },
    |op, t, req| { t.ialltoall(op.sbuf.ptr(), &op.msg, op.rbuf.mut_ptr(), req); }
);

neighbour!(
    /// MPI_Neighbor_alltoallv, X bytes per neighbour (equal counts).
    NeighborAlltoallv, NeighborIalltoallv, personal: true,
    |op, t| { t.alltoallv(op.sbuf.ptr(), &op.msg, op.rbuf.mut_ptr()); },
    |op, t, req| { t.ialltoallv(op.sbuf.ptr(), &op.msg, op.rbuf.mut_ptr(), req); }
);

neighbour!(
    /// MPI_Neighbor_alltoallw, X bytes per neighbour at byte displacements.
    NeighborAlltoallw, NeighborIalltoallw, personal: true,
    |op, t| { t.alltoallw(op.sbuf.ptr(), op.rbuf.mut_ptr()); },
    |op, t, req| { t.ialltoallw(op.sbuf.ptr(), op.rbuf.mut_ptr(), req); }
);

const fn blocking(name: &'static str, description: &'static str) -> Info {
    Info {
        name,
        class: Class::Collective,
        description,
        method: Some(Method::PerCall),
        reps: Some(COLL_REPS),
        ranks: RankRule::PAIR,
        ..INFO
    }
}

static ALLGATHER_INFO: Info = blocking(
    "osu_neighbor_allgather",
    "OSU MPI_Neighbor_allgather latency on the -N topology, per call",
);
static ALLGATHERV_INFO: Info = blocking(
    "osu_neighbor_allgatherv",
    "OSU MPI_Neighbor_allgatherv latency on the -N topology, per call",
);
static ALLTOALL_INFO: Info = blocking(
    "osu_neighbor_alltoall",
    "OSU MPI_Neighbor_alltoall latency on the -N topology, per call",
);
static ALLTOALLV_INFO: Info = blocking(
    "osu_neighbor_alltoallv",
    "OSU MPI_Neighbor_alltoallv latency on the -N topology, per call",
);
static ALLTOALLW_INFO: Info = blocking(
    "osu_neighbor_alltoallw",
    "OSU MPI_Neighbor_alltoallw latency on the -N topology, per call",
);
static IALLGATHER_INFO: Info = blocking(
    "osu_ineighbor_allgather",
    "OSU MPI_Ineighbor_allgather on the -N topology: overall, compute, pure, overlap",
);
static IALLGATHERV_INFO: Info = blocking(
    "osu_ineighbor_allgatherv",
    "OSU MPI_Ineighbor_allgatherv on the -N topology: overall, compute, pure, overlap",
);
static IALLTOALL_INFO: Info = blocking(
    "osu_ineighbor_alltoall",
    "OSU MPI_Ineighbor_alltoall on the -N topology: overall, compute, pure, overlap",
);
static IALLTOALLV_INFO: Info = blocking(
    "osu_ineighbor_alltoallv",
    "OSU MPI_Ineighbor_alltoallv on the -N topology: overall, compute, pure, overlap",
);
static IALLTOALLW_INFO: Info = blocking(
    "osu_ineighbor_alltoallw",
    "OSU MPI_Ineighbor_alltoallw on the -N topology: overall, compute, pure, overlap",
);

pub static NEIGHBOR_ALLGATHER: NeighborAllgather = NeighborAllgather(&ALLGATHER_INFO);
pub static NEIGHBOR_ALLGATHERV: NeighborAllgatherv = NeighborAllgatherv(&ALLGATHERV_INFO);
pub static NEIGHBOR_ALLTOALL: NeighborAlltoall = NeighborAlltoall(&ALLTOALL_INFO);
pub static NEIGHBOR_ALLTOALLV: NeighborAlltoallv = NeighborAlltoallv(&ALLTOALLV_INFO);
pub static NEIGHBOR_ALLTOALLW: NeighborAlltoallw = NeighborAlltoallw(&ALLTOALLW_INFO);
pub static INEIGHBOR_ALLGATHER: Overlapped<NeighborIallgather> =
    Overlapped(NeighborIallgather(&IALLGATHER_INFO));
pub static INEIGHBOR_ALLGATHERV: Overlapped<NeighborIallgatherv> =
    Overlapped(NeighborIallgatherv(&IALLGATHERV_INFO));
pub static INEIGHBOR_ALLTOALL: Overlapped<NeighborIalltoall> =
    Overlapped(NeighborIalltoall(&IALLTOALL_INFO));
pub static INEIGHBOR_ALLTOALLV: Overlapped<NeighborIalltoallv> =
    Overlapped(NeighborIalltoallv(&IALLTOALLV_INFO));
pub static INEIGHBOR_ALLTOALLW: Overlapped<NeighborIalltoallw> =
    Overlapped(NeighborIalltoallw(&IALLTOALLW_INFO));

/// The neighbourhood collectives, blocking then non-blocking.
pub fn benchmarks() -> Vec<&'static dyn Benchmark> {
    vec![
        &NEIGHBOR_ALLGATHER,
        &NEIGHBOR_ALLGATHERV,
        &NEIGHBOR_ALLTOALL,
        &NEIGHBOR_ALLTOALLV,
        &NEIGHBOR_ALLTOALLW,
        &INEIGHBOR_ALLGATHER,
        &INEIGHBOR_ALLGATHERV,
        &INEIGHBOR_ALLTOALL,
        &INEIGHBOR_ALLTOALLV,
        &INEIGHBOR_ALLTOALLW,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::osu::front::{parse, Action};

    #[test]
    fn specs_parse_as_omb_spells_them() {
        assert_eq!(Spec::parse("cart:1:1"), Ok(Spec::Cart { d: 1, r: 1 }));
        assert_eq!(Spec::parse("CART:3:2"), Ok(Spec::Cart { d: 3, r: 2 }));
        assert_eq!(Spec::parse("graph:g.txt"), Ok(Spec::Graph("g.txt".into())));
        assert_eq!(Spec::parse("graph:a:b").unwrap().label(), "graph:a:b");
        for bad in [
            "cart",
            "cart:1",
            "cart:0:1",
            "cart:1:0",
            "cart:x:1",
            "cart:1:-1",
            "graph",
            "graph:",
            "torus:1:1",
            "",
        ] {
            let e = Spec::parse(bad).unwrap_err();
            assert!(e.contains("-N") && !e.contains('\n'), "{bad}: {e}");
        }
    }

    #[test]
    fn grid_neighbours_are_omb_s() {
        assert_eq!(cart_offsets(1, 1), vec![vec![-1], vec![1]]);
        let o = cart_offsets(2, 1);
        assert_eq!(o.len(), 8);
        assert_eq!(o[0], vec![-1, -1]);
        assert_eq!(o[3], vec![0, -1]);
        assert_eq!(o[4], vec![0, 1]);
        assert_eq!(cart_offsets(3, 2).len(), 124);
        // A ring of 4: left then right.
        let a = cart_adjacency(&[4], 1);
        assert_eq!(a.destinations[0], vec![3, 1]);
        assert_eq!(a.sources[2], vec![1, 3]);
        // Rank 1 is rank 0's right neighbour: block 1 of rank 0 comes to it.
        assert_eq!(a.source_blocks(1), vec![1, 0]);
        // 3x3 periodic, row-major: rank 4 (1,1) sees all the others.
        let a = cart_adjacency(&[3, 3], 1);
        assert_eq!(a.destinations[4], vec![0, 1, 2, 3, 5, 6, 7, 8]);
        assert_eq!(a.destinations[0], vec![8, 6, 7, 2, 1, 5, 3, 4]);
        for k in 0..9 {
            for (j, &s) in a.sources[k].iter().enumerate() {
                assert_eq!(a.destinations[s][a.source_blocks(k)[j]], k);
            }
        }
        // 5x5 with radius 2: 24 distinct neighbours each.
        let a = cart_adjacency(&[5, 5], 2);
        assert!(a.destinations.iter().all(|d| {
            let mut u = d.clone();
            u.sort();
            u.dedup();
            u.len() == 24
        }));
    }

    #[test]
    fn radius_must_fit_the_smallest_dimension() {
        assert!(cart_fits(&[4], 1, 4).is_ok());
        assert!(cart_fits(&[3], 1, 3).is_ok());
        let e = cart_fits(&[2], 1, 2).unwrap_err();
        assert!(e.contains("radius 1") && e.contains("2 processes"), "{e}");
        assert!(cart_fits(&[2, 2], 1, 4).is_err());
        assert!(cart_fits(&[5, 5], 2, 25).is_ok());
        assert!(cart_fits(&[4, 3], 2, 12).is_err());
    }

    #[test]
    fn graph_files_are_read_strictly() {
        let e = parse_graph("# ring\n0,1\n1, 0\n\n", "g").unwrap();
        assert_eq!(e, vec![(0, 1), (1, 0)]);
        let a = graph_adjacency(&e, 2, "g").unwrap();
        assert_eq!(a.sources, vec![vec![1], vec![0]]);
        assert_eq!(a.source_blocks(0), vec![0]);
        // A fan: 0 sends to 1, 2, 3; 3 sends back to 0.
        let e = parse_graph("0,1\n0,2\n0,3\n3,0\n", "g").unwrap();
        let a = graph_adjacency(&e, 4, "g").unwrap();
        assert_eq!(a.destinations[0], vec![1, 2, 3]);
        assert_eq!(a.source_blocks(2), vec![1]);
        assert_eq!(a.source_blocks(0), vec![0]);
        assert!(a.sources[3] == vec![0] && a.destinations[1].is_empty());
        for (text, want) in [
            ("0 1\n", "line 1"),
            ("0,1\n1,x\n", "line 2"),
            ("0,-1\n", "line 1"),
            ("0,1\n0,1\n", "repeats"),
            ("0,1,2\n", "line 1"),
        ] {
            let e = parse_graph(text, "g").unwrap_err();
            assert!(
                e.contains(want) && e.contains("-N graph:g"),
                "{text:?}: {e}"
            );
        }
        let e = graph_adjacency(&[(0, 1), (1, 4)], 4, "g").unwrap_err();
        assert!(e.contains("rank 4") && e.contains("4 processes"), "{e}");
        let e = read_graph("/nonexistent/graph.txt").unwrap_err();
        assert!(e.contains("cannot read") && !e.contains('\n'), "{e}");
    }

    #[test]
    fn the_flag_reaches_the_plan_and_is_refused_elsewhere() {
        let v = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        let run = |p: &str, s: &str| match parse(p, &v(s), p).unwrap() {
            Action::Run(a, _) => *a,
            a => panic!("{a:?}"),
        };
        let a = run("osu_neighbor_alltoall", "-N cart:2:1 -m 1:64");
        assert_eq!(
            a.suites
                .get::<crate::bench::osu::OsuArgs>()
                .osu_topology
                .as_deref(),
            Some("cart:2:1")
        );
        assert_eq!(a.sweep.sizes.as_deref(), Some("1,2,4,8,16,32,64"));
        let a = run("osu_ineighbor_allgatherv", "-Ngraph:g.txt -t 2");
        assert_eq!(
            a.suites
                .get::<crate::bench::osu::OsuArgs>()
                .osu_topology
                .as_deref(),
            Some("graph:g.txt")
        );
        assert!(run("osu_neighbor_allgather", "")
            .sweep
            .sizes
            .unwrap()
            .ends_with(",1048576"));
        for (p, s, want) in [
            ("osu_bw", "-N cart:1:1", "invalid option -- 'N'"),
            ("osu_neighbor_allgather", "-N cart:1", "-N"),
            ("osu_neighbor_allgather", "-N ring", "-N"),
            ("osu_neighbor_allgather", "-N", "requires an argument"),
        ] {
            let e = parse(p, &v(s), p).unwrap_err();
            assert!(e.contains(want) && !e.contains('\n'), "{p} {s}: {e}");
        }
        // The axis round-trips the text.
        let mut axes = Axes::new();
        axes.insert(AXIS.into(), "graph:/x/g".bytes().map(f64::from).collect());
        assert_eq!(spec_of(&axes), Spec::Graph("/x/g".into()));
        assert_eq!(spec_of(&Axes::new()), Spec::Cart { d: 1, r: 1 });
    }

    #[test]
    fn the_ten_programs_are_registered() {
        for b in benchmarks() {
            let p = super::super::program(b.info().name).expect("registered");
            assert!(
                p.title.contains("Neighborhood") || p.name == "osu_neighbor_alltoallw",
                "{}",
                p.title
            );
            assert!(is_neighbour(p.name));
        }
    }
}
