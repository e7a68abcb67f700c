//! The communication patterns the suites share. Each is written once and
//! parametrised by the benchmark's [`Info`] (element type, placement,
//! figures), so that PMB's PingPong and MPITEST's SEND & RECV are one
//! pattern under two definitions, each in its own small file with its own
//! name, and no body is copied.
//!
//! Partners come from the placement's [`Role`]; element counts from the
//! point's message (`op.msg`), resolved outside the timed region.

use std::ffi::c_int;

use crate::bench::buf::{split_counts, Layout, Op, Pattern, Phased};
use crate::check::{Expect, Segment};
use crate::comm::{self, Msg};
use crate::contract::axis::{Point, SweepCx};
use crate::contract::placement::Role;
use crate::contract::Info;
use crate::results::BenchResult;
use anyhow::Result;

/// A pattern over any declaration of itself (the element type and derived
/// datatype a run chooses): `Pattern::over` for the `P(&'static Info)` patterns.
macro_rules! retypable {
    () => {
        fn over(&self, info: &'static Info) -> Option<Self> {
            Some(Self(info))
        }
    };
}

/// X bytes as whole elements (reductions drop a partial trailing element, as PMB's X/4).
fn whole(info: &Info, x: usize) -> usize {
    x / info.elem.size() * info.elem.size()
}

fn from(len: usize, sender: usize) -> Expect {
    Expect::Bytes(vec![Segment {
        offset: 0,
        len,
        sender,
        sender_offset: 0,
    }])
}

/// Blocks of `x` bytes from every rank, in rank order (gathers).
fn from_each(x: usize, q: usize, sender_offset: impl Fn(usize) -> usize) -> Expect {
    Expect::Bytes(
        (0..q)
            .map(|k| Segment {
                offset: k * x,
                len: x,
                sender: k,
                sender_offset: sender_offset(k),
            })
            .collect(),
    )
}

/// Equal counts of X bytes per rank and their displacements, for the
/// vector collectives. Counts and displacements are ints: beyond that range
/// they count whole X-byte elements of a derived type (`op.unit`) instead.
fn equal_blocks(op: &mut Op) -> Result<()> {
    let n = op.msg.count as usize;
    let count = if op.size * op.x > i32::MAX as usize {
        op.unit = Some(Msg::unit(op.x)?);
        1
    } else {
        n
    };
    op.counts = vec![count as i32; op.size];
    op.displs = (0..op.size).map(|k| (k * count) as i32).collect();
    Ok(())
}

/// What a pair partner receives: the partner's message.
fn from_peer(x: usize, role: &Role) -> Expect {
    match role.from.filter(|_| role.active) {
        Some(p) => from(x, p),
        None => Expect::Nothing,
    }
}

/// A round trip: the initiator sends and then receives, its partner
/// receives and then sends back (PMB PingPong, MPITEST SEND & RECV and
/// SIGNAL SENDING).
pub struct PingPong(pub &'static Info);

impl Pattern for PingPong {
    fn info(&self) -> &'static Info {
        self.0
    }
    retypable!();
    fn layout(&self, x: usize, _q: usize) -> Layout {
        Layout { send: x, recv: x }
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        let r = op.rp();
        if op.role.initiator {
            op.comm.send(op.sp(), &op.msg, op.to, 1);
            op.comm.recv(r, &op.msg, op.from, 1);
        } else if op.role.active {
            op.comm.recv(r, &op.msg, op.from, 1);
            op.comm.send(op.sp(), &op.msg, op.to, 1);
        }
    }
    fn expect(&self, x: usize, _q: usize, _rank: usize, _root: usize, role: &Role) -> Expect {
        from_peer(x, role)
    }
}

/// Both partners send at once: MPI_Isend, MPI_Recv, MPI_Wait (PMB PingPing).
pub struct PingPing(pub &'static Info);

impl Pattern for PingPing {
    fn info(&self) -> &'static Info {
        self.0
    }
    retypable!();
    fn layout(&self, x: usize, _q: usize) -> Layout {
        Layout { send: x, recv: x }
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        if op.role.active {
            let (s, r) = (op.sp(), op.rp());
            op.comm.isend(s, &op.msg, op.to, 1, &mut op.reqs[0]);
            op.comm.recv(r, &op.msg, op.from, 1);
            comm::wait(&mut op.reqs[0]);
        }
    }
    fn expect(&self, x: usize, _q: usize, _rank: usize, _root: usize, role: &Role) -> Expect {
        from_peer(x, role)
    }
}

/// One way: the initiator sends with MPI_Send, its partner receives
/// (MPITEST BLOCKING SEND).
pub struct OneWay(pub &'static Info);

impl Pattern for OneWay {
    fn info(&self) -> &'static Info {
        self.0
    }
    retypable!();
    fn layout(&self, x: usize, _q: usize) -> Layout {
        Layout { send: x, recv: x }
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        if op.role.initiator {
            op.comm.send(op.sp(), &op.msg, op.to, 1);
        } else if op.role.active {
            let r = op.rp();
            op.comm.recv(r, &op.msg, op.from, 1);
        }
    }
    fn expect(&self, x: usize, _q: usize, _rank: usize, _root: usize, role: &Role) -> Expect {
        if role.initiator {
            Expect::Nothing
        } else {
            from_peer(x, role)
        }
    }
}

