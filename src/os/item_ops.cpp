// Metadata operations as system calls (see item_ops.hpp).
#include "os/item_ops.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <cstring>
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

namespace {

long openat2_call(int root, const char* path, std::uint64_t flags) {
  open_how how{};
  how.flags = flags;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS;
  return ::syscall(SYS_openat2, root, path, &how, sizeof how);
}

ItemResult item_call(ItemCall call, int dir, const char* name, std::byte* buf, std::size_t bytes,
                     bool sync) {
  switch (call) {
    case ItemCall::mkdir:
      return make_folder(dir, name);
    case ItemCall::create:
      return create_item(dir, name, buf, bytes, sync);
    case ItemCall::stat:
      return stat_item(dir, name);
    case ItemCall::read:
      return read_item(dir, name, buf, bytes);
    case ItemCall::unlink:
      return remove_item(dir, name);
    case ItemCall::rmdir:
      return remove_folder(dir, name);
  }
  return {-EINVAL, ItemStep::first};
}

}  // namespace

ItemResult item_beneath(ItemCall call, int root, const char* path, std::byte* buf,
                        std::size_t bytes, bool sync) {
  const char* slash = std::strrchr(path, '/');
  if (slash == nullptr) return item_call(call, root, path, buf, bytes, sync);
  // The folder's part of the path, copied on the stack: nothing is allocated inside a window.
  char folder[PATH_MAX];
  const auto n = static_cast<std::size_t>(slash - path);
  if (n >= sizeof folder) return {-ENAMETOOLONG, ItemStep::first};
  std::memcpy(folder, path, n);
  folder[n] = '\0';
  const auto fd = static_cast<int>(
      retried([&] { return openat2_call(root, folder, O_PATH | O_DIRECTORY | O_CLOEXEC); }));
  if (fd < 0) return failed(ItemStep::first);
  const ItemResult r = item_call(call, fd, slash + 1, buf, bytes, sync);
  ::close(fd);
  return r;
}

bool openat2_available() {
  const long fd = openat2_call(AT_FDCWD, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno != ENOSYS;
  ::close(static_cast<int>(fd));
  return true;
}

int open_child_folder(int dir, const char* name) {
  const int fd =
      retried([&] { return ::openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC); });
  return fd < 0 ? -errno : fd;
}

namespace {

ItemIdentity identity_from(const struct stat& st) {
  return {.dev = st.st_dev,
          .ino = st.st_ino,
          .valid = true,
          .regular = S_ISREG(st.st_mode),
          .folder = S_ISDIR(st.st_mode)};
}

}  // namespace

ItemIdentity identity_at(int dir, const char* name) {
  struct stat st {};
  if (retried([&] { return ::fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW); }) != 0)
    return {.err = errno};
  return identity_from(st);
}

ItemIdentity identity_of_fd(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return {.err = errno};
  return identity_from(st);
}

std::string names_in(int dir, std::size_t most) {
  const int listing = ::openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (listing < 0) return {};
  DIR* d = ::fdopendir(listing);
  if (d == nullptr) {
    ::close(listing);
    return {};
  }
  std::string out;
  std::size_t n = 0;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    if (n++ < most) out += (out.empty() ? "" : ", ") + printable(name);
  }
  ::closedir(d);
  if (n > most) out += " and " + std::to_string(n - most) + " more";
  return out;
}

std::uint64_t descriptors_left() {
  static const bool raised = [] {
    rlimit r{};
    if (::getrlimit(RLIMIT_NOFILE, &r) != 0) return false;
    if (r.rlim_cur == r.rlim_max) return true;
    r.rlim_cur = r.rlim_max;
    return ::setrlimit(RLIMIT_NOFILE, &r) == 0;
  }();
  (void)raised;
  rlimit r{};
  if (::getrlimit(RLIMIT_NOFILE, &r) != 0) return 0;
  std::uint64_t open_now = 0;
  if (DIR* d = ::opendir("/proc/self/fd")) {
    while (const dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') ++open_now;
    ::closedir(d);
  }
  const std::uint64_t limit = r.rlim_cur == RLIM_INFINITY ? ~0ull : r.rlim_cur;
  return limit > open_now ? limit - open_now : 0;
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
