// Placement: which node every rank runs on, and the order in which ranks become active.
//
// Nodes are the distinct processor names, numbered in order of first appearance by rank. The
// node-spread order sorts ranks by (index within node, node), so the first k ranks of the order
// are spread as evenly as possible over the nodes however the launcher mapped them (thread i
// on node i mod nodes, as IOzone's round-robin threadlist). Block placement uses rank order.
//
// With several folders (--dir a,b,...: one per drive, the same list on every node) a rank's
// folder is its index within its node modulo their number, so a node's ranks take its drives
// round-robin. The node-spread order then loads nodes first and a node's drives second: its
// first k ranks hold ceil or floor of k / nodes ranks on each node, and on each node ranks of
// consecutive indexes, so distinct drives until every drive has one.
// Pure data and arithmetic; mpi/topology.hpp gathers the names.
#pragma once

#include <string>
#include <vector>

namespace iosweep {

enum class Placement { spread, block };

struct RankPlace {
  int rank = 0;
  int node = 0;
  int local_index = 0;  // index of the rank among the ranks of its node, by rank
  int position = 0;     // position in the activation order
  int folder = 0;       // index into --dir's folders: local_index mod their number
};

struct Topology {
  std::vector<std::string> hosts;  // index = node id
  std::vector<RankPlace> ranks;    // index = world rank
  std::vector<int> order;          // index = position, value = world rank

  // Number of distinct nodes among the first k positions.
  int nodes_used(int k) const;
  // Node of the rank at position p.
  int node_at(int p) const {
    return ranks[static_cast<std::size_t>(order[static_cast<std::size_t>(p)])].node;
  }
  // Folder of the rank at position p.
  int folder_at(int p) const {
    return ranks[static_cast<std::size_t>(order[static_cast<std::size_t>(p)])].folder;
  }
};

// The smallest shift K such that position i and position (i + K) mod k are on different nodes
// for every i < k, given the node of every position (--read-shift auto, ship-count's
// collectors); 1 (or 0 for one rank) with `all_remote` false when there is none.
int remote_shift(const std::vector<int>& node_of_position, int k, bool& all_remote);

// Placement from every rank's processor name (index = rank), over `folders` target folders.
Topology compute_topology(const std::vector<std::string>& names, Placement placement,
                          int folders = 1);

}  // namespace iosweep
