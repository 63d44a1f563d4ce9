// The loop that drives an engine through a list of metadata requests (the md-* phases), the
// counterpart of IoDriver for named items and folders: keep up to `depth` requests in flight,
// time every one from its submit to the reap that returned it, bin completions in the time
// series, start no request before the ones it needs have completed (a folder's parent made, its
// children removed), and stop issuing at the stonewall deadline or on an interrupt. Every name
// is built before the window (MdNames); inside it the loop only hands pointers to the engine.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/histogram.hpp"
#include "core/pulse.hpp"
#include "core/timeseries.hpp"
#include "engines/engine.hpp"

namespace iosweep {

// Names relative to one folder, each NUL-terminated, built before a window and read inside it.
class MdNames {
 public:
  void clear() {
    text_.clear();
    at_.clear();
  }
  void reserve(std::uint64_t names, std::uint64_t bytes) {
    at_.reserve(names);
    text_.reserve(bytes);
  }
  // Appends the next name: `build(std::string&)` appends its characters.
  template <class F>
  void add(F build) {
    at_.push_back(text_.size());
    build(text_);
    text_ += '\0';
  }
  const char* operator[](std::uint64_t i) const { return text_.data() + at_[i]; }
  std::uint64_t size() const { return at_.size(); }
  std::uint64_t bytes() const { return text_.size() + at_.size() * sizeof(std::uint64_t); }

 private:
  std::string text_;
  std::vector<std::uint64_t> at_;
};

// One pass over a range of a list of metadata requests; the timed fields are set by the phase
// that arms its window (left empty for untimed passes).
struct MdJob {
  Engine* engine = nullptr;  // its depth() is the loop's depth
  int dir = -1;              // the folder handle the names are relative to
  std::string dir_path;      // for messages
  IoOp op = IoOp::stat;
  const MdNames* names = nullptr;
  std::uint64_t begin = 0, end = 0;   // the range of names to perform
  std::size_t bytes = 0;              // create: written from `source`; read_item: read
  std::byte* source = nullptr;        // create: the bytes every item gets
  std::span<std::byte> read_buffers;  // read_item: `bytes` per request in flight
  bool sync = false;                  // create: fsync each item before its close
  // Request o may start once the first needs[o] requests of the list have completed; nullptr:
  // any time.
  const std::vector<std::uint64_t>* needs = nullptr;

  std::uint64_t t0_ns = 0;        // start of the timed window
  std::uint64_t deadline_ns = 0;  // 0: none
  LatencyHistogram* latency = nullptr;
  TimeSeries* series = nullptr;
  std::atomic<std::uint64_t>* progress_ops = nullptr;
  const std::atomic<bool>* stop = nullptr;
  Pulse* pulse = nullptr;  // as DriverJob's: set before the driver is built
};

struct MdResult {
  std::uint64_t ops = 0;
  std::uint64_t bytes = 0;
  std::uint64_t next = 0;  // the first request not issued (every one before it completed)
  bool stonewalled = false;
};

// The loop with everything it needs allocated up front: construct it before the timed window
// starts, run it inside. run() throws IoError, after draining what is in flight, when a request
// fails or moves fewer bytes than asked (naming the item, the call and errno).
class MdDriver {
 public:
  explicit MdDriver(const MdJob& job);
  MdResult run();

 private:
  void issue();
  void complete(const IoCompletion& c);
  void note_failure(std::uint64_t index, const IoCompletion& c);

  const MdJob& job_;
  Pulse::Describer describer_;
  unsigned depth_;
  std::size_t expected_;                            // bytes a request moves when it succeeds
  std::vector<std::uint64_t> index_of_, issue_ns_;  // per tag
  std::vector<unsigned> free_tags_;
  std::vector<IoRequest> batch_;
  std::vector<IoCompletion> done_;
  std::vector<bool> completed_;  // per request of the range, while dependencies are followed
  MdResult res_;
  std::uint64_t next_ = 0, done_prefix_ = 0;
  unsigned in_flight_ = 0;
  std::uint64_t t_now_ = 0;
  std::optional<IoError> failure_;
};

inline MdResult run_md(const MdJob& job) {
  return MdDriver(job).run();
}

// What a user calls the step of a metadata request that failed ("create", "write", "fsync").
const char* md_call_name(IoOp op, MdStep step);

}  // namespace iosweep
