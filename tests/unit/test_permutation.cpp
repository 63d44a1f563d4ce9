// Random record orders touch every record exactly once.
#include <gtest/gtest.h>

#include <vector>

#include "core/permutation.hpp"

using namespace iosweep;

TEST(Permutation, IsABijectionForAwkwardSizes) {
  for (std::uint64_t n : {1ull, 2ull, 3ull, 7ull, 100ull, 4096ull, 65537ull}) {
    Permutation p(n, 42);
    std::vector<bool> seen(n, false);
    for (std::uint64_t i = 0; i < n; ++i) {
      const auto x = p(i);
      ASSERT_LT(x, n);
      ASSERT_FALSE(seen[x]) << "n=" << n;
      seen[x] = true;
    }
  }
}

TEST(Permutation, ShuffledOrderDiffersBySeedAndFromIdentity) {
  const auto a = RecordOrder::shuffled(1000, 1), b = RecordOrder::shuffled(1000, 2);
  int same_ab = 0, fixed = 0;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    same_ab += a[i] == b[i];
    fixed += a[i] == i;
  }
  EXPECT_LT(same_ab, 20);
  EXPECT_LT(fixed, 20);
  const auto s = RecordOrder::sequential(10);
  for (std::uint64_t i = 0; i < 10; ++i)
    EXPECT_EQ(s[i], i);
}
