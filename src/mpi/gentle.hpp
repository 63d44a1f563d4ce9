// Collectives that wait without spinning. Open MPI busy-polls inside blocking collectives, so a
// rank that waits there (an idle rank during a point, or a rank that finished before the
// others) takes a core away from ranks still doing timed I/O on the same node. These wait in
// MPI_Test with short sleeps instead (50 us growing to 1 ms), which costs at most a millisecond
// after the slowest rank arrives, outside every timed window.
#pragma once

#include <mpi.h>

namespace iosweep {

// MPI_Allreduce of `count` ints with `op`, waiting gently.
void gentle_allreduce_int(const int* in, int* out, int count, MPI_Op op, MPI_Comm comm);

}  // namespace iosweep
