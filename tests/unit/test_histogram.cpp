// Latency histogram: bucket layout, percentiles against a sorted-array reference, merging.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "core/histogram.hpp"

using namespace iosweep;
using H = LatencyHistogram;

TEST(Histogram, BucketsAreContiguousAndNarrow) {
  for (std::size_t i = 0; i + 1 < H::kBuckets; ++i) {
    ASSERT_EQ(H::bucket_upper(i), H::bucket_lower(i + 1)) << i;
    if (H::bucket_lower(i) >= 100) {
      const double width = static_cast<double>(H::bucket_upper(i) - H::bucket_lower(i));
      ASSERT_LE(width / static_cast<double>(H::bucket_lower(i)), 1.0 / 64 + 1e-12) << i;
    }
  }
  EXPECT_GE(H::bucket_upper(H::kBuckets - 1), 100ull * 1000000000ull);  // reaches beyond 100 s
  for (std::uint64_t v :
       {0ull, 1ull, 63ull, 64ull, 100ull, 12345ull, 999999999ull, 100000000000ull}) {
    const auto b = H::bucket_of(v);
    EXPECT_LE(H::bucket_lower(b), v);
    EXPECT_LT(v, H::bucket_upper(b));
  }
}

TEST(Histogram, PercentilesWithinOnePercentOfSortedReference) {
  std::mt19937_64 rng(3);
  std::lognormal_distribution<double> dist(std::log(50000.0), 1.5);
  std::vector<std::uint64_t> v;
  H h;
  for (int i = 0; i < 200000; ++i) {
    const auto x = static_cast<std::uint64_t>(std::clamp(dist(rng), 100.0, 1e11));
    v.push_back(x);
    h.record(x);
  }
  std::sort(v.begin(), v.end());
  for (double q : {0.5, 0.9, 0.99, 0.999, 0.9999}) {
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size()))) - 1;
    const double ref = static_cast<double>(v[rank]);
    EXPECT_NEAR(h.percentile_ns(q), ref, ref * 0.01) << "q=" << q;
  }
  EXPECT_EQ(h.max_ns(), v.back());
  EXPECT_EQ(h.count(), v.size());
}

TEST(Histogram, MergeEqualsRecordingEverythingInOne) {
  H a, b, all;
  std::mt19937_64 rng(9);
  for (int i = 0; i < 5000; ++i) {
    const std::uint64_t x = rng() % 10000000;
    (i % 2 ? a : b).record(x);
    all.record(x);
  }
  a.merge(b);
  EXPECT_EQ(a.counts(), all.counts());
  EXPECT_EQ(a.max_ns(), all.max_ns());
  EXPECT_DOUBLE_EQ(a.mean_ns(), all.mean_ns());
  EXPECT_DOUBLE_EQ(a.percentile_ns(0.99),
                   percentile_from_counts(all.counts().data(), H::kBuckets, 0.99, all.max_ns()));
}
