// Random record orders touch every record exactly once.
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
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

// --streams: d contiguous regions streamed side by side, every record exactly once, each region
// front to back, the regions in turn.
TEST(Permutation, StripedOrderVisitsEveryRecordOnceRegionByRegionInTurn) {
  for (std::uint64_t n : {1ull, 2ull, 7ull, 64ull, 100ull, 1000ull})
    for (std::uint64_t d : {1ull, 2ull, 3ull, 8ull, 64ull, 200ull}) {
      const auto o = RecordOrder::striped(n, d);
      ASSERT_EQ(o.size(), n);
      EXPECT_FALSE(o.shuffled());
      const std::uint64_t regions = std::min(n, d);
      EXPECT_EQ(o.regions(), n > 1 ? regions : 1);
      std::vector<bool> seen(n, false);
      std::vector<std::uint64_t> starts;
      for (std::uint64_t r = 0; r < regions; ++r)
        starts.push_back(r * (n / regions) + std::min(r, n % regions));
      std::vector<std::uint64_t> next = starts;  // per region: the record it must take next
      for (std::uint64_t i = 0; i < n; ++i) {
        const auto x = o[i];
        ASSERT_LT(x, n);
        ASSERT_FALSE(seen[x]) << "n=" << n << " d=" << d;
        seen[x] = true;
        // The region of x, and x follows the previous record of its region directly.
        const auto r = static_cast<std::uint64_t>(
            std::upper_bound(starts.begin(), starts.end(), x) - starts.begin() - 1);
        EXPECT_EQ(x, next[r]) << "n=" << n << " d=" << d << " i=" << i;
        next[r] = x + 1;
        if (i < regions) {
          EXPECT_EQ(x, starts[i]) << "the first round starts every region";
        }
      }
    }
  const auto s = RecordOrder::striped(10, 3);  // regions [0,4) [4,7) [7,10)
  const std::uint64_t want[] = {0, 4, 7, 1, 5, 8, 2, 6, 9, 3};
  for (std::uint64_t i = 0; i < 10; ++i)
    EXPECT_EQ(s[i], want[i]) << i;
}

TEST(Permutation, StripedOrderSaysWhichRecordsAPrefixOfPositionsCovered) {
  const auto s = RecordOrder::striped(10, 3);  // regions [0,4) [4,7) [7,10)
  using R = std::vector<std::pair<std::uint64_t, std::uint64_t>>;
  EXPECT_EQ(s.ranges_done(0), R{});
  EXPECT_EQ(s.ranges_done(2), (R{{0, 1}, {4, 5}}));
  EXPECT_EQ(s.ranges_done(7), (R{{0, 3}, {4, 6}, {7, 9}}));
  EXPECT_EQ(s.ranges_done(9), (R{{0, 3}, {4, 7}, {7, 10}}));
  EXPECT_EQ(s.ranges_done(10), (R{{0, 4}, {4, 7}, {7, 10}}));
  EXPECT_EQ(s.prefix_done(7), 3u);
  EXPECT_EQ(s.prefix_done(9), 3u);
  EXPECT_EQ(s.prefix_done(10), 10u);
  // Every prefix of positions: the ranges hold exactly the records those positions visited.
  for (std::uint64_t d : {1ull, 4ull, 7ull})
    for (std::uint64_t p = 0; p <= 30; ++p) {
      const auto o = RecordOrder::striped(30, d);
      std::vector<bool> visited(30, false), covered(30, false);
      for (std::uint64_t i = 0; i < p; ++i)
        visited[o[i]] = true;
      for (const auto& [b, e] : o.ranges_done(p))
        for (auto x = b; x < e; ++x)
          covered[x] = true;
      EXPECT_EQ(visited, covered) << "d=" << d << " p=" << p;
    }
  const auto q = RecordOrder::sequential(5);
  EXPECT_EQ(q.ranges_done(3), (R{{0, 3}}));
  EXPECT_EQ(q.prefix_done(3), 3u);
}
