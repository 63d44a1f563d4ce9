// What IO500's timestamp and find phases ask of the file system (phases/find_phase.hpp): list a
// folder without following a symbolic link, stat one entry of it as lstat does, and make the
// reference file. Every failure throws core/errors.hpp's IoError naming the path and errno.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace iosweep::fsops {

// One entry of a folder as readdir gave it: its name and whether it is a folder, another kind
// of file, or unknown (the file system did not say: a stat tells).
enum class EntryKind : std::uint8_t { folder, other, unknown };

// Every entry of `path` but . and .., in readdir's order, to `each` with the folder's open
// descriptor (for stat_at). The folder is opened with O_NOFOLLOW: a symbolic link is refused.
void list_folder(const std::string& path,
                 const std::function<void(int dirfd, const char* name, EntryKind kind)>& each);

// lstat of `name` in the open folder `dirfd` (fstatat with AT_SYMLINK_NOFOLLOW).
struct EntryStat {
  bool folder = false;
  std::uint64_t size_bytes = 0;
  std::int64_t ctime_s = 0;
};
// False with errno set when the stat failed.
bool stat_at(int dirfd, const char* name, EntryStat& out);

// The change time of `path` in seconds (lstat), as pfind reads its -newer file.
std::int64_t ctime_s_of(const std::string& path);

// Makes `path` an empty file, or empties the one there (O_CREAT|O_TRUNC, never through a
// symbolic link), as the io500 application's timestamp phase does.
void make_timestamp(const std::string& path);

// mkdir -p: makes `path` and the folders above it that are missing (mode 0755), and returns
// those it made, outermost first. A part that exists and is not a folder throws IoError.
std::vector<std::string> make_folders(const std::string& path);

// rmdir of each folder of `made`, innermost first: only empty folders go (what the caller made
// and nothing was put in).
void remove_empty_folders(const std::vector<std::string>& made);

}  // namespace iosweep::fsops
