// MPI-IO engine: one file per rank through MPI_File_open(MPI_COMM_SELF, ...), independent
// MPI_File_iread_at / MPI_File_iwrite_at with up to `iodepth` requests outstanding, and MPI_Info
// hints from --mpiio-hint; or, with --mpiio-collective, the shared file of the point's ranks and
// one collective call at a time. Only the rank's own thread calls MPI. Open MPI's shared file
// pointer components are kept out of its way (mpi/session.cpp).
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "engines/engine.hpp"
#include "engines/slots.hpp"
#include "model/config.hpp"

namespace iosweep {

class MpiioEngine final : public Engine {
 public:
  // `group`: the ranks that open each file together (MPI_COMM_SELF, one file per rank; the
  // active ranks with --mpiio-collective on a shared file, which makes every request a collective
  // call, one at a time).
  MpiioEngine(const EngineOptions& options, MPI_Comm group);
  ~MpiioEngine() override;
  // Before a run: every hint fits MPI_Info's limits (MPI_MAX_INFO_KEY, MPI_MAX_INFO_VAL).
  static std::string check(const Workload& work, const EngineOptions& options);
  // Before a run: names the hints in `detail` (MPI-IO itself needs no probe).
  static std::string probe(const EngineOptions& options, std::string& detail);
  const char* name() const override { return "mpiio"; }
  unsigned depth() const override { return slots_.depth(); }
  std::string detail() const override;
  int open(const std::string& path, OpenMode mode) override;
  void close(int file) override;
  void submit(std::span<const IoRequest> requests) override;
  std::size_t reap(std::span<IoCompletion> out, std::size_t min) override;
  void sync(int file) override;

 private:
  void start(unsigned slot);

  std::int64_t collective_call(const IoRequest& r);

  EngineOptions options_;
  MPI_Comm group_;
  bool collective_;
  std::vector<IoCompletion> done_;  // collective requests, completed inside submit()
  MPI_Info info_ = MPI_INFO_NULL;
  std::vector<std::pair<std::string, std::string>> hints_;
  std::vector<MPI_File> files_;
  std::vector<std::string> paths_;
  std::vector<MPI_Offset> sizes_;  // of files opened for reading, at open
  Slots slots_;
  std::vector<unsigned> ready_;  // slots completed without a request (reads at end of file)
  std::vector<MPI_Request> requests_;
  std::vector<int> indices_;
  std::vector<MPI_Status> statuses_;
};

// errno value closest to an MPI error code (MPI_ERR_NO_SPACE -> ENOSPC, ...).
int errno_from_mpi(int mpi_error);

}  // namespace iosweep
