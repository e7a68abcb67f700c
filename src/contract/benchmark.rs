//! The benchmark trait and what its kernels are built from.

use anyhow::Result;

use super::axis::{Point, SweepCx};
use super::info::Info;
use super::kernel::Kernel;
use super::placement::{Placement, Role};
use crate::comm::rma::{Window, WindowKind};
use crate::comm::{Buffer, Comm};
use crate::results::{BenchResult, OffCache};

/// What a kernel is built from: the group communicator, this rank's role,
/// the run's switches, and the engine's reusable buffers.
pub struct Setup<'a> {
    /// The Q processes of this process count (MY_COMM, PMB §5.2.2).
    pub comm: &'a Comm,
    pub role: Role,
    /// Rotate roots every repetition (`--root-shift`).
    pub root_shift: bool,
    /// Root of rooted collectives (`--root`; the first one when rotating),
    /// below the group's size.
    pub root: usize,
    /// `--off-cache`: cold data every repetition (buffer patterns).
    pub off_cache: Option<OffCache>,
    pub arena: &'a mut Arena,
}

/// Buffers reused across the points of one benchmark and process count, as
/// PMB allocates them once for the largest length.
#[derive(Default)]
pub struct Arena {
    bufs: Vec<Buffer>,
    /// A one-sided window reused across the points (making one is
    /// collective, and slow with some libraries: 100 ms with MPICH 4 here).
    window: Option<Window>,
}

impl Arena {
    /// Two buffers of at least `send` and `recv` bytes (grown when needed).
    pub fn pair(&mut self, send: usize, recv: usize) -> Result<(&mut Buffer, &mut Buffer)> {
        self.ensure(&[send, recv])?;
        let (a, b) = self.bufs.split_at_mut(1);
        Ok((&mut a[0], &mut b[0]))
    }

    /// Buffers of at least `sizes[i]` bytes each (grown when needed).
    pub fn take(&mut self, sizes: &[usize]) -> Result<&mut [Buffer]> {
        self.ensure(sizes)?;
        Ok(&mut self.bufs[..sizes.len()])
    }

    /// Makes sure buffer i holds at least `sizes[i]` bytes.
    pub fn ensure(&mut self, sizes: &[usize]) -> Result<()> {
        for (i, &n) in sizes.iter().enumerate() {
            if i >= self.bufs.len() {
                self.bufs.push(alloc(n)?);
            } else if self.bufs[i].len() < n {
                self.bufs[i] = alloc(n)?;
            }
        }
        Ok(())
    }

    /// Collective over `comm` (every rank asks for the same): a window of
    /// `kind` with at least `len` bytes, its first `len` bytes zeroed, and
    /// buffers of at least `sizes` bytes. The window is made again only
    /// when the kind changes or it is too small.
    pub fn window(
        &mut self,
        comm: &Comm,
        kind: WindowKind,
        len: usize,
        sizes: &[usize],
    ) -> Result<(&mut Window, &mut [Buffer])> {
        if self
            .window
            .as_ref()
            .is_none_or(|w| w.kind() != kind || w.len() < len)
        {
            self.window = None;
            self.window = Some(Window::new(comm, kind, len)?);
        }
        self.ensure(sizes)?;
        let w = self.window.as_mut().expect("made above");
        w.zero(len);
        Ok((w, &mut self.bufs[..sizes.len()]))
    }

    /// Bytes held, for the memory accounting of tests.
    #[cfg(test)]
    pub fn held(&self) -> usize {
        self.bufs.iter().map(Buffer::len).sum()
    }
}

fn alloc(n: usize) -> Result<Buffer> {
    Buffer::try_new(n).map_err(|e| anyhow::anyhow!("cannot allocate {n} bytes: {e}"))
}

/// A benchmark of any suite: one small file and one registry line.
pub trait Benchmark: Sync {
    fn info(&self) -> &'static Info;

    /// The points of the sweep on `cx.q` processes (default: from [`Info::axis`]).
    fn points(&self, cx: &SweepCx) -> Vec<Point> {
        cx.default_points(self.info())
    }

    /// Who is active and who partners whom at a point (default: the
    /// benchmark's one placement, [`Info::placement`]); a benchmark whose
    /// points differ in pairing (the coarray ping-pong kinds) says so here.
    fn placement(&self, _p: &Point) -> Placement {
        self.info().placement
    }

    /// Bytes one rank needs at a point on `q` processes (checked against `--mem`).
    fn need(&self, p: &Point, q: usize) -> u64;

    /// Why a point cannot run (checked before any kernel is built), e.g. a
    /// reduction beyond the MPI count range.
    fn refuse(&self, _p: &Point, _q: usize) -> Option<String> {
        None
    }

    /// Builds the kernel of one point, outside any timed region. Collective
    /// over the group only in what it creates (communicators, windows).
    fn kernel<'a>(&'a self, s: Setup<'a>, p: &Point) -> Result<Box<dyn Kernel + 'a>>;

    /// On every member of a group, after its last point on that many
    /// processes (the point loop's end, or its error ending): what the
    /// benchmark kept from point to point is let go here (IMB-IO keeps
    /// one file per benchmark, as IMB does). Not collective: the loop can
    /// end on one rank's error.
    fn finished(&self, _group: &Comm) {}

    /// Reported time = measured time per repetition × this at point `p`
    /// (default: the declaration's `time_scale`; OSU's one-sided latency
    /// programs halve their round trips under fence and pscw only).
    fn time_scale(&self, _p: &Point) -> f64 {
        self.info().time_scale
    }

    /// On rank 0, after the rows are assembled: figures that combine rows
    /// (e.g. an overlap from two scenarios, a latency/bandwidth fit over a
    /// packet sweep). Formatting stays with the reporters.
    fn derive(&self, _r: &mut BenchResult) {}

    /// After `--launches N`, on the combined result (each row made from the
    /// same row of every launch, with `launch_medians_us`): the figures the
    /// benchmark can judge again over the launches. Default: none (each
    /// launch's figures stay with that launch).
    fn derive_combined(&self, _r: &mut BenchResult) {}

    /// The same benchmark over another declaration of itself: `info` is its
    /// own with the element type and derived datatype a run chose
    /// ([`crate::bench::datatype::retype`]); `None` where its element type is fixed.
    fn retyped(&self, _info: &'static Info) -> Option<&'static dyn Benchmark> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arena_reuses_and_grows() {
        let mut a = Arena::default();
        a.pair(100, 10).unwrap();
        assert_eq!(a.held(), 110);
        a.pair(50, 10).unwrap();
        assert_eq!(a.held(), 110);
        let (s, r) = a.pair(200, 5).unwrap();
        assert_eq!((s.len(), r.len()), (200, 10));
    }
}
