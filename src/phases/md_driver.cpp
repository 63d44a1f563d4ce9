// The metadata loop (see md_driver.hpp).
//
// Timing as in IoDriver: a request's latency runs from just before submit() to just after the
// reap() that returned it; the clock is read once per loop turn after reaping, and that reading
// is also the issue time of the next batch.
#include "phases/md_driver.hpp"

#include <cerrno>
#include <cstring>

#include "core/clock.hpp"

namespace iosweep {

const char* md_call_name(IoOp op, MdStep step) {
  switch (step) {
    case MdStep::data:
      return op == IoOp::create ? "write" : "read";
    case MdStep::sync:
      return "fsync";
    case MdStep::close:
      return "close";
    case MdStep::first:
      break;
  }
  switch (op) {
    case IoOp::mkdir:
      return "mkdir";
    case IoOp::create:
      return "create";
    case IoOp::stat:
      return "stat";
    case IoOp::read_item:
      return "open";
    case IoOp::unlink:
      return "remove";
    case IoOp::rmdir:
      return "rmdir";
    default:
      return "request";
  }
}

MdDriver::MdDriver(const MdJob& job)
    : job_(job),
      // "stat of FOLDER/NAME": the last request submitted (the others in flight went before it).
      describer_(
          job.pulse,
          [&job](const char* verb, std::uint64_t where) {
            std::string d = std::string(verb) + " of ";
            if (where == Pulse::kNowhere || job.names == nullptr || where >= job.names->size())
              return d + "the metadata folders";
            const std::uint32_t f = job.names->folder(where);
            if (job.folders != nullptr && f < job.folders->size())
              d += (*job.folders)[f].path + "/";
            return d + (*job.names)[where];
          }),
      depth_(job.engine->depth()),
      expected_(job.op == IoOp::create || job.op == IoOp::read_item ? job.bytes : 0) {
  index_of_.resize(depth_);
  issue_ns_.resize(depth_);
  for (unsigned i = depth_; i > 0; --i)
    free_tags_.push_back(i - 1);
  batch_.reserve(depth_);
  done_.resize(depth_);
  res_.failed.reserve(depth_);
  if (job.needs != nullptr) completed_.assign(job.end - job.begin, false);
}

void MdDriver::issue() {
  batch_.clear();
  if (failure_) return;
  if (job_.deadline_ns != 0 && t_now_ >= job_.deadline_ns) {
    res_.stonewalled = res_.stonewalled || next_ < job_.end;
    return;
  }
  if (job_.stop != nullptr && job_.stop->load(std::memory_order_relaxed)) return;
  while (in_flight_ + batch_.size() < depth_ && next_ < job_.end) {
    if (job_.needs != nullptr && (*job_.needs)[next_] > done_prefix_) break;  // wait for those
    const unsigned tag = free_tags_.back();
    free_tags_.pop_back();
    index_of_[tag] = next_;
    std::byte* buf = job_.op == IoOp::read_item
                         ? job_.read_buffers.data() + std::size_t{tag} * job_.bytes
                         : job_.source;
    IoRequest r;
    r.dir = (*job_.folders)[(*job_.names).folder(next_)].fd;
    r.beneath = job_.beneath;
    r.op = job_.op;
    r.length = expected_;
    r.buf = buf;
    r.tag = tag;
    r.name = (*job_.names)[next_];
    r.sync = job_.sync;
    batch_.push_back(r);
    ++next_;
  }
  if (batch_.empty()) return;
  for (const auto& r : batch_)
    issue_ns_[r.tag] = t_now_;
  if (job_.pulse != nullptr) job_.pulse->at(next_ - 1, t_now_);
  job_.engine->submit(batch_);
  in_flight_ += static_cast<unsigned>(batch_.size());
}

std::string MdDriver::path_of(std::uint64_t index) const {
  return (*job_.folders)[job_.names->folder(index)].path + "/" + (*job_.names)[index];
}

// The first failed request, or one that moved fewer bytes than asked, named by its item.
void MdDriver::note_failure(std::uint64_t index, const IoCompletion& c) {
  res_.failed.push_back(index);
  if (failure_) return;
  const std::string path = path_of(index);
  // A request that moved fewer bytes than asked failed in its write or read.
  const char* call = md_call_name(job_.op, c.result < 0 ? c.step : MdStep::data);
  if (c.result < 0) {
    failure_.emplace(IoError::on_item(call, path, static_cast<int>(-c.result)));
  } else {
    failure_.emplace(IoError::on_item(
        call, path, ENODATA,
        "moved " + std::to_string(c.result) + " of " + std::to_string(expected_) + " bytes"));
  }
}

void MdDriver::complete(const IoCompletion& c) {
  const auto tag = static_cast<unsigned>(c.tag);
  const std::uint64_t index = index_of_[tag];
  --in_flight_;
  free_tags_.push_back(tag);
  if (c.result != static_cast<std::int64_t>(expected_)) return note_failure(index, c);
  if (job_.expect != nullptr &&
      std::memcmp(job_.read_buffers.data() + std::size_t{tag} * job_.bytes, job_.expect,
                  expected_) != 0)
    ++res_.bad_items;
  const std::uint64_t latency_ns = t_now_ - issue_ns_[tag];
  const std::size_t bucket = LatencyHistogram::bucket_of(latency_ns);
  if (job_.latency != nullptr) job_.latency->record_at(bucket, latency_ns);
  if (job_.series != nullptr) job_.series->add(t_now_ - job_.t0_ns, expected_, bucket, latency_ns);
  res_.ops += 1;
  res_.bytes += expected_;
  if (job_.needs == nullptr) return;
  completed_[index - job_.begin] = true;
  while (done_prefix_ < job_.end && completed_[done_prefix_ - job_.begin])
    ++done_prefix_;
}

MdResult MdDriver::run() {
  res_.ops = res_.bytes = res_.next = 0;
  res_.stonewalled = false;
  res_.bad_items = 0;
  res_.failed.clear();
  next_ = done_prefix_ = job_.begin;
  in_flight_ = 0;
  t_now_ = now_ns();
  failure_.reset();
  if (job_.pulse != nullptr) job_.pulse->set_verb(md_call_name(job_.op, MdStep::first));
  for (;;) {
    issue();
    if (in_flight_ == 0) break;
    const std::size_t n = job_.engine->reap(done_, 1);
    t_now_ = now_ns();
    for (std::size_t i = 0; i < n; ++i)
      complete(done_[i]);
    if (job_.progress_ops != nullptr) job_.progress_ops->store(res_.ops, std::memory_order_relaxed);
  }
  res_.next = next_;
  if (job_.pulse != nullptr) job_.pulse->idle();
  if (failure_) throw *failure_;
  return res_;
}

}  // namespace iosweep
