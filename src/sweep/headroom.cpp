// CPU, link and rated figures of a point (see headroom.hpp).
#include "sweep/headroom.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "model/engine_desc.hpp"
#include "model/phase_desc.hpp"

namespace iosweep {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// x folded into the lowest (lo) and highest (hi) so far, unless NaN (lo, hi start NaN).
void extremes(double x, double& lo, double& hi) {
  if (std::isnan(x)) return;
  lo = std::isnan(lo) ? x : std::min(lo, x);
  hi = std::isnan(hi) ? x : std::max(hi, x);
}

}  // namespace

double busy_of(const RankSample& r) {
  return r.elapsed_s >= kMinCpuWindowS ? (r.cpu_user_s + r.cpu_sys_s) / r.elapsed_s : kNaN;
}

double queued_of(const RankSample& r) {
  return r.elapsed_s >= kMinCpuWindowS ? r.cpu_queued_s / r.elapsed_s : kNaN;
}

void reduce_cpu(const PointInput& in, SummaryRow& s) {
  double user_s = 0, sys_s = 0, busy_sum = 0, queued_sum = 0, busy_max = kNaN, unused = kNaN;
  int busy_n = 0, queued_n = 0;
  bool queued_known = !in.samples.empty();
  for (const auto& r : in.samples) {
    user_s += r.cpu_user_s;
    sys_s += r.cpu_sys_s;
    if (const double b = busy_of(r); !std::isnan(b)) {
      busy_sum += b;
      ++busy_n;
      extremes(b, unused, busy_max);
    }
    if (r.elapsed_s < kMinCpuWindowS) continue;  // no fraction to tell (busy_of)
    const double q = queued_of(r);
    queued_known = queued_known && !std::isnan(q);
    if (!std::isnan(q)) {
      queued_sum += q;
      ++queued_n;
    }
  }
  const auto ops = static_cast<double>(s.ops);
  s.cpu_user_ns_per_op = s.ops > 0 ? user_s * 1e9 / ops : kNaN;
  s.cpu_sys_ns_per_op = s.ops > 0 ? sys_s * 1e9 / ops : kNaN;
  s.busy_fraction_mean = busy_n > 0 ? busy_sum / busy_n : kNaN;
  s.busy_fraction_max = busy_max;
  s.queued_fraction_mean = queued_known && queued_n > 0 ? queued_sum / queued_n : kNaN;
}

// The drive's device bytes in the phase's direction over the slowest window of its ranks (the
// seconds of every row of the drive), against its link; on its counted row.
void reduce_links(const PointInput& in, PointResult& out) {
  SummaryRow& s = out.summary;
  s.link_fraction_min = s.link_fraction_max = kNaN;
  // No data moved (the null engine): the drives' links have nothing to say about the row.
  const bool data = !in.metadata && engine_desc(in.engine).moves_data;
  std::map<std::int32_t, double> seconds;
  for (const auto& d : out.devices)
    seconds[d.drive] = std::max(seconds[d.drive], d.seconds);
  for (auto& d : out.devices) {
    d.link_fraction = kNaN;
    const double window_s = seconds[d.drive];
    if (!data || !d.counted || std::isnan(d.drive_Bps) || !(d.link_Bps > 0) || !(window_s > 0))
      continue;
    const auto seen = static_cast<double>(in.writes ? d.write_bytes : d.read_bytes);
    d.link_fraction = seen / window_s / d.link_Bps;
    extremes(d.link_fraction, s.link_fraction_min, s.link_fraction_max);
  }
}

// Per drive as the final math reports it: the aggregate over the drives used, or over the ranks
// when no block device told the drives apart; data phases of an engine that moves data.
void reduce_rated(const PointInput& in, SummaryRow& s) {
  s.rated_bw_fraction = s.rated_iops_fraction = kNaN;
  if (in.metadata || !engine_desc(in.engine).moves_data) return;
  const double units = s.drives > 0 ? s.drives : s.ranks;
  if (units <= 0) return;
  const bool random = phase_desc(in.phase).random();
  const double rated_Bps = random && in.rated_bw2_Bps > 0 ? in.rated_bw2_Bps : in.rated_bw_Bps;
  if (rated_Bps > 0) s.rated_bw_fraction = s.bandwidth_Bps / units / rated_Bps;
  if (in.rated_iops > 0) s.rated_iops_fraction = s.iops / units / in.rated_iops;
}

}  // namespace iosweep
