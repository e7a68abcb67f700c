//! Buffer patterns: benchmarks that move data between a send and a receive
//! buffer (all of PMB-MPI1 and MPITEST, most of the others). A pattern is
//! one small file: its buffer needs, the MPI calls of one repetition, and
//! what a correct receive buffer holds. This module turns any pattern into a
//! [`Benchmark`] whose kernel resolves datatypes, counts and partners once
//! per point, so that the timed loop runs only the pattern's calls.

use std::ffi::c_int;

use anyhow::Result;

use super::{Benchmark, Info, Kernel, Setup};
use crate::check::{self, Expect};
use crate::comm::{request_null, Buffer, Comm, Msg, Request};
use crate::engine::axis::Point;
use crate::engine::placement::Role;

/// Buffer needs of one rank for message length X in a group of Q (bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub send: usize,
    pub recv: usize,
}

/// Everything one repetition may touch, resolved once per point.
pub struct Op<'a> {
    pub comm: &'a Comm,
    pub role: Role,
    pub rank: usize,
    pub size: usize,
    /// Message length X in bytes.
    pub x: usize,
    /// Root of rooted collectives for this repetition.
    pub root: usize,
    pub sbuf: &'a mut Buffer,
    pub rbuf: &'a mut Buffer,
    /// X bytes as elements of the benchmark's type.
    pub msg: Msg,
    /// A unit for counts and displacements (Allgatherv), when the pattern asks for one.
    pub unit: Option<Msg>,
    /// Peers resolved from the role (pair partner or ring neighbours).
    pub to: usize,
    pub from: usize,
    /// Per-rank counts and displacements (Allgatherv, Reduce_scatter).
    pub counts: Vec<c_int>,
    pub displs: Vec<c_int>,
    pub reqs: Vec<Request>,
}

/// A benchmark made of buffers and MPI calls.
pub trait Pattern: Sync {
    fn info(&self) -> &'static Info;

    /// Bytes each rank needs for message length `x` in a group of `q`.
    fn layout(&self, x: usize, q: usize) -> Layout;

    /// Per-point preparation outside the timed region (counts, units, requests).
    fn prepare(&self, _op: &mut Op) {}

    /// One repetition: MPI calls only.
    fn run(&self, op: &mut Op);

    /// What `op.rbuf` holds on `rank` after a repetition with `root`.
    fn expect(&self, x: usize, q: usize, rank: usize, root: usize, role: &Role) -> Expect;

    /// Why a point cannot run, beyond the memory limit (e.g. a reduction
    /// beyond the MPI count range); by default, element counts beyond 2^31 − 1.
    fn refuse(&self, p: &Point, _q: usize) -> Option<String> {
        let i = self.info();
        Msg::count_error(i.elem, p.bytes / i.elem.size()).map(|e| format!("{}: {e}", i.name))
    }
}

/// A pattern whose repetition splits into issuing the operation and
/// completing it, so that a scenario can put work between the two (CRESTA
/// scenario 3): a non-blocking collective starts in `issue` and waits in
/// `complete`; a blocking one does everything in `issue`.
pub trait Phased: Pattern {
    fn issue(&self, op: &mut Op);
    fn complete(&self, op: &mut Op);
}

impl<P: Pattern> Benchmark for P {
    fn info(&self) -> &'static Info {
        Pattern::info(self)
    }

    fn need(&self, p: &Point, q: usize) -> u64 {
        let l = self.layout(p.bytes, q);
        (l.send + l.recv) as u64
    }

    fn refuse(&self, p: &Point, q: usize) -> Option<String> {
        Pattern::refuse(self, p, q)
    }

    fn kernel<'a>(&'a self, s: Setup<'a>, p: &Point) -> Result<Box<dyn Kernel + 'a>> {
        Ok(Box::new(BufKernel::new(self, s, p)?))
    }
}

