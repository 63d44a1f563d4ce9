// What one rank measured in one phase at one point: trivially copyable, gathered to rank 0
// with one MPI_Gather per phase and point. Times are seconds from the rank's exit from the
// phase's starting barrier.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

namespace iosweep {

struct RankSample {
  std::int32_t rank = -1;        // world rank
  std::int32_t position = -1;    // position in the activation order
  std::int32_t node = -1;        // node id
  std::int32_t file = -1;        // position of the file this rank read or wrote
  std::int32_t folder = -1;      // index into --dir's folders of that file's folder
  std::int32_t stonewalled = 0;  // 1 when --stonewall stopped the phase early

  std::uint64_t bytes = 0;       // moved inside the timed window
  std::uint64_t data_bytes = 0;  // what the phase set out to move: its file's (region's) data
  std::uint64_t ops = 0;
  std::uint64_t t_start_unix_ns = 0;  // wall clock at the start of the timed window
  double elapsed_s = 0;               // open + io + sync + close
  double open_s = 0;
  double io_s = 0;
  double sync_s = 0;
  double close_s = 0;

  // filter-count
  std::uint64_t rows = 0;
  std::uint64_t matches = 0;
  std::uint64_t expected_matches = 0;
  std::uint64_t mpi_bytes = 0;         // sent over MPI in the window (a count: 8)
  std::uint64_t mpi_remote_bytes = 0;  // of which to a rank on another node
  double io_wait_s = 0;                // waiting for reads to complete
  double compute_s = 0;                // counting

  // --verify (inside the timed window, reported separately)
  double verify_s = 0;
  std::uint64_t bad_blocks = 0;
  std::uint64_t mismatch_offset = 0;
  std::uint64_t mismatch_expected = 0;
  std::uint64_t mismatch_found = 0;

  // --stonewall-wearout (after the timed window)
  std::uint64_t wearout_bytes = 0;
  std::uint64_t wearout_ops = 0;
  double wearout_s = 0;

  std::uint64_t latency_max_ns = 0;
  // The longest time one operation of the rank stayed outstanding in the phase (its preparation
  // and cleanup included), as its stall watch saw it, from kStallNoticeS (or --stall-limit when
  // smaller) on; 0 when none was that slow.
  double stall_s = 0;

  // Where the bytes came from (untimed; NaN where not measured)
  double cached_fraction = std::numeric_limits<double>::quiet_NaN();     // reads, before
  double unflushed_fraction = std::numeric_limits<double>::quiet_NaN();  // writes, after close

  // What the rank used (untimed; getrusage and smaps_rollup)
  double cpu_s = 0;                  // CPU time, all its threads, during the timed window
  std::uint64_t rss_peak_bytes = 0;  // peak resident memory so far (shared pages included)
  std::uint64_t private_bytes = 0;   // memory of its own at the end of the window

  // Metadata phases: what this rank was to make at the point (its items, the folders of its
  // trees) and its trees' branch; `file` is the position whose items it touched.
  std::uint64_t md_items = 0;
  std::uint64_t md_folders = 0;
  std::uint64_t md_branch = 0;

  // The CPU time of cpu_s split (os/process.hpp, CpuClock), and the time the rank's threads
  // waited for a CPU in the window (NaN where the kernel keeps no schedstat).
  double cpu_user_s = 0;
  double cpu_sys_s = 0;
  double cpu_queued_s = std::numeric_limits<double>::quiet_NaN();
};
static_assert(std::is_trivially_copyable_v<RankSample>);

}  // namespace iosweep
