// IOzone-style output blocks (see iozone_writer.hpp).
#include "output/iozone_writer.hpp"

#include <algorithm>

#include "model/phase_desc.hpp"
#include "output/notes.hpp"

namespace iosweep {

void IozoneWriter::begin_run(const RunContext& ctx) {
  work_ = &ctx.cfg->work;
  const std::uint64_t file_size = work_->file_size, seq_record = work_->seq_record;
  std::fprintf(out_, "\tIozone-format results from iosweep run %s\n", ctx.run_id.c_str());
  std::fprintf(out_, "\tThroughput test with %d processes\n", ctx.world_size);
  std::fprintf(out_, "\tEach process writes a %llu kByte file in %llu kByte records\n",
               static_cast<unsigned long long>(file_size / 1024),
               static_cast<unsigned long long>(seq_record / 1024));
  // IOzone counts whole kBytes; a size it cannot say is given exactly on a line of its own.
  if (file_size % 1024 != 0 || seq_record % 1024 != 0)
    std::fprintf(out_, "\t(exactly: a %llu-byte file in %llu-byte records)\n",
                 static_cast<unsigned long long>(file_size),
                 static_cast<unsigned long long>(seq_record));
  std::fprintf(out_, "\n");
  std::fflush(out_);
}

void IozoneWriter::append_point(const PointResult& p, const LatencyHistogram&) {
  const SummaryRow& s = p.summary;
  const PhaseDesc& phase = phase_desc(s.phase);
  const char* what = phase.iozone_label;
  if (what == nullptr) return;  // no IOzone counterpart
  const bool ops = phase.random();
  const double record = static_cast<double>(work_->record_bytes(phase.record));
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
  // The block above stays exactly IOzone's; what iosweep knows of its bytes follows it.
  if (s.notes[0] != '\0') std::fprintf(out_, "\tiosweep note: %s\n\n", s.notes);
  std::fflush(out_);
}

void IozoneWriter::end_run(RunStatus, const std::string&) {
  std::fprintf(out_, "\niozone-format output complete.\n");
  std::fflush(out_);
}

}  // namespace iosweep
