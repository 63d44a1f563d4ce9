// Every count kernel against the scalar reference, at every alignment and tail length.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "core/filter_kernel.hpp"

using namespace iosweep;

namespace {

std::uint64_t reference(const std::uint64_t* w, std::size_t n, std::uint64_t key) {
  std::uint64_t c = 0;
  for (std::size_t i = 0; i < n; ++i)
    c += w[i] == key;
  return c;
}

void check_path(FilterKernel k) {
  if (!filter_kernel_supported(k)) GTEST_SKIP() << "this CPU has no " << filter_kernel_name(k);
  const CountFn fn = filter_count_fn(k);
  std::mt19937_64 rng(static_cast<unsigned>(k) + 1);
  const std::uint64_t key = 0xfeedfacecafebeefull;
  std::vector<std::uint64_t> buf(4096 + 128);
  for (auto& w : buf)
    w = rng();
  for (std::size_t i = 0; i < buf.size(); i += 1 + rng() % 13)
    buf[i] = key;
  for (std::size_t align = 0; align < 8; ++align)
    for (std::size_t tail = 0; tail < 64; ++tail)
      for (std::size_t body :
           {std::size_t{0}, std::size_t{64}, std::size_t{1000}, std::size_t{4000}}) {
        const std::size_t n = body + tail;
        ASSERT_EQ(fn(buf.data() + align, n, key), reference(buf.data() + align, n, key))
            << filter_kernel_name(k) << " align " << align << " n " << n;
      }
}

}  // namespace

TEST(FilterKernel, ScalarMatchesReference) {
  check_path(FilterKernel::scalar);
}
TEST(FilterKernel, Avx2MatchesReference) {
  check_path(FilterKernel::avx2);
}
TEST(FilterKernel, Avx512MatchesReference) {
  check_path(FilterKernel::avx512);
}

TEST(FilterKernel, AutoPicksASupportedPathAndNamesParse) {
  const FilterKernel k = resolve_filter_kernel(FilterKernel::automatic);
  EXPECT_NE(k, FilterKernel::automatic);
  EXPECT_TRUE(filter_kernel_supported(k));
  FilterKernel parsed;
  EXPECT_TRUE(parse_filter_kernel("avx2", parsed));
  EXPECT_EQ(parsed, FilterKernel::avx2);
  EXPECT_FALSE(parse_filter_kernel("sse9", parsed));
}
