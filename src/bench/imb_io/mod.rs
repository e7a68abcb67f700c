//! IMB-IO 2021: the MPI-IO benchmarks of the Intel MPI Benchmarks, as
//! `mpibench imb-io [IMB flags] [BENCHMARK ...]`, a link named `IMB-IO`,
//! or `mpibench run --suite imb-io`.
//!
//! The 19 blocking benchmarks: S_ (one process), P_ (every process,
//! independent calls) and C_ (collective calls) × Write/Read × Indv
//! (individual file pointers), Expl (explicit offsets), Shared (the shared
//! file pointer) and Priv (a file per process; P_ only), and Open_Close
//! ([`file`], [`open_close`]). Writes run in IMB's aggregate and
//! non-aggregate modes, reads in aggregate mode; IMB's loop timing (one
//! clock pair around the repetitions, after a barrier).

pub mod args;
pub mod file;
mod front;
mod open_close;
pub mod table;

pub use args::ImbIoArgs;
pub use front::FAMILY;

use self::file::{Access, Io, Pointer, Who};
use self::open_close::OpenClose;
use crate::bench::entry::Entry;
use crate::bench::{Benchmark, Class, Info, RankRule};
use crate::contract::axis::Axis;
use crate::method::Method;
use crate::plugin::{benches, Suite, SuiteHelp};

pub const SUITE: &str = "imb-io";

macro_rules! io {
    ($stat:ident, $info:ident, $name:literal, $class:expr, $access:ident, $pointer:ident, $who:ident, $what:literal) => {
        static $info: Info = Info {
            name: $name,
            suite: SUITE,
            class: $class,
            ranks: RankRule::ANY,
            description: $what,
            throughput: Some(1.0),
            method: Some(Method::Loop),
            ..Info::DEFAULT
        };
        static $stat: Io = Io {
            info: &$info,
            access: Access::$access,
            pointer: Pointer::$pointer,
            who: Who::$who,
        };
    };
}

const S: Class = Class::SingleTransfer;
const P: Class = Class::ParallelTransfer;
const C: Class = Class::Collective;

io!(
    S_WRITE_INDV,
    S_WRITE_INDV_INFO,
    "S_Write_Indv",
    S,
    Write,
    Indv,
    Single,
    "one process writes X bytes to its own file (MPI_File_write), then MPI_File_sync"
);
io!(
    S_WRITE_EXPL,
    S_WRITE_EXPL_INFO,
    "S_Write_Expl",
    S,
    Write,
    Expl,
    Single,
    "one process writes X bytes at explicit offsets (MPI_File_write_at), then MPI_File_sync"
);
io!(
    P_WRITE_INDV,
    P_WRITE_INDV_INFO,
    "P_Write_Indv",
    P,
    Write,
    Indv,
    Parallel,
    "every process writes its part of X bytes to a shared file through its view (MPI_File_write)"
);
io!(P_WRITE_SHARED, P_WRITE_SHARED_INFO, "P_Write_Shared", P, Write, Shared, Parallel,
    "every process writes its part of X bytes through the shared file pointer (MPI_File_write_shared)");
io!(
    P_WRITE_PRIV,
    P_WRITE_PRIV_INFO,
    "P_Write_Priv",
    P,
    Write,
    Priv,
    Parallel,
    "every process writes its part of X bytes to a file of its own (MPI_File_write)"
);
io!(P_WRITE_EXPL, P_WRITE_EXPL_INFO, "P_Write_Expl", P, Write, Expl, Parallel,
    "every process writes its part of X bytes at explicit offsets of a shared file (MPI_File_write_at)");
io!(
    C_WRITE_INDV,
    C_WRITE_INDV_INFO,
    "C_Write_Indv",
    C,
    Write,
    Indv,
    Collective,
    "every process writes its part of X bytes through its view, collectively (MPI_File_write_all)"
);
io!(
    C_WRITE_SHARED,
    C_WRITE_SHARED_INFO,
    "C_Write_Shared",
    C,
    Write,
    Shared,
    Collective,
    "every process writes its part of X bytes in rank order (MPI_File_write_ordered)"
);
io!(C_WRITE_EXPL, C_WRITE_EXPL_INFO, "C_Write_Expl", C, Write, Expl, Collective,
    "every process writes its part of X bytes at explicit offsets, collectively (MPI_File_write_at_all)");
