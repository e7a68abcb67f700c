//! Point-to-point (the seed's "Point-to-point notes"): ping-pongs of remote
//! writes (put) and remote reads (get) between pairs of images, each
//! repetition two transfers and two synchronisations:
//!
//! ```text
//! put: image1 puts to image2; sync; image2 puts to image1; sync.
//! get: image2 gets from image1; sync; image1 gets from image2; sync.
//! ```
//!
//! timed as one loop of nrep repetitions (`method::PmbLoop`, nrep by the
//! target-time rule), so that latency = time/(2·nrep) and bandwidth =
//! 2·nrep·ndata·8/(2^20·time) MB/s. A pattern is (count, blksize, stride):
//! count blocks of blksize doubles, stride apart; ndata = count·blksize and
//! nextent = blksize + (count−1)·stride. The MPI operations:
//!
//! | mode | one repetition's transfer |
//! |---|---|
//! | contiguous (put, get) | one MPI_Put/MPI_Get of ndata doubles |
//! | many | count operations of blksize doubles |
//! | strided | one operation with MPI_Type_vector(count, 1, stride) |
//! | strided many | count operations of blksize doubles, 2·blksize apart |
//! | MPI Send | MPI_Send/MPI_Recv of ndata doubles, no coarray synchronisation |

use std::ffi::c_int;

use anyhow::Result;

use super::{window_of, window_params, PingPongKind, Reporter, Settings, SyncKind};
use crate::bench::{Benchmark, Info, Kernel, Setup};
use crate::check::{double_at, DOUBLE_POISON};
use crate::comm::rma::{Coarray, Datatype, Images};
use crate::comm::{Buffer, Comm, Elem, Msg};
use crate::contract::axis::{Point, SweepCx};
use crate::contract::placement::Placement;

mod get;
mod many_get;
mod many_put;
mod mpi_send;
mod put;
mod strided_get;
mod strided_many_get;
mod strided_many_put;
mod strided_put;

/// The section in cafbench's order.
pub fn benchmarks() -> Vec<&'static dyn Benchmark> {
    vec![
        &put::PUT,
        &many_put::MANY_PUT,
        &strided_put::STRIDED_PUT,
        &strided_many_put::STRIDED_MANY_PUT,
        &get::GET,
        &many_get::MANY_GET,
        &strided_get::STRIDED_GET,
        &strided_many_get::STRIDED_MANY_GET,
        &mpi_send::MPI_SEND,
    ]
}

/// What moves the data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Remote write: MPI_Put.
    Put,
    /// Remote read: MPI_Get.
    Get,
    /// Two-sided MPI_Send/MPI_Recv, no coarray synchronisation ("MPI Send").
    Send,
}

/// How the data are laid out and transferred.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One operation of ndata doubles; blksize doubles up to max-ndata.
    Contiguous,
    /// count operations of blksize doubles; count doubles, blksize halves.
    Many,
    /// One operation with a vector datatype; the stride halves down to 1.
    Strided,
    /// count operations of blksize doubles with gaps of blksize.
    StridedMany,
}

/// cafbench's sweep of (count, blksize, stride) for a layout.
pub fn sweep(layout: Layout, max_ndata: usize, max_stride: usize) -> Vec<(usize, usize, usize)> {
    let mut v = Vec::new();
    match layout {
        Layout::Contiguous => {
            let mut b = 1;
            while b <= max_ndata {
                v.push((1, b, b));
                b *= 2;
            }
        }
        Layout::Many => {
            let mut c = 1;
            while c <= max_ndata && max_ndata / c >= 1 {
                v.push((c, max_ndata / c, max_ndata / c));
                c *= 2;
            }
        }
        Layout::StridedMany => {
            // Blocks of blksize with gaps of blksize: the stride is 2·blksize.
            let (mut c, mut b) = (1, max_ndata / 2);
            while b >= 1 {
                v.push((c, b, 2 * b));
                c *= 2;
                b /= 2;
            }
        }
        Layout::Strided => {
            let count = max_ndata / max_stride.max(1);
            let mut s = max_stride;
            while s >= 1 && count >= 1 {
                v.push((count, 1, s));
                s /= 2;
            }
        }
    }
    v
}

