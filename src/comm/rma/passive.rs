//! Passive-target calls beyond the OSU programs': MPI_Win_flush_local_all
//! and MPI_Fetch_and_op (MPI_SUM) of one element of any predefined type.

use std::ffi::{c_int, c_void};

use mpi::ffi;

use super::{check, Window};
use crate::comm::op_sum;

impl Window {
    /// Shared locks of several targets' windows, each once.
    pub fn lock_shared_each(&self, targets: &[usize]) {
        let mut done: Vec<usize> = Vec::with_capacity(targets.len());
        for &t in targets {
            if !done.contains(&t) {
                self.lock_shared(t);
                done.push(t);
            }
        }
    }

    /// Releases the locks [`Window::lock_shared_each`] took.
    pub fn unlock_each(&self, targets: &[usize]) {
        let mut done: Vec<usize> = Vec::with_capacity(targets.len());
        for &t in targets {
            if !done.contains(&t) {
                self.unlock(t);
                done.push(t);
            }
        }
    }

    /// `MPI_Win_flush_local_all`: every operation this rank issued is
    /// complete at the origin (its buffers may be reused).
    #[inline(always)]
    pub fn flush_local_all(&self) {
        check(
            unsafe { ffi::MPI_Win_flush_local_all(self.raw) },
            "MPI_Win_flush_local_all",
        );
    }

    /// `MPI_Fetch_and_op` with `MPI_SUM` of one `dt` element at `origin`
    /// into byte `off` of `target`; the old value lands at `result`
    /// (completed by the caller's synchronisation).
    #[inline(always)]
    pub fn fetch_and_sum(
        &self,
        origin: *const u8,
        result: *mut u8,
        dt: ffi::MPI_Datatype,
        target: usize,
        off: usize,
    ) {
        check(
            unsafe {
                ffi::MPI_Fetch_and_op(
                    origin as *const c_void,
                    result as *mut c_void,
                    dt,
                    target as c_int,
                    self.disp(target, off),
                    op_sum(),
                    self.raw,
                )
            },
            "MPI_Fetch_and_op",
        );
    }
}
