// The I/O loop shared by every phase and engine (see io_driver.hpp).
//
// Timing: an operation's latency runs from just before submit() to just after the reap() that
// returned it. For a synchronous engine that is the system call itself; for an asynchronous one
// it includes time queued in the engine, as fio's completion latency does. The clock is read
// once per loop turn after reaping, and that reading also serves as the issue time of the next
// batch unless a consumer (verification, counting) ran in between.
#include "phases/io_driver.hpp"

#include <cerrno>
#include <optional>
#include <stdexcept>
#include <vector>

#include "core/clock.hpp"
#include "core/errors.hpp"

namespace iosweep {
namespace {

// Writes: the records this many places ahead in the order get their stamp's cache line fetched
// while the current ones are issued.
constexpr std::uint64_t kPrefetchAhead = 16;

}  // namespace

namespace {

DriverJob job_over(Engine& engine, std::string path, IoOp op, std::uint64_t record_bytes,
                   const RecordOrder& order) {
  DriverJob j;
  j.engine = &engine;
  j.path = std::move(path);
  j.op = op;
  j.record_bytes = record_bytes;
  j.order = &order;
  j.end = order.size();
  j.reorder_ok = order.shuffled();
  return j;
}

}  // namespace

DriverJob write_job(Engine& engine, std::string path, std::uint64_t record_bytes,
                    const RecordOrder& order, PatternBuffer& source) {
  DriverJob j = job_over(engine, std::move(path), IoOp::write, record_bytes, order);
  j.source = &source;
  return j;
}

DriverJob read_job(Engine& engine, std::string path, std::uint64_t record_bytes,
                   const RecordOrder& order, std::span<std::byte> buffers, Consumer consume) {
  DriverJob j = job_over(engine, std::move(path), IoOp::read, record_bytes, order);
  j.read_buffers = buffers;
  j.consume = std::move(consume);
  return j;
}

std::size_t read_buffer_bytes(const Engine& engine, std::uint64_t record_bytes, bool consume) {
  return static_cast<std::size_t>(record_bytes) * engine.depth() * (consume ? 2 : 1);
}

IoDriver::IoDriver(const DriverJob& job) : job_(job), depth_(job.engine->depth()) {
  // With a consumer, completed buffers are consumed after their slots were refilled, so the
  // device never waits for the counting: up to `depth` more buffers than requests in flight.
  const unsigned buffers = depth_ + (job.consume ? depth_ : 0);
  if (job.op == IoOp::read && job.read_buffers.size() < std::size_t{buffers} * job.record_bytes)
    throw std::logic_error("IoDriver: read buffers smaller than the records they must hold");
  flights_.resize(buffers);
  for (unsigned i = buffers; i > 0; --i)
    free_tags_.push_back(i - 1);
  batch_.reserve(depth_);
  done_.resize(depth_);
  to_consume_.reserve(depth_);
  deferred_.reserve(depth_);
}

DriverResult IoDriver::run() {
  const DriverJob& job = job_;
  const unsigned depth = depth_;
  const bool writing = job.op == IoOp::write;
  auto& flights = flights_;
  auto& free_tags = free_tags_;
  auto& batch = batch_;
  auto& done = done_;
  auto& to_consume = to_consume_;
  auto& deferred = deferred_;
  DriverResult res;
  std::uint64_t next = job.begin;
  unsigned in_flight = 0;
  std::uint64_t t_now = now_ns();
  bool fresh_clock = true;
  std::optional<IoError> failure;

  // Issues as many records as the depth allows.
  auto issue = [&] {
    batch.clear();
    if (failure) return;
    if (job.deadline_ns != 0 && t_now >= job.deadline_ns) {
      res.stonewalled = res.stonewalled || next < job.end || !deferred.empty();
      return;
    }
    if (job.stop != nullptr && job.stop->load(std::memory_order_relaxed)) return;
    std::size_t deferred_tries = deferred.size();
    while (in_flight + batch.size() < depth && (next < job.end || deferred_tries > 0)) {
      std::uint64_t index;
      if (deferred_tries > 0) {
        index = deferred.front();
        deferred.erase(deferred.begin());
        --deferred_tries;
      } else {
        index = (*job.order)[next++];
      }
      const std::uint64_t offset = index * job.record_bytes;
      if (writing && next + kPrefetchAhead < job.end)
        job.source->prefetch((*job.order)[next + kPrefetchAhead] * job.record_bytes);
      const unsigned tag = free_tags.back();
      Flight& f = flights[tag];
      f.offset = offset;
      if (writing) {
        f.buf = job.source->acquire(offset, job.record_bytes, f.source_slot);
        if (f.buf == nullptr) {  // every copy of this region is in flight
          if (job.reorder_ok) {
            deferred.push_back(index);
            continue;
          }
          --next;  // sequential: wait for a completion, then retry the same record
          break;
        }
      } else {
        f.buf = job.read_buffers.data() + static_cast<std::size_t>(tag) * job.record_bytes;
      }
      free_tags.pop_back();
      batch.push_back(
          {job.file, job.op, job.layout.physical(offset), job.record_bytes, f.buf, tag});
    }
    if (batch.empty()) return;
    if (!fresh_clock) t_now = now_ns();
    for (const auto& r : batch)
      flights[r.tag].issue_ns = t_now;
    job.engine->submit(batch);
    in_flight += static_cast<unsigned>(batch.size());
  };

  for (;;) {
    issue();
    if (in_flight == 0) break;
    const std::size_t n = job.engine->reap(done, 1);
    t_now = now_ns();
    fresh_clock = true;
    for (std::size_t i = 0; i < n; ++i) {
      const auto tag = static_cast<unsigned>(done[i].tag);
      Flight& f = flights[tag];
      --in_flight;
      if (writing) job.source->release(f.source_slot);
      const std::int64_t r = done[i].result;
      if (r != static_cast<std::int64_t>(job.record_bytes)) {
        free_tags.push_back(tag);
        if (!failure) {
          const char* op = writing ? "write" : "read";
          if (r < 0) {
            failure.emplace(op, job.path, job.layout.physical(f.offset) + done[i].done,
                            static_cast<int>(-r));
          } else {
            failure.emplace(op, job.path,
                            job.layout.physical(f.offset) + static_cast<std::uint64_t>(r), ENODATA,
                            "short " + std::string(op) + ": the file ends before the " +
                                std::to_string(job.record_bytes) + "-byte record at offset " +
                                std::to_string(job.layout.physical(f.offset)) + " does");
          }
        }
        continue;
      }
      if (job.latency != nullptr) job.latency->record(t_now - f.issue_ns);
      if (job.series != nullptr) job.series->add(t_now - job.t0_ns, job.record_bytes);
      res.bytes += job.record_bytes;
      res.ops += 1;
      if (job.consume)
        to_consume.push_back(tag);
      else
        free_tags.push_back(tag);
    }
    if (job.progress_bytes != nullptr)
      job.progress_bytes->store(res.bytes, std::memory_order_relaxed);
    if (!to_consume.empty()) {
      issue();  // keep the device busy while the completed records are consumed
      for (const unsigned tag : to_consume) {
        job.consume(flights[tag].buf, flights[tag].offset, job.record_bytes);
        free_tags.push_back(tag);
      }
      to_consume.clear();
      fresh_clock = false;
    }
  }
  res.next = next;
  if (failure) throw *failure;
  return res;
}

}  // namespace iosweep