/// A ping-pong mode: one small file each declares its name, aliases and
/// MPI operation.
pub struct PingPong {
    pub info: &'static Info,
    pub access: Access,
    pub layout: Layout,
}

/// (count, blksize, stride, ndata, nextent) of a point.
fn geometry(p: &Point) -> (usize, usize, usize, usize, usize) {
    let g = |k: &str| p.u64(k).unwrap_or(1) as usize;
    let (c, b, s) = (g("count"), g("blksize"), g("stride"));
    (c, b, s, c * b, b + (c - 1) * s)
}

/// Doubles of the coarray and the local buffer: maxndata, at least nextent.
fn extent(p: &Point) -> usize {
    let (.., nextent) = geometry(p);
    (p.u64("maxndata").unwrap_or(0) as usize).max(nextent)
}

fn kind_of(p: &Point) -> PingPongKind {
    p.str("pingpong")
        .and_then(PingPongKind::from_name)
        .unwrap_or(PingPongKind::Single)
}

impl Benchmark for PingPong {
    fn info(&self) -> &'static Info {
        self.info
    }

    fn points(&self, cx: &SweepCx) -> Vec<Point> {
        let s = Settings::of(cx);
        let syncs: Vec<&str> = if self.access == Access::Send {
            vec!["none"]
        } else {
            s.syncs.iter().map(|k| k.name()).collect()
        };
        let combos: Vec<_> = if self.access == Access::Send {
            vec![None]
        } else {
            s.combos().into_iter().map(Some).collect()
        };
        let mut v = Vec::new();
        for combo in combos {
            for kind in &s.kinds {
                for sync in &syncs {
                    for (c, b, st) in sweep(self.layout, s.max_ndata, s.max_stride) {
                        let (ndata, nextent) = (c * b, b + (c - 1) * st);
                        let p = Point::bytes(ndata * 8)
                            .with("mode", self.info.name)
                            .with("pingpong", kind.name())
                            .with("sync", *sync)
                            .with("count", c as u64)
                            .with("blksize", b as u64)
                            .with("stride", st as u64)
                            .with("ndata", ndata as u64)
                            .with("nextent", nextent as u64)
                            .with("maxndata", s.max_ndata as u64);
                        v.push(match combo {
                            Some(c) => window_params(p, c),
                            None => p,
                        });
                    }
                }
            }
        }
        v
    }

    fn placement(&self, p: &Point) -> Placement {
        match kind_of(p) {
            PingPongKind::Single => Placement::Ends,
            PingPongKind::Multiple => Placement::Halves,
            PingPongKind::Crossing => Placement::Crossing,
        }
    }

    /// The coarray of maxndata doubles (as cafbench allocates it) and a local buffer as large.
    fn need(&self, p: &Point, _q: usize) -> u64 {
        2 * 8 * extent(p) as u64
    }

    fn refuse(&self, p: &Point, q: usize) -> Option<String> {
        let n = extent(p);
        if n > i32::MAX as usize / 8 {
            return Some(format!(
                "{}: {n} doubles exceed the window displacement range",
                self.info.name
            ));
        }
        kind_of(p).refuse(q)
    }

    fn kernel<'a>(&'a self, s: Setup<'a>, p: &Point) -> Result<Box<dyn Kernel + 'a>> {
        let (count, blksize, stride, ndata, nextent) = geometry(p);
        let role = s.role;
        let me = s.comm.rank;
        let partner = role.to.filter(|_| role.active).unwrap_or(me);
        let bytes = extent(p) * 8;
        let what = format!(
            "{}, {} ping-pong, {}, count {count} blksize {blksize} stride {stride}",
            self.info.name,
            kind_of(p).name(),
            p.str("sync").unwrap_or("none")
        );
        if self.access == Access::Send {
            let (src, dst) = s.arena.pair(bytes, bytes)?;
            let msg = Msg::elems(Elem::Double, ndata)?;
            return Ok(Box::new(SendKernel {
                comm: s.comm,
                src,
                dst,
                msg,
                ndata,
                partner,
                active: role.active,
                initiator: role.initiator,
                me,
                what,
                reporter: Reporter::new(),
            }));
        }
        let (kind, rma) = window_of(p);
        let global = p.str("sync").and_then(SyncKind::from_name) != Some(SyncKind::P2p);
        let (win, bufs) = s.arena.window(s.comm, kind, bytes, &[bytes])?;
        let local = &mut bufs[0];
        let mut co = Coarray::new(s.comm, win, rma)?;
        let pair: Vec<usize> = if role.active { vec![partner] } else { vec![] };
        let images = co.images(&pair, &pair)?;
        if global {
            let all = co.everyone()?;
            co.open(&all);
        } else {
            co.open(&images);
        }
        // The transfers of one repetition: byte offsets of the operations
        // and the (count, datatype) of each.
        let double = Elem::Double.datatype();
        let (blocks, n, vector): (Vec<usize>, usize, Option<Datatype>) = match self.layout {
            Layout::Contiguous => (vec![0], ndata, None),
            Layout::Strided => (
                vec![0],
                1,
                Some(Datatype::vector(count, blksize, stride, double)?),
            ),
            Layout::Many | Layout::StridedMany => {
                ((0..count).map(|i| i * stride * 8).collect(), blksize, None)
            }
        };
        let dt = vector.as_ref().map_or(double, Datatype::raw);
        let put = self.access == Access::Put;
        let (first, second) = if put {
            (role.initiator, role.active && !role.initiator)
        } else {
            (role.active && !role.initiator, role.initiator)
        };
        Ok(Box::new(RmaKernel {
            takes_part: role.active || rma.collective(),
            co,
            local,
            put,
            blocks,
            n: n as c_int,
            dt,
            _vector: vector,
            partner,
            first,
            second,
            global,
            images,
            runs: (0..count).map(|i| (i * stride, blksize)).collect(),
            nextent,
            active: role.active,
            me,
            what: format!("{what}, window {}, rma-sync {}", kind.name(), rma.name()),
            reporter: Reporter::new(),
        }))
    }
}

