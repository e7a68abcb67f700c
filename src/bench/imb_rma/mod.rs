//! IMB-RMA 2021: the MPI-3 one-sided benchmarks of the Intel MPI
//! Benchmarks (passive target: locks and flushes), as `mpibench imb-rma
//! [IMB flags] [BENCHMARK ...]`, a link named `IMB-RMA`, or `mpibench run
//! --suite imb-rma`.
//!
//! The transfers between two processes (Unidir_put .. Compare_and_swap)
//! run in IMB's non-aggregate, then aggregate mode ([`kernel`]); the
//! one-to-all, all-to-all and exchange transfers in one mode; and
//! Truly_passive_put measures a put while its target waits, then while it
//! computes ([`passive`]).

mod front;
pub mod kernel;
pub mod passive;
pub mod table;

pub use front::FAMILY;

use self::kernel::{Op, Reach, Rma};
use self::passive::TrulyPassive;
use crate::bench::entry::Entry;
use crate::bench::{Benchmark, Class, Info, RankRule};
use crate::comm::Elem;
use crate::method::Method;
use crate::plugin::{benches, Suite, SuiteHelp};

pub const SUITE: &str = "imb-rma";

/// The benchmarks of IMB-RMA: each declared once, with its operation, its
/// reach and its modes.
macro_rules! rma {
    ($($stat:ident, $info:ident, $name:literal, $class:expr, $op:expr, $reach:expr,
       local = $local:expr, modes = $modes:expr, default = $def:expr, $what:literal;)*) => {
        $(
            static $info: Info = Info {
                name: $name,
                suite: SUITE,
                class: $class,
                ranks: if matches!($class, Class::SingleTransfer) { RankRule::PAIR } else { RankRule::ANY },
                description: $what,
                elem: if matches!($op, Op::Acc | Op::GetAcc | Op::FetchAdd) { Elem::Float } else { Elem::Byte },
                reduction: matches!($op, Op::Acc | Op::GetAcc | Op::FetchAdd),
                throughput: Some(1.0),
                method: Some(Method::Loop),
                default_in: if $def { crate::bench::Definitions::BOTH } else { &[] },
                ..Info::DEFAULT
            };
            static $stat: Rma = Rma { info: &$info, op: $op, reach: $reach, local: $local, modes: $modes };
        )*
    };
}

const PAIR: Class = Class::SingleTransfer;
const ALL: Class = Class::Collective;

rma! {
    UNIDIR_PUT, UNIDIR_PUT_INFO, "Unidir_put", PAIR, Op::Put, Reach::Pair { bidir: false },
        local = false, modes = true, default = true,
        "rank 0 puts X bytes into rank 1's window (shared lock; MPI_Win_flush per put or per batch)";
    BIDIR_PUT, BIDIR_PUT_INFO, "Bidir_put", PAIR, Op::Put, Reach::Pair { bidir: true },
        local = false, modes = true, default = true,
        "ranks 0 and 1 put X bytes into each other's window at once (MPI_Win_flush)";
    UNIDIR_GET, UNIDIR_GET_INFO, "Unidir_get", PAIR, Op::Get, Reach::Pair { bidir: false },
        local = false, modes = true, default = true,
        "rank 0 gets X bytes from rank 1's window (shared lock; MPI_Win_flush per get or per batch)";
    BIDIR_GET, BIDIR_GET_INFO, "Bidir_get", PAIR, Op::Get, Reach::Pair { bidir: true },
        local = false, modes = true, default = true,
        "ranks 0 and 1 get X bytes from each other's window at once (MPI_Win_flush)";
    PUT_LOCAL, PUT_LOCAL_INFO, "Put_local", PAIR, Op::Put, Reach::Pair { bidir: false },
        local = true, modes = true, default = true,
        "rank 0 puts X bytes into rank 1's window, completed locally (MPI_Win_flush_local)";
    GET_LOCAL, GET_LOCAL_INFO, "Get_local", PAIR, Op::Get, Reach::Pair { bidir: false },
        local = true, modes = true, default = false,
        "rank 0 gets X bytes from rank 1's window, completed locally (MPI_Win_flush_local)";
    PUT_ALL_LOCAL, PUT_ALL_LOCAL_INFO, "Put_all_local", ALL, Op::Put, Reach::OneToAll,
        local = true, modes = false, default = true,
        "rank 0 puts X bytes into every other process's window (MPI_Win_lock_all; MPI_Win_flush_local_all per batch)";
    GET_ALL_LOCAL, GET_ALL_LOCAL_INFO, "Get_all_local", ALL, Op::Get, Reach::OneToAll,
        local = true, modes = false, default = false,
        "rank 0 gets X bytes from every other process's window (MPI_Win_flush_local_all per batch)";
    ONE_PUT_ALL, ONE_PUT_ALL_INFO, "One_put_all", ALL, Op::Put, Reach::OneToAll,
        local = false, modes = false, default = true,
        "rank 0 puts X bytes into every other process's window (MPI_Win_lock_all; MPI_Win_flush_all per batch)";
    ALL_PUT_ALL, ALL_PUT_ALL_INFO, "All_put_all", ALL, Op::Put, Reach::AllToAll,
        local = false, modes = false, default = true,
        "every process puts X bytes into every other process's window (MPI_Win_flush_all per batch)";
    ONE_GET_ALL, ONE_GET_ALL_INFO, "One_get_all", ALL, Op::Get, Reach::OneToAll,
        local = false, modes = false, default = true,
        "rank 0 gets X bytes from every other process's window (MPI_Win_flush_all per batch)";
    ALL_GET_ALL, ALL_GET_ALL_INFO, "All_get_all", ALL, Op::Get, Reach::AllToAll,
        local = false, modes = false, default = true,
        "every process gets X bytes from every other process's window (MPI_Win_flush_all per batch)";
    EXCHANGE_PUT, EXCHANGE_PUT_INFO, "Exchange_put", ALL, Op::Put, Reach::Exchange,
        local = false, modes = false, default = true,
        "every process puts X bytes into its left and its right neighbour's window, then flushes both";
    EXCHANGE_GET, EXCHANGE_GET_INFO, "Exchange_get", ALL, Op::Get, Reach::Exchange,
        local = false, modes = false, default = true,
        "every process gets X bytes from its left and its right neighbour's window, then flushes both";
    ACCUMULATE, ACCUMULATE_INFO, "Accumulate", PAIR, Op::Acc, Reach::Pair { bidir: false },
        local = false, modes = true, default = true,
        "rank 0 adds X/4 MPI_FLOATs into rank 1's window (MPI_Accumulate, MPI_SUM; MPI_Win_flush)";
    GET_ACCUMULATE, GET_ACCUMULATE_INFO, "Get_accumulate", PAIR, Op::GetAcc, Reach::Pair { bidir: false },
        local = false, modes = true, default = true,
        "rank 0 fetches and adds X/4 MPI_FLOATs in rank 1's window (MPI_Get_accumulate, MPI_SUM)";
    FETCH_AND_OP, FETCH_AND_OP_INFO, "Fetch_and_op", PAIR, Op::FetchAdd, Reach::Pair { bidir: false },
        local = false, modes = true, default = true,
        "rank 0 fetches and adds one MPI_FLOAT in rank 1's window (MPI_Fetch_and_op, MPI_SUM)";
    COMPARE_AND_SWAP, COMPARE_AND_SWAP_INFO, "Compare_and_swap", PAIR, Op::Cas, Reach::Pair { bidir: false },
        local = false, modes = true, default = true,
        "rank 0 compares and swaps one MPI_INT in rank 1's window (MPI_Compare_and_swap)";
}

