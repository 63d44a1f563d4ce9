// Collectives that wait without spinning. Open MPI busy-polls inside blocking collectives, so a
// rank that waits there takes a core away from ranks still doing timed I/O on the same node.
// These wait in MPI_Test with sleeps that grow from 50 us to `max_sleep_ns`; they are used only
// by the one rank per machine that must follow other machines (mpi/waiting.hpp), all other
// waiting ranks sleep in the kernel.
#pragma once

#include <mpi.h>

namespace iosweep {

// Completes `req`, sleeping between tests.
void gentle_wait(MPI_Request& req, long max_sleep_ns = 1'000'000);

// MPI_Allreduce of `count` ints with `op`, waiting gently.
void gentle_allreduce_int(const int* in, int* out, int count, MPI_Op op, MPI_Comm comm);

// MPI_Bcast of one int from `root`, waiting gently (up to `max_sleep_ns` between tests).
void gentle_bcast_int(int& value, int root, MPI_Comm comm, long max_sleep_ns);

}  // namespace iosweep
