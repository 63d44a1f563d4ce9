// Latency histogram with fixed log-linear buckets, in the spirit of fio's stat.h and
// HdrHistogram.
//
// Buckets: values below 64 ns have one bucket per nanosecond. Above, every power-of-two range
// [64 * 2^g, 128 * 2^g) is cut into 64 equal buckets of width 2^g, for g = 0 .. 31, so the
// last bucket ends at 2^38 ns (about 275 s); larger values land in the last bucket (the exact
// maximum is kept separately). A bucket is at most 1/64 of its lower bound wide, and a
// percentile is reported as the bucket's midpoint, so the relative error is at most 1/128
// (0.8%) over the whole range from 100 ns to 275 s. 2112 buckets of 8 bytes: 16.5 KiB per
// rank, merged across ranks by summing counts (one MPI_Reduce per point, never per operation).
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace iosweep {

class LatencyHistogram {
 public:
  static constexpr unsigned kSubBits = 6;
  static constexpr std::uint64_t kSub = 1ull << kSubBits;  // 64 buckets per power of two
  static constexpr unsigned kGroups = 32;
  static constexpr std::size_t kBuckets = kSub * (kGroups + 1);

  static std::size_t bucket_of(std::uint64_t ns) {
    if (ns < kSub) return static_cast<std::size_t>(ns);
    const unsigned msb = 63u - static_cast<unsigned>(std::countl_zero(ns));
    const unsigned g = msb - kSubBits;
    if (g >= kGroups) return kBuckets - 1;
    return static_cast<std::size_t>((g + 1) * kSub + ((ns >> g) - kSub));
  }
  static std::uint64_t bucket_lower(std::size_t i) {
    if (i < kSub) return i;
    const std::uint64_t g = i / kSub - 1, sub = i % kSub;
    return (kSub + sub) << g;
  }
  static std::uint64_t bucket_upper(std::size_t i) {  // exclusive
    if (i < kSub) return i + 1;
    const std::uint64_t g = i / kSub - 1, sub = i % kSub;
    return (kSub + sub + 1) << g;
  }

  void record(std::uint64_t ns) { record_at(bucket_of(ns), ns); }
  // `bucket` is bucket_of(ns), computed once by a caller that also bins the value elsewhere.
  void record_at(std::size_t bucket, std::uint64_t ns) {
    ++counts_[bucket];
    sum_ns_ += ns;
    if (ns > max_ns_) max_ns_ = ns;
  }
  void merge(const LatencyHistogram& o);
  void clear() { *this = LatencyHistogram{}; }

  std::uint64_t count() const;
  std::uint64_t max_ns() const { return max_ns_; }
  double mean_ns() const;
  // q in [0, 1]; the midpoint of the bucket holding the q-quantile, never above the maximum.
  double percentile_ns(double q) const;

  // Raw access for MPI reduction and storage: kBuckets counts followed by the sum.
  std::array<std::uint64_t, kBuckets>& counts() { return counts_; }
  const std::array<std::uint64_t, kBuckets>& counts() const { return counts_; }
  std::uint64_t& sum_ns() { return sum_ns_; }
  std::uint64_t sum_ns() const { return sum_ns_; }
  std::uint64_t& max_ns_ref() { return max_ns_; }

 private:
  std::array<std::uint64_t, kBuckets> counts_{};
  std::uint64_t sum_ns_ = 0;
  std::uint64_t max_ns_ = 0;
};

// Percentile from bare counts (as stored in HDF5), same rule as LatencyHistogram.
double percentile_from_counts(const std::uint64_t* counts, std::size_t n, double q,
                              std::uint64_t max_ns);

}  // namespace iosweep
