// The Engine contract (fio's ioengine_ops in miniature): open, close, submit, reap, sync.
//
// One loop drives every engine: the caller submits requests (keeping no more than depth() in
// flight) and reaps completions, at least `min` at a time. A synchronous engine performs each
// request inside submit() and hands the completions out on the next reap(); an asynchronous
// engine queues them and completes later. Completions carry the request's tag and a result like
// a CQE: the number of bytes transferred (a short read means end of file) or -errno. Engines
// continue short transfers and retry EINTR/EAGAIN themselves; open/close/sync failures and
// failures to submit throw IoError. An engine is built once per phase and rank
// (engines/engine_table.hpp) from the engine options of the run (model/config.hpp).
//
// Metadata requests (the md-* phases) go through the same submit and reap: each names one item
// or folder (one component) in a folder whose descriptor the caller holds (`dir`: opened by the
// metadata set without following a link, checked to be the folder the run made), never
// following a symbolic link at the item itself, and is one operation as mdtest counts them: a
// create is open(O_CREAT | O_EXCL) + write of `length` bytes + fsync when `sync` + close; a read
// is open + read of `length` bytes + close. With `beneath` the name is a path below `dir` whose
// folder is resolved first by openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) (os/item_ops.hpp,
// item_beneath: when a rank may not hold a descriptor per folder); engines run those as the
// posix engine does. Its completion's result is the bytes written or read (0 for the others) or
// -errno, and `step` says which call of the sequence failed. Only engines whose description
// takes metadata (kTakesMetadata) are given them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "os/item_ops.hpp"

namespace iosweep {

enum class IoOp : std::uint8_t {
  read,
  write,
  // Metadata: on the item `name` in the folder `dir`.
  mkdir,      // mkdirat; never takes an existing name
  create,     // openat(O_CREAT | O_EXCL | O_WRONLY), write `length` bytes, fsync if `sync`, close
  stat,       // statx / fstatat without following a symbolic link
  read_item,  // openat(O_RDONLY | O_NOFOLLOW), read `length` bytes, close
  unlink,     // unlinkat
  rmdir,      // unlinkat(AT_REMOVEDIR)
};

inline bool metadata_op(IoOp op) {
  return op != IoOp::read && op != IoOp::write;
}

struct IoRequest {
  int file = -1;  // handle returned by Engine::open (a folder's for metadata requests)
  IoOp op = IoOp::read;
  std::uint64_t offset = 0;
  std::size_t length = 0;
  std::byte* buf = nullptr;
  std::uint64_t tag = 0;
  const char* name = nullptr;  // metadata: the item, relative to `dir` (NUL-terminated)
  int dir = -1;                // metadata: the descriptor of the item's folder (the caller's)
  bool beneath = false;        // metadata: `name` is a path below `dir` (item_beneath)
  bool sync = false;           // create: fsync before the close
};

// Which call of a metadata request's sequence failed (open or the one call, write or read,
// fsync, close).
using MdStep = fsops::ItemStep;

struct IoCompletion {
  std::uint64_t tag = 0;
  std::int64_t result = 0;      // bytes transferred, or -errno
  std::uint64_t done = 0;       // on error: bytes transferred before it (the error's offset)
  MdStep step = MdStep::first;  // metadata, on error: the call that failed
};

struct OpenMode {
  bool write = false;
  bool create = false;  // O_CREAT | O_EXCL: never takes over an existing file
  bool folder = false;  // a folder (O_DIRECTORY), for metadata requests below it
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual const char* name() const = 0;
  // Requests it keeps in flight at most; callers never submit more.
  virtual unsigned depth() const = 0;
  // Engine-specific facts worth recording (ring flags, hints, read-ahead threads).
  virtual std::string detail() const = 0;
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
