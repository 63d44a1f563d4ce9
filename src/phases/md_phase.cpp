// The metadata phases (see md_phase.hpp).
#include "phases/md_phase.hpp"

#include <algorithm>
#include <exception>

#include "core/clock.hpp"
#include "model/md_plan.hpp"
#include "os/file_ops.hpp"
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

std::uint64_t MdPhase::buffer_bytes(const Workload& work, const SweepPoint& point,
                                    const PhasePlan& plan) const {
  const MdPoint& md = plan.md;
  const std::uint64_t ops = folder_phase(desc().id) ? md.layout.folder_ops(0) : md.items_of(0);
  const std::uint64_t per_request =
      (desc().id == kMdRead ? work.md.read_bytes : 0) + 256;  // its read buffer, a statx
  // What the run records of its folders and items (a device and an inode each), and the
  // folders a window holds (a path each).
  const std::uint64_t records = (md.items_of(0) + md.layout.folder_ops(0)) * sizeof(MdId);
  const std::uint64_t held = md.layout.folder_ops(0) * (sizeof(MdFolder) + 64);
  return ops * name_bytes(work.md.depth) + per_request * point.per_rank.depth +
         work.md.write_bytes + records + held;
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

// Every name the window will hand the engine: one component in a held folder (a path below the
// set folder when the folders are resolved by openat2, and for md-mkdir), and what each folder
// request waits for.
void MdPhase::build_names(const PhaseContext& ctx) {
  const MdSet& md = *ctx.md;
  const MdLayout& l = md.plan().layout;
  const int me = ctx.self.position;
  const bool paths = held_.beneath() || desc().id == kMdMkdir;
  names_.clear();
  needs_.clear();
  if (folder_phase(desc().id)) {
    const std::uint64_t n = l.folder_ops(me);
    const bool make = desc().id == kMdMkdir;
    names_.reserve(n, n * name_bytes(l.tree.depth));
    for (std::uint64_t o = 0; o < n; ++o) {
      const std::uint64_t op = make ? o : n - 1 - o;
      const auto [st, j] = l.folder_op(op);
      const std::uint32_t in = paths || j == 0 ? 0 : held_.index(st, l.tree.parent(j));
      names_.add(in, [&, st = st, j = j](std::string& s) {
        if (paths)
          l.append_folder_op(me, op, s);
        else if (j == 0)
          l.append_top(me, st, s);
        else
          l.tree.append_leaf(j, s);
      });
      needs_.push_back(make ? l.make_needs(o) : l.remove_needs(me, o));
    }
    return;
  }
  const std::uint64_t planned = md.plan().items_of(source_);
  const std::uint64_t n = desc().id == kMdCreate ? planned : md.created_of(source_);
  names_.reserve(n, n * name_bytes(l.tree.depth));
  for (std::uint64_t o = 0; o < n; ++o) {
    const auto [st, i] = interleaved(planned, l.streams, o);
    const std::uint64_t ns = share_of(planned, l.streams, st);
    const std::uint64_t tree = l.shared ? 0 : st, j = l.folder_of(i, ns);
    names_.add(held_.index(tree, j), [&, st = st, i = i](std::string& s) {
      if (paths)
        l.append_item(source_, st, i, ns, s);
      else
        l.append_item_name(source_, st, i, s);
    });
  }
}

void MdPhase::prepare(PhaseContext& ctx) {
  ready_ = false;
  const MdPoint& plan = ctx.plan->md;
  MdSet& md = *ctx.md;
  if (!md.begin(ctx.active, ctx.point_index, ctx.repetition, plan,
                engine_desc(ctx.io.engine).moves_data) ||
      !ensure(ctx))
    return;  // another rank failed: the point's gate stops it
  source_ = desc().lookup() ? ctx.read_position : ctx.self.position;
  const int reader = ((ctx.self.position - ctx.read_shift) % ctx.k + ctx.k) % ctx.k;
  const MdSet::Hold what = desc().id == kMdMkdir   ? MdSet::Hold::set
                           : desc().id == kMdRmdir ? MdSet::Hold::parents
                                                   : MdSet::Hold::items;
  const PulseStep step(ctx.pulse, "open", "open of the metadata folders this rank touches");
  if (!md.hold(ctx.active, what, source_, reader, held_)) return;
  if (held_.beneath() && ctx.self.position == 0)
    ctx.notes.emplace_back(
        "folders resolved by openat2 per operation (more folders than a rank may hold "
        "descriptors): 2 calls more per operation");
  build_names(ctx);
  if (desc().id == kMdRead)
    read_buffers_ = AlignedBuffer(ctx.work.md.read_bytes * ctx.engine->depth());
  ctx.progress_total = names_.size();
  ready_ = true;
}

MdJob MdPhase::job(PhaseContext& ctx) {
  MdJob j;
  j.engine = ctx.engine;
  j.folders = &held_.folders();
  j.beneath = held_.beneath();
  j.op = op();
  j.names = &names_;
  j.end = names_.size();
  j.bytes = desc().id == kMdCreate ? ctx.work.md.write_bytes
            : desc().id == kMdRead ? ctx.work.md.read_bytes
                                   : 0;
  j.source = ctx.md->content();
  j.read_buffers = read_buffers_.span();
  // mdtest -X: every item's bytes checked inside the window (all items hold the same bytes).
  if (desc().id == kMdRead && ctx.work.verify) j.expect = ctx.md->content();
  j.sync = desc().id == kMdCreate && ctx.work.md.fsync;
  j.needs = needs_.empty() ? nullptr : &needs_;
  j.pulse = ctx.pulse;
  return j;
}

bool MdPhase::creates() const {
  return desc().id == kMdMkdir || desc().id == kMdCreate;
}

// After a window, what it reached (also when it failed part way): what it made, to be recorded;
// what it removed, forgotten.
void MdPhase::note_reached(MdSet& md, const MdResult& reached) const {
  if (creates()) return md.end_pass(reached);
  if (desc().id == kMdRemove) return md.note_removed(reached);
  if (desc().id == kMdRmdir) return md.note_unmade(reached);
}

void MdPhase::run(PhaseContext& ctx, RankSample& s) {
  // Everything the window needs is set up before its clock starts.
  MdJob j = job(ctx);
  MdDriver driver(j);
  MdSet& md = *ctx.md;
  if (creates() && !md.begin_pass(op(), 0))
    throw RunFailure("stopping: the run is removing its metadata folders, nothing more is made");
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
  try {
    timed_ = driver.run();
    if (ctx.work.md.sync) fsops::sync_all();  // mdtest -Y: inside the window
  } catch (...) {
    note_reached(md, driver.result());
    throw;
  }
  const std::uint64_t t1 = now_ns();
  const CpuSpent spent = cpu.stop();
  // Outside the timed window from here on.
  note_reached(md, timed_);
  s.file = source_;
  s.ops = timed_.ops;
  s.bytes = timed_.bytes;
  s.elapsed_s = s.io_s = ns_to_s(t1 - t0);
  s.stonewalled = timed_.stonewalled ? 1 : 0;
  s.bad_blocks = timed_.bad_items;
  s.latency_max_ns = ctx.latency.max_ns();
  record_cpu(spent, s);
  s.rss_peak_bytes = self_usage().rss_peak_bytes;
  s.private_bytes = private_bytes();
  const MdPoint& plan = md.plan();
  s.md_items = plan.items_of(ctx.self.position);
  s.md_folders = plan.layout.folder_ops(ctx.self.position);
  s.md_branch = plan.layout.tree.branch;
}

// Untimed, collective: the identities of what the window made, recorded; for md-create with
// IO500's wear-out, every rank then goes on past the stonewall to the count of the rank that
// got furthest (at most its own items), so the phases after it touch as many items on every
// rank, and what that made is recorded too.
void MdPhase::finish(PhaseContext& ctx, RankSample& s) {
  if (!creates()) return;
  MdSet& md = *ctx.md;
  if (!md.record_pass(ctx.active)) return;
  if (desc().id != kMdCreate || !ctx.work.stonewall_wearout || ctx.work.stonewall_s <= 0) return;
  std::uint64_t mine = timed_.next, furthest = 0;
  MPI_Allreduce(&mine, &furthest, 1, MPI_UINT64_T, MPI_MAX, ctx.active);
  const std::uint64_t target = std::min<std::uint64_t>(furthest, names_.size());
  std::exception_ptr failed;
  if (target > mine && md.begin_pass(IoOp::create, mine)) {
    const std::uint64_t t0 = now_ns();
    MdJob j = job(ctx);
    j.begin = mine;
    j.end = target;
    j.stop = ctx.stop;
    MdDriver driver(j);
    try {
      driver.run();
    } catch (...) {
      failed = std::current_exception();
    }
    md.end_pass(driver.result());
    s.wearout_ops = driver.result().ops;
    s.wearout_bytes = driver.result().bytes;
    s.wearout_s = ns_to_s(now_ns() - t0);
  }
  // Every rank records (collective), also one whose wear-out failed: then it says why.
  md.record_pass(ctx.active);
  if (failed) std::rethrow_exception(failed);
}

void MdPhase::cleanup(PhaseContext& ctx) {
  (void)ctx;
  held_.release();
  names_.clear();
  needs_.clear();
  read_buffers_ = AlignedBuffer();
  ready_ = false;
}

}  // namespace iosweep
