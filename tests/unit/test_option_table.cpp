// The option table is the only source of the options: every row reaches --help, the recorded
// configuration (TOML) and, through it, --rerun, which reads a run's configuration back
// identical; any string value round-trips exactly; the rows record the run attributes
// results/README.md documents.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "app/option_table.hpp"
#include "core/toml.hpp"

using namespace iosweep;

namespace {

constexpr const char* kId = "20261201T101010.101Z-0badcafe";

CliResult parse(const std::vector<std::string>& args, const RunLoader& load = load_run_here) {
  std::vector<std::string> s{"iosweep"};
  s.insert(s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : s)
    argv.push_back(a.data());
  return parse_cli(static_cast<int>(argv.size()), argv.data(), load);
}

// A loader that hands out `toml` as the configuration of run kId.
RunLoader store(const std::string& toml) {
  return [toml](const RunRef&, LoadedRun& out) {
    out = {kId, toml, "shown\n", 2, 1};
    return std::string();
  };
}

// Command lines that together give every option of the table a value of its own (the options
// that exclude each other are spread over several). A new row without one here fails
// EveryRowReachesHelpTheRecordAndTheRerun: add it.
const std::vector<std::vector<std::string>> kEveryOption = {
    {"run",
     "--dir",
     "/data/a b,/nvme1/x y",
     "--file-size",
     "64m",
     "--seq-record",
     "4m",
     "--rand-record",
     "8k",
     "--scan-record",
     "2m",
     "--phases",
     "seq-write,seq-read,filter-count",
     "--ranks",
     "1,2",
     "--placement",
     "block",
     "--repetitions",
     "3",
     "--seed",
     "7",
     "--order-seed",
     "9",
     "--filter-key",
     "0x1234",
     "--filter-every",
     "4096",
     "--filter-kernel",
     "scalar",
     "--collector",
     "rank0",
     "--rated-bw",
     "5.2GB/s,40Gb/s",
     "--rated-iops",
     "1.5M",
     "--fsync",
     "seq-write",
     "--preallocate",
     "--keep",
     "--engine",
     "uring",
     "--iodepth",
     "4",
     "--iodepth-batch",
     "2",
     "--direct",
     "--hugepages",
     "--sqpoll",
     "--cache",
     "keep",
     "--wire-interface",
     "eth0,ib:mlx5_0:1",
     "--read-shift",
     "1",
     "--stonewall",
     "30s",
     "--stonewall-wearout",
     "--timeseries-bin",
     "250ms",
     "--verify",
     "--quiet",
     "--show-controls",
     "--force",
     "--format",
     "iozone",
     "--output",
     "/r/x.h5",
     "--label",
     "first",
     "--md-items",
     "64",
     "--md-items-per-folder",
     "8",
     "--md-depth",
     "2",
     "--md-branch",
     "3",
     "--md-layout",
     "shared",
     "--md-files",
     "all",
     "--md-write-bytes",
     "4k",
     "--md-read-bytes",
     "2k",
     "--md-fsync",
     "--md-sync",
     "--find-newer",
     "/r/timestampfile",
     "--find-size",
     "3901",
     "--find-name",
     "*01*",
     "--dry-run"},
    {"run", "--dir", "/data", "--sweep", "2:8", "--file-layout", "shared", "--shared-pattern",
     "strided", "--engine", "mpiio", "--mpiio-collective", "--mpiio-hint",
     "romio_cb_write=enable,cb_nodes=2", "--read-shift", "auto", "--md-items-total", "4096"},
    {"run", "--dir", "/data", "--streams", "1:64", "--engine", "null", "--phases", "rand-read",
     "--reuse", "20261130T154147.684Z-dd3794d4"},
};

std::set<std::string> keys_of(const std::string& toml) {
  std::vector<TomlItem> items;
  EXPECT_EQ(parse_toml(toml, items), "") << toml;
  std::set<std::string> out;
  for (const auto& i : items)
    out.insert(i.key);
  return out;
}

}  // namespace

TEST(OptionTable, NamesAreUniqueAndEveryRowIsComplete) {
  std::set<std::string> names;
  for (const OptionRow& r : option_table()) {
    EXPECT_TRUE(names.insert(r.name).second) << r.name;
    EXPECT_NE(r.set, nullptr) << r.name;
    EXPECT_TRUE(r.help[0] != '\0' || r.help_from_tables != nullptr) << r.name;
    EXPECT_EQ(find_option(r.name), &r);
    if (r.form == OptionForm::optional) {
      EXPECT_NE(r.bare, nullptr) << r.name;
    }
    if (r.form == OptionForm::flag) {
      EXPECT_STREQ(r.fallback, "false") << r.name;
    }
  }
}

