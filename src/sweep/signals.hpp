// Interrupts: SIGINT, SIGTERM, SIGHUP, SIGUSR1 and SIGPIPE are blocked in every thread (before
// MPI starts its own threads) and taken by one watcher thread with sigwait(). On a signal the
// watcher stops new I/O, removes this rank's files, lets rank 0 mark the run aborted in the
// results file, and exits with 128 + the signal number (130 for SIGINT, 143 for SIGTERM, 138 for
// SIGUSR1, 141 for SIGPIPE). SIGUSR1 is the stop a launcher passes on at once: Open MPI's mpirun
// forwards it to every rank (ess_base_forward_signals), where SIGTERM only starts its own kill
// sequence (SIGTERM to the ranks odls_base_sigkill_timeout seconds later); srun forwards it to
// its tasks, where it meets SIGTERM with SIGKILL; and sbatch --signal=B:USR1@SECONDS sends it
// before a job's time limit. Nothing of this runs in a signal handler, so it may take locks and
// call HDF5. A write to a closed pipe raises SIGPIPE in the writing thread, where it stays blocked
// (the write fails with EPIPE): whoever sees that sends the process a SIGPIPE of its own, for the
// watcher. The watcher also takes the signal's sender (the launcher's process on this node, a
// user's shell, the kernel as 0): ranks stopped by one delivery share it (sweep/liveness.hpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>

namespace iosweep {

// "SIGTERM", "SIGPIPE (the standard output was closed)", ... for the handled signals.
std::string signal_name(int sig);

// A signal as the watcher took it.
struct Signal {
  int number = 0;
  std::int64_t sender_pid = 0;  // si_pid: 0 when the kernel raised it (a terminal's Ctrl-C)
};

class SignalWatcher {
 public:
  // Blocks the handled signals in the calling thread; threads created later inherit the mask.
  static void block_signals();

  explicit SignalWatcher(std::function<void(const Signal&)> on_signal);
  ~SignalWatcher();
  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;

  const std::atomic<bool>* stop_flag() const { return &stop_; }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<bool> quitting_{false};
  std::function<void(const Signal&)> on_signal_;
  std::thread thread_;
};

}  // namespace iosweep
