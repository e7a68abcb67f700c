//! The communication patterns the suites share. Each is written once and
//! parametrised by the benchmark's [`Info`] (element type, placement,
//! figures), so that PMB's PingPong and MPITEST's SEND & RECV are one
//! pattern under two definitions, each in its own small file with its own
//! name, and no body is copied.
//!
//! Partners come from the placement's [`Role`]; element counts from the
//! point's message (`op.msg`), resolved outside the timed region.

use crate::bench::buf::{split_counts, Layout, Op, Pattern, Phased};
use crate::bench::Info;
use crate::check::{Expect, Segment};
use crate::comm::{self, Msg};
use crate::engine::placement::Role;

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
    fn layout(&self, x: usize, _q: usize) -> Layout {
        Layout { send: x, recv: x }
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        if op.role.initiator {
            op.comm.send(op.sbuf.ptr(), &op.msg, op.to, 1);
            op.comm.recv(op.rbuf.mut_ptr(), &op.msg, op.from, 1);
        } else if op.role.active {
            op.comm.recv(op.rbuf.mut_ptr(), &op.msg, op.from, 1);
            op.comm.send(op.sbuf.ptr(), &op.msg, op.to, 1);
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
    fn layout(&self, x: usize, _q: usize) -> Layout {
        Layout { send: x, recv: x }
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        if op.role.active {
            op.comm
                .isend(op.sbuf.ptr(), &op.msg, op.to, 1, &mut op.reqs[0]);
            op.comm.recv(op.rbuf.mut_ptr(), &op.msg, op.from, 1);
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
    fn layout(&self, x: usize, _q: usize) -> Layout {
        Layout { send: x, recv: x }
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        if op.role.initiator {
            op.comm.send(op.sbuf.ptr(), &op.msg, op.to, 1);
        } else if op.role.active {
            op.comm.recv(op.rbuf.mut_ptr(), &op.msg, op.from, 1);
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
    fn layout(&self, x: usize, _q: usize) -> Layout {
        Layout { send: x, recv: x }
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        if op.role.initiator {
            op.comm
                .isend(op.sbuf.ptr(), &op.msg, op.to, 1, &mut op.reqs[0]);
            comm::wait(&mut op.reqs[0]);
        } else if op.role.active {
            op.comm.recv(op.rbuf.mut_ptr(), &op.msg, op.from, 1);
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
    fn layout(&self, x: usize, _q: usize) -> Layout {
        Layout { send: x, recv: x }
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        if op.role.active {
            op.comm
                .sendrecv(op.sbuf.ptr(), &op.msg, op.to, op.rbuf.mut_ptr(), op.from, 1);
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
    fn layout(&self, x: usize, _q: usize) -> Layout {
        Layout {
            send: 2 * x,
            recv: 2 * x,
        }
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        let (right, left, x) = (op.to, op.from, op.x);
        let (s, r) = op.reqs.split_at_mut(1);
        // Both buffers hold 2X bytes (layout above).
        op.comm.isend(op.sbuf.ptr(), &op.msg, right, 1, &mut s[0]);
        op.comm
            .isend(op.sbuf.ptr().wrapping_add(x), &op.msg, left, 1, &mut r[0]);
        op.comm.recv(op.rbuf.mut_ptr(), &op.msg, left, 1);
        op.comm
            .recv(op.rbuf.mut_ptr().wrapping_add(x), &op.msg, right, 1);
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
    fn layout(&self, x: usize, _q: usize) -> Layout {
        Layout { send: x, recv: x }
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        let buf = if op.rank == op.root {
            op.sbuf.mut_ptr()
        } else {
            op.rbuf.mut_ptr()
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
    fn layout(&self, x: usize, q: usize) -> Layout {
        Layout {
            send: x,
            recv: q * x,
        }
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        op.comm
            .gather(op.sbuf.ptr(), &op.msg, op.rbuf.mut_ptr(), op.root);
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
    fn layout(&self, x: usize, q: usize) -> Layout {
        Layout {
            send: x,
            recv: q * x,
        }
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        op.comm.allgather(op.sbuf.ptr(), &op.msg, op.rbuf.mut_ptr());
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
    fn layout(&self, x: usize, q: usize) -> Layout {
        Layout {
            send: x,
            recv: q * x,
        }
    }
    fn prepare(&self, op: &mut Op) {
        // Counts and displacements are ints: beyond that range they count
        // whole X-byte elements of a derived type instead of bytes.
        let n = op.msg.count as usize;
        let count = if op.size * op.x > i32::MAX as usize {
            op.unit = Some(Msg::unit(op.x));
            1
        } else {
            n
        };
        op.counts = vec![count as i32; op.size];
        op.displs = (0..op.size).map(|k| (k * count) as i32).collect();
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        let unit = op.unit.as_ref().unwrap_or(&op.msg);
        op.comm.allgatherv(
            op.sbuf.ptr(),
            &op.msg,
            op.rbuf.mut_ptr(),
            &op.counts,
            &op.displs,
            unit,
        );
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
    fn layout(&self, x: usize, q: usize) -> Layout {
        Layout {
            send: q * x,
            recv: q * x,
        }
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        op.comm.alltoall(op.sbuf.ptr(), &op.msg, op.rbuf.mut_ptr());
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
    fn layout(&self, x: usize, _q: usize) -> Layout {
        let b = whole(self.0, x);
        Layout { send: b, recv: b }
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        op.comm
            .reduce(op.sbuf.ptr(), op.rbuf.mut_ptr(), &op.msg, op.root);
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
    fn layout(&self, x: usize, _q: usize) -> Layout {
        let b = whole(self.0, x);
        Layout { send: b, recv: b }
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        op.comm.allreduce(op.sbuf.ptr(), op.rbuf.mut_ptr(), &op.msg);
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
    fn layout(&self, x: usize, q: usize) -> Layout {
        let e = self.0.elem.size();
        let first = split_counts(x / e, q).first().copied().unwrap_or(0);
        Layout {
            send: whole(self.0, x),
            recv: e * first,
        }
    }
    fn prepare(&self, op: &mut Op) {
        op.counts = split_counts(op.msg.count as usize, op.size)
            .into_iter()
            .map(|c| c as i32)
            .collect();
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        op.comm
            .reduce_scatter(op.sbuf.ptr(), op.rbuf.mut_ptr(), &op.counts, &op.msg);
    }
    fn expect(&self, x: usize, q: usize, rank: usize, _root: usize, _role: &Role) -> Expect {
        let counts = split_counts(x / self.0.elem.size(), q);
        Expect::Sum {
            first: counts[..rank].iter().sum(),
            count: counts[rank],
        }
    }
}

/// MPI_Scatter of X bytes from the root to every rank (the root's send
/// buffer holds Q blocks of X, one per rank, as Gather's receive buffer).
pub struct Scatter(pub &'static Info);

impl Pattern for Scatter {
    fn info(&self) -> &'static Info {
        self.0
    }
    fn layout(&self, x: usize, q: usize) -> Layout {
        Layout {
            send: q * x,
            recv: x,
        }
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        op.comm
            .scatter(op.sbuf.ptr(), &op.msg, op.rbuf.mut_ptr(), op.root);
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

/// MPI_Reduce_scatter_block with MPI_SUM: every rank receives the sum of
/// its block of X bytes of elements (the send buffers hold Q blocks).
pub struct ReduceScatterBlock(pub &'static Info);

impl Pattern for ReduceScatterBlock {
    fn info(&self) -> &'static Info {
        self.0
    }
    fn layout(&self, x: usize, q: usize) -> Layout {
        let b = whole(self.0, x);
        Layout {
            send: q * b,
            recv: b,
        }
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        op.comm
            .reduce_scatter_block(op.sbuf.ptr(), op.rbuf.mut_ptr(), &op.msg);
    }
    fn expect(&self, x: usize, _q: usize, rank: usize, _root: usize, _role: &Role) -> Expect {
        let count = x / self.0.elem.size();
        Expect::Sum {
            first: rank * count,
            count,
        }
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
            fn layout(&self, x: usize, q: usize) -> Layout {
                $blocking(self.0).layout(x, q)
            }
            fn prepare(&self, op: &mut Op) {
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
