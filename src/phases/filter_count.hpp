// The filter-count phase: each active rank scans its file as 64-bit integers and counts the
// words equal to --filter-key, in situ; only the 8-byte count travels to rank 0 (one
// MPI_Reduce, made by the runner for every phase flagged as counting), which compares the total
// with the exact expected count. The same class, built from the scan-only row (no counting
// flag), is its control: the identical read path (engine, threads, depth, records, buffers,
// the consumer called on every record) with the counting switched off, so that
// filter_efficiency = filter-count / scan-only measures what counting costs and nothing else.
//
// Reads overlap with counting: the next records are in flight while the current one is
// counted (io_uring or MPI-IO keeping as many bytes in flight as seq-read, or posix with two
// read-ahead threads), and a completed record's slot is refilled before the record is counted.
// Records are --scan-record bytes: by default 1 MiB, so that a buffer just read is counted while
// it is still in the L2 cache, and --seq-record with O_DIRECT, where the data arrives by DMA
// and only the request size matters (1 MiB requests left the scan 10-30% behind seq-read's
// 16 MiB ones on a virtio disk).
#pragma once

#include <optional>

#include "core/aligned_buffer.hpp"
#include "core/filter_kernel.hpp"
#include "core/permutation.hpp"
#include "model/point.hpp"
#include "phases/phase.hpp"

namespace iosweep {

// The scan a counting phase makes of the file its rank reads: records of --scan-record over the
// file's valid bytes, front to back, or over the point's regions side by side (--streams).
struct ScanPlan {
  std::string path;
  std::uint64_t record = 0;
  std::uint64_t data_bytes = 0;  // whole records only
  std::optional<RecordOrder> order;
};
ScanPlan plan_scan(const PhaseContext& ctx);

class FilterCount final : public Phase {
 public:
  using Phase::Phase;
  std::string validate(const Workload& work, const EngineOptions& io) const override;
  EngineNeed engine_need(const Workload& work, const EngineOptions& io,
                         const RankStreams& per_rank) const override;
  std::uint64_t buffer_bytes(const Workload& work, const SweepPoint& point,
                             const PhasePlan& plan) const override;
  void prepare(PhaseContext& ctx) override;
  void run(PhaseContext& ctx, RankSample& sample) override;
  void cleanup(PhaseContext& ctx) override;

  // The phase's own reduction: efficiency against its scan-only control and against seq-read,
  // at the same point and repetition.
  static void reduce(SummaryRow& s, const PointBook& book);

 private:
  AlignedBuffer buffers_;
  ScanPlan scan_;
  CountFn count_ = nullptr;
  double cached_fraction_ = 0;
};

}  // namespace iosweep
