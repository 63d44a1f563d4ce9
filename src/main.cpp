// iosweep's entry point: thin, as elbencho's Main.cpp. Signals are blocked before MPI starts
// its threads (see sweep/signals.hpp); one try/catch turns anything unexpected into a message
// and an MPI_Abort, so that no rank is left waiting.
#include <cstdio>
#include <exception>

#include "app/run.hpp"
#include "mpi/session.hpp"
#include "sweep/signals.hpp"

int main(int argc, char** argv) {
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
