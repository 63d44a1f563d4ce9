// Command-line parsing: defaults, conversions and the one-line errors (no MPI needed).
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "app/cli.hpp"

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
  EXPECT_EQ(r.cfg.file_size, 32u << 20);
  EXPECT_EQ(r.cfg.seq_record, 16u << 20);
  EXPECT_EQ(r.cfg.rand_record, 4096u);
  EXPECT_EQ(r.cfg.output, "results/iosweep.h5");
  // Always in table order, whatever the order given.
  EXPECT_EQ(r.cfg.phases, (std::vector<PhaseKind>{PhaseKind::seq_write, PhaseKind::rand_read}));
  EXPECT_NE(r.cfg.config_toml.find("file-size=\"32MiB\""), std::string::npos);
}

TEST(Cli, RanksAndSweep) {
  auto r = parse({"run", "--dir", "/tmp", "--ranks", "1,2,4"});
  ASSERT_EQ(r.action, CliResult::Action::run);
  EXPECT_EQ(r.cfg.ranks, (std::vector<int>{1, 2, 4}));
  r = parse({"run", "--dir", "/tmp", "--sweep", "2:16"});
  EXPECT_EQ(r.cfg.sweep_min, 2);
  EXPECT_EQ(r.cfg.sweep_max, 16);
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
