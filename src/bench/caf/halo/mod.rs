//! 3-D halo swap (the seed's "Halo"): every image holds an nx × ny × nz
//! array of doubles with a one-cell halo, on a periodic Cartesian grid of
//! images from MPI_Dims_create (`Placement::Cart3d`, checked against
//! MPI_Cart_create). One repetition:
//!
//! ```text
//! sync; six face transfers (put-put: boundaries into the neighbours' halos;
//!                          get-get: the neighbours' boundaries into my halos); sync
//! ```
//!
//! Each face is one MPI_Put/MPI_Get with a vector datatype. ndata =
//! 2(ny·nz + nx·nz + nx·ny) doubles; latency = time/nrep, bandwidth =
//! nrep·ndata·8/(2^20·time) MB/s. Every repetition is validated (the seed
//! prints "All results validated"): each halo cell must hold the
//! (origin, repetition, offset) pattern of the neighbour's boundary cell,
//! and a wrong halo is an error naming the rank and the face.

use anyhow::Result;

use super::sync::{check_cart, neighbour_list};
use super::{window_of, window_params, Reporter, Settings, SyncKind};
use crate::bench::{Benchmark, Class, Info, Kernel, RankRule, Setup};
use crate::check::{double_at, DOUBLE_POISON};
use crate::comm::rma::{Coarray, Datatype, Images};
use crate::comm::Elem;
use crate::contract::axis::{Point, SweepCx};
use crate::contract::placement::Placement;

mod get_get;
mod put_put;

/// The section in cafbench's order.
pub fn benchmarks() -> Vec<&'static dyn Benchmark> {
    vec![&put_put::HALO_PUT_PUT, &get_get::HALO_GET_GET]
}

/// Bytes of one image's array with its halo: (n + 2)^3 doubles.
pub fn bytes(n: usize) -> u64 {
    (n as u64 + 2).pow(3) * 8
}

/// Halo data of one swap in doubles: 2(ny·nz + nx·nz + nx·ny).
pub fn ndata(n: [usize; 3]) -> usize {
    2 * (n[1] * n[2] + n[0] * n[2] + n[0] * n[1])
}

/// The faces −x, +x, −y, +y, −z, +z.
pub const FACES: [&str; 6] = ["-x", "+x", "-y", "+y", "-z", "+z"];

/// The common declaration of a halo benchmark.
pub const fn info(
    name: &'static str,
    description: &'static str,
    aliases: &'static [&'static str],
) -> Info {
    Info {
        name,
        suite: super::SUITE,
        class: Class::ParallelTransfer,
        ranks: RankRule::ANY,
        description,
        elem: Elem::Double,
        placement: Placement::Cart3d,
        throughput: Some(1.0),
        aliases,
        validated: true,
        ..Info::DEFAULT
    }
}

/// A halo swap by puts or by gets.
pub struct Halo {
    pub info: &'static Info,
    pub put: bool,
}

impl Halo {
    /// The `mode` param of its rows: "put-put" or "get-get".
    pub fn mode(&self) -> &'static str {
        if self.put {
            "put-put"
        } else {
            "get-get"
        }
    }
}

/// The array geometry: C order, the last index fastest, with the halo.
#[derive(Debug, Clone, Copy)]
struct Grid {
    n: [usize; 3],
}

impl Grid {
    fn ext(&self, d: usize) -> usize {
        self.n[d] + 2
    }

    /// Element offset of cell (i, j, k).
    fn at(&self, c: [usize; 3]) -> usize {
        (c[0] * self.ext(1) + c[1]) * self.ext(2) + c[2]
    }

    /// Element offset of the first cell of the plane `idx` along `d`.
    fn plane(&self, d: usize, idx: usize) -> usize {
        let mut c = [1; 3];
        c[d] = idx;
        self.at(c)
    }

    /// The interior cells of the plane `idx` along `d`, as (cell, offset).
    fn cells(self, d: usize, idx: usize) -> impl Iterator<Item = ([usize; 3], usize)> {
        let (a, b) = ((d + 1) % 3, (d + 2) % 3);
        (1..=self.n[a]).flat_map(move |x| {
            (1..=self.n[b]).map(move |y| {
                let mut c = [0; 3];
                c[d] = idx;
                c[a] = x;
                c[b] = y;
                (c, self.at(c))
            })
        })
    }

