// Several target folders (--dir a,b,...): the option's forms and refusals, the folder of every
// rank and the activation order over nodes and drives, the drive view of a point (claims per
// device, a drive shared by emulated nodes counted once, slowest and fastest, the fraction its
// own counters saw), the notes that name a lagging drive (kept on its device row), the final
// math's figures and drive lines, and every position's file in its folder.
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "app/option_table.hpp"
#include "core/errors.hpp"
#include "model/engine_desc.hpp"
#include "model/final_math.hpp"
#include "model/topology.hpp"
#include "output/notes.hpp"
#include "phases/file_set.hpp"
#include "sweep/reducer.hpp"

using namespace iosweep;

namespace {

CliResult parse(const std::vector<std::string>& args) {
  std::vector<std::string> s{"iosweep"};
  s.insert(s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : s)
    argv.push_back(a.data());
  return parse_cli(static_cast<int>(argv.size()), argv.data(), load_run_here);
}

RankSample sample(int rank, int node, int folder, std::uint64_t bytes, double elapsed) {
  RankSample s;
  s.rank = s.position = s.file = rank;
  s.node = node;
  s.folder = folder;
  s.bytes = bytes;
  s.ops = 1;
  s.elapsed_s = elapsed;
  return s;
}

DeviceRow device(int node, const char* name, int drive, bool counted, std::uint64_t read_bytes) {
  DeviceRow d{};
  d.node = node;
  std::strncpy(d.device, name, sizeof d.device - 1);
  d.drive = drive;
  d.counted = counted ? 1 : 0;
  d.read_bytes = read_bytes;
  return d;
}

}  // namespace

TEST(Drives, DirTakesAListFromTheCommandLineAndFromTomlAsAnArrayOrAString) {
  // --dir given twice takes its last list (kGivenTwice), as any option given twice.
  const CliResult r =
      parse({"run", "--dir", "/elsewhere", "--dir", "/nvme0/b/,/nvme1/b c,/nvme2/b"});
  ASSERT_EQ(r.action, CliResult::Action::run) << r.text;
  EXPECT_EQ(r.cfg.work.dirs, (std::vector<std::string>{"/nvme0/b", "/nvme1/b c", "/nvme2/b"}));
  EXPECT_NE(r.cfg.config_toml.find("dir=[\"/nvme0/b/,/nvme1/b c,/nvme2/b\"]"), std::string::npos)
      << r.cfg.config_toml;
  const RunAttributes recorded = record_options(r.cfg);
  const auto dir = std::find_if(recorded.all().begin(), recorded.all().end(),
                                [](const RunAttribute& a) { return a.name == "dir"; });
  ASSERT_NE(dir, recorded.all().end());
  EXPECT_EQ(std::get<std::string>(dir->value), "/nvme0/b,/nvme1/b c,/nvme2/b");
}

TEST(Drives, DirRefusesAFolderTwiceAnEmptyEntryAndAListForASharedFile) {
  for (const auto& [args, what] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"run", "--dir", "/a,/a/"}, "--dir: '/a' is listed twice"},
           {{"run", "--dir", "/a,,/b"}, "--dir: '/a,,/b' has an empty entry"},
           {{"run", "--dir", "/a,/b", "--file-layout", "shared"},
            "--dir: --file-layout shared makes one file in one folder; give one folder, not 2"}}) {
    const CliResult r = parse(args);
    EXPECT_EQ(r.action, CliResult::Action::usage_error);
    EXPECT_EQ(r.text.find(what), 0u) << r.text;
    EXPECT_EQ(r.text.find('\n'), std::string::npos);
  }
  std::string many;
  for (int i = 0; i <= 64; ++i)
    many += (i ? "," : "") + std::string("/d") + std::to_string(i);
  const CliResult r = parse({"run", "--dir", many});
  EXPECT_EQ(r.text, "--dir: 65 folders; at most 64");
}

TEST(Drives, RanksTakeTheirNodesFoldersRoundRobin) {
  // mpirun --map-by node over 3 nodes: rank r on node r mod 3, index r / 3 there.
  std::vector<std::string> names;
  for (int r = 0; r < 24; ++r)
    names.push_back("n" + std::to_string(r % 3));
  const Topology t = compute_topology(names, Placement::spread, 8);
  for (const auto& p : t.ranks)
    EXPECT_EQ(p.folder, (p.rank / 3) % 8) << p.rank;
  EXPECT_EQ(t.folder_at(0), 0);
  EXPECT_EQ(t.folder_at(3), 1);
}

