// Checks made before anything is created, on every rank, agreed collectively: the sweep against
// the world size, --dir on every node, O_DIRECT support and alignment, record sizes, the engine,
// the filter kernel, --output, --reuse files and the free space the largest point needs.
// Returns one line "--option: problem" (the same on every rank) or an empty string.
#pragma once

#include <string>
#include <vector>

#include "model/config.hpp"
#include "mpi/session.hpp"
#include "mpi/topology.hpp"

namespace iosweep {

// Fills `points` and the engine's probe `engine_detail` (rank 0's, recorded with the run).
std::string validate_run(Config& cfg, const MpiSession& mpi, const LocalPlace& place,
                         std::vector<SweepPoint>& points, std::string& engine_detail);

}  // namespace iosweep
