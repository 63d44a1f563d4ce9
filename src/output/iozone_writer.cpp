// IOzone-style output blocks (see iozone_writer.hpp).
#include "output/iozone_writer.hpp"

#include <algorithm>

#include "phases/phase_kind.hpp"

namespace iosweep {

void IozoneWriter::begin_run(const RunContext& ctx) {
  seq_record_ = ctx.cfg->seq_record;
  rand_record_ = ctx.cfg->rand_record;
  file_size_ = ctx.cfg->file_size;
  std::fprintf(out_, "\tIozone-format results from iosweep run %s\n", ctx.run_id.c_str());
  std::fprintf(out_, "\tThroughput test with %d processes\n", ctx.world_size);
  std::fprintf(out_, "\tEach process writes a %llu kByte file in %llu kByte records\n\n",
               static_cast<unsigned long long>(file_size_ / 1024),
               static_cast<unsigned long long>(seq_record_ / 1024));
  std::fflush(out_);
}

void IozoneWriter::append_point(const PointResult& p, const LatencyHistogram&) {
  const SummaryRow& s = p.summary;
  const auto kind = static_cast<PhaseKind>(s.phase);
  const char* what = nullptr;
  switch (kind) {
    case PhaseKind::seq_write:
      what = "initial writers";
      break;
    case PhaseKind::seq_read:
      what = "readers";
      break;
    case PhaseKind::rand_write:
      what = "random writers";
      break;
    case PhaseKind::rand_read:
      what = "random readers";
      break;
    case PhaseKind::filter_count:
      return;
  }
  const bool ops = phase_random(kind);
  const double record = static_cast<double>(ops ? rand_record_ : seq_record_);
  // Bytes/s to the printed unit: kB/sec (1024 bytes) or ops/sec (records per second).
  const auto conv = [&](double bps) { return ops ? bps / record : bps / 1024.0; };
  const char* unit = ops ? "ops/sec" : "kB/sec";
  std::uint64_t min_xfer = UINT64_MAX;
  for (const auto& r : p.ranks)
    min_xfer = std::min(min_xfer, r.bytes);
  if (p.ranks.empty()) min_xfer = 0;
  std::fprintf(out_, "\tChildren see throughput for %2u %s \t= %10.2f %s\n", s.ranks, what,
               conv(s.iozone_children_Bps), unit);
  std::fprintf(out_, "\tParent sees throughput for %2u %s \t= %10.2f %s\n", s.ranks, what,
               conv(s.bandwidth_Bps), unit);
  std::fprintf(out_, "\tMin throughput per process \t\t\t= %10.2f %s \n", conv(s.rank_bw_min_Bps),
               unit);
  std::fprintf(out_, "\tMax throughput per process \t\t\t= %10.2f %s\n", conv(s.rank_bw_max_Bps),
               unit);
  std::fprintf(out_, "\tAvg throughput per process \t\t\t= %10.2f %s\n", conv(s.rank_bw_mean_Bps),
               unit);
  std::fprintf(
      out_, "\tMin xfer \t\t\t\t\t= %10.2f %s\n\n",
      ops ? static_cast<double>(min_xfer) / record : static_cast<double>(min_xfer) / 1024.0,
      ops ? "ops" : "kB");
  std::fflush(out_);
}

void IozoneWriter::end_run(RunStatus, const std::string&) {
  std::fprintf(out_, "\niozone-format output complete.\n");
  std::fflush(out_);
}

}  // namespace iosweep
