// Reduction arithmetic from per-rank samples to the summary row.
#include <gtest/gtest.h>

#include <cmath>

#include "output/notes.hpp"
#include "sweep/reducer.hpp"

using namespace iosweep;

namespace {
RankSample sample(int rank, int node, std::uint64_t bytes, double elapsed) {
  RankSample s;
  s.rank = rank;
  s.position = rank;
  s.node = node;
  s.file = rank;
  s.bytes = bytes;
  s.ops = bytes / 4096;
  s.elapsed_s = elapsed;
  return s;
}
}  // namespace

TEST(Reducer, WallChildrenAndPerRankFigures) {
  PointInput in;
  in.ranks = 2;
  in.nodes = 2;
  in.samples = {sample(0, 0, 100 << 20, 1.0), sample(1, 1, 100 << 20, 2.0)};
  const auto r = reduce_point(in);
  const double mib = 1 << 20;
  EXPECT_EQ(r.summary.bytes, 200u << 20);
  EXPECT_DOUBLE_EQ(r.summary.wall_s, 2.0);
  EXPECT_DOUBLE_EQ(r.summary.bandwidth_Bps, 100 * mib);  // 200 MiB / 2 s
  EXPECT_DOUBLE_EQ(r.summary.children_Bps, 150 * mib);   // 100 + 50 MiB/s
  EXPECT_DOUBLE_EQ(r.summary.rank_bw_min_Bps, 50 * mib);
  EXPECT_DOUBLE_EQ(r.summary.rank_bw_max_Bps, 100 * mib);
  EXPECT_DOUBLE_EQ(r.summary.rank_bw_mean_Bps, 75 * mib);
  EXPECT_DOUBLE_EQ(r.summary.rank_bw_std_Bps, 25 * mib);
  EXPECT_DOUBLE_EQ(r.summary.iops, (200.0 * 256) / 2.0);
  EXPECT_DOUBLE_EQ(r.summary.first_done_s, 1.0);
  EXPECT_DOUBLE_EQ(r.summary.last_done_s, 2.0);
  ASSERT_EQ(r.ranks.size(), 2u);
  ASSERT_EQ(r.nodes.size(), 2u);
  EXPECT_DOUBLE_EQ(r.nodes[1].bandwidth_Bps, 50 * mib);
}

TEST(Reducer, FirstDoneFromTimeSeries) {
  // Rank 0 moves 10 units in 1 s; rank 1 moves 1 unit per 0.1 s bin for 2 s. When rank 0
  // finishes, rank 1 has moved 10 bins' worth.
  PointInput in;
  in.ranks = 2;
  in.bin_s = 0.1;
  in.samples = {sample(0, 0, 10, 1.0), sample(1, 0, 20, 2.0)};
  in.series_bytes = {std::vector<std::uint64_t>(10, 1), std::vector<std::uint64_t>(20, 1)};
  in.series_ops = in.series_bytes;
  const auto r = reduce_point(in);
  EXPECT_NEAR(r.summary.first_done_Bps, 20.0, 1e-9);  // (10 + 10) / 1 s
  EXPECT_NEAR(r.summary.last_done_Bps, 15.0, 1e-9);   // 30 / 2 s
  EXPECT_EQ(r.series.size(), 30u);
}

TEST(Reducer, SingleRankIozoneRateEqualsWallRate) {
  PointInput in;
  in.bin_s = 0.1;
  in.samples = {sample(0, 0, 1000, 0.35)};
  in.series_bytes = {{300, 300, 300, 100}};
  in.series_ops = in.series_bytes;
  const auto r = reduce_point(in);
  EXPECT_DOUBLE_EQ(r.summary.iozone_children_Bps, r.summary.bandwidth_Bps);
}

TEST(Reducer, BytesByInterpolatesWithinABin) {
  const std::vector<std::uint64_t> bins{100, 100, 50};
  EXPECT_DOUBLE_EQ(bytes_by(bins, 0.1, 0.25, 0.05), 50);
  EXPECT_DOUBLE_EQ(bytes_by(bins, 0.1, 0.25, 0.2), 200);
  EXPECT_DOUBLE_EQ(bytes_by(bins, 0.1, 0.25, 0.25), 250);  // the last bin ends at the rank's end
  EXPECT_DOUBLE_EQ(bytes_by(bins, 0.1, 0.25, 9.0), 250);
}

TEST(Reducer, LatencyPercentilesComeFromTheMergedHistogram) {
  PointInput in;
  in.samples = {sample(0, 0, 4096, 1.0)};
  for (int i = 1; i <= 100; ++i)
    in.latency.record(static_cast<std::uint64_t>(i) * 1000);
  const auto r = reduce_point(in);
  EXPECT_NEAR(r.summary.lat_p50_ns, 50000, 500);
  EXPECT_NEAR(r.summary.lat_p99_ns, 99000, 990);
  EXPECT_NEAR(r.summary.lat_mean_ns, 50500, 1);
}

