// Rank 0's record keeping (sweep/recorder): a filter-count whose scan-only control runs after
// it is held and written right after the control, with its efficiency; ratios come only from
// the same ranks and repetition; a held point is still written when the run stops; a wrong
// count, a bad block or a failed write stops the run with a message naming rank, host and file.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "sweep/recorder.hpp"

using namespace iosweep;

namespace {

// The recorder's output: every point appended, in order (a writer of the ResultWriter contract).
class Appended final : public ResultWriter {
 public:
  std::vector<SummaryRow> rows;
  std::string fail;  // non-empty: append_point throws this
  void begin_run(const RunContext&) override {}
  void append_point(const PointResult& p, const LatencyHistogram&) override {
    if (!fail.empty()) throw std::runtime_error(fail);
    rows.push_back(p.summary);
  }
  void end_run(RunStatus, const std::string&) override {}
};

// A point of `phase` in which each rank moved 1 MiB in `elapsed_s` (the same for all ranks) and
// counted what it should have.
PointInput point(PhaseId phase, double elapsed_s, int ranks = 1) {
  PointInput in;
  in.phase = phase;
  in.ranks = ranks;
  for (int r = 0; r < ranks; ++r) {
    RankSample s;
    s.rank = s.position = s.file = r;
    s.node = 0;
    s.bytes = 1 << 20;
    s.ops = 1;
    s.elapsed_s = elapsed_s;
    if (phase_desc(phase).counts()) s.matches = s.expected_matches = 4;
    in.total_matches += s.matches;
    in.samples.push_back(s);
  }
  return in;
}

class Recorder : public ::testing::Test {
 protected:
  std::string record(PhaseId phase, const PointInput& in) {
    return recorder.record(phase_row(phase), in, "posix depth 1");
  }
  std::vector<std::string> written() const {
    std::vector<std::string> names;
    for (const auto& r : out.rows)
      names.emplace_back(phase_desc(r.phase).name);
    return names;
  }

  Appended out;
  PointRecorder recorder{
      out, [](const RankSample& r) { return "rank " + std::to_string(r.rank) + " (host h1)"; },
      [](int position) { return "/scratch/iosweep.R." + std::to_string(position); }};
};

using Names = std::vector<std::string>;

}  // namespace

TEST_F(Recorder, AFilterCountAfterItsControlIsWrittenAtOnceWithItsEfficiency) {
  recorder.begin({kScanOnly, kFilterCount});
  EXPECT_EQ(record(kScanOnly, point(kScanOnly, 2.0)), "");
  EXPECT_EQ(written(), (Names{"scan-only"}));
  EXPECT_EQ(record(kFilterCount, point(kFilterCount, 4.0)), "");
  ASSERT_EQ(written(), (Names{"scan-only", "filter-count"}));
  EXPECT_DOUBLE_EQ(out.rows[1].filter_efficiency, 0.5);  // half the control's bandwidth
  EXPECT_EQ(out.rows[0].point, 0u);
  EXPECT_EQ(out.rows[1].point, 1u);
}

TEST_F(Recorder, AFilterCountBeforeItsControlIsHeldAndWrittenRightAfterIt) {
  // Odd repetitions run the control after the phase it is for.
  recorder.begin({kFilterCount, kScanOnly});
  EXPECT_EQ(record(kFilterCount, point(kFilterCount, 4.0)), "");
  EXPECT_TRUE(out.rows.empty()) << "its efficiency is not known yet";
  EXPECT_EQ(record(kScanOnly, point(kScanOnly, 1.0)), "");
  ASSERT_EQ(written(), (Names{"scan-only", "filter-count"}));
  EXPECT_DOUBLE_EQ(out.rows[1].filter_efficiency, 0.25);
  // Point indices follow the order in which points are written.
  EXPECT_EQ(out.rows[0].point, 0u);
  EXPECT_EQ(out.rows[1].point, 1u);
}

