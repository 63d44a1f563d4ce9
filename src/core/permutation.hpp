// The order in which a phase visits its records. Random phases touch every record exactly
// once in a per-rank shuffled order (as IOzone's random test and IOR -z do). The shuffle is a
// keyed Feistel bijection on [0, n) with cycle walking, so it needs no memory; for up to
// 16 Mi records it is expanded into a table before the timed window, so the timed loop only
// reads an array.
#pragma once

#include <cstdint>
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

  std::uint64_t size() const { return n_; }
  bool shuffled() const { return shuffled_; }
  std::uint64_t operator[](std::uint64_t i) const {
    if (!shuffled_) return i;
    if (!table_.empty()) return table_[i];
    return perm_(i);
  }

 private:
  RecordOrder(std::uint64_t n, bool shuffled, std::uint64_t seed);
  std::uint64_t n_;
  bool shuffled_;
  Permutation perm_;
  std::vector<std::uint32_t> table_;
};

}  // namespace iosweep
