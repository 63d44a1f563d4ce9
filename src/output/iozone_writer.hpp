// --format iozone: besides the table, IOzone-style throughput blocks ("Children see throughput
// for N initial writers = X kB/sec", min/max/avg per process, min xfer) so that tools reading
// IOzone output read iosweep's. kB is 1024 bytes, as in IOzone; random phases are in ops/sec
// (IOzone -O). "Children see" carries iosweep's IOzone-equivalent stonewalled children rate,
// "Parent sees" the wall figure; the per-process lines are each rank's full-phase rate.
// Phases without an IOzone label in the phase table (filter-count) are not printed here.
#pragma once

#include <cstdio>

#include "output/writer.hpp"

namespace iosweep {

class IozoneWriter final : public ResultWriter {
 public:
  explicit IozoneWriter(std::FILE* out = stdout) : out_(out) {}
  void begin_run(const RunContext& ctx) override;
  void append_point(const PointResult& point, const LatencyHistogram& latency) override;
  void end_run(RunStatus status, const std::string& message) override;

 private:
  std::FILE* out_;
  const Workload* work_ = nullptr;
};

}  // namespace iosweep
