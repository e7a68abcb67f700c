//! Messages of a chosen type: N elements of an element type, or a derived
//! datatype over them (OSU -D, IMB -contig_type), built and committed once
//! per point, outside the timed region. Reductions over a derived datatype
//! use a user-defined sum over its base elements (MPI_SUM is defined only
//! for predefined types), as IMB does.

use std::ffi::{c_int, c_void};

use mpi::ffi;
use serde::{Deserialize, Serialize};

use super::{check_in_drop, checked, Elem, Error, Msg};

/// A derived datatype over N elements of a base element type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Derived {
    /// N contiguous elements, one element of MPI_Type_contiguous(N).
    Contiguous,
    /// N / stride blocks of `block` elements, `stride` elements apart.
    Vector { stride: usize, block: usize },
    /// Blocks (displacement, length) in elements, whatever N.
    Indexed { blocks: Vec<(usize, usize)> },
    /// N elements each resized to twice its extent
    /// (MPI_Type_create_resized(elem, size, 2·size)): data in every other
    /// element-sized slot.
    Resized,
    /// One MPI_Type_vector(N, 1, 1) of the resized elements of [`Derived::Resized`].
    ResizedVector,
}

impl Derived {
    /// Elements one message of N elements transmits.
    pub fn transmit(&self, n: usize) -> usize {
        match self {
            Derived::Contiguous | Derived::Resized | Derived::ResizedVector => n,
            Derived::Vector { stride, block } => n / stride * block,
            Derived::Indexed { blocks } => blocks.iter().map(|b| b.1).sum(),
        }
    }

    /// Elements from the start of the buffer one message touches (its
    /// upper bound): buffers hold at least this many.
    pub fn span(&self, n: usize) -> usize {
        match self {
            Derived::Contiguous => n,
            Derived::Vector { stride, block } => match n / stride {
                0 => 0,
                c => (c - 1) * stride + block,
            },
            Derived::Indexed { blocks } => blocks
                .iter()
                .filter(|b| b.1 > 0)
                .map(|b| b.0 + b.1)
                .max()
                .unwrap_or(0),
            Derived::Resized | Derived::ResizedVector => 2 * n,
        }
    }

    /// How far apart consecutive elements lie, in elements: 2 for the
    /// resized kinds (every displacement of a message doubles), else 1.
    pub fn stretch(&self) -> usize {
        match self {
            Derived::Resized | Derived::ResizedVector => 2,
            _ => 1,
        }
    }

    /// Whether the data of a message is its elements in order, every
    /// `stretch` elements, so that validation can read it.
    pub fn ordered(&self) -> bool {
        match self {
            Derived::Contiguous | Derived::Resized | Derived::ResizedVector => true,
            Derived::Vector { stride, block } => stride == block,
            Derived::Indexed { .. } => false,
        }
    }
}

impl Msg {
    /// The message of `n` elements of `elem`, or of one element (N for
    /// [`Derived::Resized`]) of the derived datatype `derived` over them.
    pub fn of(elem: Elem, derived: Option<&Derived>, n: usize) -> Result<Msg, Error> {
        match derived {
            None => Msg::elems(elem, n),
            Some(d) => {
                if let Some(e) = Msg::count_error(elem, n) {
                    return Err(Error::Local(e));
                }
                Msg::derived(elem, n, d)
            }
        }
    }

