// The Phase interface (IO500's phase record): validate on every rank before any I/O, untimed
// prepare, timed run returning the rank's sample, untimed finish (wear-out) and cleanup. The
// SweepRunner calls these in the order of the phase table on the active ranks of each point.
#pragma once

#include <mpi.h>

#include <atomic>
#include <memory>
#include <string>

#include "app/config.hpp"
#include "core/histogram.hpp"
#include "core/pattern.hpp"
#include "core/timeseries.hpp"
#include "phases/file_set.hpp"
#include "phases/io_driver.hpp"
#include "phases/phase_kind.hpp"
#include "phases/sample.hpp"

namespace iosweep {

struct PhaseContext {
  PhaseContext(const Config& c, const DataSpec& d, FileSet& f, RankPlace me, std::string h)
      : cfg(c), data(d), self(me), host(std::move(h)), files(f) {}

  const Config& cfg;
  const DataSpec& data;
  MPI_Comm active = MPI_COMM_NULL;  // the active ranks of this point, ordered by position
  int k = 1;                        // active ranks
  int repetition = 0;
  RankPlace self;
  std::string host;
  FileSet& files;
  int read_position = 0;               // file this rank reads in reading phases
  std::uint64_t read_valid_bytes = 0;  // how much of that file holds data

  LatencyHistogram latency;
  TimeSeries series;
  std::atomic<std::uint64_t>* progress_bytes = nullptr;  // rank 0 only
  std::uint64_t progress_total = 0;                      // bytes this rank plans to move
  const std::atomic<bool>* stop = nullptr;
};

// The parts of a driver job that every timed window shares: its start, the --stonewall
// deadline, the latency histogram, the time series, progress and the interrupt flag.
inline void arm_timed(DriverJob& job, PhaseContext& ctx, std::uint64_t t0_ns) {
  job.t0_ns = t0_ns;
  job.deadline_ns =
      ctx.cfg.stonewall_s > 0 ? t0_ns + static_cast<std::uint64_t>(ctx.cfg.stonewall_s * 1e9) : 0;
  job.latency = &ctx.latency;
  job.series = &ctx.series;
  job.progress_bytes = ctx.progress_bytes;
  job.stop = ctx.stop;
}

class Phase {
 public:
  virtual ~Phase() = default;
  virtual PhaseKind kind() const = 0;
  // On every rank before any I/O: empty, or "--option: problem".
  virtual std::string validate(const Config& cfg) const = 0;
  // Untimed: engine set-up, buffers, file creation when needed, cache dropping.
  virtual void prepare(PhaseContext& ctx) = 0;
  // Timed, from the exit of the active ranks' barrier; fills the rank's sample.
  virtual void run(PhaseContext& ctx, RankSample& sample) = 0;
  // Untimed, after the timed window, collective over ctx.active (wear-out).
  virtual void finish(PhaseContext& ctx, RankSample& sample) {
    (void)ctx;
    (void)sample;
  }
  virtual void cleanup(PhaseContext& ctx) { (void)ctx; }
};

}  // namespace iosweep
