// Rank 0's side of every point: the generic reduction, the phase's own reduction from the book
// of points already reduced at the same (ranks, repetition), the checks (exact count, --verify)
// and the writers. A phase whose control runs after it in this repetition waits for it (its
// efficiency is a ratio to the control), and is written right after the control; point
// indices follow the order in which points are written.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/point.hpp"
#include "output/writer.hpp"
#include "phases/phase_table.hpp"
#include "sweep/reducer.hpp"

namespace iosweep {

class PointRecorder {
 public:
  // `where` names a sample's rank and host; `path_of` the file at a position.
  PointRecorder(ResultWriter& writers, std::function<std::string(const RankSample&)> where,
                std::function<std::string(int)> path_of)
      : writers_(writers), where_(std::move(where)), path_of_(std::move(path_of)) {}

  // A new (ranks, repetition): the phases in the order they will run.
  void begin(std::vector<PhaseId> order);
  // Reduces, checks and writes (or holds) one point; returns why the run stops, or empty.
  std::string record(const PhaseRow& row, const PointInput& in, std::string engine_detail);
  // Writes a held point without its control (the run stops before the control ran).
  std::string flush();

 private:
  struct Held {
    const PhaseRow* row;
    PointResult point;
    LatencyHistogram latency;
  };
  std::string write(const PhaseRow& row, PointResult& p, const LatencyHistogram& latency);
  std::string check(const PhaseDesc& phase, const PointResult& p,
                    const std::vector<RankSample>& samples) const;
  bool control_still_to_run(const PhaseDesc& subject) const;

  ResultWriter& writers_;
  std::function<std::string(const RankSample&)> where_;
  std::function<std::string(int)> path_of_;
  PointBook book_;
  std::vector<PhaseId> order_, done_;
  std::optional<Held> held_;
  std::uint32_t next_point_ = 0;
};

}  // namespace iosweep
