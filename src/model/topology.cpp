// Placement arithmetic (see topology.hpp).
#include "model/topology.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace iosweep {

int Topology::nodes_used(int k) const {
  std::set<int> nodes;
  for (int p = 0; p < k && p < static_cast<int>(order.size()); ++p)
    nodes.insert(node_at(p));
  return static_cast<int>(nodes.size());
}

Topology compute_topology(const std::vector<std::string>& names, Placement placement, int folders) {
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
    row.folder = row.local_index % std::max(folders, 1);
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

int remote_shift(const std::vector<int>& node_of_position, int k, bool& all_remote) {
  all_remote = false;
  for (int shift = 1; shift < k; ++shift) {
    bool ok = true;
    for (int i = 0; i < k && ok; ++i)
      ok = node_of_position[static_cast<std::size_t>(i)] !=
           node_of_position[static_cast<std::size_t>((i + shift) % k)];
    if (ok) {
      all_remote = true;
      return shift;
    }
  }
  return k > 1 ? 1 : 0;
}

}  // namespace iosweep