io!(
    S_READ_INDV,
    S_READ_INDV_INFO,
    "S_Read_Indv",
    S,
    Read,
    Indv,
    Single,
    "one process reads X bytes from its own file (MPI_File_read)"
);
io!(
    S_READ_EXPL,
    S_READ_EXPL_INFO,
    "S_Read_Expl",
    S,
    Read,
    Expl,
    Single,
    "one process reads X bytes at explicit offsets (MPI_File_read_at)"
);
io!(
    P_READ_INDV,
    P_READ_INDV_INFO,
    "P_Read_Indv",
    P,
    Read,
    Indv,
    Parallel,
    "every process reads its part of X bytes of a shared file through its view (MPI_File_read)"
);
io!(P_READ_SHARED, P_READ_SHARED_INFO, "P_Read_Shared", P, Read, Shared, Parallel,
    "every process reads its part of X bytes through the shared file pointer (MPI_File_read_shared)");
io!(
    P_READ_PRIV,
    P_READ_PRIV_INFO,
    "P_Read_Priv",
    P,
    Read,
    Priv,
    Parallel,
    "every process reads its part of X bytes from a file of its own (MPI_File_read)"
);
io!(P_READ_EXPL, P_READ_EXPL_INFO, "P_Read_Expl", P, Read, Expl, Parallel,
    "every process reads its part of X bytes at explicit offsets of a shared file (MPI_File_read_at)");
io!(
    C_READ_INDV,
    C_READ_INDV_INFO,
    "C_Read_Indv",
    C,
    Read,
    Indv,
    Collective,
    "every process reads its part of X bytes through its view, collectively (MPI_File_read_all)"
);
io!(
    C_READ_SHARED,
    C_READ_SHARED_INFO,
    "C_Read_Shared",
    C,
    Read,
    Shared,
    Collective,
    "every process reads its part of X bytes in rank order (MPI_File_read_ordered)"
);
io!(C_READ_EXPL, C_READ_EXPL_INFO, "C_Read_Expl", C, Read, Expl, Collective,
    "every process reads its part of X bytes at explicit offsets, collectively (MPI_File_read_at_all)");

static OPEN_CLOSE_INFO: Info = Info {
    name: "Open_Close",
    suite: SUITE,
    description: "MPI_File_open of a shared file, a one-byte MPI_File_write, MPI_File_close",
    axis: Axis::None,
    method: Some(Method::Loop),
    ..Info::DEFAULT
};
static OPEN_CLOSE: OpenClose = OpenClose {
    info: &OPEN_CLOSE_INFO,
};

/// IMB-IO's order (its blocking benchmarks).
pub fn benchmarks() -> Vec<&'static dyn Benchmark> {
    vec![
        &S_WRITE_INDV,
        &S_WRITE_EXPL,
        &P_WRITE_INDV,
        &P_WRITE_SHARED,
        &P_WRITE_PRIV,
        &P_WRITE_EXPL,
        &C_WRITE_INDV,
        &C_WRITE_SHARED,
        &C_WRITE_EXPL,
        &S_READ_INDV,
        &S_READ_EXPL,
        &P_READ_INDV,
        &P_READ_SHARED,
        &P_READ_PRIV,
        &P_READ_EXPL,
        &C_READ_INDV,
        &C_READ_SHARED,
        &C_READ_EXPL,
        &OPEN_CLOSE,
    ]
}

fn entries() -> Vec<Entry> {
    benches(benchmarks())
}

/// The suite's entry in the registry.
pub const REGISTERED: Suite = Suite {
    name: SUITE,
    title: "IMB-IO 2021: MPI-IO writes and reads (individual, explicit, shared, private) and Open_Close",
    entries,
    // IMB's loop timing after a barrier, IMB's repetitions and lengths, and
    // PMB's process counts (the front end starts them at 1, as IMB-IO).
    defaults: Suite::PLAIN.defaults,
    axes: Some(args::axes),
    formats: &[(SUITE, &self::table::ImbIo)],
    help: SuiteHelp {
        heading: Some(args::HEADING),
        own: Some("mpibench imb-io [-npmin P] [-msglog A:B] [-iter N[,VOL[,NONAGGR]]] ... [BENCHMARK ...] (also as a link named IMB-IO)"),
        example: "mpibench run -n 2 --suite imb-io P_Write_Indv P_Read_Indv Open_Close --sizes 8,1K,64K --io-dir /tmp",
    },
    front: Some(&FAMILY),
    options: Some(crate::cli::OptionsHook::of::<ImbIoArgs>()),
    ..Suite::PLAIN
};
