//! MPI-IO (rsmpi has none): files opened collectively over a communicator
//! or alone (`MPI_COMM_SELF`), their views, sizes and hints, and the
//! reads and writes of the four kinds of positioning (individual file
//! pointers, explicit offsets, the shared file pointer; private files are
//! individual pointers on `MPI_COMM_SELF`), blocking and non-blocking
//! (`MPI_File_iwrite` ... and the split collectives `_begin`/`_end`),
//! independent and collective.
//!
//! Files return errors from their setup calls (open, view, size, close,
//! delete: `Result<_, Error>` with the library's own error string, since
//! the default error handler of files is `MPI_ERRORS_RETURN`), and end the
//! job on a failed read, write or sync of a timed loop ([`check`]).

use std::ffi::{c_char, c_int, c_void, CString};

use mpi::ffi;

use super::error::check;
use super::{check_in_drop, checked, Comm, Error, Request};

/// How a file is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Amode {
    /// `MPI_MODE_CREATE | MPI_MODE_RDWR` (a file the group shares).
    CreateRdwr,
    /// `... | MPI_MODE_UNIQUE_OPEN` (a private file no other process opens).
    CreateRdwrUnique,
}

impl Amode {
    fn raw(self) -> c_int {
        let base = (ffi::MPI_MODE_CREATE | ffi::MPI_MODE_RDWR) as c_int;
        match self {
            Amode::CreateRdwr => base,
            Amode::CreateRdwrUnique => base | ffi::MPI_MODE_UNIQUE_OPEN as c_int,
        }
    }
}

/// Where a read or write goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Positioning {
    /// The individual file pointer (`MPI_File_write`, `_all`).
    Individual,
    /// An explicit offset (`MPI_File_write_at`, `_at_all`).
    Explicit,
    /// The shared file pointer (`MPI_File_write_shared`, `_ordered`).
    Shared,
}

/// The MPI-IO hints of an open (`MPI_Info`), freed on drop.
struct Hints {
    raw: ffi::MPI_Info,
}

impl Hints {
    fn new(pairs: &[(String, String)]) -> Result<Hints, Error> {
        if pairs.is_empty() {
            return Ok(Hints {
                raw: unsafe { ffi::RSMPI_INFO_NULL },
            });
        }
        let mut raw = unsafe { ffi::RSMPI_INFO_NULL };
        checked(unsafe { ffi::MPI_Info_create(&mut raw) }, "MPI_Info_create")?;
        let h = Hints { raw };
        for (k, v) in pairs {
            let (k, v) = (cstring(k)?, cstring(v)?);
            checked(
                unsafe { ffi::MPI_Info_set(h.raw, k.as_ptr(), v.as_ptr()) },
                "MPI_Info_set",
            )?;
        }
        Ok(h)
    }
}

impl Drop for Hints {
    fn drop(&mut self) {
        if self.raw != unsafe { ffi::RSMPI_INFO_NULL } {
            check_in_drop(
                unsafe { ffi::MPI_Info_free(&mut self.raw) },
                "MPI_Info_free",
            );
        }
    }
}

fn cstring(s: &str) -> Result<CString, Error> {
    CString::new(s).map_err(|_| Error::Local(format!("'{s}' holds a NUL byte")))
}

/// An open file, closed on drop.
pub struct File {
    raw: ffi::MPI_File,
    /// The file view's type, freed on drop.
    view: Option<ffi::MPI_Datatype>,
}

/// `MPI_File_open` of `path` over `comm` (collective; `None`: this
/// process alone, `MPI_COMM_SELF`) with `hints`.
pub fn open(
    comm: Option<&Comm>,
    path: &str,
    amode: Amode,
    hints: &[(String, String)],
) -> Result<File, Error> {
    Opener::new(path, amode, hints)?.open(comm)
}

/// What an open needs, made once (the path as a C string, the hints'
/// `MPI_Info`), for a loop of opens (IMB-IO's Open_Close) that makes
/// nothing but the open call.
pub struct Opener {
    path: CString,
    amode: Amode,
    info: Hints,
}