/// One way, nonblocking: the initiator sends with MPI_Isend and waits for
/// completion, its partner receives (MPITEST ISEND & WAIT).
pub struct IsendWait(pub &'static Info);

impl Pattern for IsendWait {
    fn info(&self) -> &'static Info {
        self.0
    }
    retypable!();
    fn layout(&self, x: usize, _q: usize) -> Layout {
        Layout { send: x, recv: x }
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        if op.role.initiator {
            let s = op.sp();
            op.comm.isend(s, &op.msg, op.to, 1, &mut op.reqs[0]);
            comm::wait(&mut op.reqs[0]);
        } else if op.role.active {
            let r = op.rp();
            op.comm.recv(r, &op.msg, op.from, 1);
        }
    }
    fn expect(&self, x: usize, q: usize, rank: usize, root: usize, role: &Role) -> Expect {
        OneWay(self.0).expect(x, q, rank, root, role)
    }
}

/// MPI_Sendrecv: send to the role's `to`, receive from its `from` (PMB
/// Sendrecv on a periodic chain, MPITEST SENDRECV between partners).
pub struct Sendrecv(pub &'static Info);

impl Pattern for Sendrecv {
    fn info(&self) -> &'static Info {
        self.0
    }
    retypable!();
    fn layout(&self, x: usize, _q: usize) -> Layout {
        Layout { send: x, recv: x }
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        if op.role.active {
            let r = op.rp();
            op.comm.sendrecv(op.sp(), &op.msg, op.to, r, op.from, 1);
        }
    }
    fn expect(&self, x: usize, _q: usize, _rank: usize, _root: usize, role: &Role) -> Expect {
        from_peer(x, role)
    }
}

/// PMB §4.3.2: exchange with both chain neighbours, 2 MPI_Isend + 2
/// MPI_Recv + MPI_Waitall.
pub struct Exchange(pub &'static Info);

impl Pattern for Exchange {
    fn info(&self) -> &'static Info {
        self.0
    }
    retypable!();
    fn layout(&self, x: usize, _q: usize) -> Layout {
        Layout {
            send: 2 * x,
            recv: 2 * x,
        }
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        // The second message starts X bytes in (twice that for resized elements).
        let (right, left, x) = (op.to, op.from, op.x * self.0.stretch());
        let (sp, rp) = (op.sp(), op.rp());
        let (s, r) = op.reqs.split_at_mut(1);
        // Both buffers hold 2X bytes (layout above).
        op.comm.isend(sp, &op.msg, right, 1, &mut s[0]);
        op.comm
            .isend(sp.wrapping_add(x), &op.msg, left, 1, &mut r[0]);
        op.comm.recv(rp, &op.msg, left, 1);
        op.comm.recv(rp.wrapping_add(x), &op.msg, right, 1);
        comm::waitall(&mut op.reqs[..2]);
    }
    fn expect(&self, x: usize, _q: usize, _rank: usize, _root: usize, role: &Role) -> Expect {
        let (right, left) = (role.to.unwrap_or(0), role.from.unwrap_or(0));
        Expect::Bytes(vec![
            Segment {
                offset: 0,
                len: x,
                sender: left,
                sender_offset: 0,
            },
            Segment {
                offset: x,
                len: x,
                sender: right,
                sender_offset: x,
            },
        ])
    }
}

/// MPI_Barrier.
pub struct Barrier(pub &'static Info);

impl Pattern for Barrier {
    fn info(&self) -> &'static Info {
        self.0
    }
    retypable!();
    fn layout(&self, _x: usize, _q: usize) -> Layout {
        Layout { send: 0, recv: 0 }
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        op.comm.barrier();
    }
    fn expect(&self, _x: usize, _q: usize, _rank: usize, _root: usize, _role: &Role) -> Expect {
        Expect::Nothing
    }
}

/// MPI_Bcast from the root (the root sends from its send buffer).
pub struct Bcast(pub &'static Info);

impl Pattern for Bcast {
    fn info(&self) -> &'static Info {
        self.0
    }
    retypable!();
    fn layout(&self, x: usize, _q: usize) -> Layout {
        Layout { send: x, recv: x }
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        // The root sends from its send buffer, so that it is never overwritten.
        let buf = if op.rank == op.root {
            op.sbuf.mut_ptr().wrapping_add(op.soff)
        } else {
            op.rp()
        };
        op.comm.bcast(buf, &op.msg, op.root);
    }
    fn expect(&self, x: usize, _q: usize, rank: usize, root: usize, _role: &Role) -> Expect {
        if rank == root {
            Expect::Nothing
        } else {
            from(x, root)
        }
    }
}

