// Metadata operations as system calls (see item_ops.hpp).
#include "os/item_ops.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <cerrno>

#include "core/errors.hpp"

namespace iosweep::fsops {
namespace {

ItemResult failed(ItemStep step) {
  return {-static_cast<std::int64_t>(errno), step};
}

// A call retried while it is interrupted.
template <class F>
auto retried(F call) {
  decltype(call()) rc;
  do {
    rc = call();
  } while (rc < 0 && errno == EINTR);
  return rc;
}

// Closes `fd`; a failure is the sequence's when nothing failed before.
ItemResult closed(int fd, ItemResult r) {
  // close() is not retried on EINTR: on Linux the descriptor is released either way.
  if (::close(fd) != 0 && errno != EINTR && r.result >= 0) return failed(ItemStep::close);
  return r;
}

}  // namespace

ItemResult make_folder(int dir, const char* name) {
  if (retried([&] { return ::mkdirat(dir, name, 0755); }) != 0) return failed(ItemStep::first);
  return {};
}

ItemResult create_item(int dir, const char* name, const std::byte* data, std::size_t bytes,
                       bool sync) {
  const int fd = retried([&] {
    return ::openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  });
  if (fd < 0) return failed(ItemStep::first);
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t n = retried([&] { return ::write(fd, data + done, bytes - done); });
    if (n <= 0)
      return closed(fd, n < 0 ? failed(ItemStep::data)
                              : ItemResult{static_cast<std::int64_t>(done), ItemStep::data});
    done += static_cast<std::size_t>(n);
  }
  if (sync && retried([&] { return ::fsync(fd); }) != 0) return closed(fd, failed(ItemStep::sync));
  return closed(fd, {static_cast<std::int64_t>(done), ItemStep::first});
}

ItemResult stat_item(int dir, const char* name) {
  struct stat st {};
  if (retried([&] { return ::fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW); }) != 0)
    return failed(ItemStep::first);
  return {};
}

ItemResult read_item(int dir, const char* name, std::byte* buf, std::size_t bytes) {
  const int fd = retried([&] { return ::openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC); });
  if (fd < 0) return failed(ItemStep::first);
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t n = retried([&] { return ::read(fd, buf + done, bytes - done); });
    if (n < 0) return closed(fd, failed(ItemStep::data));
    if (n == 0) break;  // the item ends here: a short read
    done += static_cast<std::size_t>(n);
  }
  return closed(fd, {static_cast<std::int64_t>(done), ItemStep::first});
}

ItemResult remove_item(int dir, const char* name) {
  if (retried([&] { return ::unlinkat(dir, name, 0); }) != 0) return failed(ItemStep::first);
  return {};
}

ItemResult remove_folder(int dir, const char* name) {
  if (retried([&] { return ::unlinkat(dir, name, AT_REMOVEDIR); }) != 0)
    return failed(ItemStep::first);
  return {};
}

void remove_contents(int dir, unsigned levels) {
  const int listing = ::openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (listing < 0) return;
  DIR* d = ::fdopendir(listing);
  if (d == nullptr) {
    ::close(listing);
    return;
  }
  std::vector<std::string> files, folders;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    struct stat st {};
    if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (S_ISREG(st.st_mode)) files.push_back(name);
    if (S_ISDIR(st.st_mode)) folders.push_back(name);
  }
  ::closedir(d);
  for (const auto& f : files)
    ::unlinkat(dir, f.c_str(), 0);
  for (const auto& f : folders) {
    const int sub = ::openat(dir, f.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub < 0) continue;
    if (levels > 0) remove_contents(sub, levels - 1);
    ::close(sub);
    ::unlinkat(dir, f.c_str(), AT_REMOVEDIR);
  }
}

int open_folder(const std::string& path) {
  const int fd = retried(
      [&] { return ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC); });
  if (fd < 0) throw IoError("open", path, 0, errno);
  return fd;
}

int drop_kernel_caches(const std::string& dir, int level) {
  const int d = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d >= 0) {
    ::syncfs(d);
    ::close(d);
  }
  const int fd = ::open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  const char text[2] = {static_cast<char>('0' + level), '\n'};
  const ssize_t n = retried([&] { return ::write(fd, text, sizeof text); });
  const int err = n == static_cast<ssize_t>(sizeof text) ? 0 : (n < 0 ? errno : EIO);
  ::close(fd);
  return err;
}

}  // namespace iosweep::fsops
