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

use self::kernel::P2p;
use self::patterns::*;
use crate::bench::{Benchmark, Class, Info};
use crate::frontend::imb::Family;
use crate::suite::{Defaults, ProcSweep, Suite, SuiteHelp};

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

/// IMB-P2P's command line.
pub static FAMILY: Family = Family {
    program: "IMB-P2P",
    subcommand: SUITE,
    suite: SUITE,
    table: SUITE,
    list_heading: "P2P",
    help: "IMB-P2P 2021 arguments (IMB-P2P's own spelling, one dash):
  benchmark[,benchmark ...]   benchmarks to run (case-insensitive; default: all eight)
  -iter MAX[,NUMERATOR]       iterations per length: NUMERATOR MiB / length, at most MAX, at
                              least 1 (default 100000,800)
  -msglog N | K:N             lengths 0, 1, 2, 4 .. 2^N, or 2^K .. 2^N (N <= 47; default 0 and
                              1 .. 4 MiB)
  -msglen FILE                lengths from FILE, one per line (suffixes k, m, g; # comments)
  -msgsz SIZE                 add a length (suffixes k, m, g); may be repeated
  -msgwr on|off               write every cache line of a buffer before sending it (default on)
  -msgrd on|off               read every cache line of a buffer after receiving it (default on)
  -pause US                   microseconds of sleep before and after each length (default 100000)
  -list                       list the benchmarks and exit
  -h, -help                   this help

Benchmarks: PingPong PingPing Unirandom Birandom Corandom Stencil2D Stencil3D SendRecv_Replace,
  all on every process: t[usec] = the ranks' time per message (PingPong: half a round trip),
  Mbytes/sec (10^6 bytes) and Msg/sec of all the messages over the slowest rank's time.
  PingPong and PingPing need an even process count, Stencil2D a P x Q grid and Stencil3D a
  P x Q x R grid (sides of 2 or more): otherwise IMB-P2P's \"invalid\" line.
mpibench options may be mixed in: -n N (self-launch), --json FILE, --csv FILE, --check, --stats.
Example: mpirun -np 4 mpibench imb-p2p -iter 1000,100 -msglog 0:16 -pause 0 Stencil2D",
    parse: front::parse,
    list: front::list,
    modes: false,
};

fn entries() -> Vec<crate::suite::Entry> {
    crate::suite::benches(benchmarks())
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
    formats: &[(SUITE, &table::ImbP2p)],
    help: SuiteHelp {
        heading: None,
        own: Some("mpibench imb-p2p [-iter MAX[,NUM]] [-msglog K:N] [-pause US] ... [BENCHMARK ...] (also as a link named IMB-P2P)"),
        example: "mpibench run -n 4 --suite imb-p2p Stencil2D Unirandom --sizes 8,1K,64K",
    },
    ..Suite::PLAIN
};
