// The Engine contract (fio's ioengine_ops in miniature): open, close, submit, reap, sync.
//
// One loop drives every engine: the caller submits requests (keeping no more than depth() in
// flight) and reaps completions, at least `min` at a time. A synchronous engine performs each
// request inside submit() and hands the completions out on the next reap(); an asynchronous
// engine queues them and completes later. Completions carry the request's tag and a result like
// a CQE: the number of bytes transferred (a short read means end of file) or -errno. Engines
// continue short transfers and retry EINTR/EAGAIN themselves; open/close/sync failures and
// failures to submit throw IoError.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace iosweep {

enum class EngineKind { posix = 0, uring = 1, mpiio = 2 };
enum class IoOp : std::uint8_t { read, write };

struct IoRequest {
  int file = -1;  // handle returned by Engine::open
  IoOp op = IoOp::read;
  std::uint64_t offset = 0;
  std::size_t length = 0;
  std::byte* buf = nullptr;
  std::uint64_t tag = 0;
};

struct IoCompletion {
  std::uint64_t tag = 0;
  std::int64_t result = 0;  // bytes transferred, or -errno
  std::uint64_t done = 0;   // on error: bytes transferred before it (the error's offset)
};

struct OpenMode {
  bool write = false;
  bool create = false;  // O_CREAT | O_EXCL: never takes over an existing file
};

struct EngineOptions {
  unsigned iodepth = 1;
  unsigned iodepth_batch = 1;  // io_uring: requests queued before they are handed to the kernel
  bool direct = false;         // O_DIRECT on every open
  bool sqpoll = false;         // io_uring: kernel submission polling thread
  std::vector<std::pair<std::string, std::string>> mpiio_hints;
};

struct EngineInfo {
  std::string name;
  unsigned depth = 1;
  std::string detail;  // engine-specific facts worth recording (ring flags, hints)
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual EngineInfo info() const = 0;
  virtual int open(const std::string& path, OpenMode mode) = 0;
  virtual void close(int file) = 0;
  virtual void submit(std::span<const IoRequest> requests) = 0;
  virtual std::size_t reap(std::span<IoCompletion> out, std::size_t min) = 0;
  virtual void sync(int file) = 0;
  // Buffers every later request will use (untimed; io_uring registers them for O_DIRECT).
  virtual void register_buffers(std::span<const std::span<std::byte>> buffers) { (void)buffers; }
  virtual void unregister_buffers() {}
};

}  // namespace iosweep
