// Interrupts: SIGINT, SIGTERM, SIGHUP and SIGPIPE are blocked in every thread (before MPI
// starts its own threads) and taken by one watcher thread with sigwait(). On a signal the
// watcher stops new I/O, removes this rank's files, lets rank 0 mark the run aborted in the
// results file, and exits with 128 + the signal number (130 for SIGINT, 143 for SIGTERM, 141 for
// SIGPIPE). Nothing of this runs in a signal handler, so it may take locks and call HDF5. A
// write to a closed pipe raises SIGPIPE in the writing thread, where it stays blocked (the write
// fails with EPIPE): whoever sees that sends the process a SIGPIPE of its own, for the watcher.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>

namespace iosweep {

// "SIGTERM", "SIGPIPE (the standard output was closed)", ... for the handled signals.
std::string signal_name(int sig);

class SignalWatcher {
 public:
  // Blocks the handled signals in the calling thread; threads created later inherit the mask.
  static void block_signals();

  explicit SignalWatcher(std::function<void(int)> on_signal);
  ~SignalWatcher();
  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;

  const std::atomic<bool>* stop_flag() const { return &stop_; }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<bool> quitting_{false};
  std::function<void(int)> on_signal_;
  std::thread thread_;
};

}  // namespace iosweep
