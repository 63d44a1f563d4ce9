// The sweep (see run_sweep.hpp and sweep_runner.hpp): the run as its plan says it, step by
// step and point by point, its writers and its failures. One phase of one point, step by step,
// is a PhasePoint (sweep/phase_point.cpp).
#include "sweep/run_sweep.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>

#include "core/clock.hpp"
#include "core/errors.hpp"
#include "mpi/gentle.hpp"
#include "mpi/messages.hpp"
#include "os/file_ops.hpp"
#include "output/console_writer.hpp"
#include "output/hdf5_writer.hpp"
#include "output/iozone_writer.hpp"
#include "output/versions.hpp"
#include "sweep/plan.hpp"
#include "sweep/sweep_runner.hpp"

namespace iosweep {

std::string SweepRunner::who() const {
  return "rank " + std::to_string(mpi_.rank()) + " (host " + mpi_.host() + ")";
}

std::string SweepRunner::where(const RankSample& r) const {
  return "rank " + std::to_string(r.rank) + " (host " +
         place_.full.hosts[static_cast<std::size_t>(r.node)] + ")";
}

// Every rank of the world says whether it is fine (at the start of a run, all ranks awake).
bool SweepRunner::agree_world(const std::string& mine) {
  int bad = mine.empty() ? 0 : 1, any = 0;
  gentle_allreduce_int(&bad, &any, 1, MPI_MAX, MPI_COMM_WORLD);
  if (any) failure_ = collect_failures(mine, MPI_COMM_WORLD);
  return any == 0;
}

// Every step's metadata folders and items this rank made; what could not be removed, named.
std::string SweepRunner::remove_md() {
  std::string left;
  for (auto& md : md_sets_)
    if (const std::string l = md->remove_all(); !l.empty()) left += (left.empty() ? "" : "; ") + l;
  return left;
}

int SweepRunner::fail() {
  // The metadata folders first: what could not be removed belongs in the status message.
  const std::string md_left = remove_md();
  if (!md_left.empty()) {
    if (rank0_)
      failure_ += "; " + who() + ": " + md_left;
    else
      std::fprintf(stderr, "iosweep: %s: %s\n", who().c_str(), md_left.c_str());
  }
  if (rank0_) {
    if (recorder_) recorder_->flush();
    std::string not_marked;
    try {
      writers_.end_run(RunStatus::aborted, failure_);
    } catch (const std::exception& e) {
      not_marked = "; the run could not be marked aborted in " + printable(cfg_.report.output) +
                   ": " + printable(e.what());
    }
    std::fflush(stdout);
    std::fprintf(stderr, "iosweep: %s%s\n", failure_.c_str(), not_marked.c_str());
  }
  for (auto& files : file_sets_)
    if (!cfg_.work.keep) files->remove_own();
  return kExitFailure;
}

// After a repetition's phases: the metadata set of the point removed, through the point's gate.
bool SweepRunner::end_md_set(Step& step, PointGate& gate, MPI_Comm comm) {
  std::string why;
  try {
    step.md->end(comm);
  } catch (const std::exception& e) {
    why = who() + ": " + printable(e.what());
  }
  if (gate.checkpoint(why)) return true;
  if (rank0_) failure_ = gate.failure();
  return false;
}

RunShared SweepRunner::shared(Step& step) {
  return RunShared{.step = *step.plan,
                   .cfg = step.plan->cfg,
                   .mpi = mpi_,
                   .place = step.place,
                   .n_points = plan_.points(),
                   .step_index = step.index,
                   .folder_in_run = step.folder_in_run,
                   .spec = step.spec,
                   .files = *step.files,
                   .md = *step.md,
                   .md_point = step.md_carried ? step.md_point : SIZE_MAX,
                   .counters = *counters_,
                   .progress = *progress_,
                   .recorder = recorder_.get(),
                   .stop = watcher_->stop_flag(),
                   .who = who(),
                   .stall = stall_.get()};
}

// One phase of one point: buffers pass only from a phase to its control or back, within one
// repetition, so the handoff is emptied before any other phase.
bool SweepRunner::run_phase(Step& step, PointGate& gate, const PhaseSlot& slot) {
  const PhaseDesc& desc = phase_desc(slot.phase->phase);
  if (!has_previous_ || !control_pair(phase_desc(previous_), desc)) handoff_ = AlignedBuffer();
  previous_ = desc.id;
  has_previous_ = true;
  const RunShared run = shared(step);
  PhasePoint phase(run, gate, phase_row(desc.id), slot, handoff_);
  const bool ok = phase.run();
  memory_.note_phase(phase.private_bytes());
  if (!ok && rank0_) failure_ = gate.failure();
  return ok;
}

// One point on its active ranks: the repetitions of every phase as planned, over the point's
// gate.
bool SweepRunner::run_point(Step& step, const PointPlan& point, MPI_Comm comm) {
  PointGate gate(comm);
  const bool metadata =
      std::any_of(step.plan->cfg.work.phases.begin(), step.plan->cfg.work.phases.end(),
                  [](PhaseId id) { return phase_desc(id).metadata(); });
  bool ok = true;
  for (std::size_t rep = 0; rep < point.reps.size() && ok; ++rep) {
    has_previous_ = false;
    std::vector<PhaseId> order;
    for (const PhasePlan& ph : point.reps[rep])
      order.push_back(ph.phase);
    if (rank0_) recorder_->begin(order);
    for (const PhasePlan& ph : point.reps[rep]) {
      const PhaseSlot slot{
          .point = &point, .phase = &ph, .rep = static_cast<int>(rep), .comm = comm};
      if (!(ok = run_phase(step, gate, slot))) break;
    }
    if (ok && metadata && !step.md_kept) ok = end_md_set(step, gate, comm);
  }
  handoff_ = AlignedBuffer();
  has_previous_ = false;
  return ok;
}

// Rank 0's writers, all of them before the signal watcher starts (it reads the list).
void SweepRunner::make_writers() {
  if (!rank0_) return;
  // The table's reader went away (`iosweep run | head`): the run ends as on SIGPIPE, through
  // the watcher's cleanup (files removed, the run marked aborted), not where the write failed.
  writers_.add(std::make_unique<ConsoleWriter>(stdout, [] { ::kill(::getpid(), SIGPIPE); }));
  if (cfg_.report.iozone_format) writers_.add(std::make_unique<IozoneWriter>(stdout));
  writers_.add(std::make_unique<Hdf5Writer>(cfg_.report.output));
  if (extra_) writers_.add(std::move(extra_));
}

bool SweepRunner::start_writers() {
  std::string err;
  if (rank0_) {
    try {
      RunContext rc;
      rc.run_id = run_id_;
      rc.cfg = &cfg_;
      rc.plan = &plan_;
      rc.world_size = mpi_.size();
      rc.topology = place_.full;
      rc.t_start_unix_ns = unix_now_ns();
      rc.engine_detail = engine_details_.front();
      rc.engine_details = engine_details_;
      rc.versions_toml = versions_toml();
      if (const char* j = std::getenv("SLURM_JOB_ID")) rc.slurm_job_id = j;
      if (const char* n = std::getenv("SLURM_JOB_NODELIST")) rc.slurm_nodelist = n;
      rc.dirs = run_work_.dirs;
      rc.mounts = counters_->mounts();
      if (counters_->device_measured()) rc.drives = counters_->drives();
      rc.device_note = counters_->device_measured() ? std::string() : counters_->device_why_not();
      rc.wire_note = counters_->wire_measured() ? std::string() : counters_->wire_why_not();
      rc.order_seed = plan_.order_base;
      writers_.begin_run(rc);
      recorder_ = std::make_unique<PointRecorder>(
          writers_, [this](const RankSample& r) { return where(r); },
          [this](int file) { return printable(current_->files->path(file)); });
    } catch (const std::exception& e) {
      err = "rank 0: starting the results in " + cfg_.report.output + " failed: " + e.what();
    }
  }
  return agree_world(err);
}

// The run id, drawn on rank 0 and known to every rank.
void SweepRunner::draw_run_identity() {
  char id[64] = {};
  if (rank0_) std::strncpy(id, make_run_id().c_str(), sizeof id - 1);
  MPI_Bcast(id, sizeof id, MPI_CHAR, 0, MPI_COMM_WORLD);
  run_id_ = id;
}

// Every step's placement with its folders, its file set and its metadata set; the union of
// the steps' folders, whose devices, mounts and interfaces the node counters follow.
void SweepRunner::make_steps() {
  run_work_ = cfg_.work;
  run_work_.dirs.clear();
  for (std::uint32_t i = 0; i < plan_.steps.size(); ++i) {
    const StepPlan& sp = plan_.steps[i];
    Step& s = steps_.emplace_back();
    s.plan = &sp;
    s.index = i;
    s.place = place_;
    s.place.folder_of_position = sp.folder_of_position;
    s.place.self.folder = sp.folder_of_position[static_cast<std::size_t>(place_.self.position)];
    for (const std::string& d : sp.cfg.work.dirs) {
      auto at = std::find(run_work_.dirs.begin(), run_work_.dirs.end(), d);
      if (at == run_work_.dirs.end()) at = run_work_.dirs.insert(at, d);
      s.folder_in_run.push_back(static_cast<int>(at - run_work_.dirs.begin()));
    }
    const Workload& w = sp.cfg.work;
    s.spec = {w.seed, w.filter_key, w.filter_every, w.file_size};
    // A run of several steps names each dataset's files apart: one step's kept or unremoved
    // file never stands in another's way, and the steps of one dataset share theirs.
    const std::string files_id =
        plan_.steps.size() > 1 ? run_id_ + ".d" + std::to_string(sp.dataset_index) : run_id_;
    if (sp.dataset_index == file_sets_.size())
      file_sets_.push_back(std::make_unique<FileSet>(w.dirs, sp.folder_of_position, files_id,
                                                     w.reuse_run.empty() ? files_id : w.reuse_run,
                                                     place_.self.position, w.shared()));
    s.files = file_sets_[sp.dataset_index].get();
    // The metadata phases' trees sit in each position's folder of the step's --dir, as its data
    // file; the steps of a dataset share its metadata folders.
    const std::string md_id =
        plan_.steps.size() > 1 ? run_id_ + ".m" + std::to_string(sp.dataset_index) : run_id_;
    if (sp.dataset_index == md_sets_.size())
      md_sets_.push_back(std::make_unique<MdSet>(MdPlaces{w.dirs, sp.folder_of_position}, md_id,
                                                 place_.self.position, w.md, w.seed));
    s.md = md_sets_[sp.dataset_index].get();
  }
  carry_md_sets();
}

// A step of one point and one repetition goes on with the metadata set of the step of its
// dataset before it when that one also had one point and one repetition (IO500's mdtest-easy-
// write, -stat and -delete: one set of items across steps); otherwise each point starts anew.
void SweepRunner::carry_md_sets() {
  auto single = [](const StepPlan& p) {
    return p.points.size() == 1 && p.points.front().reps.size() == 1;
  };
  for (std::size_t i = 0; i < steps_.size(); ++i) {
    Step& s = steps_[i];
    if (!single(*s.plan)) continue;
    for (std::size_t j = i; j-- > 0;) {
      Step& before = steps_[j];
      if (before.plan->dataset_index != s.plan->dataset_index) continue;
      if (single(*before.plan) &&
          before.plan->points.front().point.ranks == s.plan->points.front().point.ranks) {
        s.md_carried = true;
        s.md_point = before.md_carried ? before.md_point : before.plan->points.front().index;
        before.md_kept = true;
      }
      break;
    }
  }
}

// From here to the end of the run a signal is handled: rank 0 first marks the run aborted
// (mpirun sends SIGKILL about a second after SIGTERM unless odls_base_sigkill_timeout says
// otherwise, and removing large files can take that long), then every rank closes its file sets
// (nothing is created after this), removes what it made, and says after the fact what it left.
void SweepRunner::clean_up_on_signal(const Signal& received) {
  if (room_) room_->note_signal({received.number, received.sender_pid});
  if (rank0_ && !stall_->ending()) {
    const std::string msg = liveness_->why_stopped(received, room_.get());
    bool marked = false;
    try {
      marked = writers_.abort_from_signal(msg);
    } catch (...) {
    }
    std::fprintf(stderr, "\niosweep: %s; run %s %s\n", msg.c_str(), run_id_.c_str(),
                 marked ? ("marked aborted in " + printable(cfg_.report.output)).c_str()
                        : "not marked in the results file");
    std::fflush(stderr);
  }
  if (stall_->stalled_here() || stall_->ending()) return;  // files: sweep/stall.hpp
  // The metadata sets likewise: closed, a window that creates waited for (bounded), what it
  // made removed; what was left said here.
  if (const std::string md_left = remove_md(); !md_left.empty())
    std::fprintf(stderr, "iosweep: %s: %s\n", who().c_str(), md_left.c_str());
  const bool keep = cfg_.work.keep;  // an option of the whole run
  for (auto& files : file_sets_) {
    // An exclusive create inside a window ends as soon as the driver sees the stop flag (set
    // before this runs); the wait is bounded for a rank stuck in the storage.
    const FileSet::Cleanup c = files->close_and_remove(keep, std::chrono::seconds(5));
    // Said after the fact, by the rank that knows: what it left, and why.
    if (!c.left.empty())
      std::fprintf(stderr, "iosweep: %s: left '%s'%s\n", who().c_str(), printable(c.left).c_str(),
                   keep           ? " (--keep)"
                   : c.waited_out ? ": the create inside its window had not ended after 5 s (the "
                                    "file may appear after this)"
                                  : (": removing it failed: " + describe_errno(c.err)).c_str());
  }
  std::fflush(stderr);
}

// What the stall watch needs of the run (sweep/stall.hpp): rank 0 marks the run aborted and
// removes its own data files (not a shared one, which stalled ranks may be writing).
StallHooks SweepRunner::stall_hooks() {
  std::string mine;
  for (const auto& files : file_sets_)
    mine += (mine.empty() ? "" : ", ") + files->path(place_.self.position);
  return {.mark_aborted = [this](const std::string& m) { return writers_.abort_from_signal(m); },
          .remove_own =
              [this] {
                bool gone = true;
                for (auto& files : file_sets_)
                  if (!cfg_.work.keep && !files->shared()) gone = files->remove_own() == 0 && gone;
                return gone;
              },
          .output = cfg_.report.output,
          .run_id = run_id_,
          .files_note = mine,
          .progress = progress_.get()};
}

void SweepRunner::watch_signals() {
  watcher_ = std::make_unique<SignalWatcher>([this](const Signal& s) { clean_up_on_signal(s); });
  for (auto& md : md_sets_)
    md->stop_on(watcher_->stop_flag());
}

// One step: every point as planned. The active ranks run it; the others sleep in their
// machine's room until its keeper opens it with the verdict, which the keepers follow from
// rank 0. The step's files are removed at its end (unless kept).
int SweepRunner::run_step(Step& step) {
  current_ = &step;
  for (const PointPlan& point : step.plan->points) {
    const int k = point.point.ranks;
    const bool active = place_.self.position < k;
    MPI_Comm comm = MPI_COMM_NULL, awake = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, active ? 0 : MPI_UNDEFINED, place_.self.position, &comm);
    const bool keeper = room_->keeper_for(active);
    MPI_Comm_split(MPI_COMM_WORLD, active || keeper ? 0 : MPI_UNDEFINED, mpi_.rank(), &awake);
    int stop = 0;
    if (active) stop = run_point(step, point, comm) ? 0 : 1;
    // Idle keepers follow the point from another machine: they test every 5 ms at most.
    if (awake != MPI_COMM_NULL) gentle_bcast_int(stop, 0, awake, active ? 1'000'000 : 5'000'000);
    if (keeper) {
      room_->open(stop);
    } else if (!active) {
      stop = room_->wait();
    }
    memory_.note_point(active);
    if (awake != MPI_COMM_NULL) MPI_Comm_free(&awake);
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
    if (stop != 0) return fail();
  }
  if (!step.plan->cfg.work.keep && step.plan->last_of_dataset) step.files->remove_own();
  return 0;
}

