// io_uring engine (liburing): up to `iodepth` requests in flight per rank, registered files,
// fixed buffers for O_DIRECT, submission and waiting in one io_uring_enter, and bulk completion
// draining. Short transfers are resubmitted for the rest and -EAGAIN is retried inside the
// engine, so callers only ever see whole results or errors.
//
// Submission batching: by default every request is handed to the kernel as soon as it is
// queued, except the last of a refill, which goes in with the wait (fio's
// iodepth_batch_submit=1). Handing a whole refill over in one call looks cheaper but measured
// about 20% fewer IOPS at depth 32 on a virtio disk (requests wait for the batch to be
// built); --iodepth-batch N queues N requests per system call instead. With DEFER_TASKRUN
// (taken when the kernel has it, as fio takes it) every submission also posts the completions
// that arrived meanwhile (GETEVENTS), so none waits for the next wait.
//
// Metadata requests are io_uring's own operations (mkdirat, statx, unlinkat), and a create or a
// read is one linked chain: openat into a direct descriptor (a slot of the registered file
// table, one per request in flight), the write or read, the fsync, close_direct. The open is
// linked to what follows (if it fails, the rest is cancelled: nothing was opened); every later
// step is hard-linked, so the close runs whatever the write or fsync returned. Each request
// completes when its chain's last completion arrives. These operations run in the kernel's
// io-wq worker threads (they may block), so depth pays where each one waits (a network file
// system, a cold cache), not on a local disk with hot caches. Every one is relative to the
// folder descriptor the request carries (IoRequest::dir); a request whose name is a path to
// resolve by openat2 (`beneath`) is performed in submit() with the posix engine's calls, since
// io_uring's statx, unlinkat and mkdirat take no resolve flags.
#pragma once

#include <liburing.h>
#include <sys/stat.h>

#include <string>
#include <vector>

#include "engines/fd_engine.hpp"
#include "engines/slots.hpp"
#include "model/config.hpp"

namespace iosweep {

class UringEngine final : public FdEngine {
 public:
  // Throws UsageError (with a hint to use --engine posix) when io_uring is refused.
  // `metadata`: built for metadata requests (a larger ring and a direct descriptor per slot).
  explicit UringEngine(const EngineOptions& options, bool metadata = false);
  ~UringEngine() override;
  // Before a run: empty when io_uring is usable here with these options, else why not; the
  // detail names the setup flags the kernel took.
  static std::string probe(const EngineOptions& options, std::string& detail);
  const char* name() const override { return "uring"; }
  unsigned depth() const override { return slots_.depth(); }
  std::string detail() const override;
  int open(const std::string& path, OpenMode mode) override;
  void close(int file) override;
  void submit(std::span<const IoRequest> requests) override;
  std::size_t reap(std::span<IoCompletion> out, std::size_t min) override;
  void register_buffers(std::span<const std::span<std::byte>> buffers) override;
  void unregister_buffers() override;

 private:
  // A metadata request in flight: its chain's completions seen so far and what they said.
  struct MdFlight {
    unsigned steps = 0, seen = 0;
    std::int64_t bytes = 0;
    std::int64_t error = 0;  // the first failure, -errno; 0: none
    MdStep step = MdStep::first;
    struct statx stx {};
  };
  // Hands what is queued to the kernel (posting what completed meanwhile under DEFER_TASKRUN);
  // io_uring_enter's result.
  int submit_now();
  io_uring_sqe* next_sqe();
  void queue(unsigned slot);
  void queue_md(unsigned slot);
  // A metadata completion; true when its request is complete and `out` is filled.
  bool reap_md(std::uint64_t data, int res, IoCompletion& out);
  int buffer_index(const std::byte* p, std::size_t len) const;

  io_uring ring_{};
  unsigned batch_;
  unsigned setup_flags_ = 0;
  std::vector<std::string> dropped_flags_;
  bool files_registered_ = false;
  std::vector<std::span<std::byte>> buffers_;
  bool buffers_registered_ = false;
  Slots slots_;
  unsigned unsubmitted_ = 0;
  std::vector<io_uring_cqe*> cqes_;
  bool metadata_ = false;
  std::vector<MdFlight> md_;  // per slot
  // Metadata requests resolved by openat2, performed in submit(), handed out by the next reap().
  std::vector<IoCompletion> done_now_;
  std::size_t done_now_head_ = 0;
};

}  // namespace iosweep
