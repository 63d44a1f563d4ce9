// Page-aligned anonymous memory for I/O buffers. mmap gives 4 KiB alignment (enough for
// O_DIRECT on the file systems iosweep targets; the alignment actually needed is checked
// separately) and zero-filled pages; touch() faults every page in before any timed work.
// With `huge`, the memory is advised for transparent huge pages (--hugepages): fewer, larger
// segments per DMA, which on some virtualised disks doubles O_DIRECT bandwidth
// (docs/performance.md). Off by default, as fio and IOR allocate plain memory.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstring>
#include <new>
#include <span>
#include <utility>

namespace iosweep {

class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  explicit AlignedBuffer(std::size_t bytes, bool huge = false) : size_(bytes) {
    if (bytes == 0) return;
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    data_ = static_cast<std::byte*>(p);
    if (huge) madvise(p, bytes, MADV_HUGEPAGE);  // advice only: ignored where THP is off
  }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  AlignedBuffer(AlignedBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  AlignedBuffer& operator=(AlignedBuffer&& o) noexcept {
    if (this != &o) {
      release();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  ~AlignedBuffer() { release(); }

  std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::span<std::byte> span() const { return {data_, size_}; }

  // Fault in every page so that no page fault lands inside a timed window.
  void touch() {
    for (std::size_t off = 0; off < size_; off += 4096)
      data_[off] = std::byte{0};
  }

 private:
  void release() {
    if (data_ != nullptr) munmap(data_, size_);
    data_ = nullptr;
    size_ = 0;
  }
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace iosweep
