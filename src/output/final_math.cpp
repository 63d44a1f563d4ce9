// The console's compute-adjacent "final math" for the largest filter-count point (see
// console_writer.hpp): data, runtime, aggregate, per node, per rank, per drive with every
// drive's own counters over the window and against its PCIe link, the count's check, the percent
// of the drives' rated bandwidth and IOPS, and the same scan shipped to collectors when
// ship-count ran. GB are 10^9 bytes,
// as data sheets write them.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include "core/errors.hpp"
#include "core/units.hpp"
#include "model/engine_desc.hpp"
#include "output/console_writer.hpp"

namespace iosweep {
namespace {

constexpr double kGB = 1e9;

double mib(double bps) {
  return bps / kBytesPerMiB;
}

}  // namespace

void ConsoleWriter::print_final_math() {
  if (!last_filter_) return;
  const SummaryRow& s = last_filter_->summary;
  if (by_streams())
    std::fprintf(out_,
                 "filter-count at %u streams (%u ranks x depth %u) on %u node(s) (the "
                 "largest point):\n",
                 s.streams, s.ranks, s.iodepth, s.nodes);
  else
    std::fprintf(out_, "filter-count at %u ranks on %u node(s) (the largest point):\n", s.ranks,
                 s.nodes);
  std::fprintf(out_, "  data       %llu bytes (%.3f GB), %llu rows of 8 bytes\n",
               static_cast<unsigned long long>(s.bytes), static_cast<double>(s.bytes) / kGB,
               static_cast<unsigned long long>(s.rows));
  std::fprintf(out_, "  runtime    %.3f s\n", s.wall_s);
  std::fprintf(out_, "  aggregate  %.3f GB/s (%.1f MiB/s)\n", s.bandwidth_Bps / kGB,
               mib(s.bandwidth_Bps));
  for (const auto& n : last_filter_->nodes)
    std::fprintf(out_, "  node %-3d   %.3f GB/s  (%u ranks, %s)\n", n.node, n.bandwidth_Bps / kGB,
                 n.ranks, ctx_.topology.hosts[static_cast<std::size_t>(n.node)].c_str());
  const double per_node = s.nodes ? s.bandwidth_Bps / s.nodes : 0;
  const double per_rank = s.ranks ? s.bandwidth_Bps / s.ranks : 0;
  std::fprintf(out_, "  per node   %.3f GB/s (aggregate / nodes)\n", per_node / kGB);
  std::fprintf(out_, "  per rank   %.3f GB/s (aggregate / ranks)\n", per_rank / kGB);
  print_drives(*last_filter_);
  std::fprintf(out_, "  matches    %llu found, %llu expected%s\n",
               static_cast<unsigned long long>(s.matches),
               static_cast<unsigned long long>(s.expected_matches),
               !engine_desc(s.engine).moves_data ? " (not checked: no data moved)"
               : s.rows == 0                     ? " (nothing scanned)"
               : s.matches == s.expected_matches ? " (exact)"
                                                 : " (MISMATCH)");
  // Percent of rated: of each drive's, aggregate / drives used; of each rank's device when no
  // block device told the drives apart.
  if (s.drives > 0) {
    print_rated(s.bandwidth_Bps / s.drives, "per drive");
    print_rated_iops(s.iops / s.drives, "per drive");
  } else {
    print_rated(per_rank, "per rank's device");
    print_rated_iops(s.ranks ? s.iops / s.ranks : 0, "per rank's device");
  }
  print_shipped(s);
}

// --rated-bw: one ceiling, or two (sequential and random, as the compute-adjacent study quotes
// them) as a range.
void ConsoleWriter::print_rated(double per_unit_Bps, const char* unit) {
  const double rated_Bps = ctx_.cfg->report.rated_bw_Bps;
  const double rated2_Bps = ctx_.cfg->report.rated_bw2_Bps;
  if (rated_Bps > 0 && rated2_Bps > 0) {
    const double a = 100.0 * per_unit_Bps / rated_Bps, b = 100.0 * per_unit_Bps / rated2_Bps;
    std::fprintf(out_,
                 "  rated      %.3f GB/s and %.3f GB/s %s: between %.1f%% and %.1f%% of rated "
                 "maximum (%.1f%% of %.3f GB/s, %.1f%% of %.3f GB/s)\n",
                 rated_Bps / kGB, rated2_Bps / kGB, unit, std::min(a, b), std::max(a, b), a,
                 rated_Bps / kGB, b, rated2_Bps / kGB);
  } else if (rated_Bps > 0) {
    std::fprintf(out_, "  rated      %.3f GB/s %s: %.1f%% of rated maximum\n", rated_Bps / kGB,
                 unit, 100.0 * per_unit_Bps / rated_Bps);
  }
}

// --rated-iops: the point's operations per second per drive (per rank's device) against it.
void ConsoleWriter::print_rated_iops(double per_unit_iops, const char* unit) {
  const double rated = ctx_.cfg->report.rated_iops;
  if (rated > 0)
    std::fprintf(out_, "  rated      %.0f IOPS %s: %.1f%% of rated IOPS (%.0f IOPS)\n", rated, unit,
                 100.0 * per_unit_iops / rated, per_unit_iops);
}

// Per drive as the study reports it (aggregate / drives used), then every drive used: what its
// own counters read over the point's window (the slowest rank's), and what its ranks claimed
// over their own slowest window.
void ConsoleWriter::print_drives(const PointResult& p) {
  const SummaryRow& s = p.summary;
  if (s.drives == 0) {
    std::fprintf(out_, "  per drive  not known: %s\n",
                 ctx_.device_note.empty()
                     ? "no drive was counted"
                     : ("no device counters (" + printable(ctx_.device_note) + ")").c_str());
    return;
  }
  std::fprintf(out_, "  per drive  %.3f GB/s (aggregate / %u drive%s used)\n",
               s.bandwidth_Bps / s.drives / kGB, s.drives, s.drives == 1 ? "" : "s");
  struct Drive {
    const DeviceRow* counted = nullptr;
    std::set<int> nodes;
    std::set<std::string> folders;
    std::uint64_t claimed = 0;
    std::uint32_t ranks = 0;
  };
  std::map<std::int32_t, Drive> drives;
  for (const auto& d : p.devices) {
    Drive& v = drives[d.drive];
    if (d.counted) v.counted = &d;
    if (d.ranks == 0) continue;
    v.nodes.insert(d.node);
    v.folders.insert(d.folders);
    v.claimed += d.claimed_bytes;
    v.ranks += d.ranks;
  }
  for (const auto& [id, v] : drives) {
    if (v.counted == nullptr || std::isnan(v.counted->drive_Bps)) continue;
    std::string nodes, folders;
    for (int n : v.nodes)
      nodes += (nodes.empty() ? "" : ",") + std::to_string(n);
    for (const auto& f : v.folders)
      folders += (folders.empty() ? "" : ",") + printable(f);
    const double seen = static_cast<double>(v.counted->read_bytes);
    std::fprintf(
        out_,
        "  drive %-4d %s on node%s %s (%s): device read %llu bytes = %.3f GB/s over the "
        "%.3f s window; %u rank%s claimed %llu bytes, %.3f GB/s\n",
        id, printable(v.counted->device).c_str(), v.nodes.size() == 1 ? "" : "s", nodes.c_str(),
        folders.c_str(), static_cast<unsigned long long>(v.counted->read_bytes),
        s.wall_s > 0 ? seen / s.wall_s / kGB : 0.0, s.wall_s, v.ranks, v.ranks == 1 ? "" : "s",
        static_cast<unsigned long long>(v.claimed), v.counted->drive_Bps / kGB);
    print_link(*v.counted);
  }
}

// A drive's link: its device bytes over the drive's window against it, or why it is unknown.
void ConsoleWriter::print_link(const DeviceRow& d) {
  const std::string link = printable(std::string(d.link, strnlen(d.link, sizeof d.link)));
  if (!(d.link_Bps > 0))
    std::fprintf(out_, "             link unknown: %s\n", link.c_str());
  else
    std::fprintf(out_,
                 "             link %s: the device read %.1f%% of it over its ranks' window\n",
                 link.c_str(), 100.0 * d.link_fraction);
}

// The same scan with the data shipped to collectors instead of counted in place (ship-count at
// the same point), when the run had it.
void ConsoleWriter::print_shipped(const SummaryRow& f) {
  if (!last_ship_) return;
  const SummaryRow& s = last_ship_->summary;
  if (s.ranks != f.ranks || s.repetition != f.repetition) return;
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
               s.bandwidth_Bps / kGB,
               s.bandwidth_Bps > 0 ? f.bandwidth_Bps / s.bandwidth_Bps : 0.0);
}

}  // namespace iosweep
