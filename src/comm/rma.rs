//! MPI one-sided communication (RMA): owned windows, and the synchronisation
//! modes that map coarray synchronisation onto MPI.
//!
//! Two orthogonal choices, as in OSU's one-sided benchmarks (window kind ×
//! synchronisation mode), so that other one-sided suites reuse them:
//!
//! | `--window` | how the window is made |
//! |---|---|
//! | `create` (default) | `MPI_Win_create` over memory mpibench allocates |
//! | `allocate` | `MPI_Win_allocate` (the library allocates the memory) |
//! | `dynamic` | `MPI_Win_create_dynamic` + `MPI_Win_attach`; targets are addressed by the absolute addresses every rank publishes |
//!
//! | `--rma-sync` | epochs | sync all | sync images (list) |
//! |---|---|---|---|
//! | `lockall` (default, as OpenCoarrays) | one `MPI_Win_lock_all(MPI_MODE_NOCHECK)` epoch | `MPI_Win_flush_all`; `MPI_Barrier` | `MPI_Win_flush_all`; a zero-byte message to and from each listed image |
//! | `fence` | `MPI_Win_fence` | `MPI_Win_fence` | `MPI_Win_fence` (collective: every image takes part) |
//! | `pscw` | `MPI_Win_post` + `MPI_Win_start` | `complete`; `wait`; `post`/`start` with all other images | `MPI_Win_complete`; `MPI_Win_wait`; `MPI_Win_post(list)`; `MPI_Win_start(list)` |
//!
//! Every window gets `MPI_ERRORS_RETURN` and every return code goes through
//! [`check`]. Windows, groups and epochs are freed or closed on drop.

use std::ffi::{c_int, c_void};

use mpi::ffi;
use serde::{Deserialize, Serialize};

use super::error::check;
use super::{check_in_drop, checked, waitall, Buffer, Comm, Error, Msg, Request};

/// The OSU one-sided programs' calls (shared lock, flush_local, accumulates, atomics).
mod osu_calls;
mod passive;

extern "C" {
    fn mpibench_mpi_no_op() -> ffi::MPI_Op;
    fn mpibench_mode_nocheck() -> c_int;
    fn mpibench_lock_exclusive() -> c_int;
}

/// Tag of the zero-byte notifications of "sync images".
const TAG_SYNC_IMAGES: c_int = 0x7ca1;

/// How a window is made (`--window`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum WindowKind {
    /// MPI_Win_create over memory mpibench allocates.
    #[default]
    Create,
    /// MPI_Win_allocate: the library allocates the memory.
    Allocate,
    /// MPI_Win_create_dynamic + MPI_Win_attach.
    Dynamic,
}

impl WindowKind {
    pub const ALL: [WindowKind; 3] = [
        WindowKind::Create,
        WindowKind::Allocate,
        WindowKind::Dynamic,
    ];

    pub fn name(self) -> &'static str {
        match self {
            WindowKind::Create => "create",
            WindowKind::Allocate => "allocate",
            WindowKind::Dynamic => "dynamic",
        }
    }

    /// The MPI call that makes it.
    pub fn call(self) -> &'static str {
        match self {
            WindowKind::Create => "MPI_Win_create",
            WindowKind::Allocate => "MPI_Win_allocate",
            WindowKind::Dynamic => "MPI_Win_create_dynamic + MPI_Win_attach",
        }
    }

    pub fn from_name(s: &str) -> Option<WindowKind> {
        WindowKind::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// How RMA epochs are synchronised (`--rma-sync`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum RmaSync {
    /// One passive-target epoch (MPI_Win_lock_all); flush, then barrier or messages.
    #[default]
    Lockall,
    /// Active target, collective: MPI_Win_fence.
    Fence,
    /// Active target, generalised: MPI_Win_post/start/complete/wait.
    Pscw,
}

impl RmaSync {
    pub const ALL: [RmaSync; 3] = [RmaSync::Lockall, RmaSync::Fence, RmaSync::Pscw];