/// MPI_Gather of X bytes from every rank to the root.
pub struct Gather(pub &'static Info);

impl Pattern for Gather {
    fn info(&self) -> &'static Info {
        self.0
    }
    retypable!();
    fn layout(&self, x: usize, q: usize) -> Layout {
        Layout {
            send: x,
            recv: q * x,
        }
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        let r = op.rp();
        op.comm.gather(op.sp(), &op.msg, r, op.root);
    }
    fn expect(&self, x: usize, q: usize, rank: usize, root: usize, _role: &Role) -> Expect {
        if rank == root {
            from_each(x, q, |_| 0)
        } else {
            Expect::Nothing
        }
    }
}

/// MPI_Allgather of X bytes per rank.
pub struct Allgather(pub &'static Info);

impl Pattern for Allgather {
    fn info(&self) -> &'static Info {
        self.0
    }
    retypable!();
    fn layout(&self, x: usize, q: usize) -> Layout {
        Layout {
            send: x,
            recv: q * x,
        }
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        let r = op.rp();
        op.comm.allgather(op.sp(), &op.msg, r);
    }
    fn expect(&self, x: usize, q: usize, _rank: usize, _root: usize, _role: &Role) -> Expect {
        from_each(x, q, |_| 0)
    }
}

/// MPI_Allgatherv of X bytes per rank (PMB: equal counts, as Allgather).
pub struct Allgatherv(pub &'static Info);

impl Pattern for Allgatherv {
    fn info(&self) -> &'static Info {
        self.0
    }
    retypable!();
    fn layout(&self, x: usize, q: usize) -> Layout {
        Layout {
            send: x,
            recv: q * x,
        }
    }
    fn prepare(&self, op: &mut Op) -> Result<()> {
        equal_blocks(op)
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        let r = op.rp();
        let unit = op.unit.as_ref().unwrap_or(&op.msg);
        op.comm
            .allgatherv(op.sp(), &op.msg, r, &op.counts, &op.displs, unit);
    }
    fn expect(&self, x: usize, q: usize, _rank: usize, _root: usize, _role: &Role) -> Expect {
        from_each(x, q, |_| 0)
    }
}

/// MPI_Alltoall of X bytes to every rank.
pub struct Alltoall(pub &'static Info);

impl Pattern for Alltoall {
    fn info(&self) -> &'static Info {
        self.0
    }
    retypable!();
    fn layout(&self, x: usize, q: usize) -> Layout {
        Layout {
            send: q * x,
            recv: q * x,
        }
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        let r = op.rp();
        op.comm.alltoall(op.sp(), &op.msg, r);
    }
    fn expect(&self, x: usize, q: usize, rank: usize, _root: usize, _role: &Role) -> Expect {
        from_each(x, q, |_| rank * x)
    }
}

/// MPI_Reduce with MPI_SUM of X bytes of elements to the root.
pub struct Reduce(pub &'static Info);

impl Pattern for Reduce {
    fn info(&self) -> &'static Info {
        self.0
    }
    retypable!();
    fn layout(&self, x: usize, _q: usize) -> Layout {
        let b = whole(self.0, x);
        Layout { send: b, recv: b }
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        let r = op.rp();
        op.comm.reduce(op.sp(), r, &op.msg, op.root);
    }
    fn expect(&self, x: usize, _q: usize, rank: usize, root: usize, _role: &Role) -> Expect {
        if rank == root {
            Expect::Sum {
                first: 0,
                count: x / self.0.elem.size(),
            }
        } else {
            Expect::Nothing
        }
    }
}

/// MPI_Allreduce with MPI_SUM of X bytes of elements.
pub struct Allreduce(pub &'static Info);

impl Pattern for Allreduce {
    fn info(&self) -> &'static Info {
        self.0
    }
    retypable!();
    fn layout(&self, x: usize, _q: usize) -> Layout {
        let b = whole(self.0, x);
        Layout { send: b, recv: b }
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        let r = op.rp();
        op.comm.allreduce(op.sp(), r, &op.msg);
    }
    fn expect(&self, x: usize, _q: usize, _rank: usize, _root: usize, _role: &Role) -> Expect {
        Expect::Sum {
            first: 0,
            count: x / self.0.elem.size(),
        }
    }
}

/// PMB §4.4.2: MPI_Reduce_scatter with MPI_SUM of L = X/size elements, the
/// first L mod Q ranks receiving one more.
pub struct ReduceScatter(pub &'static Info);

impl Pattern for ReduceScatter {
    fn info(&self) -> &'static Info {
        self.0
    }
    retypable!();
    fn layout(&self, x: usize, q: usize) -> Layout {
        let e = self.0.elem.size();
        let first = split_counts(x / e, q).first().copied().unwrap_or(0);
        Layout {
            send: whole(self.0, x),
            recv: e * first,
        }
    }
    fn prepare(&self, op: &mut Op) -> Result<()> {
        op.counts = split_counts(op.msg.count as usize, op.size)
            .into_iter()
            .map(|c| c as i32)
            .collect();
        Ok(())
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        let r = op.rp();
        op.comm.reduce_scatter(op.sp(), r, &op.counts, &op.msg);
    }
    fn expect(&self, x: usize, q: usize, rank: usize, _root: usize, _role: &Role) -> Expect {
        let counts = split_counts(x / self.0.elem.size(), q);
        Expect::Sum {
            first: counts[..rank].iter().sum(),
            count: counts[rank],
        }
    }
}

