//! IMB-MT 2021: the multi-threaded benchmarks of the Intel MPI Benchmarks
//! under MPI_THREAD_MULTIPLE, as `mpibench imb-mt [IMB-MT flags]
//! [BENCHMARK ...]`, a link named `IMB-MT`, or `mpibench run --suite
//! imb-mt`.
//!
//! Every benchmark runs on all the processes of the world, with T threads
//! per process (OMP_NUM_THREADS under `-thread_level multiple`, else 1),
//! each thread on its own duplicate of the communicator ([`kernel`]). The
//! figures are IMB-MT's: t_min, t_max and t_avg over every thread of every
//! process that took part; #bytes is X × T (IMB-MT's weak scaling), and
//! Mbytes/sec counts 10^6 bytes.

mod front;
pub mod kernel;
pub mod patterns;
pub mod table;

pub use front::FAMILY;

use self::kernel::MtBench;
use self::patterns::Op;
use crate::bench::entry::Entry;
use crate::bench::{Axis, Benchmark, Class, Info};
use crate::comm::Elem;
use crate::contract::RepsDefault;
use crate::contract::Split;
use crate::method::Method;
use crate::plugin::{benches, Defaults, ProcSweep, Suite, SuiteHelp};

pub const SUITE: &str = "imb-mt";

/// IMB-MT's -repeat and the engine's warm-up: 1000 repetitions; IMB-MT's
/// own warm-up (-warmup) runs on the threads, so the engine's is none.
const MT_REPS: RepsDefault = RepsDefault::Split(Split {
    small: 1000,
    large: 1000,
    warm_small: 0,
    warm_large: 0,
    limit: usize::MAX,
});

/// The benchmarks of IMB-MT, declared once each.
macro_rules! mt {
    ($($stat:ident, $info:ident, $op:expr, $what:literal;)*) => {
        $(
            static $info: Info = Info {
                name: $op.name(),
                suite: SUITE,
                class: if $op.collective() { Class::Collective } else { Class::ParallelTransfer },
                description: $what,
                elem: Elem::Int,
                axis: if matches!($op, Op::Barrier) { Axis::None } else { Axis::Bytes },
                reduction: matches!($op, Op::Reduce | Op::AllReduce),
                method: Some(Method::Loop),
                reps: Some(MT_REPS),
                thread_multiple: true,
                ..Info::DEFAULT
            };
            static $stat: MtBench = MtBench { info: &$info, op: $op };
        )*
        /// IMB-MT's order.
        pub fn benchmarks() -> Vec<&'static dyn Benchmark> {
            vec![$(&$stat as &dyn Benchmark),*]
        }
    };
}

fn entries() -> Vec<Entry> {
    benches(benchmarks())
}

/// The suite's entry in the registry.
pub const REGISTERED: Suite = Suite {
    name: SUITE,
    title: "IMB-MT 2021: point-to-point and collectives from several threads per process (MPI_THREAD_MULTIPLE)",
    entries,
    // IMB-MT's own loops on the threads (kernel), 1000 repetitions, its
    // default counts 1, 2, 4, 8 of MPI_INT, on all processes.
    defaults: Defaults {
        procs: ProcSweep::World,
        reps: MT_REPS,
        sizes: "4,8,16,32",
        ..Suite::PLAIN.defaults
    },
    axes: Some(front::axes),
    formats: &[(SUITE, &self::table::ImbMt)],
    help: SuiteHelp {
        heading: None,
        own: Some("mpibench imb-mt [-thread_level multiple] [-count N,...] [-repeat N] ... [BENCHMARK ...] (also as a link named IMB-MT)"),
        example: "mpibench run -n 2 --suite imb-mt PingPongMT AllReduceMT --sizes 4,256 --check",
    },
    front: Some(&FAMILY),
    ..Suite::PLAIN
};

mt! {
    PINGPONG, PINGPONG_INFO, Op::PingPong,
        "each thread: rank r bounces a message with r + S (MPI_Send/MPI_Recv), all pairs at once; t = half a round trip";
    PINGPING, PINGPING_INFO, Op::PingPing,
        "each thread: both ranks of a pair send at once (MPI_Isend/MPI_Recv/MPI_Wait)";
    SENDRECV, SENDRECV_INFO, Op::SendRecv,
        "each thread: MPI_Sendrecv to r + S from r - S, on every rank";
    EXCHANGE, EXCHANGE_INFO, Op::Exchange,
        "each thread: MPI_Isend to both neighbours at distance S, MPI_Recv from both, MPI_Waitall";
    UNIBAND, UNIBAND_INFO, Op::UniBand,
        "each thread: a window of MPI_Isend one way, MPI_Waitall, a one-byte acknowledgement; t per message";
    BIBAND, BIBAND_INFO, Op::BiBand,
        "each thread: a window of MPI_Irecv and MPI_Isend both ways, MPI_Waitall, an acknowledgement; t per message";
    BARRIER, BARRIER_INFO, Op::Barrier,
        "each thread: the rank's threads meet, then MPI_Barrier on the thread's communicator";
    BCAST, BCAST_INFO, Op::Bcast,
        "each thread: MPI_Bcast from rank 0, each call timed alone, five barriers after it";
    REDUCE, REDUCE_INFO, Op::Reduce,
        "each thread: MPI_Reduce (MPI_SUM) to rank 0, each call timed alone, five barriers after it";
    ALLREDUCE, ALLREDUCE_INFO, Op::AllReduce,
        "each thread: MPI_Allreduce (MPI_SUM), each call timed alone, five barriers after it";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_benchmark_is_its_op() {
        let all = benchmarks();
        assert_eq!(all.len(), Op::ALL.len());
        for (b, op) in all.iter().zip(Op::ALL) {
            let i = b.info();
            assert_eq!(i.name, op.name());
            assert!(i.thread_multiple && i.suite == SUITE);
            assert_eq!(i.sized(), op.sized());
        }
        assert!(!front::refusal("Serialized").contains('\n'));
        assert!(front::refusal("Funneled").contains("MPI_THREAD_MULTIPLE"));
    }
}
