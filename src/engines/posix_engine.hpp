// The reference engine: pread/pwrite at queue depth 1, each request completed inside submit().
#pragma once

#include <deque>
#include <string>

#include "engines/fd_engine.hpp"
#include "model/config.hpp"

namespace iosweep {

class PosixEngine final : public FdEngine {
 public:
  explicit PosixEngine(const EngineOptions& options) : FdEngine(options.direct) {}
  const char* name() const override { return "posix"; }
  unsigned depth() const override { return 1; }
  std::string detail() const override { return "pread/pwrite"; }
  void submit(std::span<const IoRequest> requests) override;
  std::size_t reap(std::span<IoCompletion> out, std::size_t min) override;

  // Performs one request to completion (short transfers continued, EINTR retried). Safe to call
  // from several threads at once for distinct requests.
  IoCompletion execute(const IoRequest& r) const;

 private:
  std::deque<IoCompletion> done_;
};

}  // namespace iosweep
