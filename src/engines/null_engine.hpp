// The null engine (fio's null ioengine): opens, syncs and closes the files as the other engines
// do, but moves no data: every read and write completes at once with its full length, up to
// --iodepth requests at a time. What a run with it measures is iosweep's own cost per
// operation (the I/O loop, timing, stamping of writes, counting), the floor under every other
// engine's figures. Reads leave their buffers as they were, so --verify is refused and counts
// are not checked (docs/performance.md has its figures).
#pragma once

#include <string>
#include <vector>

#include "engines/fd_engine.hpp"
#include "model/config.hpp"

namespace iosweep {

class NullEngine final : public FdEngine {
 public:
  explicit NullEngine(const EngineOptions& options);
  const char* name() const override { return "null"; }
  unsigned depth() const override { return depth_; }
  std::string detail() const override { return "no data moved; every request completes at once"; }
  void submit(std::span<const IoRequest> requests) override;
  std::size_t reap(std::span<IoCompletion> out, std::size_t min) override;

 private:
  unsigned depth_;
  std::vector<IoCompletion> done_;  // a ring of depth_ completions
  std::size_t head_ = 0, count_ = 0;
};

}  // namespace iosweep
