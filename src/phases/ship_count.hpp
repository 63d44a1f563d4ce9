// The ship-count phase: the contrast to filter-count. Each active rank reads its file exactly as
// filter-count does (same engine, depth and records) but, instead of counting, sends every
// record over MPI to a collector rank, which counts the keys in what it receives. The collector
// of position p is position (p + K) mod k with the smallest K that puts every collector on
// another node (--collector next-node; another rank of the same node when one node is in use,
// which the row's mpi_remote_bytes shows), or position 0 for every rank (--collector rank0).
//
// A rank's window holds its own reading and shipping and its collecting: it opens its file,
// reads it through the I/O loop, sends each completed record (its tag is the record's index)
// and waits for the send while receiving and counting what its own senders ship, closes, then
// receives until every sender has said it is done (a zero-length message). Receives are posted
// before the window; a rank waiting for its send keeps receiving, so no ring of senders can
// wait on each other. The count is checked against the exact expected count of the records
// received, so a stonewalled run is checked too.
#pragma once

#include <mpi.h>

#include <optional>
#include <vector>

#include "core/aligned_buffer.hpp"
#include "core/filter_kernel.hpp"
#include "core/permutation.hpp"
#include "model/point.hpp"
#include "phases/filter_count.hpp"
#include "phases/phase.hpp"

namespace iosweep {

class ShipCount final : public Phase {
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

  // filter_vs_ship: filter-count's bandwidth over this row's, at the same point.
  static void reduce(SummaryRow& s, const PointBook& book);

 private:
  class Collecting;

  AlignedBuffer buffers_, inbox_;
  ScanPlan scan_;
  CountFn count_ = nullptr;
  int collector_ = 0;              // rank in ctx.active (= position) this rank sends to
  bool collector_remote_ = false;  // on another node
  std::vector<int> sender_files_;  // for each rank that sends to this one: the file it reads
  MPI_Comm comm_ = MPI_COMM_NULL;  // a copy of the active ranks, for this phase's messages
  double cached_fraction_ = 0;
};

}  // namespace iosweep
