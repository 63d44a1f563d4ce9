// The HDF5 results writer (schema 1, see results/README.md). The file is opened, appended to
// and closed again for every point, under an exclusive lock, so that it is complete and
// readable between points (a killed writer loses at most the point being written), and so that
// several runs may append to one file at the same time. Runs are appended, never rewritten;
// only the run's own run_index row and status attributes are updated as it progresses.
#pragma once

#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "output/hdf5_file.hpp"
#include "output/writer.hpp"

namespace iosweep {

class Hdf5Writer final : public ResultWriter {
 public:
  explicit Hdf5Writer(std::string path) : path_(std::move(path)) {}
  void begin_run(const RunContext& ctx) override;
  void append_point(const PointResult& point, const LatencyHistogram& latency) override;
  void end_run(RunStatus status, const std::string& message) override;
  // Marks the run aborted from the signal watcher thread; safe while the main thread writes.
  // False when there was nothing to mark (not begun, or already ended).
  bool abort_from_signal(const std::string& message) override;
  // Every rank's memory and CPU over the run (once, before end_run): the rank_usage table.
  void append_usage(const std::vector<RankUsageRow>& rows) override;
  // Kept until end_run, which stores it with the run's completion (the final_math tables).
  void append_final_math(const FinalMath& fm) override;

 private:
  void begin_locked(const RunContext& ctx, bool was_empty);
  void finish(RunStatus status, const std::string& message);

  std::string path_;
  std::string run_id_;
  h5::FileLock::Identity file_{};  // the results file this run began in
  std::mutex mu_;
  bool begun_ = false;
  bool ended_ = false;
  unsigned long long run_index_row_ = 0;  // this run's row in /run_index
  RunIndexRow index_{};                   // what that row holds; only this writer changes it
  std::set<unsigned> engines_noted_;      // phases whose engine detail is stored
  std::optional<FinalMath> final_math_;
};

}  // namespace iosweep
