// GoogleTest main for the tests that need MPI initialised (the engine suite, which includes the
// MPI-IO engine). Each test runs as its own one-rank MPI job (singleton MPI_Init).
#include <gtest/gtest.h>
#include <mpi.h>

// Open MPI keeps memory until exit by design; under AddressSanitizer this program reports no
// leaks, also when CTest lists its tests at build time (which passes no environment).
extern "C" const char* __asan_default_options() {
  return "detect_leaks=0";
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  MPI_Finalize();
  return rc;
}
