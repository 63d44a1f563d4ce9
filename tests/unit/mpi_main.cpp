// GoogleTest main for the tests that need MPI initialised (the engine suite, which includes the
// MPI-IO engine). Each test runs as its own one-rank MPI job (singleton MPI_Init).
#include <gtest/gtest.h>
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  MPI_Finalize();
  return rc;
}
