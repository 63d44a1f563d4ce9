// Which ranks are still there, for the run's status when it is stopped: every rank's process
// (pid, start time, boot) is gathered on rank 0 at the start, and when the launcher stops the
// job, rank 0's signal watcher tells a rank of its machine that was lost (its process gone
// without a word: it was killed) from one that a signal reached first (it noted the signal and
// its sender in the machine's shared page, mpi/waiting.hpp, and ended through iosweep's
// cleanup), so that the status names the cause rather than the signal the launcher sent the
// others afterwards; a rank that the same delivery stopped first is no cause.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mpi/topology.hpp"
#include "mpi/waiting.hpp"
#include "sweep/signals.hpp"

namespace iosweep {

class RankLiveness {
 public:
  // Collective over the world: every rank's process, on rank 0.
  RankLiveness(const LocalPlace& place, bool rank0);
  // On rank 0, in the signal watcher: why the run stopped, as its status says it.
  std::string why_stopped(const Signal& sig, const Room* room) const;

 private:
  struct Process {
    std::int64_t pid;
    std::uint64_t start_ticks;
    char boot_id[40];
  };
  const LocalPlace& place_;
  std::vector<Process> processes_;  // rank 0: index = world rank
};

}  // namespace iosweep