/// MPI_Gatherv of X bytes from every rank to the root, equal counts (IMB).
pub struct Gatherv(pub &'static Info);

impl Pattern for Gatherv {
    fn info(&self) -> &'static Info {
        self.0
    }
    retypable!();
    fn layout(&self, x: usize, q: usize) -> Layout {
        Gather(self.0).layout(x, q)
    }
    fn prepare(&self, op: &mut Op) -> Result<()> {
        equal_blocks(op)
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        let r = op.rp();
        let unit = op.unit.as_ref().unwrap_or(&op.msg);
        op.comm
            .gatherv(op.sp(), &op.msg, r, &op.counts, &op.displs, unit, op.root);
    }
    fn expect(&self, x: usize, q: usize, rank: usize, root: usize, role: &Role) -> Expect {
        Gather(self.0).expect(x, q, rank, root, role)
    }
}

/// MPI_Scatter of X bytes to every rank from the root.
pub struct Scatter(pub &'static Info);

impl Pattern for Scatter {
    fn info(&self) -> &'static Info {
        self.0
    }
    retypable!();
    fn layout(&self, x: usize, q: usize) -> Layout {
        Layout {
            send: q * x,
            recv: x,
        }
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        let r = op.rp();
        op.comm.scatter(op.sp(), &op.msg, r, op.root);
    }
    fn expect(&self, x: usize, _q: usize, rank: usize, root: usize, _role: &Role) -> Expect {
        Expect::Bytes(vec![Segment {
            offset: 0,
            len: x,
            sender: root,
            sender_offset: rank * x,
        }])
    }
}

/// MPI_Scatterv of X bytes to every rank from the root, equal counts (IMB).
pub struct Scatterv(pub &'static Info);

impl Pattern for Scatterv {
    fn info(&self) -> &'static Info {
        self.0
    }
    retypable!();
    fn layout(&self, x: usize, q: usize) -> Layout {
        Scatter(self.0).layout(x, q)
    }
    fn prepare(&self, op: &mut Op) -> Result<()> {
        equal_blocks(op)
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        let r = op.rp();
        let unit = op.unit.as_ref().unwrap_or(&op.msg);
        op.comm
            .scatterv(op.sp(), &op.counts, &op.displs, unit, r, &op.msg, op.root);
    }
    fn expect(&self, x: usize, q: usize, rank: usize, root: usize, role: &Role) -> Expect {
        Scatter(self.0).expect(x, q, rank, root, role)
    }
}

/// MPI_Alltoallv of X bytes to every rank, equal counts (IMB).
pub struct Alltoallv(pub &'static Info);

impl Pattern for Alltoallv {
    fn info(&self) -> &'static Info {
        self.0
    }
    retypable!();
    fn layout(&self, x: usize, q: usize) -> Layout {
        Alltoall(self.0).layout(x, q)
    }
    fn prepare(&self, op: &mut Op) -> Result<()> {
        equal_blocks(op)
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        let r = op.rp();
        let unit = op.unit.as_ref().unwrap_or(&op.msg);
        op.comm.alltoallv(op.sp(), r, &op.counts, &op.displs, unit);
    }
    fn expect(&self, x: usize, q: usize, rank: usize, root: usize, role: &Role) -> Expect {
        Alltoall(self.0).expect(x, q, rank, root, role)
    }
}

/// Byte displacements k·X of Q blocks, while every one fits an int
/// (MPI_Alltoallw's displacements count bytes, whatever the datatypes).
fn byte_displs(x: usize, q: usize) -> Option<Vec<c_int>> {
    (0..q)
        .map(|k| k.checked_mul(x).and_then(|d| c_int::try_from(d).ok()))
        .collect()
}

