// MPI session (see session.hpp).
#include "mpi/session.hpp"

#include <cstdio>
#include <cstdlib>

namespace iosweep {

namespace {

// iosweep never uses shared file pointers, but Open MPI's OMPIO picks a sharedfp component at
// every MPI_File_open, inside the timed window: lockedfile creates, locks and removes
// FILE.locktest.RANK beside the file (and overflows its 256-byte name buffer, *** buffer
// overflow detected ***, when FILE is longer than about 245 bytes), then keeps FILE-JOB-PID.lock
// there; individual makes FILE.data.RANK and FILE.metadata.RANK for a write. Only sm remains,
// which keeps its segment in the job's session folder and declines files of several nodes (OMPIO
// then opens the file without one, as it does whenever none fits). None can be excluded all:
// OMPIO refuses to open files without a sharedfp framework. A selection the user made
// (OMPI_MCA_sharedfp, or mpirun --mca sharedfp, which sets it) is kept; MpiioEngine::check then
// holds the file names to lockedfile's limit.
void keep_shared_file_pointers_out() {
  ::setenv("OMPI_MCA_sharedfp", "^individual,lockedfile", 0);
}

}  // namespace

MpiSession::MpiSession(int* argc, char*** argv) {
  keep_shared_file_pointers_out();
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  host_.assign(name, static_cast<std::size_t>(len));
}

MpiSession::~MpiSession() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

std::string mpi_library_version() {
  char buf[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(buf, &len);
  (void)len;
  std::string s(buf);  // resultlen may count the terminating NUL
  if (auto nl = s.find_first_of("\r\n"); nl != std::string::npos) s.resize(nl);
  int major = 0, minor = 0;
  MPI_Get_version(&major, &minor);
  return s + " (MPI " + std::to_string(major) + "." + std::to_string(minor) + ")";
}

}  // namespace iosweep
