# Spack package of iosweep. Copy this folder into a Spack package repository (REPO/packages/
# iosweep/package.py) and point `git` at the clone the site builds from; `spack install iosweep`
# then builds with CMake, installs the same tree as `cmake --install` (README, "Installing it")
# and `spack load iosweep` puts iosweep, its tools and its Python package in reach.
# tests/install/test_packaging.py checks this file against CMakeLists.txt: its versions, and
# each variant against the CMake option it sets (name and default).
from spack.package import *


class Iosweep(CMakePackage):
    """MPI parallel I/O benchmark in the tradition of IOzone, IOR and mdtest: files per rank or
    shared, a sweep of active ranks or of streams, metadata phases, results in HDF5, and Python
    tools that read, compare, report and plot them."""

    homepage = "https://example.org/iosweep"  # the site's copy: set to where it is published
    git = "https://example.org/iosweep.git"  # the site's clone

    license("BSD-3-Clause")

    version("main", branch="main")
    version("0.1.0", tag="v0.1.0")

    variant("uring", default=True, description="Build the io_uring engine (liburing)")
    variant("mpiio", default=True, description="Build the MPI-IO engine")
    variant("bench", default=False, description="Build the filter kernel benchmark")

    depends_on("cmake@3.25:", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("mpi")
    depends_on("hdf5")
    depends_on("cli11@2:", type="build")
    depends_on("liburing", when="+uring")
    depends_on("benchmark", when="+bench", type="build")
    depends_on("googletest", type="test")
    depends_on("python@3.11:", type="run")
    depends_on("py-h5py", type="run")
    depends_on("py-numpy", type="run")
    depends_on("py-pandas", type="run")
    depends_on("py-matplotlib", type="run")

    def cmake_args(self):
        return [
            self.define_from_variant("IOSWEEP_WITH_URING", "uring"),
            self.define_from_variant("IOSWEEP_WITH_MPIIO", "mpiio"),
            self.define_from_variant("IOSWEEP_BUILD_BENCH", "bench"),
            self.define("IOSWEEP_BUILD_TESTS", self.run_tests),
        ]

    def setup_run_environment(self, env):
        # What the Lmod modulefile sets (packaging/iosweep.lua.in).
        env.set("IOSWEEP_ROOT", self.prefix)
        env.set("IOSWEEP_LIBEXEC", join_path(self.prefix, "libexec", "iosweep"))
        env.prepend_path("PYTHONPATH", join_path(self.prefix, "lib", "python3", "dist-packages"))
