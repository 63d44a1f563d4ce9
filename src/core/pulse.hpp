// What a rank's main thread is waiting for from the storage, published for the rank's stall
// watch (sweep/stall.hpp), which reads it from a thread of its own: since when the step it is in
// has been outstanding, what kind of step (a verb: "write", "stat", "fsync", "unlink"), and where
// (an offset, an item's index). Only the main thread writes; any thread reads.
//
// Design: inside a timed window the I/O loops (IoDriver, MdDriver) store two words per loop turn,
// right before they submit: the time of the submission, which the loop has already read from the
// clock for its latencies, and the offset (or item) of the last request submitted. Relaxed and
// release stores of aligned 64-bit words compile to plain stores on x86-64 (a single `stlr` on
// arm64): no lock, no fence, no system call, no shared cache line with another rank. Every
// request in flight was submitted at or before the last submission, so while one is in flight
// the oldest of them has been outstanding at least `now - since`: the watch can tell a request
// that never returns, whatever the engine, with nothing more than those stores. What it cannot
// tell is one request stuck while others keep completing (the loop keeps submitting); on stalled
// storage the others stop too, and the depth fills with stuck requests.
//
// The words say nothing of the file: a Describer, registered before a window starts (the
// driver's constructor) and removed after it ends, turns (verb, where) into "write of FILE at
// offset N". The watch calls it under the pulse's mutex, which the main thread takes only to
// register or remove one, never inside a window.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <utility>

#include "core/clock.hpp"

namespace iosweep {

class Pulse {
 public:
  static constexpr std::uint64_t kNowhere = ~0ull;  // a step on a whole file or folder
  using Describe = std::function<std::string(const char* verb, std::uint64_t where)>;

  // The main thread is in `verb` at `where` since `since_ns` (the monotonic clock, never 0).
  void busy(const char* verb, std::uint64_t where, std::uint64_t since_ns) noexcept {
    verb_.store(verb, std::memory_order_relaxed);
    where_.store(where, std::memory_order_relaxed);
    since_ns_.store(since_ns, std::memory_order_release);
  }
  // What the next steps will be (the I/O loops, before their first submission); still idle.
  void set_verb(const char* verb) noexcept {
    verb_.store(verb, std::memory_order_relaxed);
    since_ns_.store(0, std::memory_order_release);
  }
  // The same verb, another place and time (the I/O loops, once per submission).
  void at(std::uint64_t where, std::uint64_t since_ns) noexcept {
    where_.store(where, std::memory_order_relaxed);
    since_ns_.store(since_ns, std::memory_order_release);
  }
  // Nothing outstanding.
  void idle() noexcept { since_ns_.store(0, std::memory_order_release); }

  struct Seen {
    std::uint64_t since_ns = 0;  // 0: idle
    const char* verb = "";
    std::uint64_t where = kNowhere;
  };
  // The three words, read again when `since` changed meanwhile. While the main thread moves on
  // they may still mix two submissions (the offset of the next): the watch names a step only
  // once it has stayed put for seconds, and then they cannot.
  Seen seen() const noexcept {
    Seen s;
    for (int tries = 0; tries < 8; ++tries) {
      s.since_ns = since_ns_.load(std::memory_order_acquire);
      s.verb = verb_.load(std::memory_order_relaxed);
      s.where = where_.load(std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_acquire);
      if (since_ns_.load(std::memory_order_relaxed) == s.since_ns) break;
    }
    return s;
  }
  // "write of FILE at offset N", or the verb alone when no describer is registered.
  std::string describe(const Seen& s) const {
    std::lock_guard lock(mu_);
    return describe_ ? describe_(s.verb, s.where) : std::string(s.verb);
  }

  // Registers a describer for the life of this object, then puts back the pulse as it was (the
  // step that was outstanding around it, and its describer): nested steps (a file written
  // untimed inside a preparation) restore the outer one, whose clock starts again then.
  class Describer {
   public:
    Describer(Pulse* p, Describe d) : p_(p) {
      if (p_ == nullptr) return;
      outer_ = p_->seen();
      std::lock_guard lock(p_->mu_);
      outer_describe_ = std::exchange(p_->describe_, std::move(d));
    }
    ~Describer() {
      if (p_ == nullptr) return;
      {
        std::lock_guard lock(p_->mu_);
        p_->describe_ = std::move(outer_describe_);
      }
      // The outer step goes on from here: its clock restarts, so that the time the inner one
      // took is not counted as the outer one outstanding.
      if (outer_.since_ns == 0)
        p_->idle();
      else
        p_->busy(outer_.verb, outer_.where, now_ns());
    }
    Describer(const Describer&) = delete;
    Describer& operator=(const Describer&) = delete;

   private:
    Pulse* p_;
    Seen outer_;
    Describe outer_describe_;
  };

 private:
  std::atomic<std::uint64_t> since_ns_{0};
  std::atomic<const char*> verb_{""};
  std::atomic<std::uint64_t> where_{kNowhere};
  mutable std::mutex mu_;
  Describe describe_;
};

// One untimed step on the storage (an unlink, a folder check, a results append): busy from its
// construction, described by `what` ("unlink of FILE"), the outer step restored at its end.
class PulseStep {
 public:
  PulseStep(Pulse* p, const char* verb, std::string what)
      : describer_(p, [what = std::move(what)](const char*, std::uint64_t) { return what; }) {
    if (p != nullptr) p->busy(verb, Pulse::kNowhere, now_ns());
  }

 private:
  Pulse::Describer describer_;
};

}  // namespace iosweep
