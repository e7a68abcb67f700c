//! `MPI_Testall`: whether a set of requests has completed, without waiting
//! (mpiGraph times its sends and its receives apart by polling them).

use std::os::raw::c_int;

use mpi::ffi;

use super::error::check;
use super::{Error, Request};

/// `MPI_Testall` ignoring statuses: true when every request has completed
/// (completed requests become `MPI_REQUEST_NULL`).
#[inline]
pub fn testall(reqs: &mut [Request]) -> bool {
    let mut flag: c_int = 0;
    check(
        unsafe {
            ffi::MPI_Testall(
                reqs.len() as c_int,
                reqs.as_mut_ptr(),
                &mut flag,
                ffi::RSMPI_STATUSES_IGNORE,
            )
        },
        "MPI_Testall",
    );
    flag != 0
}

/// Test hook: a setup call the library must refuse (`MPI_Type_contiguous`
/// of count -1), as a kernel would make it.
pub fn refused_setup_call() -> Result<(), Error> {
    let mut dt = unsafe { ffi::RSMPI_DATATYPE_NULL };
    super::checked(
        unsafe { ffi::MPI_Type_contiguous(-1, super::Elem::Byte.datatype(), &mut dt) },
        "MPI_Type_contiguous",
    )
}
