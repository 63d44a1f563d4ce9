// Untimed file-system operations (see file_ops.hpp).
#include "os/file_ops.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "core/errors.hpp"

namespace iosweep::fsops {
namespace {

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

int open_for_io(const std::string& path, bool write, bool create, bool direct) {
  int flags = O_CLOEXEC | O_NOFOLLOW | (write ? O_WRONLY : O_RDONLY);
  if (create) flags |= O_CREAT | O_EXCL;
  if (direct) flags |= O_DIRECT;
  int fd;
  do {
    fd = ::open(path.c_str(), flags, 0644);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) throw IoError::of_file("open", path, errno);
  return fd;
}

Entry entry_at(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return {};
  if (S_ISLNK(st.st_mode)) return {Entry::Kind::link, 0};
  if (!S_ISREG(st.st_mode)) return {Entry::Kind::other, 0};
  return {Entry::Kind::regular, static_cast<std::uint64_t>(st.st_size)};
}

FileIdentity identity_of(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return {};
  return {st.st_dev, st.st_ino, true};
}

int device_of(const std::string& dir, dev_t& dev) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return errno;
  dev = st.st_dev;
  return 0;
}

void replace_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".part." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("creating " + tmp + " failed: " + describe_errno(errno));
  std::size_t done = 0;
  int err = 0;
  while (done < text.size() && err == 0) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno != EINTR) err = errno;
    if (n > 0) done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(tmp.c_str(), path.c_str()) == 0) return;
  const std::string what = err != 0 ? "writing " + tmp : "renaming " + tmp + " to " + path;
  if (err == 0) err = errno;
  ::unlink(tmp.c_str());  // ours: made exclusively above
  throw std::runtime_error(what + " failed: " + describe_errno(err));
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

std::string absolute_path(const std::string& path) {
  std::error_code ec;
  const auto full = std::filesystem::absolute(path, ec);
  return ec ? path : full.lexically_normal().string();
}

bool remove_if_same(const std::string& path, const FileIdentity& id, int* err) {
  int failed = 0;
  bool removed = false;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) failed = errno;
  } else if (S_ISREG(st.st_mode) && FileIdentity{st.st_dev, st.st_ino, true} == id) {
    removed = ::unlink(path.c_str()) == 0;
    if (!removed) failed = errno;
  }
  if (err != nullptr) *err = failed;
  return removed;
}

std::uint64_t size_of(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) throw IoError::of_file("stat", path, errno);
  if (!S_ISREG(st.st_mode)) throw IoError::of_file("stat", path, EINVAL, "not a regular file");
  return static_cast<std::uint64_t>(st.st_size);
}

void drop_cache(const std::string& path) {
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW)};
  if (f.fd < 0) throw IoError::of_file("open", path, errno);
  if (::fsync(f.fd) != 0 && errno != EINVAL) throw IoError::of_file("fsync", path, errno);
  const int rc = ::posix_fadvise(f.fd, 0, 0, POSIX_FADV_DONTNEED);
  if (rc != 0) throw IoError::of_file("posix_fadvise", path, rc);
}

FileIdentity create_preallocated(const std::string& path, std::uint64_t bytes) {
  Fd f{::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644)};
  if (f.fd < 0) throw IoError::of_file("open", path, errno);
  struct stat st {};
  ::fstat(f.fd, &st);
  const FileIdentity id{st.st_dev, st.st_ino, true};
  if (bytes > 0) {
    int rc = ::fallocate(f.fd, 0, 0, static_cast<off_t>(bytes));
    if (rc != 0 && (errno == EOPNOTSUPP || errno == ENOSYS))
      rc = ::ftruncate(f.fd, static_cast<off_t>(bytes));  // no preallocation: at least sized
    if (rc != 0) {
      const int err = errno;
      ::unlink(path.c_str());
      throw IoError::of_file("fallocate", path, err);
    }
  }
  return id;
}

namespace {

// cachestat(2), added in Linux 6.5; Debian 12's headers and C library predate it.
constexpr long kSysCachestat = 451;
struct CachestatRange {
  std::uint64_t off, len;
};
struct Cachestat {
  std::uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted;
};

// Resident bytes of [offset, offset + bytes) of an open file by mincore over mappings of it
// (offset page-aligned down).
std::uint64_t resident_by_mincore(int fd, std::uint64_t offset, std::uint64_t bytes,
                                  std::uint64_t page) {
  constexpr std::uint64_t kWindow = 1ull << 30;  // map at most 1 GiB at a time
  const std::uint64_t first = offset / page * page, end = offset + bytes;
  std::uint64_t resident = 0;
  std::vector<unsigned char> vec;
  for (std::uint64_t off = first; off < end; off += kWindow) {
    const std::uint64_t len = std::min(kWindow, end - off);
    void* m = ::mmap(nullptr, len, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(off));
    if (m == MAP_FAILED) break;
    vec.assign((len + page - 1) / page, 0);
    if (::mincore(m, len, vec.data()) == 0)
      for (unsigned char v : vec)
        resident += (v & 1) ? page : 0;
    ::munmap(m, len);
  }
  return std::min(resident, end - first);
}

// Whether every page of [offset, offset + bytes) is in the page cache.
bool range_resident(int fd, std::uint64_t offset, std::uint64_t bytes) {
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  const std::uint64_t first = offset / page * page;
  const std::uint64_t pages = (offset + bytes - first + page - 1) / page;
  CachestatRange range{first, pages * page};
  Cachestat st{};
  if (::syscall(kSysCachestat, fd, &range, &st, 0) == 0) return st.nr_cache >= pages;
  return resident_by_mincore(fd, first, pages * page, page) >= pages * page;
}

}  // namespace