    pub fn name(self) -> &'static str {
        match self {
            RmaSync::Lockall => "lockall",
            RmaSync::Fence => "fence",
            RmaSync::Pscw => "pscw",
        }
    }

    pub fn from_name(s: &str) -> Option<RmaSync> {
        RmaSync::ALL.into_iter().find(|k| k.name() == s)
    }

    /// Every synchronisation is collective over the window's group, so
    /// images outside a pair take part in "sync images" too.
    pub fn collective(self) -> bool {
        self == RmaSync::Fence
    }

    /// The MPI calls of "sync all" and of "sync images", for tables and docs/suites/caf.md.
    pub fn mapping(self) -> (&'static str, &'static str) {
        match self {
            RmaSync::Lockall => (
                "MPI_Win_flush_all + MPI_Barrier in an MPI_Win_lock_all epoch",
                "MPI_Win_flush_all + a zero-byte message to and from each image",
            ),
            RmaSync::Fence => ("MPI_Win_fence", "MPI_Win_fence (collective)"),
            RmaSync::Pscw => (
                "MPI_Win_complete/wait + MPI_Win_post/start with all other images",
                "MPI_Win_complete/wait + MPI_Win_post/start with the listed images",
            ),
        }
    }
}

/// An owned, committed derived datatype (freed on drop): the strided
/// patterns of one-sided transfers.
pub struct Datatype {
    raw: ffi::MPI_Datatype,
}

impl Datatype {
    /// `MPI_Type_vector`: `count` blocks of `len` elements of `old`, `stride` elements apart.
    pub fn vector(
        count: usize,
        len: usize,
        stride: usize,
        old: ffi::MPI_Datatype,
    ) -> Result<Datatype, Error> {
        let mut raw = unsafe { ffi::RSMPI_DATATYPE_NULL };
        checked(
            unsafe {
                ffi::MPI_Type_vector(count as c_int, len as c_int, stride as c_int, old, &mut raw)
            },
            "MPI_Type_vector",
        )?;
        Datatype::commit(raw)
    }

    /// `MPI_Type_create_hvector`: as `vector`, with the stride in bytes.
    pub fn hvector(
        count: usize,
        len: usize,
        stride_bytes: usize,
        old: &Datatype,
    ) -> Result<Datatype, Error> {
        let mut raw = unsafe { ffi::RSMPI_DATATYPE_NULL };
        checked(
            unsafe {
                ffi::MPI_Type_create_hvector(
                    count as c_int,
                    len as c_int,
                    stride_bytes as ffi::MPI_Aint,
                    old.raw,
                    &mut raw,
                )
            },
            "MPI_Type_create_hvector",
        )?;
        Datatype::commit(raw)
    }

    fn commit(mut raw: ffi::MPI_Datatype) -> Result<Datatype, Error> {
        checked(unsafe { ffi::MPI_Type_commit(&mut raw) }, "MPI_Type_commit")?;
        Ok(Datatype { raw })
    }

    pub fn raw(&self) -> ffi::MPI_Datatype {
        self.raw
    }
}

impl Drop for Datatype {
    fn drop(&mut self) {
        check_in_drop(
            unsafe { ffi::MPI_Type_free(&mut self.raw) },
            "MPI_Type_free",
        );
    }
}

/// An owned MPI group (freed on drop).
pub struct Group {
    raw: ffi::MPI_Group,
    len: usize,
}

impl Group {
    /// The ranks `ranks` of `comm` (`MPI_Comm_group` + `MPI_Group_incl`).
    pub fn of(comm: &Comm, ranks: &[usize]) -> Result<Group, Error> {
        let mut all = unsafe { ffi::RSMPI_GROUP_NULL };
        let mut raw = unsafe { ffi::RSMPI_GROUP_NULL };
        let r: Vec<c_int> = ranks.iter().map(|&x| x as c_int).collect();
        unsafe {
            checked(ffi::MPI_Comm_group(comm.raw(), &mut all), "MPI_Comm_group")?;
            checked(
                ffi::MPI_Group_incl(all, r.len() as c_int, r.as_ptr(), &mut raw),
                "MPI_Group_incl",
            )?;
            checked(ffi::MPI_Group_free(&mut all), "MPI_Group_free")?;
        }
        Ok(Group {
            raw,
            len: ranks.len(),
        })
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        check_in_drop(
            unsafe { ffi::MPI_Group_free(&mut self.raw) },
            "MPI_Group_free",
        );
    }
}

