// The sweep plan (sweep/plan): which points run for --ranks, --sweep and --streams against the
// world size, and the refusals that name their option; run ids; what rank 0 moves; the
// --dry-run table's arithmetic.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "sweep/plan.hpp"

using namespace iosweep;

namespace {

// The points of an accepted plan as (ranks, depth per rank).
std::vector<std::pair<int, unsigned>> points_of(const SweepSpec& spec, int world,
                                                unsigned iodepth = 1) {
  std::vector<SweepPoint> points;
  EXPECT_EQ(resolve_points(spec, iodepth, world, points), "");
  std::vector<std::pair<int, unsigned>> out;
  out.reserve(points.size());
  for (const auto& p : points)
    out.emplace_back(p.ranks, p.per_rank.depth);
  return out;
}

// Why a plan is refused; the points it leaves must be none.
std::string refusal(const SweepSpec& spec, int world) {
  std::vector<SweepPoint> points{SweepPoint{}};
  std::string why = resolve_points(spec, 1, world, points);
  EXPECT_TRUE(points.empty()) << "a refused plan keeps no point";
  return why;
}

SweepSpec sweep(int min, int max) {
  SweepSpec s;
  s.sweep_min = min;
  s.sweep_max = max;
  return s;
}

using P = std::vector<std::pair<int, unsigned>>;

}  // namespace

TEST(Plan, SweepIsMinThePowersOfTwoAboveItAndTheCap) {
  EXPECT_EQ(points_of(sweep(1, 0), 8), (P{{1, 1}, {2, 1}, {4, 1}, {8, 1}}));  // the default
  EXPECT_EQ(points_of(sweep(1, 0), 6), (P{{1, 1}, {2, 1}, {4, 1}, {6, 1}}));
  EXPECT_EQ(points_of(sweep(3, 0), 8), (P{{3, 1}, {4, 1}, {8, 1}}));
  EXPECT_EQ(points_of(sweep(4, 0), 8), (P{{4, 1}, {8, 1}}));  // MIN, a power of two, once
  EXPECT_EQ(points_of(sweep(5, 0), 8), (P{{5, 1}, {8, 1}}));
  EXPECT_EQ(points_of(sweep(1, 6), 8), (P{{1, 1}, {2, 1}, {4, 1}, {6, 1}}));
  EXPECT_EQ(points_of(sweep(2, 2), 8), (P{{2, 1}}));
  EXPECT_EQ(points_of(sweep(1, 0), 1), (P{{1, 1}}));
  // MAX beyond the world is capped at it, as the help says.
  EXPECT_EQ(points_of(sweep(1, 64), 8), (P{{1, 1}, {2, 1}, {4, 1}, {8, 1}}));
  // Every point keeps --iodepth in flight per rank in one stream.
  std::vector<SweepPoint> points;
  ASSERT_EQ(resolve_points(sweep(1, 2), 8, 2, points), "");
  for (const auto& p : points) {
    EXPECT_EQ(p.per_rank.depth, 8u);
    EXPECT_EQ(p.per_rank.regions, 1u);
  }
}

TEST(Plan, SweepRefusalsNameTheOption) {
  EXPECT_EQ(refusal(sweep(0, 0), 4), "--sweep: MIN must be at least 1");
  EXPECT_EQ(refusal(sweep(4, 2), 8), "--sweep: MAX 2 is below MIN 4");
  EXPECT_EQ(refusal(sweep(4, 8), 2),
            "--sweep: MIN 4 is more than the 2 ranks the job was "
            "started with");
}

TEST(Plan, RanksAreTakenAsGivenWithinTheWorld) {
  SweepSpec s;
  s.ranks = {1, 3, 4};
  EXPECT_EQ(points_of(s, 4, 2), (P{{1, 2}, {3, 2}, {4, 2}}));
  // --ranks wins over --sweep's fields.
  s.sweep_min = 2;
  EXPECT_EQ(points_of(s, 4).front().first, 1);
  s.ranks = {0, 1};
  EXPECT_EQ(refusal(s, 4), "--ranks: 0 is not a positive rank count");
  s.ranks = {1, 8};
  EXPECT_EQ(refusal(s, 4), "--ranks: 8 is more than the 4 ranks the job was started with");
  s.ranks = {2, 2};
  EXPECT_EQ(refusal(s, 4), "--ranks: counts must be strictly increasing (2 after 2)");
  s.ranks = {2, 1};
  EXPECT_EQ(refusal(s, 4), "--ranks: counts must be strictly increasing (1 after 2)");
}

