// Engine round trips over every engine of the engine table (and the read-ahead engine the posix
// row builds for overlapped reads), on a temporary folder: write, read back, verify; short
// reads at end of file; more records than the queue depth through the driver; failures named;
// symbolic links and existing files refused; O_DIRECT where the engine and the folder allow it.
// MPI is initialised by this binary's main (mpi_main.cpp), so the MPI-IO engine runs here too.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <random>
#include <set>

#include "core/aligned_buffer.hpp"
#include "core/errors.hpp"
#include "core/pattern.hpp"
#include "engines/engine_table.hpp"
#include "os/file_ops.hpp"
#include "phases/io_driver.hpp"

using namespace iosweep;
namespace fs = std::filesystem;

namespace {

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/var/tmp/iosweep-unit-XXXXXX";  // disk-backed, so O_DIRECT is possible
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct Param {
  EngineId engine;
  EngineUse use;
  unsigned depth;
  bool direct;
};

std::string name_of(const Param& p) {
  std::string n = engine_desc(p.engine).name;
  if (p.use == EngineUse::overlap) n += "_overlap";
  n += "_qd" + std::to_string(p.depth);
  if (p.direct) n += "_direct";
  return n;
}

void PrintTo(const Param& p, std::ostream* os) {
  *os << name_of(p);
}

// Every row of the table: depth 1, its own depth when it takes one, O_DIRECT when it takes it,
// and the overlapped-read variant (posix's read-ahead threads).
std::vector<Param> every_engine() {
  std::vector<Param> out;
  for (const auto& e : engine_descs()) {
    const unsigned deep = (e.takes & kTakesDepth) ? 8 : 1;
    out.push_back({e.id, EngineUse::io, 1, false});
    if (deep > 1) out.push_back({e.id, EngineUse::io, deep, false});
    if (e.takes & kTakesDirect) out.push_back({e.id, EngineUse::io, deep, true});
    out.push_back({e.id, EngineUse::overlap, deep > 1 ? deep : 1, false});
  }
  return out;
}

class EngineRoundTrip : public testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    const Param p = GetParam();
    row_ = &engine_desc(p.engine);
    if (!row_->compiled) GTEST_SKIP() << row_->name << " is not compiled into this build";
    if (p.direct) {
      std::uint64_t align = 0;
      const std::string why = fsops::probe_direct(dir_.path(), align);
      if (!why.empty()) GTEST_SKIP() << "no O_DIRECT here: " << why;
    }
    opts_.engine = p.engine;
    opts_.iodepth = p.depth;
    opts_.direct = p.direct;
    std::string detail;
    if (auto why = probe_engine(opts_, detail); !why.empty()) GTEST_SKIP() << why;
    engine_ = make_engine(opts_, p.use);
  }
  bool moves_data() const { return row_->moves_data; }

  TempDir dir_;
  const EngineDesc* row_ = nullptr;
  EngineOptions opts_;
  std::unique_ptr<Engine> engine_;
};

}  // namespace

TEST_P(EngineRoundTrip, WriteThenReadBackEveryByte) {
  const std::size_t record = 64 * 1024, n = 16;
  AlignedBuffer out(record * n), in(record * n);
  std::mt19937_64 rng(1);
  for (std::size_t i = 0; i < out.size() / 8; ++i)
    reinterpret_cast<std::uint64_t*>(out.data())[i] = rng();
  const std::span<std::byte> bufs[] = {out.span(), in.span()};
  engine_->register_buffers(bufs);
  const std::string path = dir_.path() + "/f";
  const unsigned depth = engine_->depth();
  for (IoOp op : {IoOp::write, IoOp::read}) {
    const int h = engine_->open(path, {op == IoOp::write, op == IoOp::write});
    std::size_t next = 0, inflight = 0, done = 0;
    std::vector<IoCompletion> c(depth);
    while (done < n) {
      std::vector<IoRequest> batch;
      while (next < n && inflight + batch.size() < depth) {
        std::byte* b = (op == IoOp::write ? out.data() : in.data()) + next * record;
        batch.push_back({h, op, next * record, record, b, next});
        ++next;
      }
      engine_->submit(batch);
      inflight += batch.size();
      const std::size_t got = engine_->reap(c, 1);
      ASSERT_GE(got, 1u);
      for (std::size_t i = 0; i < got; ++i)
        ASSERT_EQ(c[i].result, static_cast<std::int64_t>(record));
      inflight -= got;
      done += got;
    }
    if (op == IoOp::write) engine_->sync(h);
    engine_->close(h);
  }
  if (moves_data()) {
    EXPECT_EQ(std::memcmp(out.data(), in.data(), out.size()), 0);
    EXPECT_EQ(fsops::size_of(path), record * n);
  } else {
    EXPECT_EQ(fsops::size_of(path), 0u) << "an engine that moves no data wrote some";
  }
}

