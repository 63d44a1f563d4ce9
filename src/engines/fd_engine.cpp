// Open files of the descriptor-based engines (see fd_engine.hpp).
#include "engines/fd_engine.hpp"

#include <unistd.h>

#include <cerrno>

#include "core/errors.hpp"
#include "os/file_ops.hpp"
#include "os/item_ops.hpp"

namespace iosweep {

FdEngine::~FdEngine() {
  for (int f : fds_)
    if (f >= 0) ::close(f);
}

int FdEngine::open(const std::string& p, OpenMode mode) {
  const int f =
      mode.folder ? fsops::open_folder(p) : fsops::open_for_io(p, mode.write, mode.create, direct_);
  std::size_t slot = 0;
  while (slot < fds_.size() && fds_[slot] >= 0)
    ++slot;
  if (slot == fds_.size()) {
    fds_.push_back(-1);
    paths_.emplace_back();
  }
  fds_[slot] = f;
  paths_[slot] = p;
  return static_cast<int>(slot);
}

void FdEngine::close(int file) {
  const auto i = static_cast<std::size_t>(file);
  const int f = fds_.at(i);
  fds_[i] = -1;
  // close() is not retried on EINTR: on Linux the descriptor is released either way.
  if (::close(f) != 0 && errno != EINTR) throw IoError("close", paths_[i], 0, errno);
}

void FdEngine::sync(int file) {
  const auto i = static_cast<std::size_t>(file);
  int rc;
  do {
    rc = ::fsync(fds_.at(i));
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) throw IoError("fsync", paths_[i], 0, errno);
}

}  // namespace iosweep
