// The MPI-IO engine's round trip, run as a one-rank MPI job (MPI must be initialised).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstring>
#include <filesystem>
#include <random>

#include "core/aligned_buffer.hpp"
#include "core/pattern.hpp"
#include "engines/registry.hpp"
#include "phases/io_driver.hpp"

using namespace iosweep;

TEST(MpiioEngine, DriverRoundTripWithMoreRecordsThanDepth) {
  char tmpl[] = "/tmp/iosweep-mpiio-XXXXXX";
  const std::string dir = mkdtemp(tmpl), path = dir + "/f";
  EngineOptions o;
  o.iodepth = 4;
  o.mpiio_hints = {{"romio_cb_write", "disable"}};
  auto e = make_engine(EngineKind::mpiio, o);
  EXPECT_NE(e->info().detail.find("romio_cb_write=disable"), std::string::npos);
  const DataSpec spec{2, 0x99, 777};
  const std::size_t record = 32768;
  const std::uint64_t n = 40;
  PatternBuffer src(spec, 3, record, 4);
  AlignedBuffer reads(record * 4 * 2);  // twice: the reads are consumed
  const RecordOrder order = RecordOrder::shuffled(n, 5);
  DriverJob j;
  j.engine = e.get();
  j.file = e->open(path, {true, true});
  j.path = path;
  j.op = IoOp::write;
  j.record_bytes = record;
  j.order = &order;
  j.end = n;
  j.reorder_ok = true;
  j.depth = 4;
  j.source = &src;
  EXPECT_EQ(run_driver(j).ops, n);
  e->sync(j.file);
  e->close(j.file);
  std::uint64_t bad = 0;
  j.file = e->open(path, {false, false});
  j.op = IoOp::read;
  j.source = nullptr;
  j.read_buffers = reads.span();
  j.consume = [&](const std::byte* p, std::uint64_t off, std::size_t len) {
    bad += verify_blocks(spec, 3, off, {p, len}, nullptr);
  };
  EXPECT_EQ(run_driver(j).bytes, n * record);
  e->close(j.file);
  EXPECT_EQ(bad, 0u);
  std::filesystem::remove_all(dir);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  MPI_Finalize();
  return rc;
}