/// IMB-EXT's Window: MPI_Win_create over `len` bytes at `mem` (displacement
/// unit 1) on `comm`, MPI_Win_fence, an MPI_Put of one byte of `src` to
/// this rank's own window when `len` > 0, MPI_Win_fence, MPI_Win_free:
/// nothing else, for a clock pair around it.
#[inline(always)]
pub fn window_cycle(comm: &Comm, mem: *mut u8, len: usize, src: *const u8) {
    let mut raw = unsafe { ffi::RSMPI_WIN_NULL };
    let byte = super::Elem::Byte.datatype();
    unsafe {
        check(
            ffi::MPI_Win_create(
                mem as *mut c_void,
                len as ffi::MPI_Aint,
                1,
                ffi::RSMPI_INFO_NULL,
                comm.raw(),
                &mut raw,
            ),
            "MPI_Win_create",
        );
        check(ffi::MPI_Win_fence(0, raw), "MPI_Win_fence");
        if len > 0 {
            check(
                ffi::MPI_Put(
                    src as *const c_void,
                    1,
                    byte,
                    comm.rank as c_int,
                    0,
                    1,
                    byte,
                    raw,
                ),
                "MPI_Put",
            );
        }
        check(ffi::MPI_Win_fence(0, raw), "MPI_Win_fence");
        check(ffi::MPI_Win_free(&mut raw), "MPI_Win_free");
    }
}

/// An owned window over `len` bytes of this rank (freed on drop), with
/// `MPI_ERRORS_RETURN`. Displacements are in bytes (disp_unit 1) from the
/// start of the target's memory, whatever the kind.
pub struct Window {
    raw: ffi::MPI_Win,
    kind: WindowKind,
    base: *mut u8,
    len: usize,
    /// The memory of `create` and `dynamic` windows (MPI owns `allocate`'s).
    mem: Option<Buffer>,
    /// Target displacement of byte 0 of each rank's memory: its absolute
    /// address for dynamic windows, 0 otherwise.
    bases: Vec<ffi::MPI_Aint>,
}

impl Window {
    /// Collective over `comm`: a window of `len` bytes on this rank, zeroed.
    /// Fails (without MPI calls, so that the ranks can agree first) only when
    /// this rank cannot allocate the memory.
    pub fn new(comm: &Comm, kind: WindowKind, len: usize) -> Result<Window, Error> {
        let mut raw = unsafe { ffi::RSMPI_WIN_NULL };
        let info = unsafe { ffi::RSMPI_INFO_NULL };
        let size = len as ffi::MPI_Aint;
        let mut mem = None;
        let base: *mut u8;
        // Every rank learns whether every rank has its memory before any
        // collective window call, so that a failed allocation never hangs.
        let own = match kind {
            WindowKind::Allocate => Ok(None),
            _ => Buffer::try_new(len)
                .map(Some)
                .map_err(|e| Error::Local(format!("cannot allocate a window of {len} bytes: {e}"))),
        };
        let failed = comm.allreduce_max(if own.is_err() { 1.0 } else { 0.0 }) > 0.0;
        let own = own?;
        if failed {
            return Err(Error::Local(
                "another rank could not allocate its window".to_string(),
            ));
        }
        match kind {
            WindowKind::Create | WindowKind::Dynamic => {
                let mut b = own.expect("allocated above");
                base = b.mut_ptr();
                mem = Some(b);
                if kind == WindowKind::Create {
                    checked(
                        unsafe {
                            ffi::MPI_Win_create(
                                base as *mut c_void,
                                size,
                                1,
                                info,
                                comm.raw(),
                                &mut raw,
                            )
                        },
                        "MPI_Win_create",
                    )?;
                } else {
                    checked(
                        unsafe { ffi::MPI_Win_create_dynamic(info, comm.raw(), &mut raw) },
                        "MPI_Win_create_dynamic",
                    )?;
                }
            }
            WindowKind::Allocate => {
                let mut p: *mut u8 = std::ptr::null_mut();
                checked(
                    unsafe {
                        ffi::MPI_Win_allocate(
                            size,
                            1,
                            info,
                            comm.raw(),
                            &mut p as *mut *mut u8 as *mut c_void,
                            &mut raw,
                        )
                    },
                    "MPI_Win_allocate",
                )?;
                base = p;
            }
        }
        checked(
            unsafe { ffi::MPI_Win_set_errhandler(raw, ffi::RSMPI_ERRORS_RETURN) },
            "MPI_Win_set_errhandler",
        )?;
        let mut w = Window {
            raw,
            kind,
            base,
            len,
            mem,
            bases: vec![0; comm.size],
        };
        if kind == WindowKind::Dynamic {
            checked(
                unsafe { ffi::MPI_Win_attach(raw, base as *mut c_void, size) },
                "MPI_Win_attach",
            )?;
            let mut addr: ffi::MPI_Aint = 0;
            checked(
                unsafe { ffi::MPI_Get_address(base as *const c_void, &mut addr) },
                "MPI_Get_address",
            )?;
            w.bases = allgather_aint(comm, addr)?;
        }
        if len > 0 {
            // SAFETY: `base` points to `len` bytes this rank owns (ours or MPI's).
            unsafe { std::ptr::write_bytes(w.base, 0, len) };
        }
        Ok(w)
    }

