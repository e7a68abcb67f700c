//! The point-to-point send modes beyond MPI_Send/MPI_Isend (COMMTEST's
//! protocols): buffered (MPI_Bsend with an attached buffer, RAII), ready
//! (MPI_Rsend, MPI_Irsend) and synchronous (MPI_Ssend, MPI_Issend); and
//! MPI_Sendrecv of two different messages (the allreduce algorithms).
//!
//! Messages are the [`Msg`] of a point, resolved outside the timed region;
//! these calls use its (count, datatype), which describes any length (a
//! derived type beyond 2^31 − 1 bytes), so they need no large-count variant.

use std::ffi::{c_int, c_void};

use mpi::ffi;

use super::error::check;
use super::{Comm, Msg, Request};

extern "C" {
    fn mpibench_bsend_overhead() -> c_int;
}

/// `MPI_BSEND_OVERHEAD`: bytes the library adds to every buffered message.
pub fn bsend_overhead() -> usize {
    unsafe { mpibench_bsend_overhead() }.max(0) as usize
}

/// The send modes of MPI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// MPI_Send / MPI_Isend.
    Standard,
    /// MPI_Bsend (needs an attached buffer, [`BsendBuffer`]).
    Buffered,
    /// MPI_Rsend / MPI_Irsend: only correct once the matching receive is posted.
    Ready,
    /// MPI_Ssend / MPI_Issend: completes once the receive has started.
    Synchronous,
}

impl Mode {
    /// The MPI call of the blocking form.
    pub fn call(self) -> &'static str {
        match self {
            Mode::Standard => "MPI_SEND",
            Mode::Buffered => "MPI_BSEND",
            Mode::Ready => "MPI_RSEND",
            Mode::Synchronous => "MPI_SSEND",
        }
    }

    /// The MPI call of the nonblocking form.
    pub fn icall(self) -> &'static str {
        match self {
            Mode::Standard => "MPI_ISEND",
            Mode::Buffered => "MPI_IBSEND",
            Mode::Ready => "MPI_IRSEND",
            Mode::Synchronous => "MPI_ISSEND",
        }
    }
}

/// Blocking sends of MPI_Send's signature, one method each.
macro_rules! blocking_sends {
    ($($(#[$doc:meta])* $name:ident => $f:ident;)*) => {$(
        $(#[$doc])*
        #[inline]
        pub fn $name(&self, buf: *const u8, m: &Msg, dest: usize, tag: i32) {
            let rc = unsafe {
                ffi::$f(buf as *const c_void, m.count, m.dt, dest as c_int, tag, self.raw())
            };
            check(rc, stringify!($f));
        }
    )*};
}

/// Nonblocking sends of MPI_Isend's signature, one method each.
macro_rules! nonblocking_sends {
    ($($(#[$doc:meta])* $name:ident => $f:ident;)*) => {$(
        $(#[$doc])*
        #[inline]
        pub fn $name(&self, buf: *const u8, m: &Msg, dest: usize, tag: i32, req: &mut Request) {
            let rc = unsafe {
                ffi::$f(buf as *const c_void, m.count, m.dt, dest as c_int, tag, self.raw(), req)
            };
            check(rc, stringify!($f));
        }
    )*};
}

impl Comm {
    /// A blocking send in `mode`.
    #[inline(always)]
    pub fn send_mode(&self, mode: Mode, buf: *const u8, m: &Msg, dest: usize, tag: i32) {
        match mode {
            Mode::Standard => self.send(buf, m, dest, tag),
            Mode::Buffered => self.bsend(buf, m, dest, tag),
            Mode::Ready => self.rsend(buf, m, dest, tag),
            Mode::Synchronous => self.ssend(buf, m, dest, tag),
        }
    }

    /// A nonblocking send in `mode`.
    #[inline(always)]
    pub fn isend_mode(
        &self,
        mode: Mode,
        buf: *const u8,
        m: &Msg,
        dest: usize,
        tag: i32,
        req: &mut Request,
    ) {
        match mode {
            Mode::Standard => self.isend(buf, m, dest, tag, req),
            Mode::Buffered => self.ibsend(buf, m, dest, tag, req),
            Mode::Ready => self.irsend(buf, m, dest, tag, req),
            Mode::Synchronous => self.issend(buf, m, dest, tag, req),
        }
    }

    blocking_sends! {
        /// `MPI_Bsend` (needs an attached [`BsendBuffer`]).
        bsend => MPI_Bsend;
        /// `MPI_Rsend`.
        rsend => MPI_Rsend;
        /// `MPI_Ssend`.
        ssend => MPI_Ssend;
    }

    nonblocking_sends! {
        /// `MPI_Ibsend`.
        ibsend => MPI_Ibsend;
        /// `MPI_Irsend`.
        irsend => MPI_Irsend;
        /// `MPI_Issend`.
        issend => MPI_Issend;
    }

    /// `MPI_Sendrecv` of `sm` to `dest` and `rm` from `src` (different lengths).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn sendrecv_msgs(
        &self,
        sbuf: *const u8,
        sm: &Msg,
        dest: usize,
        rbuf: *mut u8,
        rm: &Msg,
        src: usize,
        tag: i32,
    ) {
        let rc = unsafe {
            ffi::MPI_Sendrecv(
                sbuf as *const c_void,
                sm.count,
                sm.dt,
                dest as c_int,
                tag,
                rbuf as *mut c_void,
                rm.count,
                rm.dt,
                src as c_int,
                tag,
                self.raw(),
                ffi::RSMPI_STATUS_IGNORE,
            )
        };
        check(rc, "MPI_Sendrecv");
    }
}

/// A buffer attached with `MPI_Buffer_attach` for buffered sends, detached
/// (`MPI_Buffer_detach`, which waits until its messages are delivered) on
/// drop. MPI allows one attached buffer per process: hold at most one.
pub struct BsendBuffer {
    mem: Vec<u64>,
}

impl BsendBuffer {
    /// Bytes needed for `messages` buffered messages of `len` bytes each.
    pub fn size_for(messages: usize, len: usize) -> usize {
        messages.saturating_mul(len.saturating_add(bsend_overhead()))
    }

    /// Allocates and attaches `bytes` (at most 2^31 − 1, MPI's `int` size).
    pub fn attach(bytes: usize) -> Result<BsendBuffer, super::Error> {
        if bytes > i32::MAX as usize {
            return Err(super::Error::Local(format!(
                "a buffered-send buffer of {bytes} bytes exceeds MPI_Buffer_attach's int size"
            )));
        }
        let words = bytes.div_ceil(8).max(1);
        let mut mem = Vec::new();
        mem.try_reserve_exact(words).map_err(|e| {
            super::Error::Local(format!(
                "cannot allocate {bytes} bytes for MPI_Buffer_attach: {e}"
            ))
        })?;
        mem.resize(words, 0u64);
        let rc = unsafe { ffi::MPI_Buffer_attach(mem.as_mut_ptr() as *mut c_void, bytes as c_int) };
        super::checked(rc, "MPI_Buffer_attach")?;
        Ok(BsendBuffer { mem })
    }
}

impl Drop for BsendBuffer {
    fn drop(&mut self) {
        let mut addr: *mut c_void = std::ptr::null_mut();
        let mut size: c_int = 0;
        let rc = unsafe {
            ffi::MPI_Buffer_detach(&mut addr as *mut *mut c_void as *mut c_void, &mut size)
        };
        super::check_in_drop(rc, "MPI_Buffer_detach");
        debug_assert_eq!(addr as *const u64, self.mem.as_ptr());
    }
}
