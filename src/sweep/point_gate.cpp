// The active ranks' agreement during a point (see point_gate.hpp).
#include "sweep/point_gate.hpp"

#include <vector>

#include "mpi/messages.hpp"

namespace iosweep {

std::string collect_failures(const std::string& mine, MPI_Comm comm) {
  const std::vector<std::string> all = gather_messages(mine, comm);
  std::string failure;
  int shown = 0, more = 0;
  for (const auto& m : all) {
    if (m.empty()) continue;
    if (shown++ < 8) {
      failure += (failure.empty() ? "" : "\n") + m;
    } else {
      ++more;
    }
  }
  if (more > 0) failure += "\n(and " + std::to_string(more) + " more ranks failed)";
  return failure;
}

bool PointGate::checkpoint(const std::string& mine) {
  if (gate_.max(mine.empty() ? 0 : 1) == 0) return true;
  failure_ = collect_failures(mine, comm_);
  return false;
}

bool PointGate::verdict(const std::string& rank0_verdict) {
  if (gate_.max(rank0_verdict.empty() ? 0 : 1) == 0) return true;
  failure_ = rank0_verdict;
  return false;
}

}  // namespace iosweep
