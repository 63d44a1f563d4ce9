// Feistel permutation and record orders (see permutation.hpp).
#include "core/permutation.hpp"

#include "core/pattern.hpp"

namespace iosweep {

Permutation::Permutation(std::uint64_t n, std::uint64_t seed) : n_(n) {
  unsigned bits = 1;
  while (bits < 64 && (1ull << bits) < n)
    ++bits;
  half_bits_ = (bits + 1) / 2;
  half_mask_ = (1ull << half_bits_) - 1;
  for (int r = 0; r < 4; ++r)
    keys_[r] = mix64(seed + 0x632be59bd9b4e019ull * (r + 1));
}

std::uint64_t Permutation::encrypt(std::uint64_t x) const {
  std::uint64_t l = x >> half_bits_, r = x & half_mask_;
  for (const auto k : keys_) {
    const std::uint64_t f = mix64(r ^ k) & half_mask_;
    const std::uint64_t nl = r;
    r = l ^ f;
    l = nl;
  }
  return (l << half_bits_) | r;
}

std::uint64_t Permutation::operator()(std::uint64_t i) const {
  // Cycle walking: the Feistel domain is at most 4n, so on average fewer than 4 rounds trips.
  std::uint64_t x = encrypt(i);
  while (x >= n_)
    x = encrypt(x);
  return x;
}

RecordOrder::RecordOrder(std::uint64_t n, bool shuffled, std::uint64_t seed)
    : n_(n), shuffled_(shuffled), perm_(n == 0 ? 1 : n, seed) {
  constexpr std::uint64_t kTableLimit = 1ull << 24;
  if (shuffled_ && n_ <= kTableLimit) {
    table_.resize(n_);
    for (std::uint64_t i = 0; i < n_; ++i)
      table_[i] = static_cast<std::uint32_t>(perm_(i));
  }
}

RecordOrder RecordOrder::sequential(std::uint64_t n) {
  return RecordOrder(n, false, 0);
}
RecordOrder RecordOrder::shuffled(std::uint64_t n, std::uint64_t seed) {
  return RecordOrder(n, true, seed);
}

}  // namespace iosweep
