// Live progress display (see progress.hpp).
#include "sweep/progress.hpp"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <string>

#include "core/clock.hpp"
#include "os/process.hpp"

namespace iosweep {
namespace {

constexpr std::uint64_t kTtyPeriodNs = 250'000'000;       // redraw period on a terminal
constexpr std::uint64_t kLogPeriodNs = 5'000'000'000ull;  // one line per 5 s in logs

std::string hms(double s) {
  if (s < 0) s = 0;
  const auto t = std::llround(s);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", t / 3600, (t / 60) % 60, t % 60);
  return buf;
}

}  // namespace

Progress::Progress(bool enabled, std::FILE* out) : enabled_(enabled), out_(out) {
  if (!enabled_) return;
  tty_ = reaches_terminal(::fileno(out_));
  thread_ = std::thread([this] { loop(); });
}

Progress::~Progress() {
  if (!enabled_) return;
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Progress::begin_run(std::uint64_t planned_bytes) {
  std::lock_guard lock(mu_);
  planned_ = planned_bytes;
  run_start_ns_ = now_ns();
}

void Progress::begin_phase(int point_index, int n_points, int ranks, const std::string& phase,
                           std::uint64_t phase_bytes, std::uint64_t ops_record) {
  if (!enabled_) return;
  std::lock_guard lock(mu_);
  point_ = point_index;
  points_ = n_points;
  ranks_ = ranks;
  phase_ = phase;
  phase_bytes_ = phase_bytes;
  ops_record_ = ops_record;
  bytes_.store(0, std::memory_order_relaxed);
  phase_start_ns_ = last_ns_ = now_ns();
  last_bytes_ = 0;
  rate_ = 0;
  active_ = true;
}

void Progress::end_phase() {
  if (!enabled_) return;
  std::lock_guard lock(mu_);
  if (!active_) return;
  done_before_ += phase_bytes_;
  active_ = false;
  if (tty_) {
    std::fputs("\r\033[K", out_);
    std::fflush(out_);
  }
}

void Progress::draw() {
  const std::uint64_t t = now_ns();
  const std::uint64_t b = bytes_.load(std::memory_order_relaxed);
  if (t > last_ns_ + 100'000'000) {
    rate_ = static_cast<double>(b - last_bytes_) / (static_cast<double>(t - last_ns_) * 1e-9);
    last_bytes_ = b;
    last_ns_ = t;
  }
  const double pct =
      phase_bytes_ ? 100.0 * static_cast<double>(b) / static_cast<double>(phase_bytes_) : 0;
  const double elapsed = static_cast<double>(t - run_start_ns_) * 1e-9;
  const double done = static_cast<double>(done_before_ + b);
  const double remaining =
      done > 0 && planned_ > 0 ? elapsed * (static_cast<double>(planned_) - done) / done : 0;
  char figure[48];
  if (ops_record_ > 0)
    std::snprintf(figure, sizeof figure, "%.0f IOPS", rate_ / static_cast<double>(ops_record_));
  else
    std::snprintf(figure, sizeof figure, "%.1f MiB/s", rate_ / 1048576.0);
  std::fprintf(out_, "%spoint %d/%d (%d ranks) %-12s %5.1f%%  %s  elapsed %s  remaining ~%s%s",
               tty_ ? "\r\033[K" : "", point_, points_, ranks_, phase_.c_str(), pct, figure,
               hms(elapsed).c_str(), hms(remaining).c_str(), tty_ ? "" : "\n");
  std::fflush(out_);
}

void Progress::loop() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    cv_.wait_for(lock, std::chrono::nanoseconds(tty_ ? kTtyPeriodNs : kTtyPeriodNs * 2));
    if (stop_ || !active_) continue;
    const std::uint64_t t = now_ns();
    if (tty_ || t >= last_line_ns_ + kLogPeriodNs) {
      draw();
      last_line_ns_ = t;
    }
  }
}

}  // namespace iosweep
