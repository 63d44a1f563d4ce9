// How close a row came to the CPU and to the hardware (sweep/headroom.hpp, output/notes.hpp):
// CPU per operation and busy fractions reduced from the ranks' samples, the CPU-bound note and
// its threshold, each drive's bytes against its PCIe link, percent of rated bandwidth and IOPS,
// and the notes that say them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "model/phase_desc.hpp"
#include "output/notes.hpp"
#include "sweep/headroom.hpp"
#include "sweep/reducer.hpp"

using namespace iosweep;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

RankSample rank(int r, std::uint64_t ops, double elapsed_s, double user_s, double sys_s,
                double queued_s) {
  RankSample s;
  s.rank = s.position = s.file = r;
  s.node = s.folder = 0;
  s.ops = ops;
  s.bytes = ops * 4096;
  s.elapsed_s = elapsed_s;
  s.cpu_user_s = user_s;
  s.cpu_sys_s = sys_s;
  s.cpu_s = user_s + sys_s;
  s.cpu_queued_s = queued_s;
  return s;
}

// One counted drive holding folder 0 of node 0, with its link.
DeviceRow drive(const char* name, std::uint64_t read_bytes, double link_Bps, const char* link) {
  DeviceRow d{};
  std::strncpy(d.device, name, sizeof d.device - 1);
  std::strncpy(d.link, link, sizeof d.link - 1);
  d.counted = 1;
  d.read_bytes = read_bytes;
  d.link_Bps = link_Bps;
  return d;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

// CPU per operation is every rank's CPU over every rank's operations; busy is per rank (its CPU
// over its own window), then its mean and max; queued is unknown when one rank's is.
TEST(Headroom, CpuIsReducedPerOperationAndPerRankWindow) {
  PointInput in;
  in.phase = kRandRead;
  in.samples = {rank(0, 1000, 1.0, 0.2, 0.6, 0.1), rank(1, 1000, 2.0, 0.1, 0.1, 0.4)};
  PointResult r = reduce_point(in);
  EXPECT_DOUBLE_EQ(r.summary.cpu_user_ns_per_op, 0.3e9 / 2000);
  EXPECT_DOUBLE_EQ(r.summary.cpu_sys_ns_per_op, 0.7e9 / 2000);
  EXPECT_DOUBLE_EQ(r.summary.busy_fraction_mean, (0.8 + 0.1) / 2);
  EXPECT_DOUBLE_EQ(r.summary.busy_fraction_max, 0.8);
  EXPECT_DOUBLE_EQ(r.summary.queued_fraction_mean, (0.1 + 0.2) / 2);
  ASSERT_EQ(r.ranks.size(), 2u);
  EXPECT_DOUBLE_EQ(r.ranks[0].busy_fraction, 0.8);
  EXPECT_DOUBLE_EQ(r.ranks[1].cpu_user_s, 0.1);
  EXPECT_DOUBLE_EQ(r.ranks[1].cpu_queued_s, 0.4);
  in.samples[1].cpu_queued_s = kNaN;  // a kernel without schedstat
  r = reduce_point(in);
  EXPECT_TRUE(std::isnan(r.summary.queued_fraction_mean));
  EXPECT_TRUE(std::isnan(r.ranks[1].cpu_queued_s));
  in.samples = {rank(0, 0, 0.5, 0.1, 0.1, 0)};  // nothing completed: no figure per operation
  r = reduce_point(in);
  EXPECT_TRUE(std::isnan(r.summary.cpu_user_ns_per_op) && std::isnan(r.summary.cpu_sys_ns_per_op));
  EXPECT_DOUBLE_EQ(r.summary.busy_fraction_mean, 0.4);
}

// CPU-bound from 90% of the window on a CPU or queued for one, and not below; the note says
// the threshold and how the time split.
TEST(Headroom, CpuBoundFromNinetyPercentOnOrQueuedForACpu) {
  PointInput in;
  in.phase = kRandRead;
  in.samples = {rank(0, 1000, 1.0, 0.25, 0.62, 0.05)};
  PointResult r = reduce_point(in);
  EXPECT_EQ(headroom_notes(r), "CPU-bound: usr 25%, sys 62%, queued 5% of the window (>= 90%)");
  EXPECT_TRUE(contains(row_notes(r), "CPU-bound: usr 25%"));
  in.samples[0].cpu_queued_s = 0.02;  // 89%: the storage had more than a tenth of the window
  EXPECT_EQ(headroom_notes(reduce_point(in)), "");
  in.samples[0].cpu_queued_s = kNaN;  // no schedstat: busy alone decides
  in.samples[0].cpu_sys_s = 0.65;
  EXPECT_TRUE(contains(headroom_notes(reduce_point(in)), "usr 25%, sys 65%, queued 0% of the"));
  // Two ranks oversubscribing one core: each ran half its window and waited the other half.
  in.samples = {rank(0, 500, 1.0, 0.45, 0.05, 0.5), rank(1, 500, 1.0, 0.45, 0.05, 0.5)};
  EXPECT_TRUE(contains(headroom_notes(reduce_point(in)), "CPU-bound"));
  // A rank waiting on its disk: asleep most of the window, whatever its operations cost.
  in.samples = {rank(0, 17000, 1.0, 0.02, 0.40, 0.03)};
  EXPECT_EQ(headroom_notes(reduce_point(in)), "");
}

// A rank that spent no system time says "sys 0%", never "-0%": each share is taken from its own
// time, not the system share as what is left of busy after user (which rounds below zero).
TEST(Headroom, NoSystemTimeIsZeroPercentNeverNegative) {
  PointInput in;
  in.phase = kMdStat;
  for (int i = 1; i < 200; ++i) {
    const double elapsed_s = 1.4e-3;
    in.samples = {rank(0, 1000, elapsed_s, elapsed_s * (0.9 + i / 2000.0), 0.0, 0.0)};
    const std::string note = headroom_notes(reduce_point(in));
    EXPECT_TRUE(contains(note, ", sys 0%, ")) << note;
  }
}

// A window under 1 ms tells no CPU share: the clock's microseconds and its own reading outweigh
// it (IO500's timestamp: the rank that makes nothing, 3 us of CPU in 0.16 us). Such a rank is
// left out of the means, and a row of only such ranks says nothing about the CPU.
TEST(Headroom, NoCpuShareOfAWindowUnderAMillisecond) {
  PointInput in;
  in.phase = kTimestamp;
  in.samples = {rank(0, 1, 6.1e-5, 0.0, 6.4e-5, 0.0), rank(1, 0, 1.6e-7, 0.0, 3e-6, 0.0)};
  PointResult r = reduce_point(in);
  EXPECT_TRUE(std::isnan(r.summary.busy_fraction_mean));
  EXPECT_TRUE(std::isnan(r.summary.queued_fraction_mean));
  EXPECT_TRUE(std::isnan(r.ranks[1].busy_fraction));
  EXPECT_EQ(headroom_notes(r), "");
  in.phase = kRandRead;  // one long rank: its share alone, the short one left out
  in.samples = {rank(0, 1000, 1.0, 0.25, 0.70, 0.0), rank(1, 1, 1.6e-7, 0.0, 3e-6, 0.0)};
  r = reduce_point(in);
  EXPECT_DOUBLE_EQ(r.summary.busy_fraction_mean, 0.95);
  EXPECT_DOUBLE_EQ(r.summary.queued_fraction_mean, 0.0);
  EXPECT_TRUE(contains(headroom_notes(r), "CPU-bound"));
}

// A counted drive's device bytes in the phase's direction over the drive's slowest window,
// against its link; NaN and the words for a drive whose link is unknown.
TEST(Headroom, DriveBytesAgainstTheirLinks) {
  PointInput in;
  in.phase = kSeqRead;
  in.device_measured = true;
  in.samples = {rank(0, 1000, 2.0, 0.1, 0.1, 0), rank(1, 1000, 1.0, 0.1, 0.1, 0)};
  in.samples[1].folder = 1;
  in.devices = {drive("nvme0n1", 7'877'000'000, 7.877e9 / 2, "PCIe 4.0 x4 (16.0 GT/s PCIe)"),
                drive("nvme1n1", 3'938'500'000, 7.877e9, "PCIe 4.0 x4 (16.0 GT/s PCIe)")};
  in.devices[1].drive = 1;
  in.device_folders = {1u, 2u};
  PointResult r = reduce_point(in);
  ASSERT_EQ(r.devices.size(), 2u);
  // nvme0n1: its rank's window 2 s, 3.94 GB/s over a 3.94 GB/s link; nvme1n1: 1 s, 3.94 of 7.88.
  EXPECT_NEAR(r.devices[0].link_fraction, 1.0, 1e-12);
  EXPECT_NEAR(r.devices[1].link_fraction, 0.5, 1e-12);
  EXPECT_NEAR(r.summary.link_fraction_min, 0.5, 1e-12);
  EXPECT_NEAR(r.summary.link_fraction_max, 1.0, 1e-12);
  EXPECT_TRUE(contains(headroom_notes(r), "link 50-100% of 2 drives"));
  in.devices.pop_back();
  in.device_folders.pop_back();
  in.samples.pop_back();
  EXPECT_TRUE(contains(headroom_notes(reduce_point(in)), "link 100% of PCIe 4.0 x4"));
  in.devices[0] =
      drive("loop3", 1 << 20, kNaN, "loop3 is a loop device: its file's storage sets the limit");
  r = reduce_point(in);
  EXPECT_TRUE(std::isnan(r.devices[0].link_fraction) && std::isnan(r.summary.link_fraction_max));
  EXPECT_EQ(headroom_notes(r),
            "link unknown: loop3 is a loop device: its file's storage sets the limit");
  in.phase = kMdStat;  // a metadata row: no link figure
  in.metadata = true;
  EXPECT_EQ(headroom_notes(reduce_point(in)), "");
}

// Percent of rated per drive (per rank's device without drives): a random phase against the
// second --rated-bw when given; IOPS against --rated-iops; nothing for a metadata phase.
TEST(Headroom, PercentOfRatedOnEveryDataRow) {
  PointInput in;
  in.phase = kSeqRead;
  in.ranks = 2;
  in.samples = {rank(0, 1000, 1.0, 0.0, 0.0, 0), rank(1, 1000, 1.0, 0.0, 0.0, 0)};
  in.rated_bw_Bps = 8192e3;  // 2 x 4096000 bytes/s over 2 ranks' devices: 50%
  in.rated_bw2_Bps = 4096e3;
  in.rated_iops = 4000;
  PointResult r = reduce_point(in);
  EXPECT_DOUBLE_EQ(r.summary.rated_bw_fraction, 0.5);
  EXPECT_DOUBLE_EQ(r.summary.rated_iops_fraction, 0.25);
  EXPECT_TRUE(
      contains(headroom_notes(r), "50% of rated bandwidth, 25% of rated IOPS per rank's device"));
  in.phase = kRandRead;
  EXPECT_DOUBLE_EQ(reduce_point(in).summary.rated_bw_fraction, 1.0);
  in.rated_bw_Bps = in.rated_bw2_Bps = in.rated_iops = 0;
  r = reduce_point(in);
  EXPECT_TRUE(std::isnan(r.summary.rated_bw_fraction) && std::isnan(r.summary.rated_iops_fraction));
  EXPECT_FALSE(contains(headroom_notes(r), "rated"));
  in.rated_iops = 4000;
  in.phase = kMdStat;
  in.metadata = true;
  EXPECT_TRUE(std::isnan(reduce_point(in).summary.rated_iops_fraction));
}
