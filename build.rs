//! Compiles the small C shim (`src/comm/shim.c`) with the same MPI headers that
//! rsmpi's `mpi-sys` found, so that predefined handles missing from rsmpi's
//! constants (MPI_BYTE) and MPI-4 large-count calls are reachable from Rust.
fn main() {
    build_facts();
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

/// mpibench's own build, for the run's context (`context::build`): the
/// target, the compiler, and the git commit where the source is a checkout.
fn build_facts() {
    let env = |k: &str| std::env::var(k).unwrap_or_default();
    println!("cargo:rustc-env=MPIBENCH_TARGET={}", env("TARGET"));
    let rustc = std::process::Command::new(std::env::var("RUSTC").unwrap_or("rustc".into()))
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    println!("cargo:rustc-env=MPIBENCH_RUSTC={rustc}");
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    // Only this package's own checkout names the commit: a source tarball
    // unpacked inside some other repository (a package manager's stage) has none.
    let here = std::fs::canonicalize(env("CARGO_MANIFEST_DIR")).ok();
    let top = git(&["rev-parse", "--show-toplevel"]).and_then(|t| std::fs::canonicalize(t).ok());
    if here.is_none() || here != top {
        println!("cargo:rustc-env=MPIBENCH_COMMIT=");
        return;
    }
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_default();
    println!("cargo:rustc-env=MPIBENCH_COMMIT={commit}");
    // A new commit changes HEAD or the branch's ref: build again to name it.
    for f in ["HEAD", "refs/heads"] {
        if let Some(p) = git(&["rev-parse", "--git-path", f]) {
            if std::path::Path::new(&p).exists() {
                println!("cargo:rerun-if-changed={p}");
            }
        }
    }
    if let Some(p) = git(&["rev-parse", "--git-common-dir"]) {
        let packed = std::path::Path::new(&p).join("packed-refs");
        if packed.exists() {
            println!("cargo:rerun-if-changed={}", packed.display());
        }
    }
}