/// One ping-pong of puts or gets on a coarray.
struct RmaKernel<'a> {
    co: Coarray<'a>,
    /// Put: the source; get: the destination (the window is the other side).
    local: &'a mut Buffer,
    put: bool,
    /// Byte offsets of the operations of one transfer.
    blocks: Vec<usize>,
    n: c_int,
    dt: crate::comm::RawType,
    _vector: Option<Datatype>,
    partner: usize,
    /// This image transfers first / second in a repetition.
    first: bool,
    second: bool,
    /// sync all (else sync images with the partner).
    global: bool,
    /// Calls sync images: an active image, or every image when the sync is collective.
    takes_part: bool,
    images: Images,
    /// Validation: (first element, length) of each block, the extent.
    runs: Vec<(usize, usize)>,
    nextent: usize,
    active: bool,
    me: usize,
    what: String,
    reporter: Reporter,
}

impl RmaKernel<'_> {
    #[inline(always)]
    fn transfer(&mut self) {
        let win = &self.co.win;
        if self.put {
            let base = self.local.ptr();
            for &off in &self.blocks {
                // off + the datatype's extent lies within nextent doubles.
                win.put(base.wrapping_add(off), self.n, self.dt, self.partner, off);
            }
        } else {
            let base = self.local.mut_ptr();
            for &off in &self.blocks {
                win.get(base.wrapping_add(off), self.n, self.dt, self.partner, off);
            }
        }
    }

    #[inline(always)]
    fn sync(&mut self) {
        if self.global {
            self.co.sync_all();
        } else if self.takes_part {
            self.co.sync_images(&mut self.images);
        }
    }

    /// The destination of this image's incoming data.
    fn destination(&mut self) -> &mut [f64] {
        if self.put {
            self.co.win.f64s_mut()
        } else {
            self.local.typed_mut::<f64>()
        }
    }
}

