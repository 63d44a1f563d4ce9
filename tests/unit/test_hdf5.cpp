// The HDF5 writer: a run round trip read back through the HDF5 C API, appending a second run,
// and the checks that refuse files iosweep must not touch.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "output/hdf5_file.hpp"
#include "output/hdf5_writer.hpp"

using namespace iosweep;
namespace fs = std::filesystem;

namespace {

struct Fixture {
  std::string dir;
  Config cfg;
  RunPlan plan;
  RunContext ctx;
  Fixture() {
    char tmpl[] = "/tmp/iosweep-h5-XXXXXX";
    dir = mkdtemp(tmpl);
    cfg.work.dirs = {dir};
    cfg.work.file_size = 1 << 20;
    cfg.work.phases = {0};
    cfg.argv = {"iosweep", "run"};
    cfg.config_toml = "dir=\"x\"\n";
    ctx.cfg = &cfg;
    ctx.world_size = 2;
    ctx.topology = compute_topology({"a", "b"}, Placement::spread);
    StepPlan& step = plan.steps.emplace_back();
    step.cfg = cfg;
    for (std::uint32_t k = 1; k <= 2; ++k) {
      PointPlan& p = step.points.emplace_back();
      p.index = k - 1;
      p.point.ranks = static_cast<int>(k);
      PhasePlan ph;
      ph.row = k - 1;
      p.reps.push_back({ph});
    }
    ctx.plan = &plan;
    ctx.dirs = cfg.work.dirs;
    ctx.versions_toml = "iosweep = \"test\"\n";
  }
  ~Fixture() { fs::remove_all(dir); }
};

PointResult point(std::uint32_t i, double bw) {
  PointResult p;
  p.summary.point = i;
  p.summary.phase = 0;
  p.summary.ranks = i + 1;
  p.summary.bandwidth_Bps = bw;
  p.ranks.push_back({});
  p.ranks[0].point = i;
  p.ranks[0].bytes = 4096;
  return p;
}

hsize_t rows(hid_t f, const std::string& path) {
  h5::Handle ds(H5Dopen2(f, path.c_str(), H5P_DEFAULT), H5Dclose);
  h5::Handle sp(H5Dget_space(ds.get()), H5Sclose);
  hsize_t d[2] = {0, 0};
  H5Sget_simple_extent_dims(sp.get(), d, nullptr);
  return d[0];
}

}  // namespace

TEST(Hdf5, RunRoundTripAndSecondRunAppends) {
  Fixture fx;
  const std::string out = fx.dir + "/r.h5";
  LatencyHistogram lat;
  lat.record(1000);
  for (const char* id : {"RUN-A", "RUN-B"}) {
    fx.ctx.run_id = id;
    Hdf5Writer w(out);
    w.begin_run(fx.ctx);
    w.append_point(point(0, 1e9), lat);
    w.append_point(point(1, 2e9), lat);
    w.end_run(RunStatus::complete, "");
  }
  h5::Handle f = h5::open_read_only(out);
  ASSERT_TRUE(f);
  std::string schema;
  ASSERT_TRUE(h5::read_attr(f.get(), "schema", schema));
  EXPECT_EQ(schema, kSchemaName);
  EXPECT_EQ(rows(f.get(), "run_index"), 2u);
  for (const char* id : {"RUN-A", "RUN-B"}) {
    const std::string g = std::string("runs/") + id;
    EXPECT_EQ(rows(f.get(), g + "/summary"), 2u);
    EXPECT_EQ(rows(f.get(), g + "/ranks"), 2u);
    EXPECT_EQ(rows(f.get(), g + "/rank_map"), 2u);
    EXPECT_EQ(rows(f.get(), g + "/latency/counts"), 2u);
  }
  // Read the summary back through the field table.
  h5::Handle ds(H5Dopen2(f.get(), "runs/RUN-A/summary", H5P_DEFAULT), H5Dclose);
  h5::Handle type = h5::compound_type(summary_table());
  SummaryRow back[2];
  ASSERT_GE(H5Dread(ds.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, back), 0);
  EXPECT_DOUBLE_EQ(back[1].bandwidth_Bps, 2e9);
  EXPECT_EQ(back[1].ranks, 2u);
  h5::Handle idx(H5Dopen2(f.get(), "run_index", H5P_DEFAULT), H5Dclose);
  h5::Handle itype = h5::compound_type(run_index_table());
  RunIndexRow ir[2];
  ASSERT_GE(H5Dread(idx.get(), itype.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, ir), 0);
  EXPECT_STREQ(ir[0].run_id, "RUN-A");
  EXPECT_EQ(ir[0].status, static_cast<std::uint8_t>(RunStatus::complete));
  EXPECT_EQ(ir[1].n_points, 2u);
  EXPECT_GT(ir[1].t_end_unix_ns, 0u);
}

TEST(Hdf5, AbortedRunIsMarked) {
  Fixture fx;
  const std::string out = fx.dir + "/a.h5";
  fx.ctx.run_id = "RUN-X";
  Hdf5Writer w(out);
  w.begin_run(fx.ctx);
  w.abort_from_signal("interrupted by SIGTERM");
  h5::Handle f = h5::open_read_only(out);
  h5::Handle g(H5Gopen2(f.get(), "runs/RUN-X", H5P_DEFAULT), H5Gclose);
  std::string msg;
  ASSERT_TRUE(h5::read_attr(g.get(), "status_message", msg));
  EXPECT_EQ(msg, "interrupted by SIGTERM");
}

TEST(Hdf5, CheckRefusesWhatIsNotAnIosweepResultsFile) {
  Fixture fx;
  EXPECT_EQ(h5::check_results_file(fx.dir + "/new.h5"), "");
  EXPECT_NE(h5::check_results_file(fx.dir + "/missing/new.h5").find("does not exist"),
            std::string::npos);
  EXPECT_NE(h5::check_results_file(fx.dir).find("is a folder"), std::string::npos);
  const std::string text = fx.dir + "/notes.txt";
  std::ofstream(text) << "hello\n";
  EXPECT_NE(h5::check_results_file(text).find("not an HDF5 file"), std::string::npos);
  // An HDF5 file of another schema, and one of a newer schema version.
  const std::string other = fx.dir + "/other.h5", newer = fx.dir + "/newer.h5";
  {
    h5::Handle f = h5::open_file(other, true);
    h5::set_attr(f.get(), "schema", std::string("someone.else"));
  }
  {
    h5::Handle f = h5::open_file(newer, true);
    h5::set_attr(f.get(), "schema", std::string(kSchemaName));
    h5::set_attr(f.get(), "schema_version", static_cast<std::int64_t>(kSchemaVersion + 1));
  }
  EXPECT_NE(h5::check_results_file(other).find("another schema"), std::string::npos);
  EXPECT_NE(h5::check_results_file(newer).find("newer"), std::string::npos);
}
