// The sweep (see run_sweep.hpp and sweep_runner.hpp): the run and its points, its writers and
// its failures. One phase of one point, step by step, is a PhasePoint (sweep/phase_point.cpp).
#include "sweep/run_sweep.hpp"

#include <signal.h>
#include <unistd.h>

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
#include "os/process.hpp"
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

int SweepRunner::fail() {
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
  if (files_ && !work_.keep) files_->remove_own();
  if (md_) md_->remove_all();
  return kExitFailure;
}

int SweepRunner::shift_for(int k, MPI_Comm comm) {
  if (!work_.read_shift_auto) return k > 0 ? work_.read_shift % k : 0;
  int shift = 0;
  if (rank0_) {
    std::vector<int> nodes;
    nodes.reserve(static_cast<std::size_t>(k));
    for (int p = 0; p < k; ++p)
      nodes.push_back(place_.full.node_at(p));
    bool all_remote = false;
    shift = remote_shift(nodes, k, all_remote);
    if (!all_remote && k > 1)
      std::fprintf(stderr,
                   "iosweep: warning: --read-shift auto: at %d ranks no shift moves every read to "
                   "another node (%d node(s) in use); using %d\n",
                   k, place_.full.nodes_used(k), shift);
  }
  MPI_Bcast(&shift, 1, MPI_INT, 0, comm);
  return shift;
}

// Metadata lookups touch another node's items whenever the point spans nodes (mdtest -N, as
// --read-shift auto does for data); on one node they follow --read-shift. The placement is
// known on rank 0, which tells the point's ranks.
int SweepRunner::md_shift_for(int k, int data_shift, MPI_Comm comm) {
  int shift = data_shift;
  if (rank0_ && place_.full.nodes_used(k) > 1) {
    std::vector<int> nodes;
    nodes.reserve(static_cast<std::size_t>(k));
    for (int p = 0; p < k; ++p)
      nodes.push_back(place_.full.node_at(p));
    bool all_remote = false;
    shift = remote_shift(nodes, k, all_remote);
  }
  MPI_Bcast(&shift, 1, MPI_INT, 0, comm);
  return shift;
}

// After a repetition's phases: the metadata set of the point removed, through the point's gate.
bool SweepRunner::end_md_set(PointGate& gate, MPI_Comm comm) {
  std::string why;
  try {
    md_->end(comm);
  } catch (const std::exception& e) {
    why = who() + ": " + printable(e.what());
  }
  if (gate.checkpoint(why)) return true;
  if (rank0_) failure_ = gate.failure();
  return false;
}

// The phases of one repetition: the table's order, except that on odd repetitions a control
// phase runs right after the phase it is the baseline of instead of right before it.
std::vector<PhaseId> SweepRunner::order_for(int rep) const {
  std::vector<PhaseId> order = work_.phases;
  if (rep % 2 == 0) return order;
  for (std::size_t i = 0; i + 1 < order.size(); ++i) {
    if (phase_desc(order[i]).control_for == order[i + 1]) std::swap(order[i], order[i + 1]), ++i;
  }
  return order;
}

// Random orders differ per run (unless --order-seed pins them), point and repetition; a point
// is keyed by its ranks, or by its streams with --streams (where points share their ranks).
std::uint64_t SweepRunner::order_seed_for(std::uint64_t point_key, int rep) const {
  return mix64(order_base_ ^ mix64((point_key << 32) | static_cast<std::uint64_t>(rep)));
}

RunShared SweepRunner::shared() {
  return RunShared{.cfg = cfg_,
                   .mpi = mpi_,
                   .place = place_,
                   .points = points_,
                   .spec = spec_,
                   .files = *files_,
                   .md = *md_,
                   .counters = *counters_,
                   .progress = *progress_,
                   .recorder = recorder_.get(),
                   .stop = watcher_->stop_flag(),
                   .who = who()};
}