TEST(Plan, StreamsAreActiveRanksTimesDepth) {
  SweepSpec s;
  s.streams = {1, 2, 8, 1024};
  std::vector<SweepPoint> points;
  ASSERT_EQ(resolve_points(s, 1, 2, points), "");
  EXPECT_EQ(points_of(s, 2), (P{{1, 1}, {2, 1}, {2, 4}, {2, 512}}));
  for (std::size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(points[i].streams(), s.streams[i]);
    // Sequential phases stream as many regions of each file as requests in flight.
    EXPECT_EQ(points[i].per_rank.regions, points[i].per_rank.depth);
  }
  // --streams wins over --ranks and --iodepth (the options refuse them together).
  s.ranks = {1};
  EXPECT_EQ(points_of(s, 4, 16), (P{{1, 1}, {2, 1}, {4, 2}, {4, 256}}));
}

TEST(Plan, StreamsRefusalsSayWhatWouldWork) {
  SweepSpec s;
  s.streams = {2, 3};
  EXPECT_EQ(refusal(s, 2),
            "--streams: 3 streams do not split evenly over the 2 ranks of the job (each rank "
            "keeps the same depth); give a multiple of 2");
  s.streams = {16384};
  const std::string why = refusal(s, 2);
  EXPECT_TRUE(
      why.starts_with("--streams: 16384 streams over 2 ranks need depth 8192 per rank, "
                      "more than "))
      << why;
  EXPECT_TRUE(why.ends_with("; start more ranks")) << why;
  s.streams = {2 * std::uint64_t{kMaxIodepth}};
  EXPECT_EQ(points_of(s, 2), (P{{2, kMaxIodepth}}));  // the deepest a rank may go
}

TEST(Plan, RunIdsAreUtcStartTimesThatSortAndDiffer) {
  const std::regex shape(R"(^(\d{8}T\d{6})\.\d{3}Z-[0-9a-f]{8}$)");
  const std::time_t before = std::time(nullptr);
  const std::string first = make_run_id();
  std::smatch m;
  ASSERT_TRUE(std::regex_match(first, m, shape)) << first;
  std::tm tm{};
  ASSERT_NE(strptime(m[1].str().c_str(), "%Y%m%dT%H%M%S", &tm), nullptr);
  const std::time_t at = timegm(&tm);
  EXPECT_GE(at, before);  // UTC, this second or the next
  EXPECT_LE(at, std::time(nullptr));
  std::set<std::string> ids{first};
  for (int i = 0; i < 100; ++i)
    ids.insert(make_run_id());
  EXPECT_EQ(ids.size(), 101u) << "32 random bits tell ids of the same millisecond apart";
  EXPECT_LE(first.substr(0, 19), ids.rbegin()->substr(0, 19));  // later runs sort later
}

namespace {

// The plan of one step of `cfg` on `topo`, with a fixed order base.
RunPlan plan_of(const Config& cfg, const Topology& topo, std::uint64_t base = 7) {
  RunPlan plan;
  EXPECT_EQ(plan_run({StepInput{"", cfg, "", "", ""}}, topo, base, plan), "");
  return plan;
}

std::string printed(const RunPlan& plan, const Topology& topo) {
  char* text = nullptr;
  std::size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  EXPECT_NE(out, nullptr);
  print_plan(out, plan, topo);
  std::fclose(out);
  std::string s(text, size);
  std::free(text);
  return s;
}

Config data_config() {
  Config cfg;
  cfg.work.dirs = {"/scratch/u1"};
  cfg.work.file_size = 4 << 20;
  cfg.work.seq_record = cfg.work.rand_record = cfg.work.scan_record = 1 << 20;
  cfg.work.phases = {kSeqWrite, kSeqRead};
  cfg.report.output = "r.h5";
  return cfg;
}

}  // namespace

