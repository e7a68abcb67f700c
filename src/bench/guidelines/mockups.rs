//! The mock-ups: less specialised MPI calls that give the same result as a
//! collective, each a pattern whose repetition is the whole mock-up, so
//! that the engine times it as one operation, under the same method and
//! validation as the collective it stands for. X is the guideline's n in
//! bytes (what it means is the guideline's: [`super::GUIDELINES`]).
//!
//! A mock-up that needs room for an intermediate result keeps it in its
//! receive buffer after the result (its layout says so), and a second
//! message size in `op.unit`, resolved outside the timed region.

use crate::bench::buf::{Layout, Op, Pattern};
use crate::bench::Info;
use crate::check::{Expect, Segment};
use crate::comm::{self, Msg};
use crate::contract::axis::Point;
use crate::contract::placement::Role;
use anyhow::Result;

/// `len` bytes of `sender`'s send buffer from `sender_offset`, at offset 0.
fn copied(len: usize, sender: usize, sender_offset: usize) -> Expect {
    Expect::Bytes(vec![Segment {
        offset: 0,
        len,
        sender,
        sender_offset,
    }])
}

/// The sum over all ranks of X bytes of elements.
fn sum(info: &Info, x: usize) -> Expect {
    Expect::Sum {
        first: 0,
        count: x / info.elem.size(),
    }
}

/// `n` elements of the declared type, for a mock-up's second message.
fn elems(info: &Info, n: usize) -> Msg {
    Msg::elems(info.elem, n).unwrap_or_else(|_| Msg::small(0))
}

/// Refuses a point whose second message is beyond the int count range.
fn refuse_elems(info: &Info, n: usize) -> Option<String> {
    Msg::count_error(info.elem, n).map(|e| format!("{}: {e}", info.name))
}

/// A mock-up's declaration, and a layout of X bytes in and X bytes out.
macro_rules! x_in_x_out {
    () => {
        fn info(&self) -> &'static Info {
            self.0
        }
        fn layout(&self, x: usize, _q: usize) -> Layout {
            Layout { send: x, recv: x }
        }
    };
}

/// The root's buffer of an in-place broadcast: it sends from its send
/// buffer, so that its data is never overwritten.
#[inline(always)]
fn bcast_buffer(op: &mut Op) -> *mut u8 {
    if op.rank == op.root {
        op.sbuf.mut_ptr().wrapping_add(op.soff)
    } else {
        op.rp()
    }
}

/// MPI_Allreduce(n) as MPI_Reduce(n) to the root, then MPI_Bcast(n) of the sum.
pub struct ReduceBcast(pub &'static Info);

impl Pattern for ReduceBcast {
    x_in_x_out!();
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        let r = op.rp();
        op.comm.reduce(op.sp(), r, &op.msg, op.root);
        op.comm.bcast(r, &op.msg, op.root);
    }
    fn expect(&self, x: usize, _q: usize, _rank: usize, _root: usize, _role: &Role) -> Expect {
        sum(self.0, x)
    }
}

/// MPI_Allgather(n) as MPI_Gather(n) of every block to the root, then
/// MPI_Bcast(n·p) of all of them (X: each rank's block).
pub struct GatherBcast(pub &'static Info);

impl Pattern for GatherBcast {
    fn info(&self) -> &'static Info {
        self.0
    }
    fn layout(&self, x: usize, q: usize) -> Layout {
        Layout {
            send: x,
            recv: q * x,
        }
    }
    fn prepare(&self, op: &mut Op) -> Result<()> {
        op.unit = Some(elems(self.0, op.size * op.msg.count as usize));
        Ok(())
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        let r = op.rp();
        op.comm.gather(op.sp(), &op.msg, r, op.root);
        if let Some(all) = &op.unit {
            op.comm.bcast(r, all, op.root);
        }
    }
    fn expect(&self, x: usize, q: usize, _rank: usize, _root: usize, _role: &Role) -> Expect {
        Expect::Bytes(
            (0..q)
                .map(|k| Segment {
                    offset: k * x,
                    len: x,
                    sender: k,
                    sender_offset: 0,
                })
                .collect(),
        )
    }
    fn refuse(&self, p: &Point, q: usize) -> Option<String> {
        refuse_elems(self.0, q * p.bytes / self.0.elem.size())
    }
}

