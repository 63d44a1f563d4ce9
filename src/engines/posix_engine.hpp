// The reference engine: pread/pwrite at queue depth 1, each request completed inside submit().
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "engines/engine.hpp"

namespace iosweep {

class PosixEngine final : public Engine {
 public:
  explicit PosixEngine(const EngineOptions& options) : direct_(options.direct) {}
  ~PosixEngine() override;
  EngineInfo info() const override { return {"posix", 1, "pread/pwrite"}; }
  int open(const std::string& path, OpenMode mode) override;
  void close(int file) override;
  void submit(std::span<const IoRequest> requests) override;
  std::size_t reap(std::span<IoCompletion> out, std::size_t min) override;
  void sync(int file) override;

  // Performs one request to completion (short transfers continued, EINTR retried). Safe to call
  // from several threads at once for distinct requests.
  IoCompletion execute(const IoRequest& r) const;

 private:
  bool direct_;
  std::vector<int> fds_;
  std::vector<std::string> paths_;
  std::deque<IoCompletion> done_;
};

}  // namespace iosweep
