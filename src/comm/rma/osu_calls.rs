//! One-sided calls the OSU programs make beyond the coarray suite's:
//! shared locks, MPI_Win_flush_local, MPI_Accumulate and
//! MPI_Get_accumulate (MPI_SUM), and the atomics MPI_Fetch_and_op (MPI_SUM)
//! and MPI_Compare_and_swap on one 32-bit integer without a flush.

use std::ffi::{c_int, c_void};

use mpi::ffi;

use super::{check, Window};
use crate::comm::op_sum;

extern "C" {
    fn mpibench_lock_shared() -> c_int;
}

impl Window {
    /// A shared lock of `target`'s window (`MPI_Win_lock`).
    pub fn lock_shared(&self, target: usize) {
        check(
            unsafe { ffi::MPI_Win_lock(mpibench_lock_shared(), target as c_int, 0, self.raw) },
            "MPI_Win_lock",
        );
    }

    #[inline(always)]
    pub fn flush_local(&self, target: usize) {
        check(
            unsafe { ffi::MPI_Win_flush_local(target as c_int, self.raw) },
            "MPI_Win_flush_local",
        );
    }

    /// `MPI_Accumulate` with `MPI_SUM` of `n` × `dt` from `origin` to byte `off` of `target`.
    #[inline(always)]
    pub fn accumulate(
        &self,
        origin: *const u8,
        n: c_int,
        dt: ffi::MPI_Datatype,
        target: usize,
        off: usize,
    ) {
        check(
            unsafe {
                ffi::MPI_Accumulate(
                    origin as *const c_void,
                    n,
                    dt,
                    target as c_int,
                    self.disp(target, off),
                    n,
                    dt,
                    op_sum(),
                    self.raw,
                )
            },
            "MPI_Accumulate",
        );
    }

    /// `MPI_Get_accumulate` with `MPI_SUM`: the target's old `n` × `dt` at
    /// byte `off` into `result`, then `origin` added there.
    #[inline(always)]
    pub fn get_accumulate(
        &self,
        origin: *const u8,
        result: *mut u8,
        n: c_int,
        dt: ffi::MPI_Datatype,
        target: usize,
        off: usize,
    ) {
        check(
            unsafe {
                ffi::MPI_Get_accumulate(
                    origin as *const c_void,
                    n,
                    dt,
                    result as *mut c_void,
                    n,
                    dt,
                    target as c_int,
                    self.disp(target, off),
                    n,
                    dt,
                    op_sum(),
                    self.raw,
                )
            },
            "MPI_Get_accumulate",
        );
    }

    /// `MPI_Fetch_and_op` with `MPI_SUM` of one 32-bit integer at byte `off`
    /// of `target` (completed by the caller's synchronisation).
    #[inline(always)]
    pub fn fetch_and_add(&self, add: *const i32, old: *mut i32, target: usize, off: usize) {
        check(
            unsafe {
                ffi::MPI_Fetch_and_op(
                    add as *const c_void,
                    old as *mut c_void,
                    ffi::RSMPI_INT32_T,
                    target as c_int,
                    self.disp(target, off),
                    op_sum(),
                    self.raw,
                )
            },
            "MPI_Fetch_and_op",
        );
    }

    /// `MPI_Compare_and_swap` of one 32-bit integer at byte `off` of
    /// `target` (completed by the caller's synchronisation).
    #[inline(always)]
    pub fn swap_if(
        &self,
        new: *const i32,
        compare: *const i32,
        old: *mut i32,
        target: usize,
        off: usize,
    ) {
        check(
            unsafe {
                ffi::MPI_Compare_and_swap(
                    new as *const c_void,
                    compare as *const c_void,
                    old as *mut c_void,
                    ffi::RSMPI_INT32_T,
                    target as c_int,
                    self.disp(target, off),
                    self.raw,
                )
            },
            "MPI_Compare_and_swap",
        );
    }
}