static TRULY_PASSIVE_PUT_INFO: Info = Info {
    name: "Truly_passive_put",
    suite: SUITE,
    class: Class::SingleTransfer,
    ranks: RankRule::PAIR,
    description: "rank 0 puts X bytes into rank 1's window (MPI_Put, MPI_Win_flush, MPI_Barrier): t_pure while rank 1 waits in MPI_Barrier, t_ovrl while it computes for t_pure first",
    method: Some(Method::Loop),
    ..Info::DEFAULT
};
static TRULY_PASSIVE_PUT: TrulyPassive = TrulyPassive {
    info: &TRULY_PASSIVE_PUT_INFO,
};

/// IMB-RMA's order (IMB_bnames_rma.h).
pub fn benchmarks() -> Vec<&'static dyn Benchmark> {
    vec![
        &UNIDIR_PUT,
        &BIDIR_PUT,
        &UNIDIR_GET,
        &BIDIR_GET,
        &PUT_LOCAL,
        &GET_LOCAL,
        &PUT_ALL_LOCAL,
        &GET_ALL_LOCAL,
        &ONE_PUT_ALL,
        &ALL_PUT_ALL,
        &ONE_GET_ALL,
        &ALL_GET_ALL,
        &EXCHANGE_PUT,
        &EXCHANGE_GET,
        &ACCUMULATE,
        &GET_ACCUMULATE,
        &FETCH_AND_OP,
        &COMPARE_AND_SWAP,
        &TRULY_PASSIVE_PUT,
    ]
}

fn entries() -> Vec<Entry> {
    benches(benchmarks())
}

/// The suite's entry in the registry.
pub const REGISTERED: Suite = Suite {
    name: SUITE,
    title: "IMB-RMA 2021: MPI-3 one-sided communication, passive target, in IMB's modes",
    entries,
    // IMB's loop timing after a barrier, IMB's repetitions and lengths, and
    // PMB's process counts: the plain defaults.
    defaults: Suite::PLAIN.defaults,
    formats: &[(SUITE, &self::table::ImbRma)],
    help: SuiteHelp {
        heading: None,
        own: Some("mpibench imb-rma [-npmin P] [-msglog A:B] [-iter N[,VOL[,NONAGGR]]] ... [BENCHMARK ...] (also as a link named IMB-RMA)"),
        example: "mpibench run -n 2 --suite imb-rma Unidir_put One_put_all --sizes 8,1K,64K",
    },
    front: Some(&FAMILY),
    ..Suite::PLAIN
};