// The first k positions load nodes and drives as evenly as k allows, for every k: the nodes'
// active ranks differ by at most one, and so do the active ranks of a node's folders.
TEST(Drives, TheSpreadOrderFillsNodesFirstAndDrivesSecond) {
  for (const int per_node : {1, 3, 8, 12})
    for (const int folders : {1, 2, 4, 8}) {
      std::vector<std::string> names;
      for (int r = 0; r < 3 * per_node; ++r)  // by-slot mapping: a node's ranks together
        names.push_back("n" + std::to_string(r / per_node));
      const Topology t = compute_topology(names, Placement::spread, folders);
      for (int k = 1; k <= static_cast<int>(names.size()); ++k) {
        std::map<int, int> on_node;
        std::map<std::pair<int, int>, int> on_drive;
        for (int p = 0; p < k; ++p) {
          ++on_node[t.node_at(p)];
          ++on_drive[{t.node_at(p), t.folder_at(p)}];
        }
        int lo = k, hi = 0;
        for (int n = 0; n < 3; ++n) {
          lo = std::min(lo, on_node[n]);
          hi = std::max(hi, on_node[n]);
          int dlo = k, dhi = 0;
          for (int f = 0; f < folders; ++f) {
            dlo = std::min(dlo, on_drive[{n, f}]);
            dhi = std::max(dhi, on_drive[{n, f}]);
          }
          EXPECT_LE(dhi - dlo, 1) << per_node << " ranks, " << folders << " folders, k " << k;
        }
        EXPECT_LE(hi - lo, 1) << per_node << " ranks per node, k " << k;
      }
    }
}

TEST(Drives, APointsBytesAreClaimedForTheDeviceOfEachRanksFolder) {
  // Node 0 has folders 0 and 1 on sda, folder 2 on sdb; node 1 (another machine) has its own
  // sda. A read phase: each device row gets the ranks of its node whose folder is on it.
  PointInput in;
  in.ranks = 4;
  in.device_measured = true;
  in.samples = {sample(0, 0, 0, 100, 1.0), sample(1, 0, 1, 100, 2.0), sample(2, 0, 2, 100, 1.0),
                sample(3, 1, 0, 100, 4.0)};
  in.devices = {device(0, "sda", 0, true, 200), device(0, "sdb", 1, true, 50),
                device(1, "sda", 2, true, 100)};
  in.device_folders = {0b011, 0b100, 0b111};
  const PointResult r = reduce_point(in);
  ASSERT_EQ(r.devices.size(), 3u);
  EXPECT_EQ(r.devices[0].ranks, 2u);
  EXPECT_EQ(r.devices[0].claimed_bytes, 200u);
  EXPECT_DOUBLE_EQ(r.devices[0].seconds, 2.0);
  EXPECT_DOUBLE_EQ(r.devices[0].drive_Bps, 100.0);
  EXPECT_DOUBLE_EQ(r.devices[0].drive_fraction, 1.0);
  EXPECT_DOUBLE_EQ(r.devices[1].drive_fraction, 0.5);
  EXPECT_EQ(r.summary.drives, 3u);
  EXPECT_DOUBLE_EQ(r.summary.drive_bw_min_Bps, 25.0);  // node 1's sda: 100 bytes in 4 s
  EXPECT_EQ(r.summary.drive_slowest, 2);
  EXPECT_DOUBLE_EQ(r.summary.drive_bw_max_Bps, 100.0);
  EXPECT_EQ(r.summary.drive_fastest, 0);  // node 0's sda and sdb tie: the first is kept
  EXPECT_DOUBLE_EQ(r.summary.drive_fraction_min, 0.5);
  EXPECT_EQ(r.ranks[2].folder, 2);
}

TEST(Drives, ADriveSharedByEmulatedNodesSumsTheirClaimsAgainstItsOneCount) {
  // Two emulated nodes on one kernel see the same loop device: node 1's row is not counted,
  // and the drive's claims are both nodes' ranks'.
  PointInput in;
  in.ranks = 2;
  in.device_measured = true;
  in.writes = true;
  in.samples = {sample(0, 0, 0, 100, 1.0), sample(1, 1, 0, 100, 2.0)};
  in.devices = {device(0, "loop3", 0, true, 0), device(1, "loop3", 0, false, 0)};
  in.devices[0].write_bytes = in.devices[1].write_bytes = 180;
  in.device_folders = {1, 1};
  const PointResult r = reduce_point(in);
  EXPECT_EQ(r.summary.drives, 1u);
  EXPECT_EQ(r.devices[0].claimed_bytes, 100u);
  EXPECT_EQ(r.devices[1].claimed_bytes, 100u);
  EXPECT_DOUBLE_EQ(r.devices[0].drive_Bps, 100.0);  // 200 bytes over the slower 2 s
  EXPECT_DOUBLE_EQ(r.devices[0].drive_fraction, 0.9);
  EXPECT_TRUE(std::isnan(r.devices[1].drive_fraction));
  EXPECT_DOUBLE_EQ(r.summary.device_write_bytes, 180.0);
}

