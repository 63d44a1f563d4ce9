// RAII MPI session: MPI_Init_thread on construction, MPI_Finalize on destruction. iosweep's
// helper threads (progress, signal watcher, the posix read-ahead worker) never call MPI, so
// MPI_THREAD_FUNNELED is all it asks for.
#pragma once

#include <mpi.h>

#include <string>

namespace iosweep {

class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  const std::string& host() const { return host_; }

 private:
  int rank_ = 0;
  int size_ = 1;
  std::string host_;
};

// "Open MPI v4.1.4, ..." first line of MPI_Get_library_version, and "MPI 3.1".
std::string mpi_library_version();

}  // namespace iosweep
