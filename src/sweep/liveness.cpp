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

// Only ranks of rank 0's own machine are judged: their signals are in its shared page, and a
// process of another machine cannot be told from here (on emulated nodes, which share one
// kernel, it could be seen gone, but not whether it ended through the cleanup).
// A rank gone with the signal rank 0 now handles, from the same sender, was stopped by the same
// delivery (the launcher signals every rank at once, and a quick rank may have cleaned up and
// ended before rank 0's watcher looks): it is not a cause, and the run was interrupted by it.
std::string RankLiveness::why_stopped(const Signal& sig, const Room* room) const {
  std::string lost, signalled;
  const int here = processes_.empty() ? 0 : place_.full.ranks[0].node;
  for (std::size_t r = 0; r < processes_.size(); ++r) {
    const Process& p = processes_[r];
    const auto node = static_cast<std::size_t>(place_.full.ranks[r].node);
    if (place_.full.ranks[r].node != here) continue;
    if (liveness_here(p.boot_id, p.pid, p.start_ticks) != Liveness::gone) continue;
    const NotedSignal noted =
        room != nullptr ? room->signal_of(static_cast<int>(r)) : NotedSignal{};
    if (noted.number == sig.number && noted.sender_pid == sig.sender_pid) continue;
    const std::string name = "rank " + std::to_string(r) + " (host " + place_.full.hosts[node] +
                             ", pid " + std::to_string(p.pid) + ")";
    std::string& list = noted.number != 0 ? signalled : lost;
    list += (list.empty() ? "" : ", ") +
            (noted.number != 0 ? name + " on " + signal_name(noted.number) : name);
  }
  const std::string name = signal_name(sig.number);
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
