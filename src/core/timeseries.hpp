// Bytes, operations and latency per fixed time bin (--timeseries-bin) during one timed phase of
// one rank. Bin i covers [i * bin, (i + 1) * bin) from the rank's exit from the phase barrier;
// an operation counts in the bin of its completion.
//
// Latency per bin: a coarser copy of the phase's histogram (core/histogram.hpp), 16 buckets per
// power of two instead of 64 (a fine bucket's index shifted right by 2), so that a bin costs 528
// 32-bit counts (2112 bytes per bin and rank: 1.3 MB per minute of phase at the default 100 ms)
// and a percentile is its coarse bucket's midpoint: a bucket is at most 1/16 of its lower bound
// wide, an error of at most 3.1% (0.8% for the phase's own histogram). The exact maximum of
// each bin is kept beside. Bins of all ranks merge exactly by adding their counts, as the
// phase's histograms do (sweep/gather.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/histogram.hpp"

namespace iosweep {

class TimeSeries {
 public:
  static constexpr unsigned kCoarseShift = 2;
  static constexpr std::size_t kBinBuckets = LatencyHistogram::kBuckets >> kCoarseShift;
  using BinCounts = std::array<std::uint32_t, kBinBuckets>;

  explicit TimeSeries(std::uint64_t bin_ns = 100'000'000) : bin_ns_(bin_ns ? bin_ns : 1) {
    bytes_.reserve(1024);
    ops_.reserve(1024);
    latency_.reserve(64);
    max_ns_.reserve(1024);
  }
  // One operation completed `t_rel_ns` after the start, of `latency_ns` (in the phase
  // histogram's bucket `fine_bucket`, LatencyHistogram::bucket_of(latency_ns)).
  void add(std::uint64_t t_rel_ns, std::uint64_t bytes, std::size_t fine_bucket,
           std::uint64_t latency_ns) {
    const std::uint64_t i = t_rel_ns / bin_ns_;
    if (i >= bytes_.size()) grow(i + 1);
    bytes_[i] += bytes;
    ops_[i] += 1;
    ++latency_[i][fine_bucket >> kCoarseShift];
    if (latency_ns > max_ns_[i]) max_ns_[i] = latency_ns;
  }
  void clear() {
    bytes_.clear();
    ops_.clear();
    latency_.clear();
    max_ns_.clear();
  }
  std::uint64_t bin_ns() const { return bin_ns_; }
  const std::vector<std::uint64_t>& bytes() const { return bytes_; }
  const std::vector<std::uint64_t>& ops() const { return ops_; }
  const std::vector<BinCounts>& latency() const { return latency_; }
  const std::vector<std::uint64_t>& max_ns() const { return max_ns_; }

  // The bounds of coarse bucket j, in ns (upper exclusive), as LatencyHistogram's.
  static std::uint64_t bucket_lower(std::size_t j) {
    return LatencyHistogram::bucket_lower(j << kCoarseShift);
  }
  static std::uint64_t bucket_upper(std::size_t j) {
    return LatencyHistogram::bucket_upper(((j + 1) << kCoarseShift) - 1);
  }
  // The q-quantile of a bin's counts: the midpoint of its coarse bucket, never above `max_ns`;
  // NaN for an empty bin.
  static double percentile_ns(const BinCounts& counts, double q, std::uint64_t max_ns);

 private:
  void grow(std::size_t bins) {
    bytes_.resize(bins, 0);
    ops_.resize(bins, 0);
    latency_.resize(bins, BinCounts{});
    max_ns_.resize(bins, 0);
  }
  std::uint64_t bin_ns_;
  std::vector<std::uint64_t> bytes_, ops_;
  std::vector<BinCounts> latency_;
  std::vector<std::uint64_t> max_ns_;
};

}  // namespace iosweep
