// Placement: node-spread order for several host layouts, block order, nodes used.
#include <gtest/gtest.h>

#include "mpi/topology.hpp"

using namespace iosweep;

namespace {
std::vector<int> order(const std::vector<std::string>& names, Placement p = Placement::spread) {
  return compute_topology(names, p).order;
}
}  // namespace

TEST(Topology, BySlotMappingIsSpreadRoundRobin) {
  // mpirun's default by-slot mapping: consecutive ranks share a node.
  EXPECT_EQ(order({"a", "a", "b", "b", "c", "c", "d", "d"}),
            (std::vector<int>{0, 2, 4, 6, 1, 3, 5, 7}));
}

TEST(Topology, ByNodeMappingKeepsRankOrder) {
  EXPECT_EQ(order({"a", "b", "c", "d", "a", "b", "c", "d"}),
            (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(Topology, UnevenRanksPerNode) {
  const auto t = compute_topology({"a", "a", "a", "b", "c", "c"}, Placement::spread);
  EXPECT_EQ(t.order, (std::vector<int>{0, 3, 4, 1, 5, 2}));
  EXPECT_EQ(t.hosts, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(t.nodes_used(1), 1);
  EXPECT_EQ(t.nodes_used(3), 3);
  EXPECT_EQ(t.nodes_used(6), 3);
  EXPECT_EQ(t.ranks[2].local_index, 2);
  EXPECT_EQ(t.ranks[2].position, 5);
}

TEST(Topology, NodesNumberedByFirstAppearance) {
  const auto t = compute_topology({"z", "y", "z", "x"}, Placement::spread);
  EXPECT_EQ(t.hosts, (std::vector<std::string>{"z", "y", "x"}));
  EXPECT_EQ(t.ranks[3].node, 2);
  EXPECT_EQ(t.order, (std::vector<int>{0, 1, 3, 2}));
}

TEST(Topology, BlockPlacementIsRankOrder) {
  const auto t = compute_topology({"a", "a", "b", "b"}, Placement::block);
  EXPECT_EQ(t.order, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(t.nodes_used(2), 1);
}

TEST(Topology, SingleNode) {
  const auto t = compute_topology({"n", "n", "n"}, Placement::spread);
  EXPECT_EQ(t.order, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(t.nodes_used(3), 1);
}
