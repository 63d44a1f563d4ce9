// The file system a folder is on, as the kernel's mount table names it (/proc/self/mountinfo):
// its type (ext4, xfs, fuse.glusterfs, nfs4, lustre, gpfs, ceph, beegfs ...), its source (the
// device, or the server and export: 198.18.0.1:/vol, mgs@o2ib:/fs), its mount point and its
// options. statfs's magic number says nothing about what is behind a FUSE mount (0x65735546 for
// every one of them); the mount table does. Each process reads its own mount namespace, so an
// emulated node with a mount of its own sees its own client.
#pragma once

#include <string>
#include <string_view>

namespace iosweep {

struct MountEntry {
  bool found = false;
  std::string fs_type;      // "fuse.glusterfs"
  std::string source;       // "198.18.0.1:/iosweep"
  std::string mount_point;  // "/mnt/iosweep-dfs"
  std::string options;      // the mount's options, then the super block's ("rw,relatime,...")
  std::string why;          // why nothing was found
};

// The mount holding `real_path` (an absolute path with symbolic links resolved) in the text of a
// mountinfo file: the entry with the longest mount point that contains it, the last one where
// mounts are stacked. Octal escapes (\040 for a space) are decoded. Never throws.
MountEntry mount_in(std::string_view mountinfo, const std::string& real_path);

// The mount holding `dir` in this process's mount namespace.
MountEntry mount_of(const std::string& dir);

}  // namespace iosweep
