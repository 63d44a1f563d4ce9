// The active ranks' agreement during one point: every step of a phase ends in it, so that a
// failure on any rank stops all of them at the same step, and rank 0 knows every rank's reason.
#pragma once

#include <mpi.h>

#include <string>

#include "mpi/waiting.hpp"

namespace iosweep {

// On rank 0 of `comm`: the failure messages of every rank of `comm` (collective), the first 8
// of them one per line and a count of the rest; empty where every rank's `mine` was empty.
std::string collect_failures(const std::string& mine, MPI_Comm comm);

class PointGate {
 public:
  explicit PointGate(MPI_Comm active) : gate_(active), comm_(active) {}  // collective
  // Every active rank says whether it is fine (`mine` empty), waiting in the kernel for the
  // others; when one is not, rank 0 collects every message into failure(). True when all are.
  bool checkpoint(const std::string& mine);
  // Rank 0's verdict (empty: go on), learned by every active rank; on rank 0 a verdict that
  // stops the run becomes failure(). True when the run goes on.
  bool verdict(const std::string& rank0_verdict);
  // On rank 0, after a step that returned false: why the point stops.
  const std::string& failure() const { return failure_; }

 private:
  Gate gate_;
  MPI_Comm comm_;
  std::string failure_;
};

}  // namespace iosweep
