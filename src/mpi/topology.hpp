// Gathers every rank's processor name to rank 0, which computes the placement
// (model/topology.hpp); every rank gets its own row, rank 0 the whole topology.
#pragma once

#include <mpi.h>

#include <string>

#include "model/topology.hpp"

namespace iosweep {

struct LocalPlace {
  RankPlace self;
  int n_nodes = 1;
  Topology full;  // filled on world rank 0 only
};
LocalPlace gather_topology(MPI_Comm world, const std::string& my_name, Placement placement);

}  // namespace iosweep
