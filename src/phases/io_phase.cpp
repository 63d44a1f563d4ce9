// Sequential and random read/write phases (see io_phase.hpp).
#include "phases/io_phase.hpp"

#include <algorithm>
#include <exception>
#include <numeric>
#include <optional>
#include <vector>

#include "core/clock.hpp"
#include "core/errors.hpp"
#include "core/units.hpp"
#include "os/file_ops.hpp"

namespace iosweep {
namespace {

// Writing a file untimed keeps at most this many bytes in flight, whatever the engine's depth:
// a rand-write engine at depth 1024 would otherwise hold 1024 records of --seq-record.
constexpr std::uint64_t kCreationBytesInFlight = 64ull << 20;

// The records a file is written in untimed: --seq-record when it divides the file, else the
// largest size that divides both (so that it divides a strided block too); a run of random
// phases alone, whose file no phase checks against --seq-record, takes --rand-record instead
// when that is larger and divides the file (records of any byte size can leave the common
// divisor a few bytes).
std::uint64_t creation_record(const Workload& work) {
  const std::uint64_t r = std::gcd(work.seq_record, work.file_size);
  const bool strided = work.shared() && work.shared_pattern == SharedPattern::strided;
  if (!strided && work.rand_record > r && work.file_size % work.rand_record == 0)
    return work.rand_record;
  return r;
}

unsigned creation_depth(unsigned depth, std::uint64_t record) {
  const std::uint64_t cap = std::max<std::uint64_t>(1, kCreationBytesInFlight / record);
  return static_cast<unsigned>(std::min<std::uint64_t>(depth, cap));
}

// The order a phase visits its records in: shuffled for random phases; front to back for
// sequential ones, or over the point's regions side by side (--streams).
RecordOrder order_of(const PhaseDesc& desc, std::uint64_t n, const RankStreams& per_rank,
                     std::uint64_t seed) {
  if (desc.random()) return RecordOrder::shuffled(n, seed);
  return per_rank.regions > 1 ? RecordOrder::striped(n, per_rank.regions)
                              : RecordOrder::sequential(n);
}

// Pattern copies a write over `order` needs so that its streams never wait for one another's
// part of the pattern (regions that start a multiple of 16 MiB apart share it).
std::size_t stream_copies(const RecordOrder& order, std::uint64_t record,
                          std::uint64_t file_bytes) {
  if (order.shuffled() || order.regions() <= 1) return 1;
  std::vector<std::uint64_t> starts;
  for (std::uint64_t r = 0; r < order.regions(); ++r)
    starts.push_back(order.region_start(r) * record);
  return PatternBuffer::copies_for_streams(starts, static_cast<std::size_t>(record), file_bytes);
}

// The rank's file of an earlier phase, removed before a fresh one is made: a removal that
// fails (its drive gone, its file system shut down) stops the run with the unlink's errno
// rather than with the exclusive create's EEXIST after it.
void remove_for_a_fresh_one(FileSet& files, const std::string& path) {
  if (const int err = files.remove_own(); err != 0)
    throw IoError("unlink", path, 0, err, "the file of the phase before could not be removed");
}

}  // namespace

std::uint64_t creation_buffer_bytes(const Workload& work, unsigned depth) {
  const std::uint64_t record = creation_record(work);
  return PatternBuffer::bytes_for(record, creation_depth(depth, record), work.file_size);
}

void Verifier::check(const std::byte* p, std::uint64_t offset, std::size_t len) {
  const std::uint64_t t = now_ns();
  bad_blocks += image_ ? image_->verify(offset, {p, len}, &first)
                       : verify_(*spec, file, offset, {p, len}, &first);
  ns += now_ns() - t;
}

void Verifier::fill(RankSample& s) const {
  s.verify_s = ns_to_s(ns);
  s.bad_blocks = bad_blocks;
  if (first.any) {
    s.mismatch_offset = first.offset;
    s.mismatch_expected = first.expected;
    s.mismatch_found = first.found;
  }
}

std::string check_record(const Workload& work, const EngineOptions& io, std::uint64_t rec,
                         const char* option) {
  const std::string opt = option;
  if (rec == 0) return opt + ": must be larger than zero";
  // Records of any byte size go through the page cache; O_DIRECT moves whole logical blocks.
  if (io.direct && rec % work.direct_alignment != 0)
    return opt + ": " + format_size(rec) + " is not a multiple of " +
           std::to_string(work.direct_alignment) +
           " bytes, the logical block of --dir's device: O_DIRECT needs buffer, offset and "
           "length aligned to it (the O_DIRECT alignment; records of any size need the page "
           "cache: leave out --direct)";
  if (rec > work.file_size)
    return opt + ": " + format_size(rec) + " is larger than --file-size " +
           format_size(work.file_size);
  // A file holds whole records, as IOR's -b holds whole -t: no tail is left unwritten.
  if (work.file_size % rec != 0)
    return "--file-size: " + format_size(work.file_size) + " is not a multiple of " + opt + " " +
           format_size(rec) + " (a file holds whole records)";
  if (rec > (1ull << 30)) return opt + ": records above 1 GiB are not supported";
  return {};
}

std::string IoPhase::validate(const Workload& work, const EngineOptions& io) const {
  return check_record(work, io, work.record_bytes(desc().record), record_option(desc().record));
}

// No more requests in flight than the phase has records: a depth beyond them would only
// allocate buffers (a 4 MiB file of 1 MiB records at --iodepth 4096 held 4096 of them).
EngineNeed IoPhase::engine_need(const Workload& work, const EngineOptions& io,
                                const RankStreams& per_rank) const {
  (void)io;
  const std::uint64_t records = work.file_size / work.record_bytes(desc().record);
  return {static_cast<unsigned>(std::clamp<std::uint64_t>(records, 1, per_rank.depth)),
          EngineUse::io};
}

std::uint64_t IoPhase::buffer_bytes(const Workload& work, const SweepPoint& point,
                                    const PhasePlan& plan) const {
  const RankStreams& per_rank = point.per_rank;
  const std::uint64_t record = plan.record_bytes;
  const unsigned depth = plan.depth;
  std::uint64_t own = record * depth * (work.verify ? 2 : 1);
  if (writes()) {
    const std::size_t copies =
        desc().random()
            ? 1
            : stream_copies(RecordOrder::striped(work.file_size / record, per_rank.regions), record,
                            work.file_size);
    own = PatternBuffer::bytes_for(record, depth, work.file_size, copies);
  }
  return std::max<std::uint64_t>(own, creation_buffer_bytes(work, depth));
}

void IoPhase::prepare(PhaseContext& ctx) {
  const Workload& work = ctx.work;
  Engine& engine = *ctx.engine;
  record_ = work.record_bytes(desc().record);
  file_position_ = writes() ? ctx.self.position : ctx.read_position;
  path_ = ctx.files.path(file_position_);
  const PulseStep step(ctx.pulse, "prepare", "preparing " + path_);  // removal, creation, drop
  create_in_window_ = false;
  if (desc().creates()) {
    data_bytes_ = work.file_size;
    remove_for_a_fresh_one(ctx.files, path_);  // a fresh file every initial write, as IOzone's -i0
    if (ctx.files.shared()) {
      // The shared file is made by its creator before the window (the agreement after
      // prepare orders it before every other rank's open), as IOR's rank 0 does.
      if (ctx.files.creator())
        ctx.files.create_own([&] {
          return fsops::create_preallocated(
              path_, preallocates(ctx) ? file_bytes_of(ctx, work.file_size) : 0);
        });
    } else if (preallocates(ctx)) {
      ctx.files.create_own([&] { return fsops::create_preallocated(path_, work.file_size); });
    } else {
      create_in_window_ = true;
    }
  } else {
    data_bytes_ = writes() ? ctx.files.valid_bytes() : ctx.read_valid_bytes;
  }
  const std::uint64_t n = data_bytes_ / record_;
  // Random orders differ per run (or --order-seed), point, repetition, position and phase.
  const std::uint64_t order_seed = mix64(
      ctx.order_seed ^ mix64(static_cast<std::uint64_t>(ctx.self.position) * 0x100 + desc().id));
  order_ = order_of(desc(), n, ctx.streams, order_seed);
  if (writes()) {
    source_ = std::make_unique<PatternBuffer>(ctx.data, static_cast<std::uint64_t>(file_position_),
                                              record_, engine.depth(), work.hugepages,
                                              stream_copies(*order_, record_, ctx.data.file_bytes));
    const std::span<std::byte> bufs[] = {source_->memory()};
    engine.register_buffers(bufs);
  } else {
    read_buffers_ = AlignedBuffer(read_buffer_bytes(engine, record_, work.verify), work.hugepages);
    read_buffers_.touch();
    const std::span<std::byte> bufs[] = {read_buffers_.span()};
    engine.register_buffers(bufs);
    if (work.cache == CacheMode::drop && !ctx.io.direct) fsops::drop_cache(path_);
    cached_fraction_ = cached_fraction(path_, file_bytes_of(ctx, data_bytes_));
  }
  layout_ = layout_of(ctx, file_position_);
  ctx.progress_total = data_bytes_;
}

DriverJob IoPhase::job(PhaseContext& ctx) {
  DriverJob j = writes() ? write_job(*ctx.engine, path_, record_, *order_, *source_)
                         : read_job(*ctx.engine, path_, record_, *order_, read_buffers_.span());
  j.layout = layout_;
  j.pulse = ctx.pulse;
  return j;
}

void IoPhase::run(PhaseContext& ctx, RankSample& s) {
  // Everything the window needs is set up before its clock starts.
  Verifier verifier(ctx.data, static_cast<std::uint64_t>(file_position_), record_,
                    !writes() && ctx.work.verify);
  DriverJob j = job(ctx);
  if (!writes() && ctx.work.verify)
    j.consume = [&](const std::byte* p, std::uint64_t off, std::size_t len) {
      verifier.check(p, off, len);
    };
  IoDriver driver(j);
  if (create_in_window_) ctx.files.note_pending_create();
  const bool sync = writes() && ctx.work.fsyncs(desc().id);
  try {
    timed_ = timed_window(ctx, j, driver, {writes(), create_in_window_}, sync, file_position_, s);
  } catch (...) {
    // The create ended: the file is this rank's when the window's exclusive open succeeded.
    if (create_in_window_) {
      if (j.file >= 0)
        ctx.files.note_created(fsops::identity_of(path_));
      else
        ctx.files.note_create_failed();
    }
    throw;
  }
  // Outside the timed window from here on.
  if (create_in_window_) ctx.files.note_created(fsops::identity_of(path_));
  // A file made in the window holds data up to the first record not written (a stonewalled
  // striped write leaves gaps after it).
  if (desc().creates()) {
    ctx.files.set_valid_bytes(order_->prefix_done(timed_.next) * record_);
    ctx.files.note_written_for(ctx.k);
  }
  if (!writes()) s.cached_fraction = cached_fraction_;
  // A shared file's dirty pages are the whole file's, against the whole file.
  if (writes() && !sync && !ctx.io.direct)
    s.unflushed_fraction = ctx.files.shared()
                               ? unflushed_fraction(path_, file_bytes_of(ctx, data_bytes_),
                                                    file_bytes_of(ctx, data_bytes_))
                               : unflushed_fraction(path_, data_bytes_, s.bytes);
  verifier.fill(s);
}

void IoPhase::finish(PhaseContext& ctx, RankSample& s) {
  if (!ctx.work.stonewall_wearout || ctx.work.stonewall_s <= 0) return;
  // IOR's wear-out: every rank continues, untimed, to the record count of the rank that got
  // furthest, so the files all hold the same amount of data for the phases that follow.
  std::uint64_t mine = timed_.next, furthest = 0;
  MPI_Allreduce(&mine, &furthest, 1, MPI_UINT64_T, MPI_MAX, ctx.active);
  if (furthest <= mine) return;
  const std::uint64_t t0 = now_ns();
  Engine& engine = *ctx.engine;
  DriverJob j = job(ctx);
  const PulseStep step(ctx.pulse, "open", "wear-out on " + path_);  // the driver says its own
  j.file = engine.open(path_, {writes(), false});
  j.begin = mine;
  j.end = furthest;
  j.stop = ctx.stop;
  const DriverResult r = run_driver(j);
  const std::uint64_t written = writes() ? r.bytes : 0;
  const bool sync = writes() && ctx.work.fsyncs(desc().id);
  if (sync) sync_file(engine, j.file, path_, written);
  close_file(engine, j.file, path_, written, sync);
  s.wearout_bytes = r.bytes;
  s.wearout_ops = r.ops;
  s.wearout_s = ns_to_s(now_ns() - t0);
  if (desc().creates()) ctx.files.set_valid_bytes(order_->prefix_done(furthest) * record_);
}

void IoPhase::cleanup(PhaseContext& ctx) {
  if (ctx.engine != nullptr) ctx.engine->unregister_buffers();
  source_.reset();
  read_buffers_ = AlignedBuffer();
  order_.reset();
}

namespace {

// The head of a kept file's region (its first 4 KiB, or less where the region's first
// contiguous bytes are fewer: a strided block of a small --seq-record) must be this seed's data
// of that position: anything else is another run's data (another seed) or not an iosweep file.
void check_kept_head(PhaseContext& ctx, const std::string& path, int pos, const Layout& layout) {
  const std::uint64_t contiguous = layout.stride != 0 ? layout.stride : ctx.work.file_size;
  AlignedBuffer head(static_cast<std::size_t>(std::min<std::uint64_t>(kBlockBytes, contiguous)));
  const std::uint64_t at = layout.physical(0);
  fsops::read_head(path, head.span(), at);
  Mismatch m;
  if (verify_bytes(ctx.data, static_cast<std::uint64_t>(pos), 0, head.span(), &m) != 0)
    throw IoError("check", path, at + m.offset, EINVAL,
                  "--reuse: the file does not hold this run's data (written with another "
                  "--seed, --filter-key or --filter-every, or not by iosweep)");
}

// The size a kept file must have: a rank's file, or the regions of this point's k ranks.
void check_kept_size(PhaseContext& ctx, const std::string& path) {
  const Workload& work = ctx.work;
  const std::uint64_t size = fsops::size_of(path);
  const std::uint64_t need = file_bytes_of(ctx, work.file_size);
  const bool strided = work.shared() && work.shared_pattern == SharedPattern::strided;
  // A segmented file of more regions serves fewer ranks; a strided one only its own k.
  const bool ok = work.shared() && !strided ? size >= need : size == need;
  if (!ok)
    throw IoError::of_file(
        "check", path, EINVAL,
        "--reuse: the kept file holds " + std::to_string(size) + " bytes but " +
            (work.shared() ? std::to_string(ctx.k) + " ranks' regions of --file-size "
                           : std::string("--file-size is ")) +
            std::to_string(strided ? need : work.file_size) +
            (strided ? " bytes (a strided file serves only the rank count that wrote it)" : ""));
}

}  // namespace

void ensure_own_file(PhaseContext& ctx) {
  const Workload& work = ctx.work;
  FileSet& files = ctx.files;
  const int pos = ctx.self.position;
  const std::string path = files.path(pos);
  if (files.reusing()) {
    const PulseStep step(ctx.pulse, "check", "checking the kept file " + path);
    check_kept_size(ctx, path);
    check_kept_head(ctx, path, pos, layout_of(ctx, pos));
    files.set_valid_bytes(work.file_size);
    return;
  }
  // A shared file is remade by all the point's ranks together when any of them lacks its
  // region for this k (the layout depends on k); position 0 makes it, the others wait to hear.
  if (files.shared()) {
    int need = files.own_exists(ctx.k) ? 0 : 1, any = 0;
    MPI_Allreduce(&need, &any, 1, MPI_INT, MPI_MAX, ctx.active);
    if (any == 0) return;
  } else if (files.own_exists(ctx.k)) {
    return;
  }
  // Written untimed through this phase's engine in --seq-record records (or in whole records of
  // a shorter file), at most 64 MiB in flight, without stonewall, latency, time series or
  // progress.
  Engine& engine = *ctx.engine;
  const std::uint64_t record = creation_record(work);
  const RecordOrder order = RecordOrder::sequential(work.file_size / record);
  PatternBuffer source(ctx.data, static_cast<std::uint64_t>(pos), record,
                       creation_depth(engine.depth(), record), work.hugepages);
  const std::span<std::byte> bufs[] = {source.memory()};
  engine.register_buffers(bufs);
  std::optional<PulseStep> step(std::in_place, ctx.pulse, "unlink", "unlink of " + path);
  remove_for_a_fresh_one(files, path);
  step.reset();
  bool made = preallocates(ctx);
  if (files.shared()) {
    std::exception_ptr failed;
    if (files.creator()) try {
        const PulseStep making(ctx.pulse, "create", "create of " + path);
        files.create_own([&] {
          return fsops::create_preallocated(path, made ? file_bytes_of(ctx, work.file_size) : 0);
        });
      } catch (...) {
        failed = std::current_exception();
      }
    int bad = failed ? 1 : 0, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, ctx.active);
    if (failed) std::rethrow_exception(failed);
    if (any != 0)
      throw IoError::of_file("open", path, ENOENT, "position 0 could not make the shared file");
    made = true;  // it exists: every rank opens it without creating
  } else if (made) {
    const PulseStep making(ctx.pulse, "create", "create of " + path);
    files.create_own([&] { return fsops::create_preallocated(path, work.file_size); });
  } else {
    files.note_pending_create();
  }
  DriverJob j = write_job(engine, path, record, order, source);
  j.layout = layout_of(ctx, pos);
  j.stop = ctx.stop;
  j.pulse = ctx.pulse;
  step.emplace(ctx.pulse, "open", "writing " + path + " untimed");  // the driver: its own
  try {
    j.file = engine.open(path, {true, !made});
  } catch (...) {
    if (!made) files.note_create_failed();
    throw;
  }
  if (!made) files.note_created(fsops::identity_of(path));
  const DriverResult written = run_driver(j);
  close_file(engine, j.file, path, written.bytes, false);
  engine.unregister_buffers();
  files.set_valid_bytes(work.file_size);
  files.note_written_for(ctx.k);
}

}  // namespace iosweep
