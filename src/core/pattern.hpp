// The data model: what every byte of every file holds, as a pure function of where it is.
//
// A file is a sequence of 4 KiB blocks. Block b of file f holds:
//   word 0        stamp(seed, f, b): a bijective mix of (f, b), so no two blocks of any file
//                 of a run are equal (defeats deduplication);
//   words 1..511  words of f's 16 MiB pattern, taken at pattern block (b mod 4096): random
//                 64-bit words from a counter-based generator, so the bytes are incompressible
//                 (no compressor window finds a repeat shorter than 16 MiB);
//   planted keys  the filter key at word positions j*N + N-1 of the file (N = --filter-every),
//                 moved one word on when that lands on a stamp. When N exceeds the file (no
//                 such position in it), one key is planted at the file's middle word instead,
//                 so that every file's count proves something. No pattern word and no stamp
//                 ever equals the key, so the exact number of matches in any byte range is
//                 known without reading the data.
// Because content depends only on position, the random-write phase rewrites blocks with the
// same bytes, any read can be verified, and the expected filter count is plain arithmetic.
// Records need not be whole blocks: a record of any byte size at any offset (IOR's -t 47008,
// which crosses blocks and, for sizes that are not a multiple of 8, words) holds the bytes of
// the positions it covers. Such records go through byte-exact paths (fill_bytes, verify_bytes,
// the pattern buffer's stamp_bytes) that write only the record's own bytes; whole-block records
// keep the block paths.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/aligned_buffer.hpp"

namespace iosweep {

inline constexpr std::size_t kBlockBytes = 4096;
inline constexpr std::size_t kWordsPerBlock = kBlockBytes / 8;
inline constexpr std::size_t kPatternBytes = 16u << 20;
inline constexpr std::size_t kPatternWords = kPatternBytes / 8;
inline constexpr std::size_t kPatternBlocks = kPatternBytes / kBlockBytes;

// Everything that decides the bytes of a run's files.
struct DataSpec {
  std::uint64_t seed = 0;
  std::uint64_t filter_key = 0;
  std::uint64_t filter_every = 1048576;  // words between planted keys; at least 2
  std::uint64_t file_bytes = 0;          // size of every file; 0: unbounded (no middle key)
};

// splitmix64's finalizer: a bijection on 64-bit values.
constexpr std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Word i (< kPatternWords) of file f's pattern. Never equals the filter key.
std::uint64_t pattern_word(const DataSpec& spec, std::uint64_t file, std::uint64_t i);
// Word 0 of block b of file f. Unique over (f < 2^24, b < 2^40); never equals the filter key.
std::uint64_t block_stamp(const DataSpec& spec, std::uint64_t file, std::uint64_t block);

// Where the planted keys are, in file word positions.
class KeyPlan {
 public:
  explicit KeyPlan(const DataSpec& spec);
  std::uint64_t position(std::uint64_t j) const {
    if (single_ != kNone) return j == 0 ? single_ : kNone;
    const std::uint64_t p = j * every_ + (every_ - 1);
    return (p % kWordsPerBlock == 0) ? p + 1 : p;
  }
  // Smallest j with position(j) >= word.
  std::uint64_t first_at_or_after(std::uint64_t word) const;
  // Number of keys in the word range [begin, end).
  std::uint64_t count_in(std::uint64_t begin, std::uint64_t end) const {
    return end <= begin ? 0 : first_at_or_after(end) - first_at_or_after(begin);
  }

 private:
  static constexpr std::uint64_t kNone = ~0ull;
  std::uint64_t every_;
  std::uint64_t single_ = kNone;  // the one middle key of a file shorter than the spacing
};

// Exact number of key words in the byte range [begin, end) of any file (8-byte aligned).
std::uint64_t expected_matches(const DataSpec& spec, std::uint64_t begin_bytes,
                               std::uint64_t end_bytes);

// Whether a byte range is whole 4 KiB blocks of the file (the block paths take it).
constexpr bool whole_blocks(std::uint64_t offset, std::uint64_t length) {
  return ((offset | length) % kBlockBytes) == 0;
}

// Writes the exact content of file bytes [file_offset, file_offset + dst.size()) into dst.
// Both must be multiples of 4 KiB. Used outside timed windows (file creation, tests).
void fill_blocks(const DataSpec& spec, std::uint64_t file, std::uint64_t file_offset,
                 std::span<std::byte> dst);
// The same for any byte range (fill_blocks when it is whole blocks).
void fill_bytes(const DataSpec& spec, std::uint64_t file, std::uint64_t file_offset,
                std::span<std::byte> dst);

struct Mismatch {
  bool any = false;
  std::uint64_t offset = 0;  // byte offset in the file of the first wrong word
  std::uint64_t expected = 0;
  std::uint64_t found = 0;
};

// Checks whole blocks read from file bytes starting at file_offset; returns the number of bad
// blocks and fills `first` with the first wrong word when there is one.
std::uint64_t verify_blocks(const DataSpec& spec, std::uint64_t file, std::uint64_t file_offset,
                            std::span<const std::byte> src, Mismatch* first);
// The same for any byte range (verify_blocks when it is whole blocks): the number of the file's
// 4 KiB blocks the range touches that hold a wrong byte inside it (a block two records share
// counts once for each record whose part of it is wrong). A word the range holds only part of
// is compared on those bytes; `first` then gives the whole word, its bytes outside the range
// taken as expected.
std::uint64_t verify_bytes(const DataSpec& spec, std::uint64_t file, std::uint64_t file_offset,
                           std::span<const std::byte> src, Mismatch* first);
// The one of the two a reader of records of `record_bytes` at multiples of it calls, chosen
// once, before a timed window: whole-block records never pay for the byte-exact path.
using VerifyFn = std::uint64_t (*)(const DataSpec&, std::uint64_t, std::uint64_t,
                                   std::span<const std::byte>, Mismatch*);
constexpr VerifyFn verify_fn_for(std::uint64_t record_bytes) {
  return whole_blocks(0, record_bytes) ? &verify_blocks : &verify_bytes;
}

// A file's pattern words laid out as the file holds them (16 MiB, or the part a shorter file
// uses), made once before a window, so that a reader's check is a memcmp per block: every byte
// of a block but its stamp word is the image's at (block mod 4096), except where a key is
// planted. A block whose stamp or bytes differ, or that holds a key, is checked again by
// verify_bytes, which names the first wrong word: the result is exactly verify_bytes's, at
// about the cost of reading the bytes twice.
class PatternImage {
 public:
  PatternImage(const DataSpec& spec, std::uint64_t file);
  // As verify_bytes, for any byte range of the file.
  std::uint64_t verify(std::uint64_t file_offset, std::span<const std::byte> src,
                       Mismatch* first) const;

