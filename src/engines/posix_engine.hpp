// The reference engine: pread/pwrite at queue depth 1, each request completed inside submit();
// metadata requests as the system calls mdtest makes (os/item_ops.hpp).
#pragma once

#include <deque>
#include <string>

#include "engines/fd_engine.hpp"
#include "model/config.hpp"

namespace iosweep {

// One metadata request performed to completion with the system calls (os/item_ops.hpp): the
// posix engine's, and any engine's for a request whose name is a path resolved `beneath`.
IoCompletion execute_item(const IoRequest& r);
fsops::ItemCall item_call_of(IoOp op);

class PosixEngine final : public FdEngine {
 public:
  // `metadata`: built for metadata requests (it says so in its detail; it runs both).
  explicit PosixEngine(const EngineOptions& options, bool metadata = false)
      : FdEngine(options.direct), metadata_(metadata) {}
  const char* name() const override { return "posix"; }
  unsigned depth() const override { return 1; }
  std::string detail() const override {
    return metadata_ ? "mkdirat, openat+write(+fsync)+close, fstatat, openat+read+close, unlinkat"
                     : "pread/pwrite";
  }
  void submit(std::span<const IoRequest> requests) override;
  std::size_t reap(std::span<IoCompletion> out, std::size_t min) override;

  // Performs one request to completion (short transfers continued, EINTR retried). Safe to call
  // from several threads at once for distinct requests.
  IoCompletion execute(const IoRequest& r) const;

 private:
  bool metadata_;
  std::deque<IoCompletion> done_;
};

}  // namespace iosweep