/// MPI_Bcast(n) as MPI_Scatter of the root's n bytes in p blocks, then
/// MPI_Allgather(n/p) of the blocks (X: n, a multiple of p).
pub struct ScatterAllgather(pub &'static Info);

impl Pattern for ScatterAllgather {
    fn info(&self) -> &'static Info {
        self.0
    }
    fn layout(&self, x: usize, q: usize) -> Layout {
        Layout {
            send: x,
            recv: x + x / q,
        }
    }
    fn prepare(&self, op: &mut Op) -> Result<()> {
        op.unit = Some(elems(self.0, op.msg.count as usize / op.size));
        Ok(())
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        let r = op.rp();
        let block = r.wrapping_add(op.x);
        if let Some(b) = &op.unit {
            op.comm.scatter(op.sp(), b, block, op.root);
            op.comm.allgather(block, b, r);
        }
    }
    fn expect(&self, x: usize, _q: usize, _rank: usize, root: usize, _role: &Role) -> Expect {
        copied(x, root, 0)
    }
}

/// MPI_Scatter(n) as MPI_Bcast of all p blocks (X: each rank's block).
pub struct BcastAll(pub &'static Info);

impl Pattern for BcastAll {
    fn info(&self) -> &'static Info {
        self.0
    }
    fn layout(&self, x: usize, q: usize) -> Layout {
        Layout {
            send: q * x,
            recv: q * x,
        }
    }
    fn prepare(&self, op: &mut Op) -> Result<()> {
        op.unit = Some(elems(self.0, op.size * op.msg.count as usize));
        Ok(())
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        let buf = bcast_buffer(op);
        if let Some(all) = &op.unit {
            op.comm.bcast(buf, all, op.root);
        }
    }
    fn expect(&self, x: usize, q: usize, rank: usize, root: usize, _role: &Role) -> Expect {
        if rank == root {
            Expect::Nothing
        } else {
            copied(q * x, root, 0)
        }
    }
    fn refuse(&self, p: &Point, q: usize) -> Option<String> {
        refuse_elems(self.0, q * p.bytes / self.0.elem.size())
    }
}

/// MPI_Reduce_scatter_block(n) as MPI_Reduce of the p-block vector to the
/// root, then MPI_Scatter(n) of its blocks (X: each rank's block).
pub struct ReduceThenScatter(pub &'static Info);

impl Pattern for ReduceThenScatter {
    fn info(&self) -> &'static Info {
        self.0
    }
    fn layout(&self, x: usize, q: usize) -> Layout {
        Layout {
            send: q * x,
            recv: x + q * x,
        }
    }
    fn prepare(&self, op: &mut Op) -> Result<()> {
        op.unit = Some(elems(self.0, op.size * op.msg.count as usize));
        Ok(())
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        let r = op.rp();
        let vector = r.wrapping_add(op.x);
        if let Some(all) = &op.unit {
            op.comm.reduce(op.sp(), vector, all, op.root);
            op.comm.scatter(vector, &op.msg, r, op.root);
        }
    }
    fn expect(&self, x: usize, _q: usize, rank: usize, _root: usize, _role: &Role) -> Expect {
        let n = x / self.0.elem.size();
        Expect::Sum {
            first: rank * n,
            count: n,
        }
    }
    fn refuse(&self, p: &Point, q: usize) -> Option<String> {
        refuse_elems(self.0, q * p.bytes / self.0.elem.size())
    }
}