impl Kernel for RmaKernel<'_> {
    #[inline(always)]
    fn run(&mut self, _rep: usize) {
        if self.first {
            self.transfer();
        }
        self.sync();
        if self.second {
            self.transfer();
        }
        self.sync();
    }

    /// Fills the source with (origin, repetition, offset) patterns and
    /// poisons the destination, then settles (collective), so that no
    /// partner's transfer of this repetition overtakes the poison and no
    /// verification of the last one sees this one's data.
    fn prepare(&mut self, rep: usize) {
        if self.active {
            let me = self.me;
            let n = self.nextent;
            let src: &mut [f64] = if self.put {
                self.local.typed_mut::<f64>()
            } else {
                self.co.win.f64s_mut()
            };
            for &(start, len) in &self.runs {
                for (e, v) in src[start..start + len].iter_mut().enumerate() {
                    *v = double_at(me, rep, start + e);
                }
            }
            self.destination()[..n].fill(DOUBLE_POISON);
        }
        self.co.settle();
    }

    /// The blocks hold the partner's pattern, the gaps still the poison.
    fn verify(&mut self, rep: usize) -> u64 {
        if !self.active {
            return 0;
        }
        self.co.refresh();
        let (partner, n) = (self.partner, self.nextent);
        let runs = std::mem::take(&mut self.runs);
        let dst = self.destination();
        let mut bad = 0u64;
        let mut next = 0;
        for &(start, len) in &runs {
            bad += dst[next..start]
                .iter()
                .filter(|&&v| v != DOUBLE_POISON)
                .count() as u64;
            bad += dst[start..start + len]
                .iter()
                .enumerate()
                .filter(|(e, &v)| v != double_at(partner, rep, start + e))
                .count() as u64;
            next = start + len;
        }
        bad += dst[next..n].iter().filter(|&&v| v != DOUBLE_POISON).count() as u64;
        self.runs = runs;
        if bad > 0 {
            let (me, what) = (self.me, &self.what);
            let how = if self.put {
                format!("the puts from rank {partner} into rank {me}'s window")
            } else {
                format!("the gets of rank {me} from rank {partner}")
            };
            self.reporter.report(|| {
                format!("{how} left {bad} of {n} doubles wrong in repetition {rep} ({what})")
            });
        }
        bad
    }

    fn corrupt(&mut self) {
        if self.active {
            let start = self.runs[0].0;
            self.destination()[start] = -2.0;
        }
    }
}

/// "MPI Send": a plain MPI_Send/MPI_Recv ping-pong, the sanity check.
struct SendKernel<'a> {
    comm: &'a Comm,
    src: &'a mut Buffer,
    dst: &'a mut Buffer,
    msg: Msg,
    ndata: usize,
    partner: usize,
    active: bool,
    initiator: bool,
    me: usize,
    what: String,
    reporter: Reporter,
}

const TAG_SEND: i32 = 0xcaf;

