// Placement: which node every rank runs on, and the order in which ranks become active.
//
// Nodes are the distinct processor names, numbered in order of first appearance by rank. The
// node-spread order sorts ranks by (index within node, node), so the first k ranks of the order
// are spread as evenly as possible over the nodes however the launcher mapped them (thread i
// on node i mod nodes, as IOzone's round-robin threadlist). Block placement uses rank order.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace iosweep {

enum class Placement { spread, block };

struct RankPlace {
  int rank = 0;
  int node = 0;
  int local_index = 0;  // index of the rank among the ranks of its node, by rank
  int position = 0;     // position in the activation order
};

struct Topology {
  std::vector<std::string> hosts;  // index = node id
  std::vector<RankPlace> ranks;    // index = world rank
  std::vector<int> order;          // index = position, value = world rank

  // Number of distinct nodes among the first k positions.
  int nodes_used(int k) const;
};

// Pure placement from every rank's processor name (index = rank). Unit-tested without MPI.
Topology compute_topology(const std::vector<std::string>& names, Placement placement);

// Gathers processor names to rank 0, which computes the topology. Every rank gets its own row;
// rank 0 gets the whole topology (others get hosts and ranks left empty but `self`).
struct LocalPlace {
  RankPlace self;
  int n_nodes = 1;
  Topology full;  // filled on world rank 0 only
};
LocalPlace gather_topology(MPI_Comm world, const std::string& my_name, Placement placement);

}  // namespace iosweep
