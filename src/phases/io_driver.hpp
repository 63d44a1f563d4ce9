// The one loop that drives every engine through a list of records (fio's submit/complete
// contract): keep up to `depth` requests in flight, reap at least one completion at a time,
// time every operation from issue to completion, bin completions in the time series, and stop
// issuing at the stonewall deadline or on an interrupt. Writes are served in place from the
// PatternBuffer (only stamping happens here); reads land in per-slot buffers and are handed to
// an optional consumer (verification, counting) as they complete.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/histogram.hpp"
#include "core/pattern.hpp"
#include "core/permutation.hpp"
#include "core/pulse.hpp"
#include "core/timeseries.hpp"
#include "engines/engine.hpp"

namespace iosweep {

// Where a rank's bytes sit in the file it opens: its own file (identity), or its region of a
// file shared by the k active ranks (--file-layout shared): segmented, region p is
// [p x file-size, (p+1) x file-size); strided, block j of region p (blocks of `stride` bytes,
// --seq-record) sits at (j x k + p) x stride. The loop works in the region's own offsets (what
// the data pattern, the verification and the counts see) and asks the engine for the file's.
struct Layout {
  std::uint64_t base = 0;    // where the region begins
  std::uint64_t stride = 0;  // 0: contiguous
  std::uint64_t step = 0;    // file bytes from one block of the region to the next
  std::uint64_t physical(std::uint64_t offset) const {
    return stride == 0 ? base + offset : base + (offset / stride) * step + offset % stride;
  }
};

// Called with every record read, in completion order (verification, counting).
using Consumer = std::function<void(const std::byte*, std::uint64_t offset, std::size_t len)>;

// One pass of the loop over a range of an order's records. Built by write_job or read_job (the
// only places that fill one); the timed fields are set by the phase that arms its window.
struct DriverJob {
  Engine* engine = nullptr;  // its depth() is the loop's depth
  int file = -1;
  Layout layout;     // region offsets -> file offsets
  std::string path;  // for error messages
  IoOp op = IoOp::read;
  std::uint64_t record_bytes = 0;
  const RecordOrder* order = nullptr;
  std::uint64_t begin = 0, end = 0;  // range of positions in `order` to perform
  bool reorder_ok = false;  // random order: a record whose buffer is busy may be taken later
  PatternBuffer* source = nullptr;    // writes
  std::span<std::byte> read_buffers;  // reads: read_buffer_bytes() of them
  Consumer consume;

  std::uint64_t t0_ns = 0;        // start of the timed window
  std::uint64_t deadline_ns = 0;  // 0: none
  LatencyHistogram* latency = nullptr;
  TimeSeries* series = nullptr;
  std::atomic<std::uint64_t>* progress_bytes = nullptr;
  const std::atomic<bool>* stop = nullptr;
  // The rank's pulse (core/pulse.hpp), set before the driver is built (it registers how its
  // steps are described); the loop stores the time and offset of each submission.
  Pulse* pulse = nullptr;
};

struct DriverResult {
  std::uint64_t bytes = 0;
  std::uint64_t ops = 0;
  std::uint64_t next = 0;  // first position in `order` not issued (all before it completed)
  bool stonewalled = false;
};

// The loop with everything it needs allocated up front: construct it before the timed window
// starts, run it inside. run() reads the job when it starts, so fields set after construction
// (the file, the clock, the deadline) count; one run per driver. run() throws IoError, after
// draining what is in flight, when an operation fails or comes back short.
class IoDriver {
 public:
  explicit IoDriver(const DriverJob& job);
  DriverResult run();

 private:
  struct Flight {
    std::uint64_t offset = 0;
    std::byte* buf = nullptr;
    std::uint64_t issue_ns = 0;
    unsigned source_slot = 0;
  };
  bool stage(std::uint64_t index);
  void issue();
  void complete(const IoCompletion& c);
  void note_failure(const Flight& f, const IoCompletion& c);
  void consume_completed();

  std::string describe(const char* verb, std::uint64_t where) const;

  const DriverJob& job_;
  unsigned depth_;
  bool writing_;
  Pulse::Describer describer_;
  std::vector<Flight> flights_;
  std::vector<unsigned> free_tags_;
  std::vector<IoRequest> batch_;
  std::vector<IoCompletion> done_;
  std::vector<unsigned> to_consume_;
  std::vector<std::uint64_t> deferred_;  // random writes whose pattern region was busy
  // The state of the one run.
  DriverResult res_;
  std::uint64_t next_ = 0;  // next position in the order to issue
  unsigned in_flight_ = 0;
  std::uint64_t t_now_ = 0;  // the latest clock reading
  bool fresh_clock_ = true;  // t_now_ is still now: no consumer ran since it was read
  std::optional<IoError> failure_;
};

// Writes every record of `order` from `source` (a random order may take records out of turn).
DriverJob write_job(Engine& engine, std::string path, std::uint64_t record_bytes,
                    const RecordOrder& order, PatternBuffer& source);
// Reads every record of `order` into `buffers`, handing each to `consume` when given.
DriverJob read_job(Engine& engine, std::string path, std::uint64_t record_bytes,
                   const RecordOrder& order, std::span<std::byte> buffers, Consumer consume = {});
// Bytes of read buffers a read job needs: one record per request in flight, twice that with a
// consumer (completed records are consumed after their slots were refilled).
std::size_t read_buffer_bytes(const Engine& engine, std::uint64_t record_bytes, bool consume);

// Untimed uses (wear-out, file creation, tests): construct and run in one go.
inline DriverResult run_driver(const DriverJob& job) {
  return IoDriver(job).run();
}

}  // namespace iosweep