impl Kernel for SendKernel<'_> {
    #[inline(always)]
    fn run(&mut self, _rep: usize) {
        if self.initiator {
            self.comm
                .send(self.src.ptr(), &self.msg, self.partner, TAG_SEND);
            self.comm
                .recv(self.dst.mut_ptr(), &self.msg, self.partner, TAG_SEND);
        } else if self.active {
            self.comm
                .recv(self.dst.mut_ptr(), &self.msg, self.partner, TAG_SEND);
            self.comm
                .send(self.src.ptr(), &self.msg, self.partner, TAG_SEND);
        }
    }

    fn prepare(&mut self, rep: usize) {
        let (me, n) = (self.me, self.ndata);
        for (e, v) in self.src.typed_mut::<f64>()[..n].iter_mut().enumerate() {
            *v = double_at(me, rep, e);
        }
        self.dst.typed_mut::<f64>()[..n].fill(DOUBLE_POISON);
    }

    fn verify(&mut self, rep: usize) -> u64 {
        if !self.active {
            return 0;
        }
        let (partner, n) = (self.partner, self.ndata);
        let bad = self.dst.typed::<f64>()[..n]
            .iter()
            .enumerate()
            .filter(|(e, &v)| v != double_at(partner, rep, *e))
            .count() as u64;
        if bad > 0 {
            let (me, what) = (self.me, &self.what);
            self.reporter.report(|| {
                format!(
                    "rank {me} received {bad} of {n} doubles wrong from rank {partner} in repetition {rep} ({what})"
                )
            });
        }
        bad
    }

    fn corrupt(&mut self) {
        if self.active && self.ndata > 0 {
            self.dst.typed_mut::<f64>()[0] = -2.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::axis::Axes;

    #[test]
    fn sweeps_are_cafbenchs() {
        let c = sweep(Layout::Contiguous, 8, 4);
        assert_eq!(c, vec![(1, 1, 1), (1, 2, 2), (1, 4, 4), (1, 8, 8)]);
        let m = sweep(Layout::Many, 8, 4);
        assert_eq!(m, vec![(1, 8, 8), (2, 4, 4), (4, 2, 2), (8, 1, 1)]);
        let sm = sweep(Layout::StridedMany, 8, 4);
        assert_eq!(sm, vec![(1, 4, 8), (2, 2, 4), (4, 1, 2)]);
        let s = sweep(Layout::Strided, 8, 4);
        assert_eq!(s, vec![(2, 1, 4), (2, 1, 2), (2, 1, 1)]);
        // Any maxndata, as cafbench: integer halving.
        assert_eq!(
            sweep(Layout::Many, 5, 2),
            vec![(1, 5, 5), (2, 2, 2), (4, 1, 1)]
        );
        assert_eq!(sweep(Layout::StridedMany, 5, 2), vec![(1, 2, 4), (2, 1, 2)]);
        // The defaults: 17 contiguous sizes up to 64 Ki doubles, strides 128 .. 1.
        assert_eq!(sweep(Layout::Contiguous, 65536, 128).len(), 17);
        let st = sweep(Layout::Strided, 65536, 128);
        assert_eq!(st.len(), 8);
        assert_eq!(st[0], (512, 1, 128));
        for (c, b, s) in sweep(Layout::StridedMany, 65536, 128) {
            assert_eq!(s, 2 * b);
            assert_eq!(c * b, 32768);
        }
    }

    #[test]
    fn points_carry_the_params_and_the_placement() {
        let axes = Axes::new();
        let cx = SweepCx {
            sizes: &[0],
            axes: &axes,
            q: 4,
        };
        let b = &strided_put::STRIDED_PUT;
        let pts = b.points(&cx);
        assert_eq!(pts.len(), 3 * 2 * 8);
        let p = &pts[0];
        for k in [
            "mode", "pingpong", "sync", "count", "blksize", "stride", "ndata", "nextent", "window",
            "rma_sync",
        ] {
            assert!(p.params.contains_key(k), "{k}");
        }
        assert_eq!(p.u64("nextent"), Some(1 + 511 * 128));
        assert_eq!(p.bytes, 512 * 8);
        assert_eq!(b.placement(p), Placement::Ends);
        let multi = pts
            .iter()
            .find(|p| p.str("pingpong") == Some("multiple"))
            .unwrap();
        assert_eq!(b.placement(multi), Placement::Halves);
        assert!(b.refuse(multi, 3).unwrap().contains("even"));
        assert!(b.refuse(multi, 4).is_none());
        // MPI Send has no coarray synchronisation and no window.
        let send = mpi_send::MPI_SEND.points(&cx);
        assert!(send.iter().all(|p| p.str("sync") == Some("none")));
        assert!(send.iter().all(|p| p.str("window").is_none()));
        assert_eq!(send.len(), 3 * 17);
    }
}
