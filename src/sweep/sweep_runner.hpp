// The SweepRunner: a run as the plan says it (model/run_plan.hpp): its steps in order, each
// step's points, each point's repetitions and phases, its writers and its failures. Each phase
// of a point is a PhasePoint (sweep/phase_point.hpp), to which the runner hands what the step
// shares; the runner itself decides nothing the plan decided. Nothing outside the sweep layer
// includes this; the entry point is run_sweep (sweep/run_sweep.hpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/aligned_buffer.hpp"
#include "core/pattern.hpp"
#include "model/run_plan.hpp"
#include "mpi/session.hpp"
#include "mpi/topology.hpp"
#include "mpi/waiting.hpp"
#include "output/writer.hpp"
#include "phases/file_set.hpp"
#include "phases/md_set.hpp"
#include "phases/phase_table.hpp"
#include "sweep/liveness.hpp"
#include "sweep/node_counters.hpp"
#include "sweep/phase_point.hpp"
#include "sweep/point_gate.hpp"
#include "sweep/progress.hpp"
#include "sweep/recorder.hpp"
#include "sweep/signals.hpp"
#include "sweep/stall.hpp"
#include "sweep/usage.hpp"

namespace iosweep {

class SweepRunner {
 public:
  SweepRunner(const RunPlan& plan, const MpiSession& mpi, const LocalPlace& place,
              std::vector<std::string> engine_details, std::unique_ptr<ResultWriter> extra)
      : extra_(std::move(extra)),
        plan_(plan),
        cfg_(plan.steps.front().cfg),
        mpi_(mpi),
        rank0_(mpi.rank() == 0),
        place_(place),
        engine_details_(std::move(engine_details)) {}
  int run();

 private:
  // What a step runs with, made for every step before the first point (so the signal watcher
  // sees every file set and metadata set the run may make).
  struct Step {
    const StepPlan* plan = nullptr;
    std::uint32_t index = 0;
    LocalPlace place;                // this rank's placement with the step's folders
    std::vector<int> folder_in_run;  // the step's folder index -> the run's (--dir union)
    DataSpec spec;                   // the data pattern of the step's files
    FileSet* files = nullptr;        // its dataset's data files (file_sets_)
    MdSet* md = nullptr;             // its dataset's metadata folders and items (md_sets_)
    // The step goes on with the metadata set an earlier step of its dataset left (both of one
    // point and one repetition): its point is keyed as that step's, and only the dataset's
    // last step removes the set.
    bool md_carried = false;
    bool md_kept = false;      // a later step of the dataset goes on with the set
    std::size_t md_point = 0;  // the point index the set is keyed by, when carried
  };

  void draw_run_identity();
  void make_steps();
  void carry_md_sets();
  void make_writers();
  bool start_writers();
  void watch_signals();
  StallHooks stall_hooks();
  void clean_up_on_signal(const Signal& received);
  int run_steps();
  int run_step(Step& step);
  int finish();
  int fail();
  std::string remove_md();
  bool agree_world(const std::string& mine);
  bool run_point(Step& step, const PointPlan& point, MPI_Comm comm);
  bool run_phase(Step& step, PointGate& gate, const PhaseSlot& slot);
  RunShared shared(Step& step);
  bool end_md_set(Step& step, PointGate& gate, MPI_Comm comm);
  std::string who() const;
  std::string where(const RankSample& r) const;

  std::unique_ptr<ResultWriter> extra_;  // the caller's writer, until make_writers takes it
  const RunPlan& plan_;
  const Config& cfg_;  // the first step's: every option of the whole run is the same in all
  const MpiSession& mpi_;
  bool rank0_;
  const LocalPlace& place_;
  std::vector<std::string> engine_details_;  // each step's engine probe
  std::string run_id_;
  Workload run_work_;  // the union of the steps' folders, for the node counters
  std::vector<Step> steps_;
  std::vector<std::unique_ptr<FileSet>> file_sets_;  // one per dataset
  std::vector<std::unique_ptr<MdSet>> md_sets_;      // one per dataset
  Step* current_ = nullptr;  // the step running (rank 0's recorder names its files)
  WriterList writers_;       // rank 0: complete before the signal watcher starts
  std::unique_ptr<Progress> progress_;
  std::unique_ptr<StallWatch> stall_;  // after the writers and progress: ends before them
  std::unique_ptr<SignalWatcher> watcher_;
  std::unique_ptr<NodeCounters> counters_;   // device, wire and client counters per node
  std::unique_ptr<PointRecorder> recorder_;  // rank 0
  std::unique_ptr<RankLiveness> liveness_;   // rank 0: every rank's process
  std::string failure_;                      // on rank 0: why the run stops
  std::unique_ptr<Room> room_;               // where this machine's idle ranks wait
  AlignedBuffer handoff_;                    // buffers between a phase and its control
  PhaseId previous_ = 0;                     // the phase before, in this repetition
  bool has_previous_ = false;
  RankMemory memory_;
};

}  // namespace iosweep
