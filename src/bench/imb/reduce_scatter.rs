use crate::bench::{reduce_scatter_counts, Benchmark, Class, Expect, Info, Layout, Op};

/// PMB §4.4.2: MPI_Reduce_scatter of L = X/4 floats with MPI_SUM; with
/// L = Q·r + s the first s processes receive r + 1 items, the others r.
pub struct ReduceScatter;

static INFO: Info = Info {
    name: "Reduce_scatter",
    suite: super::SUITE,
    class: Class::Collective,
    min_ranks: 1,
    description: "MPI_Reduce_scatter of X/4 MPI_FLOATs with MPI_SUM, split as PMB 4.4.2",
    time_scale: 1.0,
    throughput: None,
    reduction: true,
    rooted: false,
    sized: true,
};

impl Benchmark for ReduceScatter {
    fn info(&self) -> &'static Info {
        &INFO
    }
    fn layout(&self, x: usize, q: usize) -> Layout {
        let l = super::floats(x);
        let first = reduce_scatter_counts(l, q).first().copied().unwrap_or(0);
        Layout {
            send: 4 * l,
            recv: 4 * first,
        }
    }
    fn prepare(&self, op: &mut Op) {
        op.counts = reduce_scatter_counts(super::floats(op.x), op.size)
            .into_iter()
            .map(|c| c as i32)
            .collect();
    }
    #[inline]
    fn run(&self, op: &mut Op) {
        op.comm
            .reduce_scatter_f32(op.sbuf.fptr(), op.rbuf.mut_fptr(), &op.counts);
    }
    fn expect(&self, x: usize, q: usize, rank: usize, _root: usize) -> Expect {
        let counts = reduce_scatter_counts(super::floats(x), q);
        let first = counts[..rank].iter().sum();
        Expect::FloatSum {
            first,
            count: counts[rank],
        }
    }
}
