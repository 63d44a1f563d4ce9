// Sequential and random read/write phases (see io_phase.hpp).
#include "phases/io_phase.hpp"

#include "core/clock.hpp"
#include "core/errors.hpp"
#include "core/units.hpp"
#include "engines/file_ops.hpp"
#include "engines/registry.hpp"

namespace iosweep {
namespace {

std::uint64_t record_of(const Config& cfg, PhaseKind k) {
  return phase_random(k) ? cfg.rand_record : cfg.seq_record;
}

const char* record_option(PhaseKind k) {
  return phase_random(k) ? "--rand-record" : "--seq-record";
}

}  // namespace

void Verifier::check(const std::byte* p, std::uint64_t offset, std::size_t len) {
  const std::uint64_t t = now_ns();
  bad_blocks += verify_blocks(*spec, file, offset, {p, len}, &first);
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

std::string IoPhase::validate(const Config& cfg) const {
  const std::uint64_t rec = record_of(cfg, kind_);
  const std::string opt = record_option(kind_);
  if (rec == 0) return opt + ": must be larger than zero";
  if (cfg.engine_options.direct && rec % cfg.direct_alignment != 0)
    return opt + ": " + format_size(rec) + " is not a multiple of the O_DIRECT alignment (" +
           std::to_string(cfg.direct_alignment) + " bytes) of --dir";
  if (rec % kBlockBytes != 0)
    return opt + ": " + format_size(rec) + " is not a multiple of 4 KiB (the data block)";
  if (rec > cfg.file_size)
    return opt + ": " + format_size(rec) + " is larger than --file-size " +
           format_size(cfg.file_size);
  if (cfg.file_size % rec != 0)
    return "--file-size: " + format_size(cfg.file_size) + " is not a multiple of " + opt + " " +
           format_size(rec);
  if (rec > (1ull << 30)) return opt + ": records above 1 GiB are not supported";
  return {};
}

void IoPhase::prepare(PhaseContext& ctx) {
  const Config& cfg = ctx.cfg;
  record_ = record_of(cfg, kind_);
  file_position_ = writes() ? ctx.self.position : ctx.read_position;
  path_ = ctx.files.path(file_position_);
  engine_ = make_engine(cfg.engine, cfg.engine_options);
  const unsigned depth = engine_->info().depth;
  create_in_window_ = false;
  if (kind_ == PhaseKind::seq_write) {
    data_bytes_ = cfg.file_size;
    ctx.files.remove_own();  // a fresh file for every initial write, as IOzone's -i0
    if (cfg.engine_options.direct) {
      ctx.files.note_created(fsops::create_preallocated(path_, cfg.file_size));
    } else {
      create_in_window_ = true;
    }
  } else {
    data_bytes_ = writes() ? ctx.files.valid_bytes() : ctx.read_valid_bytes;
  }
  const std::uint64_t n = data_bytes_ / record_;
  const std::uint64_t order_seed =
      mix64(cfg.seed ^ mix64(static_cast<std::uint64_t>(ctx.self.position) * 0x100 +
                             static_cast<std::uint64_t>(kind_)));
  order_ = phase_random(kind_) ? RecordOrder::shuffled(n, order_seed) : RecordOrder::sequential(n);
  if (writes()) {
    source_ = std::make_unique<PatternBuffer>(ctx.data, static_cast<std::uint64_t>(file_position_),
                                              record_, depth, cfg.hugepages);
    const std::span<std::byte> bufs[] = {source_->memory()};
    engine_->register_buffers(bufs);
  } else {
    read_buffers_ = AlignedBuffer(static_cast<std::size_t>(record_) * depth * (cfg.verify ? 2 : 1),
                                  cfg.hugepages);
    read_buffers_.touch();
    const std::span<std::byte> bufs[] = {read_buffers_.span()};
    engine_->register_buffers(bufs);
    if (cfg.cache == CacheMode::drop && !cfg.engine_options.direct) fsops::drop_cache(path_);
  }
  ctx.progress_total = data_bytes_;
}

DriverJob IoPhase::job(PhaseContext& ctx, int handle) {
  DriverJob j;
  j.engine = engine_.get();
  j.file = handle;
  j.path = path_;
  j.op = writes() ? IoOp::write : IoOp::read;
  j.record_bytes = record_;
  j.order = &*order_;
  j.begin = 0;
  j.end = order_->size();
  j.reorder_ok = phase_random(kind_);
  j.depth = engine_->info().depth;
  j.source = source_.get();
  j.read_buffers = read_buffers_.span();
  j.stop = ctx.stop;
  return j;
}

void IoPhase::run(PhaseContext& ctx, RankSample& s) {
  // Everything the window needs is set up before its clock starts.
  Verifier verifier(ctx.data, static_cast<std::uint64_t>(file_position_));
  DriverJob j = job(ctx, -1);
  if (!writes() && ctx.cfg.verify)
    j.consume = [&](const std::byte* p, std::uint64_t off, std::size_t len) {
      verifier.check(p, off, len);
    };
  IoDriver driver(j);
  if (create_in_window_) ctx.files.note_pending_create();
  const std::uint64_t t0 = now_ns();
  const int h = engine_->open(path_, {writes(), create_in_window_});
  const std::uint64_t t1 = now_ns();
  j.file = h;
  arm_timed(j, ctx, t0);
  timed_ = driver.run();
  const std::uint64_t t2 = now_ns();
  if (writes() && ctx.cfg.fsync) engine_->sync(h);
  const std::uint64_t t3 = now_ns();
  engine_->close(h);
  const std::uint64_t t4 = now_ns();
  // Outside the timed window from here on.
  if (create_in_window_) ctx.files.note_created(fsops::identity_of(path_));
  if (kind_ == PhaseKind::seq_write) ctx.files.set_valid_bytes(timed_.next * record_);
  s.file = file_position_;
  s.bytes = timed_.bytes;
  s.ops = timed_.ops;
  s.open_s = ns_to_s(t1 - t0);
  s.io_s = ns_to_s(t2 - t1);
  s.sync_s = ns_to_s(t3 - t2);
  s.close_s = ns_to_s(t4 - t3);
  s.elapsed_s = ns_to_s(t4 - t0);
  s.stonewalled = timed_.stonewalled ? 1 : 0;
  s.latency_max_ns = ctx.latency.max_ns();
  verifier.fill(s);
}

void IoPhase::finish(PhaseContext& ctx, RankSample& s) {
  if (!ctx.cfg.stonewall_wearout || ctx.cfg.stonewall_s <= 0) return;
  // IOR's wear-out: every rank continues, untimed, to the record count of the rank that got
  // furthest, so the files all hold the same amount of data for the phases that follow.
  std::uint64_t mine = timed_.next, furthest = 0;
  MPI_Allreduce(&mine, &furthest, 1, MPI_UINT64_T, MPI_MAX, ctx.active);
  if (furthest <= mine) return;
  const std::uint64_t t0 = now_ns();
  const int h = engine_->open(path_, {writes(), false});
  DriverJob j = job(ctx, h);
  j.begin = mine;
  j.end = furthest;
  const DriverResult r = run_driver(j);
  if (writes() && ctx.cfg.fsync) engine_->sync(h);
  engine_->close(h);
  s.wearout_bytes = r.bytes;
  s.wearout_ops = r.ops;
  s.wearout_s = ns_to_s(now_ns() - t0);
  if (kind_ == PhaseKind::seq_write) ctx.files.set_valid_bytes(furthest * record_);
}

void IoPhase::cleanup(PhaseContext&) {
  if (engine_) engine_->unregister_buffers();
  engine_.reset();
  source_.reset();
  read_buffers_ = AlignedBuffer();
  order_.reset();
}

void ensure_own_file(PhaseContext& ctx) {
  const Config& cfg = ctx.cfg;
  FileSet& files = ctx.files;
  const int pos = ctx.self.position;
  const std::string path = files.path(pos);
  if (files.reusing()) {
    const std::uint64_t size = fsops::size_of(path);
    if (size != cfg.file_size)
      throw IoError("check", path, 0, EINVAL,
                    "--reuse: the kept file holds " + std::to_string(size) +
                        " bytes but --file-size is " + std::to_string(cfg.file_size));
    // The first block must be this seed's block 0 of this position: anything else is another
    // run's data (another seed) or not an iosweep file at all.
    AlignedBuffer head(kBlockBytes);
    fsops::read_head(path, head.span());
    Mismatch m;
    if (verify_blocks(ctx.data, static_cast<std::uint64_t>(pos), 0, head.span(), &m) != 0)
      throw IoError("check", path, m.offset, EINVAL,
                    "--reuse: the file does not hold this run's data (written with another "
                    "--seed, --filter-key or --filter-every, or not by iosweep)");
    files.set_valid_bytes(size);
    return;
  }
  if (files.own_exists()) return;
  // Written untimed, through the same engine and records as seq-write, without stonewall,
  // latency, time series or progress.
  Config untimed = cfg;
  untimed.stonewall_s = 0;
  PhaseContext quiet(untimed, ctx.data, ctx.files, ctx.self, ctx.host);
  quiet.active = ctx.active;
  quiet.k = ctx.k;
  quiet.stop = ctx.stop;
  IoPhase writer(PhaseKind::seq_write);
  RankSample ignored;
  writer.prepare(quiet);
  writer.run(quiet, ignored);
  writer.cleanup(quiet);
}

}  // namespace iosweep
