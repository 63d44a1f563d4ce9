// Bytes and operations completed per fixed time bin (--timeseries-bin) during one timed phase of
// one rank. Bin i covers [i * bin, (i + 1) * bin) from the rank's exit from the phase barrier;
// an operation counts in the bin of its completion.
#pragma once

#include <cstdint>
#include <vector>

namespace iosweep {

class TimeSeries {
 public:
  explicit TimeSeries(std::uint64_t bin_ns = 100'000'000) : bin_ns_(bin_ns ? bin_ns : 1) {
    bytes_.reserve(1024);
    ops_.reserve(1024);
  }
  void add(std::uint64_t t_rel_ns, std::uint64_t bytes) {
    const std::uint64_t i = t_rel_ns / bin_ns_;
    if (i >= bytes_.size()) {
      bytes_.resize(i + 1, 0);
      ops_.resize(i + 1, 0);
    }
    bytes_[i] += bytes;
    ops_[i] += 1;
  }
  void clear() {
    bytes_.clear();
    ops_.clear();
  }
  std::uint64_t bin_ns() const { return bin_ns_; }
  const std::vector<std::uint64_t>& bytes() const { return bytes_; }
  const std::vector<std::uint64_t>& ops() const { return ops_; }

 private:
  std::uint64_t bin_ns_;
  std::vector<std::uint64_t> bytes_, ops_;
};

}  // namespace iosweep
