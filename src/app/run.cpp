// Wiring of one invocation (see run.hpp).
#include "app/run.hpp"

#include <cstdio>

#include "app/cli.hpp"
#include "app/config_check.hpp"
#include "app/option_table.hpp"
#include "app/rerun.hpp"
#include "core/errors.hpp"
#include "mpi/topology.hpp"
#include "sweep/plan.hpp"
#include "sweep/run_sweep.hpp"

namespace iosweep {

int run_app(int argc, char** argv, const MpiSession& mpi) {
  const bool rank0 = mpi.rank() == 0;
  CliResult cli = parse_cli(argc, argv, load_run_on_rank0(MPI_COMM_WORLD));
  if (cli.action == CliResult::Action::print) {
    if (rank0) std::fputs(cli.text.c_str(), stdout);
    return 0;
  }
  if (cli.action == CliResult::Action::usage_error) {
    if (rank0) std::fprintf(stderr, "iosweep: %s\n", printable(cli.text).c_str());
    return kExitUsage;
  }
  Config& cfg = cli.cfg;
  const LocalPlace place = gather_topology(MPI_COMM_WORLD, mpi.host(), cfg.sweep.placement,
                                           static_cast<int>(cfg.work.dirs.size()));
  const std::string note = fit_rerun_to_world(cli.rerun, cfg.sweep, mpi.size(), place.n_nodes);
  if (rank0 && !note.empty()) std::fprintf(stderr, "iosweep: %s\n", printable(note).c_str());
  std::vector<SweepPoint> points;
  std::string engine_detail;
  if (auto why = validate_run(cfg, mpi, place, points, engine_detail); !why.empty()) {
    if (rank0) std::fprintf(stderr, "iosweep: %s\n", printable(why).c_str());
    return kExitUsage;
  }
  cfg.recorded = record_options(cfg);
  if (cfg.dry_run) {
    if (rank0) print_plan(stdout, cfg, points, place.full);
    return 0;
  }
  return run_sweep(cfg, mpi, place, points, engine_detail);
}

}  // namespace iosweep
