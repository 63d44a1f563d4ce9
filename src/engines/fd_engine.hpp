// The part every descriptor-based engine (posix, io_uring, null) shares: its open files, handle
// -> descriptor and path, opened the one way iosweep opens files for I/O (O_NOFOLLOW always,
// O_CREAT | O_EXCL to create, O_DIRECT on request; a folder for metadata requests with
// O_DIRECTORY), closed and fsynced with errors that name the file. Handles are small integers;
// a closed handle's slot is reused by the next open.
#pragma once

#include <string>
#include <vector>

#include "engines/engine.hpp"

namespace iosweep {

class FdEngine : public Engine {
 public:
  explicit FdEngine(bool direct) : direct_(direct) {}
  FdEngine(const FdEngine&) = delete;
  FdEngine& operator=(const FdEngine&) = delete;
  ~FdEngine() override;  // closes what is still open

  int open(const std::string& path, OpenMode mode) override;  // throws IoError
  void close(int file) override;                              // throws IoError
  void sync(int file) override;  // fsync, EINTR retried; throws IoError

 protected:
  bool direct() const { return direct_; }
  int fd(int file) const { return fds_[static_cast<std::size_t>(file)]; }
  const std::string& path(int file) const { return paths_[static_cast<std::size_t>(file)]; }

 private:
  bool direct_;
  std::vector<int> fds_;
  std::vector<std::string> paths_;
};

}  // namespace iosweep
