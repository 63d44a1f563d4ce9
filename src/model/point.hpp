// One reduced point (phase x active ranks x repetition): the rows the writers print and store,
// and the book of the points already reduced at the same (ranks, repetition), which a phase's
// own reduction may read (filter-count's efficiency against its control).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/phase_desc.hpp"
#include "model/schema.hpp"

namespace iosweep {

struct PointResult {
  SummaryRow summary{};
  std::vector<RankRow> ranks;
  std::vector<NodeRow> nodes;
  std::vector<TimeSeriesRow> series;
  std::vector<DeviceRow> devices;
  std::vector<WireRow> wire;
  // The engine rank 0 ran this phase on, as built: "uring depth 8: setup flags ...".
  std::string engine_detail;
  // What the row's figures carry beyond them, in words: what could not be measured and why,
  // what ran when it differs from what was asked, a window too short to be stable.
  std::vector<std::string> notes;
};

class PointBook {
 public:
  void clear() { rows_.clear(); }
  void add(const SummaryRow& s) { rows_[s.phase] = s; }
  // The summary of `phase` at the same ranks and repetition, or nullptr when it did not run.
  const SummaryRow* find(PhaseId phase) const {
    const auto it = rows_.find(phase);
    return it == rows_.end() ? nullptr : &it->second;
  }

 private:
  std::map<PhaseId, SummaryRow> rows_;
};

}  // namespace iosweep
