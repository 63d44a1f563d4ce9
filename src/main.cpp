// iosweep's entry point: thin, as elbencho's Main.cpp (`iosweep help-man` prints the man page
// and ends before MPI starts). Signals are blocked before MPI starts its threads (see
// sweep/signals.hpp); one try/catch turns anything unexpected into a message and an MPI_Abort,
// so that no rank is left waiting.
#include <cstdio>
#include <exception>
#include <string_view>

#include "app/cli.hpp"
#include "app/run.hpp"
#include "mpi/session.hpp"
#include "sweep/signals.hpp"

int main(int argc, char** argv) {
  // The man page (app/man_page.hpp) before MPI starts: a build makes it where MPI cannot start.
  if (argc == 2 && std::string_view(argv[1]) == "help-man")
    return std::fputs(iosweep::man_page().c_str(), stdout) < 0 ? 1 : 0;
  iosweep::SignalWatcher::block_signals();
  iosweep::MpiSession mpi(&argc, &argv);
  try {
    return iosweep::run_app(argc, argv, mpi);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "iosweep: rank %d (host %s): fatal: %s\n", mpi.rank(), mpi.host().c_str(),
                 e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return 1;
}