/// MPI_Alltoallw of X bytes to every rank, equal counts (OSU): one X-byte
/// message of the benchmark's type per peer at byte displacement k·X, the
/// same for sending and receiving. The per-peer counts, displacements and
/// datatype arrays are built in `prepare`, outside the timed region.
pub struct Alltoallw(pub &'static Info);

impl Pattern for Alltoallw {
    retypable!();
    fn info(&self) -> &'static Info {
        self.0
    }
    fn layout(&self, x: usize, q: usize) -> Layout {
        Alltoall(self.0).layout(x, q)
    }
    fn prepare(&self, op: &mut Op) -> Result<()> {
        // Points whose displacements leave the int range are refused before this.
        op.displs = byte_displs(op.x, op.size).unwrap_or_default();
        op.counts = vec![op.msg.count; op.size];
        op.types = vec![op.msg.dt; op.size];
        Ok(())
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        let r = op.rp();
        op.comm
            .alltoallw(op.sp(), r, &op.counts, &op.displs, &op.types);
    }
    fn expect(&self, x: usize, q: usize, rank: usize, root: usize, role: &Role) -> Expect {
        Alltoall(self.0).expect(x, q, rank, root, role)
    }
    fn refuse(&self, p: &Point, q: usize) -> Option<String> {
        let i = self.0;
        if byte_displs(p.bytes, q).is_none() {
            return Some(format!(
                "{}: byte displacements up to {} x {} exceed the MPI int range (2^31 - 1)",
                i.name,
                q.saturating_sub(1),
                p.bytes
            ));
        }
        Msg::count_error(i.elem, p.bytes / i.elem.size()).map(|e| format!("{}: {e}", i.name))
    }
}

/// MPI_Reduce_local with MPI_SUM of X bytes of elements: receive buffer +=
/// send buffer, on every rank, without communication. Nothing is
/// transferred, so nothing is validated.
pub struct ReduceLocal(pub &'static Info);

impl Pattern for ReduceLocal {
    fn info(&self) -> &'static Info {
        self.0
    }
    retypable!();
    fn layout(&self, x: usize, _q: usize) -> Layout {
        let b = whole(self.0, x);
        Layout { send: b, recv: b }
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        let r = op.rp();
        comm::coll::reduce_local(op.sp(), r, &op.msg);
    }
    fn expect(&self, _x: usize, _q: usize, _rank: usize, _root: usize, _role: &Role) -> Expect {
        Expect::Nothing
    }
}

/// IMB 2021 Reduce_scatter: MPI_Reduce_scatter with MPI_SUM in which every
/// rank receives X bytes of elements (Q·X bytes are reduced in all).
pub struct ReduceScatterEach(pub &'static Info);

/// Buffers of the reductions that hand every rank X bytes of elements.
fn each_rank_x(info: &Info, x: usize, q: usize) -> Layout {
    let b = whole(info, x);
    Layout {
        send: q * b,
        recv: b,
    }
}

/// Rank `rank` holds the sum of block `rank` of X/size elements.
fn block_sum(info: &Info, x: usize, rank: usize) -> Expect {
    let n = x / info.elem.size();
    Expect::Sum {
        first: rank * n,
        count: n,
    }
}

impl Pattern for ReduceScatterEach {
    fn info(&self) -> &'static Info {
        self.0
    }
    retypable!();
    fn layout(&self, x: usize, q: usize) -> Layout {
        each_rank_x(self.0, x, q)
    }
    fn prepare(&self, op: &mut Op) -> Result<()> {
        op.counts = vec![op.msg.count; op.size];
        Ok(())
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        let r = op.rp();
        op.comm.reduce_scatter(op.sp(), r, &op.counts, &op.msg);
    }
    fn expect(&self, x: usize, _q: usize, rank: usize, _root: usize, _role: &Role) -> Expect {
        block_sum(self.0, x, rank)
    }
    fn refuse(&self, p: &Point, q: usize) -> Option<String> {
        reduce_all_refused(self.0, p, q)
    }
}

/// MPI_Reduce_scatter_block with MPI_SUM: every rank receives X bytes of elements.
pub struct ReduceScatterBlock(pub &'static Info);

impl Pattern for ReduceScatterBlock {
    fn info(&self) -> &'static Info {
        self.0
    }
    retypable!();
    fn layout(&self, x: usize, q: usize) -> Layout {
        each_rank_x(self.0, x, q)
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        let r = op.rp();
        op.comm.reduce_scatter_block(op.sp(), r, &op.msg);
    }
    fn expect(&self, x: usize, _q: usize, rank: usize, _root: usize, _role: &Role) -> Expect {
        block_sum(self.0, x, rank)
    }
    fn refuse(&self, p: &Point, q: usize) -> Option<String> {
        reduce_all_refused(self.0, p, q)
    }
}

/// Blocking collectives as [`Phased`] patterns: the call is the issue and
/// there is nothing left to complete.
macro_rules! blocking_phases {
    ($($p:ident),*) => {$(
        impl Phased for $p {
            #[inline(always)]
            fn issue(&self, op: &mut Op) {
                self.run(op)
            }
            #[inline(always)]
            fn complete(&self, _op: &mut Op) {}
        }
    )*};
}

blocking_phases!(
    Barrier,
    Bcast,
    Gather,
    Scatter,
    Allgather,
    Alltoall,
    Reduce,
    Allreduce,
    ReduceScatterBlock
);

