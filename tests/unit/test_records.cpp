// Records of any byte size (IOR's -t 47008): the data pattern's byte-exact paths hold the same
// bytes at the same file positions as the block paths, the pattern buffer serves them in place
// without touching its neighbours in flight, verification sees every byte of them, and a shared
// file puts every rank's records where IOR's offset arithmetic puts them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "core/pattern.hpp"
#include "phases/phase.hpp"

using namespace iosweep;

namespace {

constexpr std::uint64_t kIorHard = 47008;  // IO500's ior-hard transfer: 11 blocks and 1952 bytes

// The reference: the file's bytes [offset, offset + length) cut out of whole blocks.
std::vector<std::byte> reference(const DataSpec& spec, std::uint64_t file, std::uint64_t offset,
                                 std::size_t length) {
  const std::uint64_t first = offset / kBlockBytes * kBlockBytes;
  const std::uint64_t end = (offset + length + kBlockBytes - 1) / kBlockBytes * kBlockBytes;
  std::vector<std::uint64_t> words(static_cast<std::size_t>(end - first) / 8);
  const std::span<std::byte> blocks{reinterpret_cast<std::byte*>(words.data()), words.size() * 8};
  fill_blocks(spec, file, first, blocks);
  const std::byte* from = blocks.data() + (offset - first);
  return {from, from + length};
}

// Specs whose keys land often (straddling records and blocks) or once, mid-file.
std::vector<DataSpec> specs(std::uint64_t file_bytes) {
  return {DataSpec{5, 0x77, 37, file_bytes},
          DataSpec{9, 0xfeedfacecafebeefull, 1u << 30, file_bytes}};
}

}  // namespace

TEST(Records, FillBytesIsTheBlocksBytesAtAnyOffsetAndLength) {
  std::mt19937_64 rng(3);
  for (const DataSpec& spec : specs(64u << 20))
    for (int i = 0; i < 200; ++i) {
      const std::uint64_t offset = rng() % (40u << 20);
      const std::size_t length = 1 + static_cast<std::size_t>(rng() % (3 * kIorHard));
      std::vector<std::byte> got(length);
      fill_bytes(spec, 4, offset, got);
      ASSERT_EQ(got, reference(spec, 4, offset, length)) << offset << " +" << length;
    }
}

// Records of several sizes written in order at depth 4, over a file longer than the 16 MiB
// pattern (records cross its end and reuse its copies with other keys), and over a short one:
// each of four records in flight side by side holds its own bytes after all four were stamped.
TEST(Records, PatternBufferServesRecordsOfAnyByteSizeWithoutTouchingItsNeighbours) {
  for (const std::uint64_t record : {kIorHard, std::uint64_t{1001}, std::uint64_t{4095},
                                     std::uint64_t{4097}, std::uint64_t{12}, std::uint64_t{1}})
    for (const std::uint64_t file : {record * ((20u << 20) / record), record * 40}) {
      if (record < 4096 && file > (1u << 20)) continue;  // many records: the short file only
      for (const DataSpec& spec : specs(file)) {
        PatternBuffer src(spec, 3, record, 4);
        const std::uint64_t n = file / record;
        for (std::uint64_t r = 0; r + 4 <= n; r += 4) {
          unsigned slot[4];
          const std::byte* at[4];
          for (std::uint64_t i = 0; i < 4; ++i) {
            at[i] = src.acquire((r + i) * record, record, slot[i]);
            ASSERT_NE(at[i], nullptr) << record << " " << r + i;
          }
          for (std::uint64_t i = 0; i < 4; ++i) {
            const auto want = reference(spec, 3, (r + i) * record, record);
            ASSERT_EQ(std::memcmp(at[i], want.data(), record), 0)
                << "record " << record << " file " << file << " index " << r + i;
          }
          for (const unsigned s : slot)
            src.release(s);
        }
      }
    }
}

TEST(Records, PatternBufferServesRandomRecordsOfAnyByteSize) {
  const std::uint64_t file = kIorHard * 1000;  // 47 MB: three turns of the pattern
  for (const DataSpec& spec : specs(file)) {
    PatternBuffer src(spec, 7, kIorHard, 2);
    std::mt19937_64 rng(7);
    unsigned held = 0;
    bool holding = false;
    for (int i = 0; i < 600; ++i) {
      const std::uint64_t offset = (rng() % 1000) * kIorHard;
      unsigned slot = 0;
      const std::byte* p = src.acquire(offset, kIorHard, slot);
      if (p == nullptr) continue;  // its region is the one held in flight
      const auto want = reference(spec, 7, offset, kIorHard);
      ASSERT_EQ(std::memcmp(p, want.data(), kIorHard), 0) << offset;
      if (holding) src.release(held);
      held = slot;  // one record stays in flight while the next is stamped
      holding = true;
    }
  }
}

