// POSIX engine (see posix_engine.hpp).
#include "engines/posix_engine.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "core/errors.hpp"
#include "engines/file_ops.hpp"

namespace iosweep {

PosixEngine::~PosixEngine() {
  for (int fd : fds_)
    if (fd >= 0) ::close(fd);
}

int PosixEngine::open(const std::string& path, OpenMode mode) {
  const int fd = fsops::open_for_io(path, mode.write, mode.create, direct_);
  fds_.push_back(fd);
  paths_.push_back(path);
  return static_cast<int>(fds_.size() - 1);
}

void PosixEngine::close(int file) {
  auto i = static_cast<std::size_t>(file);
  const int fd = fds_.at(i);
  fds_[i] = -1;
  // close() is not retried on EINTR: on Linux the descriptor is released either way.
  if (::close(fd) != 0 && errno != EINTR) throw IoError("close", paths_[i], 0, errno);
}

void PosixEngine::sync(int file) {
  const auto i = static_cast<std::size_t>(file);
  int rc;
  do {
    rc = ::fsync(fds_.at(i));
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) throw IoError("fsync", paths_[i], 0, errno);
}

IoCompletion PosixEngine::execute(const IoRequest& r) const {
  const int fd = fds_[static_cast<std::size_t>(r.file)];
  std::size_t done = 0;
  while (done < r.length) {
    const auto off = static_cast<off_t>(r.offset + done);
    const ssize_t n = r.op == IoOp::read ? ::pread(fd, r.buf + done, r.length - done, off)
                                         : ::pwrite(fd, r.buf + done, r.length - done, off);
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
