//! The only module that touches rsmpi and `mpi::ffi`.
//!
//! * [`Comm`] is an owned communicator: not `Copy`, freed on drop (the world
//!   communicator is borrowed, never freed).
//! * Every call's return code is checked ([`error::check`]); communicators use
//!   `MPI_ERRORS_RETURN`.
//! * A message is described by a [`Msg`], resolved once per point outside the
//!   timed region: datatype and count, a derived type for 2 GiB and more, or
//!   the MPI-4 `_c` large-count calls where the library has them. The hot
//!   calls only read it.

use std::ffi::{c_int, c_void, CStr};
use std::ptr;

use mpi::ffi;
use serde::{Deserialize, Serialize};

pub mod buffer;
pub mod coll;
mod derived;
pub mod error;
pub mod fork;
pub mod io;
pub mod modes;
pub mod mpit;
mod nbc;
mod nbcv;
pub mod neighbor;
pub mod pcoll;
pub mod persistent;
pub mod progress;
pub mod rma;
mod scan;
pub mod test;
pub mod threads;
pub mod topo;
pub use buffer::Buffer;
pub use derived::Derived;
pub use error::{check, check_in_drop, checked, Error};

extern "C" {
    fn mpibench_tag_ub(c: ffi::MPI_Comm) -> c_int;
    fn mpibench_mpi_byte() -> ffi::MPI_Datatype;
    fn mpibench_mpi_int() -> ffi::MPI_Datatype;
    fn mpibench_mpi_unsigned_char() -> ffi::MPI_Datatype;
    fn mpibench_mpi_char() -> ffi::MPI_Datatype;
    fn mpibench_large_count() -> c_int;
    fn mpibench_in_place() -> *mut c_void;
    fn mpibench_send_c(
        b: *const c_void,
        n: usize,
        dest: c_int,
        tag: c_int,
        c: ffi::MPI_Comm,
    ) -> c_int;
    fn mpibench_recv_c(b: *mut c_void, n: usize, src: c_int, tag: c_int, c: ffi::MPI_Comm)
        -> c_int;
    fn mpibench_isend_c(
        b: *const c_void,
        n: usize,
        dest: c_int,
        tag: c_int,
        c: ffi::MPI_Comm,
        r: *mut ffi::MPI_Request,
    ) -> c_int;
    fn mpibench_irecv_c(
        b: *mut c_void,
        n: usize,
        src: c_int,
        tag: c_int,
        c: ffi::MPI_Comm,
        r: *mut ffi::MPI_Request,
    ) -> c_int;
    fn mpibench_sendrecv_c(
        s: *const c_void,
        n: usize,
        dest: c_int,
        r: *mut c_void,
        src: c_int,
        tag: c_int,
        c: ffi::MPI_Comm,
    ) -> c_int;
    fn mpibench_bcast_c(b: *mut c_void, n: usize, root: c_int, c: ffi::MPI_Comm) -> c_int;
}

/// Whether messages beyond `i32::MAX` bytes go through the MPI-4 `_c`
/// large-count calls (true with MPICH 4) rather than derived datatypes.
pub fn large_count_calls() -> bool {
    unsafe { mpibench_large_count() != 0 }
}

/// The element types the suites use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Elem {
    /// MPI_BYTE (PMB, CRESTA, COMMTEST).
    Byte,
    /// MPI_FLOAT (PMB reductions).
    Float,
    /// MPI_INT (MPITEST).
    Int,
    /// MPI_DOUBLE (coarrays, ALLREDUCE).
    Double,
    /// MPI_UNSIGNED_CHAR: byte-sized elements that MPI_SUM accepts (CRESTA reductions).
    UChar,
    /// MPI_CHAR (IMB's `-data_type char`, `-red_data_type char`).
    Char,
}

impl Elem {
    pub fn size(self) -> usize {
        match self {
            Elem::Byte | Elem::UChar | Elem::Char => 1,
            Elem::Float | Elem::Int => 4,
            Elem::Double => 8,
        }
    }

    pub fn mpi_name(self) -> &'static str {
        match self {
            Elem::Byte => "MPI_BYTE",
            Elem::Float => "MPI_FLOAT",
            Elem::Int => "MPI_INT",
            Elem::Double => "MPI_DOUBLE",
            Elem::UChar => "MPI_UNSIGNED_CHAR",
            Elem::Char => "MPI_CHAR",
        }
    }

    pub fn datatype(self) -> ffi::MPI_Datatype {
        // SAFETY: predefined handles, valid before and after MPI_Init.
        unsafe {
            match self {
                Elem::Byte => mpibench_mpi_byte(),
                Elem::Float => ffi::RSMPI_FLOAT,
                Elem::Int => mpibench_mpi_int(),
                Elem::Double => ffi::RSMPI_DOUBLE,
                Elem::UChar => mpibench_mpi_unsigned_char(),
                Elem::Char => mpibench_mpi_char(),
            }
        }
    }
}

