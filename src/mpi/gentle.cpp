// Non-spinning collectives (see gentle.hpp).
#include "mpi/gentle.hpp"

#include <time.h>

namespace iosweep {

void gentle_wait(MPI_Request& req, long max_sleep_ns) {
  long sleep_ns = 50'000;
  for (;;) {
    int done = 0;
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (done) return;
    const timespec ts{0, sleep_ns};
    nanosleep(&ts, nullptr);
    if (sleep_ns < max_sleep_ns) sleep_ns *= 2;
  }
}

void gentle_allreduce_int(const int* in, int* out, int count, MPI_Op op, MPI_Comm comm) {
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Iallreduce(in, out, count, MPI_INT, op, comm, &req);
  gentle_wait(req);
}

void gentle_bcast_int(int& value, int root, MPI_Comm comm, long max_sleep_ns) {
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Ibcast(&value, 1, MPI_INT, root, comm, &req);
  gentle_wait(req, max_sleep_ns);
}

}  // namespace iosweep
