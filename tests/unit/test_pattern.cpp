// The data model: stamps unique, key count exact, data incompressible, in-place write source
// equal to the reference content, verification catching corruption.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <set>
#include <unordered_set>

#include "core/aligned_buffer.hpp"
#include "core/pattern.hpp"

using namespace iosweep;

namespace {

std::uint64_t count_key(std::span<const std::byte> b, std::uint64_t key) {
  std::uint64_t n = 0;
  const auto* w = reinterpret_cast<const std::uint64_t*>(b.data());
  for (std::size_t i = 0; i < b.size() / 8; ++i)
    n += w[i] == key;
  return n;
}

}  // namespace

TEST(Pattern, StampsAreUniqueOverAWholeFileAndAcrossFiles) {
  const DataSpec spec{7, 0x1234, 1048576};
  const std::uint64_t blocks = (1ull << 30) / kBlockBytes;  // a 1 GiB file
  std::unordered_set<std::uint64_t> seen;
  seen.reserve(blocks * 2);
  for (std::uint64_t f = 0; f < 2; ++f)
    for (std::uint64_t b = 0; b < blocks; ++b)
      ASSERT_TRUE(seen.insert(block_stamp(spec, f, b)).second);
}

TEST(Pattern, ExpectedKeyCountIsExactForManyPeriods) {
  AlignedBuffer buf(8u << 20);
  for (std::uint64_t every : {2ull, 3ull, 511ull, 512ull, 513ull, 1000ull, 4096ull, 1048576ull}) {
    const DataSpec spec{3, 0xfeedfacecafebeefull, every};
    std::uint64_t found = 0;
    const std::uint64_t file_bytes = 24u << 20;
    for (std::uint64_t off = 0; off < file_bytes; off += buf.size()) {
      fill_blocks(spec, 5, off, buf.span());
      found += count_key(buf.span(), spec.filter_key);
    }
    EXPECT_EQ(found, expected_matches(spec, 0, file_bytes)) << "every " << every;
    EXPECT_GT(found, 0u);
  }
}

TEST(Pattern, ExpectedCountOfAnyRangeMatchesAScan) {
  const DataSpec spec{1, 99, 700};
  AlignedBuffer buf(1u << 20);
  fill_blocks(spec, 0, 0, buf.span());
  std::mt19937_64 rng(1);
  for (int i = 0; i < 200; ++i) {
    std::uint64_t a = rng() % (buf.size() / 8), b = rng() % (buf.size() / 8);
    if (a > b) std::swap(a, b);
    EXPECT_EQ(count_key(buf.span().subspan(a * 8, (b - a) * 8), 99),
              expected_matches(spec, a * 8, b * 8));
  }
}

TEST(Pattern, DataIsNotCompressibleByGzip) {
  // 64 MiB of one file through `gzip -1`: at least 99% of the size must remain.
  const DataSpec spec{11, 0xabc, 1048576};
  AlignedBuffer buf(64u << 20);
  fill_blocks(spec, 3, 0, buf.span());
  char path[] = "/tmp/iosweep-gzip-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, buf.data(), buf.size()), static_cast<ssize_t>(buf.size()));
  close(fd);
  const std::string cmd = std::string("gzip -1 -c ") + path + " | wc -c";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  unsigned long long compressed = 0;
  ASSERT_EQ(fscanf(p, "%llu", &compressed), 1);
  pclose(p);
  unlink(path);
  EXPECT_GE(static_cast<double>(compressed), 0.99 * static_cast<double>(buf.size()));
}

TEST(Pattern, PatternBufferServesExactlyTheReferenceContent) {
  const DataSpec spec{5, 0x77, 3000};
  for (std::size_t record :
       {std::size_t{4096}, std::size_t{65536}, std::size_t{16u << 20}, std::size_t{12288}}) {
    PatternBuffer src(spec, 9, record, 4);
    AlignedBuffer want(record);
    std::mt19937_64 rng(record);
    for (int i = 0; i < 24; ++i) {
      const std::uint64_t off = (rng() % 4096) * record;
      unsigned slot = 0;
      std::byte* p = src.acquire(off, record, slot);
      ASSERT_NE(p, nullptr);
      fill_blocks(spec, 9, off, want.span());
      ASSERT_EQ(std::memcmp(p, want.data(), record), 0) << "record " << record << " offset " << off;
      src.release(slot);
    }
  }
}

TEST(Pattern, ShortFilesKeepOnlyTheirOwnPartOfThePatternAndStayExact) {
  // A 1 MiB file needs 1 MiB of pattern, not 16 MiB: what 512 ranks of small files save.
  for (const std::uint64_t file : {std::uint64_t{1} << 20, std::uint64_t{3} << 20}) {
    const DataSpec spec{5, 0x77, 70000, file};
    for (const std::size_t record : {std::size_t{4096}, std::size_t{65536}, std::size_t{1} << 20}) {
      if (record > file) continue;
      EXPECT_EQ(PatternBuffer::bytes_for(record, 1, file), file) << file << " " << record;
      PatternBuffer src(spec, 9, record, 4);
      EXPECT_LE(src.memory().size(), 4 * file);
      AlignedBuffer want(record);
      std::mt19937_64 rng(record);
      for (int i = 0; i < 64; ++i) {
        const std::uint64_t off = (rng() % (file / record)) * record;
        unsigned slot = 0;
        std::byte* p = src.acquire(off, record, slot);
        ASSERT_NE(p, nullptr);
        fill_blocks(spec, 9, off, want.span());
        ASSERT_EQ(std::memcmp(p, want.data(), record), 0) << file << " " << record << " " << off;
        src.release(slot);
      }
    }
  }
}