    pub fn kind(&self) -> WindowKind {
        self.kind
    }

    /// Zeroes the first `n` bytes of this rank's window memory (local).
    pub fn zero(&mut self, n: usize) {
        let n = n.min(self.len);
        if n > 0 {
            // SAFETY: `base` points to `len` bytes this rank owns.
            unsafe { std::ptr::write_bytes(self.base, 0, n) };
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// This rank's window memory as doubles.
    pub fn f64s(&self) -> &[f64] {
        // SAFETY: the memory is 8-byte aligned (Buffer or MPI_Alloc_mem) and holds `len` bytes.
        unsafe { std::slice::from_raw_parts(self.base as *const f64, self.len / 8) }
    }

    pub fn f64s_mut(&mut self) -> &mut [f64] {
        unsafe { std::slice::from_raw_parts_mut(self.base as *mut f64, self.len / 8) }
    }

    pub fn base(&self) -> *mut u8 {
        self.base
    }

    /// This rank's window memory, for local reads between epochs.
    pub fn bytes(&self) -> &[u8] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: `base` points to `len` bytes this rank owns.
        unsafe { std::slice::from_raw_parts(self.base, self.len) }
    }

    /// This rank's window memory, for local writes between epochs.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        if self.len == 0 {
            return &mut [];
        }
        // SAFETY: as `bytes`, and `&mut self` excludes other local access.
        unsafe { std::slice::from_raw_parts_mut(self.base, self.len) }
    }

    /// The target displacement of byte `off` of `target`'s memory.
    #[inline(always)]
    fn disp(&self, target: usize, off: usize) -> ffi::MPI_Aint {
        self.bases[target] + off as ffi::MPI_Aint
    }

    /// `MPI_Put` of `n` × `dt` from `origin` to byte `off` of `target`'s window, as `n` × `dt` there.
    #[inline(always)]
    pub fn put(
        &self,
        origin: *const u8,
        n: c_int,
        dt: ffi::MPI_Datatype,
        target: usize,
        off: usize,
    ) {
        check(
            unsafe {
                ffi::MPI_Put(
                    origin as *const c_void,
                    n,
                    dt,
                    target as c_int,
                    self.disp(target, off),
                    n,
                    dt,
                    self.raw,
                )
            },
            "MPI_Put",
        );
    }

    /// `MPI_Get` of `n` × `dt` at byte `off` of `target`'s window into `origin`.
    #[inline(always)]
    pub fn get(&self, origin: *mut u8, n: c_int, dt: ffi::MPI_Datatype, target: usize, off: usize) {
        check(
            unsafe {
                ffi::MPI_Get(
                    origin as *mut c_void,
                    n,
                    dt,
                    target as c_int,
                    self.disp(target, off),
                    n,
                    dt,
                    self.raw,
                )
            },
            "MPI_Get",
        );
    }

    pub fn lock_all(&self) {
        check(
            unsafe { ffi::MPI_Win_lock_all(mpibench_mode_nocheck(), self.raw) },
            "MPI_Win_lock_all",
        );
    }

    pub fn unlock_all(&self) {
        check(
            unsafe { ffi::MPI_Win_unlock_all(self.raw) },
            "MPI_Win_unlock_all",
        );
    }

    /// An exclusive lock of `target`'s window (`MPI_Win_lock`).
    pub fn lock_exclusive(&self, target: usize) {
        check(
            unsafe { ffi::MPI_Win_lock(mpibench_lock_exclusive(), target as c_int, 0, self.raw) },
            "MPI_Win_lock",
        );
    }

    pub fn unlock(&self, target: usize) {
        check(
            unsafe { ffi::MPI_Win_unlock(target as c_int, self.raw) },
            "MPI_Win_unlock",
        );
    }

    #[inline(always)]
    pub fn flush_all(&self) {
        check(
            unsafe { ffi::MPI_Win_flush_all(self.raw) },
            "MPI_Win_flush_all",
        );
    }

    #[inline(always)]
    pub fn flush(&self, target: usize) {
        check(
            unsafe { ffi::MPI_Win_flush(target as c_int, self.raw) },
            "MPI_Win_flush",
        );
    }

    /// `MPI_Win_sync`: the public and private copies of this rank's window agree.
    pub fn sync(&self) {
        check(unsafe { ffi::MPI_Win_sync(self.raw) }, "MPI_Win_sync");
    }

    #[inline(always)]
    pub fn fence(&self) {
        check(unsafe { ffi::MPI_Win_fence(0, self.raw) }, "MPI_Win_fence");
    }

    #[inline(always)]
    pub fn post(&self, g: &Group) {
        check(
            unsafe { ffi::MPI_Win_post(g.raw, 0, self.raw) },
            "MPI_Win_post",
        );
    }

    #[inline(always)]
    pub fn start(&self, g: &Group) {
        check(
            unsafe { ffi::MPI_Win_start(g.raw, 0, self.raw) },
            "MPI_Win_start",
        );
    }

    #[inline(always)]
    pub fn complete(&self) {
        check(
            unsafe { ffi::MPI_Win_complete(self.raw) },
            "MPI_Win_complete",
        );
    }

    #[inline(always)]
    pub fn wait(&self) {
        check(unsafe { ffi::MPI_Win_wait(self.raw) }, "MPI_Win_wait");
    }

    /// `MPI_Compare_and_swap` of one 32-bit integer at byte `off` of `target`,
    /// completed by `MPI_Win_flush`: writes `new` there if it holds
    /// `compare`; returns what it held. Needs a passive-target epoch.
    /// (32-bit: Open MPI 4.1.4's osc/rdma over btl/vader segfaults in the
    /// 64-bit compare-and-swap, in any epoch and window kind.)
    #[inline(always)]
    pub fn compare_and_swap(&self, new: i32, compare: i32, target: usize, off: usize) -> i32 {
        let mut old: i32 = 0;
        check(
            unsafe {
                ffi::MPI_Compare_and_swap(
                    &new as *const i32 as *const c_void,
                    &compare as *const i32 as *const c_void,
                    &mut old as *mut i32 as *mut c_void,
                    ffi::RSMPI_INT32_T,
                    target as c_int,
                    self.disp(target, off),
                    self.raw,
                )
            },
            "MPI_Compare_and_swap",
        );
        self.flush(target);
        old
    }

    /// `MPI_Fetch_and_op` with `MPI_NO_OP`, completed by `MPI_Win_flush`:
    /// reads one 32-bit integer at byte `off` of `target`.
    #[inline(always)]
    pub fn fetch(&self, target: usize, off: usize) -> i32 {
        let mut got: i32 = 0;
        let unused: i32 = 0;
        check(
            unsafe {
                ffi::MPI_Fetch_and_op(
                    &unused as *const i32 as *const c_void,
                    &mut got as *mut i32 as *mut c_void,
                    ffi::RSMPI_INT32_T,
                    target as c_int,
                    self.disp(target, off),
                    mpibench_mpi_no_op(),
                    self.raw,
                )
            },
            "MPI_Fetch_and_op",
        );
        self.flush(target);
        got
    }
}