TEST(Drives, WithoutDeviceCountersThereIsNoDriveView) {
  PointInput in;
  in.samples = {sample(0, 0, 0, 100, 1.0)};
  const PointResult r = reduce_point(in);
  EXPECT_EQ(r.summary.drives, 0u);
  EXPECT_TRUE(std::isnan(r.summary.drive_bw_min_Bps));
  EXPECT_TRUE(std::isnan(r.summary.drive_fraction_min));
  EXPECT_EQ(r.summary.drive_slowest, -1);
}

TEST(Drives, TheNotesNameADriveThatSawLessThanItsRanksClaimedWhileTheOthersDidNot) {
  PointInput in;
  in.ranks = 3;
  in.device_measured = true;
  in.samples = {sample(0, 0, 0, 100, 1.0), sample(1, 0, 1, 100, 1.0), sample(2, 0, 2, 100, 1.0)};
  // Together the devices read all the bytes (the others read ahead), one of them 40% of its own.
  in.devices = {device(0, "nvme0n1", 0, true, 130), device(0, "nvme1n1", 1, true, 40),
                device(0, "nvme2n1", 2, true, 130)};
  in.device_folders = {1, 2, 4};
  PointResult r = reduce_point(in);
  EXPECT_EQ(provenance_notes(r), "drive nvme1n1 (node 0) 40%");
  EXPECT_EQ(provenance_notes(r.summary), "");
  // The results file keeps the verdict: the lagging drive's counted row carries its note.
  store_notes(r);
  EXPECT_STREQ(r.devices[1].lag_note, "drive nvme1n1 (node 0) 40%");
  EXPECT_STREQ(r.devices[0].lag_note, "");
  EXPECT_STREQ(r.devices[2].lag_note, "");
  // Every drive short: the device note says it, no drive is singled out.
  r.devices[0].drive_fraction = r.devices[2].drive_fraction = 0.1;
  r.summary.device_fraction = 0.2;
  EXPECT_EQ(provenance_notes(r), "device 20%");
  store_notes(r);
  for (const DeviceRow& d : r.devices)
    EXPECT_STREQ(d.lag_note, "") << d.device;
}

namespace {

// filter-count over three drives of two nodes (node 0: folders 0 and 1 on sda, folder 2 on
// sdb; node 1: its own sda), read at 1 GB/s per second of the slowest rank.
PointResult filter_point() {
  PointInput in;
  in.phase = kFilterCount;
  in.ranks = 4;
  in.nodes = 2;
  in.repetition = 1;
  in.device_measured = true;
  in.samples = {sample(0, 0, 0, 100, 1.0), sample(1, 0, 1, 100, 2.0), sample(2, 0, 2, 100, 1.0),
                sample(3, 1, 0, 100, 2.0)};
  for (auto& x : in.samples)
    x.rows = x.expected_matches = x.matches = 5;
  in.total_matches = 20;
  in.devices = {device(0, "sda", 0, true, 200), device(0, "sdb", 1, true, 50),
                device(1, "sda", 2, true, 100)};
  in.device_folders = {0b011, 0b100, 0b111};
  PointResult r = reduce_point(in);
  const char* folders[] = {"/a,/b", "/c", "/a,/b,/c"};
  for (std::size_t i = 0; i < r.devices.size(); ++i)
    std::strncpy(r.devices[i].folders, folders[i], sizeof r.devices[i].folders - 1);
  r.summary.point = 7;
  return r;
}

}  // namespace

