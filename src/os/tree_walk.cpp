// Folder listing and lstat for the timestamp and find phases (see tree_walk.hpp).
#include "os/tree_walk.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/errors.hpp"

namespace iosweep::fsops {

void list_folder(const std::string& path,
                 const std::function<void(int dirfd, const char* name, EntryKind kind)>& each) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) throw IoError::of_file("open of folder", path, errno);
  DIR* dir = ::fdopendir(fd);
  if (dir == nullptr) {
    const int err = errno;
    ::close(fd);
    throw IoError::of_file("open of folder", path, err);
  }
  try {
    for (;;) {
      errno = 0;
      const dirent* e = ::readdir(dir);
      if (e == nullptr) {
        if (errno != 0) throw IoError::of_file("readdir", path, errno);
        break;
      }
      if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
      const EntryKind kind = e->d_type == DT_DIR       ? EntryKind::folder
                             : e->d_type == DT_UNKNOWN ? EntryKind::unknown
                                                       : EntryKind::other;
      each(::dirfd(dir), e->d_name, kind);
    }
  } catch (...) {
    ::closedir(dir);
    throw;
  }
  ::closedir(dir);
}

bool stat_at(int dirfd, const char* name, EntryStat& out) {
  struct stat st {};
  if (::fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return false;
  out.folder = S_ISDIR(st.st_mode);
  out.size_bytes = static_cast<std::uint64_t>(st.st_size);
  out.ctime_s = static_cast<std::int64_t>(st.st_ctim.tv_sec);
  return true;
}

std::int64_t ctime_s_of(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) throw IoError::of_file("stat", path, errno);
  return static_cast<std::int64_t>(st.st_ctim.tv_sec);
}

void make_timestamp(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) throw IoError::of_file("create", path, errno);
  if (::close(fd) != 0) throw IoError::of_file("close", path, errno);
}

std::vector<std::string> make_folders(const std::string& path) {
  std::vector<std::string> made;
  std::size_t at = 0;
  while (at != std::string::npos) {
    at = path.find('/', at + 1);
    const std::string part = path.substr(0, at);
    if (part.empty() || part == "." || part == "..") continue;
    if (::mkdir(part.c_str(), 0755) == 0) {
      made.push_back(part);
      continue;
    }
    const int err = errno;
    struct stat st {};
    if (err == EEXIST && ::stat(part.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) continue;
    remove_empty_folders(made);
    throw IoError::of_file("mkdir", part, err == EEXIST ? ENOTDIR : err);
  }
  return made;
}

void remove_empty_folders(const std::vector<std::string>& made) {
  for (std::size_t i = made.size(); i-- > 0;)
    (void)::rmdir(made[i].c_str());
}

}  // namespace iosweep::fsops
