//! Synchronisation (the seed's "Synchronisation notes"): the overhead of
//! each kind of synchronisation, as the time of a calibrated delay plus the
//! synchronisation minus the time of the delay alone, over outer × inner
//! repetitions (`method::DelaySubtraction`: the reference and measured
//! rounds interleaved; the median difference per synchronisation with its
//! 95% CI; a CI that contains zero is "below resolution").
//!
//! | type | one inner repetition |
//! |---|---|
//! | sync all | delay; sync all |
//! | sync mpi barrier | delay; MPI_Barrier |
//! | sync images pairwise | delay; sync images with i ± P/2 |
//! | sync images random | delay; sync images with N neighbours on a randomly permuted ring |
//! | sync images ring | delay; sync images with i ± 1 .. i ± N/2 |
//! | sync images 3d grid | delay; sync images with the 6 neighbours of the periodic MPI_Dims_create grid |
//! | sync lock | on every P-th repetition: lock (MPI_Compare_and_swap on image 0 until acquired); delay; unlock |
//! | sync critical | on every P-th repetition: MPI_Win_lock(exclusive, image 0); delay; MPI_Win_unlock |
//!
//! Lock and critical serialise the delay, as in cafbench: each image runs
//! about inner/P of the repetitions, so that the images together run inner
//! delays one after the other, and the difference is the cost of handing
//! the lock on.

use anyhow::{anyhow, Result};

use super::delay::Delay;
use super::{Settings, MAX_NEIGHBOURS};
use crate::bench::{Benchmark, Class, Info, Kernel, RankRule, Setup};
use crate::comm::rma::{Coarray, Images, RmaSync, Window, WindowKind};
use crate::comm::{topo, Comm, Elem};
use crate::engine::axis::{Point, SweepCx};
use crate::engine::placement::{Placement, Role};
use crate::method::Method;

mod all;
mod barrier;
mod critical;
mod grid3d;
mod lock;
mod pairwise;
mod random;
mod ring;

/// The section in cafbench's order.
pub fn benchmarks() -> Vec<&'static dyn Benchmark> {
    vec![
        &all::SYNC_ALL,
        &barrier::SYNC_MPI_BARRIER,
        &pairwise::SYNC_PAIRWISE,
        &ring::SYNC_RING,
        &random::SYNC_RANDOM,
        &grid3d::SYNC_3D,
        &lock::SYNC_LOCK,
        &critical::SYNC_CRITICAL,
    ]
}

/// The seed used by "sync images random" on every rank.
pub const RANDOM_SEED: u64 = 0x00ca_f5ee_d000_0001;

/// The kinds of synchronisation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncType {
    All,
    MpiBarrier,
    Pairwise,
    Ring,
    Random,
    Grid3d,
    Lock,
    Critical,
}

impl SyncType {
    /// Synchronises with a list of images (sync images).
    fn images(self) -> bool {
        matches!(
            self,
            SyncType::Pairwise | SyncType::Ring | SyncType::Random | SyncType::Grid3d
        )
    }

    /// Neighbour counts N = 2, 4, ... up to 12, capped at P − 2 (cafbench's syncmaxneigh).
    fn swept(self) -> bool {
        matches!(self, SyncType::Ring | SyncType::Random)
    }
}

/// One synchronisation benchmark.
pub struct SyncBench {
    pub info: &'static Info,
    pub ty: SyncType,
}

/// The common declaration of a synchronisation benchmark.
pub const fn info(name: &'static str, description: &'static str) -> Info {
    Info {
        name,
        suite: super::SUITE,
        class: Class::Collective,
        ranks: RankRule::PAIR,
        description,
        elem: Elem::Double,
        axis: crate::bench::Axis::None,
        method: Some(Method::DelaySubtraction),
        ..Info::DEFAULT
    }
}

/// The distinct other images of a role: ring neighbours, the distinct
/// neighbours of a Cartesian grid, or the partner of a pair.
pub fn neighbour_list(role: &Role, me: usize) -> Vec<usize> {
    let mut v: Vec<usize> = if !role.neighbours.is_empty() {
        role.neighbours.clone()
    } else if let Some(c) = &role.cart {
        c.neighbours.to_vec()
    } else {
        role.to.filter(|_| role.active).into_iter().collect()
    };
    v.retain(|&r| r != me);
    v.sort_unstable();
    v.dedup();
    v
}

/// Fails when the engine's Cartesian placement disagrees with what
/// MPI_Dims_create and MPI_Cart_create give (collective over `comm`).
pub fn check_cart(comm: &Comm, role: &Role) -> Result<()> {
    let Some(c) = &role.cart else {
        return Err(anyhow!("no Cartesian role"));
    };
    let (dims, n) = topo::cart3d_neighbours(comm);
    if dims != c.dims || n != c.neighbours {
        return Err(anyhow!(
            "Placement::Cart3d disagrees with MPI_Dims_create/MPI_Cart_create on rank {}: dims {:?} vs {dims:?}, neighbours {:?} vs {n:?}",
            comm.rank,
            c.dims,
            c.neighbours
        ));
    }
    Ok(())
}

