//! IMB-IO 2021: the MPI-IO benchmarks of the Intel MPI Benchmarks, as
//! `mpibench imb-io [IMB flags] [BENCHMARK ...]`, a link named `IMB-IO`,
//! or `mpibench run --suite imb-io`.
//!
//! IMB-IO's 37 benchmarks: S_ (one process), P_ (every process,
//! independent calls) and C_ (collective calls) × Write/Read × Indv
//! (individual file pointers), Expl (explicit offsets), Shared (the shared
//! file pointer) and Priv (a file per process; P_ only), each followed by
//! its non-blocking twin (S_IWrite_Indv ...: t_ovrl, t_pure, t_CPU,
//! overlap), and Open_Close ([`file`], [`open_close`]). Writes run in
//! IMB's aggregate and non-aggregate modes, reads and the non-blocking
//! twins in aggregate mode; IMB's loop timing (one clock pair around the
//! repetitions, after a barrier).

pub mod args;
mod cpu;
pub mod file;
mod front;
mod memory;
mod open_close;
mod overlapped;
mod shared;
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
    ($stat:ident, $info:ident, $name:literal, $class:expr, $access:ident, $pointer:ident, $who:ident, $what:expr, $nb:literal) => {
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
            nonblocking: $nb,
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
    "one process writes X bytes to its own file (MPI_File_write), then MPI_File_sync",
    false
);
io!(
    S_IWRITE_INDV,
    S_IWRITE_INDV_INFO,
    "S_IWrite_Indv",
    S,
    Write,
    Indv,
    Single,
    "as S_Write_Indv, non-blocking (MPI_File_iwrite, CPU exploitation, then the wait), after the blocking pass (t_pure)",
    true
);
io!(
    S_WRITE_EXPL,
    S_WRITE_EXPL_INFO,
    "S_Write_Expl",
    S,
    Write,
    Expl,
    Single,
    "one process writes X bytes at explicit offsets (MPI_File_write_at), then MPI_File_sync",
    false
);
io!(
    S_IWRITE_EXPL,
    S_IWRITE_EXPL_INFO,
    "S_IWrite_Expl",
    S,
    Write,
    Expl,
    Single,
    "as S_Write_Expl, non-blocking (MPI_File_iwrite_at, CPU exploitation, then the wait), after the blocking pass (t_pure)",
    true
);
io!(
    P_WRITE_INDV,
    P_WRITE_INDV_INFO,
    "P_Write_Indv",
    P,
    Write,
    Indv,
    Parallel,
    "every process writes its part of X bytes to a shared file through its view (MPI_File_write)",
    false
);
io!(
    P_IWRITE_INDV,
    P_IWRITE_INDV_INFO,
    "P_IWrite_Indv",
    P,
    Write,
    Indv,
    Parallel,
    "as P_Write_Indv, non-blocking (MPI_File_iwrite, CPU exploitation, then the wait), after the blocking pass (t_pure)",
    true
);
io!(
    P_WRITE_SHARED,
    P_WRITE_SHARED_INFO,
    "P_Write_Shared",
    P,
    Write,
    Shared,
    Parallel,
    "every process writes its part of X bytes through the shared file pointer (MPI_File_write_shared)",
    false
);
io!(
    P_IWRITE_SHARED,
    P_IWRITE_SHARED_INFO,
    "P_IWrite_Shared",
    P,
    Write,
    Shared,
    Parallel,
    "as P_Write_Shared, non-blocking (MPI_File_iwrite_shared, CPU exploitation, then the wait), after the blocking pass (t_pure)",
    true
);
io!(
    P_WRITE_PRIV,
    P_WRITE_PRIV_INFO,
    "P_Write_Priv",
    P,
    Write,
    Priv,
    Parallel,
    "every process writes its part of X bytes to a file of its own (MPI_File_write)",
    false
);
io!(
    P_IWRITE_PRIV,
    P_IWRITE_PRIV_INFO,
    "P_IWrite_Priv",
    P,
    Write,
    Priv,
    Parallel,
    "as P_Write_Priv, non-blocking (MPI_File_iwrite, CPU exploitation, then the wait), after the blocking pass (t_pure)",
    true
);
io!(
    P_WRITE_EXPL,
    P_WRITE_EXPL_INFO,
    "P_Write_Expl",
    P,
    Write,
    Expl,
    Parallel,
    "every process writes its part of X bytes at explicit offsets of a shared file (MPI_File_write_at)",
    false
);
io!(
    P_IWRITE_EXPL,
    P_IWRITE_EXPL_INFO,
    "P_IWrite_Expl",
    P,
    Write,
    Expl,
    Parallel,
    "as P_Write_Expl, non-blocking (MPI_File_iwrite_at, CPU exploitation, then the wait), after the blocking pass (t_pure)",
    true
);
io!(
    C_WRITE_INDV,
    C_WRITE_INDV_INFO,
    "C_Write_Indv",
    C,
    Write,
    Indv,
    Collective,
    "every process writes its part of X bytes through its view, collectively (MPI_File_write_all)",
    false
);
io!(
    C_IWRITE_INDV,
    C_IWRITE_INDV_INFO,
    "C_IWrite_Indv",
    C,
    Write,
    Indv,
    Collective,
    "as C_Write_Indv, non-blocking (MPI_File_write_all_begin/_end, CPU exploitation, then the wait), after the blocking pass (t_pure)",
    true
);
io!(
    C_WRITE_SHARED,
    C_WRITE_SHARED_INFO,
    "C_Write_Shared",
    C,
    Write,
    Shared,
    Collective,
    "every process writes its part of X bytes in rank order (MPI_File_write_ordered)",
    false
);
io!(
    C_IWRITE_SHARED,
    C_IWRITE_SHARED_INFO,
    "C_IWrite_Shared",
    C,
    Write,
    Shared,
    Collective,
    "as C_Write_Shared, non-blocking (MPI_File_write_ordered_begin/_end, CPU exploitation, then the wait), after the blocking pass (t_pure)",
    true
);
io!(
    C_WRITE_EXPL,
    C_WRITE_EXPL_INFO,
    "C_Write_Expl",
    C,
    Write,
    Expl,
    Collective,
    "every process writes its part of X bytes at explicit offsets, collectively (MPI_File_write_at_all)",
    false
);
io!(
    C_IWRITE_EXPL,
    C_IWRITE_EXPL_INFO,
    "C_IWrite_Expl",
    C,
    Write,
    Expl,
    Collective,
    "as C_Write_Expl, non-blocking (MPI_File_write_at_all_begin/_end, CPU exploitation, then the wait), after the blocking pass (t_pure)",
    true
);
io!(
    S_READ_INDV,
    S_READ_INDV_INFO,
    "S_Read_Indv",
    S,
    Read,
    Indv,
    Single,
    "one process reads X bytes from its own file (MPI_File_read)",
    false
);
io!(
    S_IREAD_INDV,
    S_IREAD_INDV_INFO,
    "S_IRead_Indv",
    S,
    Read,
    Indv,
    Single,
    "as S_Read_Indv, non-blocking (MPI_File_iread, CPU exploitation, then the wait), after the blocking pass (t_pure)",
    true
);
io!(
    S_READ_EXPL,
    S_READ_EXPL_INFO,
    "S_Read_Expl",
    S,
    Read,
    Expl,
    Single,
    "one process reads X bytes at explicit offsets (MPI_File_read_at)",
    false
);
io!(
    S_IREAD_EXPL,
    S_IREAD_EXPL_INFO,
    "S_IRead_Expl",
    S,
    Read,
    Expl,
    Single,
    "as S_Read_Expl, non-blocking (MPI_File_iread_at, CPU exploitation, then the wait), after the blocking pass (t_pure)",
    true
);
io!(
    P_READ_INDV,
    P_READ_INDV_INFO,
    "P_Read_Indv",
    P,
    Read,
    Indv,
    Parallel,
    "every process reads its part of X bytes of a shared file through its view (MPI_File_read)",
    false
);
io!(
    P_IREAD_INDV,
    P_IREAD_INDV_INFO,
    "P_IRead_Indv",
    P,
    Read,
    Indv,
    Parallel,
    "as P_Read_Indv, non-blocking (MPI_File_iread, CPU exploitation, then the wait), after the blocking pass (t_pure)",
    true
);
io!(
    P_READ_SHARED,
    P_READ_SHARED_INFO,
    "P_Read_Shared",
    P,
    Read,
    Shared,
    Parallel,
    "every process reads its part of X bytes through the shared file pointer (MPI_File_read_shared)",
    false
);
io!(
    P_IREAD_SHARED,
    P_IREAD_SHARED_INFO,
    "P_IRead_Shared",
    P,
    Read,
    Shared,
    Parallel,
    "as P_Read_Shared, non-blocking (MPI_File_iread_shared, CPU exploitation, then the wait), after the blocking pass (t_pure)",
    true
);
io!(
    P_READ_PRIV,
    P_READ_PRIV_INFO,
    "P_Read_Priv",
    P,
    Read,
    Priv,
    Parallel,
    "every process reads its part of X bytes from a file of its own (MPI_File_read)",
    false
);
io!(
    P_IREAD_PRIV,
    P_IREAD_PRIV_INFO,
    "P_IRead_Priv",
    P,
    Read,
    Priv,
    Parallel,
    "as P_Read_Priv, non-blocking (MPI_File_iread, CPU exploitation, then the wait), after the blocking pass (t_pure)",
    true
);
io!(
    P_READ_EXPL,
    P_READ_EXPL_INFO,
    "P_Read_Expl",
    P,
    Read,
    Expl,
    Parallel,
    "every process reads its part of X bytes at explicit offsets of a shared file (MPI_File_read_at)",
    false
);
io!(
    P_IREAD_EXPL,
    P_IREAD_EXPL_INFO,
    "P_IRead_Expl",
    P,
    Read,
    Expl,
    Parallel,
    "as P_Read_Expl, non-blocking (MPI_File_iread_at, CPU exploitation, then the wait), after the blocking pass (t_pure)",
    true
);
io!(
    C_READ_INDV,
    C_READ_INDV_INFO,
    "C_Read_Indv",
    C,
    Read,
    Indv,
    Collective,
    "every process reads its part of X bytes through its view, collectively (MPI_File_read_all)",
    false
);
io!(
    C_IREAD_INDV,
    C_IREAD_INDV_INFO,
    "C_IRead_Indv",
    C,
    Read,
    Indv,
    Collective,
    "as C_Read_Indv, non-blocking (MPI_File_read_all_begin/_end, CPU exploitation, then the wait), after the blocking pass (t_pure)",
    true
);
io!(
    C_READ_SHARED,
    C_READ_SHARED_INFO,
    "C_Read_Shared",
    C,
    Read,
    Shared,
    Collective,
    "every process reads its part of X bytes in rank order (MPI_File_read_ordered)",
    false
);
io!(
    C_IREAD_SHARED,
    C_IREAD_SHARED_INFO,
    "C_IRead_Shared",
    C,
    Read,
    Shared,
    Collective,
    "as C_Read_Shared, non-blocking (MPI_File_read_ordered_begin/_end, CPU exploitation, then the wait), after the blocking pass (t_pure)",
    true
);
io!(
    C_READ_EXPL,
    C_READ_EXPL_INFO,
    "C_Read_Expl",
    C,
    Read,
    Expl,
    Collective,
    "every process reads its part of X bytes at explicit offsets, collectively (MPI_File_read_at_all)",
    false
);
io!(
    C_IREAD_EXPL,
    C_IREAD_EXPL_INFO,
    "C_IRead_Expl",
    C,
    Read,
    Expl,
    Collective,
    "as C_Read_Expl, non-blocking (MPI_File_read_at_all_begin/_end, CPU exploitation, then the wait), after the blocking pass (t_pure)",
    true
);

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