/// `MPI_SUM`.
pub fn op_sum() -> ffi::MPI_Op {
    unsafe { ffi::RSMPI_SUM }
}

/// A message of `bytes` bytes as MPI sees it: `count` elements of `dt`, and,
/// beyond 2^31 − 1 bytes with an MPI-4 library, the byte count for the `_c`
/// calls. Built once per point; owned derived types are freed on drop.
pub struct Msg {
    pub dt: ffi::MPI_Datatype,
    pub count: c_int,
    /// Bytes for the `_c` large-count point-to-point and Bcast calls; 0 when not used.
    pub large: usize,
    owned: bool,
    /// The sum of reductions over a derived datatype (None: MPI_SUM).
    op: Option<derived::UserSum>,
}

/// Chunk of the derived type that carries messages of 2 GiB and more.
const CHUNK: usize = 1 << 30;

impl Msg {
    /// A message of a few bytes (tokens, acknowledgements): no MPI call.
    pub fn small(n: u16) -> Msg {
        Msg {
            dt: Elem::Byte.datatype(),
            count: c_int::from(n),
            large: 0,
            owned: false,
            op: None,
        }
    }

    /// `n` bytes of MPI_BYTE. Beyond `i32::MAX` a committed derived type of
    /// 1 GiB chunks plus a tail (one element), and the `_c` calls where available.
    pub fn bytes(n: usize) -> Result<Msg, Error> {
        if n <= i32::MAX as usize {
            return Ok(Msg {
                dt: Elem::Byte.datatype(),
                count: n as c_int,
                large: 0,
                owned: false,
                op: None,
            });
        }
        let mut m = Msg::unit(n)?;
        if large_count_calls() {
            m.large = n;
        }
        Ok(m)
    }

    /// Why `n` elements of `e` cannot be one message (typed elements go
    /// beyond 2^31 − 1 only as bytes).
    pub fn count_error(e: Elem, n: usize) -> Option<String> {
        (e != Elem::Byte && n > i32::MAX as usize).then(|| {
            format!(
                "{n} elements of {} exceed the MPI count range (2^31 - 1)",
                e.mpi_name()
            )
        })
    }

    /// `n` elements of `e` (reductions and typed transfers); at most 2^31 − 1.
    pub fn elems(e: Elem, n: usize) -> Result<Msg, Error> {
        if e == Elem::Byte {
            return Msg::bytes(n);
        }
        if let Some(err) = Msg::count_error(e, n) {
            return Err(Error::Local(err));
        }
        Ok(Msg {
            dt: e.datatype(),
            count: n as c_int,
            large: 0,
            owned: false,
            op: None,
        })
    }

    /// Always one element of a committed derived type of `n` bytes (n > 0), so
    /// that counts and displacements can be expressed in units of it.
    pub fn unit(n: usize) -> Result<Msg, Error> {
        let byte = Elem::Byte.datatype();
        let mut dt = byte;
        unsafe {
            if n <= i32::MAX as usize {
                checked(
                    ffi::MPI_Type_contiguous(n.max(1) as c_int, byte, &mut dt),
                    "MPI_Type_contiguous",
                )?;
            } else {
                let (q, r) = (n / CHUNK, n % CHUNK);
                let mut chunk = ffi::RSMPI_DATATYPE_NULL;
                checked(
                    ffi::MPI_Type_contiguous(CHUNK as c_int, byte, &mut chunk),
                    "MPI_Type_contiguous",
                )?;
                let mut body = ffi::RSMPI_DATATYPE_NULL;
                checked(
                    ffi::MPI_Type_contiguous(q as c_int, chunk, &mut body),
                    "MPI_Type_contiguous",
                )?;
                dt = body;
                if r > 0 {
                    let lens = [1 as c_int, r as c_int];
                    let displs = [0 as ffi::MPI_Aint, (q * CHUNK) as ffi::MPI_Aint];
                    let types = [body, byte];
                    let mut st = ffi::RSMPI_DATATYPE_NULL;
                    checked(
                        ffi::MPI_Type_create_struct(
                            2,
                            lens.as_ptr(),
                            displs.as_ptr(),
                            types.as_ptr(),
                            &mut st,
                        ),
                        "MPI_Type_create_struct",
                    )?;
                    checked(ffi::MPI_Type_free(&mut body), "MPI_Type_free")?;
                    dt = st;
                }
                checked(ffi::MPI_Type_free(&mut chunk), "MPI_Type_free")?;
            }
            checked(ffi::MPI_Type_commit(&mut dt), "MPI_Type_commit")?;
        }
        Ok(Msg {
            dt,
            count: 1,
            large: 0,
            owned: true,
            op: None,
        })
    }

