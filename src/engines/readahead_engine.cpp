// Worker-thread read-ahead around the posix engine (see readahead_engine.hpp).
#include "engines/readahead_engine.hpp"

namespace iosweep {

ReadaheadEngine::ReadaheadEngine(const EngineOptions& options, unsigned threads)
    : inner_(options), depth_(threads + 1) {
  for (unsigned i = 0; i < threads; ++i)
    workers_.emplace_back([this] { work(); });
}

ReadaheadEngine::~ReadaheadEngine() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  todo_cv_.notify_all();
  for (auto& t : workers_)
    t.join();
}

std::string ReadaheadEngine::detail() const {
  return "pread/pwrite with " + std::to_string(workers_.size()) + " read-ahead thread(s)";
}

void ReadaheadEngine::submit(std::span<const IoRequest> requests) {
  {
    std::lock_guard lock(mu_);
    todo_.insert(todo_.end(), requests.begin(), requests.end());
  }
  todo_cv_.notify_all();
}

std::size_t ReadaheadEngine::reap(std::span<IoCompletion> out, std::size_t min) {
  std::unique_lock lock(mu_);
  done_cv_.wait(lock, [&] { return done_.size() >= min || stop_; });
  std::size_t n = 0;
  while (n < out.size() && !done_.empty()) {
    out[n++] = done_.front();
    done_.pop_front();
  }
  return n;
}

void ReadaheadEngine::work() {
  for (;;) {
    IoRequest r;
    {
      std::unique_lock lock(mu_);
      todo_cv_.wait(lock, [&] { return stop_ || !todo_.empty(); });
      if (stop_) return;
      r = todo_.front();
      todo_.pop_front();
    }
    const IoCompletion c = inner_.execute(r);
    {
      std::lock_guard lock(mu_);
      done_.push_back(c);
    }
    done_cv_.notify_one();
  }
}

}  // namespace iosweep