// One phase of one point: buffers pass only from a phase to its control or back, within one
// repetition, so the handoff is emptied before any other phase.
bool SweepRunner::run_phase(PointGate& gate, const PhaseRow& row, const PhaseSlot& slot) {
  if (previous_ == nullptr || !control_pair(*previous_, row.desc())) handoff_ = AlignedBuffer();
  previous_ = &row.desc();
  const RunShared run = shared();
  PhasePoint phase(run, gate, row, slot, handoff_);
  const bool ok = phase.run();
  private_peak_ = std::max(private_peak_, phase.private_bytes());
  if (!ok && rank0_) failure_ = gate.failure();
  return ok;
}

// One point on its active ranks: the repetitions of every phase, over the point's gate.
bool SweepRunner::run_point(std::size_t point_index, int k, MPI_Comm comm) {
  PointGate gate(comm);
  PhaseSlot slot{.point_index = point_index, .k = k, .shift = shift_for(k, comm), .comm = comm};
  slot.md_shift = md_shift_for(k, slot.shift, comm);
  bool metadata = false;
  for (PhaseId p : work_.phases)
    metadata = metadata || phase_desc(p).metadata();
  const std::uint64_t key =
      cfg_.sweep.streams.empty() ? static_cast<std::uint64_t>(k) : points_[point_index].streams();
  bool ok = true;
  for (int rep = 0; rep < cfg_.sweep.repetitions && ok; ++rep) {
    previous_ = nullptr;
    const std::vector<PhaseId> order = order_for(rep);
    if (rank0_) recorder_->begin(order);
    slot.rep = rep;
    slot.order_seed = order_seed_for(key, rep);
    for (PhaseId phase : order)
      if (!(ok = run_phase(gate, phase_row(phase), slot))) break;
    if (ok && metadata) ok = end_md_set(gate, comm);
  }
  handoff_ = AlignedBuffer();
  previous_ = nullptr;
  return ok;
}

void SweepRunner::note_usage(bool active) {
  const std::uint64_t now = private_bytes();
  private_peak_ = std::max(private_peak_, now);
  if (!active) private_idle_peak_ = std::max(private_idle_peak_, now);
}

// Every rank's memory and CPU over the whole run, to rank 0 and the results file; on rank 0,
// why writing it failed, or empty.
std::string SweepRunner::write_rank_usage() {
  const Usage u = self_usage();
  const RankUsageRow mine{mpi_.rank(),        u.rss_peak_bytes, private_peak_,
                          private_idle_peak_, u.user_s,         u.sys_s};
  std::vector<RankUsageRow> all(rank0_ ? static_cast<std::size_t>(mpi_.size()) : 0);
  MPI_Gather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, 0, MPI_COMM_WORLD);
  if (!rank0_) return {};
  try {
    writers_.append_usage(all);
  } catch (const std::exception& e) {
    return std::string("writing the results failed: ") + printable(e.what());
  }
  return {};
}

// Rank 0's writers, all of them before the signal watcher starts (it reads the list).
void SweepRunner::make_writers() {
  if (!rank0_) return;
  // The table's reader went away (`iosweep run | head`): the run ends as on SIGPIPE, through
  // the watcher's cleanup (files removed, the run marked aborted), not where the write failed.
  writers_.add(std::make_unique<ConsoleWriter>(stdout, [] { ::kill(::getpid(), SIGPIPE); }));
  if (cfg_.report.iozone_format) writers_.add(std::make_unique<IozoneWriter>(stdout));
  writers_.add(std::make_unique<Hdf5Writer>(cfg_.report.output));
}

