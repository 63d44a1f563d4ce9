// Rank memory accounting (see usage.hpp).
#include "sweep/usage.hpp"

#include <mpi.h>

#include <algorithm>

#include "os/process.hpp"

namespace iosweep {

void RankMemory::note_phase(std::uint64_t private_bytes) {
  peak_ = std::max(peak_, private_bytes);
}

void RankMemory::note_point(bool active) {
  const std::uint64_t now = private_bytes();
  peak_ = std::max(peak_, now);
  if (!active) idle_peak_ = std::max(idle_peak_, now);
}

std::vector<RankUsageRow> RankMemory::gather(int rank, bool rank0) const {
  const Usage u = self_usage();
  const RankUsageRow mine{rank, u.rss_peak_bytes, peak_, idle_peak_, u.user_s, u.sys_s};
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<RankUsageRow> all(rank0 ? static_cast<std::size_t>(size) : 0);
  MPI_Gather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, 0, MPI_COMM_WORLD);
  return all;
}

}  // namespace iosweep
