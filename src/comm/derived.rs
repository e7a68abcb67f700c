//! Messages of a benchmark's declared type: N elements of its element
//! type, or one element of the derived datatype a run chose (OSU -D),
//! built and committed once per point, outside the timed region.

use std::ffi::c_int;

use mpi::ffi;

use super::{check, Msg};
use crate::bench::datatype::Derived;
use crate::bench::Info;

impl Msg {
    /// The message of `n` elements of `info`'s type: `n` elements of
    /// `info.elem`, or one element of its derived datatype over them.
    pub fn of(info: &Info, n: usize) -> Result<Msg, String> {
        match info.derived {
            None => Msg::elems(info.elem, n),
            Some(d) => {
                if let Some(e) = Msg::count_error(info.elem, n) {
                    return Err(e);
                }
                Ok(Msg::derived(info.elem.datatype(), n, d))
            }
        }
    }

    /// One element of `d` over `n` elements of `base` (committed; freed on drop).
    fn derived(base: ffi::MPI_Datatype, n: usize, d: &Derived) -> Msg {
        let mut dt = base;
        // SAFETY: counts are within the int range (checked by the caller
        // and by `Derived::parse`); the arrays outlive the calls.
        unsafe {
            match d {
                Derived::Contiguous => check(
                    ffi::MPI_Type_contiguous(n as c_int, base, &mut dt),
                    "MPI_Type_contiguous",
                ),
                Derived::Vector { stride, block } => check(
                    ffi::MPI_Type_vector(
                        (n / stride) as c_int,
                        *block as c_int,
                        *stride as c_int,
                        base,
                        &mut dt,
                    ),
                    "MPI_Type_vector",
                ),
                Derived::Indexed { blocks } => {
                    let lens: Vec<c_int> = blocks.iter().map(|b| b.1 as c_int).collect();
                    let displs: Vec<c_int> = blocks.iter().map(|b| b.0 as c_int).collect();
                    check(
                        ffi::MPI_Type_indexed(
                            blocks.len() as c_int,
                            lens.as_ptr(),
                            displs.as_ptr(),
                            base,
                            &mut dt,
                        ),
                        "MPI_Type_indexed",
                    )
                }
            }
            check(ffi::MPI_Type_commit(&mut dt), "MPI_Type_commit");
        }
        Msg {
            dt,
            count: 1,
            large: 0,
            owned: true,
        }
    }
}