// A metadata row: every rank's operations over the slowest rank's window (mdtest's and IO500's
// rate), the ranks' own rates, what the point was to make, and the storage's bytes per
// operation: the device's over all ops, the wire's per node over that node's own ops.
TEST(Reducer, MetadataRowsCountOperationsAndBytesPerOperation) {
  PointInput in;
  in.phase = kMdStat;
  in.ranks = 2;
  in.nodes = 2;
  in.metadata = in.lookup = true;
  in.cache_drop = 1;
  RankSample a = sample(0, 0, 0, 0.5), b = sample(1, 1, 0, 2.0);
  a.ops = 1000;
  b.ops = 3000;
  a.md_items = b.md_items = 3000;
  a.md_folders = b.md_folders = 4;
  a.md_branch = b.md_branch = 3;
  in.samples = {a, b};
  in.device_measured = true;
  DeviceRow d{};
  d.counted = 1;
  d.read_bytes = 400000;
  d.write_bytes = 999999;  // a lookup counts the device's reads only
  in.devices = {d};
  in.wire_measured = true;
  WireRow w0{}, w1{};
  w0.node = 0;
  w0.counted = w1.counted = 1;
  w0.rx_bytes = 300000;
  w0.tx_bytes = 260000;  // 560 bytes per op over node 0's 1000 ops
  w1.node = 1;
  w1.rx_bytes = w1.tx_bytes = 6000;  // 4 bytes per op over node 1's 3000: its cache answered
  in.wire = {w0, w1};
  const SummaryRow s = reduce_point(in).summary;
  EXPECT_EQ(s.ops, 4000u);
  EXPECT_DOUBLE_EQ(s.iops, 2000.0);  // 4000 ops / the slowest window, 2 s
  EXPECT_DOUBLE_EQ(s.rank_iops_min, 1500.0);
  EXPECT_DOUBLE_EQ(s.rank_iops_max, 2000.0);
  EXPECT_DOUBLE_EQ(s.rank_iops_mean, 1750.0);
  EXPECT_EQ(s.md_items, 6000u);
  EXPECT_EQ(s.md_folders, 8u);
  EXPECT_EQ(s.md_branch, 3u);
  EXPECT_EQ(s.md_cache_drop, 1);
  EXPECT_DOUBLE_EQ(s.md_device_bytes_per_op, 100.0);
  EXPECT_DOUBLE_EQ(s.md_wire_bytes_per_op, 4.0);
  EXPECT_TRUE(std::isnan(s.device_fraction));  // no byte fractions for a metadata row
  EXPECT_TRUE(std::isnan(s.wire_fraction));
  const auto nodes = reduce_point(in).nodes;
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[1].ops, 3000u);
  EXPECT_DOUBLE_EQ(nodes[1].iops, 1500.0);
}

// The notes of a metadata row are never blank and say what the counters mean.
TEST(Notes, MetadataRowsSayWhereTheAnswersCameFrom) {
  SummaryRow s{};
  s.phase = kMdStat;
  s.md_device_bytes_per_op = s.md_wire_bytes_per_op = std::nan("");
  EXPECT_EQ(provenance_notes(s), "kept; unverified");  // tmpfs: nothing counted
  s.md_cache_drop = 1;
  s.md_device_bytes_per_op = 4096;
  EXPECT_EQ(provenance_notes(s), "dropped; device 4096 B/op");
  s.md_cache_drop = 0;
  s.md_device_bytes_per_op = 3;
  EXPECT_EQ(provenance_notes(s), "kept; device 3 B/op (cached)");
  s.md_device_bytes_per_op = 600;  // kept, yet the device read: how many answers, unknown
  EXPECT_EQ(provenance_notes(s), "kept; device 600 B/op; unverified");
  s.md_cache_drop = 2;
  s.md_device_bytes_per_op = std::nan("");
  s.md_wire_bytes_per_op = 560;
  EXPECT_EQ(provenance_notes(s), "not dropped; wire 560 B/op");
  s.md_wire_bytes_per_op = 4;
  EXPECT_EQ(provenance_notes(s), "not dropped; wire 4 B/op (cached)");
  SummaryRow c{};
  c.phase = kMdCreate;
  c.md_wire_bytes_per_op = std::nan("");
  c.md_device_bytes_per_op = 0;  // the journal had not reached the device
  EXPECT_EQ(provenance_notes(c), "device 0 B/op (unflushed)");
}
