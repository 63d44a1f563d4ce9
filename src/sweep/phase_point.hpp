// One phase of one point on this rank, as it goes through its steps: its context, the untimed
// preparation (engine, files, buffers), the timed window between a barrier and every rank's
// close, the untimed finish (wear-out), and the gather, reduction and record on rank 0. The
// SweepRunner (sweep/sweep_runner.hpp) makes one PhasePoint per phase, point and repetition and
// hands it what the run shares (RunShared); every step ends in the point's gate.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/aligned_buffer.hpp"
#include "core/pattern.hpp"
#include "model/config.hpp"
#include "model/run_plan.hpp"
#include "mpi/session.hpp"
#include "mpi/topology.hpp"
#include "phases/file_set.hpp"
#include "phases/phase.hpp"
#include "phases/phase_table.hpp"
#include "sweep/node_counters.hpp"
#include "sweep/point_gate.hpp"
#include "sweep/progress.hpp"
#include "sweep/recorder.hpp"
#include "sweep/stall.hpp"

namespace iosweep {

// What every phase of a step reads from its runner, for the length of the step.
struct RunShared {
  const StepPlan& step;
  const Config& cfg;  // the step's
  const MpiSession& mpi;
  const LocalPlace& place;                // this rank's placement with the step's folders
  std::uint32_t n_points;                 // points of the whole run (progress)
  std::uint32_t step_index;               // the step, as every row names it
  const std::vector<int>& folder_in_run;  // the step's folder index -> the run's
  const DataSpec& spec;
  FileSet& files;
  MdSet& md;
  std::size_t md_point;  // the point the metadata set is keyed by; SIZE_MAX: the slot's own
  NodeCounters& counters;
  Progress& progress;
  PointRecorder* recorder;        // rank 0 only
  const std::atomic<bool>* stop;  // a signal asked the run to stop
  std::string who;                // "rank R (host H)", the prefix of this rank's messages
  StallWatch* stall = nullptr;    // this rank's (sweep/stall.hpp); null: nothing watched
};

// Where in the run a phase runs: its point and its phase as planned, the repetition, and the
// point's active ranks.
struct PhaseSlot {
  const PointPlan* point = nullptr;
  const PhasePlan* phase = nullptr;
  int rep = 0;
  MPI_Comm comm = MPI_COMM_NULL;  // the active ranks, ordered by position
};

class PhasePoint {
 public:
  // `handoff` holds the buffers a phase and its control pass to each other (kept by the runner
  // for one repetition).
  PhasePoint(const RunShared& run, PointGate& gate, const PhaseRow& row, const PhaseSlot& slot,
             AlignedBuffer& handoff);
  // Every step, in order; false when the point stops (the gate's failure() on rank 0 says why).
  bool run();
  // This rank's largest private memory during the phase.
  std::uint64_t private_bytes() const { return sample_.private_bytes; }

 private:
  std::uint64_t progress_serial() const;
  bool prepare_untimed();
  bool run_window();
  bool finish_untimed();
  bool record();
  PointInput point_input(NodeCounters::Rows counted) const;
  std::optional<NodeCounters::CacheProbe> cache_probe() const;
  std::string guarded(const std::function<void()>& step) const;

  const RunShared& run_;
  PointGate& gate_;
  const PhaseRow& row_;
  const PhaseDesc& desc_;
  const PhaseSlot slot_;
  const int k_;  // active ranks
  std::unique_ptr<Phase> phase_;
  std::unique_ptr<Engine> engine_;
  PhaseContext ctx_;
  RankSample sample_;
  std::uint64_t t_prepared_ns_ = 0;  // preparation done: the harness's time starts
  std::uint64_t pre_window_ns_ = 0;  // from then to the exit of the window's barrier
  std::uint64_t t_closed_ns_ = 0;    // every rank closed its file: the harness's time again
};

}  // namespace iosweep
