// One invocation of iosweep: parse, validate, then print the plan (--dry-run) or run the sweep.
#pragma once

#include "mpi/session.hpp"

namespace iosweep {

// Returns the process exit status: 0, 1 (run failed), 2 (bad input).
int run_app(int argc, char** argv, const MpiSession& mpi);

}  // namespace iosweep
