// Filter-count phase (see filter_count.hpp).
#include "phases/filter_count.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "core/clock.hpp"
#include "core/units.hpp"
#include "os/file_ops.hpp"
#include "phases/io_phase.hpp"

namespace iosweep {
namespace {

// The control's "kernel": the call is made, nothing is read.
std::uint64_t count_nothing(const std::uint64_t*, std::size_t, std::uint64_t) {
  return 0;
}

}  // namespace

ScanPlan plan_scan(const PhaseContext& ctx) {
  ScanPlan p;
  p.record = ctx.work.scan_record;
  p.path = ctx.files.path(ctx.read_position);
  p.data_bytes = ctx.read_valid_bytes / p.record * p.record;
  const std::uint64_t n = p.data_bytes / p.record;
  p.order = ctx.streams.regions > 1 ? RecordOrder::striped(n, ctx.streams.regions)
                                    : RecordOrder::sequential(n);
  return p;
}

std::string FilterCount::validate(const Workload& work, const EngineOptions& io) const {
  if (auto why = check_record(work, io, work.scan_record, "--scan-record"); !why.empty())
    return why;
  // The kernel counts whole 64-bit words of each record it is handed, and the expected count is
  // of whole words: a read that split a word between two records could count neither part.
  if (work.scan_record % 8 != 0)
    return "--scan-record: " + format_size(work.scan_record) +
           " is not a multiple of 8 bytes: filter-count (and ship-count, and their scan-only "
           "control) counts whole 64-bit words in each read";
  if (work.filter_every < 2) return "--filter-every: must be at least 2";
  if (!filter_kernel_supported(work.filter_kernel))
    return std::string("--filter-kernel: this CPU has no ") +
           filter_kernel_name(work.filter_kernel);
  return {};
}

EngineNeed FilterCount::engine_need(const Workload& work, const EngineOptions& io,
                                    const RankStreams& per_rank) const {
  (void)io;
  // Asynchronous engines keep as many bytes in flight as seq-read does (the point's depth in
  // records of --seq-record), cut into scan records, so the scan asks as much of the device; at
  // least two, so that one is read while another is counted; at most 256, or one per region
  // when the point streams more regions (--streams), so that every region has one in flight.
  // Never more than the file's scan records: more would only be buffers.
  const std::uint64_t per_seq = (work.seq_record + work.scan_record - 1) / work.scan_record;
  const std::uint64_t cap = std::max<std::uint64_t>(256, per_rank.regions);
  const std::uint64_t records = std::max<std::uint64_t>(1, work.file_size / work.scan_record);
  const auto depth = static_cast<unsigned>(std::min<std::uint64_t>(
      records, std::min<std::uint64_t>(
                   cap, std::max<std::uint64_t>(2, std::uint64_t{per_rank.depth} * per_seq))));
  return {depth, EngineUse::overlap};
}

std::uint64_t FilterCount::buffer_bytes(const Workload& work, const SweepPoint& point,
                                        const PhasePlan& plan) const {
  (void)point;
  const unsigned depth = plan.depth;
  return std::max<std::uint64_t>(work.scan_record * depth * 2, creation_buffer_bytes(work, depth));
}

void FilterCount::prepare(PhaseContext& ctx) {
  const Workload& work = ctx.work;
  scan_ = plan_scan(ctx);
  const std::size_t buffer_bytes = read_buffer_bytes(*ctx.engine, scan_.record, true);
  if (ctx.handoff != nullptr && ctx.handoff->size() == buffer_bytes)
    buffers_ = std::move(*ctx.handoff);  // the partner's own pages (see PhaseContext::handoff)
  else
    buffers_ = AlignedBuffer(buffer_bytes, work.hugepages);
  buffers_.touch();
  const std::span<std::byte> bufs[] = {buffers_.span()};
  ctx.engine->register_buffers(bufs);
  count_ = filter_count_fn(resolve_filter_kernel(work.filter_kernel));
  if (work.cache == CacheMode::drop && !ctx.io.direct) fsops::drop_cache(scan_.path);
  cached_fraction_ = cached_fraction(scan_.path, file_bytes_of(ctx, scan_.data_bytes));
  ctx.progress_total = scan_.data_bytes;
}

void FilterCount::run(PhaseContext& ctx, RankSample& s) {
  Verifier verifier(ctx.data, static_cast<std::uint64_t>(ctx.read_position), scan_.record);
  const bool verify = ctx.work.verify;
  const std::uint64_t key = ctx.work.filter_key;
  const CountFn count = desc().counts() ? count_ : &count_nothing;
  std::uint64_t matches = 0, compute_ns = 0;

  // Everything the window needs is set up before its clock starts.
  DriverJob j = read_job(*ctx.engine, scan_.path, scan_.record, *scan_.order, buffers_.span(),
                         [&](const std::byte* p, std::uint64_t off, std::size_t len) {
                           const std::uint64_t c0 = now_ns();
                           matches +=
                               count(reinterpret_cast<const std::uint64_t*>(p), len / 8, key);
                           compute_ns += now_ns() - c0;
                           if (verify) verifier.check(p, off, len);
                         });
  j.layout = layout_of(ctx, ctx.read_position);
  IoDriver driver(j);
  const DriverResult r = timed_window(ctx, j, driver, {false, false}, false, ctx.read_position, s);
  s.rows = r.bytes / 8;
  s.cached_fraction = cached_fraction_;
  if (desc().counts()) {
    s.matches = matches;
    s.mpi_bytes = sizeof matches;  // the count, reduced to rank 0: all that travels
    // Every record issued completes, and records are issued in the order's sequence: what was
    // scanned is the first r.next positions, a prefix of the file or of each region.
    for (const auto& [begin, end] : scan_.order->ranges_done(r.next))
      s.expected_matches += expected_matches(ctx.data, begin * scan_.record, end * scan_.record);
  }
  s.compute_s = ns_to_s(compute_ns);
  s.io_wait_s = s.io_s - s.compute_s - ns_to_s(verifier.ns);
  verifier.fill(s);
}

void FilterCount::cleanup(PhaseContext& ctx) {
  if (ctx.engine != nullptr) ctx.engine->unregister_buffers();
  if (ctx.handoff != nullptr)
    *ctx.handoff = std::move(buffers_);
  else
    buffers_ = AlignedBuffer();
  scan_.order.reset();
}

void FilterCount::reduce(SummaryRow& s, const PointBook& book) {
  auto ratio_to = [&](PhaseId phase) {
    const SummaryRow* base = book.find(phase);
    return base != nullptr && base->bandwidth_Bps > 0 ? s.bandwidth_Bps / base->bandwidth_Bps
                                                      : std::numeric_limits<double>::quiet_NaN();
  };
  s.filter_efficiency = ratio_to(kScanOnly);
  s.filter_vs_seq_read = ratio_to(kSeqRead);
}

}  // namespace iosweep