impl Benchmark for SyncBench {
    fn info(&self) -> &'static Info {
        self.info
    }

    fn points(&self, cx: &SweepCx) -> Vec<Point> {
        let s = Settings::of(cx);
        let q = cx.q;
        let counts: Vec<usize> = match self.ty {
            // Below 4 images none fits: N = 2, which `refuse` explains.
            t if t.swept() => (2..=MAX_NEIGHBOURS.min(q.saturating_sub(2)).max(2))
                .step_by(2)
                .collect(),
            SyncType::Pairwise => vec![1],
            SyncType::Grid3d => {
                // The distinct neighbours of rank 0 (all ranks have as many).
                let role = Placement::Cart3d.role(0, q.max(1));
                vec![neighbour_list(&role, 0).len()]
            }
            _ => vec![q.saturating_sub(1)],
        };
        // The windows this type uses: none (MPI barrier), a kind (lock and
        // critical use passive-target epochs of their own), or a kind and a
        // synchronisation mode.
        let combos: Vec<(Option<WindowKind>, Option<RmaSync>)> = match self.ty {
            SyncType::MpiBarrier => vec![(None, None)],
            SyncType::Lock | SyncType::Critical => {
                s.windows.iter().map(|&w| (Some(w), None)).collect()
            }
            _ => s
                .combos()
                .into_iter()
                .map(|(w, r)| (Some(w), Some(r)))
                .collect(),
        };
        let mut v = Vec::new();
        for (w, r) in combos {
            for &n in &counts {
                let mut p = Point::bytes(0)
                    .with("sync", self.info.name)
                    .with("neighbours", n as u64)
                    .with("delay_us", s.delay_us);
                if let Some(w) = w {
                    p = p.with("window", w.name());
                }
                if let Some(r) = r {
                    p = p.with("rma_sync", r.name());
                }
                v.push(p);
            }
        }
        v
    }

    fn placement(&self, p: &Point) -> Placement {
        let half = p.u64("neighbours").unwrap_or(2) as usize / 2;
        match self.ty {
            SyncType::Pairwise => Placement::Halves,
            SyncType::Ring => Placement::Ring(half),
            SyncType::Random => Placement::RandomRing(half, RANDOM_SEED),
            SyncType::Grid3d => Placement::Cart3d,
            _ => Placement::All,
        }
    }

    fn need(&self, _p: &Point, _q: usize) -> u64 {
        64
    }

    fn refuse(&self, _p: &Point, q: usize) -> Option<String> {
        (self.ty.swept() && q < 4).then(|| {
            format!(
                "{} needs at least 4 processes (N = 2 neighbours, at most P - 2), this run has {q}",
                self.info.name
            )
        })
    }

    fn kernel<'a>(&'a self, s: Setup<'a>, p: &Point) -> Result<Box<dyn Kernel + 'a>> {
        let comm = s.comm;
        let me = comm.rank;
        let (kind, rma) = super::window_of(p);
        let delay = Delay::calibrated(p.f64("delay_us").unwrap_or(super::DELAY_US));
        if self.ty == SyncType::Grid3d {
            check_cart(comm, &s.role)?;
        }
        let list = neighbour_list(&s.role, me);
        let mut k = SyncKernel {
            comm,
            ty: self.ty,
            delay,
            co: None,
            images: None,
            lock: None,
            me,
            q: comm.size,
            errors: 0,
        };
        if self.ty == SyncType::MpiBarrier {
            return Ok(Box::new(k));
        }
        let (win, _) = s.arena.window(comm, kind, 8, &[])?;
        match self.ty {
            SyncType::Lock => {
                // The lock variable lives on image 0, in a lock_all epoch of its own window.
                let mut co = Coarray::new(comm, win, RmaSync::Lockall);
                let all = co.everyone();
                co.open(&all);
                k.co = Some(co);
            }
            SyncType::Critical => k.lock = Some(win),
            _ => {
                let mut co = Coarray::new(comm, win, rma);
                if self.ty.images() {
                    let images = co.images(&list, &list);
                    co.open(&images);
                    k.images = Some(images);
                } else {
                    let all = co.everyone();
                    co.open(&all);
                }
                k.co = Some(co);
            }
        }
        Ok(Box::new(k))
    }
}

/// Delay plus one synchronisation (or the delay alone, the reference).
struct SyncKernel<'a> {
    comm: &'a Comm,
    ty: SyncType,
    delay: Delay,
    co: Option<Coarray<'a>>,
    images: Option<Images>,
    /// The window of "critical" (exclusive locks of image 0, no lock_all epoch).
    lock: Option<&'a mut Window>,
    me: usize,
    q: usize,
    /// Unlocks that found the lock variable not holding this image's mark.
    errors: u64,
}

impl Kernel for SyncKernel<'_> {
    #[inline(always)]
    fn run(&mut self, rep: usize) {
        match self.ty {
            SyncType::MpiBarrier => {
                self.delay.run();
                self.comm.barrier();
            }
            SyncType::All => {
                self.delay.run();
                if let Some(co) = self.co.as_mut() {
                    co.sync_all();
                }
            }
            SyncType::Pairwise | SyncType::Ring | SyncType::Random | SyncType::Grid3d => {
                self.delay.run();
                if let (Some(co), Some(im)) = (self.co.as_mut(), self.images.as_mut()) {
                    co.sync_images(im);
                }
            }
            SyncType::Lock => {
                if rep % self.q == self.me {
                    if let Some(co) = self.co.as_ref() {
                        let mark = self.me as i32 + 1;
                        // lock(caflock[1]): spin until the variable on image 0 was free.
                        while co.win.compare_and_swap(mark, 0, 0, 0) != 0 {}
                        self.delay.run();
                        let held = co.win.compare_and_swap(0, mark, 0, 0);
                        self.errors += u64::from(held != mark);
                    }
                }
            }
            SyncType::Critical => {
                if rep % self.q == self.me {
                    if let Some(w) = self.lock.as_ref() {
                        w.lock_exclusive(0);
                        // An operation makes the library acquire the lock now, not at unlock.
                        let _ = w.fetch(0, 0);
                        self.delay.run();
                        w.unlock(0);
                    }
                }
            }
        }
    }

    #[inline(always)]
    fn reference(&mut self, _rep: usize) {
        self.delay.run();
    }

    fn verify(&mut self, _rep: usize) -> u64 {
        std::mem::take(&mut self.errors)
    }
}