    /// `d` over `n` elements of `elem` (committed; the type and the sum
    /// over it freed on drop).
    fn derived(elem: Elem, n: usize, d: &Derived) -> Result<Msg, Error> {
        let base = elem.datatype();
        let mut dt = base;
        let mut count = 1;
        // SAFETY: counts are within the int range (checked by the caller
        // and by `Derived::parse`); the arrays outlive the calls.
        unsafe {
            match d {
                Derived::Contiguous => checked(
                    ffi::MPI_Type_contiguous(n as c_int, base, &mut dt),
                    "MPI_Type_contiguous",
                )?,
                Derived::Vector { stride, block } => checked(
                    ffi::MPI_Type_vector(
                        (n / stride) as c_int,
                        *block as c_int,
                        *stride as c_int,
                        base,
                        &mut dt,
                    ),
                    "MPI_Type_vector",
                )?,
                Derived::Indexed { blocks } => {
                    let lens: Vec<c_int> = blocks.iter().map(|b| b.1 as c_int).collect();
                    let displs: Vec<c_int> = blocks.iter().map(|b| b.0 as c_int).collect();
                    checked(
                        ffi::MPI_Type_indexed(
                            blocks.len() as c_int,
                            lens.as_ptr(),
                            displs.as_ptr(),
                            base,
                            &mut dt,
                        ),
                        "MPI_Type_indexed",
                    )?
                }
                Derived::Resized => {
                    dt = resized(elem)?;
                    count = n as c_int;
                }
                Derived::ResizedVector => {
                    let mut r = resized(elem)?;
                    checked(
                        ffi::MPI_Type_vector(n as c_int, 1, 1, r, &mut dt),
                        "MPI_Type_vector",
                    )?;
                    checked(ffi::MPI_Type_free(&mut r), "MPI_Type_free")?;
                }
            }
            checked(ffi::MPI_Type_commit(&mut dt), "MPI_Type_commit")?;
        }
        Ok(Msg {
            dt,
            count,
            large: 0,
            owned: true,
            op: d.ordered().then(|| UserSum::new(elem)).transpose()?,
        })
    }
}

/// `elem` with lower bound size and extent 2·size, as IMB's `resize`
/// (uncommitted).
unsafe fn resized(elem: Elem) -> Result<ffi::MPI_Datatype, Error> {
    let k = elem.size() as ffi::MPI_Aint;
    let mut dt = elem.datatype();
    checked(
        ffi::MPI_Type_create_resized(elem.datatype(), k, 2 * k, &mut dt),
        "MPI_Type_create_resized",
    )?;
    Ok(dt)
}

/// A user-defined MPI_SUM over the base elements of a derived datatype
/// (freed on drop).
pub(super) struct UserSum(pub(super) ffi::MPI_Op);

impl UserSum {
    fn new(elem: Elem) -> Result<UserSum, Error> {
        let f: ffi::MPI_User_function = match elem {
            Elem::Byte | Elem::UChar => Some(sum::<u8>),
            Elem::Char => Some(sum::<i8>),
            Elem::Int => Some(sum::<i32>),
            Elem::Float => Some(sum::<f32>),
            Elem::Double => Some(sum::<f64>),
        };
        let mut op = super::op_sum();
        // SAFETY: a valid function pointer; commutative.
        checked(
            unsafe { ffi::MPI_Op_create(f, 1, &mut op) },
            "MPI_Op_create",
        )?;
        Ok(UserSum(op))
    }
}

impl Drop for UserSum {
    fn drop(&mut self) {
        check_in_drop(unsafe { ffi::MPI_Op_free(&mut self.0) }, "MPI_Op_free");
    }
}

/// Element types a user sum adds.
trait Plus: Copy {
    fn plus(self, o: Self) -> Self;
}

macro_rules! wrapping {
    ($($t:ty),*) => {$(impl Plus for $t {
        fn plus(self, o: Self) -> Self {
            self.wrapping_add(o)
        }
    })*};
}
wrapping!(u8, i8, i32);

impl Plus for f32 {
    fn plus(self, o: Self) -> Self {
        self + o
    }
}

impl Plus for f64 {
    fn plus(self, o: Self) -> Self {
        self + o
    }
}

/// inout += in over `len` elements of `dt`, a derived datatype of `T`
/// elements laid out at a fixed stride (extent / size elements apart), as
/// IMB's `contig_sum`.
unsafe extern "C" fn sum<T: Plus>(
    invec: *mut c_void,
    inout: *mut c_void,
    len: *mut c_int,
    dt: *mut ffi::MPI_Datatype,
) {
    let (mut lb, mut extent, mut size) = (0, 0, 0);
    ffi::MPI_Type_get_extent(*dt, &mut lb, &mut extent);
    ffi::MPI_Type_size(*dt, &mut size);
    if size <= 0 || extent <= 0 {
        return;
    }
    let step = (extent as usize / size as usize).max(1);
    let count = extent as usize / std::mem::size_of::<T>() * (*len).max(0) as usize;
    let (a, b) = (invec as *const T, inout as *mut T);
    let mut i = 0;
    while i < count {
        *b.add(i) = (*b.add(i)).plus(*a.add(i));
        i += step;
    }
}
