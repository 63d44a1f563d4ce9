// Sweep planning (see plan.hpp).
#include "sweep/plan.hpp"

#include <algorithm>
#include <ctime>
#include <utility>

#include "core/errors.hpp"
#include "core/units.hpp"
#include "model/engine_desc.hpp"
#include "model/limits.hpp"
#include "os/process.hpp"

namespace iosweep {

namespace {

// --streams: s streams on k = min(s, world) ranks (the first k of the placement order) at depth
// s / k, which must be whole and within what --iodepth takes. `points` is filled only when every
// count is, as for --ranks and --sweep: a refused plan holds no point.
std::string stream_points(const std::vector<std::uint64_t>& streams, int world_size,
                          std::vector<SweepPoint>& out) {
  std::vector<SweepPoint> points;
  const auto world = static_cast<std::uint64_t>(world_size);
  for (const std::uint64_t s : streams) {
    const std::uint64_t k = std::min(s, world);
    if (s % k != 0)
      return "--streams: " + std::to_string(s) + " streams do not split evenly over the " +
             std::to_string(k) +
             " ranks of the job (each rank keeps the same depth); give a "
             "multiple of " +
             std::to_string(k);
    if (s / k > kMaxIodepth)
      return "--streams: " + std::to_string(s) + " streams over " + std::to_string(k) +
             " ranks need depth " + std::to_string(s / k) + " per rank, more than " +
             std::to_string(kMaxIodepth) + "; start more ranks";
    SweepPoint p;
    p.ranks = static_cast<int>(k);
    p.per_rank.depth = static_cast<unsigned>(s / k);
    p.per_rank.regions = p.per_rank.depth;
    points.push_back(p);
  }
  out = std::move(points);
  return {};
}

}  // namespace

std::string resolve_points(const SweepSpec& cfg, unsigned iodepth, int world_size,
                           std::vector<SweepPoint>& out) {
  out.clear();
  if (!cfg.streams.empty()) return stream_points(cfg.streams, world_size, out);
  std::vector<int> points;
  const auto done = [&] {
    for (int k : points) {
      SweepPoint p;
      p.ranks = k;
      p.per_rank.depth = iodepth;
      out.push_back(p);
    }
    return std::string();
  };
  if (!cfg.ranks.empty()) {
    int prev = 0;
    for (int r : cfg.ranks) {
      if (r < 1) return "--ranks: " + std::to_string(r) + " is not a positive rank count";
      if (r > world_size)
        return "--ranks: " + std::to_string(r) + " is more than the " + std::to_string(world_size) +
               " ranks the job was started with";
      if (r <= prev)
        return "--ranks: counts must be strictly increasing (" + std::to_string(r) + " after " +
               std::to_string(prev) + ")";
      points.push_back(r);
      prev = r;
    }
    return done();
  }
  if (cfg.sweep_min < 1) return "--sweep: MIN must be at least 1";
  const int cap = cfg.sweep_max == 0 ? world_size : std::min(cfg.sweep_max, world_size);
  if (cfg.sweep_max != 0 && cfg.sweep_max < cfg.sweep_min)
    return "--sweep: MAX " + std::to_string(cfg.sweep_max) + " is below MIN " +
           std::to_string(cfg.sweep_min);
  if (cfg.sweep_min > world_size)
    return "--sweep: MIN " + std::to_string(cfg.sweep_min) + " is more than the " +
           std::to_string(world_size) + " ranks the job was started with";
  // MIN itself, then the powers of two above it, then the cap when it is not one of them.
  points.push_back(cfg.sweep_min);
  int p = 1;
  while (p <= cfg.sweep_min)
    p *= 2;
  for (; p <= cap; p *= 2)
    points.push_back(p);
  if (points.back() != cap) points.push_back(cap);
  return done();
}

std::string make_run_id() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  const std::time_t t = ts.tv_sec;
  char day[24], stamp[40];
  std::strftime(day, sizeof day, "%Y%m%dT%H%M%S", std::gmtime(&t));
  std::snprintf(stamp, sizeof stamp, "%s.%03ldZ", day, ts.tv_nsec / 1000000);
  const auto r = static_cast<std::uint32_t>(random_u64());
  char id[64];
  std::snprintf(id, sizeof id, "%s-%08x", stamp, r);
  return id;
}

}  // namespace iosweep
