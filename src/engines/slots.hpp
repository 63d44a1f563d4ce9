// The requests an asynchronous engine (io_uring, MPI-IO) has in flight: one slot per request up
// to the engine's depth, each remembering how much of its transfer is done, so that short
// transfers can be continued from where they stopped.
#pragma once

#include <cerrno>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "engines/engine.hpp"

namespace iosweep {

class Slots {
 public:
  struct Slot {
    IoRequest req;
    std::size_t done = 0;
  };

  explicit Slots(unsigned depth) : slots_(depth) {
    for (unsigned i = depth; i > 0; --i)
      free_.push_back(i - 1);
  }
  // A free slot for `r`; throws IoError (EBUSY) when the caller submits beyond the depth.
  unsigned take(const IoRequest& r, const std::string& path) {
    if (free_.empty())
      throw IoError("submit", path, r.offset, EBUSY, "more requests than --iodepth");
    const unsigned i = free_.back();
    free_.pop_back();
    slots_[i] = {r, 0};
    return i;
  }
  void give_back(unsigned i) { free_.push_back(i); }
  Slot& operator[](unsigned i) { return slots_[i]; }
  bool idle() const { return free_.size() == slots_.size(); }
  unsigned depth() const { return static_cast<unsigned>(slots_.size()); }

 private:
  std::vector<Slot> slots_;
  std::vector<unsigned> free_;
};

}  // namespace iosweep
