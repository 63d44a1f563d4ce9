// The loop that drives an engine through a list of metadata requests (the md-* phases), the
// counterpart of IoDriver for named items and folders: keep up to `depth` requests in flight,
// time every one from its submit to the reap that returned it, bin completions in the time
// series, start no request before the ones it needs have completed (a folder's parent made, its
// children removed), and stop issuing at the stonewall deadline or on an interrupt. Every name
// is built before the window (MdNames), each with the folder it is relative to, whose
// descriptor the metadata set opened and holds (MdFolder); inside the window the loop only
// hands a descriptor and a pointer to the engine.
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

// A folder the requests of a window are relative to: its descriptor, opened and held by the
// metadata set (phases/md_set.hpp), and its path for messages.
struct MdFolder {
  int fd = -1;
  std::string path;
};

// Names, each NUL-terminated and relative to one of the window's folders (its index), built
// before a window and read inside it.
class MdNames {
 public:
  void clear() {
    text_.clear();
    at_.clear();
    folder_.clear();
  }
  void reserve(std::uint64_t names, std::uint64_t bytes) {
    at_.reserve(names);
    folder_.reserve(names);
    text_.reserve(bytes);
  }
  // Appends the next name, relative to folder `folder`: `build(std::string&)` appends its
  // characters.
  template <class F>
  void add(std::uint32_t folder, F build) {
    at_.push_back(text_.size());
    folder_.push_back(folder);
    build(text_);
    text_ += '\0';
  }
  template <class F>
  void add(F build) {
    add(0, build);
  }
  const char* operator[](std::uint64_t i) const { return text_.data() + at_[i]; }
  std::uint32_t folder(std::uint64_t i) const { return folder_[i]; }
  std::uint64_t size() const { return at_.size(); }
  std::uint64_t bytes() const {
    return text_.size() + at_.size() * (sizeof(std::uint64_t) + sizeof(std::uint32_t));
  }

 private:
  std::string text_;
  std::vector<std::uint64_t> at_;
  std::vector<std::uint32_t> folder_;
};

// One pass over a range of a list of metadata requests; the timed fields are set by the phase
// that arms its window (left empty for untimed passes).
struct MdJob {
  Engine* engine = nullptr;  // its depth() is the loop's depth
  // The folders the names are relative to (MdNames::folder); with `beneath`, every name is a
  // path below the first, resolved by openat2 without following a link (item_beneath).
  const std::vector<MdFolder>* folders = nullptr;
  bool beneath = false;
  IoOp op = IoOp::stat;
  const MdNames* names = nullptr;
  std::uint64_t begin = 0, end = 0;   // the range of names to perform
  std::size_t bytes = 0;              // create: written from `source`; read_item: read
  std::byte* source = nullptr;        // create: the bytes every item gets
  std::span<std::byte> read_buffers;  // read_item: `bytes` per request in flight
  // read_item with --verify (mdtest -X): what every item's first `bytes` must be; nullptr: none.
  const std::byte* expect = nullptr;
  bool sync = false;  // create: fsync each item before its close
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
  std::uint64_t bad_items = 0;  // reads whose bytes differ from `expect` (counted, not thrown)
  // The requests before `next` that failed (at most the depth: none is issued after the first
  // failure), so a create that found a name taken never counts that name as made.
  std::vector<std::uint64_t> failed;
};

// The loop with everything it needs allocated up front: construct it before the timed window
// starts, run it inside. run() throws IoError, after draining what is in flight, when a request
// fails or moves fewer bytes than asked (naming the item, the call and errno).
class MdDriver {
 public:
  explicit MdDriver(const MdJob& job);
  MdResult run();
  // What the last run() reached, also when it threw.
  const MdResult& result() const { return res_; }

 private:
  void issue();
  void complete(const IoCompletion& c);
  void note_failure(std::uint64_t index, const IoCompletion& c);

  std::string path_of(std::uint64_t index) const;

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
