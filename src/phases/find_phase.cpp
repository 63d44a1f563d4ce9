// The timestamp and find phases (see find_phase.hpp).
#include "phases/find_phase.hpp"

#include <fnmatch.h>

#include <cerrno>

#include "core/clock.hpp"
#include "core/errors.hpp"
#include "os/tree_walk.hpp"

namespace iosweep {
namespace {

// Every rank's '\0'-ended paths, in rank order, on every rank.
std::vector<std::string> all_of(const std::string& mine, MPI_Comm comm, int k) {
  const int n = static_cast<int>(mine.size());
  std::vector<int> sizes(static_cast<std::size_t>(k)), at(static_cast<std::size_t>(k));
  MPI_Allgather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, comm);
  int total = 0;
  for (int r = 0; r < k; ++r) {
    at[static_cast<std::size_t>(r)] = total;
    total += sizes[static_cast<std::size_t>(r)];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  MPI_Allgatherv(mine.data(), n, MPI_CHAR, all.data(), sizes.data(), at.data(), MPI_CHAR, comm);
  std::vector<std::string> out;
  for (std::size_t from = 0; from < all.size();) {
    const std::size_t end = all.find('\0', from);
    out.push_back(all.substr(from, end - from));
    from = end + 1;
  }
  return out;
}

}  // namespace

std::string TreePhase::validate(const Workload& work, const EngineOptions& io) const {
  (void)io;
  if (desc().id == kTimestamp && work.find.newer.empty())
    return "--find-newer: the timestamp phase makes the file it names; give one";
  return {};
}

EngineNeed TreePhase::engine_need(const Workload& work, const EngineOptions& io,
                                  const RankStreams& per_rank) const {
  (void)work;
  (void)io;
  (void)per_rank;
  return {1, EngineUse::metadata};
}

// The folder paths of a level, held twice over its exchange: a bound for the plan's memory
// check, not an allocation.
std::uint64_t TreePhase::buffer_bytes(const Workload& work, const SweepPoint& point,
                                      const PhasePlan& plan) const {
  (void)work;
  (void)point;
  (void)plan;
  return desc().id == kFind ? std::uint64_t{1} << 20 : 0;
}

std::uint64_t TreePhase::progress_record(const Workload& work) const {
  (void)work;
  return 1;  // progress counts files examined
}

void TreePhase::prepare(PhaseContext& ctx) {
  root_ = ctx.work.dirs.front();
  ctx.progress_total = desc().id == kTimestamp ? 1 : 0;
  newer_ctime_s_ = 0;
  if (desc().id == kFind && !ctx.work.find.newer.empty()) {
    const PulseStep step(ctx.pulse, "stat", "stat of " + ctx.work.find.newer);
    newer_ctime_s_ = fsops::ctime_s_of(ctx.work.find.newer);
  }
}

// One folder: its sub-folders appended to `below`, its other entries examined.
void TreePhase::list_one(PhaseContext& ctx, const std::string& folder, std::string& below,
                         Walk& w) const {
  const FindSpec& f = ctx.work.find;
  const bool needs_stat = !f.newer.empty() || f.size_given;
  std::string current;  // the entry being examined, for an error's message
  // A file's latency: from the folder's open or the previous file's end to its own end (see
  // find_phase.hpp).
  std::uint64_t last_ns = now_ns();
  const auto done = [&] {
    const std::uint64_t t = now_ns();
    ctx.latency.record(t - last_ns);
    last_ns = t;
  };
  try {
    fsops::list_folder(folder, [&](int dirfd, const char* name, fsops::EntryKind kind) {
      fsops::EntryStat st;
      bool stated = false;
      if (kind == fsops::EntryKind::unknown) {  // the file system did not say: a stat tells
        current = folder + "/" + name;
        if (!fsops::stat_at(dirfd, name, st)) throw IoError::of_file("stat", current, errno);
        stated = true;
        kind = st.folder ? fsops::EntryKind::folder : fsops::EntryKind::other;
      }
      if (kind == fsops::EntryKind::folder) {
        below.append(folder).append("/").append(name).push_back('\0');
        return;
      }
      ++w.examined;
      if (::fnmatch(f.name.c_str(), name, 0) != 0) {
        done();
        return;
      }
      if (needs_stat && !stated) {
        current = folder + "/" + name;
        if (!fsops::stat_at(dirfd, name, st)) throw IoError::of_file("stat", current, errno);
      }
      done();
      if (!f.newer.empty() && st.ctime_s < newer_ctime_s_) return;
      if (f.size_given && st.size_bytes != f.size) return;
      ++w.found;
    });
  } catch (const std::exception& e) {
    w.failure = e.what();
  }
}

// The level walk: every rank lists its share of the level, then every rank learns the next.
void TreePhase::find(PhaseContext& ctx, Walk& w) const {
  std::vector<std::string> level{root_};
  const auto k = static_cast<std::size_t>(ctx.k);
  while (!level.empty()) {
    std::string below;
    for (std::size_t i = static_cast<std::size_t>(ctx.self.position); i < level.size(); i += k) {
      if (!w.failure.empty()) break;
      if (ctx.stop != nullptr && ctx.stop->load(std::memory_order_relaxed)) {
        w.failure = "stopped";
        break;
      }
      const std::uint64_t before = w.examined;
      list_one(ctx, level[i], below, w);
      if (ctx.progress_bytes != nullptr)
        ctx.progress_bytes->fetch_add(w.examined - before, std::memory_order_relaxed);
    }
    level = all_of(below, ctx.active, ctx.k);
  }
}

void TreePhase::run(PhaseContext& ctx, RankSample& s) {
  CpuClock cpu;
  cpu.start();
  s.t_start_unix_ns = unix_now_ns();
  const std::uint64_t t0 = now_ns();
  Walk w;
  if (desc().id == kTimestamp) {
    if (ctx.self.position == 0) {
      fsops::make_timestamp(ctx.work.find.newer);
      ctx.latency.record(now_ns() - t0);
      w.examined = 1;
    }
  } else {
    find(ctx, w);
  }
  const std::uint64_t t1 = now_ns();
  record_cpu(cpu.stop(), s);
  if (!w.failure.empty()) throw RunFailure("find below " + root_ + ": " + w.failure);
  s.file = ctx.self.position;
  s.ops = w.examined;
  s.matches = w.found;
  s.elapsed_s = s.io_s = ns_to_s(t1 - t0);
  s.latency_max_ns = ctx.latency.max_ns();
  s.rss_peak_bytes = self_usage().rss_peak_bytes;
  s.private_bytes = private_bytes();
}

}  // namespace iosweep