TEST_P(EngineRoundTrip, ShortReadAtEndOfFileReportsTheBytesThere) {
  if (!moves_data()) GTEST_SKIP() << row_->name << " moves no data: every read is whole";
  const std::string path = dir_.path() + "/short";
  {
    const int fd = ::open(path.c_str(), O_CREAT | O_WRONLY, 0644);
    std::vector<char> b(12288, 'x');
    ASSERT_EQ(::write(fd, b.data(), b.size()), 12288);
    ::close(fd);
  }
  AlignedBuffer buf(16384);
  const std::span<std::byte> bufs[] = {buf.span()};
  engine_->register_buffers(bufs);
  const int h = engine_->open(path, {false, false});
  const IoRequest r{h, IoOp::read, 0, 16384, buf.data(), 7};
  engine_->submit({&r, 1});
  std::vector<IoCompletion> c(engine_->depth());
  ASSERT_EQ(engine_->reap(c, 1), 1u);
  EXPECT_EQ(c[0].tag, 7u);
  EXPECT_EQ(c[0].result, 12288);
  engine_->close(h);
}

TEST_P(EngineRoundTrip, DriverKeepsDepthWithMoreRecordsThanDepth) {
  const DataSpec spec{1, 0x42, 1000};
  const std::size_t record = 16384;
  const std::uint64_t n = 96;
  PatternBuffer src(spec, 0, record, engine_->depth());
  AlignedBuffer reads(read_buffer_bytes(*engine_, record, true));
  const std::span<std::byte> bufs[] = {src.memory(), reads.span()};
  engine_->register_buffers(bufs);
  const std::string path = dir_.path() + "/drv";
  const RecordOrder order = RecordOrder::shuffled(n, 3);
  DriverJob w = write_job(*engine_, path, record, order, src);
  LatencyHistogram lat;
  w.latency = &lat;
  w.file = engine_->open(path, {true, true});
  const DriverResult wr = run_driver(w);
  engine_->close(w.file);
  EXPECT_EQ(wr.ops, n);
  EXPECT_EQ(lat.count(), n);

  std::uint64_t bad = 0, seen = 0;
  DriverJob r = read_job(*engine_, path, record, order, reads.span(),
                         [&](const std::byte* p, std::uint64_t off, std::size_t len) {
                           bad += verify_blocks(spec, 0, off, {p, len}, nullptr);
                           ++seen;
                         });
  r.file = engine_->open(path, {false, false});
  const DriverResult rr = run_driver(r);
  engine_->close(r.file);
  EXPECT_EQ(rr.bytes, n * record);
  EXPECT_EQ(seen, n);
  if (moves_data()) {
    EXPECT_EQ(bad, 0u);
  }
}

