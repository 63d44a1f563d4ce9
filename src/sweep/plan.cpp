// Sweep planning (see plan.hpp).
#include "sweep/plan.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <random>
#include <utility>

#include "core/errors.hpp"
#include "core/units.hpp"
#include "model/engine_desc.hpp"
#include "model/limits.hpp"
#include "model/md_plan.hpp"
#include "model/phase_desc.hpp"
#include "os/file_ops.hpp"

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

std::uint64_t random_u64() {
  std::uint64_t r = 0;
  const int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::read(fd, &r, sizeof r) != static_cast<ssize_t>(sizeof r))
    r = (static_cast<std::uint64_t>(std::random_device{}()) << 32) | std::random_device{}();
  if (fd >= 0) ::close(fd);
  return r;
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

namespace {

// The phases that move the ranks' data files (not the metadata phases).
std::uint64_t data_phases(const Workload& w) {
  std::uint64_t n = 0;
  for (auto p : w.phases)
    n += phase_desc(p).metadata() ? 0 : 1;
  return n;
}

// The metadata phases' layout at every point: items, streams, branch and folders.
void print_md_plan(std::FILE* out, const Config& cfg, const std::vector<SweepPoint>& points) {
  const MdSpec& md = cfg.work.md;
  if (data_phases(cfg.work) == cfg.work.phases.size()) return;
  std::fprintf(out, "  metadata: %s\n", describe_md(md).c_str());
  std::fprintf(out, "  files of the metadata phases: %s/iosweep.<run-id>.md/, always removed\n",
               printable(cfg.work.dirs.front()).c_str());
  std::fprintf(out, "%6s %8s %12s %8s %10s\n", "ranks", "streams", "items", "branch", "folders");
  MdPoint plan;
  for (const SweepPoint& pt : points) {
    if (!plan_md_point(md, pt.ranks, pt.per_rank.depth, plan).empty()) continue;
    std::fprintf(out, "%6d %8llu %12llu %8llu %10llu\n", pt.ranks,
                 static_cast<unsigned long long>(plan.layout.streams) *
                     static_cast<unsigned long long>(pt.ranks),
                 static_cast<unsigned long long>(plan.items()),
                 static_cast<unsigned long long>(plan.layout.tree.branch),
                 static_cast<unsigned long long>(plan.folders()));
  }
}

// The data phases' files, bytes and footprint at every point.
void print_data_plan(std::FILE* out, const Config& cfg, const std::vector<SweepPoint>& points,
                     const Topology& topo) {
  const Workload& w = cfg.work;
  const bool by_streams = !cfg.sweep.streams.empty();
  std::string dirs;
  for (const auto& d : w.dirs)
    dirs += (dirs.empty() ? "" : ", ") + printable(d);
  std::fprintf(out, "  files: %s/iosweep.<run-id>.<position>, removed at the end%s\n",
               w.dirs.size() == 1 ? dirs.c_str() : "<folder>",
               w.keep ? " unless kept (--keep: kept)" : "");
  if (w.dirs.size() > 1)
    std::fprintf(out,
                 "  folders: %s; a node's ranks take them round-robin by their index within the "
                 "node\n",
                 dirs.c_str());
  if (by_streams) std::fprintf(out, "%8s %6s ", "streams", "depth");
  std::fprintf(out, "%6s %6s %6s %14s %16s\n", "ranks", "nodes", "files", "bytes/phase",
               "bytes/point");
  std::uint64_t total = 0;
  for (const SweepPoint& pt : points) {
    const int k = pt.ranks;
    const std::uint64_t per_phase = static_cast<std::uint64_t>(k) * w.file_size;
    const std::uint64_t per_point =
        per_phase * data_phases(w) * static_cast<std::uint64_t>(cfg.sweep.repetitions);
    total += per_point;
    if (by_streams)
      std::fprintf(out, "%8llu %6u ", static_cast<unsigned long long>(pt.streams()),
                   pt.per_rank.depth);
    std::fprintf(out, "%6d %6d %6d %14s %16s\n", k, topo.nodes_used(k), k,
                 format_size(per_phase).c_str(), format_size(per_point).c_str());
  }
  std::fprintf(out, "  total: %zu point(s), %s moved; largest footprint %s on disk\n",
               points.size(), format_size(total).c_str(),
               format_size(static_cast<std::uint64_t>(points.empty() ? 0 : points.back().ranks) *
                           w.file_size)
                   .c_str());
}

}  // namespace

std::uint64_t planned_bytes_of_rank0(const Config& cfg, const std::vector<SweepPoint>& points) {
  return static_cast<std::uint64_t>(points.size()) *
         static_cast<std::uint64_t>(cfg.sweep.repetitions) * data_phases(cfg.work) *
         cfg.work.file_size;
}

void print_plan(std::FILE* out, const Config& cfg, const std::vector<SweepPoint>& points,
                const Topology& topo) {
  std::fprintf(out, "iosweep dry run: nothing is created, written or removed.\n");
  const Workload& w = cfg.work;
  const bool by_streams = !cfg.sweep.streams.empty();
  std::fprintf(out, "  engine %s%s, %s per rank, records seq %s / rand %s / scan %s\n",
               engine_desc(cfg.io.engine).name, cfg.io.direct ? " (O_DIRECT)" : "",
               format_size(w.file_size).c_str(), format_size(w.seq_record).c_str(),
               format_size(w.rand_record).c_str(), format_size(w.scan_record).c_str());
  std::string phases;
  for (auto p : w.phases)
    phases += (phases.empty() ? "" : ", ") + std::string(phase_desc(p).name);
  std::fprintf(out, "  phases (in this order): %s; %d repetition(s)\n", phases.c_str(),
               cfg.sweep.repetitions);
  if (by_streams)
    std::fprintf(out,
                 "  streams: ranks x depth; random phases keep depth requests in flight, "
                 "sequential phases stream depth regions of each file side by side\n");
  if (!cfg.preset_file.empty())
    std::fprintf(out, "  preset: %s\n", printable(cfg.preset_file).c_str());
  const std::string results = fsops::absolute_path(cfg.report.output);
  const bool made = cfg.report.output_is_default &&
                    !fsops::exists(std::filesystem::path(results).parent_path().string());
  std::fprintf(out, "  results: appended to %s%s\n", printable(results).c_str(),
               made ? " (--output's default: the run makes its folder)" : "");
  if (data_phases(w) > 0) print_data_plan(out, cfg, points, topo);
  print_md_plan(out, cfg, points);
}

}  // namespace iosweep
