// Data model implementation (see pattern.hpp for the definition of every byte).
#include "core/pattern.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

namespace iosweep {
namespace {

constexpr std::uint64_t kGolden = 0x9e3779b97f4a7c15ull;

std::uint64_t pattern_base(const DataSpec& spec, std::uint64_t file) {
  return mix64(spec.seed ^ mix64(file * kGolden + 0x5851f42d4c957f2dull));
}

std::uint64_t word_from_base(const DataSpec& spec, std::uint64_t base, std::uint64_t i) {
  const std::uint64_t w = mix64(base + (i + 1) * kGolden);
  return w == spec.filter_key ? ~w : w;
}

std::uint64_t* words(std::byte* p) {
  return reinterpret_cast<std::uint64_t*>(p);
}
const std::uint64_t* words(const std::byte* p) {
  return reinterpret_cast<const std::uint64_t*>(p);
}

// Word w of a file where no key is planted: its block's stamp, or the pattern.
std::uint64_t plain_word(const DataSpec& spec, std::uint64_t base, std::uint64_t file,
                         std::uint64_t w) {
  return w % kWordsPerBlock == 0 ? block_stamp(spec, file, w / kWordsPerBlock)
                                 : word_from_base(spec, base, w % kPatternWords);
}

// The bytes [lo, hi) of file word w that fall inside the byte range [begin, end).
struct WordPart {
  std::size_t lo, hi;
  bool whole() const { return hi - lo == 8; }
};
WordPart part_of(std::uint64_t w, std::uint64_t begin, std::uint64_t end) {
  const std::uint64_t at = w * 8;
  return {static_cast<std::size_t>(std::max(at, begin) - at),
          static_cast<std::size_t>(std::min(at + 8, end) - at)};
}

// Calls fn(w, value) for every word the byte range [begin, end) of a file touches, in order,
// with the word's exact value (a planted key, a stamp or the pattern).
template <class Fn>
void for_each_word(const DataSpec& spec, std::uint64_t file, std::uint64_t begin, std::uint64_t end,
                   Fn fn) {
  const std::uint64_t base = pattern_base(spec, file);
  const KeyPlan keys(spec);
  std::uint64_t j = keys.first_at_or_after(begin / 8);
  const std::uint64_t w_end = (end + 7) / 8;
  for (std::uint64_t w = begin / 8; w < w_end; ++w) {
    if (keys.position(j) == w) {
      fn(w, spec.filter_key);
      ++j;
    } else {
      fn(w, plain_word(spec, base, file, w));
    }
  }
}

}  // namespace

std::uint64_t pattern_word(const DataSpec& spec, std::uint64_t file, std::uint64_t i) {
  return word_from_base(spec, pattern_base(spec, file), i);
}

std::uint64_t block_stamp(const DataSpec& spec, std::uint64_t file, std::uint64_t block) {
  // (file, block) packed into one 64-bit value, xored with a seed constant, then a bijection:
  // distinct (file, block) pairs give distinct stamps for a given seed.
  const std::uint64_t packed = (file << 40) | (block & ((1ull << 40) - 1));
  const std::uint64_t s = mix64(packed ^ mix64(spec.seed + 0x2545f4914f6cdd1dull));
  return s == spec.filter_key ? ~s : s;
}

KeyPlan::KeyPlan(const DataSpec& spec) : every_(spec.filter_every) {
  const std::uint64_t file_words = spec.file_bytes / 8;
  if (file_words > 0 && every_ - 1 >= file_words) {
    const std::uint64_t mid = file_words / 2;
    single_ = mid % kWordsPerBlock == 0 ? mid + 1 : mid;
  }
}

std::uint64_t KeyPlan::first_at_or_after(std::uint64_t word) const {
  if (single_ != kNone) return word <= single_ ? 0 : 1;
  const std::uint64_t r = every_ - 1;
  std::uint64_t j = word > r + 1 ? (word - r - 1) / every_ : 0;
  while (position(j) < word)
    ++j;
  return j;
}

std::uint64_t expected_matches(const DataSpec& spec, std::uint64_t begin_bytes,
                               std::uint64_t end_bytes) {
  return KeyPlan(spec).count_in(begin_bytes / 8, end_bytes / 8);
}

void fill_blocks(const DataSpec& spec, std::uint64_t file, std::uint64_t file_offset,
                 std::span<std::byte> dst) {
  const std::uint64_t base = pattern_base(spec, file);
  const std::uint64_t first_block = file_offset / kBlockBytes;
  const std::size_t n_blocks = dst.size() / kBlockBytes;
  for (std::size_t i = 0; i < n_blocks; ++i) {
    std::uint64_t* w = words(dst.data() + i * kBlockBytes);
    const std::uint64_t b = first_block + i;
    const std::uint64_t pw = (b % kPatternBlocks) * kWordsPerBlock;
    w[0] = block_stamp(spec, file, b);
    for (std::size_t k = 1; k < kWordsPerBlock; ++k)
      w[k] = word_from_base(spec, base, pw + k);
  }
  const KeyPlan keys(spec);
  const std::uint64_t w0 = file_offset / 8, w1 = w0 + dst.size() / 8;
  for (std::uint64_t j = keys.first_at_or_after(w0); keys.position(j) < w1; ++j)
    words(dst.data())[keys.position(j) - w0] = spec.filter_key;
}

void fill_bytes(const DataSpec& spec, std::uint64_t file, std::uint64_t file_offset,
                std::span<std::byte> dst) {
  if (whole_blocks(file_offset, dst.size())) return fill_blocks(spec, file, file_offset, dst);
  const std::uint64_t end = file_offset + dst.size();
  for_each_word(spec, file, file_offset, end, [&](std::uint64_t w, std::uint64_t value) {
    const WordPart p = part_of(w, file_offset, end);
    std::memcpy(dst.data() + (w * 8 + p.lo - file_offset),
                reinterpret_cast<const std::byte*>(&value) + p.lo, p.hi - p.lo);
  });
}

std::uint64_t verify_blocks(const DataSpec& spec, std::uint64_t file, std::uint64_t file_offset,
                            std::span<const std::byte> src, Mismatch* first) {
  const std::uint64_t base = pattern_base(spec, file);
  const KeyPlan keys(spec);
  const std::uint64_t first_block = file_offset / kBlockBytes;
  const std::size_t n_blocks = src.size() / kBlockBytes;
  std::uint64_t bad = 0;
  std::uint64_t j = keys.first_at_or_after(file_offset / 8);
  for (std::size_t i = 0; i < n_blocks; ++i) {
    const std::uint64_t* w = words(src.data() + i * kBlockBytes);
    const std::uint64_t b = first_block + i;
    const std::uint64_t pw = (b % kPatternBlocks) * kWordsPerBlock;
    const std::uint64_t bw = b * kWordsPerBlock;
    bool block_bad = false;
    for (std::size_t k = 0; k < kWordsPerBlock; ++k) {
      std::uint64_t expect;
      if (keys.position(j) == bw + k) {
        expect = spec.filter_key;
        ++j;
      } else {
        expect = k == 0 ? block_stamp(spec, file, b) : word_from_base(spec, base, pw + k);
      }
      if (w[k] != expect) {
        if (first != nullptr && !first->any) *first = {true, (bw + k) * 8, expect, w[k]};
        block_bad = true;
      }
    }
    if (block_bad) ++bad;
  }
  return bad;
}

std::uint64_t verify_bytes(const DataSpec& spec, std::uint64_t file, std::uint64_t file_offset,
                           std::span<const std::byte> src, Mismatch* first) {
  // The block path reads whole words in place: only from an 8-byte aligned buffer (a block of a
  // record at any offset, checked again by PatternImage, may sit anywhere in its buffer).
  if (whole_blocks(file_offset, src.size()) &&
      reinterpret_cast<std::uintptr_t>(src.data()) % alignof(std::uint64_t) == 0)
    return verify_blocks(spec, file, file_offset, src, first);
  const std::uint64_t end = file_offset + src.size();
  std::uint64_t bad = 0, last_bad_block = ~0ull;
  for_each_word(spec, file, file_offset, end, [&](std::uint64_t w, std::uint64_t expect) {
    const WordPart p = part_of(w, file_offset, end);
    const std::byte* at = src.data() + (w * 8 + p.lo - file_offset);
    std::uint64_t found = expect;
    if (p.whole())
      std::memcpy(&found, at, 8);
    else
      std::memcpy(reinterpret_cast<std::byte*>(&found) + p.lo, at, p.hi - p.lo);
    if (found == expect) return;
    if (first != nullptr && !first->any) *first = {true, w * 8, expect, found};
    if (w / kWordsPerBlock != last_bad_block) {
      last_bad_block = w / kWordsPerBlock;
      ++bad;
    }
  });
  return bad;
}

PatternImage::PatternImage(const DataSpec& spec, std::uint64_t file)
    : spec_(&spec), file_(file), keys_(spec) {
  const std::uint64_t base = pattern_base(spec, file);
  words_.resize(PatternBuffer::period_for(spec.file_bytes) / 8);
  for (std::size_t i = 0; i < words_.size(); ++i)
    words_[i] = word_from_base(spec, base, i);
}

std::uint64_t PatternImage::verify(std::uint64_t file_offset, std::span<const std::byte> src,
                                   Mismatch* first) const {
  const std::uint64_t end = file_offset + src.size();
  const auto* image = reinterpret_cast<const std::byte*>(words_.data());
  const std::uint64_t image_bytes = words_.size() * 8;
  std::uint64_t bad = 0;
  for (std::uint64_t bs = file_offset / kBlockBytes * kBlockBytes; bs < end; bs += kBlockBytes) {
    const std::uint64_t x = std::max(bs, file_offset), y = std::min(bs + kBlockBytes, end);
    const std::uint64_t b = bs / kBlockBytes;
    const std::byte* got = src.data() + (x - file_offset);
    const std::uint64_t at = (b % kPatternBlocks) * kBlockBytes;
    bool ok =
        at + kBlockBytes <= image_bytes && keys_.count_in(bs / 8, (bs + kBlockBytes) / 8) == 0;
    if (ok && x < bs + 8) {
      const std::uint64_t stamp = block_stamp(*spec_, file_, b);
      ok = std::memcmp(got, reinterpret_cast<const std::byte*>(&stamp) + (x - bs),
                       std::min(y, bs + 8) - x) == 0;
    }
    const std::uint64_t px = std::max(x, bs + 8);
    if (ok && px < y) ok = std::memcmp(got + (px - x), image + at + (px - bs), y - px) == 0;
    if (!ok) bad += verify_bytes(*spec_, file_, x, {got, static_cast<std::size_t>(y - x)}, first);
  }
  return bad;
}

std::size_t PatternBuffer::period_for(std::uint64_t file_bytes) {
  // A file shorter than the pattern only ever uses its first file_bytes: no more is kept.
  if (file_bytes == 0 || file_bytes >= kPatternBytes) return kPatternBytes;
  return static_cast<std::size_t>((file_bytes + kBlockBytes - 1) / kBlockBytes * kBlockBytes);
}

std::size_t PatternBuffer::bytes_for(std::size_t record_bytes, unsigned depth,
                                     std::uint64_t file_bytes, std::size_t min_copies) {
  // Copies of the pattern's period, back to back, so that `depth` records fit side by side, plus
  // a tail for records that cross the end of a copy (only when the record does not divide it).
  const std::size_t per_copy = period_for(file_bytes);
  std::size_t copies = ((depth == 0 ? 1 : depth) * record_bytes + per_copy - 1) / per_copy;
  if (copies < min_copies) copies = min_copies;
  if (copies == 0) copies = 1;
  // The tail is whole blocks, so that the pattern fills it word for word.
  const bool aligned = record_bytes <= per_copy && per_copy % record_bytes == 0;
  return copies * per_copy +
         (aligned ? 0 : (record_bytes + kBlockBytes - 1) / kBlockBytes * kBlockBytes);
}

std::size_t PatternBuffer::copies_for_streams(std::span<const std::uint64_t> starts,
                                              std::size_t record_bytes, std::uint64_t file_bytes) {
  const std::size_t period = period_for(file_bytes);
  if (starts.empty()) return 1;
  if (record_bytes >= period) return starts.size() * ((record_bytes + period - 1) / period);
  // Each stream's record covers [s, s + record) of the pattern (mod its period); the most that
  // overlap at one byte is where the covering count peaks: at one of the starts.
  std::vector<std::size_t> at;
  for (const std::uint64_t s : starts)
    at.push_back(static_cast<std::size_t>(s % period));
  std::sort(at.begin(), at.end());
  const std::size_t n = at.size();
  for (std::size_t i = 0; i < n; ++i)
    at.push_back(at[i] + period);  // one more turn, for records that wrap around
  std::size_t most = 1;
  for (std::size_t i = n; i < 2 * n; ++i) {
    // Streams starting in (at[i] - record, at[i]] cover at[i].
    const auto first = std::upper_bound(at.begin(), at.end(), at[i] - record_bytes);
    const auto last = std::upper_bound(at.begin(), at.end(), at[i]);
    most = std::max(most, static_cast<std::size_t>(last - first));
  }
  return most;
}

PatternBuffer::PatternBuffer(const DataSpec& spec, std::uint64_t file, std::size_t record_bytes,
                             unsigned depth, bool hugepages, std::size_t min_copies)
    : spec_(spec),
      file_(file),
      base_(pattern_base(spec, file)),
      keys_(spec),
      period_(period_for(spec.file_bytes)),
      inflight_(depth == 0 ? 1 : depth),
      acquire_(whole_blocks(0, record_bytes) ? &acquire_as<true> : &acquire_as<false>) {
  const std::size_t bytes = bytes_for(record_bytes, depth, spec.file_bytes, min_copies);
  // Records of one page reach the device as one segment whatever backs the page, so for them the
  // pattern always asks for huge pages: each write stamps a different 4 KiB page of 16 MiB, and
  // with 4 KiB pages that store waited for a page walk (most of iosweep's own time per 4 KiB
  // random write). Larger records follow --hugepages, which changes what the device sees.
  mem_ = AlignedBuffer(bytes, hugepages || record_bytes <= kBlockBytes);
  dirty_.assign(mem_.size() / kBlockBytes, 0);
  std::uint64_t* w = words(mem_.data());
  const std::size_t n = mem_.size() / 8, period_words = period_ / 8;
  for (std::size_t x = 0; x < n; ++x)
    w[x] = word_from_base(spec_, base_, x % period_words);
}

template <bool kWholeBlocks>
std::byte* PatternBuffer::acquire_as(PatternBuffer& self, std::uint64_t file_offset,
                                     std::size_t length, unsigned& slot) {
  auto& inflight = self.inflight_;
  unsigned free_slot = 0;
  while (free_slot < inflight.size() && inflight[free_slot].used)
    ++free_slot;
  if (free_slot == inflight.size()) return nullptr;
  const std::size_t s = static_cast<std::size_t>(file_offset % kPatternBytes);
  for (std::size_t begin = s; begin + length <= self.mem_.size(); begin += self.period_) {
    const std::size_t end = begin + length;
    bool clash = false;
    for (const auto& r : inflight)
      if (r.used && begin < r.end && r.begin < end) {
        clash = true;
        break;
      }
    if (clash) continue;
    inflight[free_slot] = {begin, end, true};
    slot = free_slot;
    if constexpr (kWholeBlocks)
      self.stamp(begin, file_offset, length);
    else
      self.stamp_bytes(begin, file_offset, length);
    return self.mem_.data() + begin;
  }
  return nullptr;
}

void PatternBuffer::stamp(std::size_t phys_offset, std::uint64_t file_offset, std::size_t length) {
  const std::size_t pb0 = phys_offset / kBlockBytes;
  const std::uint64_t fb0 = file_offset / kBlockBytes;
  const std::size_t n = length / kBlockBytes;
  constexpr std::size_t kAhead = 8;  // blocks: hides the miss of each stamping store
  for (std::size_t i = 0; i < n; ++i) {
    if (i + kAhead < n) __builtin_prefetch(mem_.data() + (pb0 + i + kAhead) * kBlockBytes, 1, 0);
    std::uint64_t* w = words(mem_.data() + (pb0 + i) * kBlockBytes);
    if (dirty_[pb0 + i]) {  // a key was planted here for an earlier record: restore the pattern
      const std::uint64_t pw = ((pb0 + i) % (period_ / kBlockBytes)) * kWordsPerBlock;
      for (std::size_t k = 1; k < kWordsPerBlock; ++k)
        w[k] = word_from_base(spec_, base_, pw + k);
      dirty_[pb0 + i] = 0;
    }
    w[0] = block_stamp(spec_, file_, fb0 + i);
  }
  const std::uint64_t w0 = file_offset / 8, w1 = w0 + length / 8;
  std::uint64_t* base = words(mem_.data() + phys_offset);
  for (std::uint64_t j = keys_.first_at_or_after(w0); keys_.position(j) < w1; ++j) {
    const std::uint64_t at = keys_.position(j) - w0;
    base[at] = spec_.filter_key;
    dirty_[pb0 + at / kWordsPerBlock] = 1;
  }
}

// Only the record's own bytes are written: the rest of a block or word it shares with its
// neighbours may belong to a record still in flight. The buffer's bytes sit at the same place
// modulo 4 KiB as the file's (copies start at multiples of the period, a whole number of
// blocks), so physical block pb0 + i holds file block fb0 + i.
void PatternBuffer::stamp_bytes(std::size_t phys_offset, std::uint64_t file_offset,
                                std::size_t length) {
  std::byte* rec = mem_.data() + phys_offset;
  const std::uint64_t f0 = file_offset, f1 = file_offset + length;
  auto put = [&](std::uint64_t w, std::uint64_t value) {
    const WordPart p = part_of(w, f0, f1);
    std::memcpy(rec + (w * 8 + p.lo - f0), reinterpret_cast<const std::byte*>(&value) + p.lo,
                p.hi - p.lo);
  };
  const std::size_t pb0 = phys_offset / kBlockBytes;
  const std::uint64_t fb0 = f0 / kBlockBytes, fb_end = (f1 + kBlockBytes - 1) / kBlockBytes;
  for (std::uint64_t fb = fb0; fb < fb_end; ++fb) {
    const std::size_t pb = pb0 + static_cast<std::size_t>(fb - fb0);
    const std::uint64_t b0 = fb * kBlockBytes, b1 = b0 + kBlockBytes;
    if (dirty_[pb]) {  // keys of an earlier record: the pattern back, in this record's part
      const std::uint64_t w_end = (std::min(b1, f1) + 7) / 8;
      for (std::uint64_t w = std::max(b0, f0) / 8; w < w_end; ++w)
        if (w % kWordsPerBlock != 0) put(w, word_from_base(spec_, base_, w % kPatternWords));
      if (f0 <= b0 && b1 <= f1) dirty_[pb] = 0;  // clean only when all of it was restored
    }
    if (b0 + 8 > f0 && b0 < f1) put(fb * kWordsPerBlock, block_stamp(spec_, file_, fb));
  }
  const std::uint64_t w_end = (f1 + 7) / 8;
  for (std::uint64_t j = keys_.first_at_or_after(f0 / 8); keys_.position(j) < w_end; ++j) {
    const std::uint64_t w = keys_.position(j);
    put(w, spec_.filter_key);
    dirty_[pb0 + static_cast<std::size_t>(w / kWordsPerBlock - fb0)] = 1;
  }
}

}  // namespace iosweep
