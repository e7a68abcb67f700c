//! Progress calls made during computation (the OSU non-blocking
//! benchmarks' `-t`: MPI_Test calls while the collective is in flight).

use std::ffi::c_int;

use mpi::ffi;

use super::error::check;
use super::Request;

/// `MPI_Test` ignoring the status: whether the request has completed
/// (a completed request becomes MPI_REQUEST_NULL, and tests true again).
#[inline]
pub fn test(req: &mut Request) -> bool {
    let mut flag: c_int = 0;
    check(
        unsafe { ffi::MPI_Test(req, &mut flag, ffi::RSMPI_STATUS_IGNORE) },
        "MPI_Test",
    );
    flag != 0
}
