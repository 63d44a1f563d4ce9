// The stall watch: one thread per rank that tells a storage operation which never returns from
// one which is merely slow, whatever the engine and whether the rank is blocked in a system call
// or not (fio's "job stalled"). It reads the rank's pulse (core/pulse.hpp), which the I/O loops
// and the untimed steps publish; it adds nothing to a timed window but those stores, and wakes
// 4 times a second (every limit / 8 for a limit under 2 s) to look.
//
// An operation outstanding for `notice` (10 s, or the limit when smaller) is reported on the
// rank's stderr and to rank 0's progress line; one outstanding for --stall-limit is a stall:
//   - by default the run stops: the stalled rank prints `rank R (host H): write of FILE at
//     offset O has not completed after 30.0 s (--stall-limit 30s)`, tells rank 0 through the
//     side channel (os/side_channel.hpp: its own MPI cannot progress), and rank 0 marks the run
//     aborted with that line (bounded: its results writer may itself be stuck) and ends the job
//     with MPI_Abort and exit status 3 (kExitStalled);
//   - with --stall-wait the rank waits for ever: the line says so, the progress line shows the
//     stall while it lasts, and the row records its length (stall_s) once it ends.
// The longest time one operation of a phase stayed outstanding (from `notice` on) goes into the
// rank's sample (take_longest_s) and from there into the row.
//
// Files after a stall failure: a rank stuck in the kernel cannot run its cleanup, and an unlink
// on the storage that stopped answering would hang the same way, so the stalled ranks' files
// stay where they are (their folder and run id named in their line), and so do a shared file
// and the metadata tree, which stalled ranks may be inside; rank 0, unless stalled, removes its
// own data file (bounded, and said after the fact), and every other rank removes its own when
// the launcher stops it (as on SIGTERM). Nothing is removed that was not provably the run's own.
//
// A step whose kernel writes back dirty pages (fsync, close) is progressing while the node's
// Dirty + Writeback pages (/proc/meminfo) go down: such a tick counts as progress, so a long
// flush of a large file is not taken for a stall.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/pulse.hpp"
#include "model/config.hpp"
#include "mpi/session.hpp"
#include "sweep/progress.hpp"

namespace iosweep {

namespace side {
class Inbox;
}

// What the watch needs from the run, given when the run's writers exist.
struct StallHooks {
  // Rank 0: marks the run aborted with `message` in the results file (true when marked); called
  // from the watch's own thread, given at most the stall limit to answer.
  std::function<bool(const std::string&)> mark_aborted;
  // Rank 0 (not itself stalled): removes its own data file before the job ends (as on a
  // signal); true when it is gone. Given at most the stall limit too.
  std::function<bool()> remove_own;
  std::string output;            // rank 0: the results file, for the message
  std::string run_id;            // for the message
  std::string files_note;        // where this rank's files are ("DIR/iosweep.RUN.*")
  Progress* progress = nullptr;  // rank 0: the progress line, or null
};

class StallWatch {
 public:
  // Collective over MPI_COMM_WORLD: rank 0 opens its inbox and every rank learns where it is.
  StallWatch(const Workload& work, const MpiSession& mpi, std::string who);
  ~StallWatch();
  StallWatch(const StallWatch&) = delete;
  StallWatch& operator=(const StallWatch&) = delete;

  // The pulse every step of this rank publishes to.
  Pulse* pulse() { return &pulse_; }
  // Starts watching (the writers and the progress line exist by now).
  void start(StallHooks hooks);
  // The progress line is going away: nothing more is shown on it.
  void detach_progress();
  // The longest time one operation stayed outstanding since the last call, from `notice` on
  // (seconds; 0: none that long).
  double take_longest_s();
  // This rank's operation stalled and stopped the run: its files stay (its cleanup must not
  // touch them).
  bool stalled_here() const { return failed_.load(); }
  // Rank 0 is ending the run on a stall (it marked the results file and says why itself).
  bool ending() const { return ending_.load(); }

 private:
  struct Episode {
    std::uint64_t since_ns = 0;  // the step's start, as the pulse said (0: none)
    std::uint64_t start_ns = 0;  // the same, or the last tick a flush progressed
    double age_s = 0;            // outstanding so far, as last seen
    bool noticed = false, limit_reached = false;
    std::string what;  // "write of FILE at offset O"
  };
  void loop();
  void look(std::uint64_t now);
  void end_episode(std::uint64_t end_ns);
  void on_notice();
  void on_limit();
  void report(const std::string& kind, const std::string& text);
  // Rank 0: a report from another rank; a stall's line is returned (the run ends with it),
  // anything else goes to the progress line and "" is returned.
  std::string take(const std::string& message);
  [[noreturn]] void fail_here(const std::string& line);
  [[noreturn]] void end_run(const std::vector<std::string>& lines);
  std::string limit_text() const;
  bool writeback_progressed();

  const double limit_s_;
  const double notice_s_;
  const bool wait_;
  const bool rank0_;
  const std::string who_;
  Pulse pulse_;
  StallHooks hooks_;
  std::unique_ptr<side::Inbox> inbox_;  // rank 0
  std::vector<std::string> addresses_;  // rank 0's, on every rank
  std::uint16_t port_ = 0;
  std::string token_;
  Episode episode_;
  std::uint64_t writeback_bytes_ = 0;  // Dirty + Writeback at the last tick
  std::mutex mu_;
  std::condition_variable cv_;
  bool quit_ = false;
  double longest_s_ = 0;  // guarded by mu_
  std::atomic<bool> failed_{false};
  std::atomic<bool> ending_{false};
  std::thread thread_;
};

}  // namespace iosweep