TEST(Pattern, PatternBufferKeepsInFlightRegionsApart) {
  const DataSpec spec{5, 0x77, 1048576};
  PatternBuffer src(spec, 1, 16u << 20, 3);
  unsigned s[3];
  std::set<std::byte*> ptrs;
  for (unsigned i = 0; i < 3; ++i) {
    std::byte* p = src.acquire(i * (16ull << 20), 16u << 20, s[i]);
    ASSERT_NE(p, nullptr);
    ptrs.insert(p);
  }
  EXPECT_EQ(ptrs.size(), 3u);  // three records in flight, three distinct buffers
  unsigned extra = 0;
  EXPECT_EQ(src.acquire(3 * (16ull << 20), 16u << 20, extra), nullptr);  // depth exhausted
  src.release(s[1]);
  EXPECT_NE(src.acquire(3 * (16ull << 20), 16u << 20, extra), nullptr);
}

// --streams: writes streaming side by side from region starts a multiple of the pattern apart
// fall on the same bytes of it; the buffer keeps one copy per such stream, so none waits.
TEST(Pattern, StreamsWhoseStartsShareThePatternGetACopyEach) {
  constexpr std::uint64_t MiB = 1ull << 20, file = 1024 * MiB;
  const std::uint64_t aligned[] = {0, 64 * MiB, 128 * MiB, 192 * MiB};  // 4 regions of 64 MiB
  EXPECT_EQ(PatternBuffer::copies_for_streams(aligned, MiB, file), 4u);
  const std::uint64_t apart[] = {0, 4 * MiB, 8 * MiB, 12 * MiB};  // distinct parts of the pattern
  EXPECT_EQ(PatternBuffer::copies_for_streams(apart, MiB, file), 1u);
  const std::uint64_t wrap[] = {15 * MiB + 512 * 1024, 31 * MiB};  // overlap across the wrap
  EXPECT_EQ(PatternBuffer::copies_for_streams(wrap, MiB, file), 2u);
  EXPECT_EQ(PatternBuffer::copies_for_streams(aligned, 16 * MiB, file), 4u);
  // A file shorter than the pattern keeps only its own bytes: its regions never share them.
  const std::uint64_t small[] = {0, 256 * 1024, 512 * 1024, 768 * 1024};
  EXPECT_EQ(PatternBuffer::copies_for_streams(small, 64 * 1024, MiB), 1u);
  // With that many copies, all four aligned streams are served at once, with the right bytes.
  const DataSpec spec{5, 0x77, 3000, file};
  PatternBuffer src(spec, 2, MiB, 4, false, 4);
  AlignedBuffer want(MiB);
  unsigned slot[4];
  for (int i = 0; i < 4; ++i) {
    std::byte* p = src.acquire(aligned[i], MiB, slot[i]);
    ASSERT_NE(p, nullptr) << i;
    fill_blocks(spec, 2, aligned[i], want.span());
    ASSERT_EQ(std::memcmp(p, want.data(), MiB), 0) << i;
  }
}

TEST(Pattern, VerifyFindsTheFirstCorruptWord) {
  const DataSpec spec{2, 0x55, 1000};
  AlignedBuffer buf(64 * 1024);
  fill_blocks(spec, 4, 1u << 20, buf.span());
  Mismatch m;
  EXPECT_EQ(verify_blocks(spec, 4, 1u << 20, buf.span(), &m), 0u);
  EXPECT_FALSE(m.any);
  auto* w = reinterpret_cast<std::uint64_t*>(buf.data());
  w[1000] ^= 1;
  w[5000] ^= 1;
  EXPECT_EQ(verify_blocks(spec, 4, 1u << 20, buf.span(), &m), 2u);
  ASSERT_TRUE(m.any);
  EXPECT_EQ(m.offset, (1u << 20) + 1000 * 8);
  EXPECT_EQ(m.found ^ m.expected, 1u);
  // Another file's content is wrong everywhere: the file id is part of the data.
  Mismatch other;
  EXPECT_EQ(verify_blocks(spec, 5, 1u << 20, buf.span(), &other), 16u);
}

// The image's check is verify_bytes's, block for block: over whole blocks and over records of
// any size at any offset (ior-hard's 47008 bytes), good data and data with wrong words, with
// keys planted often enough that many blocks hold one, on a short file and a long one.
TEST(Pattern, PatternImageAgreesWithVerifyBytes) {
  std::mt19937_64 rng(5);
  for (const std::uint64_t file_bytes : {std::uint64_t{3} << 20, std::uint64_t{64} << 20}) {
    const DataSpec spec{11, 0x77, 1000, file_bytes};
    const PatternImage image(spec, 3);
    for (int round = 0; round < 200; ++round) {
      const std::uint64_t len = round % 2 ? 47008 : 16384;
      const std::uint64_t off =
          (rng() % (file_bytes - len)) / (round % 3 ? 1 : 4096) * (round % 3 ? 1 : 4096);
      std::vector<std::byte> data(len);
      fill_bytes(spec, 3, off, data);
      if (round % 4 == 1) data[rng() % len] ^= std::byte{0x40};
      if (round % 4 == 2) data[0] ^= std::byte{1};
      Mismatch a, b;
      EXPECT_EQ(image.verify(off, data, &a), verify_bytes(spec, 3, off, data, &b)) << off;
      EXPECT_EQ(a.any, b.any);
      EXPECT_EQ(a.offset, b.offset);
      EXPECT_EQ(a.found, b.found);
    }
  }
}
