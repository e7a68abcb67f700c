//! The prefix reductions: `MPI_Scan` and `MPI_Exscan` with `MPI_SUM`
//! (the guidelines suite's Scan against Exscan + Reduce_local).

use std::ffi::{c_int, c_void};

use mpi::ffi;

use super::error::check;
use super::{op_sum, Comm, Msg};

/// `MPI_Scan` and `MPI_Exscan` take the same arguments.
type Prefix = unsafe extern "C" fn(
    *const c_void,
    *mut c_void,
    c_int,
    ffi::MPI_Datatype,
    ffi::MPI_Op,
    ffi::MPI_Comm,
) -> c_int;

impl Comm {
    /// `MPI_Scan` with `MPI_SUM`: rank r receives the sum over ranks 0..=r.
    #[inline]
    pub fn scan(&self, sbuf: *const u8, rbuf: *mut u8, m: &Msg) {
        self.prefix(ffi::MPI_Scan, "MPI_Scan", sbuf, rbuf, m);
    }

    /// `MPI_Exscan` with `MPI_SUM`: rank r > 0 receives the sum over ranks
    /// 0..r; rank 0's receive buffer is left as it was.
    #[inline]
    pub fn exscan(&self, sbuf: *const u8, rbuf: *mut u8, m: &Msg) {
        self.prefix(ffi::MPI_Exscan, "MPI_Exscan", sbuf, rbuf, m);
    }

    #[inline(always)]
    fn prefix(&self, f: Prefix, call: &'static str, sbuf: *const u8, rbuf: *mut u8, m: &Msg) {
        // SAFETY: both buffers hold `m` (the caller's layout).
        let rc = unsafe {
            f(
                sbuf as *const c_void,
                rbuf as *mut c_void,
                m.count,
                m.dt,
                op_sum(),
                self.raw(),
            )
        };
        check(rc, call);
    }
}
