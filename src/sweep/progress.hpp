// Live progress on rank 0's stderr: point k of N, phase, percent of the phase done, the active
// ranks' current rate (MiB/s, or IOPS for random and metadata phases), elapsed and estimated
// remaining time for the whole run. Redrawn in place on a terminal (rank 0's own, or mpirun's
// when mpirun forwards rank 0's stderr); one plain line every few seconds otherwise (Slurm
// logs); silent with --quiet.
//
// The rate is every active rank's, not rank 0's alone: each active rank counts its bytes (or
// operations) into its own slot of a page its machine's ranks share (an MPI-3 shared window,
// one 64-byte line per rank, so no two ranks write one line), with the relaxed store the I/O
// loop already made for rank 0 alone; rank 0's helper thread adds up its machine's slots every
// 250 ms. Nothing else happens inside a window: no collective call, no lock, no read of another
// rank's slot. When the point's active ranks span several machines, rank 0 sees only its own
// machine's: the figure is then its machine's rate scaled by all active ranks over those it
// sees, and says so ("est."). The percentage is the counted work over the work of the ranks
// counted; the remaining time counts phases (every point, repetition and phase is one, the
// current one by its percentage), which works alike for bytes and operations.
//
// Once rank 0's own window is over the line goes on, saying how long rank 0 has waited for the
// others, until the phase is recorded (rest); a stall another rank reported (sweep/stall.hpp)
// is shown with how long it has lasted, until that rank says it is over.
#pragma once

#include <mpi.h>

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
  // Collective over `machine` (the ranks sharing this machine's memory) when `counting`: every
  // rank gets a slot; `shown` on rank 0 alone (and not --quiet) starts the display.
  Progress(bool shown, bool counting, std::FILE* out, MPI_Comm machine);
  ~Progress();  // collective over `machine` when counting (the window is freed)
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // The run's phases to come: every point's repetitions of every phase.
  void begin_run(std::uint64_t planned_phases);
  // This rank's counter for the phase `serial` (the same number on every rank: point,
  // repetition and phase), zeroed and marked as counting for it; untimed, before the point's
  // last agreement ahead of the window. nullptr when nothing is counted (--quiet).
  std::atomic<std::uint64_t>* counter(std::uint64_t serial);
  // Rank 0, after that agreement: the phase `serial` runs on `ranks` active ranks, each to move
  // `phase_work` bytes (or operations); `ops_record` > 0 shows IOPS (bytes / record), 1 for a
  // phase that counts operations.
  void begin_phase(int point_index, int n_points, int ranks, const std::string& phase,
                   std::uint64_t serial, std::uint64_t phase_work, std::uint64_t ops_record);
  // Rank 0's window is over: the line says it waits for the other ranks.
  void end_phase();
  // The phase is recorded (or the point stopped): no line until the next phase.
  void rest();
  // "rank R (host H): write of FILE at offset O", outstanding `age_s` when said; empty: over.
  void stall_note(const std::string& what, double age_s);
  bool terminal() const { return tty_; }

 private:
  struct alignas(64) Slot {
    std::atomic<std::uint64_t> work{0};    // bytes or operations done in the phase
    std::atomic<std::uint64_t> serial{0};  // the phase counted (0: none yet)
  };
  void loop();
  void draw();
  // (work counted by this machine's ranks in the current phase, how many of them count it)
  std::pair<std::uint64_t, int> machine_work() const;

  bool enabled_;
  bool tty_ = false;
  std::FILE* out_;
  MPI_Win win_ = MPI_WIN_NULL;
  Slot* slots_ = nullptr;  // this machine's, by machine rank
  int machine_size_ = 0, machine_rank_ = 0;
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

  std::uint64_t run_start_ns_ = 0, last_line_ns_ = 0;
  std::uint64_t planned_ = 0, done_ = 0, serial_ = 0, phase_work_ = 0, ops_record_ = 0;
  int point_ = 0, points_ = 0, ranks_ = 0;
  std::string phase_;
  std::uint64_t last_work_ = 0, last_ns_ = 0;
  double rate_ = 0;
};

}  // namespace iosweep
