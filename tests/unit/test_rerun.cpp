// --rerun and `iosweep show` without a results file: the RESULTS[:RUN_ID] rule, the stored
// configuration under the command line, the cap of a stored sweep, the text show prints.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "app/cli.hpp"
#include "app/rerun.hpp"

using namespace iosweep;

namespace {

constexpr const char* kId = "20261130T154147.684Z-dd3794d4";

CliResult parse(const std::vector<const char*>& args, const RunLoader& load) {
  std::vector<std::string> s{"iosweep"};
  s.insert(s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : s)
    argv.push_back(a.data());
  return parse_cli(static_cast<int>(argv.size()), argv.data(), load);
}

// A loader that hands out the configuration an ordinary run of `args` records, as run kId of
// 8 ranks on 2 nodes, and remembers what it was asked for.
struct FakeStore {
  std::string toml;
  RunRef asked;
  int calls = 0;
  RunLoader loader() {
    return [this](const RunRef& ref, LoadedRun& out) {
      asked = ref;
      ++calls;
      if (ref.path != "r.h5") return "'" + ref.path + "' does not exist";
      out = {kId, toml, "shown\n", 8, 2};
      return std::string();
    };
  }
};

FakeStore store_of(const std::vector<const char*>& args) {
  const CliResult r = parse(args, load_run_here);
  EXPECT_EQ(r.action, CliResult::Action::run) << r.text;
  return {r.cfg.config_toml, {}, 0};
}

// The TOML's lines, without those naming `skip`.
std::vector<std::string> lines_but(const std::string& toml, const std::vector<std::string>& skip) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < toml.size()) {
    const auto nl = toml.find('\n', at);
    const std::string line = toml.substr(at, nl - at);
    at = nl == std::string::npos ? toml.size() : nl + 1;
    bool keep = true;
    for (const auto& k : skip)
      keep = keep && !line.starts_with(k + "=");
    if (keep) out.push_back(line);
  }
  return out;
}

}  // namespace

TEST(Rerun, RunIdShape) {
  EXPECT_TRUE(looks_like_run_id(kId));
  EXPECT_TRUE(looks_like_run_id("20261130T154147.684Z-DD3794D4"));
  for (const char* bad : {"", "x", "20261130T154147.684Z-dd3794d", "20261130T154147.684Z-dd3794d4x",
                          "20261130X154147.684Z-dd3794d4", "2026113OT154147.684Z-dd3794d4",
                          "20261130T154147,684Z-dd3794d4", "20261130T154147.684Z_dd3794d4",
                          "20261130T154147.684Z-dd3794g4"})
    EXPECT_FALSE(looks_like_run_id(bad)) << bad;
}

TEST(Rerun, ResultsColonRunIdSplitsOnlyBeforeARunId) {
  const std::string id = kId;
  struct Case {
    std::string arg, path, run_id;
  } cases[] = {
      {"r.h5", "r.h5", ""},
      {"r.h5:" + id, "r.h5", id},
      {"results/iosweep.h5:" + id, "results/iosweep.h5", id},
      {"a:b.h5", "a:b.h5", ""},                      // a ':' in the path
      {"a:b.h5:" + id, "a:b.h5", id},                // split at the last ':' only
      {"r.h5:" + id + ":", "r.h5:" + id + ":", ""},  // nothing after the last ':'
      {"r.h5:latest", "r.h5:latest", ""},            // not shaped like a run id
      {"r.h5:" + id.substr(1), "r.h5:" + id.substr(1), ""},
      {":" + id, "", id},  // an empty path, refused as such
      {id, id, ""},        // a file named like a run id
  };
  for (const auto& c : cases) {
    const RunRef ref = split_run_ref(c.arg);
    EXPECT_EQ(ref.path, c.path) << c.arg;
    EXPECT_EQ(ref.run_id, c.run_id) << c.arg;
  }
}

