// SweepRunner: the MPI glue of one run, as its plan says it. For every step, for every point k
// it splits the active communicator (the first k ranks of the activation order), then for
// every repetition and phase: untimed
// preparation, a barrier on the active ranks, the timed phase, one gather of the per-rank
// samples, one MPI_Reduce of the latency histograms (and of the filter count), and on rank 0
// the reduction and the writers. Ranks outside the point only join the world-level decisions.
// Every failure is agreed on collectively, so that no rank is left waiting in a collective.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/run_plan.hpp"
#include "mpi/session.hpp"
#include "mpi/topology.hpp"
#include "output/writer.hpp"

namespace iosweep {

// Runs the plan (already checked against the machine) and returns the process exit status.
// `engine_details` is what each step's engine probe found (recorded with the run).
// `extra`: a writer of the caller's beside the console and the results file (rank 0's only;
// the IO500's result files), or null.
int run_sweep(const RunPlan& plan, const MpiSession& mpi, const LocalPlace& place,
              const std::vector<std::string>& engine_details,
              std::unique_ptr<ResultWriter> extra = nullptr);

}  // namespace iosweep
