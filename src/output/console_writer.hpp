// The terminal report on rank 0: the run header, the placement (node -> ranks, with several
// folders which ranks use which folder and drive, and the points whose active ranks sit
// unequally on their nodes), one table row per point as soon as it is reduced (with a streams
// column when the run sweeps --streams; the metadata phases under a header of their own, in
// operations per second), and at the end a Peak & Sustained table per phase (the PixStor
// study's: the best point and the largest point) and the compute-adjacent "final math" for the
// largest filter-count point, as model/final_math.hpp made it (printed by output/final_math.cpp).
// Each Peak & Sustained figure carries the cache verdict of the rows it is the mean of (`cached
// 97%`, `unflushed 100%`: notes.hpp).
// Bandwidths are MiB/s (2^20 bytes/s), latencies microseconds.
#pragma once

#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

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
  void begin_step(const StepPlan& step, std::uint32_t index) override;
  void append_point(const PointResult& point, const LatencyHistogram& latency) override;
  void end_run(RunStatus status, const std::string& message) override;
  // Printed after the Peak & Sustained table when the run completes.
  void append_final_math(const FinalMath& fm) override { final_math_ = fm; }

 private:
  void print_step(const StepPlan& step, const std::string& engine_detail);
  bool by_streams() const;  // the run sweeps --streams: the table has a streams column
  void print_header(bool metadata);
  void print_records(const Config& cfg);
  void print_storage(const RunContext& ctx);
  void print_wire(const RunContext& ctx, const std::set<std::string>& by_node);
  void print_links(const RunContext& ctx);
  void print_placement(const RunContext& ctx);
  void print_unequal(const RunContext& ctx);
  void print_row(const PointResult& p, const std::string& notes);
  void print_peaks();
  void print_final_math();
  void print_left();
  void print_drives(const FinalMath& fm);
  void print_link(const FinalMathDriveRow& d);
  void print_rated(const FinalMathRow& r);
  void print_shipped(const FinalMathRow& r);
  void flush();

  std::FILE* out_;
  std::function<void()> reader_gone_;
  RunContext ctx_;
  int last_kind_ = -1;  // the rows printed last: 0 data, 1 metadata
  // Every row's headline and its cache verdict (notes.hpp), by (step, phase), then by ranks or
  // streams.
  struct Headline {
    double value;
    std::string verdict;
  };
  std::map<std::pair<std::uint32_t, PhaseId>, std::map<std::uint64_t, std::vector<Headline>>>
      headlines_;
  const StepPlan* step_ = nullptr;  // the step whose rows are printed
  std::uint32_t step_index_ = 0;
  std::optional<FinalMath> final_math_;
};

}  // namespace iosweep
