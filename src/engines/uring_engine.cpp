// io_uring engine (see uring_engine.hpp).
#include "engines/uring_engine.hpp"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/errors.hpp"
#include "engines/posix_engine.hpp"
#include "os/file_ops.hpp"

namespace iosweep {
namespace {

struct FlagName {
  unsigned flag;
  const char* name;
};
// Optional setup flags, most dispensable last: when the kernel refuses a combination, flags are
// dropped one at a time from the end of this list until the ring is accepted.
//
// DEFER_TASKRUN (Linux 6.1, with SINGLE_ISSUER): a completion is queued on the ring instead of
// signalling the task with task_work, and is posted when the task enters the kernel with
// GETEVENTS, so every submission here carries GETEVENTS (submit_now): each request handed over
// also posts what completed meanwhile, as fio 3.33 does (its ring: COOP_TASKRUN, SINGLE_ISSUER,
// DEFER_TASKRUN; every submission io_uring_enter(1, 0, GETEVENTS)). Plain submissions under it
// held completions back until the next wait, which cost about 5% of the random-write IOPS at
// depth 32 on a virtio disk.
const FlagName kOptionalFlags[] = {
    {IORING_SETUP_SUBMIT_ALL, "SUBMIT_ALL"},
    {IORING_SETUP_COOP_TASKRUN, "COOP_TASKRUN"},
    {IORING_SETUP_SINGLE_ISSUER, "SINGLE_ISSUER"},
    {IORING_SETUP_DEFER_TASKRUN, "DEFER_TASKRUN"},
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
      // COOP_TASKRUN and DEFER_TASKRUN do not combine with SQPOLL's kernel thread.
      if (options.sqpoll && (f.flag & (IORING_SETUP_COOP_TASKRUN | IORING_SETUP_DEFER_TASKRUN)))
        continue;
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

// A metadata completion's user data: this bit, the step of its chain, the slot.
constexpr std::uint64_t kMdData = 1ull << 63;

std::uint64_t md_data(unsigned slot, MdStep step) {
  return kMdData | (static_cast<std::uint64_t>(step) << 32) | slot;
}

// The submission entries of a metadata request: one call, or open, write or read, fsync, close.
unsigned chain_steps(const IoRequest& r) {
  if (r.op == IoOp::create) return 2 + (r.length > 0 ? 1 : 0) + (r.sync ? 1 : 0);
  if (r.op == IoOp::read_item) return 2 + (r.length > 0 ? 1 : 0);
  return 1;
}

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

UringEngine::UringEngine(const EngineOptions& options, bool metadata)
    : FdEngine(options.direct),
      batch_(options.iodepth_batch == 0 ? 1 : options.iodepth_batch),
      slots_(options.iodepth == 0 ? 1 : options.iodepth),
      metadata_(metadata) {
  // A metadata request takes up to four submission entries (open, write, fsync, close).
  const unsigned wanted = depth() * (metadata ? 4 : 1);
  const unsigned entries = wanted < 4 ? 4 : wanted;
  if (const int rc = setup_ring(ring_, options, entries, setup_flags_, dropped_flags_); rc != 0)
    throw UsageError(refusal(rc));
  cqes_.resize(std::size_t{entries} * 2);
  // Metadata requests open into direct descriptors: one slot of the table per request.
  files_registered_ =
      io_uring_register_files_sparse(&ring_, kRegisteredFiles + (metadata ? depth() : 0)) == 0;
  if (metadata && !files_registered_) {
    io_uring_queue_exit(&ring_);
    throw UsageError(
        "--engine uring: this kernel refused the registered file table that linked "
        "open/read/close chains need; use --engine posix for the metadata phases");
  }
  md_.resize(metadata ? depth() : 0);
  done_now_.reserve(metadata ? depth() : 0);
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
  if (metadata_)
    d += "; metadata: mkdirat, linked openat/write/fsync/close_direct, statx, unlinkat";
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

int UringEngine::submit_now() {
  const int rc = (setup_flags_ & IORING_SETUP_DEFER_TASKRUN) != 0
                     ? io_uring_submit_and_get_events(&ring_)
                     : io_uring_submit(&ring_);
  if (rc >= 0) unsubmitted_ = 0;
  return rc;
}

io_uring_sqe* UringEngine::next_sqe() {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  if (sqe == nullptr) {  // submission queue full: hand what is queued to the kernel
    submit_now();
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

void UringEngine::queue_md(unsigned slot) {
  const IoRequest& r = slots_[slot].req;
  MdFlight& f = md_.at(slot);
  f.steps = chain_steps(r);
  f.seen = 0;
  f.bytes = f.error = 0;
  f.step = MdStep::first;
  // A chain goes to the kernel whole: never cut by a submission between its entries.
  if (io_uring_sq_space_left(&ring_) < f.steps) {
    submit_now();
    if (io_uring_sq_space_left(&ring_) < f.steps)
      throw IoError("io_uring_enter", r.name, 0, EBUSY, "submission queue full");
  }
  const int dir = r.dir;
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  io_uring_sqe_set_data64(sqe, md_data(slot, MdStep::first));
  ++unsubmitted_;
  switch (r.op) {
    case IoOp::mkdir:
      return io_uring_prep_mkdirat(sqe, dir, r.name, 0755);
    case IoOp::stat:
      return io_uring_prep_statx(sqe, dir, r.name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &f.stx);
    case IoOp::unlink:
      return io_uring_prep_unlinkat(sqe, dir, r.name, 0);
    case IoOp::rmdir:
      return io_uring_prep_unlinkat(sqe, dir, r.name, AT_REMOVEDIR);
    default:
      break;
  }
  // create or read_item. Direct descriptors take no O_CLOEXEC (they are not in the fd table).
  const bool create = r.op == IoOp::create;
  const unsigned index = kRegisteredFiles + slot;
  io_uring_prep_openat_direct(
      sqe, dir, r.name, create ? O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW : O_RDONLY | O_NOFOLLOW,
      0644, index);
  io_uring_sqe_set_data64(sqe, md_data(slot, MdStep::first));
  sqe->flags |= IOSQE_IO_LINK;
  auto next = [&](MdStep step) {
    io_uring_sqe* e = io_uring_get_sqe(&ring_);
    io_uring_sqe_set_data64(e, md_data(slot, step));
    ++unsubmitted_;
    return e;
  };
  if (r.length > 0) {
    io_uring_sqe* e = next(MdStep::data);
    const auto len = static_cast<unsigned>(r.length);
    if (create)
      io_uring_prep_write(e, static_cast<int>(index), r.buf, len, 0);
    else
      io_uring_prep_read(e, static_cast<int>(index), r.buf, len, 0);
    e->flags |= IOSQE_FIXED_FILE | IOSQE_IO_HARDLINK;
  }
  if (create && r.sync) {
    io_uring_sqe* e = next(MdStep::sync);
    io_uring_prep_fsync(e, static_cast<int>(index), 0);
    e->flags |= IOSQE_FIXED_FILE | IOSQE_IO_HARDLINK;
  }
  io_uring_prep_close_direct(next(MdStep::close), index);
}

bool UringEngine::reap_md(std::uint64_t data, int res, IoCompletion& out) {
  const auto slot = static_cast<unsigned>(data & 0xffffffffu);
  const auto step = static_cast<MdStep>((data >> 32) & 0xffu);
  MdFlight& f = md_.at(slot);
  ++f.seen;
  // -ECANCELED follows a failure earlier in the chain, which is the one reported.
  if (res < 0 && res != -ECANCELED && f.error == 0) {
    f.error = res;
    f.step = step;
  } else if (res >= 0 && step == MdStep::data) {
    f.bytes = res;
  }
  if (f.seen < f.steps) return false;
  // The first call refused for a moment: nothing was made or opened, so the request again.
  if (f.step == MdStep::first && (f.error == -EAGAIN || f.error == -EINTR)) {
    queue_md(slot);
    return false;
  }
  out = {slots_[slot].req.tag, f.error != 0 ? f.error : f.bytes, 0, f.step};
  slots_.give_back(slot);
  return true;
}

void UringEngine::submit(std::span<const IoRequest> requests) {
  // The last request stays queued: the reap() that follows submits it and waits in one call.
  static const std::string kItem = "(a metadata request)";
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const IoRequest& r = requests[i];
    if (metadata_op(r.op) && r.beneath) {  // resolved by openat2: the posix engine's calls
      done_now_.push_back(execute_item(r));
      continue;
    }
    const unsigned slot = slots_.take(r, metadata_op(r.op) ? kItem : path(r.file));
    if (metadata_op(r.op))
      queue_md(slot);
    else
      queue(slot);
    if (unsubmitted_ >= batch_ && i + 1 < requests.size()) {
      const int rc = submit_now();
      if (rc < 0 && rc != -EAGAIN && rc != -EBUSY && rc != -EINTR)
        throw IoError("io_uring_enter", path(r.file), r.offset, -rc);
    }
  }
}

std::size_t UringEngine::reap(std::span<IoCompletion> out, std::size_t min) {
  std::size_t n_out = 0;
  while (n_out < out.size() && done_now_head_ < done_now_.size())
    out[n_out++] = done_now_[done_now_head_++];
  if (done_now_head_ == done_now_.size()) {
    done_now_.clear();
    done_now_head_ = 0;
  }
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
      const std::uint64_t data = io_uring_cqe_get_data64(cqes_[i]);
      const int res = cqes_[i]->res;
      if (data & kMdData) {
        if (reap_md(data, res, out[n_out])) ++n_out;
        continue;
      }
      const auto slot = static_cast<unsigned>(data);
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
