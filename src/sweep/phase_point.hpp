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
#include "mpi/session.hpp"
#include "mpi/topology.hpp"
#include "phases/file_set.hpp"
#include "phases/phase.hpp"
#include "phases/phase_table.hpp"
#include "sweep/node_counters.hpp"
#include "sweep/point_gate.hpp"
#include "sweep/progress.hpp"
#include "sweep/recorder.hpp"

namespace iosweep {

// What every phase of a run reads from its runner, for the length of the run.
struct RunShared {
  const Config& cfg;
  const MpiSession& mpi;
  const LocalPlace& place;
  const std::vector<SweepPoint>& points;
  const DataSpec& spec;
  FileSet& files;
  MdSet& md;
  NodeCounters& counters;
  Progress& progress;
  PointRecorder* recorder;        // rank 0 only
  const std::atomic<bool>* stop;  // a signal asked the run to stop
  std::string who;                // "rank R (host H)", the prefix of this rank's messages
};

// Where in the sweep a phase runs: its point, its active ranks and repetition.
struct PhaseSlot {
  std::size_t point_index = 0;
  int k = 1;                      // active ranks
  int rep = 0;                    // repetition
  int shift = 0;                  // read shift of this point
  int md_shift = 0;               // the metadata lookups' (another node's items when there is one)
  MPI_Comm comm = MPI_COMM_NULL;  // the active ranks, ordered by position
  std::uint64_t order_seed = 0;   // this point's and repetition's seed of the record orders
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
  PointInput point_input(NodeCounters::Rows counted, unsigned engine_depth) const;
  std::optional<NodeCounters::CacheProbe> cache_probe() const;
  std::string guarded(const std::function<void()>& step) const;

  const RunShared& run_;
  PointGate& gate_;
  const PhaseRow& row_;
  const PhaseDesc& desc_;
  const PhaseSlot slot_;
  const SweepPoint& point_;
  std::unique_ptr<Phase> phase_;
  std::unique_ptr<Engine> engine_;
  PhaseContext ctx_;
  RankSample sample_;
  std::uint64_t t_prepared_ns_ = 0;  // preparation done: the harness's time starts
  std::uint64_t pre_window_ns_ = 0;  // from then to the exit of the window's barrier
  std::uint64_t t_closed_ns_ = 0;    // every rank closed its file: the harness's time again
};

}  // namespace iosweep