CacheState cache_state(const std::string& path, std::uint64_t bytes) {
  CacheState cs;
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW)};
  if (f.fd < 0 || bytes == 0) return cs;
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  CachestatRange range{0, bytes};
  Cachestat st{};
  if (::syscall(kSysCachestat, f.fd, &range, &st, 0) == 0) {
    cs.known = cs.dirty_known = true;
    cs.cached_bytes = std::min(st.nr_cache * page, bytes);
    cs.dirty_bytes = std::min((st.nr_dirty + st.nr_writeback) * page, bytes);
    return cs;
  }
  cs.known = true;
  cs.cached_bytes = resident_by_mincore(f.fd, 0, bytes, page);
  return cs;
}

void read_head(const std::string& path, std::span<std::byte> dst, std::uint64_t offset) {
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW)};
  if (f.fd < 0) throw IoError::of_file("open", path, errno);
  // Bring no more of the file into the page cache than these bytes (no read-ahead), and drop
  // them again after when they were not cached before: pages cached by this check would serve
  // later reads. When they were (a user's pre-read for --cache keep), nothing is dropped: the
  // page cache keeps a file in folios of up to several MiB, and dropping the 4 KiB read here
  // drops the whole folio holding them (a 16 MiB file pre-read by 1 MiB reads lost 1/16).
  const bool was_cached = range_resident(f.fd, offset, dst.size());
  ::posix_fadvise(f.fd, 0, 0, POSIX_FADV_RANDOM);
  std::size_t done = 0;
  while (done < dst.size()) {
    const ssize_t n =
        ::pread(f.fd, dst.data() + done, dst.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw IoError("read", path, offset + done, errno);
    if (n == 0)
      throw IoError("read", path, offset + done, ENODATA, "the file is shorter than expected");
    done += static_cast<std::size_t>(n);
  }
  if (!was_cached)
    ::posix_fadvise(f.fd, static_cast<off_t>(offset), static_cast<off_t>(dst.size()),
                    POSIX_FADV_DONTNEED);
}

Space space_of(const std::string& dir) {
  struct statvfs v {};
  if (::statvfs(dir.c_str(), &v) != 0) return {};
  return {.known = true,
          .fsid = static_cast<std::uint64_t>(v.f_fsid),
          .free_bytes = static_cast<std::uint64_t>(v.f_bavail) * v.f_frsize,
          .free_inodes = static_cast<std::uint64_t>(v.f_favail),
          .inodes = static_cast<std::uint64_t>(v.f_files)};
}

std::string cache_probe_method() {
  CachestatRange range{0, 0};
  Cachestat st{};
  // An invalid descriptor tells whether the system call exists (EBADF) or not (ENOSYS).
  if (::syscall(kSysCachestat, -1, &range, &st, 0) != 0 && errno == ENOSYS)
    return "mincore (no cachestat(2) in this kernel: cached fractions only, unflushed not "
           "measured)";
  return "cachestat(2)";
}

std::string check_writable_dir(const std::string& dir) {
  const std::string q = "'" + printable(dir) + "'";
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return q + " does not exist";
  if (!S_ISDIR(st.st_mode)) return q + " is not a folder";
  if (const std::string p = pseudo_fs(dir); !p.empty())
    return q + " is on " + p + ", a pseudo file system of the kernel, not storage";
  struct statvfs vfs {};
  if (::statvfs(dir.c_str(), &vfs) == 0 && (vfs.f_flag & ST_RDONLY))
    return q + " is on a read-only file system";
  if (::access(dir.c_str(), W_OK | X_OK) != 0) return q + " is not writable";
  return {};
}

std::string same_folder_twice(const std::vector<std::string>& dirs) {
  std::vector<FileIdentity> ids;
  for (const auto& d : dirs) {
    struct stat st {};
    FileIdentity id;
    if (::stat(d.c_str(), &st) == 0) id = {st.st_dev, st.st_ino, true};
    for (std::size_t j = 0; j < ids.size(); ++j)
      if (id == ids[j])
        return "'" + printable(dirs[j]) + "' and '" + printable(d) +
               "' are the same folder (device " + std::to_string(major(st.st_dev)) + ":" +
               std::to_string(minor(st.st_dev)) + ", inode " + std::to_string(st.st_ino) +
               "); list each folder once";
    ids.push_back(id);
  }
  return {};
}