TEST_F(Recorder, RatiosComeOnlyFromTheSameRanksAndRepetition) {
  recorder.begin({kSeqRead, kScanOnly, kFilterCount});
  record(kSeqRead, point(kSeqRead, 1.0));
  record(kScanOnly, point(kScanOnly, 2.0));
  record(kFilterCount, point(kFilterCount, 4.0));
  EXPECT_DOUBLE_EQ(out.rows[2].filter_vs_seq_read, 0.25);
  EXPECT_DOUBLE_EQ(out.rows[2].filter_efficiency, 0.5);
  // The next repetition has no seq-read: no ratio to the last one's, and its own control.
  recorder.begin({kScanOnly, kFilterCount});
  record(kScanOnly, point(kScanOnly, 4.0));
  record(kFilterCount, point(kFilterCount, 4.0));
  ASSERT_EQ(out.rows.size(), 5u);
  EXPECT_TRUE(std::isnan(out.rows[4].filter_vs_seq_read));
  EXPECT_DOUBLE_EQ(out.rows[4].filter_efficiency, 1.0);
  EXPECT_EQ(out.rows[4].point, 4u);
}

TEST_F(Recorder, AHeldPointIsWrittenWithoutItsControlWhenTheRunStops) {
  recorder.begin({kFilterCount, kScanOnly});
  record(kFilterCount, point(kFilterCount, 4.0));
  EXPECT_EQ(recorder.flush(), "");
  ASSERT_EQ(written(), (Names{"filter-count"}));
  EXPECT_TRUE(std::isnan(out.rows[0].filter_efficiency));  // never a ratio to nothing
  EXPECT_EQ(out.rows[0].point, 0u);
  EXPECT_EQ(recorder.flush(), "");  // nothing held any more
  EXPECT_EQ(out.rows.size(), 1u);
}

TEST_F(Recorder, AWrongCountNamesEveryRankThatMissedAndIsWrittenAtOnce) {
  recorder.begin({kFilterCount, kScanOnly});
  PointInput in = point(kFilterCount, 1.0, 3);
  in.samples[1].matches = 3;
  in.total_matches = 11;
  EXPECT_EQ(record(kFilterCount, in),
            "filter-count: 11 matches in total, expected exactly 12\n"
            "  rank 1 (host h1) counted 3 in /scratch/iosweep.R.1, expected 4");
  // The run stops here: the point is not held for a control that will not run.
  EXPECT_EQ(written(), (Names{"filter-count"}));
}

TEST_F(Recorder, AnEngineThatMovesNoDataHasNoCountToCheck) {
  recorder.begin({kScanOnly, kFilterCount});
  PointInput in = point(kFilterCount, 1.0);
  in.engine = kNullEngine;
  in.samples[0].matches = 0;
  in.total_matches = 0;
  EXPECT_EQ(record(kFilterCount, in), "");
}

TEST_F(Recorder, VerifyNamesTheFirstMismatchOfEveryBadRank) {
  recorder.begin({kSeqRead});
  PointInput in = point(kSeqRead, 1.0, 2);
  in.samples[1].bad_blocks = 2;
  in.samples[1].mismatch_offset = 5255304;
  in.samples[1].mismatch_expected = 0x0123456789abcdefULL;
  in.samples[1].mismatch_found = 0xfedcba9876543210ULL;
  EXPECT_EQ(record(kSeqRead, in),
            "--verify: 2 bad 4 KiB block(s) in seq-read\n"
            "  rank 1 (host h1): 2 bad block(s) in /scratch/iosweep.R.1; first mismatch at offset "
            "5255304: expected 0x0123456789abcdef, found 0xfedcba9876543210");
  ASSERT_EQ(out.rows.size(), 1u);  // the point is kept in the results
  EXPECT_EQ(out.rows[0].bad_blocks, 2u);
}

TEST_F(Recorder, AWriteThatFailsStopsTheRunWithItsReason) {
  recorder.begin({kSeqWrite});
  out.fail = "no space left on the results file system";
  EXPECT_EQ(record(kSeqWrite, point(kSeqWrite, 1.0)),
            "writing the results failed: no space left on the results file system");
}
