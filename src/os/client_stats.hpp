// Byte counters that network file system clients keep per mount, parsed from the kernel's own
// text, for storage whose traffic a block device never sees:
//   NFS     /proc/self/mountstats: the `bytes:` line of each `device D mounted on M with fstype
//           nfs|nfs4 statvers=V` block (include/linux/nfs_iostat.h: what applications read and
//           wrote with read()/write() and with O_DIRECT, what went to and came from the server,
//           pages read and written through mmap).
//   Lustre  llite.*.stats (a stats file, or `lctl get_param llite.*.stats` with its
//           `llite.INSTANCE.stats=` headers): the `read_bytes` and `write_bytes` lines,
//           `N samples [bytes] MIN MAX SUM [SUMSQ]`, counted at the VFS (what read()/write()
//           asked for, cache hits included), not what the servers moved.
// Both functions take the text (read it with whatever the caller uses), never throw, and bound
// their work: more than kClientStatsMaxBytes of text, a line longer than kClientStatsMaxLine, or
// more than kClientStatsMaxMounts mounts is refused as too large. A malformed header or
// counter line of a mount the caller asked about is an error naming the line; lines the parsers
// do not need (per-op statistics, other counters, other file systems) are skipped unread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace iosweep {

inline constexpr std::size_t kClientStatsMaxBytes = std::size_t{64} << 20;
inline constexpr std::size_t kClientStatsMaxLine = std::size_t{1} << 20;
inline constexpr std::size_t kClientStatsMaxMounts = 100000;

enum class ClientStatsStatus {
  ok,         // parsed; `mounts` holds every mount asked for
  not_found,  // well formed, but no mount matched (or no mount of that kind at all)
  malformed,  // a line the parser needed is not what the kernel writes (`error` says which)
  too_large,  // beyond the bounds above
};

// One NFS mount's `bytes:` counters. Mounts without a statistics section (no statvers) have
// has_bytes false and zeros.
struct NfsMountBytes {
  std::string device;       // "server:/export", escapes (\040) decoded
  std::string mount_point;  // "/mnt/nfs", escapes decoded
  std::string fstype;       // "nfs" or "nfs4"
  std::string statvers;     // "1.1"; empty without statistics
  bool has_bytes = false;
  std::uint64_t normal_read = 0;   // read() through the page cache, bytes the application got
  std::uint64_t normal_write = 0;  // write() through the page cache
  std::uint64_t direct_read = 0;   // O_DIRECT read()
  std::uint64_t direct_write = 0;  // O_DIRECT write()
  std::uint64_t server_read = 0;   // bytes received from the server by READ (the wire's side)
  std::uint64_t server_write = 0;  // bytes sent to the server by WRITE
  std::uint64_t read_pages = 0;    // pages read through readpage(s), mmap included
  std::uint64_t write_pages = 0;   // pages written through writepage(s)
};

struct NfsClientStats {
  ClientStatsStatus status = ClientStatsStatus::ok;
  std::string error;  // one line when status is not ok ("mountstats: line 7: ...")
  std::vector<NfsMountBytes> mounts;
  bool ok() const { return status == ClientStatsStatus::ok; }
};

// Every NFS mount (fstype nfs or nfs4) of `text`, in file order; with `mount_point`, only the
// blocks mounted there (several when mounts are stacked: the last is the one visible). Other
// file systems' blocks are skipped.
NfsClientStats parse_nfs_mountstats(std::string_view text,
                                    std::string_view mount_point = {}) noexcept;
// This process's /proc/self/mountstats, parsed as above for the mount at `mount_point`.
NfsClientStats read_nfs_mountstats(const std::string& mount_point);

// One Lustre client mount's llite counters; a counter without samples is not printed by Lustre
// and reads as zeros here.
struct LustreCounter {
  bool present = false;
  std::uint64_t samples = 0;  // read() or write() calls
  std::uint64_t min = 0;      // smallest call, bytes
  std::uint64_t max = 0;      // largest call, bytes
  std::uint64_t sum = 0;      // bytes
  bool has_sumsq = false;     // Lustre 2.x prints the sum of squares after the sum
  std::uint64_t sumsq = 0;
};

struct LustreMountBytes {
  std::string instance;  // "fsname-ffff88105db50000" from `llite.INSTANCE.stats=`; empty for
                         // the text of a single stats file
  std::string snapshot;  // snapshot_time as printed ("1510950459.772792457"); may be empty
  LustreCounter read;    // read_bytes
  LustreCounter write;   // write_bytes
};

struct LustreClientStats {
  ClientStatsStatus status = ClientStatsStatus::ok;
  std::string error;
  std::vector<LustreMountBytes> mounts;
  bool ok() const { return status == ClientStatsStatus::ok; }
};

// The llite counters of `text`: the content of one llite.*.stats file (one mount, instance
// empty), or `lctl get_param` output holding any parameters, of which the `llite.*.stats=`
// blocks are read. With `instance`, only mounts whose instance is `instance` or starts with
// `instance-` (a file system name: "lustrefs" matches "lustrefs-ffff88105db50000").
LustreClientStats parse_lustre_llite_stats(std::string_view text,
                                           std::string_view instance = {}) noexcept;

}  // namespace iosweep