TEST(OptionTable, EveryRowReachesHelpTheRecordAndTheRerun) {
  const CliResult help = parse({"--help"});
  std::set<std::string> recorded;
  for (const auto& args : kEveryOption) {
    const CliResult r = parse(args);
    ASSERT_EQ(r.action, CliResult::Action::run) << r.text;
    for (const auto& k : keys_of(r.cfg.config_toml))
      recorded.insert(k);
    // Read back through --rerun, the configuration is the same, line for line.
    const CliResult again = parse({"run", "--rerun", "r.h5"}, store(r.cfg.config_toml));
    ASSERT_EQ(again.action, CliResult::Action::run) << again.text;
    EXPECT_EQ(again.cfg.config_toml, r.cfg.config_toml);
    EXPECT_EQ(again.cfg.work.dirs, r.cfg.work.dirs);
    EXPECT_EQ(again.cfg.report.rated_bw2_Bps, r.cfg.report.rated_bw2_Bps);
    EXPECT_EQ(again.cfg.report.rated_iops, r.cfg.report.rated_iops);
  }
  for (const OptionRow& row : option_table()) {
    EXPECT_NE(help.text.find(std::string("--") + row.name + " "), std::string::npos) << row.name;
    EXPECT_TRUE(recorded.contains(row.name)) << row.name << " is never recorded: give it a "
                                             << "value in kEveryOption";
  }
}

TEST(OptionTable, AnyStringRoundTripsExactlyThroughTheRecordAndTheRerun) {
  const std::vector<std::string> labels = {
      "x\norder-seed=12345\n# ",  // lines that would read as options
      "quote \" backslash \\ tab \t bell \a del \x7f",
      "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x92\xbe",  // UTF-8 of every length
      "[section]\nkey = 'x'",
  };
  for (const auto& label : labels) {
    const CliResult r = parse({"run", "--dir", "/d\"ir\\x y", "--label", label});
    ASSERT_EQ(r.action, CliResult::Action::run) << r.text;
    EXPECT_EQ(keys_of(r.cfg.config_toml).count("order-seed"), 0u);
    const CliResult again = parse({"run", "--rerun", "r.h5"}, store(r.cfg.config_toml));
    ASSERT_EQ(again.action, CliResult::Action::run) << again.text;
    EXPECT_EQ(again.cfg.report.label, label);
    EXPECT_EQ(again.cfg.work.dirs, std::vector<std::string>{"/d\"ir\\x y"});
    EXPECT_FALSE(again.cfg.work.order_seed_pinned);
    EXPECT_EQ(again.cfg.config_toml, r.cfg.config_toml);
  }
  // What cannot be recorded as text is refused in one line naming the option.
  const CliResult bad = parse({"run", "--dir", "/d", "--label", "caf\xe9"});
  EXPECT_EQ(bad.action, CliResult::Action::usage_error);
  EXPECT_EQ(bad.text.find("--label:"), 0u) << bad.text;
  EXPECT_EQ(bad.text.find('\n'), std::string::npos);
}

TEST(OptionTable, EveryRecordedAttributeIsDocumented) {
  std::ifstream in(std::string(IOSWEEP_SOURCE_DIR) + "/results/README.md");
  std::stringstream readme;
  readme << in.rdbuf();
  for (const auto& args : kEveryOption) {
    const CliResult r = parse(args);
    ASSERT_EQ(r.action, CliResult::Action::run) << r.text;
    const RunAttributes attributes = record_options(r.cfg);
    for (const RunAttribute& a : attributes.all())
      EXPECT_NE(readme.str().find("`" + a.name + "`"), std::string::npos)
          << a.name << " is recorded but results/README.md does not document it";
  }
}

TEST(OptionTable, DefaultsAreStatedOnlyInTheTable) {
  // A default run converts every fallback: the configuration holds what the rows say.
  const CliResult r = parse({"run", "--dir", "/d"});
  ASSERT_EQ(r.action, CliResult::Action::run) << r.text;
  EXPECT_EQ(r.cfg.work.file_size, 1ull << 30);
  EXPECT_EQ(r.cfg.work.seq_record, 16ull << 20);
  EXPECT_EQ(r.cfg.work.rand_record, 4096u);
  EXPECT_EQ(r.cfg.work.timeseries_bin_s, 0.1);
  EXPECT_EQ(r.cfg.report.output, "results/iosweep.h5");
  for (const OptionRow& row : option_table()) {
    if (row.fallback != nullptr) {
      EXPECT_TRUE(keys_of(r.cfg.config_toml).contains(row.name)) << row.name;
    }
  }
}

// An empty list is refused from every source as the command line refuses an empty value: one
// row per list option, each source in turn (a preset given with --config, a stored run read by
// --rerun). Without it `phases = []` ran nothing and recorded a complete run, `ranks = []`
// became the default sweep.
TEST(OptionTable, AnEmptyListIsRefusedFromEverySource) {
  const std::string preset = ::testing::TempDir() + "iosweep-empty-list.toml";
  int lists = 0;
  for (const OptionRow& row : option_table()) {
    if (row.form != OptionForm::list) continue;
    ++lists;
    const std::string toml = std::string(row.name) + " = []\n";
    const std::string want = std::string("--") + row.name + ": empty value";
    std::ofstream(preset) << toml;
    const CliResult from_preset = parse({"run", "--dir", "/d", "--config", preset});
    EXPECT_EQ(from_preset.action, CliResult::Action::usage_error) << row.name;
    EXPECT_EQ(from_preset.text.find(want), 0u) << from_preset.text;
    const std::string dir = std::string(row.name) == "dir" ? "" : "dir = \"/d\"\n";
    const CliResult from_run = parse({"run", "--rerun", "r.h5"}, store(dir + toml));
    EXPECT_EQ(from_run.action, CliResult::Action::usage_error) << row.name;
    EXPECT_EQ(from_run.text.find(want), 0u) << from_run.text;
  }
  EXPECT_GE(lists, 3);  // --phases, --ranks, --wire-interface at least
  std::remove(preset.c_str());
}
