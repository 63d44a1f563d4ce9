// Filter-count phase (see filter_count.hpp).
#include "phases/filter_count.hpp"

#include <algorithm>

#include "core/clock.hpp"
#include "core/units.hpp"
#include "engines/file_ops.hpp"
#include "engines/registry.hpp"
#include "phases/io_driver.hpp"
#include "phases/io_phase.hpp"

namespace iosweep {

std::string FilterCount::validate(const Config& cfg) const {
  const std::uint64_t rec = cfg.scan_record;
  if (rec == 0) return "--scan-record: must be larger than zero";
  if (cfg.engine_options.direct && rec % cfg.direct_alignment != 0)
    return "--scan-record: " + format_size(rec) + " is not a multiple of the O_DIRECT alignment (" +
           std::to_string(cfg.direct_alignment) + " bytes) of --dir";
  if (rec % kBlockBytes != 0)
    return "--scan-record: " + format_size(rec) + " is not a multiple of 4 KiB";
  if (rec > cfg.file_size)
    return "--scan-record: " + format_size(rec) + " is larger than --file-size " +
           format_size(cfg.file_size);
  if (cfg.file_size % rec != 0)
    return "--file-size: " + format_size(cfg.file_size) + " is not a multiple of --scan-record " +
           format_size(rec);
  if (cfg.filter_every < 2) return "--filter-every: must be at least 2";
  if (!filter_kernel_supported(cfg.filter_kernel))
    return std::string("--filter-kernel: this CPU has no ") + filter_kernel_name(cfg.filter_kernel);
  return {};
}

void FilterCount::prepare(PhaseContext& ctx) {
  const Config& cfg = ctx.cfg;
  record_ = cfg.scan_record;
  path_ = ctx.files.path(ctx.read_position);
  data_bytes_ = ctx.read_valid_bytes / record_ * record_;
  order_ = RecordOrder::sequential(data_bytes_ / record_);
  // Asynchronous engines keep as many bytes in flight as seq-read does (iodepth records of
  // --seq-record), cut into scan records, so the scan asks as much of the device.
  const std::uint64_t per_seq = (cfg.seq_record + record_ - 1) / record_;
  const auto want = static_cast<unsigned>(std::min<std::uint64_t>(
      256, std::max<std::uint64_t>(2, cfg.engine_options.iodepth * per_seq)));
  engine_ = make_overlapping_engine(cfg.engine, cfg.engine_options, want);
  const unsigned depth = engine_->info().depth;
  buffers_ = AlignedBuffer(static_cast<std::size_t>(record_) * depth * 2, cfg.hugepages);
  buffers_.touch();
  const std::span<std::byte> bufs[] = {buffers_.span()};
  engine_->register_buffers(bufs);
  count_ = filter_count_fn(resolve_filter_kernel(cfg.filter_kernel));
  if (cfg.cache == CacheMode::drop && !cfg.engine_options.direct) fsops::drop_cache(path_);
  ctx.progress_total = data_bytes_;
}

void FilterCount::run(PhaseContext& ctx, RankSample& s) {
  Verifier verifier(ctx.data, static_cast<std::uint64_t>(ctx.read_position));
  const bool verify = ctx.cfg.verify;
  const std::uint64_t key = ctx.cfg.filter_key;
  const CountFn count = count_;
  std::uint64_t matches = 0, compute_ns = 0;

  // Everything the window needs is set up before its clock starts.
  DriverJob j;
  j.engine = engine_.get();
  j.path = path_;
  j.op = IoOp::read;
  j.record_bytes = record_;
  j.order = &*order_;
  j.end = order_->size();
  j.depth = engine_->info().depth;
  j.read_buffers = buffers_.span();
  j.consume = [&](const std::byte* p, std::uint64_t off, std::size_t len) {
    const std::uint64_t c0 = now_ns();
    matches += count(reinterpret_cast<const std::uint64_t*>(p), len / 8, key);
    compute_ns += now_ns() - c0;
    if (verify) verifier.check(p, off, len);
  };
  IoDriver driver(j);
  const std::uint64_t t0 = now_ns();
  const int h = engine_->open(path_, {false, false});
  const std::uint64_t t1 = now_ns();
  j.file = h;
  arm_timed(j, ctx, t0);
  const DriverResult r = driver.run();
  const std::uint64_t t2 = now_ns();
  engine_->close(h);
  const std::uint64_t t3 = now_ns();

  s.file = ctx.read_position;
  s.bytes = r.bytes;
  s.ops = r.ops;
  s.open_s = ns_to_s(t1 - t0);
  s.io_s = ns_to_s(t2 - t1);
  s.close_s = ns_to_s(t3 - t2);
  s.elapsed_s = ns_to_s(t3 - t0);
  s.stonewalled = r.stonewalled ? 1 : 0;
  s.rows = r.bytes / 8;
  s.matches = matches;
  // Records are read in order and all issued ones complete, so the scanned range is a prefix.
  s.expected_matches = expected_matches(ctx.data, 0, r.next * record_);
  s.compute_s = ns_to_s(compute_ns);
  s.io_wait_s = s.io_s - s.compute_s - ns_to_s(verifier.ns);
  s.latency_max_ns = ctx.latency.max_ns();
  verifier.fill(s);
}

void FilterCount::cleanup(PhaseContext&) {
  if (engine_) engine_->unregister_buffers();
  engine_.reset();
  buffers_ = AlignedBuffer();
  order_.reset();
}

}  // namespace iosweep
