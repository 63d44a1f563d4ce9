// The IO500 pieces that need no launch: the io500 application's INI files as it reads them
// (defaults, kinds, refusals), the steps they become, and calc_score with its rules, checked
// against the application's own figures in the shared fixture's result_summary.txt.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "app/io500_ini.hpp"
#include "app/io500_steps.hpp"
#include "core/errors.hpp"
#include "model/io500_score.hpp"
#include "model/phase_desc.hpp"
#include "output/io500_writer.hpp"

using namespace iosweep;

namespace {

std::string refusal(const std::string& text) {
  try {
    (void)parse_io500_ini(text, "t.ini");
  } catch (const UsageError& e) {
    return e.what();
  }
  return {};
}

Io500Phase phase(const std::string& name, double score) {
  Io500Phase p;
  p.name = name;
  EXPECT_TRUE(io500_phase_kind(name, p.group, p.write, p.dummy)) << name;
  p.score = score;
  return p;
}

}  // namespace

TEST(Io500Ini, DefaultsAreTheApplications) {
  const Io500Ini ini = parse_io500_ini("", "t.ini");
  EXPECT_EQ(ini.datadir, "./datafiles");
  EXPECT_EQ(ini.stonewall_s, 300u);
  EXPECT_EQ(ini.easy_transfer_bytes, 2ull << 20);
  EXPECT_EQ(ini.easy_block_bytes, 9920000ull << 20);
  EXPECT_EQ(ini.hard_segments, 10000000u);
  EXPECT_EQ(ini.md_easy_items, 1000000u);
  EXPECT_TRUE(ini.timestamp_datadir);
}

TEST(Io500Ini, ReadsTheFixturesOwnConfig) {
  // The config.ini the application wrote in tests/fixtures/io500/ext4-2ranks (abridged):
  // every key it prints is taken back.
  const Io500Ini ini = parse_io500_ini(
      "[global]\ndatadir = /scratch/io500/data\ntimestamp-datadir = FALSE\n"
      "resultdir = /scratch/io500/results\ntimestamp-resultdir = FALSE\napi = POSIX\n"
      "drop-caches = FALSE\ndrop-caches-cmd = sudo -n bash -c \"echo 3 > "
      "/proc/sys/vm/drop_caches\"\nio-buffers-on-gpu = FALSE\nverbosity = 1\nscc = FALSE\n"
      "dataPacketType = timestamp\n\n[debug]\nstonewall-time = 2\npause-dir = \n\n"
      "[ior-easy]\nAPI = \ntransferSize = 2m\nblockSize = 9920000m\nfilePerProc = TRUE\n"
      "uniqueDir = FALSE\nrun = TRUE\nverbosity = \n\n[mdworkbench]\nAPI = \n"
      "waitingTime = 0.0\nprecreatePerSet = \nfilesPerProc = \nrun = TRUE\nverbosity = \n\n"
      "[find]\nexternal-script = \nexternal-mpi-args = \nexternal-extra-args = \nnproc = \n"
      "run = TRUE\npfind-queue-length = 10000\npfind-steal-next = FALSE\n"
      "pfind-parallelize-single-dir-access-using-hashing = FALSE\n",
      "config.ini");
  EXPECT_EQ(ini.datadir, "/scratch/io500/data");
  EXPECT_FALSE(ini.timestamp_datadir);
  EXPECT_EQ(ini.stonewall_s, 2u);
}

TEST(Io500Ini, RefusesWhatTheApplicationRefuses) {
  EXPECT_NE(refusal("[ior-easy]\nbogus = 1\n").find("line 2: [ior-easy]: unknown option \"bogus\""),
            std::string::npos);
  EXPECT_NE(refusal("[nosuch]\n").find("unknown section [nosuch]"), std::string::npos);
  EXPECT_NE(refusal("datadir = x\n").find("outside section"), std::string::npos);
  EXPECT_NE(refusal("[ior-easy]\nrun = yes\n").find("expects bool"), std::string::npos);
  EXPECT_NE(refusal("[mdtest-easy]\nn = -3\n").find("expects an integer >= 0"), std::string::npos);
  EXPECT_EQ(refusal("[ior-easy]\nrun = true ; a comment\n"), "");
}

