// The stall watch (see stall.hpp).
#include "sweep/stall.hpp"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

#include "core/clock.hpp"
#include "core/errors.hpp"
#include "core/units.hpp"
#include "model/limits.hpp"
#include "mpi/messages.hpp"
#include "os/file_ops.hpp"
#include "os/side_channel.hpp"

namespace iosweep {
namespace {

constexpr int kDeliverMs = 2000;   // each of rank 0's addresses, to connect and be answered
constexpr std::size_t kShown = 8;  // stalled ranks named in the run's status, at most
constexpr char kStalled[] = "stalled";
constexpr char kSlow[] = "slow";
constexpr char kWaiting[] = "waiting";
constexpr char kResumed[] = "resumed";

std::string seconds(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f s", s);
  return b;
}

// Runs `step` on a thread of its own and waits for it at most `limit_s`: 1 it returned true, 0
// false (or threw), -1 it had not returned (it goes on, detached: the process is ending).
int bounded(std::function<bool()> step, double limit_s) {
  auto done = std::make_shared<std::atomic<int>>(-1);
  std::thread([step = std::move(step), done] {
    bool ok = false;
    try {
      ok = step();
    } catch (...) {
    }
    done->store(ok ? 1 : 0);
  }).detach();
  const std::uint64_t until = now_ns() + static_cast<std::uint64_t>(limit_s * 1e9);
  while (done->load() < 0 && now_ns() < until)
    ::usleep(10'000);
  return done->load();
}

std::string new_token() {
  std::random_device rd;
  char b[40];
  std::snprintf(b, sizeof b, "%08x%08x%08x%08x", rd(), rd(), rd(), rd());
  return b;
}

// "KIND\tAGE_S\tTEXT", what a rank tells rank 0.
std::string message_of(const char* kind, double age_s, const std::string& text) {
  return std::string(kind) + "\t" + seconds(age_s) + "\t" + text;
}

bool writes_back(const char* verb) {
  return std::strcmp(verb, "fsync") == 0 || std::strcmp(verb, "close") == 0;
}

}  // namespace

StallWatch::StallWatch(const Workload& work, const MpiSession& mpi, std::string who)
    : limit_s_(work.stall_limit_s),
      notice_s_(std::min(kStallNoticeS, work.stall_limit_s)),
      wait_(work.stall_wait),
      rank0_(mpi.rank() == 0),
      who_(std::move(who)) {
  // Where rank 0's inbox is: its token, port and addresses, known to every rank.
  std::vector<std::string> where;
  if (rank0_) {
    token_ = new_token();
    inbox_ = std::make_unique<side::Inbox>(token_);
    where = {token_, std::to_string(inbox_->port())};
    for (auto& a : side::local_addresses())
      where.push_back(std::move(a));
  }
  broadcast_strings(where, MPI_COMM_WORLD);
  if (where.size() >= 2) {
    token_ = where[0];
    port_ = static_cast<std::uint16_t>(std::stoul(where[1]));
    addresses_.assign(where.begin() + 2, where.end());
  }
}

StallWatch::~StallWatch() {
  {
    std::lock_guard lock(mu_);
    quit_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void StallWatch::start(StallHooks hooks) {
  hooks_ = std::move(hooks);
  thread_ = std::thread([this] { loop(); });
}

void StallWatch::detach_progress() {
  std::lock_guard lock(mu_);
  hooks_.progress = nullptr;
}

double StallWatch::take_longest_s() {
  std::lock_guard lock(mu_);
  return std::exchange(longest_s_, 0.0);
}

std::string StallWatch::limit_text() const {
  char b[48];
  std::snprintf(b, sizeof b, "--stall-limit %gs", limit_s_);
  return b;
}

// Looks every tick: 4 times a second, or 8 times per limit when that is shorter; rank 0 waits
// in its inbox meanwhile (10 times a second, so that the end of a run does not wait for it).
void StallWatch::loop() {
  const double tick_s = std::clamp(limit_s_ / 8, 0.05, 0.25);
  const auto tick = std::chrono::microseconds(static_cast<std::int64_t>(tick_s * 1e6));
  for (;;) {
    if (inbox_) {
      // Every stalled report of a batch goes to end_run at once (it does not return): reports
      // taken one by one would leave the batch's others unnamed.
      std::vector<std::string> stalled;
      for (const auto& m : inbox_->receive(static_cast<int>(std::min(tick_s, 0.1) * 1000)))
        if (std::string line = take(m); !line.empty()) stalled.push_back(std::move(line));
      if (!stalled.empty()) end_run(stalled);
    }
    {
      std::unique_lock lock(mu_);
      if (!inbox_) cv_.wait_for(lock, tick, [this] { return quit_; });
      if (quit_) return;
    }
    look(now_ns());
  }
}

// A flush that the kernel is carrying out: the node's dirty and writeback pages went down.
bool StallWatch::writeback_progressed() {
  const std::uint64_t now = fsops::writeback_bytes();
  const bool down = writeback_bytes_ != 0 && now < writeback_bytes_;
  writeback_bytes_ = now;
  return down;
}

void StallWatch::look(std::uint64_t now) {
  const Pulse::Seen s = pulse_.seen();
  if (s.since_ns != episode_.since_ns) {  // the step moved on, or another began
    if (episode_.since_ns != 0) end_episode(s.since_ns > episode_.since_ns ? s.since_ns : now);
    episode_ = Episode{};
    episode_.since_ns = episode_.start_ns = s.since_ns;
    writeback_bytes_ = 0;
  }
  if (s.since_ns == 0 || now < episode_.start_ns) return;
  if (writes_back(s.verb) && writeback_progressed()) episode_.start_ns = now;
  episode_.age_s = static_cast<double>(now - episode_.start_ns) * 1e-9;
  if (!episode_.noticed && episode_.age_s >= notice_s_) {
    episode_.what = pulse_.describe(s);
    if (pulse_.seen().since_ns != s.since_ns) return;  // moved on meanwhile: the next look
    episode_.noticed = true;
    on_notice();
  }
  if (!episode_.limit_reached && episode_.age_s >= limit_s_) {
    episode_.limit_reached = true;
    on_limit();
  }
}

// An operation outstanding for `notice`: said once, before the limit (when they differ).
void StallWatch::on_notice() {
  if (notice_s_ >= limit_s_) return;
  const std::string line =
      who_ + ": " + episode_.what + " outstanding for " + seconds(episode_.age_s) + " (" +
      (wait_ ? "--stall-wait: waiting for it" : "the run stops at " + limit_text()) + ")";
  std::fprintf(stderr, "iosweep: %s\n", line.c_str());
  report(kSlow, who_ + ": " + episode_.what);
}

void StallWatch::on_limit() {
  const std::string line = who_ + ": " + episode_.what + " has not completed after " +
                           seconds(episode_.age_s) + " (" + limit_text() + ")";
  if (!wait_)
    fail_here(line + "; the run stops; this rank's files stay where they are (" +
              hooks_.files_note + "): a rank stuck in the kernel cannot remove them");
  std::fprintf(stderr, "iosweep: %s; waiting for it (--stall-wait)\n", line.c_str());
  report(kWaiting, who_ + ": " + episode_.what);
}

// The step ended at `end_ns` (the next step's start, or now): a stall from `notice` on is said,
// counted for the row, and cleared from the progress line.
void StallWatch::end_episode(std::uint64_t end_ns) {
  if (!episode_.noticed) return;
  const double length_s = static_cast<double>(end_ns - episode_.start_ns) * 1e-9;
  {
    std::lock_guard lock(mu_);
    longest_s_ = std::max(longest_s_, length_s);
  }
  std::fprintf(stderr, "iosweep: %s: %s completed after %s\n", who_.c_str(), episode_.what.c_str(),
               seconds(length_s).c_str());
  report(kResumed, who_ + ": " + episode_.what);
}

// To rank 0's progress line (and, for a stall, its results file): directly on rank 0, else
// through the side channel, bounded.
void StallWatch::report(const std::string& kind, const std::string& text) {
  const std::string m = message_of(kind.c_str(), episode_.age_s, text);
  if (rank0_) {
    take(m);
    return;
  }
  side::deliver(addresses_, port_, token_, m, kDeliverMs);
}

// Rank 0: what a rank said.
std::string StallWatch::take(const std::string& message) {
  const std::size_t a = message.find('\t'), b = message.find('\t', a + 1);
  if (a == std::string::npos || b == std::string::npos) return {};
  const std::string kind = message.substr(0, a);
  std::string text = message.substr(b + 1);
  const double age_s = std::atof(message.substr(a + 1, b - a - 1).c_str());
  if (kind == kStalled) return text;  // the caller ends the run with every one of its batch
  std::lock_guard lock(mu_);
  if (hooks_.progress == nullptr) return {};
  if (kind == kResumed)
    hooks_.progress->stall_note({}, 0);
  else if (kind == kSlow || kind == kWaiting)
    hooks_.progress->stall_note(text, age_s);
  return {};
}

// This rank's operation reached the limit: the run stops. Rank 0 is told (or is this rank) and
// ends the job; a rank that cannot reach it ends the job itself.
void StallWatch::fail_here(const std::string& line) {
  failed_.store(true);
  std::fprintf(stderr, "iosweep: %s\n", line.c_str());
  std::fflush(stderr);
  if (rank0_) end_run({line});
  if (side::deliver(addresses_, port_, token_, message_of(kStalled, episode_.age_s, line),
                    kDeliverMs)) {
    // Rank 0 marks the run and ends the job; should it not, this rank does, after the limit.
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, std::chrono::duration<double>(std::max(limit_s_, 5.0)));
  } else {
    std::fprintf(stderr,
                 "iosweep: %s: rank 0 could not be told through the side channel (%zu "
                 "address(es), port %u); ending the job from here\n",
                 who_.c_str(), addresses_.size(), static_cast<unsigned>(port_));
  }
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, kExitStalled);
  _exit(kExitStalled);
}

// Rank 0: the run stops on a stall. Reports arriving meanwhile are named too; the run is marked
// aborted (the writer gets at most the limit: it may be stuck on the same storage), then the
// job ends. MPI_Abort is the one MPI call made outside the main thread: Open MPI hands it to
// its runtime (PMIx_Abort), which kills every rank, those stuck in the kernel included once
// their system call returns.
void StallWatch::end_run(const std::vector<std::string>& first) {
  ending_.store(true);
  std::vector<std::string> lines = first;
  // Ranks stalled by the same storage see it up to a tick apart (each counts from its own last
  // submission, and looks every tick): their reports are waited for a second, so that the run
  // names every stalled rank, not only the first to tell.
  const std::uint64_t until = now_ns() + 1'000'000'000ull;
  for (std::uint64_t t = now_ns(); inbox_ && t < until; t = now_ns())
    for (const auto& m : inbox_->receive(static_cast<int>((until - t) / 1'000'000) + 1)) {
      const std::size_t a = m.find('\t'), b = m.find('\t', a + 1);
      if (b != std::string::npos && m.compare(0, a, kStalled) == 0)
        lines.push_back(m.substr(b + 1));
    }
  std::string status = "stalled storage: ";
  for (std::size_t i = 0; i < lines.size() && i < kShown; ++i)
    status += (i ? "\n" : "") + lines[i];
  if (lines.size() > kShown)
    status += "\n(and " + std::to_string(lines.size() - kShown) + " more ranks stalled)";
  const std::string out = printable(hooks_.output), limit = seconds(limit_s_);
  const int marked =
      hooks_.mark_aborted
          ? bounded([mark = hooks_.mark_aborted, status] { return mark(status); }, limit_s_)
          : 0;
  // Rank 0 removes its own files unless it is one of the stalled ranks (said after the fact).
  std::string own = "rank 0's own files stay where they are (it is stalled itself)";
  if (!failed_.load() && hooks_.remove_own) {
    const int removed = bounded(hooks_.remove_own, limit_s_);
    own = removed == 1   ? "rank 0's own files were removed"
          : removed == 0 ? "rank 0's own files could not all be removed"
                         : "rank 0's own files: their removal had not returned after " + limit;
  }
  std::fprintf(stderr,
               "iosweep: %s\niosweep: run %s %s; the stalled ranks' files stay where they are "
               "(each rank's line names them); %s; the other ranks remove theirs when the "
               "launcher stops them\n",
               status.c_str(), hooks_.run_id.c_str(),
               (marked == 1 ? "marked aborted in " + out
                : marked == 0
                    ? "not marked in " + out
                    : "not marked in " + out + " (its writer had not answered after " + limit + ")")
                   .c_str(),
               own.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, kExitStalled);
  _exit(kExitStalled);
}

}  // namespace iosweep
