// IO500's timestamp and find phases (the phase table's `tree` rows: they work on the first
// folder of --dir as it stands, not on the run's data files or metadata set).
//
// timestamp: the first active rank makes the file --find-newer names (empty; an existing one
// is emptied), inside its window, as the io500 application's timestamp phase does; its row has
// one operation. find: every folder below the first --dir is listed once, by one rank; the
// folders of one level are shared out over the active ranks by their index (rank i lists
// folders i, i+k, ...), and after each level the ranks exchange the folders they found below
// (an allgather inside the window, as pfind's work stealing is inside its). One folder is never
// split: as pfind without its hashing option, the shared folder of mdtest-hard is one rank's.
// For every entry that is not a folder: its name against --find-name (no stat), then for a
// matching name an lstat when --find-newer or --find-size asks for one (ctime in seconds at or
// after the reference's, size equal), the order pfind checks in. The row's operations are the
// files examined (pfind's total-files, its rate's numerator), its matches the files counted
// (pfind's found). A failing list or stat stops that rank's walk, the others end the level
// walk together, and the point fails naming the path and errno.
//
// Latency (the row's percentiles): one per file examined, from the open of its folder or the
// end of the previous file examined in it to the end of its own checks. A folder is read a
// batch of entries per getdents call, so the call's time falls on the first file of its batch
// and the files after it cost what the name match (and an lstat, for a matching name) cost;
// the entries that are folders add their time to the next file. timestamp: its one operation,
// the create and close of the file.
#pragma once

#include <cstdint>
#include <string>

#include "phases/phase.hpp"

namespace iosweep {

class TreePhase final : public Phase {
 public:
  using Phase::Phase;
  std::string validate(const Workload& work, const EngineOptions& io) const override;
  EngineNeed engine_need(const Workload& work, const EngineOptions& io,
                         const RankStreams& per_rank) const override;
  std::uint64_t buffer_bytes(const Workload& work, const SweepPoint& point,
                             const PhasePlan& plan) const override;
  bool data_files() const override { return false; }
  std::uint64_t progress_record(const Workload& work) const override;
  void prepare(PhaseContext& ctx) override;
  void run(PhaseContext& ctx, RankSample& sample) override;

 private:
  struct Walk {
    std::uint64_t examined = 0, found = 0;
    std::string failure;  // the first error of this rank; its walk stopped there
  };
  void find(PhaseContext& ctx, Walk& w) const;
  void list_one(PhaseContext& ctx, const std::string& folder, std::string& below, Walk& w) const;

  std::string root_;
  std::int64_t newer_ctime_s_ = 0;
};

}  // namespace iosweep