impl Drop for Window {
    fn drop(&mut self) {
        if self.kind == WindowKind::Dynamic {
            check_in_drop(
                unsafe { ffi::MPI_Win_detach(self.raw, self.base as *const c_void) },
                "MPI_Win_detach",
            );
        }
        check_in_drop(unsafe { ffi::MPI_Win_free(&mut self.raw) }, "MPI_Win_free");
        // `mem` (create, dynamic) is freed after the window that exposed it.
        drop(self.mem.take());
    }
}

/// `MPI_Allgather` of one address per rank.
fn allgather_aint(comm: &Comm, mine: ffi::MPI_Aint) -> Result<Vec<ffi::MPI_Aint>, Error> {
    const _: () = assert!(std::mem::size_of::<ffi::MPI_Aint>() == 8);
    let mut all: Vec<ffi::MPI_Aint> = vec![0; comm.size];
    checked(
        unsafe {
            ffi::MPI_Allgather(
                &mine as *const ffi::MPI_Aint as *const c_void,
                1,
                ffi::RSMPI_INT64_T,
                all.as_mut_ptr() as *mut c_void,
                1,
                ffi::RSMPI_INT64_T,
                comm.raw(),
            )
        },
        "MPI_Allgather",
    )?;
    Ok(all)
}

/// The images one "sync images" names, resolved once: the distinct other
/// ranks that are notified, and for PSCW the group of every rank this
/// image's transfers touch (which may include itself).
pub struct Images {
    ranks: Vec<usize>,
    group: Group,
    reqs: Vec<Request>,
    zero: Msg,
    token: [u8; 1],
    sink: Vec<u8>,
}

