// Non-spinning collectives (see gentle.hpp).
#include "mpi/gentle.hpp"

#include <time.h>

namespace iosweep {

void gentle_allreduce_int(const int* in, int* out, int count, MPI_Op op, MPI_Comm comm) {
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Iallreduce(in, out, count, MPI_INT, op, comm, &req);
  long sleep_ns = 50'000;
  for (;;) {
    int done = 0;
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (done) return;
    const timespec ts{0, sleep_ns};
    nanosleep(&ts, nullptr);
    if (sleep_ns < 1'000'000) sleep_ns *= 2;
  }
}

}  // namespace iosweep
