// Placement computation and the MPI gather around it (see topology.hpp).
#include "mpi/topology.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

namespace iosweep {

int Topology::nodes_used(int k) const {
  std::set<int> nodes;
  for (int p = 0; p < k && p < static_cast<int>(order.size()); ++p)
    nodes.insert(ranks[static_cast<std::size_t>(order[static_cast<std::size_t>(p)])].node);
  return static_cast<int>(nodes.size());
}

Topology compute_topology(const std::vector<std::string>& names, Placement placement) {
  Topology t;
  std::map<std::string, int> node_of;
  std::vector<int> per_node_count;
  t.ranks.resize(names.size());
  for (std::size_t r = 0; r < names.size(); ++r) {
    auto [it, inserted] = node_of.emplace(names[r], static_cast<int>(t.hosts.size()));
    if (inserted) {
      t.hosts.push_back(names[r]);
      per_node_count.push_back(0);
    }
    auto& row = t.ranks[r];
    row.rank = static_cast<int>(r);
    row.node = it->second;
    row.local_index = per_node_count[static_cast<std::size_t>(row.node)]++;
  }
  t.order.resize(names.size());
  for (std::size_t r = 0; r < names.size(); ++r)
    t.order[r] = static_cast<int>(r);
  if (placement == Placement::spread) {
    std::stable_sort(t.order.begin(), t.order.end(), [&](int a, int b) {
      const auto& ra = t.ranks[static_cast<std::size_t>(a)];
      const auto& rb = t.ranks[static_cast<std::size_t>(b)];
      if (ra.local_index != rb.local_index) return ra.local_index < rb.local_index;
      return ra.node < rb.node;
    });
  }
  for (std::size_t p = 0; p < t.order.size(); ++p)
    t.ranks[static_cast<std::size_t>(t.order[p])].position = static_cast<int>(p);
  return t;
}

LocalPlace gather_topology(MPI_Comm world, const std::string& my_name, Placement placement) {
  int rank = 0, size = 1;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  char mine[MPI_MAX_PROCESSOR_NAME] = {};
  std::strncpy(mine, my_name.c_str(), MPI_MAX_PROCESSOR_NAME - 1);
  std::vector<char> all;
  if (rank == 0) all.resize(static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  MPI_Gather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
             0, world);
  LocalPlace out;
  std::vector<int> rows;  // rank, node, local_index, position, n_nodes per rank
  if (rank == 0) {
    std::vector<std::string> names(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r)
      names[static_cast<std::size_t>(r)] =
          std::string(&all[static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME]);
    out.full = compute_topology(names, placement);
    rows.reserve(static_cast<std::size_t>(size) * 5);
    for (const auto& p : out.full.ranks)
      rows.insert(rows.end(), {p.rank, p.node, p.local_index, p.position,
                               static_cast<int>(out.full.hosts.size())});
  }
  int mine_row[5] = {};
  MPI_Scatter(rows.data(), 5, MPI_INT, mine_row, 5, MPI_INT, 0, world);
  out.self = {mine_row[0], mine_row[1], mine_row[2], mine_row[3]};
  out.n_nodes = mine_row[4];
  return out;
}

}  // namespace iosweep