TEST(FinalMath, ItsFiguresAreTheLargestPointsOnce) {
  const PointResult p = filter_point();
  PointResult ship = p;
  ship.summary.point = 8;
  ship.summary.bandwidth_Bps = p.summary.bandwidth_Bps / 4;
  ship.summary.mpi_bytes = 400;
  ship.summary.mpi_remote_bytes = 100;
  FinalMathInputs in;
  in.rated_bw_Bps = 100;
  in.rated_bw2_Bps = 50;
  const FinalMath fm = make_final_math(p, &ship, in);
  const FinalMathRow& r = fm.row;
  EXPECT_EQ(r.step, 0u);
  EXPECT_EQ(r.point, 7u);
  EXPECT_EQ(r.ranks, 4u);
  EXPECT_EQ(r.bytes, 400u);
  EXPECT_DOUBLE_EQ(r.bandwidth_Bps, 200.0);  // 400 bytes over the slowest 2 s
  EXPECT_DOUBLE_EQ(r.per_rank_Bps, 50.0);
  EXPECT_EQ(r.drives, 3u);
  EXPECT_DOUBLE_EQ(r.per_drive_Bps, 200.0 / 3);
  EXPECT_STREQ(r.drive_note, "");
  EXPECT_STREQ(r.count_check, "exact");
  EXPECT_STREQ(r.rated_per, "per drive");
  EXPECT_DOUBLE_EQ(r.rated_fraction, 200.0 / 3 / 100);
  EXPECT_DOUBLE_EQ(r.rated2_fraction, 200.0 / 3 / 50);
  EXPECT_EQ(r.ship_point, 8);
  EXPECT_DOUBLE_EQ(r.ship_remote_fraction, 0.25);
  EXPECT_DOUBLE_EQ(r.filter_vs_ship, 4.0);
  // Every drive used, by id: its counted row's reads over the point's window, its ranks' claims.
  ASSERT_EQ(fm.drives.size(), 3u);
  const FinalMathDriveRow& sda = fm.drives[0];
  EXPECT_EQ(sda.drive, 0);
  EXPECT_STREQ(sda.device, "sda");
  EXPECT_STREQ(sda.nodes, "0");
  EXPECT_STREQ(sda.folders, "/a,/b");
  EXPECT_EQ(sda.ranks, 2u);
  EXPECT_EQ(sda.claimed_bytes, 200u);
  EXPECT_EQ(sda.read_bytes, 200u);
  EXPECT_DOUBLE_EQ(sda.window_s, 2.0);
  EXPECT_DOUBLE_EQ(sda.device_Bps, 100.0);
  EXPECT_DOUBLE_EQ(sda.drive_Bps, 100.0);
  EXPECT_STREQ(fm.drives[2].nodes, "1");
  EXPECT_EQ(fm.nodes.size(), p.nodes.size());
}

TEST(FinalMath, SaysWhatIsNotKnownAndWhatWasNotChecked) {
  PointResult p = filter_point();
  p.summary.drives = 0;
  p.devices.clear();
  p.summary.matches = 19;
  PointResult ship = p;
  ship.summary.ranks = 2;  // another point: not the same scan
  FinalMathInputs in;
  in.rated_bw_Bps = 100;
  in.device_note = "no sysfs";
  const FinalMath fm = make_final_math(p, &ship, in);
  EXPECT_STREQ(fm.row.drive_note, "no device counters (no sysfs)");
  EXPECT_TRUE(std::isnan(fm.row.per_drive_Bps));
  EXPECT_STREQ(fm.row.rated_per, "per rank's device");
  EXPECT_DOUBLE_EQ(fm.row.rated_fraction, 0.5);
  EXPECT_TRUE(std::isnan(fm.row.rated2_fraction));
  EXPECT_STREQ(fm.row.count_check, "MISMATCH");
  EXPECT_EQ(fm.row.ship_point, -1);
  EXPECT_TRUE(fm.drives.empty());
  EXPECT_STREQ(make_final_math(p, nullptr, {}).row.drive_note, "no drive was counted");
  p.summary.rows = 0;
  EXPECT_STREQ(make_final_math(p, nullptr, {}).row.count_check, "nothing scanned");
  p.summary.engine = kNullEngine;
  EXPECT_STREQ(make_final_math(p, nullptr, {}).row.count_check, "not checked: no data moved");
}

TEST(Drives, EveryPositionsFileIsInItsFolderAndAFolderGoneStopsTheRun) {
  const std::string a = ::testing::TempDir() + "iosweep-drives-a", b = a + "-b";
  std::filesystem::create_directories(a);
  std::filesystem::create_directories(b);
  // Positions 0 and 2 in the first folder, 1 and 3 in the second.
  const FileSet files({a, b}, {0, 1, 0, 1}, "RUN", "RUN", 1);
  EXPECT_EQ(files.path(2), a + "/iosweep.RUN.2");
  EXPECT_EQ(files.path(3), b + "/iosweep.RUN.3");
  EXPECT_EQ(files.dir_of(1), b);
  EXPECT_NO_THROW(files.check_folder(1));
  std::filesystem::remove(b);
  try {
    files.check_folder(3);
    ADD_FAILURE() << "a folder gone is not noticed";
  } catch (const IoError& e) {
    EXPECT_EQ(e.err(), ENOENT);
    EXPECT_EQ(e.path(), b);
  }
  EXPECT_NO_THROW(files.check_folder(0));
  std::filesystem::remove(a);
}