TEST(Rerun, StoredConfigurationUnderTheCommandLine) {
  FakeStore store = store_of({"run", "--dir", "/data", "--file-size", "32MiB", "--phases",
                              "seq-write,seq-read", "--keep", "--label", "first"});
  const auto r = parse({"run", "--rerun", (std::string("r.h5:") + kId).c_str(), "--dir", "/other",
                        "--output", "/tmp/o.h5", "--keep=false"},
                       store.loader());
  ASSERT_EQ(r.action, CliResult::Action::run) << r.text;
  EXPECT_EQ(store.asked.path, "r.h5");
  EXPECT_EQ(store.asked.run_id, kId);
  EXPECT_EQ(r.cfg.work.dirs, std::vector<std::string>{"/other"});
  EXPECT_EQ(r.cfg.report.output, "/tmp/o.h5");
  EXPECT_FALSE(r.cfg.work.keep);
  EXPECT_EQ(r.cfg.work.file_size, 32u << 20);
  EXPECT_EQ(r.cfg.work.phases.size(), 2u);
  EXPECT_EQ(r.cfg.report.label, "first");
  EXPECT_EQ(r.cfg.rerun_of, kId);
  EXPECT_EQ(r.rerun.run_id, kId);
  EXPECT_EQ(r.rerun.world_size, 8);
  // The rerun records what it ran: the stored configuration but for what was overridden, and
  // not --rerun itself.
  EXPECT_EQ(lines_but(r.cfg.config_toml, {"dir", "output", "keep"}),
            lines_but(store.toml, {"dir", "output", "keep"}));
  EXPECT_NE(r.cfg.config_toml.find("dir=[\"/other\"]"), std::string::npos);
  EXPECT_EQ(r.cfg.config_toml.find("rerun"), std::string::npos);
}

TEST(Rerun, StoredValuesApplyUnlessOverridden) {
  FakeStore store = store_of({"run", "--dir", "/data", "--output", "/r/x.h5", "--fsync",
                              "seq-write", "--phases", "seq-write,seq-read"});
  const auto r = parse({"run", "--rerun", "r.h5"}, store.loader());
  ASSERT_EQ(r.action, CliResult::Action::run) << r.text;
  EXPECT_EQ(store.asked.run_id, "");  // the latest
  EXPECT_EQ(r.cfg.work.dirs, std::vector<std::string>{"/data"});
  EXPECT_EQ(r.cfg.report.output, "/r/x.h5");
  EXPECT_EQ(r.cfg.work.fsync_phases.size(), 1u);
  EXPECT_EQ(r.cfg.work.phases.size(), 2u);  // a TOML array of the list as given
  EXPECT_NE(store.toml.find("phases=[\"seq-write,seq-read\"]"), std::string::npos) << store.toml;
  EXPECT_EQ(r.cfg.config_toml, store.toml);
}

TEST(Rerun, RanksAndSweepAreOneSetting) {
  FakeStore store = store_of({"run", "--dir", "/data", "--ranks", "1,2,4"});
  auto r = parse({"run", "--rerun", "r.h5", "--sweep", "1:2"}, store.loader());
  ASSERT_EQ(r.action, CliResult::Action::run) << r.text;
  EXPECT_TRUE(r.cfg.sweep.ranks.empty());
  EXPECT_EQ(r.cfg.sweep.sweep_max, 2);
  EXPECT_TRUE(r.rerun.sweep_given);
  EXPECT_FALSE(r.rerun.sweep_stored);
  r = parse({"run", "--rerun", "r.h5"}, store.loader());
  EXPECT_EQ(r.cfg.sweep.ranks, (std::vector<int>{1, 2, 4}));
  EXPECT_TRUE(r.rerun.sweep_stored);
}