impl Opener {
    pub fn new(path: &str, amode: Amode, hints: &[(String, String)]) -> Result<Opener, Error> {
        Ok(Opener {
            path: cstring(path)?,
            amode,
            info: Hints::new(hints)?,
        })
    }

    /// `MPI_File_open` over `comm` (as [`open`]).
    #[inline(always)]
    pub fn open(&self, comm: Option<&Comm>) -> Result<File, Error> {
        let raw_comm = comm.map_or(unsafe { ffi::RSMPI_COMM_SELF }, Comm::raw);
        let mut raw = unsafe { ffi::RSMPI_FILE_NULL };
        checked(
            unsafe {
                ffi::MPI_File_open(
                    raw_comm,
                    self.path.as_ptr(),
                    self.amode.raw(),
                    self.info.raw,
                    &mut raw,
                )
            },
            "MPI_File_open",
        )?;
        Ok(File { raw, view: None })
    }
}

/// `MPI_File_delete` of `path` (no hints).
pub fn delete(path: &str) -> Result<(), Error> {
    let c = cstring(path)?;
    checked(
        unsafe { ffi::MPI_File_delete(c.as_ptr(), ffi::RSMPI_INFO_NULL) },
        "MPI_File_delete",
    )
}

/// The byte type every view of this module reads and writes.
fn byte() -> ffi::MPI_Datatype {
    unsafe { ffi::RSMPI_UINT8_T }
}

impl File {
    /// `MPI_File_set_view` at displacement 0 over bytes ("native"): the
    /// whole file, or (`block = Some((first, len, period))`) the `len`
    /// bytes from `first` of every `period` bytes (a resized subarray),
    /// where this process's individual file pointer moves.
    pub fn set_view(&mut self, block: Option<(usize, usize, usize)>) -> Result<(), Error> {
        let mut filetype = byte();
        if let Some((first, len, period)) = block.filter(|b| b.1 > 0) {
            let ty = block_type(first, len, period)?;
            filetype = ty;
            self.free_view();
            self.view = Some(ty);
        }
        let rep = cstring("native")?;
        checked(
            unsafe {
                ffi::MPI_File_set_view(
                    self.raw,
                    0,
                    byte(),
                    filetype,
                    rep.as_ptr(),
                    ffi::RSMPI_INFO_NULL,
                )
            },
            "MPI_File_set_view",
        )
    }

    fn free_view(&mut self) {
        if let Some(mut t) = self.view.take() {
            check_in_drop(unsafe { ffi::MPI_Type_free(&mut t) }, "MPI_Type_free");
        }
    }

    /// The hints the library took (`MPI_File_get_info`), key by key.
    pub fn hints(&self) -> Result<Vec<(String, String)>, Error> {
        let mut info = unsafe { ffi::RSMPI_INFO_NULL };
        checked(
            unsafe { ffi::MPI_File_get_info(self.raw, &mut info) },
            "MPI_File_get_info",
        )?;
        let h = Hints { raw: info };
        let mut n: c_int = 0;
        checked(
            unsafe { ffi::MPI_Info_get_nkeys(h.raw, &mut n) },
            "MPI_Info_get_nkeys",
        )?;
        let mut out = Vec::new();
        for i in 0..n {
            let mut key = [0 as c_char; ffi::MPI_MAX_INFO_KEY as usize + 1];
            checked(
                unsafe { ffi::MPI_Info_get_nthkey(h.raw, i, key.as_mut_ptr()) },
                "MPI_Info_get_nthkey",
            )?;
            let mut val = vec![0 as c_char; ffi::MPI_MAX_INFO_VAL as usize + 1];
            let mut flag: c_int = 0;
            checked(
                unsafe {
                    ffi::MPI_Info_get(
                        h.raw,
                        key.as_ptr(),
                        ffi::MPI_MAX_INFO_VAL as c_int,
                        val.as_mut_ptr(),
                        &mut flag,
                    )
                },
                "MPI_Info_get",
            )?;
            if flag != 0 {
                out.push((text(&key), text(&val)));
            }
        }
        Ok(out)
    }

