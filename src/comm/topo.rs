//! Process topologies rsmpi lacks: `MPI_Dims_create`, and the neighbours a
//! periodic `MPI_Cart_create` grid gives, so that the engine's own
//! placement (`Placement::Cart3d`) can be checked against the library.

use std::ffi::c_int;

use mpi::ffi;

use super::error::check;
use super::Comm;

/// `MPI_Dims_create(n, nd)` with no dimension fixed.
pub fn dims_create(n: usize, nd: usize) -> Vec<usize> {
    let mut dims = vec![0 as c_int; nd];
    check(
        unsafe { ffi::MPI_Dims_create(n as c_int, nd as c_int, dims.as_mut_ptr()) },
        "MPI_Dims_create",
    );
    dims.into_iter().map(|d| d as usize).collect()
}

/// Collective over `comm`: the dimensions MPI_Dims_create gives for its
/// size in 3-D, and this rank's neighbours −x, +x, −y, +y, −z, +z in the
/// periodic grid MPI_Cart_create (no reordering) builds from them.
pub fn cart3d_neighbours(comm: &Comm) -> Result<([usize; 3], [usize; 6]), super::Error> {
    let d = dims_create(comm.size, 3);
    let cart = comm.cart(&d)?;
    let mut n = [0; 6];
    for dim in 0..3 {
        let (down, up) = cart.cart_shift(dim, 1)?;
        n[2 * dim] = down;
        n[2 * dim + 1] = up;
    }
    Ok(([d[0], d[1], d[2]], n))
}