 private:
  const DataSpec* spec_;
  std::uint64_t file_;
  std::vector<std::uint64_t> words_;
  KeyPlan keys_;
};

// The source of every timed write: a buffer holding one or more copies of a file's pattern (of
// the part of it the file uses, for a file shorter than 16 MiB), so
// that a write of `record` bytes at any offset is served in place by stamping the blocks (and
// planting the keys) of that one record - the only work inside the timed window. A record that
// is not whole blocks is stamped byte by byte at its ends (stamp_bytes): the bytes beside it in
// a shared block or word may be another record's, still in flight.
// Enough copies are kept for `depth` requests in flight; acquire() returns nullptr in the rare
// case that every copy of the needed region is still in flight (the caller then tries another
// offset or reaps a completion first).
class PatternBuffer {
 public:
  PatternBuffer(const DataSpec& spec, std::uint64_t file, std::size_t record_bytes, unsigned depth,
                bool hugepages = false, std::size_t min_copies = 1);
  // The part of the pattern a file of `file_bytes` uses (all 16 MiB, or the file's own length
  // when it is shorter: a 1 MiB file never needs more than 1 MiB of it); 0: unbounded.
  static std::size_t period_for(std::uint64_t file_bytes);
  // The memory one holds for records of `record_bytes` at `depth` in flight, with at least
  // `min_copies` copies of the pattern.
  static std::size_t bytes_for(std::size_t record_bytes, unsigned depth,
                               std::uint64_t file_bytes = 0, std::size_t min_copies = 1);
  // Copies that writes streaming forward side by side from the file offsets `starts` need so
  // that none waits for another's region of the pattern: the most of them that fall on the
  // same bytes of it (regions whose starts are a multiple of the pattern apart all do).
  static std::size_t copies_for_streams(std::span<const std::uint64_t> starts,
                                        std::size_t record_bytes, std::uint64_t file_bytes);
  // A region for the record at `file_offset` of `length` (the buffer's record size, at a
  // multiple of it), stamped; nullptr when every copy of it is in flight.
  std::byte* acquire(std::uint64_t file_offset, std::size_t length, unsigned& slot) {
    return acquire_(*this, file_offset, length, slot);
  }
  // Hint that a write at `file_offset` is coming: fetch the cache line its stamp goes to, so the
  // stamping store does not stall (for 4 KiB random writes that miss was most of iosweep's own
  // time per operation).
  void prefetch(std::uint64_t file_offset) const {
    __builtin_prefetch(mem_.data() + file_offset % kPatternBytes, 1, 0);
  }
  void release(unsigned slot) { inflight_[slot].used = false; }
  std::span<std::byte> memory() const { return mem_.span(); }

 private:
  // acquire for whole-block records or for any others, chosen once by the constructor from the
  // record size: whole-block records pay nothing for the byte-exact path (one indirect call in
  // place of the direct one).
  template <bool kWholeBlocks>
  static std::byte* acquire_as(PatternBuffer& self, std::uint64_t file_offset, std::size_t length,
                               unsigned& slot);
  void stamp(std::size_t phys_offset, std::uint64_t file_offset, std::size_t length);
  void stamp_bytes(std::size_t phys_offset, std::uint64_t file_offset, std::size_t length);

  struct Region {
    std::size_t begin = 0, end = 0;
    bool used = false;
  };
  DataSpec spec_;
  std::uint64_t file_;
  std::uint64_t base_;
  KeyPlan keys_;
  std::size_t period_;  // bytes of the pattern kept: 16 MiB, or less for a shorter file
  AlignedBuffer mem_;
  std::vector<std::uint8_t> dirty_;  // per physical block: keys were planted there
  std::vector<Region> inflight_;
  std::byte* (*acquire_)(PatternBuffer&, std::uint64_t, std::size_t, unsigned&);
};

}  // namespace iosweep