bool SweepRunner::start_writers() {
  std::string err;
  if (rank0_) {
    try {
      RunContext rc;
      rc.run_id = run_id_;
      rc.cfg = &cfg_;
      rc.world_size = mpi_.size();
      rc.topology = place_.full;
      rc.points = points_;
      rc.t_start_unix_ns = unix_now_ns();
      rc.engine_detail = engine_detail_;
      rc.versions_toml = versions_toml();
      if (const char* j = std::getenv("SLURM_JOB_ID")) rc.slurm_job_id = j;
      if (const char* n = std::getenv("SLURM_JOB_NODELIST")) rc.slurm_nodelist = n;
      rc.mounts = counters_->mounts();
      if (counters_->device_measured()) rc.drives = counters_->drives();
      rc.device_note = counters_->device_measured() ? std::string() : counters_->device_why_not();
      rc.wire_note = counters_->wire_measured() ? std::string() : counters_->wire_why_not();
      rc.order_seed = order_base_;
      writers_.begin_run(rc);
      recorder_ = std::make_unique<PointRecorder>(
          writers_, [this](const RankSample& r) { return where(r); },
          [this](int file) { return printable(files_->path(file)); });
    } catch (const std::exception& e) {
      err = "rank 0: starting the results in " + cfg_.report.output + " failed: " + e.what();
    }
  }
  return agree_world(err);
}

