// Metadata requests through every engine of the table that takes them (posix, io_uring at
// depth, null), driven by the metadata loop: folders made parents first and removed children
// first at any depth, items created with their bytes and fsync, looked up, read back and
// removed; failures named by item, call and errno; no symbolic link followed, no existing name
// taken. Runs in the engine suite's binary, whose main initialises MPI.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/aligned_buffer.hpp"
#include "core/errors.hpp"
#include "core/md_shape.hpp"
#include "engines/engine_table.hpp"
#include "os/item_ops.hpp"
#include "phases/md_driver.hpp"

using namespace iosweep;
namespace fs = std::filesystem;

namespace {

struct MdParam {
  EngineId engine;
  unsigned depth;
};

std::string md_name(const testing::TestParamInfo<MdParam>& p) {
  return std::string(engine_desc(p.param.engine).name) + "_qd" + std::to_string(p.param.depth);
}

void PrintTo(const MdParam& p, std::ostream* os) {
  *os << engine_desc(p.engine).name << "_qd" << p.depth;
}

std::vector<MdParam> metadata_engines() {
  std::vector<MdParam> out;
  for (const auto& e : engine_descs()) {
    if (!(e.takes & kTakesMetadata)) continue;
    out.push_back({e.id, 1});
    if (e.takes & kTakesDepth) out.push_back({e.id, 8});
  }
  return out;
}

class MdRoundTrip : public testing::TestWithParam<MdParam> {
 protected:
  void SetUp() override {
    char tmpl[] = "/var/tmp/iosweep-md-unit-XXXXXX";
    dir_ = mkdtemp(tmpl);
    const EngineDesc& d = engine_desc(GetParam().engine);
    if (!d.compiled) GTEST_SKIP() << d.name << " is not compiled into this build";
    real_ = d.moves_data;
    opts_.engine = d.id;
    opts_.iodepth = GetParam().depth;
    std::string detail;
    if (auto why = probe_engine(opts_, detail); !why.empty()) GTEST_SKIP() << why;
    engine_ = make_engine(opts_, EngineUse::metadata);
    folders_ = {{fsops::open_folder(dir_), dir_}};
    layout_.tree = {.depth = 1, .branch = 3, .leaf_only = true};
    layout_.streams = engine_->depth();
  }
  void TearDown() override {
    for (const auto& f : folders_)
      ::close(f.fd);
    fs::remove_all(dir_);
  }
  // One pass of the loop over `names` [0, n).
  MdResult pass(IoOp op, const MdNames& names, std::size_t bytes = 0,
                const std::vector<std::uint64_t>* needs = nullptr,
                std::span<std::byte> reads = {}) {
    MdJob j;
    j.engine = engine_.get();
    j.folders = &folders_;
    j.beneath = beneath_;
    j.op = op;
    j.names = &names;
    j.end = names.size();
    j.bytes = bytes;
    j.source = source_;
    j.read_buffers = reads;
    j.sync = op == IoOp::create;
    j.needs = needs;
    return run_md(j);
  }

  std::string dir_;
  bool real_ = true;
  EngineOptions opts_;
  std::unique_ptr<Engine> engine_;
  std::vector<MdFolder> folders_;  // the test's folder: every name is relative to it
  bool beneath_ = false;           // names resolved by openat2
  MdLayout layout_;
  std::byte source_[100]{};
};

}  // namespace

TEST_P(MdRoundTrip, TreeAndItemsMadeLookedUpReadAndRemoved) {
  for (std::size_t i = 0; i < sizeof source_; ++i)
    source_[i] = static_cast<std::byte>(i * 7 + 1);
  const std::uint64_t folders = layout_.folder_ops(0), items = 40;
  MdNames made, removed, names;
  std::vector<std::uint64_t> make_needs, remove_needs;
  for (std::uint64_t o = 0; o < folders; ++o) {
    made.add([&](std::string& s) { layout_.append_folder_op(0, o, s); });
    make_needs.push_back(layout_.make_needs(o));
    removed.add([&](std::string& s) { layout_.append_folder_op(0, folders - 1 - o, s); });
    remove_needs.push_back(layout_.remove_needs(0, o));
  }
  for (std::uint64_t o = 0; o < items; ++o)
    names.add([&](std::string& s) { layout_.append_item_op(0, items, o, s); });

  EXPECT_EQ(pass(IoOp::mkdir, made, 0, &make_needs).ops, folders);
  EXPECT_EQ(fs::exists(dir_ + "/" + made[folders - 1]), real_);
  const MdResult created = pass(IoOp::create, names, sizeof source_);
  EXPECT_EQ(created.ops, items);
  EXPECT_EQ(created.bytes, items * sizeof source_);
  if (real_) {
    EXPECT_EQ(fs::file_size(dir_ + "/" + names[items - 1]), sizeof source_);
  }
  EXPECT_EQ(pass(IoOp::stat, names).ops, items);
  AlignedBuffer reads(sizeof source_ * engine_->depth());
  EXPECT_EQ(pass(IoOp::read_item, names, sizeof source_, nullptr, reads.span()).ops, items);
  if (real_) {
    EXPECT_EQ(std::memcmp(reads.data(), source_, sizeof source_), 0);
  }
  EXPECT_EQ(pass(IoOp::unlink, names).ops, items);
  EXPECT_EQ(pass(IoOp::rmdir, removed, 0, &remove_needs).ops, folders);
  EXPECT_TRUE(fs::is_empty(dir_)) << "everything made was removed";
}

