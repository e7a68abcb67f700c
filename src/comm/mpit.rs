//! The MPI tool information interface (MPI_T): the library's control
//! variables, their descriptions and enumerations, read without `MPI_Init`
//! (MPI_T may be initialised on its own, before or instead of MPI).

use std::ffi::{c_char, c_int, CStr};

use mpi::ffi;

/// One control variable as the library describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct ControlVar {
    pub name: String,
    pub description: String,
    /// Its enumeration (value, name), empty when it has none.
    pub items: Vec<(i32, String)>,
}

/// A C string out of a buffer the library filled.
fn text(buf: &[u8]) -> String {
    CStr::from_bytes_until_nul(buf)
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Every control variable of the library this binary is linked against
/// (`MPI_T_cvar_get_num`, `MPI_T_cvar_get_info`, `MPI_T_enum_get_item`).
pub fn control_variables() -> Result<Vec<ControlVar>, String> {
    let mut provided: c_int = 0;
    let rc = unsafe { ffi::MPI_T_init_thread(ffi::RSMPI_THREAD_SINGLE, &mut provided) };
    if rc != 0 {
        return Err(format!("MPI_T_init_thread failed (code {rc})"));
    }
    let out = read_all();
    unsafe { ffi::MPI_T_finalize() };
    out
}

fn read_all() -> Result<Vec<ControlVar>, String> {
    let mut n: c_int = 0;
    let rc = unsafe { ffi::MPI_T_cvar_get_num(&mut n) };
    if rc != 0 {
        return Err(format!("MPI_T_cvar_get_num failed (code {rc})"));
    }
    let mut vars = Vec::new();
    for i in 0..n {
        let mut name = vec![0u8; 1024];
        let mut desc = vec![0u8; 8192];
        let (mut name_len, mut desc_len) = (name.len() as c_int, desc.len() as c_int);
        let (mut verbosity, mut bind, mut scope): (c_int, c_int, c_int) = (0, 0, 0);
        let mut datatype: ffi::MPI_Datatype = unsafe { std::mem::zeroed() };
        let mut enumtype: ffi::MPI_T_enum = std::ptr::null_mut();
        let rc = unsafe {
            ffi::MPI_T_cvar_get_info(
                i,
                name.as_mut_ptr() as *mut c_char,
                &mut name_len,
                &mut verbosity,
                &mut datatype,
                &mut enumtype,
                desc.as_mut_ptr() as *mut c_char,
                &mut desc_len,
                &mut bind,
                &mut scope,
            )
        };
        // A variable the library no longer offers (MPI_T_ERR_INVALID_INDEX) is skipped.
        if rc != 0 {
            continue;
        }
        let items = if enumtype.is_null() {
            Vec::new()
        } else {
            enum_items(enumtype)
        };
        vars.push(ControlVar {
            name: text(&name),
            description: text(&desc),
            items,
        });
    }
    Ok(vars)
}

fn enum_items(e: ffi::MPI_T_enum) -> Vec<(i32, String)> {
    let mut count: c_int = 0;
    let mut name = vec![0u8; 256];
    let mut len = name.len() as c_int;
    let rc = unsafe {
        ffi::MPI_T_enum_get_info(e, &mut count, name.as_mut_ptr() as *mut c_char, &mut len)
    };
    if rc != 0 {
        return Vec::new();
    }
    (0..count)
        .filter_map(|j| {
            let mut value: c_int = 0;
            let mut item = vec![0u8; 256];
            let mut len = item.len() as c_int;
            let rc = unsafe {
                ffi::MPI_T_enum_get_item(
                    e,
                    j,
                    &mut value,
                    item.as_mut_ptr() as *mut c_char,
                    &mut len,
                )
            };
            (rc == 0).then(|| (value, text(&item)))
        })
        .collect()
}
