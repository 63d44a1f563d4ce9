// The ResultWriter interface (Google Benchmark's reporter shape): begin_run with the context,
// append_point for every reduced point, append_usage once, end_run with the final status, and
// abort_from_signal from the signal watcher. Only world rank 0 owns real writers: the console
// table, the IOzone-style blocks and the HDF5 file; the runner knows them only through this
// interface.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/histogram.hpp"
#include "model/config.hpp"
#include "model/final_math.hpp"
#include "model/point.hpp"
#include "model/run_plan.hpp"
#include "model/schema.hpp"
#include "model/topology.hpp"

namespace iosweep {

// One block device under a node's folders of --dir, as the node's sampler found it at the
// start of the run: a drive of the device table.
struct RunDrive {
  int node = 0;
  int drive = 0;              // the device table's drive id (one device of one kernel)
  std::string device;         // "nvme0n1"
  std::uint64_t folders = 0;  // bit mask of --dir's indexes on it on that node
  double link_Bps = 0;        // its PCIe link per direction; NaN unknown (os/block_device.hpp)
  std::string link;           // the link as read, or why it is unknown
};

struct RunContext {
  std::string run_id;
  const Config* cfg = nullptr;    // the first step's (the whole run's options are in all)
  const RunPlan* plan = nullptr;  // every step, point, repetition and phase as planned
  int world_size = 1;
  Topology topology;
  std::uint64_t t_start_unix_ns = 0;
  std::string engine_detail;                // the first step's engine probe
  std::vector<std::string> engine_details;  // every step's
  std::vector<std::string> dirs;  // every step's folders together (the run's --dir indexes)
  std::string versions_toml;      // iosweep, git, MPI, HDF5, liburing, kernel
  std::string slurm_job_id, slurm_nodelist;
  std::vector<MountRow> mounts;  // every (node, folder)'s file system (node 0: rank 0's)
  std::vector<RunDrive> drives;  // every node's devices under its folders; empty unmeasured
  std::string device_note;       // why the device counters are NaN; empty when measured
  std::string wire_note;         // why the wire counters are NaN; empty when measured
  std::uint64_t order_seed = 0;  // --order-seed, or the run's nonce

  // The file system type under --dir's first folder on rank 0's node (node 0), from its mount
  // table.
  std::string fs_type() const {
    for (const auto& m : mounts)
      if (m.node == 0 && m.folder == 0) return m.fs_type;
    return "unknown";
  }
};

class ResultWriter {
 public:
  virtual ~ResultWriter() = default;
  virtual void begin_run(const RunContext& ctx) = 0;
  // Before the first point of each step (`index` from 0); a writer with nothing to say about
  // steps ignores it.
  virtual void begin_step(const StepPlan& step, std::uint32_t index) {
    (void)step;
    (void)index;
  }
  virtual void append_point(const PointResult& point, const LatencyHistogram& latency) = 0;
  // status: complete or aborted; `message` says why a run was aborted.
  virtual void end_run(RunStatus status, const std::string& message) = 0;
  // Every rank's memory and CPU over the whole run, once, before end_run; a writer that stores
  // no tables ignores it.
  virtual void append_usage(const std::vector<RankUsageRow>& rows) { (void)rows; }
  // The final math of the run's largest filter-count point (model/final_math.hpp), once, before
  // end_run of a complete run that had filter-count.
  virtual void append_final_math(const FinalMath& fm) { (void)fm; }
  // From the signal watcher thread, while the main thread may be writing: mark the run aborted
  // where this writer can (the results file). True when it marked something.
  virtual bool abort_from_signal(const std::string& message) {
    (void)message;
    return false;
  }
};

// Fan-out to several writers, in order. It also keeps the last filter-count and ship-count
// points it passed on, and at the end of a complete run makes their final math once and hands
// it to every writer (output/writer.cpp).
class WriterList final : public ResultWriter {
 public:
  void add(std::unique_ptr<ResultWriter> w) { writers_.push_back(std::move(w)); }
  void begin_run(const RunContext& ctx) override;
  void begin_step(const StepPlan& step, std::uint32_t index) override;
  void append_point(const PointResult& p, const LatencyHistogram& l) override;
  void end_run(RunStatus s, const std::string& m) override;
  void append_final_math(const FinalMath& fm) override {
    for (auto& w : writers_)
      w->append_final_math(fm);
  }
  void append_usage(const std::vector<RankUsageRow>& rows) override {
    for (auto& w : writers_)
      w->append_usage(rows);
  }
  // The list is complete before the signal watcher starts (the runner adds every writer
  // first), so reading it here races with nothing.
  bool abort_from_signal(const std::string& m) override {
    bool marked = false;
    for (auto& w : writers_)
      marked = w->abort_from_signal(m) || marked;
    return marked;
  }

 private:
  std::vector<std::unique_ptr<ResultWriter>> writers_;
  FinalMathInputs final_math_;   // the final math's point's step
  FinalMathInputs step_inputs_;  // the current step's
  std::optional<PointResult> last_filter_, last_ship_;
};

}  // namespace iosweep
