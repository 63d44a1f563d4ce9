// SweepRunner: the MPI glue of one run. For every point k it splits the active communicator
// (the first k ranks of the activation order), then for every repetition and phase: untimed
// preparation, a barrier on the active ranks, the timed phase, one gather of the per-rank
// samples, one MPI_Reduce of the latency histograms (and of the filter count), and on rank 0
// the reduction and the writers. Ranks outside the point only join the world-level decisions.
// Every failure is agreed on collectively, so that no rank is left waiting in a collective.
#pragma once

#include <vector>

#include <string>

#include "model/config.hpp"
#include "mpi/session.hpp"
#include "mpi/topology.hpp"

namespace iosweep {

// Runs the sweep over `points` (already validated) and returns the process exit status.
// `engine_detail` is what the engine's probe found (recorded with the run).
int run_sweep(const Config& cfg, const MpiSession& mpi, const LocalPlace& place,
              const std::vector<SweepPoint>& points, const std::string& engine_detail);

}  // namespace iosweep
