// io_uring engine (see uring_engine.hpp).
#include "engines/uring_engine.hpp"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/errors.hpp"
#include "os/file_ops.hpp"

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

// Sets up `ring` for `options`, dropping optional flags the kernel refuses; returns 0 or the
// negative errno of the last refusal.
int setup_ring(io_uring& ring, const EngineOptions& options, unsigned entries, unsigned& flags_out,
               std::vector<std::string>& dropped) {
  std::vector<FlagName> flags(std::begin(kOptionalFlags), std::end(kOptionalFlags));
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
    const int rc = io_uring_queue_init_params(entries, &ring, &p);
    if (rc == 0) {
      flags_out = p.flags;
      return 0;
    }
    if (rc != -EINVAL || flags.empty()) return rc;
    dropped.emplace_back(flags.back().name);
    flags.pop_back();
  }
}

std::string refusal(int rc) {
  return std::string("--engine uring: io_uring is not available here (") + describe_errno(-rc) +
         "; disabled by sysctl kernel.io_uring_disabled, seccomp or an old kernel); use --engine "
         "posix";
}

constexpr unsigned kRegisteredFiles = 64;

std::string flags_detail(unsigned flags, const std::vector<std::string>& dropped) {
  std::string d = "setup flags:";
  if (flags & IORING_SETUP_SQPOLL) d += " SQPOLL";
  for (const auto& f : kOptionalFlags)
    if (flags & f.flag) d += std::string(" ") + f.name;
  if (!dropped.empty()) {
    d += "; refused by kernel:";
    for (const auto& n : dropped)
      d += " " + n;
  }
  return d;
}

}  // namespace

std::string UringEngine::probe(const EngineOptions& options, std::string& detail) {
  io_uring ring{};
  unsigned flags = 0;
  std::vector<std::string> dropped;
  const int rc = setup_ring(ring, options, 4, flags, dropped);
  if (rc != 0) return refusal(rc);
  io_uring_queue_exit(&ring);
  detail = flags_detail(flags, dropped) + "; submit batch " +
           std::to_string(options.iodepth_batch == 0 ? 1 : options.iodepth_batch);
  return {};
}

UringEngine::UringEngine(const EngineOptions& options)
    : FdEngine(options.direct),
      batch_(options.iodepth_batch == 0 ? 1 : options.iodepth_batch),
      slots_(options.iodepth == 0 ? 1 : options.iodepth) {
  const unsigned entries = depth() < 4 ? 4 : depth();
  if (const int rc = setup_ring(ring_, options, entries, setup_flags_, dropped_flags_); rc != 0)
    throw UsageError(refusal(rc));
  cqes_.resize(std::size_t{entries} * 2);
  files_registered_ = io_uring_register_files_sparse(&ring_, kRegisteredFiles) == 0;
  io_uring_register_ring_fd(&ring_);  // optional: saves a file lookup per enter
}

UringEngine::~UringEngine() {
  io_uring_queue_exit(&ring_);
}

std::string UringEngine::detail() const {
  std::string d = flags_detail(setup_flags_, dropped_flags_);
  d += files_registered_ ? "; registered files" : "; plain files";
  d += buffers_registered_ ? "; fixed buffers" : "";
  d += "; submit batch " + std::to_string(batch_);
  return d;
}

int UringEngine::open(const std::string& path, OpenMode mode) {
  const int h = FdEngine::open(path, mode);
  if (static_cast<unsigned>(h) >= kRegisteredFiles) {
    FdEngine::close(h);
    throw IoError::of_file("open", path, EMFILE, "more than 64 files open in one io_uring engine");
  }
  const int f = fd(h);
  if (files_registered_ &&
      io_uring_register_files_update(&ring_, static_cast<unsigned>(h), &f, 1) != 1)
    files_registered_ = false;  // fall back to plain descriptors for every file
  return h;
}

void UringEngine::close(int file) {
  if (files_registered_) {
    int none = -1;
    io_uring_register_files_update(&ring_, static_cast<unsigned>(file), &none, 1);
  }
  FdEngine::close(file);
}

void UringEngine::register_buffers(std::span<const std::span<std::byte>> buffers) {
  unregister_buffers();
  buffers_.assign(buffers.begin(), buffers.end());
  if (!direct() || buffers_.empty()) return;  // pinning only pays off for O_DIRECT
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
  Slots::Slot& s = slots_[slot];
  const IoRequest& r = s.req;
  io_uring_sqe* sqe = next_sqe();
  const int target = files_registered_ ? r.file : fd(r.file);
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
    queue(slots_.take(r, path(r.file)));
    if (unsubmitted_ >= batch_ && i + 1 < requests.size()) {
      const int rc = io_uring_submit(&ring_);
      if (rc < 0 && rc != -EAGAIN && rc != -EBUSY && rc != -EINTR)
        throw IoError("io_uring_enter", path(r.file), r.offset, -rc);
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
      throw IoError::of_file("io_uring_enter", "(ring)", -rc);
    const unsigned max = static_cast<unsigned>(std::min(cqes_.size(), out.size() - n_out));
    const unsigned got = io_uring_peek_batch_cqe(&ring_, cqes_.data(), max);
    for (unsigned i = 0; i < got; ++i) {
      const auto slot = static_cast<unsigned>(io_uring_cqe_get_data64(cqes_[i]));
      const int res = cqes_[i]->res;
      Slots::Slot& s = slots_[slot];
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
      slots_.give_back(slot);
    }
    io_uring_cq_advance(&ring_, got);
    if (n_out >= min || n_out == out.size()) return n_out;
    if (got == 0 && unsubmitted_ == 0 && slots_.idle()) return n_out;  // nothing in flight
  }
}

}  // namespace iosweep
