// Feistel permutation and record orders (see permutation.hpp).
#include "core/permutation.hpp"

#include <stdexcept>

#include "core/pattern.hpp"

namespace iosweep {

Permutation::Permutation(std::uint64_t n, std::uint64_t seed) : n_(n) {
  unsigned bits = 1;
  while (bits < 64 && (1ull << bits) < n)
    ++bits;
  half_bits_ = (bits + 1) / 2;
  half_mask_ = (1ull << half_bits_) - 1;
  for (unsigned r = 0; r < 4; ++r)
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

RecordOrder::RecordOrder(std::uint64_t n, bool shuffled, std::uint64_t seed, std::uint64_t regions)
    : n_(n), shuffled_(shuffled), perm_(n == 0 ? 1 : n, seed) {
  if (!shuffled_ && regions > 1 && n_ > 1) {
    regions_ = regions < n_ ? regions : n_;
    per_region_ = n_ / regions_;
    longer_ = n_ % regions_;
    full_rounds_ = per_region_ * regions_;
  }
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
RecordOrder RecordOrder::striped(std::uint64_t n, std::uint64_t regions) {
  return RecordOrder(n, false, 0, regions);
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> RecordOrder::ranges_done(
    std::uint64_t positions) const {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  if (shuffled_) throw std::logic_error("RecordOrder::ranges_done: a shuffled order has none");
  if (positions > n_) positions = n_;
  if (regions_ == 1) {
    if (positions > 0) out.emplace_back(0, positions);
    return out;
  }
  for (std::uint64_t r = 0; r < regions_; ++r) {
    // Whole rounds give every region one record each; then the first regions one more.
    std::uint64_t done = 0;
    if (positions <= full_rounds_) {
      done = positions / regions_ + (r < positions % regions_ ? 1 : 0);
    } else {
      done = per_region_ + (r < positions - full_rounds_ ? 1 : 0);
    }
    if (done > 0) out.emplace_back(start_of(r), start_of(r) + done);
  }
  return out;
}

std::uint64_t RecordOrder::prefix_done(std::uint64_t positions) const {
  std::uint64_t end = 0;
  for (const auto& [begin, stop] : ranges_done(positions)) {
    if (begin != end) break;
    end = stop;
  }
  return end;
}

}  // namespace iosweep
