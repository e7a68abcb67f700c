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
//!
//! The lock spin cannot hang on a broken library: the lock word only ever
//! holds 0 (free) or the mark i + 1 of the image i holding it, so any other
//! value (e.g. RMA atomics into the wrong memory) is an error at once, and a
//! lock not acquired within [`LOCK_LIMIT_S`] is one too. Either is reported
//! on stderr, counted as a validation error (sync lock always validates, so
//! the exit code is 1), and that image takes no more locks in the point.

use anyhow::{anyhow, Result};

use super::delay::Delay;
use super::{Settings, MAX_NEIGHBOURS};
use crate::bench::{Benchmark, Class, Info, Kernel, RankRule, Setup};
use crate::comm::rma::{Coarray, Images, RmaSync, Window, WindowKind};
use crate::comm::{topo, Comm, Elem};
use crate::contract::axis::{Point, SweepCx};
use crate::contract::placement::{Placement, Role};
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

/// How long an image spins for the lock before it reports an error.
pub const LOCK_LIMIT_S: f64 = 10.0;

/// Compare-and-swaps between two looks at the clock in the lock spin (a
/// clock read per attempt would add to the measured time).
const SPINS_PER_CLOCK: u64 = 1 << 12;

/// The value of the lock word no image writes: `--corrupt` puts it there.
const FOREIGN_MARK: i32 = -0x0bad;

/// Why an image did not get the lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockFailure {
    /// The lock word held a value no image writes.
    Foreign(i32),
    /// Still held (by the image of this mark) after the time limit.
    Timeout(i32),
}

