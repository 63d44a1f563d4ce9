// Point reduction (see reducer.hpp).
#include "sweep/reducer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <tuple>

#include "model/md_costs.hpp"
#include "sweep/headroom.hpp"

namespace iosweep {
namespace {

struct Stats {
  double min = 0, max = 0, mean = 0, std = 0;
};

Stats stats_of(const std::vector<double>& v) {
  Stats s;
  if (v.empty()) return s;
  s.min = *std::min_element(v.begin(), v.end());
  s.max = *std::max_element(v.begin(), v.end());
  double sum = 0;
  for (double x : v)
    sum += x;
  s.mean = sum / static_cast<double>(v.size());
  double sq = 0;
  for (double x : v)
    sq += (x - s.mean) * (x - s.mean);
  s.std = std::sqrt(sq / static_cast<double>(v.size()));
  return s;
}

double safe_div(double a, double b) {
  return b > 0 ? a / b : 0.0;
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Collective MPI-IO reads: aggregator ranks read for every rank, on their own nodes, so a
// rank's residency of its region says nothing of where its bytes came from. Each node's sampler
// measured the shared file's residency before and after the window: what no node had to bring
// into its page cache during the read came from one (an upper bound: pages read and dropped again
// before the end count as cached). cached_fraction_max is the most of the file one node held
// before. With O_DIRECT nothing is brought into a cache and nothing can be told: NaN.
void reduce_collective_cache(const PointInput& in, PointResult& out) {
  SummaryRow& s = out.summary;
  for (auto& r : out.ranks)
    r.cached_fraction = kNaN;
  s.cached_fraction_mean = s.cached_fraction_max = kNaN;
  double brought = 0, most = 0;
  bool known = !in.direct && !in.node_cached.empty() && s.bytes > 0 && in.shared_file_bytes > 0;
  for (const auto& [node, ba] : in.node_cached) {
    known = known && !std::isnan(ba.first) && !std::isnan(ba.second);
    brought += std::max(0.0, ba.second - ba.first);
    most = std::max(most, ba.first);
  }
  if (!known) {
    out.notes.emplace_back(in.direct
                               ? "cached unknown: collective O_DIRECT reads fill no page cache "
                                 "to tell the aggregators' hits by"
                               : "cached unknown: the aggregators' nodes could not be measured");
    return;
  }
  s.cached_fraction_mean = std::clamp(1.0 - brought / static_cast<double>(s.bytes), 0.0, 1.0);
  s.cached_fraction_max = std::min(1.0, most / in.shared_file_bytes);
}

// "wire not measured: node 1: interface eth9 was gone after the phase (...)" for the first row
// whose counters could not be measured, or empty: one such row leaves the sum unknown.
template <class Row>
std::string first_note(const std::vector<Row>& rows, const char* what) {
  for (const Row& r : rows)
    if (r.note[0] != '\0')
      return std::string(what) + " not measured: node " + std::to_string(r.node) + ": " +
             std::string(r.note, strnlen(r.note, sizeof r.note));
  return {};
}

// Device counters, page-cache residency and unflushed bytes: what says where the bytes came
// from. Fractions are NaN where nothing was measured, never 0.
void reduce_provenance(const PointInput& in, PointResult& out) {
  SummaryRow& s = out.summary;
  s.filter_efficiency = kNaN;
  s.filter_vs_seq_read = kNaN;
  s.filter_vs_ship = kNaN;
  s.device_read_bytes = s.device_write_bytes = s.device_fraction = kNaN;
  const std::string device_lost = first_note(in.devices, "device");
  if (!device_lost.empty()) out.notes.push_back(device_lost);
  if (in.device_measured && device_lost.empty()) {
    double rd = 0, wr = 0;
    for (const auto& d : in.devices)
      if (d.counted) {
        rd += static_cast<double>(d.read_bytes);
        wr += static_cast<double>(d.write_bytes);
      }
    s.device_read_bytes = rd;
    s.device_write_bytes = wr;
    if (s.bytes > 0 && !in.metadata)
      s.device_fraction = (in.writes ? wr : rd) / static_cast<double>(s.bytes);
  }
  out.devices = in.devices;
  for (auto& d : out.devices)
    d.point = in.point;
  s.wire_rx_bytes = s.wire_tx_bytes = s.wire_fraction = kNaN;
  const std::string wire_lost = first_note(in.wire, "wire");
  if (!wire_lost.empty()) out.notes.push_back(wire_lost);
  // Collective MPI-IO on several nodes ships the aggregators' bytes between them over MPI, which
  // may cross the very interfaces the storage's bytes cross: the counters cannot tell the two
  // apart, so they say nothing of the storage (the wire table keeps what they counted).
  const bool mpi_on_wire = in.collective && in.nodes > 1;
  if (in.wire_measured && wire_lost.empty() && mpi_on_wire)
    out.notes.emplace_back(
        "wire unverified: collective MPI-IO ships the aggregators' bytes between nodes over MPI, "
        "which the storage interfaces may carry too");
  if (in.wire_measured && wire_lost.empty() && !mpi_on_wire) {
    double rx = 0, tx = 0;
    for (const auto& w : in.wire)
      if (w.counted) {
        rx += static_cast<double>(w.rx_bytes);
        tx += static_cast<double>(w.tx_bytes);
      }
    s.wire_rx_bytes = rx;
    s.wire_tx_bytes = tx;
    if (s.bytes > 0 && !in.metadata)
      s.wire_fraction = (in.writes ? tx : rx) / static_cast<double>(s.bytes);
  }
  out.wire = in.wire;
  for (auto& w : out.wire)
    w.point = in.point;
  double cached_sum = 0, cached_max = kNaN, unflushed = 0, written = 0;
  int cached_n = 0;
  bool any_unflushed = false;
  for (const auto& r : in.samples) {
    if (!std::isnan(r.cached_fraction)) {
      cached_sum += r.cached_fraction;
      cached_max = cached_n++ == 0 ? r.cached_fraction : std::max(cached_max, r.cached_fraction);
    }
    if (!std::isnan(r.unflushed_fraction)) {
      any_unflushed = true;
      unflushed += r.unflushed_fraction * static_cast<double>(r.bytes);
      written += static_cast<double>(r.bytes);
    }
  }
  s.cached_fraction_mean = cached_n > 0 ? cached_sum / cached_n : kNaN;
  s.cached_fraction_max = cached_max;
  s.unflushed_fraction = any_unflushed && written > 0 ? unflushed / written : kNaN;
  if (in.collective && !in.writes) reduce_collective_cache(in, out);
}

// A metadata row: what the point was to make, whether the caches were dropped, and the device's
// and each node's wire bytes per operation (the figures its notes judge: output/notes.cpp).
void reduce_metadata(const PointInput& in, PointResult& out) {
  SummaryRow& s = out.summary;
  s.md_device_bytes_per_op = s.md_wire_bytes_per_op = kNaN;
  if (!in.metadata) return;
  for (const auto& r : in.samples) {
    s.md_items += r.md_items;
    s.md_folders += r.md_folders;
    s.md_branch = std::max(s.md_branch, static_cast<std::uint32_t>(r.md_branch));
  }
  s.md_cache_drop = in.lookup ? in.cache_drop : 0;
  if (s.ops == 0) return;
  s.md_server_bytes_per_op = s.md_cached_fraction = kNaN;
  const auto ops = static_cast<double>(s.ops);
  if (in.device_measured)
    s.md_device_bytes_per_op =
        (s.device_read_bytes + (in.lookup ? 0.0 : s.device_write_bytes)) / ops;
  if (!in.wire_measured) return;
  // Each node's bytes over its own ranks' operations; a node whose namespace another node's
  // row counted shows in that row (which then holds more bytes per operation, never fewer).
  std::map<int, std::uint64_t> node_ops;
  for (const auto& r : in.samples)
    node_ops[r.node] += r.ops;
  for (const auto& w : in.wire) {
    const std::uint64_t n = node_ops[w.node];
    if (!w.counted || n == 0) continue;
    const double per = static_cast<double>(w.rx_bytes + w.tx_bytes) / static_cast<double>(n);
    if (std::isnan(s.md_wire_bytes_per_op) || per < s.md_wire_bytes_per_op)
      s.md_wire_bytes_per_op = per;
  }
  if (std::isnan(s.md_wire_bytes_per_op)) return;
  // What the smallest node's operations would have needed had every one reached a server
  // (model/md_costs.hpp), and the share of them the caches answered or held back.
  s.md_server_bytes_per_op = md_reference_bytes(in.md_fs_type, in.phase, in.md_item_bytes);
  s.md_cached_fraction =
      std::clamp(1.0 - s.md_wire_bytes_per_op / s.md_server_bytes_per_op, 0.0, 1.0);
}

// Each device row's share of the point: the ranks of its node whose file's folder is on it,
// their bytes and their slowest window.
void claim_devices(const PointInput& in, std::vector<DeviceRow>& devices) {
  std::map<int, std::vector<std::size_t>> of_node;  // node -> its device rows
  for (std::size_t i = 0; i < devices.size() && i < in.device_folders.size(); ++i)
    of_node[devices[i].node].push_back(i);
  for (const auto& r : in.samples) {
    if (r.folder < 0 || static_cast<std::size_t>(r.folder) >= kMaxDirs) continue;
    const auto rows = of_node.find(r.node);
    if (rows == of_node.end()) continue;
    for (const std::size_t i : rows->second) {
      if (((in.device_folders[i] >> r.folder) & 1u) == 0) continue;
      DeviceRow& d = devices[i];
      d.ranks += 1;
      d.claimed_bytes += r.bytes;
      d.claimed_ops += r.ops;
      d.seconds = std::max(d.seconds, r.elapsed_s);
      break;
    }
  }
}

// The drive view: per drive (the rows of one `drive` id) its ranks' claims over their slowest
// window and its own counters (its counted row's) against those claims, on its counted row;
// in the summary the drives in use, the slowest and fastest, and the lowest fraction seen.
void reduce_drives(const PointInput& in, PointResult& out) {
  SummaryRow& s = out.summary;
  s.drives = 0;
  s.drive_bw_min_Bps = s.drive_bw_max_Bps = s.drive_fraction_min = kNaN;
  s.drive_iops_min = s.drive_iops_max = kNaN;
  s.drive_slowest = s.drive_fastest = -1;
  claim_devices(in, out.devices);
  struct Drive {
    double claimed = 0, ops = 0, seconds = 0;
    std::uint32_t ranks = 0;
    DeviceRow* counted = nullptr;
  };
  std::map<std::int32_t, Drive> drives;
  for (auto& d : out.devices) {
    d.drive_Bps = d.drive_iops = d.drive_fraction = kNaN;
    Drive& v = drives[d.drive];
    v.claimed += static_cast<double>(d.claimed_bytes);
    v.ops += static_cast<double>(d.claimed_ops);
    v.seconds = std::max(v.seconds, d.seconds);
    v.ranks += d.ranks;
    if (d.counted) v.counted = &d;
  }
  // The slowest and fastest drive: by bytes, or by operations for the metadata phases (whose
  // lookups move no bytes).
  for (auto& [id, v] : drives) {
    if (v.ranks == 0 || v.counted == nullptr) continue;
    const double bps = safe_div(v.claimed, v.seconds), iops = safe_div(v.ops, v.seconds);
    const auto seen =
        static_cast<double>(in.writes ? v.counted->write_bytes : v.counted->read_bytes);
    const double fraction = v.claimed > 0 ? seen / v.claimed : kNaN;
    v.counted->drive_Bps = bps;
    v.counted->drive_iops = iops;
    v.counted->drive_fraction = fraction;
    const bool first = s.drives++ == 0;
    const double rate = in.metadata ? iops : bps;
    const double slowest = in.metadata ? s.drive_iops_min : s.drive_bw_min_Bps;
    const double fastest = in.metadata ? s.drive_iops_max : s.drive_bw_max_Bps;
    if (first || rate < slowest) s.drive_slowest = id;
    if (first || rate > fastest) s.drive_fastest = id;
    s.drive_bw_min_Bps = first ? bps : std::min(s.drive_bw_min_Bps, bps);
    s.drive_bw_max_Bps = first ? bps : std::max(s.drive_bw_max_Bps, bps);
    s.drive_iops_min = first ? iops : std::min(s.drive_iops_min, iops);
    s.drive_iops_max = first ? iops : std::max(s.drive_iops_max, iops);
    if (!std::isnan(fraction) &&
        (std::isnan(s.drive_fraction_min) || fraction < s.drive_fraction_min))
      s.drive_fraction_min = fraction;
  }
}

}  // namespace

double bytes_by(const std::vector<std::uint64_t>& bins, double bin_s, double elapsed_s, double t) {
  double total = 0;
  for (std::size_t b = 0; b < bins.size(); ++b) {
    const double lo = static_cast<double>(b) * bin_s;
    const double hi = std::min(lo + bin_s, std::max(elapsed_s, lo));
    if (t >= hi) {
      total += static_cast<double>(bins[b]);
    } else if (t > lo) {
      total += static_cast<double>(bins[b]) * (t - lo) / (hi - lo);
    }
  }
  return total;
}

namespace {

// A rank's sample as its row of the `ranks` table.
RankRow rank_row(const RankSample& r, std::uint32_t point) {
  return {.point = point,
          .rank = r.rank,
          .position = r.position,
          .node = r.node,
          .file = r.file,
          .stonewalled = static_cast<std::uint8_t>(r.stonewalled),
          .bytes = r.bytes,
          .ops = r.ops,
          .elapsed_s = r.elapsed_s,
          .open_s = r.open_s,
          .io_s = r.io_s,
          .sync_s = r.sync_s,
          .close_s = r.close_s,
          .rows = r.rows,
          .matches = r.matches,
          .expected_matches = r.expected_matches,
          .io_wait_s = r.io_wait_s,
          .compute_s = r.compute_s,
          .verify_s = r.verify_s,
          .bad_blocks = r.bad_blocks,
          .wearout_bytes = r.wearout_bytes,
          .wearout_ops = r.wearout_ops,
          .wearout_s = r.wearout_s,
          .latency_max_ns = r.latency_max_ns,
          .cached_fraction = r.cached_fraction,
          .unflushed_fraction = r.unflushed_fraction,
          .cpu_s = r.cpu_s,
          .rss_peak_bytes = r.rss_peak_bytes,
          .private_bytes = r.private_bytes,
          .mpi_bytes = r.mpi_bytes,
          .mpi_remote_bytes = r.mpi_remote_bytes,
          .folder = r.folder,
          .stall_s = r.stall_s,
          .cpu_user_s = r.cpu_user_s,
          .cpu_sys_s = r.cpu_sys_s,
          .cpu_queued_s = r.cpu_queued_s,
          .busy_fraction = busy_of(r)};
}

// What the point is: its phase, engine, ranks, depth, streams, nodes and repetition.
void identify(const PointInput& in, SummaryRow& s) {
  s.point = in.point;
  s.step = in.step;
  s.plan_row = in.plan_row;
  s.phase = in.phase;
  s.engine = in.engine;
  s.ranks = static_cast<std::uint32_t>(in.ranks);
  s.iodepth = in.iodepth;
  // What ran: ranks x the depth the phase kept (a phase of fewer records than the point's depth
  // keeps fewer; the point's own depth is in the run's point_iodepths).
  s.streams = static_cast<std::uint32_t>(
      std::min<std::uint64_t>(static_cast<std::uint64_t>(in.ranks) * in.iodepth,
                              std::numeric_limits<std::uint32_t>::max()));
  s.nodes = static_cast<std::uint32_t>(in.nodes);
  s.repetition = static_cast<std::uint32_t>(in.repetition);
  s.order_seed = in.order_seed;
  s.overhead_s = in.overhead_s;
}

// Sums and maxima over the ranks' samples; every rank's row.
void sum_samples(const PointInput& in, PointResult& out) {
  SummaryRow& s = out.summary;
  for (const auto& r : in.samples) {
    s.bytes += r.bytes;
    s.ops += r.ops;
    s.rows += r.rows;
    s.expected_matches += r.expected_matches;
    s.stonewalled = static_cast<std::uint8_t>(s.stonewalled | (r.stonewalled ? 1 : 0));
    s.wearout_bytes += r.wearout_bytes;
    s.wearout_max_s = std::max(s.wearout_max_s, r.wearout_s);
    s.verify_max_s = std::max(s.verify_max_s, r.verify_s);
    s.bad_blocks += r.bad_blocks;
    s.lat_max_ns = std::max(s.lat_max_ns, static_cast<double>(r.latency_max_ns));
    s.stall_s = std::max(s.stall_s, r.stall_s);
    s.mpi_bytes += r.mpi_bytes;
    s.mpi_remote_bytes += r.mpi_remote_bytes;
    s.cpu_s += r.cpu_s;
    s.rss_peak_max_bytes = std::max(s.rss_peak_max_bytes, r.rss_peak_bytes);
    s.private_max_bytes = std::max(s.private_max_bytes, r.private_bytes);
    out.ranks.push_back(rank_row(r, in.point));
  }
  // filter-count's sum reduced over MPI, or the samples' own (find's files counted).
  std::uint64_t sample_matches = 0;
  for (const auto& r : in.samples)
    sample_matches += r.matches;
  s.matches = std::max(in.total_matches, sample_matches);
  s.t_start_unix_ns = in.samples.empty() ? 0 : in.samples.front().t_start_unix_ns;
  for (const auto& r : in.samples)
    s.t_start_unix_ns = std::min(s.t_start_unix_ns, r.t_start_unix_ns);
}

// The window figures: wall (the slowest rank), IOR's bandwidth, IOzone's children, the spread
// over ranks, filter-count's split of the loop.
void reduce_timing(const PointInput& in, SummaryRow& s) {
  std::vector<double> rates, op_rates, times;
  double io_wait = 0, compute = 0;
  for (const auto& r : in.samples) {
    rates.push_back(safe_div(static_cast<double>(r.bytes), r.elapsed_s));
    op_rates.push_back(safe_div(static_cast<double>(r.ops), r.elapsed_s));
    times.push_back(r.elapsed_s);
    io_wait += r.io_wait_s;
    compute += r.compute_s;
  }
  const auto n = static_cast<double>(in.samples.size());
  const Stats rs = stats_of(rates), os = stats_of(op_rates), ts = stats_of(times);
  s.wall_s = ts.max;
  s.bandwidth_Bps = safe_div(static_cast<double>(s.bytes), s.wall_s);
  s.iops = safe_div(static_cast<double>(s.ops), s.wall_s);
  for (double r : rates)
    s.children_Bps += r;
  s.rank_bw_min_Bps = rs.min;
  s.rank_bw_max_Bps = rs.max;
  s.rank_bw_mean_Bps = rs.mean;
  s.rank_bw_std_Bps = rs.std;
  s.rank_iops_min = os.min;
  s.rank_iops_max = os.max;
  s.rank_iops_mean = os.mean;
  s.rank_iops_std = os.std;
  s.rank_time_min_s = ts.min;
  s.rank_time_max_s = ts.max;
  s.rank_time_mean_s = ts.mean;
  s.rank_time_std_s = ts.std;
  s.first_done_s = ts.min;
  s.last_done_s = ts.max;
  s.last_done_Bps = safe_div(static_cast<double>(s.bytes), s.last_done_s);
  s.io_wait_mean_s = n > 0 ? io_wait / n : 0;
  s.compute_mean_s = n > 0 ? compute / n : 0;
}

// What every rank had moved when the first rank finished (IOzone's stonewalled figure).
void reduce_first_done(const PointInput& in, SummaryRow& s) {
  double moved_at_first = 0;
  const bool have_series = in.series_bytes.size() == in.samples.size();
  for (std::size_t i = 0; i < in.samples.size(); ++i) {
    const auto& r = in.samples[i];
    if (r.elapsed_s <= s.first_done_s || !have_series) {
      moved_at_first +=
          static_cast<double>(r.bytes) * std::min(1.0, safe_div(s.first_done_s, r.elapsed_s));
    } else {
      moved_at_first +=
          std::min(static_cast<double>(r.bytes),
                   bytes_by(in.series_bytes[i], in.bin_s, r.elapsed_s, s.first_done_s));
    }
  }
  s.first_done_Bps = safe_div(moved_at_first, s.first_done_s);
  s.iozone_children_Bps = s.first_done_Bps;
}

// No operation completed (a phase stonewalled before its first record, or nothing to read): no
// latency was measured, and 0 ns would read as one.
void reduce_latency(const LatencyHistogram& h, SummaryRow& s) {
  if (s.ops == 0) {
    s.lat_mean_ns = s.lat_p50_ns = s.lat_p90_ns = s.lat_p99_ns = s.lat_p999_ns = s.lat_p9999_ns =
        s.lat_max_ns = kNaN;
    return;
  }
  s.lat_mean_ns = h.mean_ns();
  s.lat_p50_ns = h.percentile_ns(0.50);
  s.lat_p90_ns = h.percentile_ns(0.90);
  s.lat_p99_ns = h.percentile_ns(0.99);
  s.lat_p999_ns = h.percentile_ns(0.999);
  s.lat_p9999_ns = h.percentile_ns(0.9999);
}

// One row per node used: its ranks' bytes over its slowest rank's time.
void reduce_nodes(const PointInput& in, PointResult& out) {
  std::map<int, NodeRow> nodes;
  for (const auto& r : in.samples) {
    auto& row = nodes[r.node];
    row.point = in.point;
    row.node = r.node;
    row.ranks += 1;
    row.bytes += r.bytes;
    row.ops += r.ops;
    row.seconds = std::max(row.seconds, r.elapsed_s);
  }
  for (auto& [id, row] : nodes) {
    row.bandwidth_Bps = safe_div(static_cast<double>(row.bytes), row.seconds);
    row.iops = safe_div(static_cast<double>(row.ops), row.seconds);
    row.cached_before_bytes = row.cached_after_bytes = kNaN;
    if (const auto it = in.node_cached.find(id);
        in.collective && !in.writes && it != in.node_cached.end())
      std::tie(row.cached_before_bytes, row.cached_after_bytes) = it->second;
    out.nodes.push_back(row);
  }
}

// Every rank's bins, then the merged bins (rank -1): bytes and ops summed over the ranks that
// had the bin, latency from the merged bin histograms.
void reduce_series(const PointInput& in, PointResult& out) {
  if (in.series_bytes.size() != in.samples.size()) return;
  const bool have_latency = in.series_latency.size() == in.samples.size();
  std::vector<std::uint64_t> bytes(in.merged_latency.size()), ops(in.merged_latency.size());
  for (std::size_t i = 0; i < in.samples.size(); ++i)
    for (std::size_t b = 0; b < in.series_bytes[i].size(); ++b) {
      const BinLatency lat = have_latency ? in.series_latency[i][b] : BinLatency{};
      out.series.push_back({.point = in.point,
                            .rank = in.samples[i].rank,
                            .bin = static_cast<std::uint32_t>(b),
                            .t_start_s = static_cast<double>(b) * in.bin_s,
                            .bytes = in.series_bytes[i][b],
                            .ops = in.series_ops[i][b],
                            .lat_p50_ns = lat.p50_ns,
                            .lat_p99_ns = lat.p99_ns,
                            .lat_max_ns = lat.max_ns});
      if (b < bytes.size()) {
        bytes[b] += in.series_bytes[i][b];
        ops[b] += in.series_ops[i][b];
      }
    }
  for (std::size_t b = 0; b < in.merged_latency.size(); ++b)
    out.series.push_back({.point = in.point,
                          .rank = kAllRanks,
                          .bin = static_cast<std::uint32_t>(b),
                          .t_start_s = static_cast<double>(b) * in.bin_s,
                          .bytes = bytes[b],
                          .ops = ops[b],
                          .lat_p50_ns = in.merged_latency[b].p50_ns,
                          .lat_p99_ns = in.merged_latency[b].p99_ns,
                          .lat_max_ns = in.merged_latency[b].max_ns});
}

// An operation that stayed outstanding from the stall watch's notice on (sweep/stall.hpp): the
// row says how long, and whose (the ranks table has each rank's, the rank's stderr what it was).
void note_stall(const PointInput& in, PointResult& out) {
  const RankSample* worst = nullptr;
  int stalled = 0;
  for (const auto& r : in.samples) {
    if (r.stall_s <= 0) continue;
    ++stalled;
    if (worst == nullptr || r.stall_s > worst->stall_s) worst = &r;
  }
  if (worst == nullptr) return;
  char b[128];
  std::snprintf(b, sizeof b, "stalled %.1f s: one operation of rank %d", worst->stall_s,
                worst->rank);
  std::string n = b;
  if (stalled > 1) n += " (" + std::to_string(stalled) + " ranks stalled)";
  out.notes.push_back(n);
}

// What the row moved when it is not what a whole file holds, and a window too short for its
// figure (kShortWindowS).
void note_what_ran(const PointInput& in, PointResult& out) {
  const SummaryRow& s = out.summary;
  std::uint64_t data = 0;
  for (const auto& r : in.samples)
    data += r.data_bytes;
  if (!in.creates && !in.metadata && in.full_bytes > 0 && data < in.full_bytes)
    out.notes.push_back(data == 0 ? std::string("the files held no data: the write before this "
                                                "phase stopped at its first record")
                                  : "the files held " + std::to_string(data) + " of " +
                                        std::to_string(in.full_bytes) +
                                        " bytes: the write before this phase stopped early");
  if (s.ops == 0) {
    out.notes.emplace_back("no operation completed: no figure but the window");
    return;
  }
  char b[96];
  if (s.wall_s < kShortWindowS) {
    std::snprintf(b, sizeof b, "short window: %.1f ms (< %.0f ms)", s.wall_s * 1e3,
                  kShortWindowS * 1e3);
    out.notes.emplace_back(b);
  } else if (s.lat_max_ns > kShortWindowOpShare * s.wall_s * 1e9) {
    std::snprintf(b, sizeof b, "short window: one operation took %.0f%% of it",
                  100.0 * s.lat_max_ns / (s.wall_s * 1e9));
    out.notes.emplace_back(b);
  }
}

}  // namespace

PointResult reduce_point(const PointInput& in) {
  PointResult out;
  out.notes = in.notes;
  identify(in, out.summary);
  sum_samples(in, out);
  note_stall(in, out);
  reduce_provenance(in, out);
  reduce_drives(in, out);
  reduce_links(in, out);
  reduce_metadata(in, out);
  reduce_timing(in, out.summary);
  reduce_cpu(in, out.summary);
  reduce_rated(in, out.summary);
  reduce_first_done(in, out.summary);
  reduce_latency(in.latency, out.summary);
  reduce_nodes(in, out);
  reduce_series(in, out);
  note_what_ran(in, out);
  return out;
}

}  // namespace iosweep
