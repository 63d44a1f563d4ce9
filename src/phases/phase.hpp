// The Phase interface (IO500's phase record): validate on every rank before any I/O, say which
// engine it needs, untimed prepare, timed run returning the rank's sample, untimed finish
// (wear-out) and cleanup. The SweepRunner builds one phase object and one engine per phase and
// rank, and calls these in the order of the phase table on the active ranks of each point.
#pragma once

#include <mpi.h>

#include <atomic>
#include <string>
#include <vector>

#include "core/histogram.hpp"
#include "core/pattern.hpp"
#include "core/timeseries.hpp"
#include "engines/engine_table.hpp"
#include "model/config.hpp"
#include "model/phase_desc.hpp"
#include "model/run_plan.hpp"
#include "model/sample.hpp"
#include "os/process.hpp"
#include "phases/file_set.hpp"
#include "phases/io_driver.hpp"
#include "phases/md_set.hpp"

namespace iosweep {

struct PhaseContext {
  PhaseContext(const Workload& w, const EngineOptions& o, const PhaseDesc& d,
               const DataSpec& data_spec, FileSet& f, RankPlace me, std::string h)
      : work(w), io(o), desc(d), data(data_spec), self(me), host(std::move(h)), files(f) {}

  const Workload& work;
  const EngineOptions& io;
  const PhaseDesc& desc;
  const DataSpec& data;
  MPI_Comm active = MPI_COMM_NULL;  // the active ranks of this point, ordered by position
  int k = 1;                        // active ranks
  RankStreams streams;              // this point's depth per rank and sequential regions
  int repetition = 0;
  RankPlace self;
  std::string host;
  FileSet& files;
  MdSet* md = nullptr;          // the metadata phases' folders and items
  std::size_t point_index = 0;  // the point's index in the sweep
  // Reading phases: position i reads file (i + shift) mod k; metadata lookups (md-stat,
  // md-read) touch the items of that position.
  int read_shift = 0;
  int read_position = 0;               // file this rank reads in reading phases
  std::uint64_t read_valid_bytes = 0;  // how much of that file holds data
  Engine* engine = nullptr;            // built for this phase and rank from its plan
  const PhasePlan* plan = nullptr;     // what the run plan decided for this phase and point
  std::uint64_t order_seed = 0;        // this point's seed of the random record orders

  LatencyHistogram latency;
  TimeSeries series;
  std::atomic<std::uint64_t>* progress_bytes = nullptr;  // none with --quiet
  std::uint64_t progress_total = 0;                      // bytes this rank plans to move
  const std::atomic<bool>* stop = nullptr;
  // Rank 0: what the phase's row says beyond its figures (how it ran), added to its notes.
  std::vector<std::string> notes;
  // What this rank waits for from the storage, for its stall watch (core/pulse.hpp): every job
  // a phase builds carries it, and every untimed step on the storage says what it is.
  Pulse* pulse = nullptr;
  // A phase and its control (scan-only for filter-count) run back to back in every repetition
  // and read through the same buffers: the first leaves them here at cleanup and the second
  // takes them at prepare. On a disk that merges a request's pages into DMA segments, freshly
  // mapped buffers differ in physical contiguity from one allocation to the next (measured: 512
  // KiB against 1.2 MiB requests for the same 16 MiB O_DIRECT reads, 1.0 against 1.55 GB/s), a
  // difference no efficiency ratio should carry. The runner frees what is left when the next
  // phase is not the partner.
  AlignedBuffer* handoff = nullptr;
};

// The engine a phase runs on: the run's engine options with this depth, for this use. The
// runner builds it once per phase and rank from the point's depth (the only way a point's
// depth reaches an engine).
struct EngineNeed {
  unsigned depth = 1;
  EngineUse use = EngineUse::io;
};

class Phase {
 public:
  explicit Phase(const PhaseDesc& desc) : desc_(desc) {}
  virtual ~Phase() = default;
  const PhaseDesc& desc() const { return desc_; }
  // On every rank before any I/O: empty, or "--option: problem".
  virtual std::string validate(const Workload& work, const EngineOptions& io) const = 0;
  // `per_rank`: what each active rank keeps going at the point (depth, sequential regions).
  virtual EngineNeed engine_need(const Workload& work, const EngineOptions& io,
                                 const RankStreams& per_rank) const {
    (void)work;
    (void)io;
    return {per_rank.depth, EngineUse::io};
  }
  // The I/O buffers one rank holds at once for this phase at a point (checked before a run
  // against the memory its node has), at the depth the plan gave it: the phase's own, or those
  // of writing its file first, whichever is larger. Asked once, by the plan.
  virtual std::uint64_t buffer_bytes(const Workload& work, const SweepPoint& point,
                                     const PhasePlan& plan) const = 0;
  // Whether the phase reads or writes the ranks' data files: the sweep then makes sure each
  // rank's own file exists before the phase (unless the phase creates it) and tells every
  // reader how much of its file holds data.
  virtual bool data_files() const { return true; }
  // The kernel caches every node drops right before the phase's barrier (after its
  // preparation): 0 none, 2 dentries and inodes, 3 those and the page cache
  // (/proc/sys/vm/drop_caches).
  virtual int caches_to_drop(const Workload& work, const EngineOptions& io) const {
    (void)work;
    (void)io;
    return 0;
  }
  // Progress counts bytes of records of this size (0: bandwidth is shown, not operations).
  virtual std::uint64_t progress_record(const Workload& work) const {
    return desc().random() ? work.record_bytes(desc().record) : 0;
  }
  // Untimed: buffers, file creation when needed, cache dropping (ctx.engine is built).
  virtual void prepare(PhaseContext& ctx) = 0;
  // Timed, from the exit of the active ranks' barrier; fills the rank's sample.
  virtual void run(PhaseContext& ctx, RankSample& sample) = 0;
  // Untimed, after the timed window, collective over ctx.active (wear-out).
  virtual void finish(PhaseContext& ctx, RankSample& sample) {
    (void)ctx;
    (void)sample;
  }
  virtual void cleanup(PhaseContext& ctx) { (void)ctx; }

