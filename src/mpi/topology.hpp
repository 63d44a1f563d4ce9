// Gathers every rank's processor name to rank 0, which computes the placement
// (model/topology.hpp); every rank gets its own row and the folder of every position (a reader
// may read another position's file), rank 0 the whole topology.
#pragma once

#include <mpi.h>

#include <string>

#include "model/topology.hpp"

namespace iosweep {

struct LocalPlace {
  RankPlace self;
  int n_nodes = 1;
  std::vector<int> folder_of_position;  // index = position: the folder its file is in
  Topology full;                        // filled on world rank 0 only
};
LocalPlace gather_topology(MPI_Comm world, const std::string& my_name, Placement placement,
                           int folders = 1);

}  // namespace iosweep