TEST(Plan, RankZeroMovesItsFileOncePerPhasePointAndRepetition) {
  Config cfg = data_config();
  cfg.work.phases = {kSeqWrite, kSeqRead, kScanOnly, kFilterCount};
  cfg.sweep.repetitions = 2;
  cfg.sweep.ranks = {1, 4};
  const Topology topo = compute_topology({"h1", "h1", "h2", "h2"}, Placement::spread);
  // Whatever a point's ranks or depth: rank 0 moves its own file (or region) once per phase.
  EXPECT_EQ(plan_of(cfg, topo).bytes_of_rank0(), 2u * 2 * 4 * (4 << 20));
}

TEST(Plan, EveryPhaseIsDecidedOnceAndNumberedInRunningOrder) {
  Config cfg = data_config();
  cfg.work.phases = {kSeqWrite, kSeqRead, kRandRead, kScanOnly, kFilterCount};
  cfg.io.iodepth = 8;
  cfg.io.iodepth_batch = 4;
  cfg.sweep.repetitions = 2;
  cfg.sweep.ranks = {1, 2};
  const Topology topo = compute_topology({"h1", "h2"}, Placement::spread);
  const RunPlan plan = plan_of(cfg, topo);
  ASSERT_EQ(plan.steps.size(), 1u);
  ASSERT_EQ(plan.points(), 2u);
  std::uint32_t row = 0;
  for (const PointPlan& p : plan.steps[0].points) {
    ASSERT_EQ(p.reps.size(), 2u);
    // Odd repetitions run a control right after the phase it is the baseline of.
    EXPECT_EQ(p.reps[0][3].phase, kScanOnly);
    EXPECT_EQ(p.reps[1][3].phase, kFilterCount);
    for (const auto& rep : p.reps)
      for (const PhasePlan& ph : rep) {
        EXPECT_EQ(ph.row, row++);
        EXPECT_EQ(ph.point_depth, 8u);
        EXPECT_LE(ph.batch, ph.depth);
        EXPECT_EQ(ph.order_seed, rep.front().order_seed) << "one seed per point and repetition";
        EXPECT_GT(ph.buffer_bytes, 0u);
      }
    // A 4 MiB file of 1 MiB records keeps at most 4 in flight; filter-count overlaps its own
    // counting with at least two reads.
    EXPECT_EQ(p.reps[0][0].depth, 4u);
    EXPECT_EQ(p.reps[0][2].depth, 4u);
    EXPECT_GE(p.reps[0][4].depth, 2u);
    EXPECT_NE(p.reps[0][0].order_seed, p.reps[1][0].order_seed);
  }
  // Two ranks on two nodes: --read-shift 0 keeps every read on its own rank.
  EXPECT_EQ(plan.steps[0].points[1].data_shift, 0);
  EXPECT_EQ(plan.steps[0].points[1].md_shift, 1) << "metadata lookups go to the other node";
}

TEST(Plan, PackedPlanReadsBackTheSameWithEachRanksConfigurations) {
  Config cfg = data_config();
  cfg.work.phases = {kSeqWrite, kMdCreate, kMdStat};
  cfg.work.md.items = 100;
  cfg.sweep.ranks = {1, 2};
  const Topology topo = compute_topology({"h1", "h2"}, Placement::spread);
  RunPlan plan;
  ASSERT_EQ(
      plan_run({StepInput{"a", cfg, "x = 1\n", "over", "a"}, StepInput{"b", cfg, "y", "", "b"}},
               topo, 9, plan),
      "");
  const std::vector<char> bytes = pack_plan(plan);
  const RunPlan back = unpack_plan(bytes, {cfg, cfg});
  EXPECT_EQ(pack_plan(back), bytes);
  EXPECT_EQ(back.steps[0].name, "a");
  EXPECT_EQ(back.steps[0].overrides, "over");
  EXPECT_EQ(back.steps[1].points.front().index, 2u) << "points are numbered over the run";
  EXPECT_EQ(back.steps[1].points.back().reps[0][2].md.items(), 200u);
  EXPECT_THROW(unpack_plan(bytes, {cfg}), std::runtime_error);
  EXPECT_THROW(unpack_plan(std::vector<char>(bytes.begin(), bytes.end() - 1), {cfg, cfg}),
               std::runtime_error);
}

