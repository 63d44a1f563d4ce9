// The limits of every count iosweep takes, and the defaults code needs beyond the option table,
// each named once. The option table (app/option_table.cpp) states every option's default as
// text; these are the bounds the options are checked against and the values derived from them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace iosweep {

inline constexpr unsigned kMaxIodepth =
    4096;  // requests in flight per rank (--iodepth, streams / ranks)
inline constexpr int kMaxRanks = 1 << 24;                       // --ranks, --sweep, --read-shift
inline constexpr std::uint64_t kMaxStreams = (1ull << 32) - 1;  // stored as 32-bit counts
inline constexpr int kMaxRepetitions = 1000000;
// Folders of --dir: each node's sampler counts every block device under them around every
// phase, and a device's folders are kept as a bit mask.
inline constexpr std::size_t kMaxDirs = 64;
inline constexpr std::uint64_t kMinFilterEvery = 2;  // one planted key every N words, N >= 2
inline constexpr double kMinTimeseriesBinS = 1e-3;
// --stall-limit: an operation outstanding this long stops the run (or, with --stall-wait, is
// waited for and recorded); one outstanding kStallNoticeS (or the limit, when smaller) is said
// on stderr and on the progress line, and its length recorded on the row (sweep/stall.hpp).
inline constexpr double kMinStallLimitS = 1;
inline constexpr double kStallNoticeS = 10;
// O_DIRECT's alignment until --dir is probed (a page, what most file systems need).
inline constexpr std::uint64_t kDefaultDirectAlignment = 4096;
// Durations become nanoseconds on a 64-bit monotonic clock and are added to its readings: at
// most 2^62 ns (about 146 years), with room to spare.
inline constexpr double kMaxDurationS = 4611686018.427387904;
// filter-count's scan record for reads through the page cache (--scan-record auto): counted
// while it is still in L2. With --direct, auto is --seq-record.
inline constexpr std::uint64_t kCachedScanRecordBytes = 1ull << 20;

// The metadata phases: items per rank when neither --md-items nor --md-items-total is given,
// and the bounds of their options (a tree's folders are counted per stream).
inline constexpr std::uint64_t kDefaultMdItems = 1024;
inline constexpr std::uint64_t kMaxMdItems = 1ull << 40;
inline constexpr unsigned kMaxMdDepth = 32;
inline constexpr std::uint64_t kMaxMdFolders = 1ull << 26;
inline constexpr std::uint64_t kMaxMdItemBytes = 1ull << 30;  // --md-write-bytes, --md-read-bytes

// A run id, YYYYMMDDTHHMMSS.mmmZ-xxxxxxxx, and the most a run's file names add to --dir:
// /iosweep.RUNID.POSITION (a position below kMaxRanks, at most 8 digits) or /iosweep.RUNID.shared
// (phases/file_set.cpp).
inline constexpr std::size_t kRunIdChars = 29;
inline constexpr std::size_t kFileNameAddsChars = 9 + kRunIdChars + 1 + 8;

}  // namespace iosweep