TEST(Io500Ini, RefusesWhatIosweepCannotHonour) {
  EXPECT_NE(refusal("[global]\napi = MPIIO\n").find("POSIX"), std::string::npos);
  EXPECT_NE(refusal("[ior-hard]\ncollective = TRUE\n").find("collective"), std::string::npos);
  EXPECT_NE(refusal("[mdtest-hard]\nfiles-per-dir = 10\n").find("files-per-dir"),
            std::string::npos);
  EXPECT_NE(refusal("[ior-easy]\ntransferSize = 3m\nblockSize = 10m\n").find("multiple"),
            std::string::npos);
  EXPECT_NE(refusal("[ior-hard]\nsegmentCount = 999999999999999999\n").find("2^64 bytes"),
            std::string::npos);
}

TEST(Io500Steps, OneStepPerPhaseInTheApplicationsOrder) {
  Io500Ini ini = parse_io500_ini("[debug]\nstonewall-time = 5\n", "t.ini");
  const Io500Dirs dirs{"/d", "/r"};
  const std::string preset = io500_preset(ini, dirs, 4);
  std::size_t at = 0;
  for (const Io500PhaseName& p : io500_phase_names()) {
    const std::size_t next = preset.find("name = \"" + std::string(p.name) + "\"", at);
    ASSERT_NE(next, std::string::npos) << p.name;
    at = next;
  }
  EXPECT_NE(preset.find("ranks = \"4\""), std::string::npos);
  EXPECT_NE(preset.find("seq-record = \"47008\""), std::string::npos);
  EXPECT_NE(preset.find("find-newer = \"/r/timestampfile\""), std::string::npos);
  EXPECT_NE(preset.find("stonewall = \"5s\""), std::string::npos);
  // A phase left out with run = FALSE has no step.
  ini = parse_io500_ini("[find]\nrun = FALSE\n", "t.ini");
  EXPECT_EQ(io500_preset(ini, dirs, 1).find("name = \"find\""), std::string::npos);
}

TEST(Io500Score, CalcScoreOnTheFixturesFigures) {
  // tests/fixtures/io500/ext4-2ranks/result_summary.txt: the application's own lines.
  const std::vector<Io500Phase> phases = {phase("ior-easy-write", 0.075695),
                                          phase("mdtest-easy-write", 4.263571),
                                          phase("timestamp", 0),
                                          phase("ior-hard-write", 0.112637),
                                          phase("mdtest-hard-write", 6.537810),
                                          phase("find", 10.004309),
                                          phase("ior-easy-read", 0.315451),
                                          phase("mdtest-easy-stat", 24.932057),
                                          phase("ior-hard-read", 0.102839),
                                          phase("mdtest-hard-stat", 83.896978),
                                          phase("mdtest-easy-delete", 24.479473),
                                          phase("mdtest-hard-read", 31.820591),
                                          phase("mdtest-hard-delete", 1.701089),
                                          phase("ior-rnd4K-easy-read", 0.540600)};
  const Io500Score s = io500_score(phases);
  // From the six-decimal figures the application printed: equal to their rounding.
  EXPECT_NEAR(s.bw, 0.128961, 1e-5 * 0.128961);
  EXPECT_NEAR(s.md, 12.912694, 1e-5 * 12.912694);
  EXPECT_NEAR(s.total, 1.290439, 1e-5 * 1.290439);
}

TEST(Io500Score, PhasesOfZeroAreLeftOut) {
  std::vector<Io500Phase> phases = {phase("ior-easy-write", 4), phase("ior-hard-write", 0),
                                    phase("find", 9)};
  const Io500Score s = io500_score(phases);
  EXPECT_DOUBLE_EQ(s.bw, 4);
  EXPECT_DOUBLE_EQ(s.md, 9);
  EXPECT_DOUBLE_EQ(s.total, 6);
}

TEST(Io500Rules, WritePhasesAndFind) {
  Io500Phase w = phase("ior-easy-write", 1.0);
  w.time_s = 10;
  io500_check_phase(w, 300, 300);
  ASSERT_EQ(w.invalid.size(), 2u);
  EXPECT_NE(w.invalid[0].find("below stonewall time"), std::string::npos);
  EXPECT_EQ(w.invalid[1], "Runtime is smaller than expected minimum runtime");
  Io500Phase ok = phase("ior-easy-write", 1.0);
  ok.time_s = 301;
  io500_check_phase(ok, 300, 300);
  EXPECT_TRUE(ok.invalid.empty());
  Io500Phase f = phase("find", 5.0);
  io500_check_phase(f, 300, 300);
  ASSERT_EQ(f.invalid.size(), 1u);
  EXPECT_NE(f.invalid[0].find("Find didn't find anything"), std::string::npos);
  Io500Phase r = phase("ior-easy-read", 0);
  io500_check_phase(r, 300, 300);
  EXPECT_EQ(r.invalid.front(), "Resulting score shouldn't be 0.0");
  Io500Phase t = phase("timestamp", 0);
  io500_check_phase(t, 300, 300);
  EXPECT_TRUE(t.invalid.empty());
}

