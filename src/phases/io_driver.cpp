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

IoDriver::IoDriver(const DriverJob& job)
    : job_(job),
      depth_(job.engine->depth()),
      writing_(job.op == IoOp::write),
      describer_(job.pulse,
                 [this](const char* verb, std::uint64_t where) { return describe(verb, where); }) {
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

// "write of FILE at offset N" (the last request submitted; at a depth above 1 the others in flight
// were submitted no later), or "fsync of FILE" for a step on the whole file.
std::string IoDriver::describe(const char* verb, std::uint64_t where) const {
  std::string d = std::string(verb) + " of " + job_.path;
  if (where == Pulse::kNowhere) return d;
  d += " at offset " + std::to_string(where);
  if (depth_ > 1) d += " (the last of up to " + std::to_string(depth_) + " requests in flight)";
  return d;
}

// Puts record `index` into the batch; false when every copy of its pattern region is in flight
// (a write must wait for one).
bool IoDriver::stage(std::uint64_t index) {
  const std::uint64_t offset = index * job_.record_bytes;
  if (writing_ && next_ + kPrefetchAhead < job_.end)
    job_.source->prefetch((*job_.order)[next_ + kPrefetchAhead] * job_.record_bytes);
  const unsigned tag = free_tags_.back();
  Flight& f = flights_[tag];
  f.offset = offset;
  if (writing_) {
    f.buf = job_.source->acquire(offset, job_.record_bytes, f.source_slot);
    if (f.buf == nullptr) return false;
  } else {
    f.buf = job_.read_buffers.data() + static_cast<std::size_t>(tag) * job_.record_bytes;
  }
  free_tags_.pop_back();
  batch_.push_back(
      {job_.file, job_.op, job_.layout.physical(offset), job_.record_bytes, f.buf, tag});
  return true;
}

// Issues as many records as the depth allows (none after a failure, the stonewall or a stop).
void IoDriver::issue() {
  batch_.clear();
  if (failure_) return;
  if (job_.deadline_ns != 0 && t_now_ >= job_.deadline_ns) {
    res_.stonewalled = res_.stonewalled || next_ < job_.end || !deferred_.empty();
    return;
  }
  if (job_.stop != nullptr && job_.stop->load(std::memory_order_relaxed)) return;
  std::size_t deferred_tries = deferred_.size();
  while (in_flight_ + batch_.size() < depth_ && (next_ < job_.end || deferred_tries > 0)) {
    std::uint64_t index;
    if (deferred_tries > 0) {
      index = deferred_.front();
      deferred_.erase(deferred_.begin());
      --deferred_tries;
    } else {
      index = (*job_.order)[next_++];
    }
    if (stage(index)) continue;
    if (job_.reorder_ok) {  // a random order takes another record meanwhile
      deferred_.push_back(index);
      continue;
    }
    --next_;  // sequential: wait for a completion, then retry the same record
    break;
  }
  if (batch_.empty()) return;
  if (!fresh_clock_) t_now_ = now_ns();
  for (const auto& r : batch_)
    flights_[r.tag].issue_ns = t_now_;
  if (job_.pulse != nullptr) job_.pulse->at(batch_.back().offset, t_now_);
  job_.engine->submit(batch_);
  in_flight_ += static_cast<unsigned>(batch_.size());
}

// The first failed or short transfer, named by its file offset.
void IoDriver::note_failure(const Flight& f, const IoCompletion& c) {
  if (failure_) return;
  const char* op = writing_ ? "write" : "read";
  const std::uint64_t at = job_.layout.physical(f.offset);
  if (c.result < 0) {
    failure_.emplace(op, job_.path, at + c.done, static_cast<int>(-c.result));
  } else {
    failure_.emplace(op, job_.path, at + static_cast<std::uint64_t>(c.result), ENODATA,
                     "short " + std::string(op) + ": the file ends before the " +
                         std::to_string(job_.record_bytes) + "-byte record at offset " +
                         std::to_string(at) + " does");
  }
}

void IoDriver::complete(const IoCompletion& c) {
  const auto tag = static_cast<unsigned>(c.tag);
  Flight& f = flights_[tag];
  --in_flight_;
  if (writing_) job_.source->release(f.source_slot);
  if (c.result != static_cast<std::int64_t>(job_.record_bytes)) {
    free_tags_.push_back(tag);
    note_failure(f, c);
    return;
  }
  const std::uint64_t latency_ns = t_now_ - f.issue_ns;
  const std::size_t bucket = LatencyHistogram::bucket_of(latency_ns);
  if (job_.latency != nullptr) job_.latency->record_at(bucket, latency_ns);
  if (job_.series != nullptr)
    job_.series->add(t_now_ - job_.t0_ns, job_.record_bytes, bucket, latency_ns);
  res_.bytes += job_.record_bytes;
  res_.ops += 1;
  if (job_.consume)
    to_consume_.push_back(tag);
  else
    free_tags_.push_back(tag);
}

void IoDriver::consume_completed() {
  issue();  // keep the device busy while the completed records are consumed
  for (const unsigned tag : to_consume_) {
    job_.consume(flights_[tag].buf, flights_[tag].offset, job_.record_bytes);
    free_tags_.push_back(tag);
  }
  to_consume_.clear();
  fresh_clock_ = false;
}

DriverResult IoDriver::run() {
  res_ = {};
  next_ = job_.begin;
  in_flight_ = 0;
  t_now_ = now_ns();
  fresh_clock_ = true;
  failure_.reset();
  if (job_.pulse != nullptr) job_.pulse->set_verb(writing_ ? "write" : "read");
  for (;;) {
    issue();
    if (in_flight_ == 0) break;
    const std::size_t n = job_.engine->reap(done_, 1);
    t_now_ = now_ns();
    fresh_clock_ = true;
    for (std::size_t i = 0; i < n; ++i)
      complete(done_[i]);
    if (job_.progress_bytes != nullptr)
      job_.progress_bytes->store(res_.bytes, std::memory_order_relaxed);
    if (!to_consume_.empty()) consume_completed();
  }
  res_.next = next_;
  if (job_.pulse != nullptr) job_.pulse->idle();
  if (failure_) throw *failure_;
  return res_;
}

}  // namespace iosweep
