// Read-ahead for the synchronous engine: worker threads perform the posix engine's requests so
// that the caller can compute on one buffer while the next ones are read (filter-count). Open,
// close and sync stay on the caller's thread. Only the filter-count phase uses it; the timed
// read/write phases keep posix at queue depth 1, the reference.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "engines/posix_engine.hpp"

namespace iosweep {

class ReadaheadEngine final : public Engine {
 public:
  ReadaheadEngine(const EngineOptions& options, unsigned threads);
  ~ReadaheadEngine() override;
  const char* name() const override { return "posix-readahead"; }
  unsigned depth() const override { return depth_; }
  std::string detail() const override;
  int open(const std::string& path, OpenMode mode) override { return inner_.open(path, mode); }
  void close(int file) override { inner_.close(file); }
  void submit(std::span<const IoRequest> requests) override;
  std::size_t reap(std::span<IoCompletion> out, std::size_t min) override;
  void sync(int file) override { inner_.sync(file); }

 private:
  void work();
  PosixEngine inner_;
  unsigned depth_;
  std::mutex mu_;
  std::condition_variable todo_cv_, done_cv_;
  std::deque<IoRequest> todo_;
  std::deque<IoCompletion> done_;
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace iosweep