/// A non-blocking collective: the buffers and results of its blocking
/// counterpart; `issue` starts it (request in `op.reqs[0]`), `complete` is
/// MPI_Wait, and one repetition of the plain pattern is both.
macro_rules! nonblocking {
    ($(#[$doc:meta])* $name:ident, $blocking:ident, |$op:ident| $start:block) => {
        $(#[$doc])*
        pub struct $name(pub &'static Info);

        impl Pattern for $name {
            fn info(&self) -> &'static Info {
                self.0
            }
            retypable!();
            fn layout(&self, x: usize, q: usize) -> Layout {
                $blocking(self.0).layout(x, q)
            }
            fn prepare(&self, op: &mut Op) -> Result<()> {
                $blocking(self.0).prepare(op)
            }
            #[inline(always)]
            fn run(&self, op: &mut Op) {
                self.issue(op);
                self.complete(op);
            }
            fn expect(&self, x: usize, q: usize, rank: usize, root: usize, role: &Role) -> Expect {
                $blocking(self.0).expect(x, q, rank, root, role)
            }
            fn refuse(&self, p: &Point, q: usize) -> Option<String> {
                $blocking(self.0).refuse(p, q)
            }
        }

        impl Phased for $name {
            #[inline(always)]
            fn issue(&self, $op: &mut Op) $start
            #[inline(always)]
            fn complete(&self, op: &mut Op) {
                comm::wait(&mut op.reqs[0]);
            }
        }
    };
}

nonblocking!(
    /// MPI_Ibarrier.
    Ibarrier, Barrier, |op| {
        op.comm.ibarrier(&mut op.reqs[0]);
    }
);

nonblocking!(
    /// MPI_Ibcast from the root (the root sends from its send buffer).
    Ibcast, Bcast, |op| {
        let buf = if op.rank == op.root {
            op.sbuf.mut_ptr()
        } else {
            op.rbuf.mut_ptr()
        };
        op.comm.ibcast(buf, &op.msg, op.root, &mut op.reqs[0]);
    }
);

nonblocking!(
    /// MPI_Igather of X bytes from every rank to the root.
    Igather, Gather, |op| {
        op.comm
            .igather(op.sbuf.ptr(), &op.msg, op.rbuf.mut_ptr(), op.root, &mut op.reqs[0]);
    }
);

nonblocking!(
    /// MPI_Iscatter of X bytes from the root to every rank.
    Iscatter, Scatter, |op| {
        op.comm
            .iscatter(op.sbuf.ptr(), &op.msg, op.rbuf.mut_ptr(), op.root, &mut op.reqs[0]);
    }
);

nonblocking!(
    /// MPI_Iallgather of X bytes per rank.
    Iallgather, Allgather, |op| {
        op.comm
            .iallgather(op.sbuf.ptr(), &op.msg, op.rbuf.mut_ptr(), &mut op.reqs[0]);
    }
);

nonblocking!(
    /// MPI_Ialltoall of X bytes to every rank.
    Ialltoall, Alltoall, |op| {
        op.comm
            .ialltoall(op.sbuf.ptr(), &op.msg, op.rbuf.mut_ptr(), &mut op.reqs[0]);
    }
);

nonblocking!(
    /// MPI_Ireduce with MPI_SUM of X bytes of elements to the root.
    Ireduce, Reduce, |op| {
        op.comm
            .ireduce(op.sbuf.ptr(), op.rbuf.mut_ptr(), &op.msg, op.root, &mut op.reqs[0]);
    }
);

nonblocking!(
    /// MPI_Iallreduce with MPI_SUM of X bytes of elements.
    Iallreduce, Allreduce, |op| {
        op.comm
            .iallreduce(op.sbuf.ptr(), op.rbuf.mut_ptr(), &op.msg, &mut op.reqs[0]);
    }
);

nonblocking!(
    /// MPI_Ireduce_scatter_block with MPI_SUM of X bytes of elements per rank.
    IreduceScatterBlock, ReduceScatterBlock, |op| {
        op.comm
            .ireduce_scatter_block(op.sbuf.ptr(), op.rbuf.mut_ptr(), &op.msg, &mut op.reqs[0]);
    }
);

nonblocking!(
    /// MPI_Iallgatherv of X bytes per rank, equal counts (OSU).
    Iallgatherv, Allgatherv, |op| {
        let r = op.rp();
        let unit = op.unit.as_ref().unwrap_or(&op.msg);
        op.comm
            .iallgatherv(op.sp(), &op.msg, r, &op.counts, &op.displs, unit, &mut op.reqs[0]);
    }
);

nonblocking!(
    /// MPI_Ialltoallv of X bytes to every rank, equal counts (OSU).
    Ialltoallv, Alltoallv, |op| {
        let r = op.rp();
        let unit = op.unit.as_ref().unwrap_or(&op.msg);
        op.comm
            .ialltoallv(op.sp(), r, &op.counts, &op.displs, unit, &mut op.reqs[0]);
    }
);

nonblocking!(
    /// MPI_Ialltoallw of X bytes to every rank, equal counts, byte
    /// displacements and one datatype per peer (OSU).
    Ialltoallw, Alltoallw, |op| {
        let r = op.rp();
        op.comm
            .ialltoallw(op.sp(), r, &op.counts, &op.displs, &op.types, &mut op.reqs[0]);
    }
);

nonblocking!(
    /// MPI_Igatherv of X bytes from every rank to the root, equal counts (OSU).
    Igatherv, Gatherv, |op| {
        let r = op.rp();
        let unit = op.unit.as_ref().unwrap_or(&op.msg);
        op.comm.igatherv(
            op.sp(),
            &op.msg,
            r,
            &op.counts,
            &op.displs,
            unit,
            op.root,
            &mut op.reqs[0],
        );
    }
);

nonblocking!(
    /// MPI_Iscatterv of X bytes from the root to every rank, equal counts (OSU).
    Iscatterv, Scatterv, |op| {
        let r = op.rp();
        let unit = op.unit.as_ref().unwrap_or(&op.msg);
        op.comm.iscatterv(
            op.sp(),
            &op.counts,
            &op.displs,
            unit,
            r,
            &op.msg,
            op.root,
            &mut op.reqs[0],
        );
    }
);

nonblocking!(
    /// MPI_Ireduce_scatter with MPI_SUM of X bytes of elements, L = X/size
    /// elements split as PMB §4.4.2 and OSU (the first L mod Q ranks one more).
    IreduceScatter, ReduceScatter, |op| {
        let r = op.rp();
        op.comm
            .ireduce_scatter(op.sp(), r, &op.counts, &op.msg, &mut op.reqs[0]);
    }
);

nonblocking!(
    /// MPI_Ireduce_scatter with MPI_SUM in which every rank receives X bytes
    /// of elements (IMB-NBC's Ireduce_scatter).
    IreduceScatterEach, ReduceScatterEach, |op| {
        let r = op.rp();
        op.comm
            .ireduce_scatter(op.sp(), r, &op.counts, &op.msg, &mut op.reqs[0]);
    }
);

/// The whole send buffer of a reduce-scatter is one array of typed elements.
fn reduce_all_refused(info: &Info, p: &Point, q: usize) -> Option<String> {
    Msg::count_error(info.elem, q * (p.bytes / info.elem.size()))
        .map(|e| format!("{}: {e}", info.name))
}

/// The most repetitions of IMB's non-aggregate modes (`-iter
/// N,VOL,MSGS_NONAGGR`): a plan axis the IMB families' one-sided kernels read.
pub const NONAGGR_AXIS: &str = "imb_nonaggr";

/// Messages per window of Uniband and Biband under IMB-MPI1 2021's
/// definitions: IMB 2021.2 and later (`-window_size`'s default).
pub const WINDOW_IMB2021: usize = 256;
/// Messages per window under PMB's definitions, which have no Uniband or
/// Biband: IMB's fixed MAX_WIN_SIZE from IMB 4.1, where the two appeared,
/// to IMB 2021.1.
pub const WINDOW_PMB: usize = 64;
/// The plan axis that carries the window (`--imb-window`, IMB `-window_size`).
pub const WINDOW_AXIS: &str = "imb_window";

/// IMB Uniband / Biband: pairs i ↔ i + Q/2; per repetition a window of W
/// nonblocking sends (MPI_Isend) and receives (MPI_Irecv), MPI_Waitall,
/// then a one-byte acknowledgement from the upper to the lower rank. One
/// way (Uniband: the lower rank sends) or both ways at once (Biband).
/// Reported: Mbytes/sec and messages per second. W is the point's `window`
/// (from [`WINDOW_AXIS`]; rows carry it in their params).
pub struct Window {
    pub info: &'static Info,
    pub both_ways: bool,
}

/// The window of a point (its `window` param).
fn window_of(p: &Point) -> usize {
    p.u64("window")
        .map_or(WINDOW_IMB2021, |w| w as usize)
        .max(1)
}

impl Pattern for Window {
    fn info(&self) -> &'static Info {
        self.info
    }
    fn over(&self, info: &'static Info) -> Option<Self> {
        Some(Window { info, ..*self })
    }
    fn points(&self, cx: &SweepCx) -> Vec<Point> {
        let w = cx
            .axis(WINDOW_AXIS)
            .first()
            .map_or(WINDOW_IMB2021, |&w| w as usize);
        cx.default_points(self.info)
            .into_iter()
            .map(|p| p.with("window", w as u64))
            .collect()
    }
    fn layout(&self, x: usize, _q: usize) -> Layout {
        // The acknowledgement arrives after the data, at offset X.
        Layout {
            send: x,
            recv: x + 1,
        }
    }
    fn prepare_point(&self, op: &mut Op, p: &Point) -> anyhow::Result<()> {
        // W receives and W sends; Uniband uses one half of them.
        op.reqs = vec![comm::request_null(); 2 * window_of(p)];
        op.unit = Some(Msg::small(1));
        Ok(())
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        if !op.role.active {
            return;
        }
        let (s, r) = (op.sp(), op.rp());
        let peer = op.to;
        let window = op.reqs.len() / 2;
        let ack = op.unit.as_ref().expect("acknowledgement message");
        // After the data: X bytes, twice that for resized elements.
        let after = op.x * self.info.stretch();
        let sends = op.role.initiator || self.both_ways;
        let recvs = !op.role.initiator || self.both_ways;
        let mut n = 0;
        if recvs {
            for k in 0..window {
                op.comm.irecv(r, &op.msg, peer, 1, &mut op.reqs[k]);
            }
            n = window;
        }
        if sends {
            for k in n..n + window {
                op.comm.isend(s, &op.msg, peer, 1, &mut op.reqs[k]);
            }
            n += window;
        }
        comm::waitall(&mut op.reqs[..n]);
        if op.role.initiator {
            op.comm.recv(r.wrapping_add(after), ack, peer, 1);
        } else {
            op.comm.send(s, ack, peer, 1);
        }
    }
    fn expect(&self, x: usize, _q: usize, _rank: usize, _root: usize, role: &Role) -> Expect {
        if role.initiator && !self.both_ways {
            Expect::Nothing
        } else {
            from_peer(x, role)
        }
    }
    /// IMB: messages per second = (1 or 2) × W × Q/2 / t, over all pairs;
    /// throughput = that × X bytes.
    fn derive(&self, r: &mut BenchResult) {
        let ways = if self.both_ways { 2.0 } else { 1.0 };
        let peers = (r.processes / 2) as f64;
        let groups = r.group_rows.iter_mut().flat_map(|g| g.rows.iter_mut());
        for row in r.rows.iter_mut().chain(groups) {
            let window = row
                .params
                .get("window")
                .and_then(serde_json::Value::as_u64)
                .map_or(WINDOW_IMB2021, |w| w as usize);
            if row.t_max_us > 0.0 {
                let per_sec = ways * window as f64 * peers / (row.t_max_us * 1e-6);
                row.msg_per_sec = Some(per_sec);
                row.mbytes_per_sec = Some(per_sec * row.bytes as f64 / 1_048_576.0);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static W: Info = Info {
        name: "w",
        ..Info::DEFAULT
    };

    #[test]
    fn alltoallw_displacements_are_bytes_within_int() {
        assert_eq!(byte_displs(8, 4), Some(vec![0, 8, 16, 24]));
        assert_eq!(byte_displs(0, 2), Some(vec![0, 0]));
        let x = 1 << 30;
        // Q = 2: the last block starts at 2^30, still an int; Q = 3: 2^31 is not.
        assert_eq!(byte_displs(x, 2), Some(vec![0, 1 << 30]));
        assert_eq!(byte_displs(x, 3), None);
        assert_eq!(byte_displs(usize::MAX, 3), None);
        assert!(Alltoallw(&W).refuse(&Point::bytes(x), 2).is_none());
        let e = Alltoallw(&W).refuse(&Point::bytes(x), 3).unwrap();
        assert!(e.starts_with("w: byte displacements"), "{e}");
        // The non-blocking form refuses what its blocking form refuses.
        assert_eq!(
            Pattern::refuse(&Ialltoallw(&W), &Point::bytes(x), 3),
            Some(e)
        );
        assert_eq!(Alltoallw(&W).layout(8, 3), Layout { send: 24, recv: 24 });
    }

    #[test]
    fn v_forms_receive_what_their_plain_forms_receive() {
        let role = Role::default();
        let x = 5;
        for q in 2..5 {
            for rank in 0..q {
                let a = Alltoall(&W).expect(x, q, rank, 0, &role);
                assert_eq!(Alltoallw(&W).expect(x, q, rank, 0, &role), a);
                assert_eq!(Ialltoallw(&W).expect(x, q, rank, 0, &role), a);
                assert_eq!(Ialltoallv(&W).expect(x, q, rank, 0, &role), a);
                let g = Gather(&W).expect(x, q, rank, 1, &role);
                assert_eq!(Igatherv(&W).expect(x, q, rank, 1, &role), g);
                let s = Scatter(&W).expect(x, q, rank, 1, &role);
                assert_eq!(Iscatterv(&W).expect(x, q, rank, 1, &role), s);
                let ag = Allgather(&W).expect(x, q, rank, 0, &role);
                assert_eq!(Iallgatherv(&W).expect(x, q, rank, 0, &role), ag);
            }
        }
        // Every byte of the receive buffer is some sender's: Q blocks of X.
        let Expect::Bytes(segs) = Alltoallw(&W).expect(x, 3, 2, 0, &role) else {
            panic!()
        };
        assert_eq!(segs.iter().map(|s| s.len).sum::<usize>(), 3 * x);
        assert!(segs.iter().all(|s| s.sender_offset == 2 * x));
        // Reduce_scatter as OSU: 6 elements over 4 ranks are 2, 2, 1, 1.
        assert_eq!(
            IreduceScatter(&W).expect(6, 4, 2, 0, &role),
            Expect::Sum { first: 4, count: 1 }
        );
        assert_eq!(
            IreduceScatter(&W).expect(2, 4, 3, 0, &role),
            Expect::Sum { first: 2, count: 0 }
        );
    }
}