    /// `MPI_File_close`, with its error.
    pub fn close(mut self) -> Result<(), Error> {
        let rc = unsafe { ffi::MPI_File_close(&mut self.raw) };
        self.raw = unsafe { ffi::RSMPI_FILE_NULL };
        checked(rc, "MPI_File_close")
    }

    /// One blocking write of `n` bytes from `buf` (`collective`: the `_all`
    /// and `_ordered` calls); `offset` for explicit offsets.
    #[inline(always)]
    pub fn write(
        &mut self,
        pos: Positioning,
        collective: bool,
        buf: *const u8,
        n: usize,
        offset: u64,
    ) {
        let (b, n, t) = (buf as *const c_void, n as c_int, byte());
        let mut st = status();
        let off = offset as ffi::MPI_Offset;
        let (rc, call) = unsafe {
            match (pos, collective) {
                (Positioning::Individual, false) => (
                    ffi::MPI_File_write(self.raw, b, n, t, &mut st),
                    "MPI_File_write",
                ),
                (Positioning::Individual, true) => (
                    ffi::MPI_File_write_all(self.raw, b, n, t, &mut st),
                    "MPI_File_write_all",
                ),
                (Positioning::Explicit, false) => (
                    ffi::MPI_File_write_at(self.raw, off, b, n, t, &mut st),
                    "MPI_File_write_at",
                ),
                (Positioning::Explicit, true) => (
                    ffi::MPI_File_write_at_all(self.raw, off, b, n, t, &mut st),
                    "MPI_File_write_at_all",
                ),
                (Positioning::Shared, false) => (
                    ffi::MPI_File_write_shared(self.raw, b, n, t, &mut st),
                    "MPI_File_write_shared",
                ),
                (Positioning::Shared, true) => (
                    ffi::MPI_File_write_ordered(self.raw, b, n, t, &mut st),
                    "MPI_File_write_ordered",
                ),
            }
        };
        check(rc, call);
    }

    /// One blocking read of `n` bytes into `buf` (as [`File::write`]).
    #[inline(always)]
    pub fn read(
        &mut self,
        pos: Positioning,
        collective: bool,
        buf: *mut u8,
        n: usize,
        offset: u64,
    ) {
        let (b, n, t) = (buf as *mut c_void, n as c_int, byte());
        let mut st = status();
        let off = offset as ffi::MPI_Offset;
        let (rc, call) = unsafe {
            match (pos, collective) {
                (Positioning::Individual, false) => (
                    ffi::MPI_File_read(self.raw, b, n, t, &mut st),
                    "MPI_File_read",
                ),
                (Positioning::Individual, true) => (
                    ffi::MPI_File_read_all(self.raw, b, n, t, &mut st),
                    "MPI_File_read_all",
                ),
                (Positioning::Explicit, false) => (
                    ffi::MPI_File_read_at(self.raw, off, b, n, t, &mut st),
                    "MPI_File_read_at",
                ),
                (Positioning::Explicit, true) => (
                    ffi::MPI_File_read_at_all(self.raw, off, b, n, t, &mut st),
                    "MPI_File_read_at_all",
                ),
                (Positioning::Shared, false) => (
                    ffi::MPI_File_read_shared(self.raw, b, n, t, &mut st),
                    "MPI_File_read_shared",
                ),
                (Positioning::Shared, true) => (
                    ffi::MPI_File_read_ordered(self.raw, b, n, t, &mut st),
                    "MPI_File_read_ordered",
                ),
            }
        };
        check(rc, call);
    }