TEST(Rerun, RefusalsAreOneLineNamingTheArgument) {
  FakeStore store = store_of({"run", "--dir", "/data"});
  auto r = parse({"run", "--rerun", "missing.h5"}, store.loader());
  EXPECT_EQ(r.action, CliResult::Action::usage_error);
  EXPECT_EQ(r.text, "--rerun: 'missing.h5' does not exist");
  r = parse({"show", "missing.h5"}, store.loader());
  EXPECT_EQ(r.action, CliResult::Action::usage_error);
  EXPECT_EQ(r.text, "show: 'missing.h5' does not exist");
  r = parse({"run", "--rerun", ""}, store.loader());
  EXPECT_EQ(r.action, CliResult::Action::usage_error);
  EXPECT_NE(r.text.find("--rerun"), std::string::npos) << r.text;
  store.toml += "no-such-option=3\n";
  r = parse({"run", "--rerun", "r.h5"}, store.loader());
  EXPECT_EQ(r.action, CliResult::Action::usage_error);
  EXPECT_NE(r.text.find("--rerun:"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("no-such-option"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find('\n'), std::string::npos) << r.text;
}

TEST(Rerun, ShowTakesAnIdOrTheLatest) {
  FakeStore store = store_of({"run", "--dir", "/data"});
  auto r = parse({"show", "r.h5"}, store.loader());
  ASSERT_EQ(r.action, CliResult::Action::print) << r.text;
  EXPECT_EQ(r.text, "shown\n");
  EXPECT_EQ(store.asked.run_id, "");
  parse({"show", (std::string("r.h5:") + kId).c_str()}, store.loader());
  EXPECT_EQ(store.asked.path, "r.h5");
  EXPECT_EQ(store.asked.run_id, kId);
  parse({"show", "r.h5", "some-id"}, store.loader());  // RESULTS taken as it is
  EXPECT_EQ(store.asked.path, "r.h5");
  EXPECT_EQ(store.asked.run_id, "some-id");
  // Nothing is loaded without show or --rerun.
  const int calls = store.calls;
  parse({"run", "--dir", "/data"}, store.loader());
  EXPECT_EQ(store.calls, calls);
}

TEST(Rerun, OtherWorldCapsAStoredSweepAndSaysSoInOneLine) {
  RerunSource src{kId, 8, 2, true, false};
  SweepSpec sw;
  sw.ranks = {1, 2, 4, 8};
  EXPECT_EQ(fit_rerun_to_world(src, sw, 8, 2), "");
  EXPECT_EQ(sw.ranks, (std::vector<int>{1, 2, 4, 8}));
  const std::string line = fit_rerun_to_world(src, sw, 6, 1);
  EXPECT_EQ(line, std::string("--rerun: run ") + kId +
                      " had 8 ranks on 2 nodes; this job has 6 ranks on 1 node: the sweep "
                      "follows this job; its --ranks 1,2,4,8 becomes 1,2,4,6");
  EXPECT_EQ(sw.ranks, (std::vector<int>{1, 2, 4, 6}));
  sw.ranks = {1, 2, 4, 8};
  fit_rerun_to_world(src, sw, 4, 2);
  EXPECT_EQ(sw.ranks, (std::vector<int>{1, 2, 4}));
  sw.ranks = {16, 32};
  fit_rerun_to_world(src, sw, 4, 1);
  EXPECT_EQ(sw.ranks, (std::vector<int>{4}));

  SweepSpec s2;
  s2.sweep_min = 8;
  s2.sweep_max = 16;
  EXPECT_NE(fit_rerun_to_world(src, s2, 4, 1).find("its --sweep 8:16 becomes 4:4"),
            std::string::npos);
  EXPECT_EQ(s2.sweep_min, 4);
  EXPECT_EQ(s2.sweep_max, 4);
  SweepSpec s3;  // 1:8 is capped by the sweep itself
  s3.sweep_max = 8;
  EXPECT_EQ(fit_rerun_to_world(src, s3, 4, 1).find("its"), std::string::npos);
  EXPECT_EQ(s3.sweep_max, 8);

  // The command line's sweep is never capped; an ordinary run has no line.
  RerunSource given{kId, 8, 2, false, true};
  SweepSpec s4;
  s4.ranks = {1, 8};
  EXPECT_NE(fit_rerun_to_world(given, s4, 4, 1).find("follows the command line"),
            std::string::npos);
  EXPECT_EQ(s4.ranks, (std::vector<int>{1, 8}));
  EXPECT_EQ(fit_rerun_to_world(RerunSource{}, s4, 4, 1), "");
}

TEST(Rerun, ShowTextIsAPreset) {
  RunRecord rec;
  rec.run_id = kId;
  rec.config_toml = "dir=\"/data\"\nlabel=\"a b\"\n";
  rec.argv = "iosweep run --dir /data";
  rec.label = "a\nb";
  rec.status = "complete";
  rec.t_start_unix_ns = 1796053307684345564ull;
  rec.world_size = 3;
  rec.n_nodes = 2;
  rec.hosts = {"h0", "h1"};
  rec.rank_map = {{0, 0, 0, 0, 0}, {1, 1, 0, 1, 0}, {2, 0, 1, 2, 0}};
  const std::string t = show_text(rec, "r.h5");
  EXPECT_NE(t.find(std::string("# iosweep run ") + kId + " of r.h5\n"), std::string::npos) << t;
  EXPECT_NE(t.find("# started 2026-11-30T15:41:47.684Z; 3 ranks on 2 nodes; complete\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("# label: a\\nb\n"), std::string::npos) << t;
  EXPECT_NE(t.find("# placement: node 0 host h0 ranks 0,2\n"), std::string::npos) << t;
  EXPECT_NE(t.find("# placement: node 1 host h1 ranks 1\n"), std::string::npos) << t;
  EXPECT_TRUE(t.ends_with("\n" + rec.config_toml)) << t;
  // Every line before the configuration is a comment.
  const std::string head = t.substr(0, t.size() - rec.config_toml.size());
  for (std::size_t at = 0; at < head.size(); at = head.find('\n', at) + 1)
    EXPECT_EQ(head[at], '#') << head.substr(at);
}