impl Images {
    /// `ranks`: the images to synchronise with (duplicates and this rank are
    /// dropped for the notifications); `targets`: every rank this image's
    /// transfers in the epoch touch (PSCW's group), at least `ranks`.
    pub fn new(comm: &Comm, ranks: &[usize], targets: &[usize]) -> Result<Images, Error> {
        let mut r: Vec<usize> = ranks.iter().copied().filter(|&x| x != comm.rank).collect();
        r.sort_unstable();
        r.dedup();
        let mut g: Vec<usize> = targets.iter().chain(&r).copied().collect();
        g.sort_unstable();
        g.dedup();
        Ok(Images {
            group: Group::of(comm, &g)?,
            reqs: vec![super::request_null(); 2 * r.len()],
            sink: vec![0; r.len().max(1)],
            ranks: r,
            zero: Msg::small(0),
            token: [0],
        })
    }

    /// A zero-byte message to and from each image.
    #[inline(always)]
    fn notify(&mut self, comm: &Comm) {
        let n = self.ranks.len();
        for (i, &j) in self.ranks.iter().enumerate() {
            comm.irecv(
                self.sink[i..].as_mut_ptr(),
                &self.zero,
                j,
                TAG_SYNC_IMAGES,
                &mut self.reqs[i],
            );
        }
        for (i, &j) in self.ranks.iter().enumerate() {
            comm.isend(
                self.token.as_ptr(),
                &self.zero,
                j,
                TAG_SYNC_IMAGES,
                &mut self.reqs[n + i],
            );
        }
        waitall(&mut self.reqs);
    }
}

/// A coarray: a window, and its epochs synchronised as `--rma-sync` says.
/// "sync all" and "sync images" are the coarray statements; the epochs
/// they need are opened by [`Coarray::open`] and closed on drop.
pub struct Coarray<'a> {
    pub win: &'a mut Window,
    comm: &'a Comm,
    mode: RmaSync,
    /// Every other image (PSCW's sync all).
    all: Images,
    /// A PSCW access and exposure epoch is open.
    pscw_open: bool,
    opened: bool,
}

