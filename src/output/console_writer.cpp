// Console table (see console_writer.hpp; README.md explains every column).
#include "output/console_writer.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "core/errors.hpp"
#include "core/units.hpp"
#include "model/engine_desc.hpp"
#include "model/phase_desc.hpp"
#include "output/notes.hpp"

namespace iosweep {
namespace {

double mib(double bps) {
  return bps / kBytesPerMiB;
}

}  // namespace

void ConsoleWriter::flush() {
  const bool failed = std::fflush(out_) != 0;
  if (failed && errno == EPIPE && reader_gone_) std::exchange(reader_gone_, nullptr)();
}

// The file system under --dir and what can tell where the bytes came from: one line when every
// node agrees, a line per node when they differ.
void ConsoleWriter::print_storage(const RunContext& ctx) {
  std::set<std::string> kinds, wires;
  for (const auto& m : ctx.mounts) {
    kinds.insert(std::string(m.fs_type) + " " + m.source + " at " + m.mount_point);
    wires.insert(m.wire);
  }
  for (const auto& m : ctx.mounts) {
    if (kinds.size() <= 1 && m.node != 0) break;
    std::fprintf(out_, "  file system%s: %s %s at %s%s\n",
                 kinds.size() > 1 ? (" of node " + std::to_string(m.node)).c_str() : "",
                 printable(m.fs_type).c_str(), printable(m.source).c_str(),
                 printable(m.mount_point).c_str(),
                 ctx.mounts.size() > 1 && kinds.size() == 1 ? " (every node)" : "");
  }
  std::fprintf(out_, "  device counters: %s\n",
               ctx.device_note.empty() ? "measured around every phase"
                                       : ("not measured: " + printable(ctx.device_note)).c_str());
  std::string wire;
  if (!ctx.wire_note.empty()) {
    wire = "not measured: " + printable(ctx.wire_note);
  } else if (wires.size() == 1) {
    wire = printable(*wires.begin()) + (ctx.mounts.size() > 1 ? " on every node" : "") +
           ", around every phase";
  } else {
    for (const auto& m : ctx.mounts)
      wire +=
          (wire.empty() ? "" : ", ") + ("node " + std::to_string(m.node) + " ") + printable(m.wire);
    wire += ", around every phase";
  }
  std::fprintf(out_, "  wire counters: %s\n", wire.c_str());
}

void ConsoleWriter::begin_run(const RunContext& ctx) {
  ctx_ = ctx;
  const Config& cfg = *ctx.cfg;
  const Workload& w = cfg.work;
  std::fprintf(out_, "iosweep run %s%s%s\n", ctx.run_id.c_str(),
               cfg.report.label.empty() ? "" : "  label: ", printable(cfg.report.label).c_str());
  std::fprintf(out_, "  %d ranks on %zu node(s); engine %s (%s)%s; %s per rank in %s (%s)\n",
               ctx.world_size, ctx.topology.hosts.size(), engine_desc(cfg.io.engine).name,
               ctx.engine_detail.c_str(), cfg.io.direct ? ", O_DIRECT" : "",
               format_size(w.file_size).c_str(), w.dir.c_str(), ctx.fs_type().c_str());
  const std::string fsync = phase_list(w.fsync_phases);
  std::fprintf(out_, "  records: seq %s, rand %s, scan %s; cache %s; fsync %s; filter kernel %s\n",
               format_size(w.seq_record).c_str(), format_size(w.rand_record).c_str(),
               format_size(w.scan_record).c_str(),
               cfg.io.direct ? "bypassed (O_DIRECT)"
                             : (w.cache == CacheMode::drop ? "dropped before reads" : "kept"),
               fsync.empty() ? "off" : fsync.c_str(),
               filter_kernel_name(resolve_filter_kernel(w.filter_kernel)));
  if (w.shared())
    std::fprintf(out_, "  file layout: one file the active ranks share (%s)%s\n",
                 w.shared_pattern == SharedPattern::segmented ? "segmented" : "strided",
                 cfg.io.collective
                     ? "; collective MPI-IO: every request is one collective call, and aggregator "
                       "ranks read and write for all of them, shipping the bytes over MPI"
                     : "");
  if (by_streams())
    std::fprintf(out_,
                 "  streams: each point runs ranks x depth of them; random phases keep depth "
                 "requests in flight, sequential phases stream depth regions of each file side by "
                 "side\n");
  print_storage(ctx);
  std::fprintf(out_, "placement (%s):\n",
               cfg.sweep.placement == Placement::spread ? "spread" : "block");
  std::map<int, std::vector<int>> by_node;
  for (const auto& r : ctx.topology.ranks)
    by_node[r.node].push_back(r.rank);
  for (const auto& [node, ranks] : by_node) {
    std::string list;
    for (int r : ranks)
      list += (list.empty() ? "" : ",") + std::to_string(r);
    std::fprintf(out_, "  node %d %-20s ranks %s\n", node,
                 ctx.topology.hosts[static_cast<std::size_t>(node)].c_str(), list.c_str());
  }
  flush();
}

bool ConsoleWriter::by_streams() const {
  return ctx_.cfg != nullptr && !ctx_.cfg->sweep.streams.empty();
}

void ConsoleWriter::print_header() {
  std::fprintf(out_, "%-12s ", "phase");
  if (by_streams()) std::fprintf(out_, "%7s ", "streams");
  std::fprintf(out_, "%5s %5s %3s %9s %10s %10s %10s %9s %9s %9s %9s %9s  %s\n", "ranks", "nodes",
               "rep", "wall_s", "MiB/s", "IOPS", "child_MiB/s", "rank_min", "rank_mean", "rank_max",
               "p50_us", "p99_us", "notes");
}

void ConsoleWriter::append_point(const PointResult& p, const LatencyHistogram&) {
  const SummaryRow& s = p.summary;
  const PhaseDesc& phase = phase_desc(s.phase);
  if (phase.control() && !ctx_.cfg->report.show_controls) return;
  if (rows_printed_++ == 0) print_header();
  if (phase.counts()) (phase.ships() ? last_ship_ : last_filter_) = p;
  const std::string notes = row_notes(p);
  std::fprintf(out_, "%-12s ", phase.name);
  if (by_streams()) std::fprintf(out_, "%7u ", s.streams);
  std::fprintf(out_, "%5u %5u %3u %9.3f %10.1f %10.0f %10.1f %9.1f %9.1f %9.1f %9.1f %9.1f  %s\n",
               s.ranks, s.nodes, s.repetition, s.wall_s, mib(s.bandwidth_Bps), s.iops,
               mib(s.children_Bps), mib(s.rank_bw_min_Bps), mib(s.rank_bw_mean_Bps),
               mib(s.rank_bw_max_Bps), s.lat_p50_ns / 1e3, s.lat_p99_ns / 1e3, notes.c_str());
  flush();
}

void ConsoleWriter::print_final_math() {
  if (!last_filter_) return;
  const SummaryRow& s = last_filter_->summary;
  const double rated_Bps = ctx_.cfg->report.rated_bw_Bps;
  const double gbs = 1e9;
  if (by_streams())
    std::fprintf(out_,
                 "filter-count at %u streams (%u ranks x depth %u) on %u node(s) (the "
                 "largest point):\n",
                 s.streams, s.ranks, s.iodepth, s.nodes);
  else
    std::fprintf(out_, "filter-count at %u ranks on %u node(s) (the largest point):\n", s.ranks,
                 s.nodes);
  std::fprintf(out_, "  data       %llu bytes (%.3f GB), %llu rows of 8 bytes\n",
               static_cast<unsigned long long>(s.bytes), static_cast<double>(s.bytes) / gbs,
               static_cast<unsigned long long>(s.rows));
  std::fprintf(out_, "  runtime    %.3f s\n", s.wall_s);
  std::fprintf(out_, "  aggregate  %.3f GB/s (%.1f MiB/s)\n", s.bandwidth_Bps / gbs,
               mib(s.bandwidth_Bps));
  for (const auto& n : last_filter_->nodes)
    std::fprintf(out_, "  node %-3d   %.3f GB/s  (%u ranks, %s)\n", n.node, n.bandwidth_Bps / gbs,
                 n.ranks, ctx_.topology.hosts[static_cast<std::size_t>(n.node)].c_str());
  const double per_node = s.nodes ? s.bandwidth_Bps / s.nodes : 0;
  const double per_rank = s.ranks ? s.bandwidth_Bps / s.ranks : 0;
  std::fprintf(out_, "  per node   %.3f GB/s (aggregate / nodes)\n", per_node / gbs);
  std::fprintf(out_, "  per rank   %.3f GB/s (aggregate / ranks)\n", per_rank / gbs);
  std::fprintf(out_, "  matches    %llu found, %llu expected%s\n",
               static_cast<unsigned long long>(s.matches),
               static_cast<unsigned long long>(s.expected_matches),
               !engine_desc(s.engine).moves_data ? " (not checked: no data moved)"
               : s.rows == 0                     ? " (nothing scanned)"
               : s.matches == s.expected_matches ? " (exact)"
                                                 : " (MISMATCH)");
  const double rated2_Bps = ctx_.cfg->report.rated_bw2_Bps;
  if (rated_Bps > 0 && rated2_Bps > 0) {
    // Two ceilings (sequential and random, as the compute-adjacent study quotes): a range.
    const double a = 100.0 * per_rank / rated_Bps, b = 100.0 * per_rank / rated2_Bps;
    std::fprintf(out_,
                 "  rated      %.3f GB/s and %.3f GB/s per rank's device: between %.1f%% and "
                 "%.1f%% of rated maximum (%.1f%% of %.3f GB/s, %.1f%% of %.3f GB/s)\n",
                 rated_Bps / gbs, rated2_Bps / gbs, std::min(a, b), std::max(a, b), a,
                 rated_Bps / gbs, b, rated2_Bps / gbs);
  } else if (rated_Bps > 0) {
    std::fprintf(out_, "  rated      %.3f GB/s per rank's device: %.1f%% of rated maximum\n",
                 rated_Bps / gbs, 100.0 * per_rank / rated_Bps);
  }
  print_shipped(s);
}

// The same scan with the data shipped to collectors instead of counted in place (ship-count at
// the same point), when the run had it.
void ConsoleWriter::print_shipped(const SummaryRow& f) {
  if (!last_ship_) return;
  const SummaryRow& s = last_ship_->summary;
  if (s.ranks != f.ranks || s.repetition != f.repetition) return;
  const double gbs = 1e9;
  std::fprintf(out_, "ship-count at %u ranks (every record sent over MPI to a collector):\n",
               s.ranks);
  std::fprintf(out_,
               "  moved      %llu bytes over MPI (%.0f%% to another node), against %llu "
               "bytes (8 per rank) for filter-count\n",
               static_cast<unsigned long long>(s.mpi_bytes),
               s.mpi_bytes ? 100.0 * static_cast<double>(s.mpi_remote_bytes) /
                                 static_cast<double>(s.mpi_bytes)
                           : 0.0,
               static_cast<unsigned long long>(f.mpi_bytes));
  std::fprintf(out_, "  aggregate  %.3f GB/s; filter-count / ship-count %.2f\n",
               s.bandwidth_Bps / gbs,
               s.bandwidth_Bps > 0 ? f.bandwidth_Bps / s.bandwidth_Bps : 0.0);
}

void ConsoleWriter::end_run(RunStatus status, const std::string& message) {
  if (status == RunStatus::complete) print_final_math();
  if (status == RunStatus::aborted)
    std::fprintf(out_, "run %s aborted: %s\n", ctx_.run_id.c_str(), message.c_str());
  flush();
}

}  // namespace iosweep
