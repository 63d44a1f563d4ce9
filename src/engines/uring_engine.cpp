// io_uring engine (see uring_engine.hpp).
#include "engines/uring_engine.hpp"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/errors.hpp"
#include "engines/file_ops.hpp"

namespace iosweep {
namespace {

struct FlagName {
  unsigned flag;
  const char* name;
};
// Optional setup flags, most dispensable last: when the kernel refuses a combination, flags are
// dropped one at a time from the end of this list until the ring is accepted. DEFER_TASKRUN is
// left out on purpose: completions then wait for the next io_uring_enter with GETEVENTS, and
// with requests handed over one by one that cost about 5% of the random-write IOPS at depth 32
// on a virtio disk (8 alternating runs each; reads were unaffected).
const FlagName kOptionalFlags[] = {
    {IORING_SETUP_SUBMIT_ALL, "SUBMIT_ALL"},
    {IORING_SETUP_COOP_TASKRUN, "COOP_TASKRUN"},
    {IORING_SETUP_SINGLE_ISSUER, "SINGLE_ISSUER"},
};

}  // namespace

UringEngine::UringEngine(const EngineOptions& options)
    : depth_(options.iodepth == 0 ? 1 : options.iodepth),
      batch_(options.iodepth_batch == 0 ? 1 : options.iodepth_batch),
      direct_(options.direct) {
  std::vector<FlagName> flags(std::begin(kOptionalFlags), std::end(kOptionalFlags));
  const unsigned entries = depth_ < 4 ? 4 : depth_;
  for (;;) {
    io_uring_params p{};
    if (options.sqpoll) {
      p.flags |= IORING_SETUP_SQPOLL;
      p.sq_thread_idle = 1000;
    }
    for (const auto& f : flags) {
      // COOP_TASKRUN does not combine with SQPOLL's kernel thread.
      if (options.sqpoll && (f.flag & IORING_SETUP_COOP_TASKRUN)) continue;
      p.flags |= f.flag;
    }
    const int rc = io_uring_queue_init_params(entries, &ring_, &p);
    if (rc == 0) {
      setup_flags_ = p.flags;
      break;
    }
    if (rc == -EINVAL && !flags.empty()) {
      dropped_flags_.push_back(flags.back().name);
      flags.pop_back();
      continue;
    }
    throw UsageError(std::string("--engine uring: io_uring is not available here (") +
                     describe_errno(-rc) +
                     "; disabled by sysctl kernel.io_uring_disabled, seccomp or an old "
                     "kernel); use --engine posix");
  }
  slots_.resize(depth_);
  for (unsigned i = depth_; i > 0; --i)
    free_.push_back(i - 1);
  cqes_.resize(entries * 2);
  fds_.assign(64, -1);
  paths_.resize(64);
  files_registered_ = io_uring_register_files_sparse(&ring_, 64) == 0;
  io_uring_register_ring_fd(&ring_);  // optional: saves a file lookup per enter
}

UringEngine::~UringEngine() {
  for (int fd : fds_)
    if (fd >= 0) ::close(fd);
  io_uring_queue_exit(&ring_);
}

EngineInfo UringEngine::info() const {
  std::string d = "setup flags:";
  if (setup_flags_ & IORING_SETUP_SQPOLL) d += " SQPOLL";
  for (const auto& f : kOptionalFlags)
    if (setup_flags_ & f.flag) d += std::string(" ") + f.name;
  if (!dropped_flags_.empty()) {
    d += "; refused by kernel:";
    for (const auto& n : dropped_flags_)
      d += " " + n;
  }
  d += files_registered_ ? "; registered files" : "; plain files";
  d += buffers_registered_ ? "; fixed buffers" : "";
  d += "; submit batch " + std::to_string(batch_);
  return {"uring", depth_, d};
}

int UringEngine::open(const std::string& path, OpenMode mode) {
  const int fd = fsops::open_for_io(path, mode.write, mode.create, direct_);
  std::size_t slot = 0;
  while (slot < fds_.size() && fds_[slot] >= 0)
    ++slot;
  if (slot == fds_.size()) {
    ::close(fd);
    throw IoError("open", path, 0, EMFILE, "more than 64 files open in one io_uring engine");
  }
  if (files_registered_ &&
      io_uring_register_files_update(&ring_, static_cast<unsigned>(slot), &fd, 1) != 1)
    files_registered_ = false;  // fall back to plain descriptors for every file
  fds_[slot] = fd;
  paths_[slot] = path;
  return static_cast<int>(slot);
}

void UringEngine::close(int file) {
  const auto i = static_cast<std::size_t>(file);
  const int fd = fds_.at(i);
  if (files_registered_) {
    int none = -1;
    io_uring_register_files_update(&ring_, static_cast<unsigned>(i), &none, 1);
  }
  fds_[i] = -1;
  if (::close(fd) != 0 && errno != EINTR) throw IoError("close", paths_[i], 0, errno);
}

void UringEngine::sync(int file) {
  const auto i = static_cast<std::size_t>(file);
  int rc;
  do {
    rc = ::fsync(fds_.at(i));
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) throw IoError("fsync", paths_[i], 0, errno);
}

void UringEngine::register_buffers(std::span<const std::span<std::byte>> buffers) {
  unregister_buffers();
  buffers_.assign(buffers.begin(), buffers.end());
  if (!direct_ || buffers_.empty()) return;  // pinning only pays off for O_DIRECT
  std::vector<iovec> iov;
  for (const auto& b : buffers_)
    iov.push_back({b.data(), b.size()});
  buffers_registered_ =
      io_uring_register_buffers(&ring_, iov.data(), static_cast<unsigned>(iov.size())) == 0;
}

void UringEngine::unregister_buffers() {
  if (buffers_registered_) io_uring_unregister_buffers(&ring_);
  buffers_registered_ = false;
  buffers_.clear();
}

int UringEngine::buffer_index(const std::byte* p, std::size_t len) const {
  for (std::size_t i = 0; i < buffers_.size(); ++i)
    if (p >= buffers_[i].data() && p + len <= buffers_[i].data() + buffers_[i].size())
      return static_cast<int>(i);
  return -1;
}

io_uring_sqe* UringEngine::next_sqe() {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  if (sqe == nullptr) {  // submission queue full: hand what is queued to the kernel
    io_uring_submit(&ring_);
    unsubmitted_ = 0;
    sqe = io_uring_get_sqe(&ring_);
  }
  return sqe;
}

void UringEngine::queue(unsigned slot) {
  Slot& s = slots_[slot];
  const IoRequest& r = s.req;
  io_uring_sqe* sqe = next_sqe();
  const auto fi = static_cast<std::size_t>(r.file);
  const int target = files_registered_ ? r.file : fds_[fi];
  std::byte* buf = r.buf + s.done;
  const auto len = static_cast<unsigned>(r.length - s.done);
  const auto off = r.offset + s.done;
  const int bi = buffers_registered_ ? buffer_index(buf, len) : -1;
  if (r.op == IoOp::read) {
    if (bi >= 0)
      io_uring_prep_read_fixed(sqe, target, buf, len, off, bi);
    else
      io_uring_prep_read(sqe, target, buf, len, off);
  } else {
    if (bi >= 0)
      io_uring_prep_write_fixed(sqe, target, buf, len, off, bi);
    else
      io_uring_prep_write(sqe, target, buf, len, off);
  }
  if (files_registered_) sqe->flags |= IOSQE_FIXED_FILE;
  io_uring_sqe_set_data64(sqe, slot);
  ++unsubmitted_;
}

void UringEngine::submit(std::span<const IoRequest> requests) {
  // The last request stays queued: the reap() that follows submits it and waits in one call.
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const IoRequest& r = requests[i];
    if (free_.empty())
      throw IoError("submit", paths_.at(static_cast<std::size_t>(r.file)), r.offset, EBUSY,
                    "more requests than --iodepth");
    const unsigned slot = free_.back();
    free_.pop_back();
    slots_[slot] = {r, 0};
    queue(slot);
    if (unsubmitted_ >= batch_ && i + 1 < requests.size()) {
      const int rc = io_uring_submit(&ring_);
      if (rc < 0 && rc != -EAGAIN && rc != -EBUSY && rc != -EINTR)
        throw IoError("io_uring_enter", paths_.at(static_cast<std::size_t>(r.file)), r.offset, -rc);
      if (rc >= 0) unsubmitted_ = 0;
    }
  }
}

