// The terminal report on rank 0: the run header, the placement (node -> ranks, and with several
// folders which ranks use which folder and drive), one table row per point as soon as it is
// reduced (with a streams column when the run sweeps --streams), and at the end the
// compute-adjacent "final math" for the largest filter-count point (output/final_math.cpp).
// Bandwidths are MiB/s (2^20 bytes/s), latencies microseconds.
#pragma once

#include <cstdio>
#include <functional>
#include <optional>
#include <set>
#include <string>

#include "output/writer.hpp"

namespace iosweep {

class ConsoleWriter final : public ResultWriter {
 public:
  // `reader_gone` is called once when a write to `out` finds its reader gone (EPIPE: `iosweep
  // run | head` after head exited), so that the run ends through its own cleanup, as SIGPIPE
  // would have ended it without one.
  explicit ConsoleWriter(std::FILE* out = stdout, std::function<void()> reader_gone = {})
      : out_(out), reader_gone_(std::move(reader_gone)) {}
  void begin_run(const RunContext& ctx) override;
  void append_point(const PointResult& point, const LatencyHistogram& latency) override;
  void end_run(RunStatus status, const std::string& message) override;

 private:
  bool by_streams() const;  // the run sweeps --streams: the table has a streams column
  void print_header();
  void print_storage(const RunContext& ctx);
  void print_wire(const RunContext& ctx, const std::set<std::string>& by_node);
  void print_placement(const RunContext& ctx);
  void print_drives(const PointResult& p);
  void print_final_math();
  void print_rated(double per_unit_Bps, const char* unit);
  void print_shipped(const SummaryRow& filter);
  void flush();

  std::FILE* out_;
  std::function<void()> reader_gone_;
  RunContext ctx_;
  int rows_printed_ = 0;
  std::optional<PointResult> last_filter_;
  std::optional<PointResult> last_ship_;
};

}  // namespace iosweep
