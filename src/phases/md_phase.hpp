// The metadata phases in one class, configured by their phase table row (mdtest's phases):
// md-mkdir makes this rank's folder trees (each stream's, or position 0 the shared one),
// md-create its items (writing --md-write-bytes, fsyncing with --md-fsync), md-stat and md-read
// the items of the position their read shift names (another node's when the point spans nodes),
// md-remove its items, md-rmdir its trees. What a phase needs and no earlier phase of the
// repetition made (the trees, the items) is made untimed before its window (phases/md_set.hpp).
//
// Timing: a rank's window runs from its exit from the active ranks' barrier to its last
// request's completion; the row's headline is every rank's operations over the slowest rank's
// window, mdtest's and IO500's rate (sweep/reducer.cpp). One operation is one item as mdtest
// counts it: a create is open + write + fsync + close, a read is open + read + close.
#pragma once

#include <vector>

#include "core/aligned_buffer.hpp"
#include "phases/md_driver.hpp"
#include "phases/phase.hpp"

namespace iosweep {

class MdPhase final : public Phase {
 public:
  using Phase::Phase;
  std::string validate(const Workload& work, const EngineOptions& io) const override;
  EngineNeed engine_need(const Workload& work, const EngineOptions& io,
                         const RankStreams& per_rank) const override;
  std::uint64_t buffer_bytes(const Workload& work, const SweepPoint& point,
                             const PhasePlan& plan) const override;
  bool data_files() const override { return false; }
  int caches_to_drop(const Workload& work, const EngineOptions& io) const override;
  std::uint64_t progress_record(const Workload& work) const override;
  void prepare(PhaseContext& ctx) override;
  void run(PhaseContext& ctx, RankSample& sample) override;
  void finish(PhaseContext& ctx, RankSample& sample) override;
  void cleanup(PhaseContext& ctx) override;

 private:
  IoOp op() const;
  bool ensure(PhaseContext& ctx);
  void build_names(const PhaseContext& ctx);
  MdJob job(PhaseContext& ctx);

  MdNames names_;
  std::vector<std::uint64_t> needs_;  // folder phases: what each request waits for
  AlignedBuffer read_buffers_;
  int dir_ = -1;    // the set folder, opened through the phase's engine
  int source_ = 0;  // the position whose items or folders the rank touches
  bool ready_ = false;
  MdResult timed_;
};

}  // namespace iosweep
