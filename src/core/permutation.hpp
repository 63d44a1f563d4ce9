// The order in which a phase visits its records. Random phases touch every record exactly
// once in a per-rank shuffled order (as IOzone's random test and IOR -z do). The shuffle is a
// keyed Feistel bijection on [0, n) with cycle walking, so it needs no memory; for up to
// 16 Mi records it is expanded into a table before the timed window, so the timed loop only
// reads an array. Sequential phases go front to back, or with --streams over d contiguous
// regions of the file side by side (striped: each region front to back, the regions taken in
// turn), so that d requests in flight are d sequential streams.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace iosweep {

class Permutation {
 public:
  Permutation(std::uint64_t n, std::uint64_t seed);
  std::uint64_t operator()(std::uint64_t i) const;
  std::uint64_t size() const { return n_; }

 private:
  std::uint64_t encrypt(std::uint64_t x) const;
  std::uint64_t n_;
  unsigned half_bits_;
  std::uint64_t half_mask_;
  std::uint64_t keys_[4];
};

class RecordOrder {
 public:
  static RecordOrder sequential(std::uint64_t n);
  static RecordOrder shuffled(std::uint64_t n, std::uint64_t seed);
  // The n records split into `regions` contiguous regions (the first n mod regions of them one
  // record longer; with fewer records than regions, one record each), visited in turn: region
  // 0's first record, region 1's first, ..., region 0's second, ...; a region that is done is
  // skipped. striped(n, 1) is sequential(n).
  static RecordOrder striped(std::uint64_t n, std::uint64_t regions);

  std::uint64_t size() const { return n_; }
  bool shuffled() const { return shuffled_; }
  std::uint64_t regions() const { return regions_; }
  // The first record of a region (of a sequential order: 0).
  std::uint64_t region_start(std::uint64_t region) const { return start_of(region); }
  std::uint64_t operator[](std::uint64_t i) const {
    if (!shuffled_) return regions_ == 1 ? i : striped_at(i);
    if (!table_.empty()) return table_[i];
    return perm_(i);
  }
  // The records the first `positions` positions of a sequential or striped order cover, as
  // ranges [begin, end) of record indices, one per region (empty ones left out).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges_done(std::uint64_t positions) const;
  // How many records from the file's start the first `positions` positions cover without a gap.
  std::uint64_t prefix_done(std::uint64_t positions) const;

 private:
  RecordOrder(std::uint64_t n, bool shuffled, std::uint64_t seed, std::uint64_t regions = 1);
  std::uint64_t start_of(std::uint64_t region) const {
    return region * per_region_ + (region < longer_ ? region : longer_);
  }
  std::uint64_t striped_at(std::uint64_t i) const {
    if (i < full_rounds_)
      return start_of(i % regions_) + i / regions_;   // every region still has records
    return start_of(i - full_rounds_) + per_region_;  // the longer regions' last records
  }
  std::uint64_t n_;
  bool shuffled_;
  std::uint64_t regions_ = 1;
  std::uint64_t per_region_ = 0;   // records of the shorter regions
  std::uint64_t longer_ = 0;       // regions with one record more (the first ones)
  std::uint64_t full_rounds_ = 0;  // positions before the first region runs out
  Permutation perm_;
  std::vector<std::uint32_t> table_;
};

}  // namespace iosweep
