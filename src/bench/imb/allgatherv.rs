use crate::bench::{Benchmark, Class, Expect, Info, Layout, Op, Segment};

/// PMB §4.4.5: MPI_Allgatherv with the same counts as Allgather, measuring
/// the overhead of the vector interface.
pub struct Allgatherv;

static INFO: Info = Info {
    name: "Allgatherv",
    suite: super::SUITE,
    class: Class::Collective,
    min_ranks: 1,
    description: "MPI_Allgatherv with equal counts (overhead of the vector variant)",
    time_scale: 1.0,
    throughput: None,
    reduction: false,
    rooted: false,
    sized: true,
};

impl Benchmark for Allgatherv {
    fn info(&self) -> &'static Info {
        &INFO
    }
    fn layout(&self, x: usize, q: usize) -> Layout {
        Layout {
            send: x,
            recv: q * x,
        }
    }
    fn prepare(&self, op: &mut Op) {
        // Counts and displacements are in units of the element type the
        // comm layer uses for X bytes: MPI_BYTE, or one derived element of X
        // bytes when X exceeds the int range.
        let count = if unit_elements(op) { 1 } else { op.x };
        op.counts = vec![count as i32; op.size];
        op.displs = (0..op.size).map(|k| (k * count) as i32).collect();
    }
    #[inline]
    fn run(&self, op: &mut Op) {
        let unit = unit_elements(op);
        op.comm.allgatherv(
            op.sbuf.ptr(),
            op.x,
            op.rbuf.mut_ptr(),
            &op.counts,
            &op.displs,
            unit,
        );
    }
    fn expect(&self, x: usize, q: usize, _rank: usize, _root: usize) -> Expect {
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
}

/// Whether Q·X overflows an int displacement, so that counts and
/// displacements count whole X-byte elements of a derived type instead of bytes.
fn unit_elements(op: &Op) -> bool {
    op.size * op.x > i32::MAX as usize
}