std::string probe_direct(const std::string& dir, std::uint64_t& alignment) {
  alignment = 4096;
  int fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_DIRECT | O_CLOEXEC, 0600);
  if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR)) {
    // No O_TMPFILE here: create, probe and remove a named file of our own.
    const std::string probe = dir + "/.iosweep-direct-probe." + std::to_string(::getpid());
    fd = ::open(probe.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
      return "cannot create a probe file in '" + printable(dir) + "': " + describe_errno(errno);
    ::unlink(probe.c_str());
    const int flags = ::fcntl(fd, F_GETFL);
    if (::fcntl(fd, F_SETFL, flags | O_DIRECT) != 0) {
      const int err = errno;
      ::close(fd);
      return "the file system of '" + printable(dir) + "' (" + fs_type(dir) +
             ") refuses O_DIRECT: " + describe_errno(err);
    }
  }
  if (fd < 0)
    return "the file system of '" + printable(dir) + "' (" + fs_type(dir) +
           ") refuses O_DIRECT: " + describe_errno(errno);
  struct statx sx {};
  if (::statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 && (sx.stx_mask & STATX_DIOALIGN)) {
    const std::uint64_t need = std::max(sx.stx_dio_mem_align, sx.stx_dio_offset_align);
    if (need > alignment) alignment = need;
  }
  ::close(fd);
  return {};
}

namespace {

struct FsKind {
  unsigned long magic;
  const char* name;
  bool pseudo;  // a view of the kernel, not storage: refused as --dir
};
const FsKind kFsKinds[] = {
    {TMPFS_MAGIC, "tmpfs", false},
    {RAMFS_MAGIC, "ramfs", false},
    {EXT4_SUPER_MAGIC, "ext4", false},
    {XFS_SUPER_MAGIC, "xfs", false},
    {BTRFS_SUPER_MAGIC, "btrfs", false},
    {NFS_SUPER_MAGIC, "nfs", false},
    {OVERLAYFS_SUPER_MAGIC, "overlay", false},
    {PROC_SUPER_MAGIC, "proc", true},
    {SYSFS_MAGIC, "sysfs", true},
    {DEVPTS_SUPER_MAGIC, "devpts", true},
    {CGROUP_SUPER_MAGIC, "cgroup", true},
    {CGROUP2_SUPER_MAGIC, "cgroup2", true},
    {DEBUGFS_MAGIC, "debugfs", true},
    {TRACEFS_MAGIC, "tracefs", true},
    {SECURITYFS_MAGIC, "securityfs", true},
    {SELINUX_MAGIC, "selinuxfs", true},
    {BPF_FS_MAGIC, "bpf", true},
    {PSTOREFS_MAGIC, "pstore", true},
    {EFIVARFS_MAGIC, "efivarfs", true},
    {NSFS_MAGIC, "nsfs", true},
    {BINFMTFS_MAGIC, "binfmt_misc", true},
    {AUTOFS_SUPER_MAGIC, "autofs", true},
    {HUGETLBFS_MAGIC, "hugetlbfs", true},  // takes mmap, not write(2)
};

const FsKind* fs_kind(const std::string& dir) {
  struct statfs sf {};
  if (::statfs(dir.c_str(), &sf) != 0) return nullptr;
  for (const auto& k : kFsKinds)
    if (k.magic == static_cast<unsigned long>(sf.f_type)) return &k;
  return nullptr;
}

}  // namespace

std::string fs_type(const std::string& dir) {
  if (const FsKind* k = fs_kind(dir)) return k->name;
  struct statfs sf {};
  if (::statfs(dir.c_str(), &sf) != 0) return "unknown";
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%lx", static_cast<unsigned long>(sf.f_type));
  return buf;
}

std::string pseudo_fs(const std::string& dir) {
  const FsKind* k = fs_kind(dir);
  return k != nullptr && k->pseudo ? k->name : std::string();
}

std::uint64_t parse_meminfo_writeback(const std::string& meminfo) {
  std::istringstream in(meminfo);
  std::string key, unit;
  std::uint64_t value = 0, total = 0;
  while (in >> key >> value) {
    std::getline(in, unit);
    if (key == "Dirty:" || key == "Writeback:")
      total += value * (unit.find("kB") != std::string::npos ? 1024 : 1);
  }
  return total;
}

std::uint64_t writeback_bytes() {
  std::ifstream in("/proc/meminfo");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_meminfo_writeback(text.str());
}

void sync_all() {
  ::sync();
}

}  // namespace iosweep::fsops