impl<'a, P: Pattern> BufKernel<'a, P> {
    /// Resolves buffers, datatype, counts and partners of one point.
    pub fn new(pat: &'a P, s: Setup<'a>, p: &Point) -> Result<BufKernel<'a, P>> {
        let info = Pattern::info(pat);
        let q = s.comm.size;
        let x = p.bytes;
        let l = pat.layout(x, q);
        let (sbuf, rbuf) = s.arena.pair(l.send, l.recv)?;
        let msg = Msg::elems(info.elem, x / info.elem.size()).map_err(anyhow::Error::msg)?;
        let me = s.comm.rank;
        let mut op = Op {
            comm: s.comm,
            rank: me,
            size: q,
            x,
            root: 0,
            sbuf,
            rbuf,
            msg,
            unit: None,
            to: s.role.to.unwrap_or(me),
            from: s.role.from.unwrap_or(me),
            role: s.role,
            counts: Vec::new(),
            displs: Vec::new(),
            reqs: vec![request_null(); 4],
        };
        pat.prepare(&mut op);
        Ok(BufKernel {
            pat,
            op,
            rotate: s.root_shift && info.rooted,
            send_len: l.send,
            recv_len: l.recv,
        })
    }

    /// Before the pattern's calls of repetition `rep`: the root of this repetition.
    #[inline(always)]
    pub fn begin(&mut self, rep: usize) {
        if self.rotate {
            self.op.root = rep % self.op.size;
        }
    }
}

/// The kernel of a pattern: monomorphised per pattern, so `run` inlines
/// the pattern's calls. Other kernels wrap it to add work around the
/// pattern's calls (CRESTA's scenarios), reusing its buffers and validation.
pub struct BufKernel<'a, P> {
    pub pat: &'a P,
    pub op: Op<'a>,
    rotate: bool,
    send_len: usize,
    recv_len: usize,
}

impl<P: Pattern> BufKernel<'_, P> {
    fn root_of(&self, rep: usize) -> usize {
        if self.rotate {
            rep % self.op.size
        } else {
            0
        }
    }

    fn expect(&self, rep: usize) -> Expect {
        let op = &self.op;
        self.pat
            .expect(op.x, op.size, op.rank, self.root_of(rep), &op.role)
    }

    fn reduction(&self) -> Option<crate::comm::Elem> {
        let i = self.pat.info();
        i.reduction.then_some(i.elem)
    }
}

impl<P: Pattern> Kernel for BufKernel<'_, P> {
    #[inline(always)]
    fn run(&mut self, rep: usize) {
        self.begin(rep);
        self.pat.run(&mut self.op);
    }

    fn prepare(&mut self, rep: usize) {
        let red = self.reduction();
        let (rank, x) = (self.op.rank, self.op.x);
        check::fill(self.op.sbuf, self.send_len, red, rank, rep, x);
        check::poison(self.op.rbuf, self.recv_len, red, rep, x);
    }

    fn verify(&mut self, rep: usize) -> u64 {
        let e = self.expect(rep);
        let elem = self.pat.info().elem;
        check::verify(&e, self.op.rbuf, elem, self.op.size, rep, self.op.x)
    }

    fn corrupt(&mut self) {
        let e = self.expect(0);
        check::corrupt(&e, self.op.rbuf, self.pat.info().elem);
    }
}

/// PMB §4.4.2: L items scattered over Q ranks; with L = Q·r + s the first s
/// ranks get r + 1 items and the others r.
pub fn split_counts(l: usize, q: usize) -> Vec<usize> {
    let r = l / q;
    let s = l % q;
    (0..q).map(|i| if i < s { r + 1 } else { r }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_is_pmb_4_4_2() {
        assert_eq!(split_counts(10, 4), vec![3, 3, 2, 2]);
        assert_eq!(split_counts(8, 4), vec![2, 2, 2, 2]);
        assert_eq!(split_counts(1, 3), vec![1, 0, 0]);
        assert_eq!(split_counts(0, 2), vec![0, 0]);
        for l in 0..100 {
            for q in 1..9 {
                let c = split_counts(l, q);
                assert_eq!(c.iter().sum::<usize>(), l);
                assert!(c.windows(2).all(|w| w[0] >= w[1] && w[0] - w[1] <= 1));
            }
        }
    }
}