/// lock(l[1]): spins `cas(mark, 0)` (which returns the old value) until the
/// lock word was free. Only 0 and marks 1..=images are valid values, and
/// `mark` only while this image holds it (never while it spins); `now`
/// reads a clock in seconds, every `SPINS_PER_CLOCK` attempts.
pub fn acquire(
    mut cas: impl FnMut() -> i32,
    mark: i32,
    images: usize,
    limit_s: f64,
    now: impl Fn() -> f64,
) -> Result<(), LockFailure> {
    let mut spins = 0u64;
    let mut since: Option<f64> = None;
    loop {
        let old = cas();
        if old == 0 {
            return Ok(());
        }
        if old < 0 || old as usize > images || old == mark {
            return Err(LockFailure::Foreign(old));
        }
        spins += 1;
        if spins % SPINS_PER_CLOCK == 0 {
            let t = now();
            if t - *since.get_or_insert(t) > limit_s {
                return Err(LockFailure::Timeout(old));
            }
        }
    }
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

    /// Neighbour counts N = 2, 4, ... up to 12 (cafbench's syncmaxneigh),
    /// capped where N would exceed the P − 1 other images (so that the N
    /// neighbours stay distinct: P = 3 and 4 give N = 2, P = 5 gives 2, 4).
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
    let (dims, n) = topo::cart3d_neighbours(comm)?;
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
            // Below 3 images none fits: N = 2, which `refuse` explains.
            t if t.swept() => (2..=MAX_NEIGHBOURS.min(q.saturating_sub(1)).max(2))
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
                    .with("mode", self.info.name)
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
        (self.ty.swept() && q < 3).then(|| {
            format!(
                "{} needs at least 3 processes (N = 2 distinct neighbours, at most P - 1), this run has {q}",
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
            lock_failed: false,
            what: format!("window {}", kind.name()),
            reporter: super::Reporter::new(),
        };
        if self.ty == SyncType::MpiBarrier {
            return Ok(Box::new(k));
        }
        let (win, _) = s.arena.window(comm, kind, 8, &[])?;
        match self.ty {
            SyncType::Lock => {
                // The lock variable lives on image 0, in a lock_all epoch of its own window.
                let mut co = Coarray::new(comm, win, RmaSync::Lockall)?;
                let all = co.everyone()?;
                co.open(&all);
                k.co = Some(co);
            }
            SyncType::Critical => k.lock = Some(win),
            _ => {
                let mut co = Coarray::new(comm, win, rma)?;
                if self.ty.images() {
                    let images = co.images(&list, &list)?;
                    co.open(&images);
                    k.images = Some(images);
                } else {
                    let all = co.everyone()?;
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
    /// Unlocks that found the lock variable not holding this image's mark,
    /// and locks not acquired.
    errors: u64,
    /// The lock was not acquired once: no more attempts in this point.
    lock_failed: bool,
    /// The window, for error lines.
    what: String,
    reporter: super::Reporter,
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
                if rep % self.q == self.me && !self.lock_failed {
                    if let Some(co) = self.co.as_ref() {
                        let mark = self.me as i32 + 1;
                        // lock(caflock[1]): spin until the variable on image 0 was free.
                        match lock(co, mark, self.q) {
                            Ok(()) => {
                                self.delay.run();
                                let held = co.win.compare_and_swap(0, mark, 0, 0);
                                self.errors += u64::from(held != mark);
                            }
                            Err(f) => {
                                self.errors += 1;
                                self.lock_failed = true;
                                let (me, what) = (self.me, &self.what);
                                self.reporter.report(|| lock_error(me, f, what));
                            }
                        }
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

    /// sync lock: image 0 takes the lock with a mark no image has, and
    /// keeps it (the others must report it, not spin forever).
    fn corrupt(&mut self) {
        if let (SyncType::Lock, Some(co), 0) = (self.ty, self.co.as_ref(), self.me) {
            let _ = lock(co, FOREIGN_MARK, self.q);
        }
    }
}

/// lock(l[1]) with `mark` on the lock word at the start of image 0's window.
#[inline(always)]
fn lock(co: &Coarray<'_>, mark: i32, images: usize) -> Result<(), LockFailure> {
    acquire(
        || co.win.compare_and_swap(mark, 0, 0, 0),
        mark,
        images,
        LOCK_LIMIT_S,
        crate::comm::wtime,
    )
}

/// The error line of a lock not acquired.
fn lock_error(me: usize, f: LockFailure, what: &str) -> String {
    match f {
        LockFailure::Foreign(v) => format!(
            "sync lock: rank {me} found the lock word on image 0 holding {v}, a value no image \
             writes (0 = free, i + 1 = held by image i): the RMA atomics of this window ({what}) \
             are wrong"
        ),
        LockFailure::Timeout(v) => format!(
            "sync lock: rank {me} did not get the lock on image 0 within {LOCK_LIMIT_S} s (held \
             by image {}; {what}): gave up instead of spinning on",
            v - 1
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn the_lock_spin_ends_on_a_foreign_value_or_the_time_limit() {
        // Free at the third attempt.
        let n = Cell::new(0);
        let word = || {
            n.set(n.get() + 1);
            if n.get() < 3 {
                2
            } else {
                0
            }
        };
        assert_eq!(acquire(word, 1, 4, 1.0, || 0.0), Ok(()));
        assert_eq!(n.get(), 3);
        // Values no image writes: negative, beyond the images, its own mark.
        for v in [-1, FOREIGN_MARK, 5, 1] {
            assert_eq!(
                acquire(|| v, 1, 4, 1.0, || 0.0),
                Err(LockFailure::Foreign(v))
            );
        }
        // Held by image 1 (mark 2) for ever: the clock runs out.
        let t = Cell::new(0.0);
        let clock = || {
            t.set(t.get() + 0.5);
            t.get()
        };
        assert_eq!(
            acquire(|| 2, 1, 4, 2.0, clock),
            Err(LockFailure::Timeout(2))
        );
        assert!(t.get() > 2.0 && t.get() < 4.0, "{}", t.get());
        assert!(lock_error(3, LockFailure::Foreign(-7), "window allocate").contains("holding -7"));
        assert!(lock_error(3, LockFailure::Timeout(2), "x").contains("held by image 1"));
    }
}
