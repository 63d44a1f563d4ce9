// File-system operations outside the timed windows: identity checks, removal of the run's own
// files, page-cache dropping, preallocation and the checks made before a run starts. Phases
// call these (never POSIX directly) for their untimed preparation and cleanup.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace iosweep::fsops {

struct FileIdentity {
  dev_t dev = 0;
  ino_t ino = 0;
  bool valid = false;
  bool operator==(const FileIdentity& o) const {
    return valid && o.valid && dev == o.dev && ino == o.ino;
  }
};

// The open() of the descriptor-based engines: O_CLOEXEC | O_NOFOLLOW always, O_CREAT | O_EXCL
// to create (never taking over an existing file), O_DIRECT on request; EINTR retried; throws
// IoError.
int open_for_io(const std::string& path, bool write, bool create, bool direct);

// What is at `path` itself (a symbolic link is not followed): nothing, a link, a regular file of
// `bytes`, or something else.
struct Entry {
  enum class Kind { none, link, regular, other } kind = Kind::none;
  std::uint64_t bytes = 0;
};
Entry entry_at(const std::string& path);
// Identity of the object at `path` itself (symbolic links are not followed).
FileIdentity identity_of(const std::string& path);
bool exists(const std::string& path);
// `path` made absolute against the working folder, without resolving links (where a relative
// path given to iosweep lands, as a message names it).
std::string absolute_path(const std::string& path);
// The device of the file system holding folder `dir` (symbolic links followed, as a path into
// it is); 0 and errno when it cannot be read.
int device_of(const std::string& dir, dev_t& dev);
// What the file system holding `dir` has free for an unprivileged writer (statvfs: f_fsid, the
// available blocks and inodes); `known` false when it cannot be asked. `inodes` 0: the file
// system does not count them (it makes them as it needs).
struct Space {
  bool known = false;
  std::uint64_t fsid = 0;
  std::uint64_t free_bytes = 0;
  std::uint64_t free_inodes = 0;
  std::uint64_t inodes = 0;
};
Space space_of(const std::string& dir);
// Removes `path` only when it is still the regular file recorded in `id`: a run never removes
// a file it did not create. Returns true when removed; `err` (when given) is then 0, and the
// errno of a failed lstat (other than ENOENT) or unlink otherwise.
bool remove_if_same(const std::string& path, const FileIdentity& id, int* err = nullptr);
// Size in bytes of a regular file (not following links); throws IoError.
std::uint64_t size_of(const std::string& path);
// Reads dst.size() bytes at `offset` of a regular file (not following links); throws IoError.
void read_head(const std::string& path, std::span<std::byte> dst, std::uint64_t offset = 0);
// fsync and posix_fadvise(DONTNEED): later reads come from the device, not the page cache.
void drop_cache(const std::string& path);
// sync(2): every file system's dirty data and metadata to its device (mdtest -Y).
void sync_all();
// Puts `text` at `path` whole: written to a new file beside it (created exclusively, never
// through a link) and renamed over `path`, so a reader sees the old text or the new, and a link
// planted at either name is replaced, never written through. Throws std::runtime_error.
void replace_file(const std::string& path, const std::string& text);
// Creates `path` exclusively (never following links) and reserves `bytes` with fallocate, so
// O_DIRECT writes do not extend the file inside a timed window. Returns its identity.
FileIdentity create_preallocated(const std::string& path, std::uint64_t bytes);

// What of a file's first `bytes` the page cache holds: resident bytes, and bytes dirty or under
// writeback. cachestat(2) where the kernel has it (Linux 6.5); else mincore over a mapping for
// the resident bytes, and no figure for the dirty ones (`dirty_known` false). Never throws:
// `known` false when the file cannot be opened.
struct CacheState {
  bool known = false, dirty_known = false;
  std::uint64_t cached_bytes = 0, dirty_bytes = 0;
};
CacheState cache_state(const std::string& path, std::uint64_t bytes);
// "cachestat(2)", or what is used instead where the kernel lacks it.
std::string cache_probe_method();

// The node's dirty pages and pages under writeback (Dirty + Writeback of /proc/meminfo, in
// bytes): going down while an fsync or close waits means the flush is progressing. The parser
// takes the file's text; 0 when it holds neither line.
std::uint64_t parse_meminfo_writeback(const std::string& meminfo);
std::uint64_t writeback_bytes();

// Checks made before anything is created; each returns an empty string or a reason.
std::string check_writable_dir(const std::string& dir);
// Two spellings of one folder among `dirs` (D and D/../d, a symbolic link to D, a bind mount
// of D: the same device and inode, as this node sees them): "'D' and 'E' are the same folder
// ...", or empty. A folder that cannot be read is left to check_writable_dir.
std::string same_folder_twice(const std::vector<std::string>& dirs);
// Probes O_DIRECT in `dir` with an unnamed temporary file; sets the required alignment.
std::string probe_direct(const std::string& dir, std::uint64_t& alignment);
std::string fs_type(const std::string& dir);
// The name of the pseudo file system holding `dir` (proc, sysfs, cgroup, ...), or empty.
std::string pseudo_fs(const std::string& dir);

}  // namespace iosweep::fsops