    /// One non-blocking independent write (`MPI_File_iwrite`, `_iwrite_at`,
    /// `_iwrite_shared`): the request to wait for ([`super::wait`],
    /// [`super::waitall`]); `buf` must stay put until then.
    #[inline(always)]
    pub fn iwrite(&mut self, pos: Positioning, buf: *const u8, n: usize, offset: u64) -> Request {
        let (b, n, t) = (buf as *const c_void, n as c_int, byte());
        let mut r = unsafe { ffi::RSMPI_REQUEST_NULL };
        let off = offset as ffi::MPI_Offset;
        let (rc, call) = unsafe {
            match pos {
                Positioning::Individual => (
                    ffi::MPI_File_iwrite(self.raw, b, n, t, &mut r),
                    "MPI_File_iwrite",
                ),
                Positioning::Explicit => (
                    ffi::MPI_File_iwrite_at(self.raw, off, b, n, t, &mut r),
                    "MPI_File_iwrite_at",
                ),
                Positioning::Shared => (
                    ffi::MPI_File_iwrite_shared(self.raw, b, n, t, &mut r),
                    "MPI_File_iwrite_shared",
                ),
            }
        };
        check(rc, call);
        r
    }

    /// One non-blocking independent read (as [`File::iwrite`]).
    #[inline(always)]
    pub fn iread(&mut self, pos: Positioning, buf: *mut u8, n: usize, offset: u64) -> Request {
        let (b, n, t) = (buf as *mut c_void, n as c_int, byte());
        let mut r = unsafe { ffi::RSMPI_REQUEST_NULL };
        let off = offset as ffi::MPI_Offset;
        let (rc, call) = unsafe {
            match pos {
                Positioning::Individual => (
                    ffi::MPI_File_iread(self.raw, b, n, t, &mut r),
                    "MPI_File_iread",
                ),
                Positioning::Explicit => (
                    ffi::MPI_File_iread_at(self.raw, off, b, n, t, &mut r),
                    "MPI_File_iread_at",
                ),
                Positioning::Shared => (
                    ffi::MPI_File_iread_shared(self.raw, b, n, t, &mut r),
                    "MPI_File_iread_shared",
                ),
            }
        };
        check(rc, call);
        r
    }

    /// The first half of a split collective write (`MPI_File_write_all_begin`,
    /// `_write_at_all_begin`, `_write_ordered_begin`); [`File::end_write`]
    /// completes it.
    #[inline(always)]
    pub fn begin_write(&mut self, pos: Positioning, buf: *const u8, n: usize, offset: u64) {
        let (b, n, t) = (buf as *const c_void, n as c_int, byte());
        let off = offset as ffi::MPI_Offset;
        let (rc, call) = unsafe {
            match pos {
                Positioning::Individual => (
                    ffi::MPI_File_write_all_begin(self.raw, b, n, t),
                    "MPI_File_write_all_begin",
                ),
                Positioning::Explicit => (
                    ffi::MPI_File_write_at_all_begin(self.raw, off, b, n, t),
                    "MPI_File_write_at_all_begin",
                ),
                Positioning::Shared => (
                    ffi::MPI_File_write_ordered_begin(self.raw, b, n, t),
                    "MPI_File_write_ordered_begin",
                ),
            }
        };
        check(rc, call);
    }

    /// The second half of a split collective write begun with `buf`.
    #[inline(always)]
    pub fn end_write(&mut self, pos: Positioning, buf: *const u8) {
        let b = buf as *const c_void;
        let mut st = status();
        let (rc, call) = unsafe {
            match pos {
                Positioning::Individual => (
                    ffi::MPI_File_write_all_end(self.raw, b, &mut st),
                    "MPI_File_write_all_end",
                ),
                Positioning::Explicit => (
                    ffi::MPI_File_write_at_all_end(self.raw, b, &mut st),
                    "MPI_File_write_at_all_end",
                ),
                Positioning::Shared => (
                    ffi::MPI_File_write_ordered_end(self.raw, b, &mut st),
                    "MPI_File_write_ordered_end",
                ),
            }
        };
        check(rc, call);
    }