TEST_P(MdRoundTrip, FailuresNameTheItemTheCallAndErrno) {
  if (!real_) GTEST_SKIP() << "the null engine makes nothing, so nothing can fail";
  MdNames names;
  names.add([](std::string& s) { s += "a"; });
  names.add([](std::string& s) { s += "b"; });
  pass(IoOp::create, names);
  try {
    pass(IoOp::create, names);  // existing names are never taken over
    FAIL() << "an existing item was created again";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("create of " + dir_ + "/a failed"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("EEXIST"), std::string::npos) << e.what();
  }
  MdNames missing;
  missing.add([](std::string& s) { s += "nowhere"; });
  try {
    pass(IoOp::stat, missing);
    FAIL() << "a missing item was found";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("stat of " + dir_ + "/nowhere failed"), std::string::npos);
    EXPECT_EQ(e.err(), ENOENT);
  }
  // A read of more bytes than the item holds comes back short and says so.
  AlignedBuffer reads(64 * engine_->depth());
  try {
    pass(IoOp::read_item, names, 64, nullptr, reads.span());
    FAIL() << "a short read passed";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("read of " + dir_ + "/a"), std::string::npos) << e.what();
  }
}

TEST_P(MdRoundTrip, SymbolicLinksAreNeverFollowed) {
  if (!real_) GTEST_SKIP() << "the null engine opens no item";
  const std::string target = dir_ + "/target";
  std::ofstream(target) << "keep me";
  ASSERT_EQ(::symlink(target.c_str(), (dir_ + "/link").c_str()), 0);
  MdNames link;
  link.add([](std::string& s) { s += "link"; });
  AlignedBuffer reads(4 * engine_->depth());
  EXPECT_THROW(pass(IoOp::read_item, link, 4, nullptr, reads.span()), IoError);  // ELOOP
  EXPECT_THROW(pass(IoOp::create, link), IoError);                               // EEXIST
  pass(IoOp::unlink, link);  // removes the link itself, never what it points to
  EXPECT_FALSE(fs::exists(fs::symlink_status(dir_ + "/link")));
  std::ifstream in(target);
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "keep me");
}

// Where a rank may not hold a descriptor per folder, an item is a path below the set folder and
// its folder is resolved by openat2 without following a link: a folder swapped for a link to
// another folder stops every request with ELOOP, and nothing in the link's target is touched.
TEST_P(MdRoundTrip, PathsResolvedBeneathNeverFollowALink) {
  if (!real_) GTEST_SKIP() << "the null engine opens no item";
  if (!fsops::openat2_available()) GTEST_SKIP() << "this kernel has no openat2 (Linux < 5.6)";
  beneath_ = true;
  fs::create_directories(dir_ + "/real/d0");
  const std::string victim = dir_ + "/victim";
  fs::create_directory(victim);
  std::ofstream(victim + "/f.0.0.0") << "keep me";
  ASSERT_EQ(::symlink(victim.c_str(), (dir_ + "/real/d1").c_str()), 0);
  MdNames good, linked;
  good.add([](std::string& s) { s += "real/d0/f.0.0.0"; });
  linked.add([](std::string& s) { s += "real/d1/f.0.0.0"; });
  EXPECT_EQ(pass(IoOp::create, good, sizeof source_).ops, 1u);
  EXPECT_EQ(pass(IoOp::stat, good).ops, 1u);
  for (IoOp op : {IoOp::stat, IoOp::unlink, IoOp::create}) {
    try {
      pass(op, linked, op == IoOp::create ? sizeof source_ : 0);
      FAIL() << "a path through a symbolic link was followed";
    } catch (const IoError& e) {
      EXPECT_EQ(e.err(), ELOOP) << e.what();
      EXPECT_NE(std::string(e.what()).find(dir_ + "/real/d1/f.0.0.0"), std::string::npos);
    }
  }
  EXPECT_TRUE(fs::exists(victim + "/f.0.0.0"));
  EXPECT_EQ(fs::directory_iterator(victim)->path().filename(), "f.0.0.0");
  EXPECT_EQ(pass(IoOp::unlink, good).ops, 1u);
}

INSTANTIATE_TEST_SUITE_P(Engines, MdRoundTrip, testing::ValuesIn(metadata_engines()), md_name);

TEST(MdEngines, EnginesThatTakeNoMetadataAreRefusedInOneLine) {
  for (const auto& e : engine_descs()) {
    if ((e.takes & kTakesMetadata) || !e.compiled) continue;
    EngineOptions o;
    o.engine = e.id;
    try {
      make_engine(o, EngineUse::metadata);
      FAIL() << e.name << " was built for metadata requests";
    } catch (const UsageError& err) {
      EXPECT_NE(std::string(err.what()).find("--engine"), std::string::npos);
    }
    Workload w;
    w.phases = {kMdCreate};
    EXPECT_NE(check_engine_options(w, o).find("md-create"), std::string::npos) << e.name;
  }
}