// The run id and the nonce of the random orders, drawn on rank 0 and known to every rank.
void SweepRunner::draw_run_identity() {
  char id[64] = {};
  if (rank0_) std::strncpy(id, make_run_id().c_str(), sizeof id - 1);
  MPI_Bcast(id, sizeof id, MPI_CHAR, 0, MPI_COMM_WORLD);
  run_id_ = id;
  std::uint64_t nonce = 0;
  if (rank0_) nonce = work_.order_seed_pinned ? work_.order_seed : random_u64();
  MPI_Bcast(&nonce, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  order_base_ = nonce;
}

// Every rank's process, on rank 0: when the launcher stops the job because a rank died, the
// run's status can say which rank was lost rather than name the launcher's follow-up signal.
void SweepRunner::note_rank_identities() {
  const ProcessIdentity me = self_identity();
  RankProcess mine{me.pid, me.start_ticks, {}};
  std::strncpy(mine.boot_id, me.boot_id.c_str(), sizeof mine.boot_id - 1);
  processes_.resize(rank0_ ? static_cast<std::size_t>(mpi_.size()) : 0);
  MPI_Gather(&mine, sizeof mine, MPI_BYTE, processes_.data(), sizeof mine, MPI_BYTE, 0,
             MPI_COMM_WORLD);
}

// On rank 0, in the signal watcher: the ranks on this kernel whose process is gone, and among
// them those that noted a signal first (they ended through their own cleanup).
SweepRunner::Gone SweepRunner::gone_ranks() const {
  Gone g;
  for (std::size_t r = 0; r < processes_.size(); ++r) {
    const RankProcess& p = processes_[r];
    if (liveness_here(p.boot_id, p.pid, p.start_ticks) != Liveness::gone) continue;
    const auto node = static_cast<std::size_t>(place_.full.ranks[r].node);
    const std::string name = "rank " + std::to_string(r) + " (host " + place_.full.hosts[node] +
                             ", pid " + std::to_string(p.pid) + ")";
    const int sig = room_ ? room_->signal_of(static_cast<int>(r)) : 0;
    std::string& list = sig != 0 ? g.signalled : g.lost;
    list += (list.empty() ? "" : ", ") + (sig != 0 ? name + " on " + signal_name(sig) : name);
  }
  return g;
}

// Rank 0: why the run stopped, as its status says it. A rank that died first (killed, its node
// lost) makes the launcher stop the others with SIGTERM: the status names the lost rank, or the
// rank a signal reached first, not the signal that followed.
std::string SweepRunner::why_stopped(int sig) const {
  const Gone g = gone_ranks();
  const std::string name = signal_name(sig);
  if (!g.lost.empty())
    return "a rank was lost: " + g.lost +
           " ended without iosweep's cleanup (killed, or its node lost); the launcher then "
           "stopped the job with " +
           name;
  if (!g.signalled.empty())
    return "interrupted: " + g.signalled +
           " ended through iosweep's cleanup; the launcher then stopped the job with " + name;
  return "interrupted by " + name;
}

// From here to the end of the run a signal is handled: rank 0 first marks the run aborted
// (mpirun sends SIGKILL about a second after SIGTERM unless odls_base_sigkill_timeout says
// otherwise, and removing large files can take that long), then every rank closes its file set
// (nothing is created after this), removes what it made, and says after the fact what it left.
void SweepRunner::watch_signals() {
  watcher_ = std::make_unique<SignalWatcher>([this](int sig) {
    if (room_) room_->note_signal(sig);
    if (rank0_) {
      const std::string msg = why_stopped(sig);
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
    // An exclusive create inside a window ends as soon as the driver sees the stop flag (set
    // before this runs); the wait is bounded for a rank stuck in the storage.
    const FileSet::Cleanup c = files_->close_and_remove(work_.keep, std::chrono::seconds(5));
    md_->remove_all();
    // Said after the fact, by the rank that knows: what it left, and why.
    if (!c.left.empty())
      std::fprintf(stderr, "iosweep: %s: left '%s'%s\n", who().c_str(), printable(c.left).c_str(),
                   work_.keep     ? " (--keep)"
                   : c.waited_out ? ": the create inside its window had not ended after 5 s (the file may appear after this)"
                                  : (": removing it failed: " + describe_errno(c.err)).c_str());
    std::fflush(stderr);
  });
  md_->stop_on(watcher_->stop_flag());
}

// Every point: the active ranks run it; the others sleep in their machine's room until its
// keeper opens it with the verdict, which the keepers follow from rank 0.
int SweepRunner::run_points() {
  for (std::size_t pi = 0; pi < points_.size(); ++pi) {
    const int k = points_[pi].ranks;
    const bool active = place_.self.position < k;
    MPI_Comm comm = MPI_COMM_NULL, awake = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, active ? 0 : MPI_UNDEFINED, place_.self.position, &comm);
    const bool keeper = room_->keeper_for(active);
    MPI_Comm_split(MPI_COMM_WORLD, active || keeper ? 0 : MPI_UNDEFINED, mpi_.rank(), &awake);
    int stop = 0;
    if (active) stop = run_point(pi, k, comm) ? 0 : 1;
    // Idle keepers follow the point from another machine: they test every 5 ms at most.
    if (awake != MPI_COMM_NULL) gentle_bcast_int(stop, 0, awake, active ? 1'000'000 : 5'000'000);
    if (keeper) {
      room_->open(stop);
    } else if (!active) {
      stop = room_->wait();
    }
    note_usage(active);
    if (awake != MPI_COMM_NULL) MPI_Comm_free(&awake);
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
    if (stop != 0) return fail();
  }
  return 0;
}

// After the last point: the run's files removed, every rank's usage stored, the run complete.
int SweepRunner::finish() {
  progress_.reset();
  if (!work_.keep) files_->remove_own();
  md_->finish();
  if (failure_ = write_rank_usage(); !failure_.empty()) return fail();
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
  spec_ = {work_.seed, work_.filter_key, work_.filter_every, work_.file_size};
  counters_ = std::make_unique<NodeCounters>(work_, place_);
  files_ = std::make_unique<FileSet>(work_.dirs, place_.folder_of_position, run_id_,
                                     work_.reuse_run.empty() ? run_id_ : work_.reuse_run,
                                     place_.self.position, work_.shared());
  // The metadata phases' folders and items sit in the first folder of --dir.
  md_ = std::make_unique<MdSet>(work_.dirs.front(), run_id_, place_.self.position, work_.md,
                                work_.seed);
  note_rank_identities();
  room_ = std::make_unique<Room>(MPI_COMM_WORLD);
  make_writers();
  watch_signals();
  if (!start_writers()) return fail();
  progress_ = std::make_unique<Progress>(rank0_ && !cfg_.report.quiet, !cfg_.report.quiet, stderr,
                                         room_->machine());
  progress_->begin_run(points_.size() * static_cast<std::uint64_t>(cfg_.sweep.repetitions) *
                       work_.phases.size());
  if (const int status = run_points(); status != 0) return status;
  return finish();
}

int run_sweep(const Config& cfg, const MpiSession& mpi, const LocalPlace& place,
              const std::vector<SweepPoint>& points, const std::string& engine_detail) {
  SweepRunner runner(cfg, mpi, place, points, engine_detail);
  return runner.run();
}

}  // namespace iosweep
