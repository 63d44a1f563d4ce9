// Rank liveness (see liveness.hpp).
#include "sweep/liveness.hpp"

#include <mpi.h>

#include <cstring>

#include "os/process.hpp"
#include "sweep/signals.hpp"

namespace iosweep {

RankLiveness::RankLiveness(const LocalPlace& place, bool rank0) : place_(place) {
  const ProcessIdentity me = self_identity();
  Process mine{me.pid, me.start_ticks, {}};
  std::strncpy(mine.boot_id, me.boot_id.c_str(), sizeof mine.boot_id - 1);
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  processes_.resize(rank0 ? static_cast<std::size_t>(size) : 0);
  MPI_Gather(&mine, sizeof mine, MPI_BYTE, processes_.data(), sizeof mine, MPI_BYTE, 0,
             MPI_COMM_WORLD);
}

std::string RankLiveness::why_stopped(int sig, const Room* room) const {
  std::string lost, signalled;
  for (std::size_t r = 0; r < processes_.size(); ++r) {
    const Process& p = processes_[r];
    if (liveness_here(p.boot_id, p.pid, p.start_ticks) != Liveness::gone) continue;
    const auto node = static_cast<std::size_t>(place_.full.ranks[r].node);
    const std::string name = "rank " + std::to_string(r) + " (host " + place_.full.hosts[node] +
                             ", pid " + std::to_string(p.pid) + ")";
    const int noted = room != nullptr ? room->signal_of(static_cast<int>(r)) : 0;
    std::string& list = noted != 0 ? signalled : lost;
    list += (list.empty() ? "" : ", ") + (noted != 0 ? name + " on " + signal_name(noted) : name);
  }
  const std::string name = signal_name(sig);
  if (!lost.empty())
    return "a rank was lost: " + lost +
           " ended without iosweep's cleanup (killed, or its node lost); the launcher then "
           "stopped the job with " +
           name;
  if (!signalled.empty())
    return "interrupted: " + signalled +
           " ended through iosweep's cleanup; the launcher then stopped the job with " + name;
  return "interrupted by " + name;
}

}  // namespace iosweep
