// The console's compute-adjacent "final math" (see console_writer.hpp), printed from the plain
// data model/final_math.hpp made for the largest filter-count point: data, runtime, aggregate,
// per node, per rank, per drive with every drive's own counters over the window and against its
// PCIe link, the count's check, the percent of the drives' rated bandwidth and IOPS, and the same
// scan shipped to collectors when ship-count ran. Nothing is worked out here; the results file
// stores the same rows and iosweep-report prints them alike. GB are 10^9 bytes, as data sheets
// write them.
#include <algorithm>

#include "core/errors.hpp"
#include "core/units.hpp"
#include "output/console_writer.hpp"

namespace iosweep {
namespace {

constexpr double kGB = 1e9;

double mib(double bps) {
  return bps / kBytesPerMiB;
}

template <std::size_t N>
std::string text(const char (&field)[N]) {
  return std::string(text_of(field));
}

}  // namespace

void ConsoleWriter::print_final_math() {
  if (!final_math_) return;
  const FinalMathRow& r = final_math_->row;
  if (r.by_streams)
    std::fprintf(out_,
                 "filter-count at %u streams (%u ranks x depth %u) on %u node(s) (the "
                 "largest point):\n",
                 r.streams, r.ranks, r.iodepth, r.nodes);
  else
    std::fprintf(out_, "filter-count at %u ranks on %u node(s) (the largest point):\n", r.ranks,
                 r.nodes);
  std::fprintf(out_, "  data       %llu bytes (%.3f GB), %llu rows of 8 bytes\n",
               static_cast<unsigned long long>(r.bytes), static_cast<double>(r.bytes) / kGB,
               static_cast<unsigned long long>(r.rows));
  std::fprintf(out_, "  runtime    %.3f s\n", r.wall_s);
  std::fprintf(out_, "  aggregate  %.3f GB/s (%.1f MiB/s)\n", r.bandwidth_Bps / kGB,
               mib(r.bandwidth_Bps));
  for (const auto& n : final_math_->nodes)
    std::fprintf(out_, "  node %-3d   %.3f GB/s  (%u ranks, %s)\n", n.node, n.bandwidth_Bps / kGB,
                 n.ranks, ctx_.topology.hosts[static_cast<std::size_t>(n.node)].c_str());
  std::fprintf(out_, "  per node   %.3f GB/s (aggregate / nodes)\n", r.per_node_Bps / kGB);
  std::fprintf(out_, "  per rank   %.3f GB/s (aggregate / ranks)\n", r.per_rank_Bps / kGB);
  print_drives(*final_math_);
  std::fprintf(out_, "  matches    %llu found, %llu expected (%s)\n",
               static_cast<unsigned long long>(r.matches),
               static_cast<unsigned long long>(r.expected_matches), text(r.count_check).c_str());
  print_rated(r);
  print_shipped(r);
}

// --rated-bw: one ceiling, or two (sequential and random, as the compute-adjacent study quotes
// them) as a range.
void ConsoleWriter::print_rated(const FinalMathRow& r) {
  const std::string unit = text(r.rated_per);
  if (r.rated_bw_Bps > 0 && r.rated_bw2_Bps > 0) {
    const double a = 100.0 * r.rated_fraction, b = 100.0 * r.rated2_fraction;
    std::fprintf(out_,
                 "  rated      %.3f GB/s and %.3f GB/s %s: between %.1f%% and %.1f%% of rated "
                 "maximum (%.1f%% of %.3f GB/s, %.1f%% of %.3f GB/s)\n",
                 r.rated_bw_Bps / kGB, r.rated_bw2_Bps / kGB, unit.c_str(), std::min(a, b),
                 std::max(a, b), a, r.rated_bw_Bps / kGB, b, r.rated_bw2_Bps / kGB);
  } else if (r.rated_bw_Bps > 0) {
    std::fprintf(out_, "  rated      %.3f GB/s %s: %.1f%% of rated maximum\n", r.rated_bw_Bps / kGB,
                 unit.c_str(), 100.0 * r.rated_fraction);
  }
  // --rated-iops: the point's operations per second per drive (per rank's device) against it.
  if (r.rated_iops > 0)
    std::fprintf(out_, "  rated      %.0f IOPS %s: %.1f%% of rated IOPS (%.0f IOPS)\n",
                 r.rated_iops, unit.c_str(), 100.0 * r.rated_iops_fraction, r.rated_per_iops);
}

// A drive's link: its device bytes over the drive's window against it, or why it is unknown.
void ConsoleWriter::print_link(const FinalMathDriveRow& d) {
  const std::string link = printable(text(d.link));
  if (!(d.link_Bps > 0))
    std::fprintf(out_, "             link unknown: %s\n", link.c_str());
  else
    std::fprintf(out_,
                 "             link %s: the device read %.1f%% of it over its ranks' window\n",
                 link.c_str(), 100.0 * d.link_fraction);
}

// Per drive as the study reports it (aggregate / drives used), then every drive used: what its
// own counters read over the point's window (the slowest rank's), and what its ranks claimed
// over their own slowest window.
void ConsoleWriter::print_drives(const FinalMath& fm) {
  const FinalMathRow& r = fm.row;
  if (r.drives == 0) {
    std::fprintf(out_, "  per drive  not known: %s\n", printable(text(r.drive_note)).c_str());
    return;
  }
  std::fprintf(out_, "  per drive  %.3f GB/s (aggregate / %u drive%s used)\n",
               r.per_drive_Bps / kGB, r.drives, r.drives == 1 ? "" : "s");
  for (const FinalMathDriveRow& d : fm.drives) {
    const std::string nodes = text(d.nodes), folders = printable(text(d.folders));
    std::fprintf(out_,
                 "  drive %-4d %s on node%s %s (%s): device read %llu bytes = %.3f GB/s over the "
                 "%.3f s window; %u rank%s claimed %llu bytes, %.3f GB/s\n",
                 d.drive, printable(text(d.device)).c_str(),
                 nodes.find(',') == std::string::npos ? "" : "s", nodes.c_str(), folders.c_str(),
                 static_cast<unsigned long long>(d.read_bytes), d.device_Bps / kGB, d.window_s,
                 d.ranks, d.ranks == 1 ? "" : "s", static_cast<unsigned long long>(d.claimed_bytes),
                 d.drive_Bps / kGB);
    print_link(d);
  }
}

// The same scan with the data shipped to collectors instead of counted in place (ship-count at
// the same point), when the run had it.
void ConsoleWriter::print_shipped(const FinalMathRow& r) {
  if (r.ship_point < 0) return;
  std::fprintf(out_, "ship-count at %u ranks (every record sent over MPI to a collector):\n",
               r.ship_ranks);
  std::fprintf(out_,
               "  moved      %llu bytes over MPI (%.0f%% to another node), against %llu "
               "bytes (8 per rank) for filter-count\n",
               static_cast<unsigned long long>(r.ship_mpi_bytes), 100.0 * r.ship_remote_fraction,
               static_cast<unsigned long long>(r.filter_mpi_bytes));
  std::fprintf(out_, "  aggregate  %.3f GB/s; filter-count / ship-count %.2f\n",
               r.ship_bandwidth_Bps / kGB, r.filter_vs_ship);
}

}  // namespace iosweep