impl<'a> Coarray<'a> {
    /// A coarray on `win` (a window of `comm`), no epoch open yet.
    pub fn new(comm: &'a Comm, win: &'a mut Window, mode: RmaSync) -> Result<Coarray<'a>, Error> {
        let others: Vec<usize> = (0..comm.size).collect();
        Ok(Coarray {
            win,
            comm,
            mode,
            all: Images::new(comm, &others, &others)?,
            pscw_open: false,
            opened: false,
        })
    }

    /// The images of a "sync images" on this coarray.
    pub fn images(&self, ranks: &[usize], targets: &[usize]) -> Result<Images, Error> {
        Images::new(self.comm, ranks, targets)
    }

    /// Every other image, for transfers under "sync all".
    pub fn everyone(&self) -> Result<Images, Error> {
        let all: Vec<usize> = (0..self.comm.size).collect();
        Images::new(self.comm, &all, &all)
    }

    /// Collective: opens the epochs in which the first transfers run;
    /// `first` are the images the transfers before the first
    /// synchronisation touch (PSCW only).
    pub fn open(&mut self, first: &Images) {
        match self.mode {
            RmaSync::Lockall => self.win.lock_all(),
            RmaSync::Fence => self.win.fence(),
            RmaSync::Pscw => pscw_begin(self.win, &mut self.pscw_open, first),
        }
        self.opened = true;
    }

    /// "sync all": every image of the coarray.
    #[inline(always)]
    pub fn sync_all(&mut self) {
        match self.mode {
            RmaSync::Lockall => {
                self.win.flush_all();
                self.comm.barrier();
            }
            RmaSync::Fence => self.win.fence(),
            RmaSync::Pscw => {
                pscw_end(self.win, &mut self.pscw_open);
                pscw_begin(self.win, &mut self.pscw_open, &self.all);
            }
        }
    }

    /// "sync images(list)". Under `fence` every image of the coarray must
    /// call it (a fence is collective).
    #[inline(always)]
    pub fn sync_images(&mut self, images: &mut Images) {
        match self.mode {
            RmaSync::Lockall => {
                self.win.flush_all();
                images.notify(self.comm);
            }
            RmaSync::Fence => self.win.fence(),
            RmaSync::Pscw => {
                pscw_end(self.win, &mut self.pscw_open);
                pscw_begin(self.win, &mut self.pscw_open, images);
            }
        }
    }

    /// Collective, untimed: after local stores into the window (validation
    /// patterns), makes them visible and keeps every partner's next transfer
    /// behind them: MPI_Win_sync + MPI_Barrier (lockall), MPI_Win_fence
    /// (fence), MPI_Barrier (pscw).
    pub fn settle(&mut self) {
        match self.mode {
            RmaSync::Lockall => {
                self.win.sync();
                self.comm.barrier();
            }
            RmaSync::Fence => self.win.fence(),
            RmaSync::Pscw => self.comm.barrier(),
        }
    }

    /// Untimed: before local loads of data that remote transfers wrote.
    pub fn refresh(&self) {
        if self.mode == RmaSync::Lockall {
            self.win.sync();
        }
    }
}

/// Opens a PSCW exposure and access epoch with the group of `g` (none when it is empty).
#[inline(always)]
fn pscw_begin(win: &Window, open: &mut bool, g: &Images) {
    if !g.group.is_empty() {
        win.post(&g.group);
        win.start(&g.group);
        *open = true;
    }
}

/// Closes the open PSCW epochs: MPI_Win_complete, then MPI_Win_wait.
#[inline(always)]
fn pscw_end(win: &Window, open: &mut bool) {
    if *open {
        win.complete();
        win.wait();
        *open = false;
    }
}

impl Drop for Coarray<'_> {
    fn drop(&mut self) {
        if !self.opened {
            return;
        }
        match self.mode {
            RmaSync::Lockall => self.win.unlock_all(),
            RmaSync::Fence => self.win.fence(),
            RmaSync::Pscw => pscw_end(self.win, &mut self.pscw_open),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for k in WindowKind::ALL {
            assert_eq!(WindowKind::from_name(k.name()), Some(k));
            assert_eq!(
                serde_json::to_string(&k).unwrap(),
                format!("\"{}\"", k.name())
            );
        }
        for s in RmaSync::ALL {
            assert_eq!(RmaSync::from_name(s.name()), Some(s));
            assert_eq!(
                serde_json::to_string(&s).unwrap(),
                format!("\"{}\"", s.name())
            );
        }
        assert!(RmaSync::Fence.collective());
        assert!(!RmaSync::Pscw.collective());
        assert_eq!(WindowKind::default(), WindowKind::Create);
        assert_eq!(RmaSync::default(), RmaSync::Lockall);
    }
}