int SweepRunner::run_steps() {
  for (Step& step : steps_) {
    if (rank0_) writers_.begin_step(*step.plan, step.index);
    if (const int status = run_step(step); status != 0) return status;
  }
  return 0;
}

// After the last point: the run's files removed, every rank's usage stored, the run complete.
int SweepRunner::finish() {
  stall_->detach_progress();
  progress_.reset();
  const PulseStep step(stall_->pulse(), "unlink", "removing the run's files");
  for (auto& files : file_sets_)
    if (!cfg_.work.keep) files->remove_own();
  // What the run left of its metadata folders (what it did not make) fails the run, named.
  std::string left;
  for (auto& md : md_sets_)
    if (const std::string l = md->finish(); !l.empty()) left += (left.empty() ? "" : "; ") + l;
  if (!agree_world(left.empty() ? left : who() + ": " + left)) return fail();
  const std::vector<RankUsageRow> usage = memory_.gather(mpi_.rank(), rank0_);
  if (rank0_) {
    try {
      writers_.append_usage(usage);
    } catch (const std::exception& e) {
      failure_ = std::string("writing the results failed: ") + printable(e.what());
    }
  }
  if (!agree_world(failure_)) return fail();
  if (rank0_) {
    try {
      writers_.end_run(RunStatus::complete, {});
    } catch (const std::exception& e) {
      std::fprintf(stderr, "iosweep: finishing the results in %s failed: %s\n",
                   cfg_.report.output.c_str(), e.what());
      return kExitFailure;
    }
  }
  return 0;
}

