// Checks made before anything is created, on every rank, agreed collectively: the run plan
// (sweep/plan.hpp, which already refused what cannot be planned) against the machine as src/os
// reports it: --dir on every node, O_DIRECT support and alignment, record sizes, the engine, the
// filter kernel, memory, --output, --reuse files, and the free space and inodes of every point
// (its data files and metadata items together).
// Returns one line "--option: problem" (the same on every rank) or an empty string.
#pragma once

#include <string>
#include <vector>

#include "model/config.hpp"
#include "model/run_plan.hpp"
#include "mpi/session.hpp"
#include "mpi/topology.hpp"

namespace iosweep {

// Checks the plan against this machine (its folders, the engine, memory, --output, free space
// and inodes for every point) and settles what the checks measure (each step's O_DIRECT
// alignment, the largest any node needs); `engine_details` gets each step's engine probe
// (rank 0's, recorded with the run).
std::string validate_run(RunPlan& plan, const MpiSession& mpi, const LocalPlace& place,
                         std::vector<std::string>& engine_details);

}  // namespace iosweep
