// The metadata phases (see md_phase.hpp).
#include "phases/md_phase.hpp"

#include <algorithm>

#include "core/clock.hpp"
#include "model/md_plan.hpp"
#include "os/process.hpp"

namespace iosweep {
namespace {

// Bytes a name takes in the table at most: the tree's top, a component per level, the item's
// own name, its end and its offset.
std::uint64_t name_bytes(unsigned depth) {
  return 24 + std::uint64_t{depth} * 22 + 64 + 1 + 8;
}

bool folder_phase(PhaseId id) {
  return id == kMdMkdir || id == kMdRmdir;
}

}  // namespace

IoOp MdPhase::op() const {
  switch (desc().id) {
    case kMdMkdir:
      return IoOp::mkdir;
    case kMdCreate:
      return IoOp::create;
    case kMdStat:
      return IoOp::stat;
    case kMdRead:
      return IoOp::read_item;
    case kMdRemove:
      return IoOp::unlink;
    default:
      return IoOp::rmdir;
  }
}

std::string MdPhase::validate(const Workload& work, const EngineOptions& io) const {
  (void)io;
  if (desc().id == kMdRead && work.md.read_bytes > work.md.write_bytes)
    return "--md-read-bytes: " + std::to_string(work.md.read_bytes) + " bytes is more than the " +
           std::to_string(work.md.write_bytes) + " each item holds (--md-write-bytes)";
  return {};
}

// Every request in flight is a stream of its own (its own tree in the private layout), with
// --iodepth as with --streams: creates and removes in one folder wait for one another in the
// client's kernel, so requests that share a folder would not be independent.
EngineNeed MdPhase::engine_need(const Workload& work, const EngineOptions& io,
                                const RankStreams& per_rank) const {
  (void)work;
  (void)io;
  return {per_rank.depth, EngineUse::metadata};
}

std::uint64_t MdPhase::buffer_bytes(const Workload& work, const EngineOptions& io,
                                    const SweepPoint& point) const {
  (void)io;
  MdPoint plan;
  if (!plan_md_point(work.md, point.ranks, point.per_rank.depth, plan).empty()) return 0;
  const std::uint64_t ops = folder_phase(desc().id) ? plan.layout.folder_ops(0) : plan.items_of(0);
  const std::uint64_t per_request =
      (desc().id == kMdRead ? work.md.read_bytes : 0) + 256;  // its read buffer, a statx
  return ops * name_bytes(work.md.depth) + per_request * point.per_rank.depth + work.md.write_bytes;
}

// md-stat and md-read look items up: with --cache drop, every node's dentry and inode caches
// and its page cache go first, so that the answers come from the storage (the row says whether
// the kernel let iosweep drop them). The page cache too: a local file system's inode tables
// and folders sit in its block device's page cache, which answers a lookup whose dentry and
// inode were dropped without a read of the device (measured: 0 device bytes per stat).
int MdPhase::caches_to_drop(const Workload& work, const EngineOptions& io) const {
  (void)io;
  return desc().lookup() && work.cache == CacheMode::drop ? 3 : 0;
}

std::uint64_t MdPhase::progress_record(const Workload& work) const {
  (void)work;
  return 1;  // progress counts operations
}

// Untimed, collective: what the phase needs and no earlier phase of the repetition made.
bool MdPhase::ensure(PhaseContext& ctx) {
  MdSet& md = *ctx.md;
  switch (desc().id) {
    case kMdMkdir:
      return true;
    case kMdCreate:
      return md.ensure_tree(ctx.active);
    case kMdRmdir:
      return md.ensure_tree(ctx.active) && md.ensure_no_items(ctx.active);
    default:
      return md.ensure_tree(ctx.active) && md.ensure_items(ctx.active);
  }
}

// Every name the window will hand the engine, and what each folder request waits for.
void MdPhase::build_names(const PhaseContext& ctx) {
  const MdSet& md = *ctx.md;
  const MdLayout& l = md.plan().layout;
  const int me = ctx.self.position;
  names_.clear();
  needs_.clear();
  if (folder_phase(desc().id)) {
    const std::uint64_t n = l.folder_ops(me);
    const bool make = desc().id == kMdMkdir;
    names_.reserve(n, n * name_bytes(l.tree.depth));
    for (std::uint64_t o = 0; o < n; ++o) {
      names_.add([&](std::string& s) { l.append_folder_op(me, make ? o : n - 1 - o, s); });
      needs_.push_back(make ? l.make_needs(o) : l.remove_needs(me, o));
    }
    return;
  }
  const std::uint64_t planned = md.plan().items_of(source_);
  const std::uint64_t n = desc().id == kMdCreate ? planned : md.created_of(source_);
  names_.reserve(n, n * name_bytes(l.tree.depth));
  for (std::uint64_t o = 0; o < n; ++o)
    names_.add([&](std::string& s) { l.append_item_op(source_, planned, o, s); });
}

void MdPhase::prepare(PhaseContext& ctx) {
  ready_ = false;
  MdPoint plan;
  if (auto why = plan_md_point(ctx.work.md, ctx.k, ctx.streams.depth, plan); !why.empty())
    throw UsageError(why);
  MdSet& md = *ctx.md;
  if (!md.begin(ctx.active, ctx.point_index, ctx.repetition, plan,
                engine_desc(ctx.io.engine).moves_data) ||
      !ensure(ctx))
    return;  // another rank failed: the point's gate stops it
  source_ = desc().lookup() ? ctx.read_position : ctx.self.position;
  build_names(ctx);
  dir_ = ctx.engine->open(md.path(), {.folder = true});
  if (desc().id == kMdRead)
    read_buffers_ = AlignedBuffer(ctx.work.md.read_bytes * ctx.engine->depth());
  ctx.progress_total = names_.size();
  ready_ = true;
}

MdJob MdPhase::job(PhaseContext& ctx) {
  MdJob j;
  j.engine = ctx.engine;
  j.dir = dir_;
  j.dir_path = ctx.md->path();
  j.op = op();
  j.names = &names_;
  j.end = names_.size();
  j.bytes = desc().id == kMdCreate ? ctx.work.md.write_bytes
            : desc().id == kMdRead ? ctx.work.md.read_bytes
                                   : 0;
  j.source = ctx.md->content();
  j.read_buffers = read_buffers_.span();
  j.sync = desc().id == kMdCreate && ctx.work.md.fsync;
  j.needs = needs_.empty() ? nullptr : &needs_;
  return j;
}

void MdPhase::run(PhaseContext& ctx, RankSample& s) {
  // Everything the window needs is set up before its clock starts.
  MdJob j = job(ctx);
  MdDriver driver(j);
  CpuClock cpu;
  cpu.start();
  s.t_start_unix_ns = unix_now_ns();
  const std::uint64_t t0 = now_ns();
  j.t0_ns = t0;
  j.deadline_ns =
      ctx.work.stonewall_s > 0 ? t0 + static_cast<std::uint64_t>(ctx.work.stonewall_s * 1e9) : 0;
  j.latency = &ctx.latency;
  j.series = &ctx.series;
  j.progress_ops = ctx.progress_bytes;
  j.stop = ctx.stop;
  timed_ = driver.run();
  const std::uint64_t t1 = now_ns();
  const CpuSpent spent = cpu.stop();
  // Outside the timed window from here on.
  s.file = source_;
  s.ops = timed_.ops;
  s.bytes = timed_.bytes;
  s.elapsed_s = s.io_s = ns_to_s(t1 - t0);
  s.stonewalled = timed_.stonewalled ? 1 : 0;
  s.latency_max_ns = ctx.latency.max_ns();
  record_cpu(spent, s);
  s.rss_peak_bytes = self_usage().rss_peak_bytes;
  s.private_bytes = private_bytes();
  const MdPoint& plan = ctx.md->plan();
  s.md_items = plan.items_of(ctx.self.position);
  s.md_folders = plan.layout.folder_ops(ctx.self.position);
  s.md_branch = plan.layout.tree.branch;
  MdSet& md = *ctx.md;
  switch (desc().id) {
    case kMdMkdir:
      return md.note_made(timed_.next);
    case kMdCreate:
      return md.note_created(timed_.next);
    case kMdRemove:
      return md.note_removed(timed_.next);
    case kMdRmdir:
      return md.note_unmade(timed_.next);
    default:
      return;
  }
}

// IO500's wear-out for md-create: after the stonewall every rank goes on, untimed, to the count
// of the rank that got furthest (at most its own items), so the phases after it touch as many
// items on every rank.
void MdPhase::finish(PhaseContext& ctx, RankSample& s) {
  if (desc().id != kMdCreate || !ctx.work.stonewall_wearout || ctx.work.stonewall_s <= 0) return;
  std::uint64_t mine = timed_.next, furthest = 0;
  MPI_Allreduce(&mine, &furthest, 1, MPI_UINT64_T, MPI_MAX, ctx.active);
  const std::uint64_t target = std::min<std::uint64_t>(furthest, names_.size());
  if (target <= mine) return;
  const std::uint64_t t0 = now_ns();
  MdJob j = job(ctx);
  j.begin = mine;
  j.end = target;
  j.stop = ctx.stop;
  const MdResult r = run_md(j);
  s.wearout_ops = r.ops;
  s.wearout_bytes = r.bytes;
  s.wearout_s = ns_to_s(now_ns() - t0);
  ctx.md->note_created(r.next);
}

void MdPhase::cleanup(PhaseContext& ctx) {
  if (dir_ >= 0 && ctx.engine != nullptr) ctx.engine->close(dir_);
  dir_ = -1;
  names_.clear();
  needs_.clear();
  read_buffers_ = AlignedBuffer();
  ready_ = false;
}

}  // namespace iosweep