/// MPI_Scan(n) with MPI_SUM.
pub struct Scan(pub &'static Info);

impl Pattern for Scan {
    x_in_x_out!();
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        let r = op.rp();
        op.comm.scan(op.sp(), r, &op.msg);
    }
    fn expect(&self, x: usize, _q: usize, rank: usize, _root: usize, _role: &Role) -> Expect {
        Expect::PrefixSum {
            count: x / self.0.elem.size(),
            ranks: rank + 1,
        }
    }
}

/// MPI_Scan(n) as MPI_Exscan(n), then MPI_Reduce_local(n) of the rank's
/// own values into it (rank 0, whose MPI_Exscan result is undefined,
/// copies its own values instead).
pub struct ExscanLocal(pub &'static Info);

impl Pattern for ExscanLocal {
    x_in_x_out!();
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        let r = op.rp();
        op.comm.exscan(op.sp(), r, &op.msg);
        if op.rank == 0 {
            let (s, d, x) = (op.soff, op.roff, op.x);
            op.rbuf.bytes_mut()[d..d + x].copy_from_slice(&op.sbuf.bytes()[s..s + x]);
        } else {
            comm::coll::reduce_local(op.sp(), r, &op.msg);
        }
    }
    fn expect(&self, x: usize, _q: usize, rank: usize, _root: usize, _role: &Role) -> Expect {
        Expect::PrefixSum {
            count: x / self.0.elem.size(),
            ranks: rank + 1,
        }
    }
}

/// The half of X (in elements) the split mock-ups move per call.
fn halves(op: &mut Op, info: &Info) {
    op.unit = Some(elems(info, op.msg.count as usize / 2));
}

/// MPI_Bcast(n) as two MPI_Bcast(n/2), one half after the other.
pub struct BcastHalves(pub &'static Info);

impl Pattern for BcastHalves {
    x_in_x_out!();
    fn prepare(&self, op: &mut Op) -> Result<()> {
        halves(op, self.0);
        Ok(())
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        let buf = bcast_buffer(op);
        let h = op.x / 2;
        if let Some(half) = &op.unit {
            op.comm.bcast(buf, half, op.root);
            op.comm.bcast(buf.wrapping_add(h), half, op.root);
        }
    }
    fn expect(&self, x: usize, _q: usize, rank: usize, root: usize, _role: &Role) -> Expect {
        if rank == root {
            Expect::Nothing
        } else {
            copied(x, root, 0)
        }
    }
}

/// MPI_Allreduce(n) as two MPI_Allreduce(n/2).
pub struct AllreduceHalves(pub &'static Info);

impl Pattern for AllreduceHalves {
    x_in_x_out!();
    fn prepare(&self, op: &mut Op) -> Result<()> {
        halves(op, self.0);
        Ok(())
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        let (s, r, h) = (op.sp(), op.rp(), op.x / 2);
        if let Some(half) = &op.unit {
            op.comm.allreduce(s, r, half);
            op.comm
                .allreduce(s.wrapping_add(h), r.wrapping_add(h), half);
        }
    }
    fn expect(&self, x: usize, _q: usize, _rank: usize, _root: usize, _role: &Role) -> Expect {
        sum(self.0, x)
    }
}

/// MPI_Reduce(n) as two MPI_Reduce(n/2).
pub struct ReduceHalves(pub &'static Info);

impl Pattern for ReduceHalves {
    x_in_x_out!();
    fn prepare(&self, op: &mut Op) -> Result<()> {
        halves(op, self.0);
        Ok(())
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        let (s, r, h) = (op.sp(), op.rp(), op.x / 2);
        if let Some(half) = &op.unit {
            op.comm.reduce(s, r, half, op.root);
            op.comm
                .reduce(s.wrapping_add(h), r.wrapping_add(h), half, op.root);
        }
    }
    fn expect(&self, x: usize, _q: usize, rank: usize, root: usize, _role: &Role) -> Expect {
        if rank == root {
            sum(self.0, x)
        } else {
            Expect::Nothing
        }
    }
}
