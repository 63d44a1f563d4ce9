// Reduction of one point (phase x active ranks x repetition) from per-rank samples to the rows
// that are printed and stored. Pure arithmetic: no MPI, unit-tested directly.
//
// Drives: a rank's bytes are claimed for the device holding the folder of the file it read or
// wrote, on its node; a drive (one device of one kernel, possibly under several emulated nodes)
// sums its rows' claims, and its own counters (its counted row's) are set against them.
//
// Timing windows (README, "The table"): every rank times open -> I/O -> fsync -> close from its
// exit from the phase barrier. wall = max elapsed; bandwidth = total bytes / wall (IOR); children =
// sum of bytes_i / elapsed_i (IOzone's "Children see"); first-done and the IOzone-equivalent
// stonewalled rate count what every rank had moved when the first rank finished, read from the
// time series. Metadata rows: the same window, operations instead of bytes (sweep/reducer.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/histogram.hpp"
#include "model/config.hpp"
#include "model/point.hpp"
#include "model/sample.hpp"

namespace iosweep {

// A time-series bin's latency figures, ns (NaN percentiles for an empty bin).
struct BinLatency {
  double p50_ns = 0, p99_ns = 0, max_ns = 0;
};

struct PointInput {
  std::uint32_t point = 0;
  std::uint32_t step = 0;      // the step of the run
  std::uint32_t plan_row = 0;  // the phase's row in the plan table
  PhaseId phase = 0;
  EngineId engine = 0;
  int ranks = 1;
  unsigned point_depth = 1;  // the point's depth per rank (--iodepth, or streams / ranks)
  unsigned iodepth = 1;      // what the phase kept in flight per rank: the point's depth, or
                             // fewer when the phase has fewer records than that
  int nodes = 1;
  int repetition = 0;
  std::vector<RankSample> samples;                       // one per active rank
  LatencyHistogram latency;                              // merged over ranks
  std::vector<std::vector<std::uint64_t>> series_bytes;  // per sample, per bin
  std::vector<std::vector<std::uint64_t>> series_ops;
  std::vector<std::vector<BinLatency>> series_latency;  // per sample, per bin: its own figures
  std::vector<BinLatency> merged_latency;               // per bin, every rank merged
  double bin_s = 0.1;
  std::uint64_t total_matches = 0;  // filter-count: the MPI_Reduce sum
  std::uint64_t order_seed = 0;
  // One per (node sampled, device), `counted` and `drive` already decided; the folders on each
  // as a bit mask of --dir's indexes (index = devices), which the ranks' folders are matched to.
  std::vector<DeviceRow> devices;
  std::vector<std::uint64_t> device_folders;
  bool device_measured = false;     // false: no block device (NaN in the summary)
  std::vector<WireRow> wire;        // one per node sampled, `counted` already decided
  bool wire_measured = false;       // false: no storage interface sampled (NaN in the summary)
  bool writes = false;              // the phase's direction, for device_fraction
  bool creates = false;             // the phase makes its files (their data is all it writes)
  bool metadata = false;            // a metadata phase: per-operation provenance, no fractions
  bool lookup = false;              // md-stat, md-read: the device's reads are what counts
  std::uint8_t cache_drop = 0;      // 0 not asked, 1 every node dropped its caches, 2 refused
  std::string md_fs_type;           // the metadata folder's mount type on rank 0's node
  std::uint64_t md_item_bytes = 0;  // md-read's or md-create's bytes per item (0: none)
  double overhead_s = 0;            // rank 0's time outside the windows and its preparation
  std::uint64_t full_bytes = 0;     // what the ranks would move were their files whole
  // Collective MPI-IO: the bytes of the shared file, whether O_DIRECT, and each node's resident
  // bytes of it before and after a read (aggregators read for every rank on their own nodes).
  bool collective = false;
  bool direct = false;
  double shared_file_bytes = 0;
  std::map<int, std::pair<double, double>> node_cached;
  std::vector<std::string> notes;  // what the point knows of itself (a depth it could not keep)
  // --rated-bw (its two rates: sequential, random) and --rated-iops; 0 when not given.
  double rated_bw_Bps = 0, rated_bw2_Bps = 0, rated_iops = 0;
};

// A window shorter than this, or one operation taking more than kShortWindowOpShare of it, is
// too short for its figure to be stable: a scheduler time slice (a few ms), the barrier's exit
// skew between ranks, one device flush or one slow request moves it by several percent. The row
// says so in its notes (results/README.md, "Notes").
inline constexpr double kShortWindowS = 0.1;
inline constexpr double kShortWindowOpShare = 0.1;

PointResult reduce_point(const PointInput& in);

// Bytes a rank had moved `t` seconds after its start, from its time-series bins of width
// `bin_s`, completions assumed spread evenly over each bin up to the rank's own end.
double bytes_by(const std::vector<std::uint64_t>& bins, double bin_s, double elapsed_s, double t);

}  // namespace iosweep
