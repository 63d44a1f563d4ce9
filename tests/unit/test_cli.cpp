// Command-line parsing: defaults, conversions and the one-line errors (no MPI needed).
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "app/options.hpp"
#include "engines/engine_table.hpp"
#include "phases/phase_table.hpp"

using namespace iosweep;

namespace {
CliResult parse(const std::vector<const char*>& args) {
  std::vector<std::string> s{"iosweep"};
  s.insert(s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : s)
    argv.push_back(a.data());
  return parse_cli(static_cast<int>(argv.size()), argv.data());
}
}  // namespace

TEST(Cli, DefaultsAndConversions) {
  const auto r =
      parse({"run", "--dir", "/tmp", "--file-size", "32MiB", "--phases", "rand-read,seq-write"});
  ASSERT_EQ(r.action, CliResult::Action::run) << r.text;
  EXPECT_EQ(r.cfg.work.file_size, 32u << 20);
  EXPECT_EQ(r.cfg.work.seq_record, 16u << 20);
  EXPECT_EQ(r.cfg.work.rand_record, 4096u);
  EXPECT_EQ(r.cfg.report.output, "results/iosweep.h5");
  // Always in table order, whatever the order given.
  EXPECT_EQ(r.cfg.work.phases, (std::vector<PhaseId>{find_phase_desc("seq-write")->id,
                                                     find_phase_desc("rand-read")->id}));
  EXPECT_NE(r.cfg.config_toml.find("file-size=\"32MiB\""), std::string::npos);
}

TEST(Cli, RecordedFsyncIsTheOneThatRuns) {
  // --fsync bare means every writing phase; not given, none: the recorded TOML says which, so
  // that loading it with --config runs the same.
  auto r = parse({"run", "--dir", "/tmp"});
  ASSERT_EQ(r.action, CliResult::Action::run) << r.text;
  EXPECT_TRUE(r.cfg.work.fsync_phases.empty());
  EXPECT_NE(r.cfg.config_toml.find("fsync=\"none\"\n"), std::string::npos) << r.cfg.config_toml;
  r = parse({"run", "--dir", "/tmp", "--fsync"});
  EXPECT_FALSE(r.cfg.work.fsync_phases.empty());
  EXPECT_NE(r.cfg.config_toml.find("fsync=\"all\"\n"), std::string::npos) << r.cfg.config_toml;
  r = parse({"run", "--dir", "/tmp", "--fsync", "seq-write"});
  EXPECT_NE(r.cfg.config_toml.find("fsync=\"seq-write\"\n"), std::string::npos);
}

TEST(Cli, RanksAndSweep) {
  auto r = parse({"run", "--dir", "/tmp", "--ranks", "1,2,4"});
  ASSERT_EQ(r.action, CliResult::Action::run);
  EXPECT_EQ(r.cfg.sweep.ranks, (std::vector<int>{1, 2, 4}));
  r = parse({"run", "--dir", "/tmp", "--sweep", "2:16"});
  EXPECT_EQ(r.cfg.sweep.sweep_min, 2);
  EXPECT_EQ(r.cfg.sweep.sweep_max, 16);
}

TEST(Cli, BadInputIsOneLineNamingTheOption) {
  const std::pair<std::vector<const char*>, const char*> cases[] = {
      {{"run", "--dir", "/tmp", "--file-size", "0"}, "--file-size"},
      {{"run", "--dir", "/tmp", "--file-size", "-4k"}, "--file-size"},
      {{"run", "--dir", "/tmp", "--file-size", "12zz"}, "--file-size"},
      {{"run", "--dir", "/tmp", "--phases", "seq-wrote"}, "--phases"},
      {{"run", "--dir", "/tmp", "--engine", "aio"}, "--engine"},
      {{"run", "--dir", "/tmp", "--iodepth", "0"}, "--iodepth"},
      {{"run", "--dir", "/tmp", "--iodepth", "8"}, "--iodepth"},
      {{"run", "--dir", "/tmp", "--sweep", "4"}, "--sweep"},
      {{"run", "--dir", "/tmp", "--ranks", "1,x"}, "--ranks"},
      {{"run", "--dir", "/tmp", "--placement", "diagonal"}, "--placement"},
      {{"run", "--dir", "/tmp", "--bogus"}, "--bogus"},
      {{"run", "--file-size", "1g"}, "--dir"},
  };
  for (const auto& [args, option] : cases) {
    const auto r = parse(args);
    EXPECT_EQ(r.action, CliResult::Action::usage_error) << option;
    EXPECT_NE(r.text.find(option), std::string::npos) << r.text;
    EXPECT_EQ(r.text.find('\n'), std::string::npos) << r.text;
  }
}

