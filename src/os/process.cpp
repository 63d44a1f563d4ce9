// Process identity (see process.hpp).
#include "os/process.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

#include "os/text_file.hpp"

namespace iosweep {
namespace {

// Field 22 of /proc/PID/stat; 0 when the process does not exist or has exited and waits to be
// reaped (a zombie, state Z or X: its parent died with it and nobody reaps it). The command
// name (field 2) may hold spaces and parentheses, so fields are counted after its closing
// parenthesis.
std::uint64_t start_ticks_of(std::int64_t pid) {
  const std::string stat = first_line_of("/proc/" + std::to_string(pid) + "/stat");
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(stat.substr(close + 2));
  std::string state;
  rest >> state;
  if (state == "Z" || state == "X") return 0;
  std::string field;
  for (int i = 4; i < 22 && (rest >> field); ++i) {
  }
  std::uint64_t ticks = 0;
  rest >> ticks;
  return ticks;
}

}  // namespace

bool reaches_terminal(int fd) {
  if (::isatty(fd) == 1) return true;
  char link[64], target[256];
  std::snprintf(link, sizeof link, "/proc/%d/fd/2", static_cast<int>(::getppid()));
  const ssize_t n = ::readlink(link, target, sizeof target - 1);
  if (n <= 0) return false;
  target[n] = '\0';
  const std::string t(target);
  return t.starts_with("/dev/pts/") || t.starts_with("/dev/tty");
}

std::uint64_t random_u64() {
  std::uint64_t r = 0;
  const int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::read(fd, &r, sizeof r) != static_cast<ssize_t>(sizeof r))
    r = (static_cast<std::uint64_t>(std::random_device{}()) << 32) | std::random_device{}();
  if (fd >= 0) ::close(fd);
  return r;
}

std::uint64_t mem_available_bytes() {
  std::ifstream in("/proc/meminfo");
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("MemAvailable:")) return std::stoull(line.substr(13)) * 1024;
  return 0;
}

std::string self_exe_dir() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

Usage self_usage() {
  rusage ru{};
  ::getrusage(RUSAGE_SELF, &ru);
  Usage u;
  u.rss_peak_bytes = static_cast<std::uint64_t>(ru.ru_maxrss) * 1024;
  u.user_s =
      static_cast<double>(ru.ru_utime.tv_sec) + static_cast<double>(ru.ru_utime.tv_usec) * 1e-6;
  u.sys_s =
      static_cast<double>(ru.ru_stime.tv_sec) + static_cast<double>(ru.ru_stime.tv_usec) * 1e-6;
  return u;
}

bool parse_schedstat(const std::string& text, std::uint64_t& run_delay_ns) {
  std::istringstream in(text);
  std::uint64_t runtime_ns = 0;
  return static_cast<bool>(in >> runtime_ns >> run_delay_ns);
}

namespace {

// Every thread's run-queue delay; false when a thread's schedstat cannot be read (a kernel
// without CONFIG_SCHED_INFO). A thread that ends while the folder is read is skipped.
bool thread_queues(std::map<std::int64_t, std::uint64_t>& out) {
  std::error_code ec;
  bool any = false;
  for (const auto& t : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    std::uint64_t delay = 0;
    const std::string text = first_line_of(t.path().string() + "/schedstat");
    if (text.empty()) continue;
    if (!parse_schedstat(text, delay)) return false;
    out[std::strtoll(t.path().filename().c_str(), nullptr, 10)] = delay;
    any = true;
  }
  return any && !ec;
}

}  // namespace

void CpuClock::start() {
  queued_ns_.clear();
  queued_known_ = thread_queues(queued_ns_);
  const Usage u = self_usage();
  user_s_ = u.user_s;
  sys_s_ = u.sys_s;
}

