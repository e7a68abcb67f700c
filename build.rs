//! Compiles the small C shim (`src/comm/shim.c`) with the same MPI headers that
//! rsmpi's `mpi-sys` found, so that predefined handles missing from rsmpi's
//! constants (MPI_BYTE) and MPI-4 large-count calls are reachable from Rust.
fn main() {
    println!("cargo:rerun-if-changed=src/comm/shim.c");
    println!("cargo:rerun-if-env-changed=MPICC");
    println!("cargo:rerun-if-env-changed=MPI_PKG_CONFIG");
    let lib = match build_probe_mpi::probe() {
        Ok(lib) => lib,
        Err(errs) => {
            for e in errs {
                println!("cargo:warning=MPI probe: {e}");
            }
            panic!("no MPI library found: install Open MPI or MPICH (see scripts/install-deps.sh)");
        }
    };
    let mut build = cc::Build::new();
    build.file("src/comm/shim.c").warnings(true);
    for inc in &lib.include_paths {
        build.include(inc);
    }
    build.compile("mpibench_shim");
}