TEST(Cli, HelpListsEveryOptionWithDefaults) {
  const auto r = parse({"--help"});
  ASSERT_EQ(r.action, CliResult::Action::print);
  for (const char* opt :
       {"--dir",         "--file-size", "--seq-record", "--rand-record",  "--phases",
        "--ranks",       "--sweep",     "--placement",  "--fsync",        "--keep",
        "--repetitions", "--seed",      "--filter-key", "--filter-every", "--output",
        "--label",       "--dry-run",   "--config",     "--version",      "--engine",
        "--iodepth",     "--direct",    "--cache",      "--read-shift",   "--stonewall",
        "--verify"})
    EXPECT_NE(r.text.find(opt), std::string::npos) << opt;
  EXPECT_NE(r.text.find("=16m"), std::string::npos);
  EXPECT_NE(r.text.find("binary"), std::string::npos);
}

TEST(Cli, HelpAndChoicesComeFromTheTables) {
  const auto r = parse({"--help"});
  ASSERT_EQ(r.action, CliResult::Action::print);
  for (const auto& d : phase_descs())
    EXPECT_NE(r.text.find(d.name), std::string::npos) << d.name;
  for (const auto& e : engine_descs())
    EXPECT_NE(r.text.find(e.help), std::string::npos) << e.name;
  const auto bad = parse({"run", "--dir", "/tmp", "--phases", "seq-wrote"});
  EXPECT_NE(bad.text.find(phase_names()), std::string::npos) << bad.text;
}

TEST(Cli, NullEngineTakesADepthButRefusesVerify) {
  auto r = parse({"run", "--dir", "/tmp", "--engine", "null", "--iodepth", "32"});
  ASSERT_EQ(r.action, CliResult::Action::run) << r.text;
  EXPECT_EQ(r.cfg.io.engine, find_engine_desc("null")->id);
  EXPECT_EQ(r.cfg.io.iodepth, 32u);
  r = parse({"run", "--dir", "/tmp", "--engine", "null", "--verify"});
  EXPECT_EQ(r.action, CliResult::Action::usage_error);
  EXPECT_NE(r.text.find("--verify"), std::string::npos) << r.text;
}

TEST(Cli, UnitsPrintsBytesAndRefusesBadSizes) {
  auto r = parse({"units", "16m", "4KiB"});
  ASSERT_EQ(r.action, CliResult::Action::print) << r.text;
  EXPECT_EQ(r.text, "16777216\n4096\n");
  r = parse({"units", "4x"});
  EXPECT_EQ(r.action, CliResult::Action::usage_error);
  EXPECT_NE(r.text.find("units"), std::string::npos) << r.text;
}

