// Live progress on rank 0's stderr: point k of N, phase, percent of rank 0's own work in the
// phase, current MiB/s (or IOPS for random phases), elapsed and estimated remaining time for the
// whole run. Redrawn in place on a terminal (rank 0's own, or mpirun's when mpirun forwards
// rank 0's stderr); one plain line every few seconds otherwise (Slurm logs); silent with
// --quiet. A helper thread reads an atomic counter that the I/O loop updates
// with a relaxed store: no collective call and no lock inside any timed window. Once rank 0's
// own window is over the line goes on, saying how long rank 0 has waited for the others, until
// the phase is recorded (rest); a stall another rank reported (sweep/stall.hpp) is shown with
// how long it has lasted, until that rank says it is over.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

namespace iosweep {

class Progress {
 public:
  Progress(bool enabled, std::FILE* out);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void begin_run(std::uint64_t planned_bytes);
  // `ops_record` > 0 shows IOPS (bytes / record) instead of MiB/s.
  void begin_phase(int point_index, int n_points, int ranks, const std::string& phase,
                   std::uint64_t phase_bytes, std::uint64_t ops_record);
  // Rank 0's window is over: the line says it waits for the other ranks.
  void end_phase();
  // The phase is recorded (or the point stopped): no line until the next phase.
  void rest();
  // "rank R (host H): write of FILE at offset O", outstanding `age_s` when said; empty: over.
  void stall_note(const std::string& what, double age_s);
  std::atomic<std::uint64_t>* counter() { return &bytes_; }
  bool terminal() const { return tty_; }

 private:
  void loop();
  void draw();

  bool enabled_;
  bool tty_ = false;
  std::FILE* out_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool active_ = false;
  bool waiting_ = false;  // rank 0's window is over
  std::uint64_t wait_start_ns_ = 0;
  std::string stall_;  // what another rank said is stalled, or empty
  double stall_age_s_ = 0;
  std::uint64_t stall_said_ns_ = 0;
  std::thread thread_;
  std::atomic<std::uint64_t> bytes_{0};

  std::uint64_t run_start_ns_ = 0, phase_start_ns_ = 0, last_line_ns_ = 0;
  std::uint64_t planned_ = 0, done_before_ = 0, phase_bytes_ = 0, ops_record_ = 0;
  int point_ = 0, points_ = 0, ranks_ = 0;
  std::string phase_;
  std::uint64_t last_bytes_ = 0, last_ns_ = 0;
  double rate_ = 0;
};

}  // namespace iosweep