std::size_t UringEngine::reap(std::span<IoCompletion> out, std::size_t min) {
  std::size_t n_out = 0;
  for (;;) {
    int rc = 0;
    const unsigned want = static_cast<unsigned>(min > n_out ? min - n_out : 0);
    if (unsubmitted_ > 0) {
      rc = io_uring_submit_and_wait(&ring_, want);
      if (rc >= 0) unsubmitted_ = 0;
    } else if (want > 0) {
      io_uring_cqe* cqe = nullptr;
      rc = io_uring_wait_cqe_nr(&ring_, &cqe, want);
    }
    if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY && rc != -ETIME)
      throw IoError("io_uring_enter", "(ring)", 0, -rc);
    const unsigned max = static_cast<unsigned>(std::min(cqes_.size(), out.size() - n_out));
    const unsigned got = io_uring_peek_batch_cqe(&ring_, cqes_.data(), max);
    for (unsigned i = 0; i < got; ++i) {
      const auto slot = static_cast<unsigned>(io_uring_cqe_get_data64(cqes_[i]));
      const int res = cqes_[i]->res;
      Slot& s = slots_[slot];
      if (res == -EAGAIN || res == -EINTR) {
        queue(slot);
        continue;
      }
      if (res > 0 && s.done + static_cast<std::size_t>(res) < s.req.length) {
        s.done += static_cast<std::size_t>(res);  // short transfer: resubmit the rest
        queue(slot);
        continue;
      }
      const std::int64_t result = res < 0 ? res : static_cast<std::int64_t>(s.done) + res;
      out[n_out++] = {s.req.tag, result, s.done};
      free_.push_back(slot);
    }
    io_uring_cq_advance(&ring_, got);
    if (n_out >= min || n_out == out.size()) return n_out;
    if (got == 0 && unsubmitted_ == 0 && free_.size() == depth_) return n_out;  // nothing in flight
  }
}

}  // namespace iosweep