TEST(Cli, StreamsExpandLikeSweepAndListsStayStrict) {
  auto r = parse({"run", "--dir", "/tmp", "--engine", "null", "--streams", "3:100"});
  ASSERT_EQ(r.action, CliResult::Action::run) << r.text;
  EXPECT_EQ(r.cfg.sweep.streams, (std::vector<std::uint64_t>{3, 4, 8, 16, 32, 64, 100}));
  r = parse({"run", "--dir", "/tmp", "--engine", "null", "--streams", "1,64,1024"});
  ASSERT_EQ(r.action, CliResult::Action::run) << r.text;
  EXPECT_EQ(r.cfg.sweep.streams, (std::vector<std::uint64_t>{1, 64, 1024}));
  EXPECT_EQ(r.cfg.io.iodepth, 1u);  // each point's depth comes from its streams
  const std::pair<std::vector<const char*>, const char*> bad[] = {
      {{"--streams", "4,2"}, "strictly increasing"},
      {{"--streams", "1, 2"}, "white space"},
      {{"--streams", "1,,2"}, "empty entry"},
      {{"--streams", "8:2"}, "below MIN"},
      {{"--streams", "1:4,8"}, "neither a list"},
      {{"--streams", "0:4"}, "at least 1"},
      {{"--streams", "4", "--ranks", "1,2"}, "--streams and --ranks"},
      {{"--streams", "4", "--sweep", "1:2"}, "--streams and --sweep"},
      {{"--streams", "4", "--iodepth", "8"}, "--streams and --iodepth"},
  };
  for (const auto& [extra, what] : bad) {
    std::vector<const char*> args{"run", "--dir", "/tmp", "--engine", "null"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto e = parse(args);
    EXPECT_EQ(e.action, CliResult::Action::usage_error) << what;
    EXPECT_EQ(e.text.rfind("--streams", 0), 0u) << e.text;
    EXPECT_NE(e.text.find(what), std::string::npos) << e.text;
    EXPECT_EQ(e.text.find('\n'), std::string::npos) << e.text;
  }
  // An engine with one request in flight is refused, naming those that take a depth.
  const auto p = parse({"run", "--dir", "/tmp", "--streams", "1:8"});
  ASSERT_EQ(p.action, CliResult::Action::usage_error);
  EXPECT_EQ(p.text, "--streams: the posix engine keeps one request in flight; use --engine " +
                        engines_taking(kTakesDepth));
}

TEST(Cli, RatedIopsTakesOneRateOfOperations) {
  auto r = parse({"run", "--dir", "/tmp", "--rated-iops", "1.5M"});
  ASSERT_EQ(r.action, CliResult::Action::run) << r.text;
  EXPECT_DOUBLE_EQ(r.cfg.report.rated_iops, 1.5e6);
  r = parse({"run", "--dir", "/tmp"});
  ASSERT_EQ(r.action, CliResult::Action::run) << r.text;
  EXPECT_EQ(r.cfg.report.rated_iops, 0.0);
  for (const char* bad : {"1.5M,2M", "fast", "0", "1.5MiB/s"}) {
    r = parse({"run", "--dir", "/tmp", "--rated-iops", bad});
    EXPECT_EQ(r.action, CliResult::Action::usage_error) << bad;
    EXPECT_EQ(r.text.rfind("--rated-iops: ", 0), 0u) << r.text;
  }
}

TEST(Cli, RatedBandwidthTakesOneOrTwoRates) {
  auto r = parse({"run", "--dir", "/tmp", "--rated-bw", "5.2GB/s,3.4GB/s"});
  ASSERT_EQ(r.action, CliResult::Action::run) << r.text;
  EXPECT_DOUBLE_EQ(r.cfg.report.rated_bw_Bps, 5.2e9);
  EXPECT_DOUBLE_EQ(r.cfg.report.rated_bw2_Bps, 3.4e9);
  r = parse({"run", "--dir", "/tmp", "--rated-bw", "2GiB/s"});
  ASSERT_EQ(r.action, CliResult::Action::run) << r.text;
  EXPECT_DOUBLE_EQ(r.cfg.report.rated_bw_Bps, 2.0 * (1u << 30));
  EXPECT_EQ(r.cfg.report.rated_bw2_Bps, 0.0);
  for (const char* bad : {"1GB/s,2GB/s,3GB/s", "1GB/s,", "1GB/s, 2GB/s", "1GB/s,fast"}) {
    r = parse({"run", "--dir", "/tmp", "--rated-bw", bad});
    EXPECT_EQ(r.action, CliResult::Action::usage_error) << bad;
    EXPECT_EQ(r.text.rfind("--rated-bw: ", 0), 0u) << r.text;
  }
}

// One rule for every option given twice on the command line, as IOR and fio read theirs: the
// last one wins, for values, lists, flags and optional values alike, and --help says so.
TEST(Cli, AnOptionGivenTwiceTakesItsLastValue) {
  auto r = parse({"run", "--dir", "/a", "--dir", "/b,/c", "--file-size", "1m", "--file-size", "2m",
                  "--keep", "--keep=false", "--fsync", "--fsync", "seq-write", "--phases",
                  "seq-write", "--phases", "seq-read"});
  ASSERT_EQ(r.action, CliResult::Action::run) << r.text;
  EXPECT_EQ(r.cfg.work.dirs, (std::vector<std::string>{"/b", "/c"}));
  EXPECT_EQ(r.cfg.work.file_size, 2u << 20);
  EXPECT_FALSE(r.cfg.work.keep);
  EXPECT_EQ(r.cfg.work.fsync_phases, (std::vector<PhaseId>{find_phase_desc("seq-write")->id}));
  EXPECT_EQ(r.cfg.work.phases, (std::vector<PhaseId>{find_phase_desc("seq-read")->id}));
  EXPECT_NE(r.cfg.config_toml.find("dir=[\"/b,/c\"]"), std::string::npos) << r.cfg.config_toml;
  r = parse({"run", "--dir", "/a", "--ranks", "1,2", "--ranks", "4"});
  ASSERT_EQ(r.action, CliResult::Action::run) << r.text;
  EXPECT_EQ(r.cfg.sweep.ranks, (std::vector<int>{4}));
  const auto help = parse({"--help"});
  EXPECT_NE(help.text.find(kGivenTwice), std::string::npos);
}

// --mpiio-hint takes its hints as one list (given twice, the last list wins); a comma inside a
// value (ROMIO's cb_config_list) stays in it, and a key named twice is refused.
TEST(Cli, HintsAreOneListWhoseValuesMayHoldCommas) {
  auto r = parse({"run", "--dir", "/a", "--engine", "mpiio", "--mpiio-hint",
                  "romio_cb_write=enable,cb_config_list=n1:1,n2:1"});
  ASSERT_EQ(r.action, CliResult::Action::run) << r.text;
  using Hints = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(r.cfg.io.mpiio_hints,
            (Hints{{"romio_cb_write", "enable"}, {"cb_config_list", "n1:1,n2:1"}}));
  r = parse({"run", "--dir", "/a", "--engine", "mpiio", "--mpiio-hint", "a=1,a=2"});
  EXPECT_EQ(r.action, CliResult::Action::usage_error);
  EXPECT_EQ(r.text, "--mpiio-hint: the hint a is given twice");
}
