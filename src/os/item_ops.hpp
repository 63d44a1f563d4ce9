// The metadata operations as system calls, one item or folder at a time, relative to a folder
// descriptor: what the posix engine does inside its submit() and what the metadata phases do
// untimed (setting up what a phase needs, removing what the run made). Never a symbolic link
// followed at the item itself (O_NOFOLLOW, AT_SYMLINK_NOFOLLOW; unlinkat never follows), never an
// existing name taken (O_CREAT | O_EXCL, mkdirat), EINTR retried, short transfers continued.
// Results as an io_uring completion's: the bytes written or read (0 for the others) or -errno,
// with the call of the sequence that failed.
//
// The phases name an item by one component in a folder descriptor they opened themselves,
// walking down from their set folder without following a link (open_child_folder). Where a rank
// may not hold that many descriptors, an item is a path below the set folder instead, and each
// operation first resolves its folder with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)
// (item_beneath: two calls more per operation, which the row's notes say).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace iosweep::fsops {

// The call of an item's sequence: open (or the one call: mkdir, stat, unlink), write or read,
// fsync, close.
enum class ItemStep : std::uint8_t { first, data, sync, close };

struct ItemResult {
  std::int64_t result = 0;  // bytes written or read, or -errno
  ItemStep step = ItemStep::first;
};

ItemResult make_folder(int dir, const char* name);
ItemResult create_item(int dir, const char* name, const std::byte* data, std::size_t bytes,
                       bool sync);
ItemResult stat_item(int dir, const char* name);
ItemResult read_item(int dir, const char* name, std::byte* buf, std::size_t bytes);
ItemResult remove_item(int dir, const char* name);
ItemResult remove_folder(int dir, const char* name);

// The operations of the calls above, for item_beneath.
enum class ItemCall : std::uint8_t { mkdir, create, stat, read, unlink, rmdir };
// `call` on `path` below the folder `root`: its folder (all of `path` but the last component)
// opened with openat2(O_PATH | O_DIRECTORY, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), the call on
// the last component relative to it, the folder closed. A link anywhere on the way: -ELOOP (or
// -EXDEV for a path out of `root`); a kernel without openat2: -ENOSYS. `buf`: the bytes written
// (create) or read (read).
ItemResult item_beneath(ItemCall call, int root, const char* path, std::byte* buf,
                        std::size_t bytes, bool sync);
// Whether this kernel resolves paths with openat2 (Linux 5.6 and later).
bool openat2_available();

// The folder `name` in the folder `dir` (one component), opened for requests below it:
// O_DIRECTORY | O_NOFOLLOW, EINTR retried. The descriptor, or -errno (-ELOOP or -ENOTDIR for a
// symbolic link or anything but a folder at that name).
int open_child_folder(int dir, const char* name);
// What is at `name` in the folder `dir`, not following a link: its device and inode (valid) and
// its kind; an errno when nothing can be read there (ENOENT: nothing).
struct ItemIdentity {
  std::uint64_t dev = 0, ino = 0;
  bool valid = false;
  bool regular = false, folder = false;
  int err = 0;
  bool same(std::uint64_t d, std::uint64_t i) const { return valid && dev == d && ino == i; }
};
ItemIdentity identity_at(int dir, const char* name);
// The device and inode of an open descriptor.
ItemIdentity identity_of_fd(int fd);
// Up to `most` names in the folder `dir` (for naming what was left there, never for removing
// it), and how many there are in all.
std::string names_in(int dir, std::size_t most);

// Raises this process's soft limit of open descriptors to its hard limit (once), and returns
// how many more it may open now: the limit less the descriptors already open.
std::uint64_t descriptors_left();

// A folder opened for metadata requests below it (O_DIRECTORY | O_NOFOLLOW); throws IoError.
int open_folder(const std::string& path);

// Writes `level` to /proc/sys/vm/drop_caches (2: dentries and inodes; 3: and the page cache)
// after syncing the file system of `dir` (only clean objects can be dropped); 0, or the errno of
// the refusal (EACCES or EPERM without root, EROFS in a container).
int drop_kernel_caches(const std::string& dir, int level);

}  // namespace iosweep::fsops
