// The metadata operations as system calls, one item or folder at a time, relative to a folder
// descriptor: what the posix engine does inside its submit() and what the metadata phases do
// untimed (setting up what a phase needs, removing what the run made). Never a symbolic link
// followed at the item itself (O_NOFOLLOW, AT_SYMLINK_NOFOLLOW; unlinkat never follows), never an
// existing name taken (O_CREAT | O_EXCL, mkdirat), EINTR retried, short transfers continued.
// Results as an io_uring completion's: the bytes written or read (0 for the others) or -errno,
// with the call of the sequence that failed.
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

// Removes everything inside the folder `dir` (not the folder itself): regular files, and
// folders, depth first, at most `levels` deep; a symbolic link or any other kind of entry is
// neither followed nor removed. Best effort: what cannot be removed stays (no error).
void remove_contents(int dir, unsigned levels);

// A folder opened for metadata requests below it (O_DIRECTORY | O_NOFOLLOW); throws IoError.
int open_folder(const std::string& path);

// Writes `level` to /proc/sys/vm/drop_caches (2: dentries and inodes; 3: and the page cache)
// after syncing the file system of `dir` (only clean objects can be dropped); 0, or the errno of
// the refusal (EACCES or EPERM without root, EROFS in a container).
int drop_kernel_caches(const std::string& dir, int level);

}  // namespace iosweep::fsops
