// One phase of one point on this rank, step by step (see sweep_runner.hpp): its context, the
// untimed preparation (engine, files, buffers), the timed window between a barrier and every
// rank's close, the untimed finish (wear-out), and the gather, reduction and record on rank 0.
// Every step ends in the active ranks' agreement, so a failure anywhere stops all of them at
// the same step.
//
// overhead_s: the harness's own time around the window, from the end of the preparation to the
// barrier's exit, and from the agreement that every rank has closed its file to the end of the
// results append (the HDF5 writer adds its share); waiting for slower ranks' preparation or
// windows is not counted, nor the untimed wear-out.
#include "core/clock.hpp"
#include "core/errors.hpp"
#include "core/process.hpp"
#include "engines/registry.hpp"
#include "phases/io_phase.hpp"
#include "sweep/gather.hpp"
#include "sweep/sweep_runner.hpp"

namespace iosweep {

std::string SweepRunner::guarded(const std::function<void()>& step) const {
  try {
    step();
    return {};
  } catch (const std::exception& e) {
    return who() + ": " + printable(e.what());
  }
}

PhaseContext SweepRunner::context_for(const PhaseDesc& desc, std::size_t point_index, int k,
                                      int rep, MPI_Comm comm, int shift) {
  const SweepPoint& point = points_[point_index];
  PhaseContext ctx(work_, cfg_.io, desc, spec_, *files_, place_.self, mpi_.host());
  // Buffers pass only from a phase to its control or back, within one repetition.
  if (previous_ == nullptr || !control_pair(*previous_, desc)) handoff_ = AlignedBuffer();
  previous_ = &desc;
  ctx.handoff = &handoff_;
  ctx.active = comm;
  ctx.k = k;
  ctx.streams = point.per_rank;
  ctx.repetition = rep;
  ctx.read_shift = shift;
  ctx.read_position = (place_.self.position + shift) % k;
  ctx.series = TimeSeries(static_cast<std::uint64_t>(work_.timeseries_bin_s * 1e9));
  ctx.stop = watcher_->stop_flag();
  ctx.order_seed = order_seed_for(
      cfg_.sweep.streams.empty() ? static_cast<std::uint64_t>(k) : point.streams(), rep);
  return ctx;
}

// Untimed: the one engine of this phase and rank, the rank's own file, every reader knows how
// much of its file is valid, and the phase's own preparation (buffers, order, cache drop).
bool SweepRunner::prepare_untimed(PhaseRun& r, MPI_Comm comm, int shift) {
  if (!checkpoint(guarded([&] {
        const EngineNeed need = r.phase->engine_need(work_, cfg_.io, r.point.per_rank);
        EngineOptions io = cfg_.io;
        io.iodepth = need.depth;
        if (io.iodepth_batch > io.iodepth) io.iodepth_batch = io.iodepth;
        r.engine = make_engine(io, need.use, comm);
        r.ctx.engine = r.engine.get();
      })))
    return false;
  // Apart: a shared file is made by the point's ranks together, all of them with an engine.
  if (!r.desc.creates() && !checkpoint(guarded([&] { ensure_own_file(r.ctx); }))) return false;
  const int k = r.ctx.k, pos = place_.self.position;
  std::uint64_t mine = files_->valid_bytes(), theirs = 0;
  MPI_Sendrecv(&mine, 1, MPI_UINT64_T, (pos - shift % k + k) % k, 0, &theirs, 1, MPI_UINT64_T,
               r.ctx.read_position, 0, comm, MPI_STATUS_IGNORE);
  r.ctx.read_valid_bytes = theirs;
  if (!checkpoint(guarded([&] { r.phase->prepare(r.ctx); }))) return false;
  r.t_prepared_ns = now_ns();
  return true;
}

// Timed: the device counters before, the barrier, the phase's own window (open to close), and
// the counters after every rank of every node has closed its file.
bool SweepRunner::run_window(PhaseRun& r, std::size_t point_index, MPI_Comm comm) {
  if (rank0_) {
    progress_->begin_phase(static_cast<int>(point_index) + 1, static_cast<int>(points_.size()),
                           r.ctx.k, r.desc.name, r.ctx.progress_total,
                           r.desc.random() ? work_.record_bytes(r.desc.record) : 0);
    r.ctx.progress_bytes = progress_->counter();
  }
  counters_->before();
  MPI_Barrier(comm);
  r.pre_window_ns = now_ns() - r.t_prepared_ns;
  std::string run_error;
  try {
    r.phase->run(r.ctx, r.sample);
  } catch (const std::exception& e) {
    run_error = who() + ": " + printable(e.what());
  }
  if (rank0_) progress_->end_phase();
  if (!checkpoint(run_error)) return false;
  r.t_closed_ns = now_ns();
  counters_->after();
  return true;
}

// Untimed after the window: the wear-out, which is the phase's time, not the harness's.
bool SweepRunner::finish_untimed(PhaseRun& r) {
  const std::uint64_t t0 = now_ns();
  const std::string why = guarded([&] { r.phase->finish(r.ctx, r.sample); });
  r.t_closed_ns += now_ns() - t0;
  return checkpoint(why);
}

// The gather to rank 0; there the reduction, the checks and the writers; then everyone learns
// whether the run goes on.
bool SweepRunner::record_phase(PhaseRun& r, MPI_Comm comm) {
  private_peak_ = std::max(private_peak_, r.sample.private_bytes);
  PointInput in;
  NodeCounters::Rows counted = counters_->collect(comm);
  in.devices = std::move(counted.devices);
  in.wire = std::move(counted.wire);
  gather_point(comm, r.sample, r.ctx.latency, r.ctx.series, r.desc.counts(), in);
  r.phase->cleanup(r.ctx);
  std::string engine_detail;
  const unsigned engine_depth = r.engine->depth();
  if (rank0_)
    engine_detail = std::string(r.engine->name()) + " depth " + std::to_string(engine_depth) +
                    ": " + r.engine->detail();
  r.engine.reset();
  std::string verdict;
  if (rank0_) {
    in.phase = r.desc.id;
    in.engine = cfg_.io.engine;
    in.ranks = r.ctx.k;
    in.point_depth = r.point.per_rank.depth;
    in.iodepth = std::min(r.point.per_rank.depth, engine_depth);
    in.nodes = place_.full.nodes_used(r.ctx.k);
    in.repetition = r.rep;
    in.bin_s = work_.timeseries_bin_s;
    in.order_seed = r.desc.random() ? r.ctx.order_seed : 0;
    in.device_measured = counters_->device_measured();
    in.wire_measured = counters_->wire_measured();
    in.writes = r.desc.writes();
    in.overhead_s = ns_to_s(r.pre_window_ns + (now_ns() - r.t_closed_ns));
    for (auto& d : in.devices) {
      d.phase = r.desc.id;
      d.repetition = static_cast<std::uint32_t>(r.rep);
    }
    for (auto& w : in.wire) {
      w.phase = r.desc.id;
      w.repetition = static_cast<std::uint32_t>(r.rep);
    }
    verdict = recorder_->record(r.row, in, engine_detail);
  }
  if (gate_->max(verdict.empty() ? 0 : 1) != 0) {
    if (rank0_) failure_ = verdict;
    return false;
  }
  return true;
}

bool SweepRunner::run_phase(const PhaseRow& row, std::size_t point_index, int k, int rep,
                            MPI_Comm comm, int shift) {
  PhaseRun r(row, points_[point_index], rep,
             context_for(row.desc(), point_index, k, rep, comm, shift));
  r.phase = row.make(r.desc);
  r.sample.rank = mpi_.rank();
  r.sample.position = place_.self.position;
  r.sample.node = place_.self.node;
  return prepare_untimed(r, comm, shift) && run_window(r, point_index, comm) && finish_untimed(r) &&
         record_phase(r, comm);
}

}  // namespace iosweep