    /// The first half of a split collective read (as [`File::begin_write`]).
    #[inline(always)]
    pub fn begin_read(&mut self, pos: Positioning, buf: *mut u8, n: usize, offset: u64) {
        let (b, n, t) = (buf as *mut c_void, n as c_int, byte());
        let off = offset as ffi::MPI_Offset;
        let (rc, call) = unsafe {
            match pos {
                Positioning::Individual => (
                    ffi::MPI_File_read_all_begin(self.raw, b, n, t),
                    "MPI_File_read_all_begin",
                ),
                Positioning::Explicit => (
                    ffi::MPI_File_read_at_all_begin(self.raw, off, b, n, t),
                    "MPI_File_read_at_all_begin",
                ),
                Positioning::Shared => (
                    ffi::MPI_File_read_ordered_begin(self.raw, b, n, t),
                    "MPI_File_read_ordered_begin",
                ),
            }
        };
        check(rc, call);
    }

    /// The second half of a split collective read begun with `buf`.
    #[inline(always)]
    pub fn end_read(&mut self, pos: Positioning, buf: *mut u8) {
        let b = buf as *mut c_void;
        let mut st = status();
        let (rc, call) = unsafe {
            match pos {
                Positioning::Individual => (
                    ffi::MPI_File_read_all_end(self.raw, b, &mut st),
                    "MPI_File_read_all_end",
                ),
                Positioning::Explicit => (
                    ffi::MPI_File_read_at_all_end(self.raw, b, &mut st),
                    "MPI_File_read_at_all_end",
                ),
                Positioning::Shared => (
                    ffi::MPI_File_read_ordered_end(self.raw, b, &mut st),
                    "MPI_File_read_ordered_end",
                ),
            }
        };
        check(rc, call);
    }

    /// `MPI_File_sync` (collective over the file's group).
    #[inline(always)]
    pub fn sync(&mut self) {
        check(unsafe { ffi::MPI_File_sync(self.raw) }, "MPI_File_sync");
    }

    /// Moves the individual file pointer back to the start of the view
    /// (`MPI_File_seek`, `MPI_SEEK_SET`).
    pub fn rewind(&mut self) {
        check(
            unsafe { ffi::MPI_File_seek(self.raw, 0, ffi::MPI_SEEK_SET as c_int) },
            "MPI_File_seek",
        );
    }

    /// Moves the shared file pointer back to 0 (`MPI_File_seek_shared`,
    /// collective over the file's group).
    pub fn rewind_shared(&mut self) {
        check(
            unsafe { ffi::MPI_File_seek_shared(self.raw, 0, ffi::MPI_SEEK_SET as c_int) },
            "MPI_File_seek_shared",
        );
    }
}

impl Drop for File {
    fn drop(&mut self) {
        if self.raw != unsafe { ffi::RSMPI_FILE_NULL } {
            check_in_drop(
                unsafe { ffi::MPI_File_close(&mut self.raw) },
                "MPI_File_close",
            );
        }
        self.free_view();
    }
}

/// `len` bytes from `first` of every `period` bytes.
fn block_type(first: usize, len: usize, period: usize) -> Result<ffi::MPI_Datatype, Error> {
    let too_big = |v: usize| v > c_int::MAX as usize;
    if too_big(first + len) || too_big(period) {
        return Err(Error::Local(format!(
            "a file view of {period} bytes exceeds one MPI count"
        )));
    }
    let (sizes, subs, starts) = ([period as c_int], [len as c_int], [first as c_int]);
    let mut ty = byte();
    checked(
        unsafe {
            ffi::MPI_Type_create_subarray(
                1,
                sizes.as_ptr(),
                subs.as_ptr(),
                starts.as_ptr(),
                ffi::MPI_ORDER_C as c_int,
                byte(),
                &mut ty,
            )
        },
        "MPI_Type_create_subarray",
    )?;
    checked(unsafe { ffi::MPI_Type_commit(&mut ty) }, "MPI_Type_commit")?;
    Ok(ty)
}

fn status() -> ffi::MPI_Status {
    // SAFETY-free: a plain C struct of integers.
    unsafe { std::mem::zeroed() }
}

fn text(s: &[c_char]) -> String {
    let bytes: Vec<u8> = s
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}