/// IMB-IO's order: each blocking benchmark followed by its non-blocking
/// twin, then Open_Close.
pub fn benchmarks() -> Vec<&'static dyn Benchmark> {
    vec![
        &S_WRITE_INDV,
        &S_IWRITE_INDV,
        &S_WRITE_EXPL,
        &S_IWRITE_EXPL,
        &P_WRITE_INDV,
        &P_IWRITE_INDV,
        &P_WRITE_SHARED,
        &P_IWRITE_SHARED,
        &P_WRITE_PRIV,
        &P_IWRITE_PRIV,
        &P_WRITE_EXPL,
        &P_IWRITE_EXPL,
        &C_WRITE_INDV,
        &C_IWRITE_INDV,
        &C_WRITE_SHARED,
        &C_IWRITE_SHARED,
        &C_WRITE_EXPL,
        &C_IWRITE_EXPL,
        &S_READ_INDV,
        &S_IREAD_INDV,
        &S_READ_EXPL,
        &S_IREAD_EXPL,
        &P_READ_INDV,
        &P_IREAD_INDV,
        &P_READ_SHARED,
        &P_IREAD_SHARED,
        &P_READ_PRIV,
        &P_IREAD_PRIV,
        &P_READ_EXPL,
        &P_IREAD_EXPL,
        &C_READ_INDV,
        &C_IREAD_INDV,
        &C_READ_SHARED,
        &C_IREAD_SHARED,
        &C_READ_EXPL,
        &C_IREAD_EXPL,
        &OPEN_CLOSE,
    ]
}

fn entries() -> Vec<Entry> {
    benches(benchmarks())
}

/// The suite's entry in the registry.
pub const REGISTERED: Suite = Suite {
    name: SUITE,
    title: "IMB-IO 2021: MPI-IO writes and reads (individual, explicit, shared, private; blocking and non-blocking) and Open_Close",
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