int SweepRunner::run() {
  draw_run_identity();
  make_steps();
  counters_ = std::make_unique<NodeCounters>(run_work_, place_);
  liveness_ = std::make_unique<RankLiveness>(place_, rank0_);
  room_ = std::make_unique<Room>(MPI_COMM_WORLD);
  stall_ = std::make_unique<StallWatch>(cfg_.work, mpi_, who());
  make_writers();
  watch_signals();
  if (!start_writers()) return fail();
  progress_ = std::make_unique<Progress>(rank0_ && !cfg_.report.quiet, !cfg_.report.quiet, stderr,
                                         room_->machine());
  std::uint64_t phases = 0;  // every step's points' repetitions' phases
  for (const StepPlan& s : plan_.steps)
    for (const PointPlan& p : s.points)
      for (const auto& rep : p.reps)
        phases += rep.size();
  progress_->begin_run(phases);
  stall_->start(stall_hooks());
  if (const int status = run_steps(); status != 0) return status;
  return finish();
}

int run_sweep(const RunPlan& plan, const MpiSession& mpi, const LocalPlace& place,
              const std::vector<std::string>& engine_details, std::unique_ptr<ResultWriter> extra) {
  SweepRunner runner(plan, mpi, place, engine_details, std::move(extra));
  return runner.run();
}

}  // namespace iosweep
