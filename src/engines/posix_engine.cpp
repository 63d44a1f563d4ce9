// POSIX engine (see posix_engine.hpp).
#include "engines/posix_engine.hpp"

#include <unistd.h>

#include <cerrno>

namespace iosweep {

fsops::ItemCall item_call_of(IoOp op) {
  switch (op) {
    case IoOp::mkdir:
      return fsops::ItemCall::mkdir;
    case IoOp::create:
      return fsops::ItemCall::create;
    case IoOp::stat:
      return fsops::ItemCall::stat;
    case IoOp::read_item:
      return fsops::ItemCall::read;
    case IoOp::unlink:
      return fsops::ItemCall::unlink;
    default:
      return fsops::ItemCall::rmdir;
  }
}

IoCompletion execute_item(const IoRequest& r) {
  const int dir = r.dir;
  fsops::ItemResult x{-EINVAL, fsops::ItemStep::first};
  if (r.beneath) {
    x = fsops::item_beneath(item_call_of(r.op), dir, r.name, r.buf, r.length, r.sync);
    return {r.tag, x.result, 0, x.step};
  }
  switch (r.op) {
    case IoOp::mkdir:
      x = fsops::make_folder(dir, r.name);
      break;
    case IoOp::create:
      x = fsops::create_item(dir, r.name, r.buf, r.length, r.sync);
      break;
    case IoOp::stat:
      x = fsops::stat_item(dir, r.name);
      break;
    case IoOp::read_item:
      x = fsops::read_item(dir, r.name, r.buf, r.length);
      break;
    case IoOp::unlink:
      x = fsops::remove_item(dir, r.name);
      break;
    case IoOp::rmdir:
      x = fsops::remove_folder(dir, r.name);
      break;
    default:
      break;
  }
  return {r.tag, x.result, 0, x.step};
}

IoCompletion PosixEngine::execute(const IoRequest& r) const {
  if (metadata_op(r.op)) return execute_item(r);
  const int f = fd(r.file);
  std::size_t done = 0;
  while (done < r.length) {
    const auto off = static_cast<off_t>(r.offset + done);
    const ssize_t n = r.op == IoOp::read ? ::pread(f, r.buf + done, r.length - done, off)
                                         : ::pwrite(f, r.buf + done, r.length - done, off);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return {r.tag, -static_cast<std::int64_t>(errno), done};
    }
    if (n == 0) break;  // end of file on read; a zero-byte write is reported as short
    done += static_cast<std::size_t>(n);
  }
  return {r.tag, static_cast<std::int64_t>(done), done};
}

void PosixEngine::submit(std::span<const IoRequest> requests) {
  for (const auto& r : requests)
    done_.push_back(execute(r));
}

std::size_t PosixEngine::reap(std::span<IoCompletion> out, std::size_t /*min*/) {
  std::size_t n = 0;
  while (n < out.size() && !done_.empty()) {
    out[n++] = done_.front();
    done_.pop_front();
  }
  return n;
}

}  // namespace iosweep