    /// The MPI_Op of a sum over this message's elements: MPI_SUM, or the
    /// user-defined sum over the base elements of a derived datatype.
    #[inline(always)]
    pub fn sum_op(&self) -> ffi::MPI_Op {
        self.op.as_ref().map_or_else(op_sum, |o| o.0)
    }
}

impl Drop for Msg {
    fn drop(&mut self) {
        if self.owned {
            check_in_drop(unsafe { ffi::MPI_Type_free(&mut self.dt) }, "MPI_Type_free");
        }
    }
}

/// `MPI_Wtime`.
#[inline(always)]
pub fn wtime() -> f64 {
    unsafe { ffi::RSMPI_Wtime() }
}

/// `MPI_ANY_SOURCE` as a source rank of [`Comm::recv`] and [`Comm::irecv`]
/// (which pass it on as the int it was, negative in every library).
pub fn any_source() -> usize {
    unsafe { ffi::RSMPI_ANY_SOURCE as isize as usize }
}

/// `MPI_Wtick`.
pub fn wtick() -> f64 {
    unsafe { ffi::RSMPI_Wtick() }
}

/// `MPI_Init`, or `MPI_Init_thread` asking for MPI_THREAD_MULTIPLE when
/// `threads` (what the library gives is checked by the benchmarks that
/// need it, through `mpi::environment::threading_support`).
pub fn initialize(threads: bool) -> anyhow::Result<mpi::environment::Universe> {
    let u = if threads {
        mpi::initialize_with_threading(mpi::environment::Threading::Multiple).map(|(u, _)| u)
    } else {
        mpi::initialize()
    };
    u.ok_or_else(|| anyhow::anyhow!("MPI was already initialised"))
}

/// `MPI_Get_library_version`: allowed before `MPI_Init`, which the self-launcher uses.
pub fn library_version() -> String {
    library_version_lines()
        .lines()
        .collect::<Vec<_>>()
        .join(" ")
}

