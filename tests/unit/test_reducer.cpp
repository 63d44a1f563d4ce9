// Reduction arithmetic from per-rank samples to the summary row.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

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

namespace {

bool has_note(const PointResult& r, const std::string& part) {
  for (const auto& n : r.notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

// A row says when its window is too short for its figure: under 100 ms, or one operation taking
// more than a tenth of it; a longer window of small operations says nothing.
TEST(Reducer, AShortWindowIsNoted) {
  PointInput in;
  in.samples = {sample(0, 0, 64 << 20, 0.040)};
  in.samples[0].latency_max_ns = 1'000'000;
  EXPECT_TRUE(has_note(reduce_point(in), "short window: 40.0 ms (< 100 ms)"));
  in.samples[0].elapsed_s = 0.5;
  EXPECT_TRUE(reduce_point(in).notes.empty());
  in.samples[0].latency_max_ns = 100'000'000;  // one request took 20% of the window
  EXPECT_TRUE(has_note(reduce_point(in), "short window: one operation took 20% of it"));
}

// Nothing completed: no latency was measured (NaN, never 0 ns), and the row says so; a phase
// that does not make its files says when they held less than whole files.
TEST(Reducer, ARowThatMovedNothingSaysSoAndHasNoLatency) {
  PointInput in;
  in.full_bytes = 2 << 20;
  in.samples = {sample(0, 0, 0, 0.001)};
  const auto r = reduce_point(in);
  EXPECT_TRUE(std::isnan(r.summary.lat_p50_ns) && std::isnan(r.summary.lat_max_ns));
  EXPECT_TRUE(std::isnan(r.summary.lat_mean_ns) && std::isnan(r.summary.lat_p9999_ns));
  EXPECT_TRUE(has_note(r, "no operation completed"));
  EXPECT_TRUE(has_note(r, "the files held no data"));
  in.samples = {sample(0, 0, 1 << 20, 1.0)};
  in.samples[0].data_bytes = 1 << 20;
  EXPECT_TRUE(has_note(reduce_point(in), "the files held 1048576 of 2097152 bytes"));
  in.creates = true;  // seq-write makes its files: their data is what it writes
  EXPECT_FALSE(has_note(reduce_point(in), "the files held"));
}

// Streams are what ran: ranks x the depth the phase kept, not the point's.
TEST(Reducer, StreamsAreWhatRan) {
  PointInput in;
  in.ranks = 2;
  in.point_depth = 32;
  in.iodepth = 16;
  in.samples = {sample(0, 0, 16 << 20, 1.0), sample(1, 0, 16 << 20, 1.0)};
  const auto r = reduce_point(in);
  EXPECT_EQ(r.summary.streams, 32u);
  EXPECT_EQ(r.summary.iodepth, 16u);
}

// Collective MPI-IO reads: the aggregators read for every rank on their own nodes. What no node
// had to bring into its page cache came from one; the ranks' own residency is NaN.
TEST(Reducer, ACollectiveReadIsJudgedOnTheAggregatorsNodes) {
  PointInput in;
  in.ranks = 21;
  in.nodes = 2;
  in.collective = true;
  in.shared_file_bytes = 21.0 * (1 << 20);
  for (int r = 0; r < 21; ++r)
    in.samples.push_back(sample(r, r == 0 ? 0 : 1, 1 << 20, 1.0));
  in.samples[0].cached_fraction = 1.0;  // a rank's own view: its node holds the file
  for (int r = 1; r < 21; ++r)
    in.samples[static_cast<std::size_t>(r)].cached_fraction = 0.0;
  // node 0 (the aggregator's) held the whole file and read it from its cache; node 1 nothing.
  in.node_cached = {{0, {in.shared_file_bytes, in.shared_file_bytes}}, {1, {0.0, 0.0}}};
  auto r = reduce_point(in);
  EXPECT_DOUBLE_EQ(r.summary.cached_fraction_mean, 1.0);  // not 1/21
  EXPECT_DOUBLE_EQ(r.summary.cached_fraction_max, 1.0);
  EXPECT_TRUE(std::isnan(r.ranks[0].cached_fraction));
  EXPECT_EQ(r.nodes.size(), 2u);
  EXPECT_DOUBLE_EQ(r.nodes[0].cached_before_bytes, in.shared_file_bytes);
  // After a drop: the aggregator's node brought every byte in.
  in.node_cached = {{0, {0.0, in.shared_file_bytes}}, {1, {0.0, 0.0}}};
  r = reduce_point(in);
  EXPECT_DOUBLE_EQ(r.summary.cached_fraction_mean, 0.0);
  // O_DIRECT fills no cache to tell by: unknown, and said so.
  in.direct = true;
  r = reduce_point(in);
  EXPECT_TRUE(std::isnan(r.summary.cached_fraction_mean));
  EXPECT_TRUE(has_note(r, "cached unknown"));
}

// On several nodes MPI's traffic may cross the storage interfaces: the wire says nothing then.
TEST(Reducer, CollectiveWireOnSeveralNodesIsUnverified) {
  PointInput in;
  in.ranks = 2;
  in.nodes = 2;
  in.collective = true;
  in.wire_measured = true;
  in.samples = {sample(0, 0, 1 << 20, 1.0), sample(1, 1, 1 << 20, 1.0)};
  WireRow w{};
  w.counted = 1;
  w.rx_bytes = 3 << 20;
  in.wire = {w};
  auto r = reduce_point(in);
  EXPECT_TRUE(std::isnan(r.summary.wire_fraction));
  EXPECT_TRUE(has_note(r, "wire unverified: collective MPI-IO"));
  in.nodes = 1;  // one node: MPI stays in shared memory, the wire counts storage only
  r = reduce_point(in);
  EXPECT_DOUBLE_EQ(r.summary.wire_fraction, 1.5);
}

// A counter that could not be measured makes the point's sum NaN with its reason, never 0.
TEST(Reducer, AnUnmeasuredCounterIsNaNWithItsReason) {
  PointInput in;
  in.wire_measured = in.device_measured = true;
  in.samples = {sample(0, 0, 1 << 20, 1.0)};
  WireRow w{};
  w.node = 3;
  std::snprintf(w.note, sizeof w.note, "interface eth9 was gone after the phase");
  DeviceRow d{};
  d.counted = 1;
  d.read_bytes = 1 << 20;
  in.wire = {w};
  in.devices = {d};
  const auto r = reduce_point(in);
  EXPECT_TRUE(std::isnan(r.summary.wire_rx_bytes) && std::isnan(r.summary.wire_fraction));
  EXPECT_TRUE(has_note(r, "wire not measured: node 3: interface eth9 was gone"));
  EXPECT_DOUBLE_EQ(r.summary.device_read_bytes, 1 << 20);
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
  // No client measured here: a server's share is the floor, 128 bytes.
  EXPECT_DOUBLE_EQ(s.md_server_bytes_per_op, kMdWireMinBytesPerOp);
  EXPECT_DOUBLE_EQ(s.md_cached_fraction, 1.0 - 4.0 / kMdWireMinBytesPerOp);
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

// A metadata row is judged against what one operation needs when it reaches a server: the
// client's measured cost (GlusterFS's, from the bed), else the floor, plus the item's bytes.
TEST(Reducer, AMetadataRowAnsweredInPartByACacheSaysHowMuch) {
  PointInput in;
  in.ranks = 1;
  in.nodes = 1;
  in.metadata = in.lookup = true;
  RankSample a = sample(0, 0, 0, 1.0);
  a.ops = 1000;
  in.samples = {a};
  in.wire_measured = true;
  WireRow w{};
  w.counted = 1;
  w.rx_bytes = 200000;
  w.tx_bytes = 79000;  // 279 bytes per stat
  in.wire = {w};
  in.phase = kMdStat;
  in.md_fs_type = "fuse.glusterfs";
  SummaryRow s = reduce_point(in).summary;
  EXPECT_DOUBLE_EQ(s.md_server_bytes_per_op, md_server_bytes("fuse.glusterfs", kMdStat));
  EXPECT_GT(s.md_server_bytes_per_op, kMdWireMinBytesPerOp);
  EXPECT_NEAR(s.md_cached_fraction, 1 - 279 / s.md_server_bytes_per_op, 1e-12);
  char want[96];
  std::snprintf(want, sizeof want, "kept; wire 279 B/op (partly cached %.0f%% of %.0f B/op)",
                std::round(100 * s.md_cached_fraction), s.md_server_bytes_per_op);
  EXPECT_EQ(provenance_notes(s), want);
  // Before, anything from 128 bytes on was presented as served by the server.
  EXPECT_GE(279, kMdWireMinBytesPerOp);
  // An md-read of 4 KiB items on an unmeasured client that moved 2000 bytes a read: at least
  // half of its reads never reached a server, whose reply alone carries the 4096 bytes.
  in.phase = kMdRead;
  in.md_fs_type = "fuse.ceph-fuse";
  in.md_item_bytes = 4096;
  w.rx_bytes = 1800000;
  w.tx_bytes = 200000;
  in.wire = {w};
  s = reduce_point(in).summary;
  EXPECT_DOUBLE_EQ(s.md_server_bytes_per_op, kMdWireMinBytesPerOp + 4096);
  EXPECT_EQ(provenance_notes(s), "kept; wire 2000 B/op (partly cached 53% of 4224 B/op)");
  // A change the client held back says unflushed; one every operation of which reached a
  // server says nothing more.
  in.phase = kMdRemove;
  in.lookup = false;
  in.md_fs_type = "fuse.glusterfs";
  in.md_item_bytes = 0;
  w.rx_bytes = 10000;
  w.tx_bytes = 0;  // 10 bytes a remove
  in.wire = {w};
  EXPECT_EQ(provenance_notes(reduce_point(in).summary), "wire 10 B/op (unflushed)");
  w.rx_bytes = 2'000'000;
  in.wire = {w};
  EXPECT_EQ(provenance_notes(reduce_point(in).summary), "wire 2000 B/op");
}

// The stall watch's longest outstanding operation of each rank: the row's is the largest, and
// its note names the rank and how many stalled.
TEST(Reducer, AStallIsTheLongestOperationAndTheRowSaysWhose) {
  PointInput in;
  in.ranks = 3;
  RankSample a = sample(0, 0, 1 << 20, 1.0), b = sample(1, 0, 1 << 20, 70.0),
             c = sample(2, 1, 1 << 20, 20.0);
  b.stall_s = 61.25;
  c.stall_s = 12.0;
  in.samples = {a, b, c};
  const PointResult r = reduce_point(in);
  EXPECT_DOUBLE_EQ(r.summary.stall_s, 61.25);
  ASSERT_EQ(r.ranks.size(), 3u);
  EXPECT_DOUBLE_EQ(r.ranks[0].stall_s, 0.0);
  EXPECT_DOUBLE_EQ(r.ranks[1].stall_s, 61.25);
  EXPECT_NE(row_notes(r).find("stalled 61.2 s: one operation of rank 1 (2 ranks stalled)"),
            std::string::npos)
      << row_notes(r);
  in.samples = {a};
  EXPECT_EQ(row_notes(reduce_point(in)).find("stalled"), std::string::npos);
}
