// One phase of one point on this rank, step by step (see phase_point.hpp). Every step ends in
// the active ranks' agreement, so a failure anywhere stops all of them at the same step.
//
// overhead_s: the harness's own time around the window, from the end of the preparation to the
// barrier's exit, and from the agreement that every rank has closed its file to the end of the
// results append (the HDF5 writer adds its share); waiting for slower ranks' preparation or
// windows is not counted, nor the untimed wear-out.
#include "sweep/phase_point.hpp"

#include <algorithm>
#include <optional>

#include "core/clock.hpp"
#include "core/errors.hpp"
#include "engines/engine_table.hpp"
#include "phases/io_phase.hpp"
#include "sweep/gather.hpp"

namespace iosweep {

namespace {

PhaseContext context_for(const RunShared& run, const PhaseDesc& desc, const PhaseSlot& slot,
                         AlignedBuffer& handoff) {
  const Workload& work = run.cfg.work;
  const int k = slot.point->point.ranks;
  PhaseContext ctx(work, run.cfg.io, desc, run.spec, run.files, run.place.self, run.mpi.host());
  ctx.handoff = &handoff;
  ctx.active = slot.comm;
  ctx.k = k;
  ctx.streams = slot.point->point.per_rank;
  ctx.repetition = slot.rep;
  ctx.md = &run.md;
  ctx.point_index = run.md_point != SIZE_MAX ? run.md_point : slot.point->index;
  ctx.plan = slot.phase;
  ctx.read_shift = slot.phase->read_shift;
  ctx.read_position = (run.place.self.position + ctx.read_shift) % k;
  ctx.series = TimeSeries(static_cast<std::uint64_t>(work.timeseries_bin_s * 1e9));
  ctx.stop = run.stop;
  ctx.order_seed = slot.phase->order_seed;
  ctx.pulse = run.stall != nullptr ? run.stall->pulse() : nullptr;
  return ctx;
}

// The folder of the file at position `file` (the one a rank read or wrote): where its bytes
// went, for the drive view. A shared file is in the one folder.
int folder_of_file(const RunShared& run, int file) {
  const auto& folder_of = run.place.folder_of_position;
  if (run.cfg.work.shared()) return 0;
  if (file < 0 || static_cast<std::size_t>(file) >= folder_of.size()) return run.place.self.folder;
  return folder_of[static_cast<std::size_t>(file)];
}

}  // namespace

PhasePoint::PhasePoint(const RunShared& run, PointGate& gate, const PhaseRow& row,
                       const PhaseSlot& slot, AlignedBuffer& handoff)
    : run_(run),
      gate_(gate),
      row_(row),
      desc_(row.desc()),
      slot_(slot),
      k_(slot.point->point.ranks),
      phase_(row.make(desc_)),
      ctx_(context_for(run, desc_, slot, handoff)) {
  sample_.rank = run.mpi.rank();
  sample_.position = run.place.self.position;
  sample_.node = run.place.self.node;
  run.md.watch_with(ctx_.pulse);
}

bool PhasePoint::run() {
  const bool ok = prepare_untimed() && run_window() && finish_untimed() && record();
  if (run_.mpi.rank() == 0) run_.progress.rest();
  return ok;
}

std::string PhasePoint::guarded(const std::function<void()>& step) const {
  try {
    step();
    return {};
  } catch (const std::exception& e) {
    return run_.who + ": " + printable(e.what());
  }
}

// The same number on every rank for this phase of this point and repetition, never 0.
std::uint64_t PhasePoint::progress_serial() const {
  return ((static_cast<std::uint64_t>(slot_.point->index) + 1) << 32) |
         (static_cast<std::uint64_t>(slot_.rep) << 8) | static_cast<std::uint64_t>(desc_.id);
}

// Untimed: the one engine of this phase and rank, the rank's own file, every reader knows how
// much of its file is valid, and the phase's own preparation (buffers, order, cache drop).
bool PhasePoint::prepare_untimed() {
  if (!gate_.checkpoint(guarded([&] {
        {
          const PulseStep step(ctx_.pulse, "stat", "checking the folders of --dir");
          run_.files.check_folder(run_.place.self.position);
          run_.files.check_folder(ctx_.read_position);
        }
        // The engine as planned: the depth the phase keeps, decided once (sweep/plan_run.cpp).
        engine_ = make_engine(engine_options(run_.step, *slot_.phase),
                              static_cast<EngineUse>(slot_.phase->use), slot_.comm);
        ctx_.engine = engine_.get();
      })))
    return false;
  if (phase_->data_files()) {
    // Apart: a shared file is made by the point's ranks together, all of them with an engine.
    if (!desc_.creates() && !gate_.checkpoint(guarded([&] { ensure_own_file(ctx_); })))
      return false;
    const int k = k_, pos = run_.place.self.position;
    std::uint64_t mine = run_.files.valid_bytes(), theirs = 0;
    MPI_Sendrecv(&mine, 1, MPI_UINT64_T, (pos - ctx_.read_shift % k + k) % k, 0, &theirs, 1,
                 MPI_UINT64_T, ctx_.read_position, 0, slot_.comm, MPI_STATUS_IGNORE);
    ctx_.read_valid_bytes = theirs;
  }
  // This rank's progress counter, zeroed for this phase before the agreement that precedes
  // rank 0's display of it (progress.hpp); the phase's preparation says how much it will do.
  ctx_.progress_bytes = run_.progress.counter(progress_serial());
  if (!gate_.checkpoint(guarded([&] { phase_->prepare(ctx_); }))) return false;
  sample_.data_bytes = ctx_.progress_total;
  t_prepared_ns_ = now_ns();
  return true;
}

// A collective read's shared file, whose residency every node's sampler measures around the
// window (the aggregators read it for every rank, on whatever node they run); else none.
std::optional<NodeCounters::CacheProbe> PhasePoint::cache_probe() const {
  if (!run_.cfg.io.collective || desc_.writes()) return std::nullopt;
  return NodeCounters::CacheProbe{run_.files.path(ctx_.read_position),
                                  file_bytes_of(ctx_, run_.cfg.work.file_size)};
}

// Timed: the device counters before, the barrier, the phase's own window (open to close), and
// the counters after every rank of every node has closed its file.
bool PhasePoint::run_window() {
  const bool rank0 = run_.mpi.rank() == 0;
  const std::optional<NodeCounters::CacheProbe> probe = cache_probe();
  {
    const PulseStep step(ctx_.pulse, "sample", "dropping caches and sampling counters");
    run_.counters.before(slot_.phase->caches_to_drop, probe ? &*probe : nullptr);
  }
  // Shown once the caches are dropped: a drop that takes seconds is not a phase at 0%.
  if (rank0)
    run_.progress.begin_phase(static_cast<int>(slot_.point->index) + 1,
                              static_cast<int>(run_.n_points), k_, desc_.name, progress_serial(),
                              ctx_.progress_total, phase_->progress_record(run_.cfg.work));
  MPI_Barrier(slot_.comm);
  pre_window_ns_ = now_ns() - t_prepared_ns_;
  std::string run_error;
  try {
    phase_->run(ctx_, sample_);
  } catch (const std::exception& e) {
    run_error = run_.who + ": " + printable(e.what());
  }
  if (rank0) run_.progress.end_phase();
  // The metadata phases' items sit in the folder of the position whose items they are (the
  // first folder for the shared layout: phases/md_set.hpp); the folder is the run's index (the
  // node counters know the union of the steps' folders).
  const int folder =
      phase_->data_files() ? folder_of_file(run_, sample_.file) : run_.md.folder_of(sample_.file);
  sample_.folder = run_.folder_in_run[static_cast<std::size_t>(folder)];
  if (!gate_.checkpoint(run_error)) return false;
  t_closed_ns_ = now_ns();
  const PulseStep step(ctx_.pulse, "sample", "sampling counters");
  run_.counters.after(probe ? &*probe : nullptr);
  return true;
}

// Untimed after the window: the wear-out, which is the phase's time, not the harness's.
bool PhasePoint::finish_untimed() {
  const std::uint64_t t0 = now_ns();
  const std::string why = guarded([&] { phase_->finish(ctx_, sample_); });
  t_closed_ns_ += now_ns() - t0;
  return gate_.checkpoint(why);
}

// Rank 0's description of the point for the reduction, beside the gathered samples.
PointInput PhasePoint::point_input(NodeCounters::Rows counted) const {
  PointInput in;
  in.cache_drop = counted.cache_drop;
  in.devices = std::move(counted.devices);
  in.device_folders = std::move(counted.device_folders);
  in.wire = std::move(counted.wire);
  in.node_cached = std::move(counted.cached);
  in.collective = run_.cfg.io.collective;
  in.direct = run_.cfg.io.direct;
  in.shared_file_bytes = static_cast<double>(file_bytes_of(ctx_, run_.cfg.work.file_size));
  in.full_bytes = static_cast<std::uint64_t>(k_) * run_.cfg.work.file_size;
  in.step = run_.step_index;
  in.plan_row = slot_.phase->row;
  in.phase = desc_.id;
  in.engine = run_.cfg.io.engine;
  in.ranks = k_;
  in.point_depth = slot_.phase->point_depth;
  in.iodepth = std::min(slot_.phase->point_depth, slot_.phase->depth);
  if (in.iodepth < in.point_depth)
    in.notes.push_back("depth " + std::to_string(in.iodepth) + ", not " +
                       std::to_string(in.point_depth) +
                       ": the phase had no more records to keep in flight");
  in.notes.insert(in.notes.end(), ctx_.notes.begin(), ctx_.notes.end());
  in.nodes = run_.place.full.nodes_used(k_);
  in.repetition = slot_.rep;
  in.bin_s = run_.cfg.work.timeseries_bin_s;
  in.order_seed = desc_.random() ? slot_.phase->order_seed : 0;
  in.device_measured = run_.counters.device_measured();
  in.wire_measured = run_.counters.wire_measured();
  in.writes = desc_.writes();
  in.creates = desc_.creates();
  in.metadata = desc_.metadata();
  in.lookup = desc_.lookup();
  if (in.metadata) {
    const Workload& work = run_.cfg.work;
    in.md_item_bytes = desc_.id == kMdRead     ? work.md.read_bytes
                       : desc_.id == kMdCreate ? work.md.write_bytes
                                               : 0;
    // The items sit in the first folder of --dir (sweep_runner.cpp): its mount on rank 0's node.
    for (const auto& m : run_.counters.mounts())
      if (m.node == run_.place.self.node && m.folder == 0) in.md_fs_type = m.fs_type;
  }
  in.rated_bw_Bps = run_.cfg.report.rated_bw_Bps;
  in.rated_bw2_Bps = run_.cfg.report.rated_bw2_Bps;
  in.rated_iops = run_.cfg.report.rated_iops;
  for (auto& d : in.devices) {
    d.phase = desc_.id;
    d.repetition = static_cast<std::uint32_t>(slot_.rep);
  }
  for (auto& w : in.wire) {
    w.phase = desc_.id;
    w.repetition = static_cast<std::uint32_t>(slot_.rep);
  }
  return in;
}

// The gather to rank 0; there the reduction, the checks and the writers; then everyone learns
// whether the run goes on.
bool PhasePoint::record() {
  const bool rank0 = run_.mpi.rank() == 0;
  if (run_.stall != nullptr) sample_.stall_s = run_.stall->take_longest_s();
  NodeCounters::Rows counted = run_.counters.collect(slot_.comm);
  PointInput in;
  if (rank0) in = point_input(std::move(counted));
  gather_point(slot_.comm, sample_, ctx_.latency, ctx_.series, desc_.counts(), in);
  phase_->cleanup(ctx_);
  std::string verdict;
  if (rank0) {
    const std::string engine_detail = std::string(engine_->name()) + " depth " +
                                      std::to_string(engine_->depth()) + ": " + engine_->detail();
    engine_.reset();
    in.overhead_s = ns_to_s(pre_window_ns_ + (now_ns() - t_closed_ns_));
    const PulseStep step(ctx_.pulse, "append", "appending the point to " + run_.cfg.report.output);
    verdict = run_.recorder->record(row_, in, engine_detail);
  }
  engine_.reset();
  return gate_.verdict(verdict);
}

}  // namespace iosweep
