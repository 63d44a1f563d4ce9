// Engine round trips on a temporary folder: write, read back, verify; short reads at end of
// file; more requests than the queue depth through the driver; O_DIRECT where allowed.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <random>

#include "core/aligned_buffer.hpp"
#include "core/errors.hpp"
#include "core/pattern.hpp"
#include "engines/file_ops.hpp"
#include "engines/registry.hpp"
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
  EngineKind kind;
  unsigned depth;
  bool direct;
};

void PrintTo(const Param& p, std::ostream* os) {
  *os << engine_name(p.kind) << " depth " << p.depth << (p.direct ? " O_DIRECT" : "");
}

std::string name_of(const testing::TestParamInfo<Param>& p) {
  return std::string(engine_name(p.param.kind)) + "_qd" + std::to_string(p.param.depth) +
         (p.param.direct ? "_direct" : "");
}

class EngineRoundTrip : public testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    const Param p = GetParam();
    const EngineEntry* e = find_engine(engine_name(p.kind));
    if (e == nullptr || !e->compiled) GTEST_SKIP() << engine_name(p.kind) << " is not compiled in";
    if (p.direct) {
      std::uint64_t align = 0;
      const std::string why = fsops::probe_direct(dir_.path(), align);
      if (!why.empty()) GTEST_SKIP() << "no O_DIRECT here: " << why;
    }
    opts_.iodepth = p.depth;
    opts_.direct = p.direct;
    try {
      engine_ = make_engine(p.kind, opts_);
    } catch (const UsageError& refused) {
      GTEST_SKIP() << refused.what();
    }
  }
  TempDir dir_;
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
  const unsigned depth = engine_->info().depth;
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
  EXPECT_EQ(std::memcmp(out.data(), in.data(), out.size()), 0);
  EXPECT_EQ(fsops::size_of(path), record * n);
}

TEST_P(EngineRoundTrip, ShortReadAtEndOfFileReportsTheBytesThere) {
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
  std::vector<IoCompletion> c(engine_->info().depth);
  ASSERT_EQ(engine_->reap(c, 1), 1u);
  EXPECT_EQ(c[0].tag, 7u);
  EXPECT_EQ(c[0].result, 12288);
  engine_->close(h);
}

TEST_P(EngineRoundTrip, DriverKeepsDepthWithMoreRecordsThanDepth) {
  const DataSpec spec{1, 0x42, 1000};
  const std::size_t record = 16384;
  const std::uint64_t n = 96;
  PatternBuffer src(spec, 0, record, engine_->info().depth);
  AlignedBuffer reads(record * engine_->info().depth * 2);  // twice: the reads are consumed
  const std::span<std::byte> bufs[] = {src.memory(), reads.span()};
  engine_->register_buffers(bufs);
  const std::string path = dir_.path() + "/drv";
  const RecordOrder order = RecordOrder::shuffled(n, 3);
  DriverJob w;
  w.engine = engine_.get();
  w.file = engine_->open(path, {true, true});
  w.path = path;
  w.op = IoOp::write;
  w.record_bytes = record;
  w.order = &order;
  w.end = n;
  w.reorder_ok = true;
  w.depth = engine_->info().depth;
  w.source = &src;
  LatencyHistogram lat;
  w.latency = &lat;
  const DriverResult wr = run_driver(w);
  engine_->close(w.file);
  EXPECT_EQ(wr.ops, n);
  EXPECT_EQ(lat.count(), n);

  std::uint64_t bad = 0, seen = 0;
  DriverJob r = w;
  r.file = engine_->open(path, {false, false});
  r.op = IoOp::read;
  r.source = nullptr;
  r.read_buffers = reads.span();
  r.consume = [&](const std::byte* p, std::uint64_t off, std::size_t len) {
    bad += verify_blocks(spec, 0, off, {p, len}, nullptr);
    ++seen;
  };
  const DriverResult rr = run_driver(r);
  engine_->close(r.file);
  EXPECT_EQ(rr.bytes, n * record);
  EXPECT_EQ(seen, n);
  EXPECT_EQ(bad, 0u);
}

TEST_P(EngineRoundTrip, FailedWriteNamesFileOffsetAndErrno) {
  const std::string path = dir_.path() + "/ro";
  {
    const int fd = ::open(path.c_str(), O_CREAT | O_WRONLY, 0644);
    ::close(fd);
  }
  AlignedBuffer buf(4096);
  const int h = engine_->open(path, {false, false});  // opened read-only
  const RecordOrder order = RecordOrder::sequential(1);
  PatternBuffer src(DataSpec{}, 0, 4096, 1);
  DriverJob j;
  j.engine = engine_.get();
  j.file = h;
  j.path = path;
  j.op = IoOp::write;
  j.record_bytes = 4096;
  j.order = &order;
  j.end = 1;
  j.source = &src;
  try {
    run_driver(j);
    FAIL() << "writing to a read-only descriptor succeeded";
  } catch (const IoError& e) {
    EXPECT_EQ(e.err(), EBADF);
    EXPECT_EQ(e.path(), path);
    EXPECT_NE(std::string(e.what()).find("EBADF"), std::string::npos);
  }
  engine_->close(h);
}

INSTANTIATE_TEST_SUITE_P(Engines, EngineRoundTrip,
                         testing::Values(Param{EngineKind::posix, 1, false},
                                         Param{EngineKind::posix, 1, true},
                                         Param{EngineKind::uring, 1, false},
                                         Param{EngineKind::uring, 8, false},
                                         Param{EngineKind::uring, 8, true}),
                         name_of);

TEST(Engines, PosixRefusesToFollowASymlinkOrTakeAnExistingFile) {
  TempDir dir;
  const std::string target = dir.path() + "/target", link = dir.path() + "/link";
  {
    const int fd = ::open(target.c_str(), O_CREAT | O_WRONLY, 0644);
    ::close(fd);
  }
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  auto e = make_engine(EngineKind::posix, {});
  EXPECT_THROW(e->open(link, {false, false}), IoError);
  EXPECT_THROW(e->open(link, {true, true}), IoError);
  EXPECT_THROW(e->open(target, {true, true}), IoError);  // O_EXCL: never takes over a file
}
