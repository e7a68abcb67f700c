//! IMB-P2P 2021: the point-to-point patterns of the Intel MPI Benchmarks
//! over all the processes at once, as `mpibench imb-p2p [IMB-P2P flags]
//! [BENCHMARK ...]`, a link named `IMB-P2P`, or `mpibench run --suite
//! imb-p2p`.
//!
//! Every benchmark runs on all the processes of the world ([`kernel`]);
//! one that cannot (PingPong on an odd count, a stencil without a grid)
//! prints IMB-P2P's "invalid" line. The figures are IMB-P2P's: t[usec] per
//! message over every rank's time, Mbytes/sec and Msg/sec of the whole
//! group from the slowest rank's time.

mod front;
pub mod kernel;
pub mod patterns;
pub mod table;

pub use front::FAMILY;

use self::kernel::P2p;
use self::patterns::*;
use crate::bench::entry::Entry;
use crate::bench::{Benchmark, Class, Info};
use crate::plugin::{benches, Defaults, ProcSweep, Suite, SuiteHelp};

pub const SUITE: &str = "imb-p2p";

/// The benchmarks of IMB-P2P: declared once each, with the time scale that
/// makes the mean time per repetition IMB-P2P's t[usec] (per message; half
/// a round trip for PingPong).
macro_rules! p2p {
    ($($stat:ident, $info:ident, $ex:ty = $val:expr, $name:literal, $scale:expr, $what:literal;)*) => {
        $(
            static $info: Info = Info {
                name: $name,
                suite: SUITE,
                class: Class::ParallelTransfer,
                description: $what,
                time_scale: $scale,
                ..Info::DEFAULT
            };
            static $stat: P2p<$ex> = P2p { info: &$info, ex: $val };
        )*
        /// IMB-P2P's order.
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
    title: "IMB-P2P 2021: point-to-point patterns over all processes at once",
    entries,
    // Loop timing after a barrier, IMB's repetitions: the plain defaults,
    // on all processes.
    defaults: Defaults {
        procs: ProcSweep::World,
        ..Suite::PLAIN.defaults
    },
    formats: &[(SUITE, &self::table::ImbP2p)],
    help: SuiteHelp {
        heading: None,
        own: Some("mpibench imb-p2p [-iter MAX[,NUM]] [-msglog K:N] [-pause US] ... [BENCHMARK ...] (also as a link named IMB-P2P)"),
        example: "mpibench run -n 4 --suite imb-p2p Stencil2D Unirandom --sizes 8,1K,64K",
    },
    front: Some(&FAMILY),
    ..Suite::PLAIN
};

p2p! {
    PINGPONG, PINGPONG_INFO, PingPong = Pairs::<true>, "PingPong", 0.5,
        "ranks i < P/2 bounce a message with i + P/2 (MPI_Send/MPI_Recv), all pairs at once; t = half a round trip";
    PINGPING, PINGPING_INFO, PingPing = Pairs::<false>, "PingPing", 1.0,
        "ranks i and i + P/2 send to each other at once (MPI_Irecv/MPI_Send/MPI_Wait), all pairs at once";
    UNIRANDOM, UNIRANDOM_INFO, Unirandom = Unirandom, "Unirandom", 1.0,
        "P messages per iteration, each between a random pair (MPI_Send/MPI_Recv)";
    BIRANDOM, BIRANDOM_INFO, Birandom = Birandom, "Birandom", 0.5,
        "P exchanges per iteration, each between a random pair (MPI_Irecv/MPI_Send/MPI_Wait)";
    CORANDOM, CORANDOM_INFO, Corandom = Corandom, "Corandom", 1.0,
        "a new random ring of all ranks every iteration: receive from the one before, send to the next";
    STENCIL2D, STENCIL2D_INFO, Stencil<2> = Stencil::<2>, "Stencil2D", 0.25,
        "exchange with the 4 neighbours on a periodic 2-D grid (MPI_Irecv/MPI_Isend/MPI_Waitall)";
    STENCIL3D, STENCIL3D_INFO, Stencil<3> = Stencil::<3>, "Stencil3D", 1.0 / 6.0,
        "exchange with the 6 neighbours on a periodic 3-D grid (MPI_Irecv/MPI_Isend/MPI_Waitall)";
    SENDRECV_REPLACE, SENDRECV_REPLACE_INFO, SendRecvReplace = SendRecvReplace, "SendRecv_Replace", 1.0,
        "MPI_Sendrecv_replace around a ring, to the next rank from the previous one";
}