TEST(Plan, APointsDataFilesAndMetadataItemsAreCountedTogether) {
  Config cfg = data_config();
  cfg.work.phases = {kSeqWrite, kMdCreate};
  cfg.work.md.items = 10;
  cfg.work.md.write_bytes = 100;
  cfg.sweep.ranks = {2};
  const Topology topo = compute_topology({"h1", "h2"}, Placement::spread);
  const RunPlan plan = plan_of(cfg, topo);
  const PointFootprint f = footprint_of(plan.steps[0], plan.steps[0].points[0]);
  ASSERT_EQ(f.bytes_of.size(), 2u);
  // Each rank: its 4 MiB file and its 10 items of one 4 KiB block each.
  EXPECT_EQ(f.bytes_of[1], (4u << 20) + 10 * 4096);
  // Each rank's file, its items and its tree's folders; position 0 also the run's and the
  // point's own folders.
  const std::uint64_t tree = plan.steps[0].points[0].reps[0][1].md.layout.folder_ops(1);
  EXPECT_EQ(f.inodes_of[1], 1 + 10 + tree);
  EXPECT_EQ(f.inodes_of[0], f.inodes_of[1] + 2);
}

TEST(Plan, DryRunTableAddsUpWhatEachPointMoves) {
  const Config cfg = data_config();
  const Topology topo = compute_topology({"h1", "h1", "h2", "h2"}, Placement::spread);
  const std::string plan = printed(plan_of(cfg, topo), topo);
  EXPECT_TRUE(plan.starts_with("iosweep dry run: nothing is created, written or removed.\n"));
  // ranks, nodes (spread: the second rank on the other node), files, bytes/phase, bytes/point
  const std::regex row(R"( +(\d+) +(\d+) +(\d+) +(\d+ MiB) +(\d+ MiB))");
  std::vector<std::string> rows;
  std::istringstream lines(plan);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_match(line, m, row))
      rows.push_back(m[1].str() + " " + m[2].str() + " " + m[3].str() + " " + m[4].str() + " " +
                     m[5].str());
  }
  EXPECT_EQ(rows, (std::vector<std::string>{"1 1 1 4 MiB 8 MiB", "2 2 2 8 MiB 16 MiB",
                                            "4 2 4 16 MiB 32 MiB"}))
      << plan;
  EXPECT_NE(plan.find("  total: 3 point(s), 56 MiB moved; largest footprint 16 MiB on disk\n"),
            std::string::npos)
      << plan;
  // Every phase as planned: seq-write at 4 ranks keeps depth 1 of 1 asked, 1 MiB records.
  EXPECT_NE(plan.find("     2      4 seq-write           1      1      1 MiB"), std::string::npos)
      << plan;
}

TEST(Plan, DryRunOfMetadataPhasesListsEachPointsItemsAndTrees) {
  Config cfg = data_config();
  cfg.work.phases = {kMdCreate, kMdStat};
  cfg.work.md.items_total = 4096;
  cfg.work.md.per_folder = 256;
  cfg.work.md.depth = 1;
  const Topology topo = compute_topology({"h1", "h1", "h2", "h2"}, Placement::spread);
  const std::string plan = printed(plan_of(cfg, topo), topo);
  EXPECT_EQ(plan.find("bytes/phase"), std::string::npos) << "no data files in this run";
  // 4096 items over 1, 2, 4 ranks at 256 per folder: 16, 8, 4 leaves below each tree's top.
  for (const char* row : {"     1        1         4096       16         17\n",
                          "     2        2         4096        8         18\n",
                          "     4        4         4096        4         20\n"})
    EXPECT_NE(plan.find(row), std::string::npos) << row << plan;
}

TEST(Plan, APointWhoseItemsDoNotFitIsRefusedWithTheStepsName) {
  Config cfg = data_config();
  cfg.work.phases = {kMdCreate};
  cfg.work.md.items = 1000;
  cfg.work.md.per_folder = 10;
  const Topology topo = compute_topology({"h1"}, Placement::spread);
  RunPlan plan;
  const std::string why = plan_run({StepInput{"tiny", cfg, "", "", "tiny"}}, topo, 1, plan);
  EXPECT_TRUE(why.starts_with("step 'tiny': --md-items-per-folder: ")) << why;
}
