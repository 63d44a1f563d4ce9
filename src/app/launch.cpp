// The run of a list of steps (see launch.hpp): the command line's run and the IO500's.
#include "app/launch.hpp"

#include <cstdio>

#include "app/config_check.hpp"
#include "app/option_table.hpp"
#include "core/errors.hpp"
#include "mpi/messages.hpp"
#include "mpi/topology.hpp"
#include "os/process.hpp"
#include "sweep/plan.hpp"
#include "sweep/run_sweep.hpp"

namespace iosweep {
namespace {

// The plan, made on rank 0 (the only rank that knows the whole placement) and broadcast: every
// rank gets rank 0's decisions and keeps the configurations it parsed itself, which must be the
// same as rank 0's (a preset read from a node-local folder could differ). Empty, or why not.
std::string plan_on_rank0(const std::vector<StepInput>& steps, const LocalPlace& place,
                          const MpiSession& mpi, RunPlan& plan) {
  std::vector<std::string> msg(2);
  if (mpi.rank() == 0) {
    const Config& first = steps.front().cfg;
    const std::uint64_t base = first.work.order_seed_pinned ? first.work.order_seed : random_u64();
    msg[0] = plan_run(steps, place.full, base, plan);
    if (msg[0].empty()) {
      const std::vector<char> bytes = pack_plan(plan);
      msg[1].assign(bytes.begin(), bytes.end());
    }
  }
  broadcast_strings(msg, MPI_COMM_WORLD);
  if (!msg[0].empty()) return msg[0];
  std::string mine;
  if (mpi.rank() != 0) {
    std::vector<Config> configs;
    configs.reserve(steps.size());
    for (const StepInput& s : steps)
      configs.push_back(s.cfg);
    try {
      plan = unpack_plan(std::vector<char>(msg[1].begin(), msg[1].end()), configs);
    } catch (const std::exception& e) {
      mine = "--config: rank " + std::to_string(mpi.rank()) + " (host " + mpi.host() +
             ") read another configuration than rank 0 (" + e.what() + ")";
    }
    for (std::size_t i = 0; mine.empty() && i < steps.size(); ++i)
      if (steps[i].toml != plan.steps[i].toml)
        mine = "--config: rank " + std::to_string(mpi.rank()) + " (host " + mpi.host() +
               ") read another configuration than rank 0 (a preset that differs between nodes?)";
  }
  return agree_first(mine, MPI_COMM_WORLD);
}

}  // namespace

int plan_and_run(std::vector<StepInput>& steps, const RerunSource& rerun, const MpiSession& mpi,
                 RunExtras extras) {
  const bool rank0 = mpi.rank() == 0;
  const Config& cfg = steps.front().cfg;
  const LocalPlace place = gather_topology(MPI_COMM_WORLD, mpi.host(), cfg.sweep.placement,
                                           static_cast<int>(cfg.work.dirs.size()));
  std::string note;
  for (StepInput& step : steps)
    note = fit_rerun_to_world(rerun, step.cfg.sweep, mpi.size(), place.n_nodes);
  if (rank0 && !note.empty()) std::fprintf(stderr, "iosweep: %s\n", printable(note).c_str());
  RunPlan plan;
  std::vector<std::string> engine_details;
  std::string why = plan_on_rank0(steps, place, mpi, plan);
  if (why.empty()) why = validate_run(plan, mpi, place, engine_details);
  if (!why.empty()) {
    if (rank0) std::fprintf(stderr, "iosweep: %s\n", printable(why).c_str());
    if (extras.refused) extras.refused();
    return kExitUsage;
  }
  for (StepPlan& step : plan.steps)
    step.cfg.recorded = record_options(step.cfg);
  // What the plan had to settle, said once before anything runs (the dry run prints it too).
  for (const StepPlan& step : plan.steps)
    for (const std::string& n : step.notes)
      if (rank0 && !cfg.dry_run)
        std::fprintf(stderr, "iosweep: warning: %s%s\n",
                     step.name.empty() ? "" : ("step '" + printable(step.name) + "': ").c_str(),
                     printable(n).c_str());
  if (cfg.dry_run) {
    if (rank0) print_plan(stdout, plan, place.full);
    if (extras.refused) extras.refused();  // a dry run leaves nothing behind either
    return 0;
  }
  return run_sweep(plan, mpi, place, engine_details, rank0 ? std::move(extras.writer) : nullptr);
}

}  // namespace iosweep