/// `MPI_Get_library_version`'s text, one line per line it has, trimmed.
pub fn library_version_lines() -> String {
    let mut buf = vec![0u8; 8192];
    let mut len: c_int = 0;
    check(
        unsafe { ffi::MPI_Get_library_version(buf.as_mut_ptr() as *mut _, &mut len) },
        "MPI_Get_library_version",
    );
    let s = CStr::from_bytes_until_nul(&buf)
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default();
    s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The shared object this process took `MPI_Init` from (`dladdr`): which
/// MPI library ran, whatever the build was linked against.
pub fn library_file() -> Option<String> {
    // SAFETY: dladdr only reads the loader's tables; dli_fname points into
    // them and lives as long as the library stays loaded (the process).
    unsafe {
        let mut info: libc::Dl_info = std::mem::zeroed();
        let f = ffi::MPI_Init as *const libc::c_void;
        if libc::dladdr(f, &mut info) == 0 || info.dli_fname.is_null() {
            return None;
        }
        let path = CStr::from_ptr(info.dli_fname)
            .to_string_lossy()
            .into_owned();
        Some(std::fs::canonicalize(&path).map_or(path, |p| p.display().to_string()))
    }
}

/// `MPI_Get_version`: the (major, minor) MPI standard version the library implements.
pub fn mpi_version() -> (i32, i32) {
    let (mut a, mut b) = (0, 0);
    check(
        unsafe { ffi::MPI_Get_version(&mut a, &mut b) },
        "MPI_Get_version",
    );
    (a, b)
}

/// `MPI_Get_processor_name`.
pub fn processor_name() -> String {
    let mut buf = vec![0u8; 1024];
    let mut len: c_int = 0;
    unsafe {
        check(
            ffi::MPI_Get_processor_name(buf.as_mut_ptr() as *mut _, &mut len),
            "MPI_Get_processor_name",
        );
    }
    String::from_utf8_lossy(&buf[..len.clamp(0, 1024) as usize]).into_owned()
}

/// `MPI_Abort(MPI_COMM_WORLD, code)`: ends every process of the job.
pub fn abort(code: i32) -> ! {
    unsafe {
        ffi::MPI_Abort(ffi::RSMPI_COMM_WORLD, code);
    }
    std::process::exit(code)
}

/// A request handle of a nonblocking operation.
pub type Request = ffi::MPI_Request;

pub fn request_null() -> Request {
    unsafe { ffi::RSMPI_REQUEST_NULL }
}

/// What the library holds for one pending operation beside its handle: a
/// request object (Open MPI 4.1's ob1 send and receive requests, about
/// 420 bytes each as measured with a window of 10^6 MPI_Isend of 8 bytes;
/// MPICH 4's smaller) and its queue entries. An estimate, rounded up.
pub const LIBRARY_REQUEST_BYTES: u64 = 512;

/// Bytes per rank of `n` operations pending at once (requests, or RMA
/// operations queued in one epoch): their handles and the library's own
/// objects, so that `--mem` bounds a window before anything is posted.
pub fn pending_bytes(n: usize) -> u64 {
    let handle = std::mem::size_of::<Request>() as u64;
    (n as u64).saturating_mul(handle + LIBRARY_REQUEST_BYTES)
}

/// `MPI_Waitall` ignoring statuses.
#[inline]
pub fn waitall(reqs: &mut [Request]) {
    check(
        unsafe {
            ffi::MPI_Waitall(
                reqs.len() as c_int,
                reqs.as_mut_ptr(),
                ffi::RSMPI_STATUSES_IGNORE,
            )
        },
        "MPI_Waitall",
    );
}

/// `MPI_Wait` ignoring the status.
#[inline]
pub fn wait(req: &mut Request) {
    check(
        unsafe { ffi::MPI_Wait(req, ffi::RSMPI_STATUS_IGNORE) },
        "MPI_Wait",
    );
}

/// Completes requests, sleeping 20 µs between `MPI_Testall` polls, so that a
/// waiting rank leaves the cores to ranks that are measuring (MPI libraries
/// busy-poll, which starves oversubscribed nodes).
pub fn wait_polite(reqs: &mut [Request]) {
    wait_sleeping(reqs, std::time::Duration::from_micros(20));
}

/// Completes requests, sleeping between `MPI_Testall` polls: first
/// [`FIRST_PAUSE`], doubling up to `pause`. A wait that ends soon (the
/// later rounds of a barrier, whose partners arrive together) ends within
/// a few microseconds of its partner, where a fixed pause made each round
/// cost up to `pause` (a barrier of 16 oversubscribed ranks 2 ms, the
/// agreements 1 of the 1.9 s of a tiny PMB run); a long wait (a rank
/// outside the group of a point) polls every `pause`, as before.
pub fn wait_sleeping(reqs: &mut [Request], pause: std::time::Duration) {
    let mut next = FIRST_PAUSE.min(pause);
    while !test::testall(reqs) {
        std::thread::sleep(next);
        next = (next * 2).min(pause);
    }
}

/// The first pause of [`wait_sleeping`].
const FIRST_PAUSE: std::time::Duration = std::time::Duration::from_micros(10);

/// A communicator with its rank and size cached. Owned communicators are
/// freed on drop; the world communicator is borrowed.
pub struct Comm {
    raw: ffi::MPI_Comm,
    pub rank: usize,
    pub size: usize,
    owned: bool,
}

impl Drop for Comm {
    fn drop(&mut self) {
        if self.owned {
            check_in_drop(
                unsafe { ffi::MPI_Comm_free(&mut self.raw) },
                "MPI_Comm_free",
            );
        }
    }
}

impl Comm {
    /// `MPI_COMM_WORLD`, switched to `MPI_ERRORS_RETURN` so that every error
    /// reaches [`check`].
    pub fn world() -> Comm {
        let raw = unsafe { ffi::RSMPI_COMM_WORLD };
        check(
            unsafe { ffi::MPI_Comm_set_errhandler(raw, ffi::RSMPI_ERRORS_RETURN) },
            "MPI_Comm_set_errhandler",
        );
        let c = Comm::wrap(raw, false);
        error::set_world_rank(c.rank);
        c
    }

    fn wrap(raw: ffi::MPI_Comm, owned: bool) -> Comm {
        let (mut r, mut s) = (0, 0);
        unsafe {
            check(ffi::MPI_Comm_rank(raw, &mut r), "MPI_Comm_rank");
            check(ffi::MPI_Comm_size(raw, &mut s), "MPI_Comm_size");
        }
        Comm {
            raw,
            rank: r as usize,
            size: s as usize,
            owned,
        }
    }

    /// The raw handle, for calls made elsewhere in `comm`.
    /// `MPI_TAG_UB`: the largest tag this communicator takes (at least 32767).
    pub fn tag_ub(&self) -> usize {
        unsafe { mpibench_tag_ub(self.raw) }.max(32767) as usize
    }

    pub fn raw(&self) -> ffi::MPI_Comm {
        self.raw
    }

    /// `MPI_Comm_split`; `None` colour means `MPI_UNDEFINED` (no new communicator).
    pub fn split(&self, color: Option<usize>, key: usize) -> Result<Option<Comm>, Error> {
        let c = match color {
            Some(c) => c as c_int,
            None => unsafe { ffi::RSMPI_UNDEFINED },
        };
        let mut out = unsafe { ffi::RSMPI_COMM_NULL };
        checked(
            unsafe { ffi::MPI_Comm_split(self.raw, c, key as c_int, &mut out) },
            "MPI_Comm_split",
        )?;
        Ok(color.map(|_| Comm::wrap(out, true)))
    }

    /// `MPI_Cart_create` of a periodic grid (no reordering).
    pub fn cart(&self, dims: &[usize]) -> Result<Comm, Error> {
        let d: Vec<c_int> = dims.iter().map(|&x| x as c_int).collect();
        let periods = vec![1 as c_int; d.len()];
        let mut out = unsafe { ffi::RSMPI_COMM_NULL };
        checked(
            unsafe {
                ffi::MPI_Cart_create(
                    self.raw,
                    d.len() as c_int,
                    d.as_ptr(),
                    periods.as_ptr(),
                    0,
                    &mut out,
                )
            },
            "MPI_Cart_create",
        )?;
        Ok(Comm::wrap(out, true))
    }

    /// `MPI_Cart_shift`: (source, destination) ranks along `dim` by `disp`.
    pub fn cart_shift(&self, dim: usize, disp: i32) -> Result<(usize, usize), Error> {
        let (mut src, mut dst) = (0, 0);
        checked(
            unsafe { ffi::MPI_Cart_shift(self.raw, dim as c_int, disp, &mut src, &mut dst) },
            "MPI_Cart_shift",
        )?;
        Ok((src as usize, dst as usize))
    }

    #[inline]
    pub fn barrier(&self) {
        check(unsafe { ffi::MPI_Barrier(self.raw) }, "MPI_Barrier");
    }

    #[inline]
    pub fn send(&self, buf: *const u8, m: &Msg, dest: usize, tag: i32) {
        let rc = if m.large != 0 {
            unsafe { mpibench_send_c(buf as *const c_void, m.large, dest as c_int, tag, self.raw) }
        } else {
            unsafe {
                ffi::MPI_Send(
                    buf as *const c_void,
                    m.count,
                    m.dt,
                    dest as c_int,
                    tag,
                    self.raw,
                )
            }
        };
        check(rc, "MPI_Send");
    }

    #[inline]
    pub fn recv(&self, buf: *mut u8, m: &Msg, src: usize, tag: i32) {
        let rc = if m.large != 0 {
            unsafe { mpibench_recv_c(buf as *mut c_void, m.large, src as c_int, tag, self.raw) }
        } else {
            unsafe {
                ffi::MPI_Recv(
                    buf as *mut c_void,
                    m.count,
                    m.dt,
                    src as c_int,
                    tag,
                    self.raw,
                    ffi::RSMPI_STATUS_IGNORE,
                )
            }
        };
        check(rc, "MPI_Recv");
    }

    #[inline]
    pub fn isend(&self, buf: *const u8, m: &Msg, dest: usize, tag: i32, req: &mut Request) {
        let rc = if m.large != 0 {
            unsafe {
                mpibench_isend_c(
                    buf as *const c_void,
                    m.large,
                    dest as c_int,
                    tag,
                    self.raw,
                    req,
                )
            }
        } else {
            unsafe {
                ffi::MPI_Isend(
                    buf as *const c_void,
                    m.count,
                    m.dt,
                    dest as c_int,
                    tag,
                    self.raw,
                    req,
                )
            }
        };
        check(rc, "MPI_Isend");
    }

    #[inline]
    pub fn irecv(&self, buf: *mut u8, m: &Msg, src: usize, tag: i32, req: &mut Request) {
        let rc = if m.large != 0 {
            unsafe {
                mpibench_irecv_c(
                    buf as *mut c_void,
                    m.large,
                    src as c_int,
                    tag,
                    self.raw,
                    req,
                )
            }
        } else {
            unsafe {
                ffi::MPI_Irecv(
                    buf as *mut c_void,
                    m.count,
                    m.dt,
                    src as c_int,
                    tag,
                    self.raw,
                    req,
                )
            }
        };
        check(rc, "MPI_Irecv");
    }

    #[inline]
    pub fn sendrecv(
        &self,
        sbuf: *const u8,
        m: &Msg,
        dest: usize,
        rbuf: *mut u8,
        src: usize,
        tag: i32,
    ) {
        let rc = if m.large != 0 {
            unsafe {
                mpibench_sendrecv_c(
                    sbuf as *const c_void,
                    m.large,
                    dest as c_int,
                    rbuf as *mut c_void,
                    src as c_int,
                    tag,
                    self.raw,
                )
            }
        } else {
            unsafe {
                ffi::MPI_Sendrecv(
                    sbuf as *const c_void,
                    m.count,
                    m.dt,
                    dest as c_int,
                    tag,
                    rbuf as *mut c_void,
                    m.count,
                    m.dt,
                    src as c_int,
                    tag,
                    self.raw,
                    ffi::RSMPI_STATUS_IGNORE,
                )
            }
        };
        check(rc, "MPI_Sendrecv");
    }

    /// MPI_Sendrecv_replace of `m` (beyond 2^31 - 1 bytes: one element of
    /// its derived type, as MPI_Sendrecv_replace has no `_c` form here).
    #[inline]
    pub fn sendrecv_replace(&self, buf: *mut u8, m: &Msg, dest: usize, src: usize, tag: i32) {
        let rc = unsafe {
            ffi::MPI_Sendrecv_replace(
                buf as *mut c_void,
                m.count,
                m.dt,
                dest as c_int,
                tag,
                src as c_int,
                tag,
                self.raw,
                ffi::RSMPI_STATUS_IGNORE,
            )
        };
        check(rc, "MPI_Sendrecv_replace");
    }

    #[inline]
    pub fn bcast(&self, buf: *mut u8, m: &Msg, root: usize) {
        let rc = if m.large != 0 {
            unsafe { mpibench_bcast_c(buf as *mut c_void, m.large, root as c_int, self.raw) }
        } else {
            unsafe { ffi::MPI_Bcast(buf as *mut c_void, m.count, m.dt, root as c_int, self.raw) }
        };
        check(rc, "MPI_Bcast");
    }

    /// `MPI_Gather` of `m` from every rank to `root`.
    #[inline]
    pub fn gather(&self, sbuf: *const u8, m: &Msg, rbuf: *mut u8, root: usize) {
        check(
            unsafe {
                ffi::MPI_Gather(
                    sbuf as *const c_void,
                    m.count,
                    m.dt,
                    rbuf as *mut c_void,
                    m.count,
                    m.dt,
                    root as c_int,
                    self.raw,
                )
            },
            "MPI_Gather",
        );
    }

    #[inline]
    pub fn allgather(&self, sbuf: *const u8, m: &Msg, rbuf: *mut u8) {
        check(
            unsafe {
                ffi::MPI_Allgather(
                    sbuf as *const c_void,
                    m.count,
                    m.dt,
                    rbuf as *mut c_void,
                    m.count,
                    m.dt,
                    self.raw,
                )
            },
            "MPI_Allgather",
        );
    }

    /// `MPI_Allgatherv` with counts and displacements in units of `unit`.
    #[inline]
    pub fn allgatherv(
        &self,
        sbuf: *const u8,
        m: &Msg,
        rbuf: *mut u8,
        counts: &[c_int],
        displs: &[c_int],
        unit: &Msg,
    ) {
        check(
            unsafe {
                ffi::MPI_Allgatherv(
                    sbuf as *const c_void,
                    m.count,
                    m.dt,
                    rbuf as *mut c_void,
                    counts.as_ptr(),
                    displs.as_ptr(),
                    unit.dt,
                    self.raw,
                )
            },
            "MPI_Allgatherv",
        );
    }

    #[inline]
    pub fn alltoall(&self, sbuf: *const u8, m: &Msg, rbuf: *mut u8) {
        check(
            unsafe {
                ffi::MPI_Alltoall(
                    sbuf as *const c_void,
                    m.count,
                    m.dt,
                    rbuf as *mut c_void,
                    m.count,
                    m.dt,
                    self.raw,
                )
            },
            "MPI_Alltoall",
        );
    }

    /// `MPI_Reduce` with `MPI_SUM` of `m` (typed elements).
    #[inline]
    pub fn reduce(&self, sbuf: *const u8, rbuf: *mut u8, m: &Msg, root: usize) {
        check(
            unsafe {
                ffi::MPI_Reduce(
                    sbuf as *const c_void,
                    rbuf as *mut c_void,
                    m.count,
                    m.dt,
                    m.sum_op(),
                    root as c_int,
                    self.raw,
                )
            },
            "MPI_Reduce",
        );
    }

    /// `MPI_Allreduce` with `MPI_SUM` of `m` (typed elements).
    #[inline]
    pub fn allreduce(&self, sbuf: *const u8, rbuf: *mut u8, m: &Msg) {
        check(
            unsafe {
                ffi::MPI_Allreduce(
                    sbuf as *const c_void,
                    rbuf as *mut c_void,
                    m.count,
                    m.dt,
                    m.sum_op(),
                    self.raw,
                )
            },
            "MPI_Allreduce",
        );
    }

    /// `MPI_Reduce_scatter` with `MPI_SUM`; `counts` elements of `m.dt` per rank.
    #[inline]
    pub fn reduce_scatter(&self, sbuf: *const u8, rbuf: *mut u8, counts: &[c_int], m: &Msg) {
        check(
            unsafe {
                ffi::MPI_Reduce_scatter(
                    sbuf as *const c_void,
                    rbuf as *mut c_void,
                    counts.as_ptr(),
                    m.dt,
                    m.sum_op(),
                    self.raw,
                )
            },
            "MPI_Reduce_scatter",
        );
    }

    // ------------------------------------------------------------------
    // Engine helpers (never inside a timed region).

    /// Maximum of one f64 over the communicator, on every rank.
    pub fn allreduce_max(&self, x: f64) -> f64 {
        let mut v = [x];
        self.allreduce_max_vec(&mut v);
        v[0]
    }

    fn allreduce_vec(&self, v: &mut [f64], op: ffi::MPI_Op) {
        if v.is_empty() {
            return;
        }
        check(
            unsafe {
                ffi::MPI_Allreduce(
                    mpibench_in_place(),
                    v.as_mut_ptr() as *mut c_void,
                    v.len() as c_int,
                    ffi::RSMPI_DOUBLE,
                    op,
                    self.raw,
                )
            },
            "MPI_Allreduce",
        );
    }

    /// Element-wise maximum over the communicator, in place, on every rank.
    pub fn allreduce_max_vec(&self, v: &mut [f64]) {
        self.allreduce_vec(v, unsafe { ffi::RSMPI_MAX });
    }

    /// Broadcasts one f64 from `root`.
    pub fn bcast_f64(&self, x: f64, root: usize) -> f64 {
        let mut v = x;
        check(
            unsafe {
                ffi::MPI_Bcast(
                    &mut v as *mut f64 as *mut c_void,
                    1,
                    ffi::RSMPI_DOUBLE,
                    root as c_int,
                    self.raw,
                )
            },
            "MPI_Bcast",
        );
        v
    }

    /// Broadcasts a byte vector of any length from `root`.
    pub fn bcast_vec(&self, data: &mut Vec<u8>, root: usize) {
        let mut len = data.len() as u64;
        check(
            unsafe {
                ffi::MPI_Bcast(
                    &mut len as *mut u64 as *mut c_void,
                    1,
                    ffi::RSMPI_UINT64_T,
                    root as c_int,
                    self.raw,
                )
            },
            "MPI_Bcast",
        );
        data.resize(len as usize, 0);
        // (A run's plan and names: the job cannot go on without them.)
        let m = Msg::bytes(data.len()).unwrap_or_else(|e| e.end_job());
        self.bcast(data.as_mut_ptr(), &m, root);
    }

    /// Gathers one byte string per rank to `root` (empty vector elsewhere).
    pub fn gather_bytes(&self, mine: &[u8], root: usize) -> Vec<Vec<u8>> {
        let lens = self.gather_f64(&[mine.len() as f64], root);
        let counts: Vec<c_int> = lens.iter().map(|&l| l as c_int).collect();
        let mut displs = Vec::with_capacity(counts.len());
        let mut acc: c_int = 0;
        for &c in &counts {
            displs.push(acc);
            acc += c;
        }
        let mut all = vec![0u8; acc.max(0) as usize];
        check(
            unsafe {
                ffi::MPI_Gatherv(
                    mine.as_ptr() as *const c_void,
                    mine.len() as c_int,
                    Elem::Byte.datatype(),
                    all.as_mut_ptr() as *mut c_void,
                    counts.as_ptr(),
                    displs.as_ptr(),
                    Elem::Byte.datatype(),
                    root as c_int,
                    self.raw,
                )
            },
            "MPI_Gatherv",
        );
        if self.rank != root {
            return Vec::new();
        }
        counts
            .iter()
            .zip(&displs)
            .map(|(&c, &d)| all[d as usize..(d + c) as usize].to_vec())
            .collect()
    }

    /// Gathers one string per rank to `root`.
    pub fn gather_strings(&self, s: &str, root: usize) -> Vec<String> {
        self.gather_bytes(s.as_bytes(), root)
            .into_iter()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .collect()
    }

    /// Gathers an equal-length f64 record from every rank to `root` (rank-major).
    pub fn gather_f64(&self, rec: &[f64], root: usize) -> Vec<f64> {
        let mut out = if self.rank == root {
            vec![0.0; rec.len() * self.size]
        } else {
            Vec::new()
        };
        let rptr = if self.rank == root {
            out.as_mut_ptr() as *mut c_void
        } else {
            ptr::null_mut()
        };
        check(
            unsafe {
                ffi::MPI_Gather(
                    rec.as_ptr() as *const c_void,
                    rec.len() as c_int,
                    ffi::RSMPI_DOUBLE,
                    rptr,
                    rec.len() as c_int,
                    ffi::RSMPI_DOUBLE,
                    root as c_int,
                    self.raw,
                )
            },
            "MPI_Gather",
        );
        out
    }

    /// Number of ranks sharing this rank's node (`MPI_Comm_split_type` shared).
    pub fn node_size(&self) -> usize {
        let mut out = unsafe { ffi::RSMPI_COMM_NULL };
        check(
            unsafe {
                ffi::MPI_Comm_split_type(
                    self.raw,
                    ffi::RSMPI_COMM_TYPE_SHARED,
                    self.rank as c_int,
                    ffi::RSMPI_INFO_NULL,
                    &mut out,
                )
            },
            "MPI_Comm_split_type",
        );
        Comm::wrap(out, true).size
    }

    /// Sends f64 values (clock exchanges).
    #[inline]
    pub fn send_f64(&self, v: &[f64], dest: usize, tag: i32) {
        let m = Msg::elems(Elem::Double, v.len()).expect("small");
        self.send(v.as_ptr() as *const u8, &m, dest, tag);
    }

    /// Receives f64 values (clock exchanges).
    #[inline]
    pub fn recv_f64(&self, v: &mut [f64], src: usize, tag: i32) {
        let m = Msg::elems(Elem::Double, v.len()).expect("small");
        self.recv(v.as_mut_ptr() as *mut u8, &m, src, tag);
    }

    /// Receives f64 values, sleeping between polls instead of spinning.
    pub fn recv_f64_polite(&self, v: &mut [f64], src: usize, tag: i32) {
        let m = Msg::elems(Elem::Double, v.len()).expect("small");
        let mut r = [request_null()];
        self.irecv(v.as_mut_ptr() as *mut u8, &m, src, tag, &mut r[0]);
        wait_polite(&mut r);
    }

    /// A barrier built from point-to-point messages only (the dissemination
    /// algorithm of Hensgen, Finkel and Manber): ceil(log2 n) rounds, in round
    /// k each rank signals rank + 2^k and waits for rank - 2^k. Its exit
    /// skew does not depend on the MPI library's barrier algorithm.
    pub fn dissemination_barrier(&self) {
        let zero = Msg::small(0);
        self.dissemination(|to, from| {
            let token = [0u8; 1];
            let mut got = [0u8; 1];
            self.sendrecv(
                token.as_ptr(),
                &zero,
                to,
                got.as_mut_ptr(),
                from,
                TAG_DISSEMINATION,
            );
        });
    }

    /// A dissemination barrier that sleeps while it waits (see `wait_polite`).
    pub fn polite_barrier(&self) {
        self.sleeping_barrier(std::time::Duration::from_micros(20));
    }

    /// A dissemination barrier that sleeps `pause` between polls: for ranks
    /// that wait a long time (outside the group of a benchmark), so that
    /// their wake-ups do not preempt the ranks that measure.
    pub fn sleeping_barrier(&self, pause: std::time::Duration) {
        let zero = Msg::small(0);
        self.dissemination(|to, from| {
            let token = [0u8; 1];
            let mut got = [0u8; 1];
            let mut r = [request_null(), request_null()];
            self.irecv(got.as_mut_ptr(), &zero, from, TAG_POLITE, &mut r[0]);
            self.isend(token.as_ptr(), &zero, to, TAG_POLITE, &mut r[1]);
            wait_sleeping(&mut r, pause);
        });
    }

    /// The rounds of a dissemination barrier: `signal(to, from)` for
    /// distances 1, 2, 4, ... < n.
    fn dissemination(&self, mut signal: impl FnMut(usize, usize)) {
        let n = self.size;
        let mut dist = 1;
        while dist < n {
            signal((self.rank + dist) % n, (self.rank + n - dist) % n);
            dist *= 2;
        }
    }
}

const TAG_DISSEMINATION: i32 = 0x5e;
const TAG_POLITE: i32 = 0x5f;

/// A datatype handle as the calls take it (not owned: whoever built it
/// frees it), for kernels that keep one per point or per rank.
pub type RawType = ffi::MPI_Datatype;
