// Who a process is, in a way that survives it: host, pid, the kernel's boot id and the process's
// start time since boot. A run records its writer's identity so that a later run can tell a run
// whose writer is gone (killed outright, so it could not mark the run aborted) from one still
// being written: only on the same host and boot, and only when that pid is gone or now belongs
// to a process started at another time.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace iosweep {

struct ProcessIdentity {
  std::string host;
  std::string boot_id;
  std::int64_t pid = 0;
  std::uint64_t start_ticks = 0;  // /proc/PID/stat field 22 (clock ticks since boot)
};

ProcessIdentity self_identity();

// What this process has used so far: peak resident memory (getrusage's ru_maxrss, which counts
// the shared library pages every process maps), CPU time of all its threads.
struct Usage {
  std::uint64_t rss_peak_bytes = 0;
  double user_s = 0, sys_s = 0;
};
Usage self_usage();

// CPU time a rank spent inside a timed window, and the time its threads waited for a CPU.
//
// user_s and sys_s are getrusage(RUSAGE_SELF) differences: every thread of the process, which
// includes io_uring's SQPOLL thread and its io-wq workers (the kernel makes them threads of the
// process that owns the ring: CLONE_THREAD) and, on rank 0, the progress thread. Not counted:
// kernel threads working for it (the flusher's kworkers writing back dirty pages, block-layer
// completions on another CPU, kswapd). Interrupts that arrive while a thread of the rank runs
// are charged to it unless the kernel has CONFIG_IRQ_TIME_ACCOUNTING. The total is the
// scheduler's exact runtime; its user/system split is the kernel's tick sampling (CONFIG_HZ
// per second) scaled to that total, so under a few hundred ticks the split is coarse.
//
// queued_s is the time the process's threads were runnable but waiting for a CPU (the second
// field of /proc/self/task/TID/schedstat, kept with CONFIG_SCHED_INFO), summed over the threads
// alive at both ends of the window and those started inside it; NaN when the kernel keeps no
// schedstat. A thread that ended inside the window takes its share with it.
struct CpuSpent {
  double user_s = 0, sys_s = 0, queued_s = 0;
};

// Start before a window's first timestamp and stop after its last: start() reads the threads'
// schedstat first and getrusage last, stop() getrusage first, so the reading's own CPU time
// stays outside what getrusage brackets.
class CpuClock {
 public:
  void start();
  CpuSpent stop() const;

 private:
  std::map<std::int64_t, std::uint64_t> queued_ns_;  // thread id -> run_delay
  bool queued_known_ = false;
  double user_s_ = 0, sys_s_ = 0;
};

// The run-queue delay, ns, of a schedstat line ("sum_exec_runtime run_delay pcount"); false when
// the text holds fewer than two numbers.
bool parse_schedstat(const std::string& text, std::uint64_t& run_delay_ns);
// Memory this process alone holds now (Private_Clean + Private_Dirty of smaps_rollup): what it
// costs the machine, without the pages it shares with the other ranks.
std::uint64_t private_bytes();

// Whether what is written to `fd` reaches a terminal. Under mpirun a rank's stderr is a pipe to
// mpirun, which copies it to its own stderr: the terminal, if any, is the launcher's. So `fd`
// counts as a terminal when it is one, or when it is a pipe and the parent process (mpirun, or
// orted) writes its stderr to a terminal.
bool reaches_terminal(int fd);
// 64 random bits (/dev/urandom; the C++ library's random device where it cannot be read).
std::uint64_t random_u64();

// The machine's memory available to new work (/proc/meminfo MemAvailable) in bytes; 0 unknown.
std::uint64_t mem_available_bytes();

// The folder of this process's executable (/proc/self/exe resolved); empty when unreadable.
std::string self_exe_dir();

enum class Liveness { alive, gone, unknown };
// unknown: another host or another boot's records cannot be decided from here.
Liveness liveness_of(const ProcessIdentity& p);
// The same for a process of this job on this kernel (the same boot), whatever host name it has:
// emulated nodes share one kernel and its pids under their own names.
Liveness liveness_here(const std::string& boot_id, std::int64_t pid, std::uint64_t start_ticks);

// The processes of this host that hold an fcntl lock on the file of device `dev` and inode `ino`
// (besides this one), as "pid 1234 (iosweep)". An OFD lock names no pid (F_OFD_GETLK and
// /proc/locks give -1); the fdinfo of the descriptor that holds it lists it, so every
// /proc/PID/fdinfo this user may read is looked through, once, when a wait has run out. At most
// `max` are named; a holder on another host (a results file on NFS) is not seen.
std::vector<std::string> lock_holders(std::uint64_t dev, std::uint64_t ino, std::size_t max = 4);

}  // namespace iosweep
