// Version strings (see versions.hpp).
#include "output/versions.hpp"

#include <hdf5.h>
#include <sys/utsname.h>

#include "core/filter_kernel.hpp"
#include "model/engine_desc.hpp"
#include "model/version.hpp"
#include "mpi/session.hpp"

namespace iosweep {

std::string hdf5_version() {
  unsigned maj = 0, min = 0, rel = 0;
  H5get_libversion(&maj, &min, &rel);
  return std::to_string(maj) + "." + std::to_string(min) + "." + std::to_string(rel);
}

std::string kernel_version() {
  utsname u{};
  uname(&u);
  return std::string(u.sysname) + " " + u.release + " " + u.machine;
}

std::string version_text() {
  std::string s = std::string("iosweep ") + build::kVersion + " (git " + build::kGitRevision +
                  ", " + build::kBuildType + ", " + build::kCompiler + ")\n";
  s += "MPI: " + mpi_library_version() + "\n";
  s += "HDF5: " + hdf5_version() + "\n";
  s += std::string("liburing: ") + build::kLiburingVersion + "\n";
  s += "engines compiled in: " + compiled_engines() + "\n";
  s += std::string("filter kernel on this CPU: ") +
       filter_kernel_name(resolve_filter_kernel(FilterKernel::automatic)) + "\n";
  s += "kernel: " + kernel_version() + "\n";
  return s;
}

std::string versions_toml() {
  auto q = [](const std::string& v) { return "\"" + v + "\""; };
  std::string s;
  s += "iosweep = " + q(build::kVersion) + "\n";
  s += "git = " + q(build::kGitRevision) + "\n";
  s += "build_type = " + q(build::kBuildType) + "\n";
  s += "compiler = " + q(build::kCompiler) + "\n";
  s += "mpi = " + q(mpi_library_version()) + "\n";
  s += "hdf5 = " + q(hdf5_version()) + "\n";
  s += "liburing = " + q(build::kLiburingVersion) + "\n";
  s += "engines = " + q(compiled_engines()) + "\n";
  s += "kernel = " + q(kernel_version()) + "\n";
  return s;
}

}  // namespace iosweep