TEST(Records, VerifyBytesSeesEveryByteOfARecordAndNoneOutside) {
  const DataSpec spec{2, 0x55, 1000, 0};
  const std::uint64_t offset = 3 * kIorHard + 5;  // starts and ends inside words and blocks
  const std::size_t length = kIorHard + 2;
  std::vector<std::byte> rec(length);
  fill_bytes(spec, 4, offset, rec);
  Mismatch m;
  EXPECT_EQ(verify_bytes(spec, 4, offset, rec, &m), 0u);
  EXPECT_FALSE(m.any);
  for (const std::size_t at : {std::size_t{0}, std::size_t{2}, length / 2, length - 1}) {
    std::vector<std::byte> bad = rec;
    bad[at] ^= std::byte{0x10};
    Mismatch first;
    EXPECT_EQ(verify_bytes(spec, 4, offset, bad, &first), 1u) << at;
    ASSERT_TRUE(first.any);
    EXPECT_EQ(first.offset, (offset + at) / 8 * 8) << at;  // the word holding the byte
    EXPECT_NE(first.found, first.expected);
  }
  // Two bad bytes in two blocks count two blocks; the same block twice counts once.
  std::vector<std::byte> two = rec;
  two[100] ^= std::byte{1};
  two[200] ^= std::byte{1};
  two[length - 10] ^= std::byte{1};
  EXPECT_EQ(verify_bytes(spec, 4, offset, two, nullptr), 2u);
  // The same bytes are another file's nowhere, and another position's nowhere.
  EXPECT_GT(verify_bytes(spec, 5, offset, rec, nullptr), 10u);
  EXPECT_GT(verify_bytes(spec, 4, offset + 8, rec, nullptr), 10u);
}

TEST(Records, ReadersPickTheBlockPathForWholeBlockRecordsOnly) {
  EXPECT_EQ(verify_fn_for(4096), &verify_blocks);
  EXPECT_EQ(verify_fn_for(16u << 20), &verify_blocks);
  EXPECT_EQ(verify_fn_for(kIorHard), &verify_bytes);
  EXPECT_EQ(verify_fn_for(4104), &verify_bytes);
}

namespace {

// IOR's offset for transfer j of segment i of rank r (src/ior.c, WriteOrRead, without -F):
// j x t + i x N x b + r x b, for N ranks, block b and transfer t.
std::uint64_t ior_offset(std::uint64_t i, std::uint64_t j, std::uint64_t r, std::uint64_t ranks,
                         std::uint64_t block, std::uint64_t transfer) {
  return j * transfer + i * ranks * block + r * block;
}

}  // namespace

// iosweep's region offsets, in the order a rank writes them, land where IOR writes the same
// rank's transfers in its order: segmented as -b file-size -s 1, strided as -b seq-record
// -s file-size/seq-record (ior-hard: -t 47008 -b 47008), for records dividing the block; and
// the ranks' regions tile the file, each byte once.
TEST(Records, SharedLayoutsPutEveryRecordWhereIorPutsIt) {
  struct Shape {
    SharedPattern pattern;
    std::uint64_t file, seq, record;
  };
  const Shape shapes[] = {{SharedPattern::strided, 16 * kIorHard, kIorHard, kIorHard},
                          {SharedPattern::segmented, 16 * kIorHard, kIorHard, kIorHard},
                          {SharedPattern::strided, 16 * kIorHard, 4 * kIorHard, kIorHard},
                          {SharedPattern::strided, 16 * kIorHard, 4 * kIorHard, 2 * kIorHard},
                          {SharedPattern::segmented, 16 * kIorHard, kIorHard, 8 * kIorHard},
                          {SharedPattern::strided, 4u << 20, 1u << 20, 4096}};
  for (const Shape& sh : shapes)
    for (int k = 1; k <= 3; ++k) {
      Workload w;
      w.layout = FileLayout::shared;
      w.shared_pattern = sh.pattern;
      w.file_size = sh.file;
      w.seq_record = sh.seq;
      const std::uint64_t block = sh.pattern == SharedPattern::segmented ? w.file_size : sh.seq;
      const std::uint64_t segments = w.file_size / block, per_block = block / sh.record;
      std::vector<std::uint8_t> owner(static_cast<std::size_t>(k) * w.file_size, 0);
      std::uint64_t twice = 0;
      for (int r = 0; r < k; ++r) {
        const Layout layout = layout_for(w, k, r);
        std::uint64_t n = 0;  // the rank's records in its order
        for (std::uint64_t i = 0; i < segments; ++i)
          for (std::uint64_t j = 0; j < per_block; ++j, ++n) {
            const std::uint64_t at = layout.physical(n * sh.record);
            ASSERT_EQ(at, ior_offset(i, j, static_cast<std::uint64_t>(r),
                                     static_cast<std::uint64_t>(k), block, sh.record))
                << "rank " << r << " of " << k << ", segment " << i << ", transfer " << j;
            for (std::uint64_t b = 0; b < sh.record; ++b)
              twice += owner[at + b]++ != 0;
          }
      }
      EXPECT_EQ(twice, 0u) << k << " ranks: bytes written by two records";
      EXPECT_EQ(std::count(owner.begin(), owner.end(), 0), 0) << k << " ranks: bytes unwritten";
    }
  // One file per rank: the identity.
  Workload own;
  own.seq_record = kIorHard;
  EXPECT_EQ(layout_for(own, 3, 2).physical(5 * kIorHard), 5 * kIorHard);
}