CpuSpent CpuClock::stop() const {
  const Usage u = self_usage();
  CpuSpent spent{.user_s = std::max(0.0, u.user_s - user_s_),
                 .sys_s = std::max(0.0, u.sys_s - sys_s_),
                 .queued_s = std::numeric_limits<double>::quiet_NaN()};
  std::map<std::int64_t, std::uint64_t> now;
  if (!queued_known_ || !thread_queues(now)) return spent;
  std::uint64_t queued_ns = 0;
  for (const auto& [tid, delay] : now) {
    const auto was = queued_ns_.find(tid);
    const std::uint64_t from = was == queued_ns_.end() ? 0 : was->second;
    queued_ns += delay >= from ? delay - from : delay;  // a reused thread id: a new thread
  }
  spent.queued_s = static_cast<double>(queued_ns) * 1e-9;
  return spent;
}

std::uint64_t private_bytes() {
  std::ifstream in("/proc/self/smaps_rollup");
  std::uint64_t total = 0;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string key;
    std::uint64_t kib = 0;
    if ((fields >> key >> kib) && (key == "Private_Clean:" || key == "Private_Dirty:"))
      total += kib * 1024;
  }
  return total;
}

ProcessIdentity self_identity() {
  ProcessIdentity p;
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  p.host = host;
  p.boot_id = first_line_of("/proc/sys/kernel/random/boot_id");
  p.pid = static_cast<std::int64_t>(::getpid());
  p.start_ticks = start_ticks_of(p.pid);
  return p;
}

Liveness liveness_here(const std::string& boot_id, std::int64_t pid, std::uint64_t start_ticks) {
  if (boot_id.empty() || boot_id != first_line_of("/proc/sys/kernel/random/boot_id"))
    return Liveness::unknown;
  const std::uint64_t ticks = start_ticks_of(pid);
  return ticks != 0 && ticks == start_ticks ? Liveness::alive : Liveness::gone;
}

Liveness liveness_of(const ProcessIdentity& p) {
  const ProcessIdentity me = self_identity();
  if (p.host.empty() || p.boot_id.empty() || p.host != me.host) return Liveness::unknown;
  if (p.boot_id != me.boot_id) return Liveness::gone;  // the machine rebooted since
  const std::uint64_t ticks = start_ticks_of(p.pid);
  return ticks != 0 && ticks == p.start_ticks ? Liveness::alive : Liveness::gone;
}

namespace {

// Whether fdinfo text holds a lock line on the file named by `needle` (" MAJ:MIN:INO "), as the
// kernel writes it: "lock:\t1: OFDLCK ADVISORY  WRITE -1 fe:00:10952870 0 EOF".
bool fdinfo_locks(const std::string& text, const std::string& needle) {
  std::size_t at = 0;
  while ((at = text.find("lock:", at)) != std::string::npos) {
    const std::size_t end = text.find('\n', at);
    if (text.substr(at, end == std::string::npos ? end : end - at).find(needle) !=
        std::string::npos)
      return true;
    at = end == std::string::npos ? text.size() : end;
  }
  return false;
}

}  // namespace

std::vector<std::string> lock_holders(std::uint64_t dev, std::uint64_t ino, std::size_t max) {
  char needle[64];
  std::snprintf(needle, sizeof needle, " %02x:%02x:%llu ", ::major(dev), ::minor(dev),
                static_cast<unsigned long long>(ino));
  const std::string self = std::to_string(::getpid());
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& proc : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string pid = proc.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos || pid == self) continue;
    std::error_code fd_ec;
    for (const auto& fd : std::filesystem::directory_iterator(proc.path() / "fdinfo", fd_ec)) {
      std::ifstream in(fd.path());
      std::ostringstream text;
      text << in.rdbuf();
      if (!fdinfo_locks(text.str(), needle)) continue;
      out.push_back("pid " + pid + " (" + first_line_of(proc.path().string() + "/comm") + ")");
      break;
    }
    if (out.size() >= max) break;
  }
  return out;
}

}  // namespace iosweep