TEST_P(EngineRoundTrip, FailedWriteNamesFileOffsetAndErrno) {
  if (!moves_data()) GTEST_SKIP() << row_->name << " moves no data: a write cannot fail";
  const std::string path = dir_.path() + "/ro";
  {
    const int fd = ::open(path.c_str(), O_CREAT | O_WRONLY, 0644);
    ::close(fd);
  }
  const RecordOrder order = RecordOrder::sequential(1);
  PatternBuffer src(DataSpec{}, 0, 4096, engine_->depth());
  DriverJob j = write_job(*engine_, path, 4096, order, src);
  j.file = engine_->open(path, {false, false});  // opened read-only
  try {
    run_driver(j);
    FAIL() << "writing to a read-only file succeeded";
  } catch (const IoError& e) {
    // The descriptor engines see EBADF; MPI-IO reports its own access error class.
    EXPECT_TRUE(e.err() == EBADF || e.err() == EACCES) << e.what();
    EXPECT_EQ(e.path(), path);
    EXPECT_EQ(e.offset().value_or(~0ull), 0u);
    EXPECT_NE(std::string(e.what()).find(errno_name(e.err())), std::string::npos);
  }
  engine_->close(j.file);
}

TEST_P(EngineRoundTrip, RefusesToFollowASymlinkOrTakeAnExistingFile) {
  const std::string target = dir_.path() + "/target", link = dir_.path() + "/link";
  {
    const int fd = ::open(target.c_str(), O_CREAT | O_WRONLY, 0644);
    ::close(fd);
  }
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  EXPECT_THROW(engine_->open(link, {false, false}), IoError);
  EXPECT_THROW(engine_->open(link, {true, true}), IoError);
  EXPECT_THROW(engine_->open(target, {true, true}), IoError);  // O_EXCL: never takes over a file
}

INSTANTIATE_TEST_SUITE_P(Engines, EngineRoundTrip, testing::ValuesIn(every_engine()),
                         [](const testing::TestParamInfo<Param>& p) { return name_of(p.param); });

TEST(EngineTable, IdsAndNamesAreUniqueAndEveryRowIsComplete) {
  std::set<int> ids;
  std::set<std::string> names;
  for (const auto& e : engine_descs()) {
    EXPECT_TRUE(ids.insert(e.id).second) << e.name;
    EXPECT_TRUE(names.insert(e.name).second) << e.name;
    EXPECT_STRNE(e.help, "");
    EXPECT_EQ(find_engine_desc(e.name), &e);
    // The behaviour row of the same id: built exactly when the description says compiled.
    EXPECT_EQ(engine_row(e.id).make != nullptr, e.compiled) << e.name;
  }
  EXPECT_EQ(engine_table().size(), engine_descs().size());
  EXPECT_EQ(find_engine_desc("aio"), nullptr);
}

TEST(EngineTable, OptionsAnEngineDoesNotTakeAreRefusedNamingTheOption) {
  Workload w;
  EngineOptions io;
  io.engine = find_engine_desc("posix")->id;
  io.iodepth = 8;
  EXPECT_NE(check_engine_options(w, io).find("--iodepth"), std::string::npos);
  io.iodepth = 1;
  io.sqpoll = true;
  EXPECT_NE(check_engine_options(w, io).find("--sqpoll"), std::string::npos);
  io.sqpoll = false;
  io.mpiio_hints = {{"a", "b"}};
  EXPECT_NE(check_engine_options(w, io).find("--mpiio-hint"), std::string::npos);
  io.mpiio_hints.clear();
  EXPECT_EQ(check_engine_options(w, io), "");
  io.engine = find_engine_desc("null")->id;
  w.verify = true;
  EXPECT_NE(check_engine_options(w, io).find("--verify"), std::string::npos);
}

TEST(EngineTable, ReadaheadEngineNamesItselfAndMpiioRecordsItsHints) {
  EngineOptions io;
  io.engine = find_engine_desc("posix")->id;
  EXPECT_STREQ(make_engine(io, EngineUse::overlap)->name(), "posix-readahead");
  EXPECT_STREQ(make_engine(io, EngineUse::io)->name(), "posix");
  const EngineDesc* mpiio = find_engine_desc("mpiio");
  if (!mpiio->compiled) GTEST_SKIP() << "mpiio is not compiled into this build";
  io.engine = mpiio->id;
  io.mpiio_hints = {{"romio_cb_write", "disable"}};
  EXPECT_NE(make_engine(io)->detail().find("romio_cb_write=disable"), std::string::npos);
}
