// Versions of iosweep and of everything it measures through (MPI, HDF5, liburing, the engines,
// the kernel), for --version and the results file.
#pragma once

#include <string>

namespace iosweep {

std::string hdf5_version();
std::string kernel_version();
// One line per component, for --version.
std::string version_text();
// The same as TOML (the results file's `versions` attribute).
std::string versions_toml();

}  // namespace iosweep
