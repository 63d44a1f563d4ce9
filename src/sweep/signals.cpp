// Signal watcher (see signals.hpp).
#include "sweep/signals.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

namespace iosweep {
namespace {

sigset_t handled_set() {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGINT);
  sigaddset(&s, SIGTERM);
  sigaddset(&s, SIGHUP);
  sigaddset(&s, SIGUSR1);  // a stop on request, which launchers forward at once (signals.hpp)
  // A write to a closed pipe fails with EPIPE instead of killing the process where it stands;
  // the console writer then sends the process a SIGPIPE of its own, which the watcher takes.
  sigaddset(&s, SIGPIPE);
  sigaddset(&s, SIGUSR2);  // internal: wakes the watcher when the run ends normally
  return s;
}

}  // namespace

std::string signal_name(int sig) {
  switch (sig) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    case SIGPIPE:
      return "SIGPIPE (the standard output was closed)";
    case SIGUSR1:
      return "SIGUSR1 (a stop on request)";
    default:
      return "signal " + std::to_string(sig);
  }
}

void SignalWatcher::block_signals() {
  const sigset_t s = handled_set();
  pthread_sigmask(SIG_BLOCK, &s, nullptr);
}

SignalWatcher::SignalWatcher(std::function<void(const Signal&)> on_signal)
    : on_signal_(std::move(on_signal)) {
  thread_ = std::thread([this] {
    const sigset_t s = handled_set();
    for (;;) {
      siginfo_t info{};
      const int sig = sigwaitinfo(&s, &info);
      if (sig < 0) continue;  // EINTR
      if (quitting_.load()) return;
      if (sig == SIGUSR2) continue;
      stop_.store(true);
      on_signal_(Signal{sig, info.si_pid});
      _exit(128 + sig);
    }
  });
}

SignalWatcher::~SignalWatcher() {
  quitting_.store(true);
  pthread_kill(thread_.native_handle(), SIGUSR2);
  thread_.join();
}

}  // namespace iosweep
