// Each rank's memory over the run: its largest private memory while it ran phases and while it
// waited out points as an idle rank, and at the end, with its CPU time and peak resident memory
// from the kernel, gathered to rank 0 for the results file (the rank_usage table).
#pragma once

#include <cstdint>
#include <vector>

#include "model/schema.hpp"

namespace iosweep {

class RankMemory {
 public:
  // After a phase: the private memory the phase's sample saw.
  void note_phase(std::uint64_t private_bytes);
  // After a point: what this rank holds now, as an active or an idle rank.
  void note_point(bool active);
  // Collective over the world: every rank's row, on rank 0 (empty elsewhere).
  std::vector<RankUsageRow> gather(int rank, bool rank0) const;

 private:
  std::uint64_t peak_ = 0;       // largest private memory seen
  std::uint64_t idle_peak_ = 0;  // the same, at the end of points it waited out
};

}  // namespace iosweep
