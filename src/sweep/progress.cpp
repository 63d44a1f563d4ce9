// Live progress display (see progress.hpp).
#include "sweep/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "core/clock.hpp"
#include "core/units.hpp"
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

Progress::Progress(bool shown, bool counting, std::FILE* out, MPI_Comm machine)
    : enabled_(shown), out_(out) {
  if (counting) {
    MPI_Comm_size(machine, &machine_size_);
    MPI_Comm_rank(machine, &machine_rank_);
    // The machine's lowest rank holds every slot (as SharedPage does), zeroed before any use.
    // One line more than the slots: MPI places the shared segment where it likes (seen 8 bytes
    // past a line), so the slots start at the first 64-byte line in it; the segment is mapped
    // page-aligned in every process, so that line is the same one in all of them.
    const auto bytes = static_cast<MPI_Aint>(sizeof(Slot)) * (machine_size_ + 1);
    void* base = nullptr;
    MPI_Win_allocate_shared(machine_rank_ == 0 ? bytes : 0, 1, MPI_INFO_NULL, machine, &base,
                            &win_);
    MPI_Aint size = 0;
    int unit = 1;
    MPI_Win_shared_query(win_, 0, &size, &unit, &base);
    if (machine_rank_ == 0) std::memset(base, 0, static_cast<std::size_t>(bytes));
    auto space = static_cast<std::size_t>(bytes);
    slots_ = static_cast<Slot*>(std::align(
        alignof(Slot), sizeof(Slot) * static_cast<std::size_t>(machine_size_), base, space));
    MPI_Barrier(machine);
  }
  if (!enabled_) return;
  tty_ = reaches_terminal(::fileno(out_));
  thread_ = std::thread([this] { loop(); });
}

Progress::~Progress() {
  if (enabled_) {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  if (win_ != MPI_WIN_NULL) MPI_Win_free(&win_);
}

void Progress::begin_run(std::uint64_t planned_phases) {
  std::lock_guard lock(mu_);
  planned_ = planned_phases;
  run_start_ns_ = now_ns();
}

std::atomic<std::uint64_t>* Progress::counter(std::uint64_t serial) {
  if (slots_ == nullptr) return nullptr;
  Slot& mine = slots_[machine_rank_];
  mine.work.store(0, std::memory_order_relaxed);
  mine.serial.store(serial, std::memory_order_release);
  return &mine.work;
}

void Progress::begin_phase(int point_index, int n_points, int ranks, const std::string& phase,
                           std::uint64_t serial, std::uint64_t phase_work,
                           std::uint64_t ops_record) {
  if (!enabled_) return;
  std::lock_guard lock(mu_);
  point_ = point_index;
  points_ = n_points;
  ranks_ = ranks;
  phase_ = phase;
  serial_ = serial;
  phase_work_ = phase_work;
  ops_record_ = ops_record;
  last_ns_ = now_ns();
  last_work_ = 0;
  rate_ = 0;
  active_ = true;
  waiting_ = false;
}

void Progress::end_phase() {
  if (!enabled_) return;
  std::lock_guard lock(mu_);
  if (!active_ || waiting_) return;
  waiting_ = true;
  wait_start_ns_ = now_ns();
}

void Progress::rest() {
  if (!enabled_) return;
  std::lock_guard lock(mu_);
  if (!active_) return;
  ++done_;
  active_ = waiting_ = false;
  if (tty_) {
    std::fputs("\r\033[K", out_);
    std::fflush(out_);
  }
}

void Progress::stall_note(const std::string& what, double age_s) {
  if (!enabled_) return;
  std::lock_guard lock(mu_);
  stall_ = what;
  stall_age_s_ = age_s;
  stall_said_ns_ = now_ns();
}

std::pair<std::uint64_t, int> Progress::machine_work() const {
  std::uint64_t work = 0;
  int counting = 0;
  for (int r = 0; slots_ != nullptr && r < machine_size_; ++r)
    if (slots_[r].serial.load(std::memory_order_acquire) == serial_) {
      work += slots_[r].work.load(std::memory_order_relaxed);
      ++counting;
    }
  return {work, counting};
}

void Progress::draw() {
  const std::uint64_t t = now_ns();
  const auto [work, counting] = machine_work();
  if (t > last_ns_ + 100'000'000) {
    rate_ = static_cast<double>(work - std::min(work, last_work_)) /
            (static_cast<double>(t - last_ns_) * 1e-9);
    last_work_ = work;
    last_ns_ = t;
  }
  // Ranks on other machines are not seen: their share is assumed equal to the ranks counted.
  const int seen = std::max(counting, 1);
  const double scale = static_cast<double>(ranks_) / seen;
  const double whole = static_cast<double>(phase_work_) * seen;
  const double fraction = whole > 0 ? std::min(1.0, static_cast<double>(work) / whole) : 0;
  const double elapsed = static_cast<double>(t - run_start_ns_) * 1e-9;
  const double done = static_cast<double>(done_) + fraction;
  const double remaining =
      done > 0 && planned_ > 0 ? elapsed * (static_cast<double>(planned_) - done) / done : 0;
  char figure[96];
  const double rate = rate_ * scale;
  const bool ops = ops_record_ > 0;
  const std::string shown =
      ops ? format_compact(rate / static_cast<double>(ops_record_), 0) + " IOPS"
          : format_compact(rate / 1048576.0, 0) + " MiB/s";
  if (counting < ranks_)
    std::snprintf(figure, sizeof figure, "~%s (est.: %d of %d ranks seen)", shown.c_str(), seen,
                  ranks_);
  else
    std::snprintf(figure, sizeof figure, "%s (all %d ranks)", shown.c_str(), ranks_);
  std::string state = figure;
  if (waiting_)
    state += "; rank 0 done, waiting for the others " +
             hms(static_cast<double>(t - wait_start_ns_) * 1e-9);
  if (!stall_.empty())
    state += "; stalled: " + stall_ + " for " +
             hms(stall_age_s_ + static_cast<double>(t - stall_said_ns_) * 1e-9);
  std::fprintf(out_, "%spoint %d/%d (%d ranks) %-12s %5.1f%%  %s  elapsed %s  remaining ~%s%s",
               tty_ ? "\r\033[K" : "", point_, points_, ranks_, phase_.c_str(), 100.0 * fraction,
               state.c_str(), hms(elapsed).c_str(), hms(remaining).c_str(), tty_ ? "" : "\n");
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
