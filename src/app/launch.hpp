// The run of a list of steps, whichever command made them (`iosweep run`, `iosweep io500`):
// the placement, the plan (made on rank 0 and broadcast), the checks against the machine, then
// the dry run's report or the run.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "app/rerun.hpp"
#include "mpi/session.hpp"
#include "output/writer.hpp"
#include "sweep/plan.hpp"

namespace iosweep {

// What a command built on the ordinary run adds to it: a writer of its own beside the console
// and the results file (rank 0), and what to undo when the run is refused before it starts
// (or is a dry run), on every rank.
struct RunExtras {
  std::unique_ptr<ResultWriter> writer;
  std::function<void()> refused;
};

// The run of `steps`: the placement, the plan (made on rank 0 and broadcast), the checks
// against the machine, then the dry run's report or the run. An exit status.
int plan_and_run(std::vector<StepInput>& steps, const RerunSource& rerun, const MpiSession& mpi,
                 RunExtras extras);

}  // namespace iosweep
