// Null engine (see null_engine.hpp).
#include "engines/null_engine.hpp"

#include <cerrno>

#include "core/errors.hpp"

namespace iosweep {

NullEngine::NullEngine(const EngineOptions& options)
    : FdEngine(options.direct), depth_(options.iodepth == 0 ? 1 : options.iodepth), done_(depth_) {}

void NullEngine::submit(std::span<const IoRequest> requests) {
  for (const auto& r : requests) {
    if (count_ == done_.size())
      throw IoError("submit", path(r.file), r.offset, EBUSY, "more requests than --iodepth");
    const auto len = static_cast<std::int64_t>(r.length);
    done_[(head_ + count_++) % done_.size()] = {r.tag, len, r.length};
  }
}

std::size_t NullEngine::reap(std::span<IoCompletion> out, std::size_t /*min*/) {
  std::size_t n = 0;
  while (n < out.size() && count_ > 0) {
    out[n++] = done_[head_];
    head_ = (head_ + 1) % done_.size();
    --count_;
  }
  return n;
}

}  // namespace iosweep
