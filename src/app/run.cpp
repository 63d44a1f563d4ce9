// Wiring of one invocation (see run.hpp): the command line, then the command it names (the run
// of app/launch.hpp, or the IO500 of app/io500_command.hpp).
#include "app/run.hpp"

#include <cstdio>

#include "app/cli.hpp"
#include "app/io500_command.hpp"
#include "app/launch.hpp"
#include "core/errors.hpp"

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
  if (cli.action == CliResult::Action::io500) return run_io500(cli, argc, argv, mpi);
  return plan_and_run(cli.steps, cli.rerun, mpi, {});
}

}  // namespace iosweep
