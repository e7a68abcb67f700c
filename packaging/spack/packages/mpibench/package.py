# Spack package for mpibench (a repository of its own: spack repo add packaging/spack).
#
#   spack repo add packaging/spack && spack install mpibench
#
# The install layout is make install's: bin/mpibench, its man page, bin/IMB-*
# and OMB 7.4's libexec/osu-micro-benchmarks/mpi/{pt2pt,collective,one-sided,
# startup}/osu_* as links (the layout of Spack's osu-micro-benchmarks).

import os

from spack.package import *

try:  # Spack >= 1.0 (builtin packages in spack-packages)
    from spack_repo.builtin.build_systems.cargo import CargoPackage
except ImportError:  # older Spack
    from spack.build_systems.cargo import CargoPackage


class Mpibench(CargoPackage):
    """MPI benchmarks: the suites of IMB, OMB, MPITEST, ... with one engine,
    and drop-in IMB-MPI1 ... and osu_* names."""

    homepage = "https://github.com/mpibench/mpibench"
    git = "https://github.com/mpibench/mpibench.git"

    license("MIT OR Apache-2.0", checked_by="mpibench")

    version("main", branch="main")

    depends_on("mpi")
    depends_on("rust@1.80:", type="build")
    # rsmpi's mpi-sys generates its bindings with bindgen (libclang).
    depends_on("llvm", type="build")
    depends_on("gmake", type="build")

    def setup_build_environment(self, env):
        env.set("MPICC", self.spec["mpi"].mpicc)

    @run_after("install")
    def drop_ins(self):
        """The links and the man page, beside the binary cargo installed."""
        make(
            "install",
            f"PREFIX={self.prefix}",
            "NO_BUILD=1",
            f"INSTALL_BIN={self.prefix.bin.mpibench}",
        )

    def test_pingpong(self):
        """mpibench run -n 2 PingPong --check from the installed prefix"""
        mpibench = which(self.prefix.bin.mpibench)
        out = mpibench("run", "-n", "2", "PingPong", "--check", "--sizes", "0,1024",
                       "--iter", "20", output=str.split, error=str.split)
        assert "PingPong" in out

    def test_drop_ins(self):
        """the installed IMB-MPI1 and osu_latency links"""
        for link in ("bin/IMB-MPI1", "libexec/osu-micro-benchmarks/mpi/pt2pt/osu_latency"):
            assert os.path.islink(join_path(self.prefix, link)), link
