// The SweepRunner: the run, its points, its writers and its failures (sweep/sweep_runner.cpp).
// Each phase of a point is a PhasePoint (sweep/phase_point.hpp), to which the runner hands what
// the run shares. Nothing outside the sweep layer includes this; the entry point is run_sweep
// (sweep/run_sweep.hpp).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/aligned_buffer.hpp"
#include "core/pattern.hpp"
#include "model/config.hpp"
#include "mpi/session.hpp"
#include "mpi/topology.hpp"
#include "mpi/waiting.hpp"
#include "output/writer.hpp"
#include "phases/file_set.hpp"
#include "phases/md_set.hpp"
#include "phases/phase_table.hpp"
#include "sweep/node_counters.hpp"
#include "sweep/phase_point.hpp"
#include "sweep/point_gate.hpp"
#include "sweep/progress.hpp"
#include "sweep/recorder.hpp"
#include "sweep/signals.hpp"

namespace iosweep {

class SweepRunner {
 public:
  SweepRunner(const Config& cfg, const MpiSession& mpi, LocalPlace place,
              std::vector<SweepPoint> points, std::string engine_detail)
      : cfg_(cfg),
        work_(cfg.work),
        mpi_(mpi),
        points_(std::move(points)),
        rank0_(mpi.rank() == 0),
        place_(std::move(place)),
        engine_detail_(std::move(engine_detail)) {}
  int run();

 private:
  void draw_run_identity();
  void make_writers();
  bool start_writers();
  void watch_signals();
  int run_points();
  int finish();
  int fail();
  bool agree_world(const std::string& mine);
  bool run_point(std::size_t point_index, int k, MPI_Comm comm);
  bool run_phase(PointGate& gate, const PhaseRow& row, const PhaseSlot& slot);
  RunShared shared();
  void note_usage(bool active);
  std::string write_rank_usage();
  int shift_for(int k, MPI_Comm comm);
  int md_shift_for(int k, int data_shift, MPI_Comm comm);
  bool end_md_set(PointGate& gate, MPI_Comm comm);
  std::vector<PhaseId> order_for(int rep) const;
  std::uint64_t order_seed_for(std::uint64_t point_key, int rep) const;
  std::string who() const;
  void note_rank_identities();
  struct Gone {
    std::string lost;        // gone without noting a signal
    std::string signalled;   // gone after their watcher noted one (their cleanup ran)
  };
  Gone gone_ranks() const;
  std::string why_stopped(int sig) const;
  std::string where(const RankSample& r) const;

  const Config& cfg_;
  const Workload& work_;
  const MpiSession& mpi_;
  std::vector<SweepPoint> points_;
  bool rank0_;
  LocalPlace place_;
  std::string engine_detail_;
  std::string run_id_;
  DataSpec spec_;
  std::unique_ptr<FileSet> files_;
  std::unique_ptr<MdSet> md_;  // the metadata phases' folders and items
  WriterList writers_;         // rank 0: complete before the signal watcher starts
  std::unique_ptr<Progress> progress_;
  std::unique_ptr<SignalWatcher> watcher_;
  std::unique_ptr<NodeCounters> counters_;   // device, wire and client counters per node
  std::unique_ptr<PointRecorder> recorder_;  // rank 0
  std::uint64_t order_base_ = 0;             // --order-seed, or this run's nonce
  std::string failure_;                      // on rank 0: why the run stops
  std::unique_ptr<Room> room_;               // where this machine's idle ranks wait
  AlignedBuffer handoff_;                    // buffers between a phase and its control
  const PhaseDesc* previous_ = nullptr;      // the phase before, in this repetition
  std::uint64_t private_peak_ = 0;           // this rank's largest private memory seen
  std::uint64_t private_idle_peak_ = 0;      // the same, at the end of points it waited out
  // Rank 0: every rank's process (pid, start time, boot), to tell a rank lost from a signal.
  struct RankProcess {
    std::int64_t pid;
    std::uint64_t start_ticks;
    char boot_id[40];
  };
  std::vector<RankProcess> processes_;
};

}  // namespace iosweep