    /// The vector datatype of an interior face normal to `d`.
    fn face_type(&self, d: usize) -> Result<Datatype, crate::comm::Error> {
        let dbl = Elem::Double.datatype();
        let (nx, ny, nz) = (self.n[0], self.n[1], self.n[2]);
        let (yz, z) = (self.ext(1) * self.ext(2), self.ext(2));
        match d {
            0 => Datatype::vector(ny, nz, z, dbl),
            1 => Datatype::vector(nx, nz, yz, dbl),
            _ => {
                let column = Datatype::vector(ny, 1, z, dbl)?;
                Datatype::hvector(nx, 1, yz * 8, &column)
            }
        }
    }

    /// The halo plane of face f (−: 0, +: n + 1) and the boundary plane of
    /// the neighbour it comes from (−: n, +: 1).
    fn halo_and_source(&self, f: usize) -> (usize, usize, usize) {
        let d = f / 2;
        if f % 2 == 0 {
            (d, 0, self.n[d])
        } else {
            (d, self.n[d] + 1, 1)
        }
    }
}

impl Benchmark for Halo {
    fn info(&self) -> &'static Info {
        self.info
    }

    fn points(&self, cx: &SweepCx) -> Vec<Point> {
        let s = Settings::of(cx);
        let dims = Placement::Cart3d.role(0, cx.q.max(1)).cart.map(|c| c.dims);
        let codims = dims.map_or(String::new(), |d| format!("{}x{}x{}", d[0], d[1], d[2]));
        let mut v = Vec::new();
        for combo in s.combos() {
            for sync in &s.syncs {
                for &n in &s.halo {
                    let nd = ndata([n; 3]);
                    v.push(window_params(
                        Point::bytes(nd * 8)
                            .with("mode", self.mode())
                            .with("n", n as u64)
                            .with("nx", n as u64)
                            .with("ny", n as u64)
                            .with("nz", n as u64)
                            .with("codims", codims.clone())
                            .with("sync", sync.name())
                            .with("ndata", nd as u64),
                        combo,
                    ));
                }
            }
        }
        v
    }

    fn need(&self, p: &Point, _q: usize) -> u64 {
        bytes(p.u64("n").unwrap_or(0) as usize)
    }

    fn refuse(&self, p: &Point, _q: usize) -> Option<String> {
        let n = p.u64("n").unwrap_or(0);
        (bytes(n as usize) > i32::MAX as u64)
            .then(|| format!("halo n = {n}: (n+2)^3 doubles exceed the window displacement range"))
    }

    fn kernel<'a>(&'a self, s: Setup<'a>, p: &Point) -> Result<Box<dyn Kernel + 'a>> {
        let comm = s.comm;
        let me = comm.rank;
        check_cart(comm, &s.role)?;
        let nbr = s.role.cart.expect("checked").neighbours;
        let n = p.u64("n").unwrap_or(1) as usize;
        let g = Grid { n: [n; 3] };
        let (kind, rma) = window_of(p);
        let global = p.str("sync").and_then(SyncKind::from_name) != Some(SyncKind::P2p);
        let (win, _) = s.arena.window(comm, kind, bytes(n) as usize, &[])?;
        let mut co = Coarray::new(comm, win, rma)?;
        // sync images with the distinct other neighbours; PSCW epochs with
        // every image a face touches (this one too on a grid of extent 1 or 2).
        let images = co.images(&neighbour_list(&s.role, me), &nbr)?;
        if global {
            let all = co.everyone()?;
            co.open(&all);
        } else {
            co.open(&images);
        }
        let types = [g.face_type(0)?, g.face_type(1)?, g.face_type(2)?];
        let faces = (0..6)
            .map(|f| {
                let (d, halo, source) = g.halo_and_source(f);
                if self.put {
                    // To the neighbour on side f: my boundary on that side
                    // into its halo on the other side (its halo f ^ 1).
                    let (_, their_halo, my_boundary) = g.halo_and_source(f ^ 1);
                    Face {
                        target: nbr[f],
                        origin: g.plane(d, my_boundary) * 8,
                        remote: g.plane(d, their_halo) * 8,
                        d,
                    }
                } else {
                    Face {
                        target: nbr[f],
                        origin: g.plane(d, halo) * 8,
                        remote: g.plane(d, source) * 8,
                        d,
                    }
                }
            })
            .collect();
        Ok(Box::new(HaloKernel {
            co,
            images,
            global,
            put: self.put,
            faces,
            types,
            grid: g,
            nbr,
            me,
            what: format!(
                "{}, n = {n}, {}, window {}, rma-sync {}",
                self.info.name,
                if global { "sync all" } else { "sync images" },
                kind.name(),
                rma.name()
            ),
            reporter: Reporter::new(),
        }))
    }
}

