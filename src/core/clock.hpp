// Clocks used by iosweep. Every timed window uses the monotonic clock in nanoseconds; unix time
// is only recorded as metadata (run start/end).
#pragma once

#include <time.h>

#include <cstdint>

namespace iosweep {

inline std::uint64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

inline std::uint64_t unix_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

inline double ns_to_s(std::uint64_t ns) {
  return static_cast<double>(ns) * 1e-9;
}

}  // namespace iosweep