 private:
  const PhaseDesc& desc_;
};

// Whether a file this rank creates is made and preallocated (fallocate) before its window
// (--preallocate); never for an engine that moves no data. By default the file is created
// inside the window and its blocks are allocated as it is written, as IOR, IOzone and a fresh
// fio file pay for them.
inline bool preallocates(const PhaseContext& ctx) {
  return ctx.work.preallocate && engine_desc(ctx.io.engine).moves_data;
}

// Untimed provenance of a phase's bytes: the fraction of the first `bytes` of `path` resident
// in the page cache (before a read), and the fraction of `written` bytes still dirty or under
// writeback (after a write's close); NaN where the kernel cannot tell.
double cached_fraction(const std::string& path, std::uint64_t bytes);
double unflushed_fraction(const std::string& path, std::uint64_t file_bytes, std::uint64_t written);

// Where region `region` (a position) sits in the file it is in: the whole file of one rank, or
// its region of the shared file of k ranks (see Layout), as IOR lays out its ranks' blocks.
Layout layout_for(const Workload& w, int k, int region);
// The same for this point's k.
Layout layout_of(const PhaseContext& ctx, int region);
// The bytes a page-cache or dirty measurement covers: a rank's file, or the whole shared file.
std::uint64_t file_bytes_of(const PhaseContext& ctx, std::uint64_t region_bytes);

// fsync and close of a file, as every phase makes them: an engine's error names no offset (a
// call on the whole file has none), so it is thrown again saying what is known instead: the
// bytes this rank wrote to the file since it opened it or last synced it successfully.
// `written`: bytes written through the handle since its open (0 for a reader).
void sync_file(Engine& e, int file, const std::string& path, std::uint64_t written);
void close_file(Engine& e, int file, const std::string& path, std::uint64_t written, bool synced);

// The parts of a driver job that every timed window shares: its start, the --stonewall
// deadline, the latency histogram, the time series, progress and the interrupt flag.
void arm_timed(DriverJob& job, PhaseContext& ctx, std::uint64_t t0_ns);

// The CPU a window spent (cpu_s, its user and system parts, the time queued for a CPU) into the
// sample.
void record_cpu(const CpuSpent& spent, RankSample& s);

// One timed window, the same for every phase: open (creating the file when `mode.create`), the
// I/O loop, fsync when `sync`, close. The clock starts before the open and stops after the
// close; everything the loop needs was set up before (`driver` is built on `job`). Fills the
// sample's file, bytes, ops, stonewall flag, largest latency and the times of each step.
DriverResult timed_window(PhaseContext& ctx, DriverJob& job, IoDriver& driver, OpenMode mode,
                          bool sync, int file_position, RankSample& s);

}  // namespace iosweep