/// One face transfer: to or from `target`, origin and remote byte offsets.
struct Face {
    target: usize,
    origin: usize,
    remote: usize,
    d: usize,
}

struct HaloKernel<'a> {
    co: Coarray<'a>,
    images: Images,
    global: bool,
    put: bool,
    faces: Vec<Face>,
    types: [Datatype; 3],
    grid: Grid,
    nbr: [usize; 6],
    me: usize,
    what: String,
    reporter: Reporter,
}

impl HaloKernel<'_> {
    #[inline(always)]
    fn sync(&mut self) {
        if self.global {
            self.co.sync_all();
        } else {
            self.co.sync_images(&mut self.images);
        }
    }
}

impl Kernel for HaloKernel<'_> {
    #[inline(always)]
    fn run(&mut self, _rep: usize) {
        self.sync();
        let win = &self.co.win;
        let base = win.base();
        for f in &self.faces {
            let dt = self.types[f.d].raw();
            // The offsets and the face types lie within the array.
            let origin = base.wrapping_add(f.origin);
            if self.put {
                win.put(origin, 1, dt, f.target, f.remote);
            } else {
                win.get(origin, 1, dt, f.target, f.remote);
            }
        }
        self.sync();
    }

    /// Boundaries get this repetition's pattern, halos the poison; then
    /// the images settle (collective, untimed), so that the timed
    /// repetition starts together and no image's validation work leaks
    /// into a neighbour's first synchronisation.
    fn prepare(&mut self, rep: usize) {
        let (g, me) = (self.grid, self.me);
        let x = self.co.win.f64s_mut();
        for d in 0..3 {
            for idx in [1, g.n[d]] {
                for (_, off) in g.cells(d, idx) {
                    x[off] = double_at(me, rep, off);
                }
            }
            for idx in [0, g.n[d] + 1] {
                for (_, off) in g.cells(d, idx) {
                    x[off] = DOUBLE_POISON;
                }
            }
        }
        self.co.settle();
    }

    fn verify(&mut self, rep: usize) -> u64 {
        self.co.refresh();
        let g = self.grid;
        let x = self.co.win.f64s();
        let mut total = 0;
        for (f, face) in FACES.iter().enumerate() {
            let (d, halo, source) = g.halo_and_source(f);
            let from = self.nbr[f];
            let mut cells = 0;
            let bad = g
                .cells(d, halo)
                .filter(|&(mut c, off)| {
                    cells += 1;
                    c[d] = source;
                    x[off] != double_at(from, rep, g.at(c))
                })
                .count() as u64;
            if bad > 0 {
                let (me, what) = (self.me, &self.what);
                self.reporter.report(|| {
                    format!(
                        "halo swap: rank {me} has a wrong {face} halo (from rank {from}): {bad} of {cells} cells in repetition {rep} ({what})"
                    )
                });
            }
            total += bad;
        }
        total
    }

    fn corrupt(&mut self) {
        let g = self.grid;
        if let Some((_, off)) = g.cells(0, 0).next() {
            self.co.win.f64s_mut()[off] = -2.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faces_and_ndata() {
        assert_eq!(ndata([10, 10, 10]), 600);
        assert_eq!(bytes(10), 12 * 12 * 12 * 8);
        let g = Grid { n: [3, 4, 5] };
        assert_eq!(g.at([0, 0, 1]), 1);
        assert_eq!(g.at([0, 1, 0]), 7);
        assert_eq!(g.at([1, 0, 0]), 6 * 7);
        for d in 0..3 {
            let cells: Vec<_> = g.cells(d, 0).collect();
            let (a, b) = ((d + 1) % 3, (d + 2) % 3);
            assert_eq!(cells.len(), g.n[a] * g.n[b]);
            assert!(cells.iter().all(|(c, off)| c[d] == 0 && g.at(*c) == *off));
            assert_eq!(cells[0].1, g.plane(d, 0));
        }
        // − halo from the neighbour's top boundary, + halo from its bottom one.
        assert_eq!(g.halo_and_source(0), (0, 0, 3));
        assert_eq!(g.halo_and_source(5), (2, 6, 1));
    }
}
