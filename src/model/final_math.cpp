// The final math (see final_math.hpp).
#include "model/final_math.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <type_traits>

#include "model/engine_desc.hpp"

namespace iosweep {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double ratio(double a, double b) {
  return b > 0 ? a / b : 0.0;
}

const char* count_check(const SummaryRow& s) {
  if (!engine_desc(s.engine).moves_data) return "not checked: no data moved";
  if (s.rows == 0) return "nothing scanned";
  return s.matches == s.expected_matches ? "exact" : "MISMATCH";
}

// Per drive, or per rank's device when no block device told the drives apart; the rates of
// --rated-bw and --rated-iops against it.
void rated(FinalMathRow& r, const SummaryRow& s, const FinalMathInputs& in) {
  put_text(r.rated_per, r.drives > 0 ? "per drive" : "per rank's device");
  r.rated_per_Bps = r.drives > 0 ? r.per_drive_Bps : r.per_rank_Bps;
  r.rated_bw_Bps = in.rated_bw_Bps;
  r.rated_bw2_Bps = in.rated_bw2_Bps;
  r.rated_fraction = in.rated_bw_Bps > 0 ? r.rated_per_Bps / in.rated_bw_Bps : kNaN;
  r.rated2_fraction = in.rated_bw2_Bps > 0 ? r.rated_per_Bps / in.rated_bw2_Bps : kNaN;
  r.rated_iops = in.rated_iops;
  r.rated_per_iops = ratio(s.iops, static_cast<double>(r.drives > 0 ? r.drives : r.ranks));
  r.rated_iops_fraction = in.rated_iops > 0 ? r.rated_per_iops / in.rated_iops : kNaN;
}

// The same scan with the data shipped to collectors (ship-count at the same point).
void shipped(FinalMathRow& r, const SummaryRow& f, const PointResult* ship) {
  r.ship_point = -1;
  if (ship == nullptr) return;
  const SummaryRow& s = ship->summary;
  if (s.ranks != f.ranks || s.repetition != f.repetition) return;
  r.ship_point = static_cast<std::int32_t>(s.point);
  r.ship_ranks = s.ranks;
  r.ship_mpi_bytes = s.mpi_bytes;
  r.ship_remote_fraction =
      ratio(static_cast<double>(s.mpi_remote_bytes), static_cast<double>(s.mpi_bytes));
  r.filter_mpi_bytes = f.mpi_bytes;
  r.ship_bandwidth_Bps = s.bandwidth_Bps;
  r.filter_vs_ship = ratio(f.bandwidth_Bps, s.bandwidth_Bps);
}

template <typename T>
std::string joined(const std::set<T>& items) {
  std::string s;
  for (const auto& x : items) {
    if (!s.empty()) s += ",";
    if constexpr (std::is_same_v<T, std::string>)
      s += x;
    else
      s += std::to_string(x);
  }
  return s;
}

// Every drive used: its counted row's counters over the point's window (the slowest rank's),
// and what the ranks of its rows claimed.
std::vector<FinalMathDriveRow> drives_of(const PointResult& p, std::uint32_t step) {
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
    v.folders.insert(std::string(text_of(d.folders)));
    v.claimed += d.claimed_bytes;
    v.ranks += d.ranks;
  }
  const SummaryRow& s = p.summary;
  std::vector<FinalMathDriveRow> out;
  for (const auto& [id, v] : drives) {
    if (v.counted == nullptr || std::isnan(v.counted->drive_Bps)) continue;
    FinalMathDriveRow r{};
    r.step = step;
    r.point = s.point;
    r.drive = id;
    put_text(r.device, text_of(v.counted->device));
    put_text(r.nodes, joined(v.nodes));
    put_text(r.folders, joined(v.folders));
    r.read_bytes = v.counted->read_bytes;
    r.window_s = s.wall_s;
    r.device_Bps = ratio(static_cast<double>(r.read_bytes), s.wall_s);
    r.ranks = v.ranks;
    r.claimed_bytes = v.claimed;
    r.drive_Bps = v.counted->drive_Bps;
    r.link_Bps = v.counted->link_Bps;
    r.link_fraction = v.counted->link_fraction;
    put_text(r.link, text_of(v.counted->link));
    out.push_back(r);
  }
  return out;
}

}  // namespace

FinalMath make_final_math(const PointResult& filter, const PointResult* ship,
                          const FinalMathInputs& in) {
  const SummaryRow& s = filter.summary;
  FinalMath fm;
  FinalMathRow& r = fm.row;
  r.step = in.step;
  r.point = s.point;
  r.ranks = s.ranks;
  r.nodes = s.nodes;
  r.streams = s.streams;
  r.iodepth = s.iodepth;
  r.repetition = s.repetition;
  r.by_streams = in.by_streams ? 1 : 0;
  r.bytes = s.bytes;
  r.rows = s.rows;
  r.wall_s = s.wall_s;
  r.bandwidth_Bps = s.bandwidth_Bps;
  r.per_node_Bps = ratio(s.bandwidth_Bps, static_cast<double>(s.nodes));
  r.per_rank_Bps = ratio(s.bandwidth_Bps, static_cast<double>(s.ranks));
  r.drives = s.drives;
  r.per_drive_Bps = s.drives > 0 ? s.bandwidth_Bps / static_cast<double>(s.drives) : kNaN;
  if (s.drives == 0)
    put_text(r.drive_note, in.device_note.empty() ? "no drive was counted"
                                                  : "no device counters (" + in.device_note + ")");
  r.matches = s.matches;
  r.expected_matches = s.expected_matches;
  put_text(r.count_check, count_check(s));
  rated(r, s, in);
  shipped(r, s, ship);
  fm.nodes = filter.nodes;
  fm.drives = drives_of(filter, in.step);
  return fm;
}

}  // namespace iosweep
