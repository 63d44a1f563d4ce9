// Size, rate, duration and count parsing: one feature per test.
#include <gtest/gtest.h>

#include "core/units.hpp"

using namespace iosweep;

TEST(Units, SizesAcceptShortAndIecSuffixesAsBinary) {
  const std::pair<const char*, std::uint64_t> cases[] = {
      {"4096", 4096},       {"4k", 4096},       {"4K", 4096},         {"4KiB", 4096},
      {"4kb", 4096},        {"16m", 16u << 20}, {"16MiB", 16u << 20}, {"1g", 1ull << 30},
      {"1GiB", 1ull << 30}, {"2t", 2ull << 40}, {"1.5k", 1536},       {"8MiB", 8u << 20}};
  for (const auto& [text, want] : cases) {
    std::uint64_t got = 0;
    EXPECT_EQ(parse_size(text, got), "") << text;
    EXPECT_EQ(got, want) << text;
  }
}

TEST(Units, SizesRejectGarbageNegativeUnknownUnitAndOverflow) {
  for (const char* bad : {"", "abc", "-4k", "4q", "k", "1.3b", "99999999999TiB",
                          "18446744073709551616", "4 k b", " 8MiB", "8 MiB", "8MiB ", "8\tm"}) {
    std::uint64_t got = 7;
    EXPECT_NE(parse_size(bad, got), "") << bad;
    EXPECT_EQ(got, 7u) << bad;
  }
  std::uint64_t v = 0;
  EXPECT_NE(parse_size("99999999999TiB", v).find("too large"), std::string::npos);
}

TEST(Units, IopsTakeDecimalPrefixesAndAnOptionalUnit) {
  const std::pair<const char*, double> cases[] = {
      {"1500000", 1.5e6}, {"1.5M", 1.5e6},   {"1.5m", 1.5e6},      {"800k", 8e5},
      {"800K", 8e5},      {"800kIOPS", 8e5}, {"1.5MIOPS", 1.5e6},  {"800k/s", 8e5},
      {"1.5e6", 1.5e6},   {"2G", 2e9},       {"120000iops", 1.2e5}};
  for (const auto& [text, want] : cases) {
    double got = 0;
    EXPECT_EQ(parse_iops(text, got), "") << text;
    EXPECT_DOUBLE_EQ(got, want) << text;
  }
}

TEST(Units, IopsRefuseWhatIsNotARateOfOperations) {
  for (const char* bad :
       {"", "k", "fast", "1.5MiB/s", "1.5Ki", "0", "-5k", "1.5 M", "inf", "1e", "1.5MB", "IOPS"}) {
    double got = 7;
    EXPECT_NE(parse_iops(bad, got), "") << bad;
    EXPECT_EQ(got, 7) << bad;
  }
  double v = 0;
  EXPECT_NE(parse_iops("0", v).find("must be positive"), std::string::npos);
  EXPECT_NE(parse_iops("fast", v).find("not a rate of operations"), std::string::npos);
}

TEST(Units, RatesFollowVendorDecimalAndIecBinary) {
  double r = 0;
  EXPECT_EQ(parse_rate("5.2GB/s", r), "");
  EXPECT_DOUBLE_EQ(r, 5.2e9);
  EXPECT_EQ(parse_rate("800MiB/s", r), "");
  EXPECT_DOUBLE_EQ(r, 800.0 * 1048576.0);
  EXPECT_NE(parse_rate("fast", r), "");
  EXPECT_NE(parse_rate("0GB/s", r), "");
}

TEST(Units, RatesTellBitsFromBytesAsNetworkingWritesThem) {
  double r = 0;
  EXPECT_EQ(parse_rate("5Gb/s", r), "");  // bits: a 5 Gb/s link moves 625 MB/s
  EXPECT_DOUBLE_EQ(r, 5e9 / 8);
  EXPECT_EQ(parse_rate("40Gbps", r), "");
  EXPECT_DOUBLE_EQ(r, 5e9);
  EXPECT_EQ(parse_rate("100Gbit/s", r), "");
  EXPECT_DOUBLE_EQ(r, 12.5e9);
  EXPECT_EQ(parse_rate("5GBps", r), "");
  EXPECT_DOUBLE_EQ(r, 5e9);
  EXPECT_EQ(parse_rate("1.5e9B/s", r), "");
  EXPECT_DOUBLE_EQ(r, 1.5e9);
  // A rate is per second: a bare size is refused rather than read as one.
  EXPECT_NE(parse_rate("5GB", r).find("/s"), std::string::npos);
  // Out of range is out of range, not an unknown unit.
  EXPECT_NE(parse_rate("1e400GB/s", r).find("out of range"), std::string::npos);
  EXPECT_NE(parse_rate("1e300TB/s", r).find("out of range"), std::string::npos);
  EXPECT_NE(parse_rate("5XB/s", r).find("unknown rate unit"), std::string::npos);
}

TEST(Units, DurationsAndCounts) {
  double s = 0;
  EXPECT_EQ(parse_seconds("100ms", s), "");
  EXPECT_DOUBLE_EQ(s, 0.1);
  EXPECT_EQ(parse_seconds("2", s), "");
  EXPECT_DOUBLE_EQ(s, 2.0);
  EXPECT_NE(parse_seconds("2 fortnights", s), "");
  std::uint64_t n = 0;
  EXPECT_EQ(parse_count("32", n), "");
  EXPECT_EQ(n, 32u);
  EXPECT_NE(parse_count("-1", n), "");
  EXPECT_NE(parse_count("3x", n), "");
}

TEST(Units, FormatSize) {
  EXPECT_EQ(format_size(16u << 20), "16 MiB");
  EXPECT_EQ(format_size(4096), "4 KiB");
  EXPECT_EQ(format_size(12), "12 B");
  // Never a rounded figure that hides a remainder: 4100 KiB is not "4.00 MiB".
  EXPECT_EQ(format_size(4100u << 10), "4100 KiB");
  EXPECT_EQ(format_size(1536), "1.50 KiB (1536 bytes)");
  EXPECT_EQ(format_size((1ull << 30) + 1), "1.00 GiB (1073741825 bytes)");
}

TEST(Units, WhiteSpaceIsRefusedAlikeByEveryParser) {
  std::uint64_t n = 0;
  double d = 0;
  for (const char* spaced : {" 4", "4 ", "4 k"}) {
    EXPECT_NE(parse_size(spaced, n).find("white space"), std::string::npos) << spaced;
    EXPECT_NE(parse_count(spaced, n).find("white space"), std::string::npos) << spaced;
    EXPECT_NE(parse_seconds(spaced, d).find("white space"), std::string::npos) << spaced;
    EXPECT_NE(parse_rate(spaced, d).find("white space"), std::string::npos) << spaced;
  }
}