TEST(Io500Score, IntervalOfTheRepetitions) {
  const Io500Interval one = io500_interval({4.0});
  EXPECT_DOUBLE_EQ(one.median, 4.0);
  EXPECT_DOUBLE_EQ(one.low, 4.0);
  EXPECT_DOUBLE_EQ(one.high, 4.0);
  const Io500Interval three = io500_interval({1.0, 3.0, 2.0});
  EXPECT_DOUBLE_EQ(three.median, 2.0);
  EXPECT_GE(three.low, 1.0);
  EXPECT_LE(three.low, 2.0);
  EXPECT_GE(three.high, 2.0);
  EXPECT_LE(three.high, 3.0);
  // A fixed seed: the same values, the same interval.
  const Io500Interval again = io500_interval({1.0, 3.0, 2.0});
  EXPECT_EQ(three.low, again.low);
  EXPECT_EQ(three.high, again.high);
}

TEST(Io500Steps, RepetitionsRepeatTheSuiteWithDatasetsOfTheirOwn) {
  const Io500Ini ini = parse_io500_ini("", "t.ini");
  const std::string preset = io500_preset(ini, {"/d", "/r"}, 2, 3);
  EXPECT_NE(preset.find("name = \"r1/ior-easy-write\"\ndataset = \"ior-easy.r1\""),
            std::string::npos);
  EXPECT_NE(preset.find("name = \"r3/ior-rnd4K-easy-read\"\ndataset = \"ior-easy.r3\""),
            std::string::npos);
  EXPECT_LT(preset.find("r1/ior-rnd4K-easy-read"), preset.find("r2/ior-easy-write"));
  EXPECT_EQ(io500_step_phase("r2/mdtest-hard-read"), "mdtest-hard-read");
  EXPECT_EQ(io500_step_repetition("r12/find"), 12);
  EXPECT_EQ(io500_step_repetition("find"), 1);
  EXPECT_EQ(io500_step_phase("find"), "find");
}

// A phase's time split as result_phases.txt gives it: a stonewalled window's straggler tail is
// what it ran on after the stonewall, the wear-out comes after it and is the application's time
// beside the window; without a stonewall the tail is the wait for the slowest rank.
TEST(Io500Detail, StragglerTailApartFromTheWearOut) {
  PointResult pr;
  SummaryRow& s = pr.summary;
  s.phase = kSeqWrite;
  s.stonewalled = 1;
  s.wall_s = 3.5;
  s.rank_time_min_s = 3.1;
  s.wearout_max_s = 0.75;
  s.bytes = 3u << 30;
  s.wearout_bytes = 1u << 30;
  s.lat_p50_ns = 2e6;
  pr.ranks.resize(2);
  Io500Phase p = io500_phase_of("ior-easy-write", pr, 3.0);
  EXPECT_TRUE(p.detail.stonewalled);
  EXPECT_DOUBLE_EQ(p.detail.tail_s, 0.5);
  EXPECT_DOUBLE_EQ(p.detail.wearout_s, 0.75);
  EXPECT_DOUBLE_EQ(p.detail.wearout_share, 0.25);
  EXPECT_DOUBLE_EQ(p.time_s, 3.5 + 0.75);  // the application's time: window and wear-out
  EXPECT_DOUBLE_EQ(p.detail.lat_p50_ns, 2e6);
  s.stonewalled = 0;  // every rank did all it had: the tail is the wait for the slowest
  s.wearout_max_s = 0;
  s.wearout_bytes = 0;
  p = io500_phase_of("ior-easy-write", pr, 3.0);
  EXPECT_FALSE(p.detail.stonewalled);
  EXPECT_NEAR(p.detail.tail_s, 0.4, 1e-12);
  EXPECT_DOUBLE_EQ(p.detail.wearout_share, 0.0);
  // Metadata: the wear-out's share is of the operations, the ranks' wear-out counts summed.
  s.phase = kMdCreate;
  s.stonewalled = 1;
  s.ops = 900;
  pr.ranks[0].wearout_ops = 60;
  pr.ranks[1].wearout_ops = 40;
  p = io500_phase_of("mdtest-easy-write", pr, 3.0);
  EXPECT_DOUBLE_EQ(p.detail.wearout_share, 0.1);
  EXPECT_DOUBLE_EQ(p.score, 1000 / p.time_s / 1000);
}
