// The MPI gather around placement (see topology.hpp).
#include "mpi/topology.hpp"

#include <cstring>

namespace iosweep {

LocalPlace gather_topology(MPI_Comm world, const std::string& my_name, Placement placement,
                           int folders) {
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
  std::vector<int> rows;  // rank, node, local_index, position, folder, n_nodes per rank
  out.folder_of_position.resize(static_cast<std::size_t>(size));
  if (rank == 0) {
    std::vector<std::string> names(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r)
      names[static_cast<std::size_t>(r)] =
          std::string(&all[static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME]);
    out.full = compute_topology(names, placement, folders);
    rows.reserve(static_cast<std::size_t>(size) * 6);
    for (const auto& p : out.full.ranks) {
      rows.insert(rows.end(), {p.rank, p.node, p.local_index, p.position, p.folder,
                               static_cast<int>(out.full.hosts.size())});
      out.folder_of_position[static_cast<std::size_t>(p.position)] = p.folder;
    }
  }
  int mine_row[6] = {};
  MPI_Scatter(rows.data(), 6, MPI_INT, mine_row, 6, MPI_INT, 0, world);
  out.self = {mine_row[0], mine_row[1], mine_row[2], mine_row[3], mine_row[4]};
  out.n_nodes = mine_row[5];
  MPI_Bcast(out.folder_of_position.data(), size, MPI_INT, 0, world);
  return out;
}

}  // namespace iosweep
