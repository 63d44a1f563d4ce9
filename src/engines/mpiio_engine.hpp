// MPI-IO engine: one file per rank through MPI_File_open(MPI_COMM_SELF, ...), independent
// MPI_File_iread_at / MPI_File_iwrite_at with up to `iodepth` requests outstanding, and MPI_Info
// hints from --mpiio-hint. Only the rank's own thread calls MPI.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "engines/engine.hpp"

namespace iosweep {

class MpiioEngine final : public Engine {
 public:
  explicit MpiioEngine(const EngineOptions& options);
  ~MpiioEngine() override;
  EngineInfo info() const override;
  int open(const std::string& path, OpenMode mode) override;
  void close(int file) override;
  void submit(std::span<const IoRequest> requests) override;
  std::size_t reap(std::span<IoCompletion> out, std::size_t min) override;
  void sync(int file) override;

 private:
  struct Slot {
    IoRequest req;
    std::size_t done = 0;
  };
  void start(unsigned slot);

  unsigned depth_;
  MPI_Info info_ = MPI_INFO_NULL;
  std::vector<std::pair<std::string, std::string>> hints_;
  std::vector<MPI_File> files_;
  std::vector<std::string> paths_;
  std::vector<Slot> slots_;
  std::vector<MPI_Request> requests_;
  std::vector<unsigned> free_;
  std::vector<int> indices_;
  std::vector<MPI_Status> statuses_;
};

// errno value closest to an MPI error code (MPI_ERR_NO_SPACE -> ENOSPC, ...).
int errno_from_mpi(int mpi_error);

}  // namespace iosweep
