// Messages of any length between ranks (see messages.hpp).
#include "mpi/messages.hpp"

namespace iosweep {

std::string agree_first(const std::string& mine, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int mine_rank = mine.empty() ? size : rank;
  int first = size;
  MPI_Allreduce(&mine_rank, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size) return {};
  unsigned long long len = rank == first ? mine.size() : 0;
  MPI_Bcast(&len, 1, MPI_UNSIGNED_LONG_LONG, first, comm);
  std::string out = rank == first ? mine : std::string(len, '\0');
  MPI_Bcast(out.data(), static_cast<int>(len), MPI_CHAR, first, comm);
  return out;
}

std::vector<std::string> gather_messages(const std::string& mine, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int len = static_cast<int>(mine.size());
  std::vector<int> lens(rank == 0 ? static_cast<std::size_t>(size) : 0), displs(lens.size());
  MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, comm);
  int total = 0;
  for (std::size_t i = 0; i < lens.size(); ++i) {
    displs[i] = total;
    total += lens[i];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0,
              comm);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < lens.size(); ++i)
    out.push_back(
        all.substr(static_cast<std::size_t>(displs[i]), static_cast<std::size_t>(lens[i])));
  return out;
}

void broadcast_strings(std::vector<std::string>& v, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::vector<unsigned long long> lens;
  if (rank == 0)
    for (const auto& s : v)
      lens.push_back(s.size());
  unsigned long long n = lens.size();
  MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
  lens.resize(static_cast<std::size_t>(n));
  MPI_Bcast(lens.data(), static_cast<int>(n), MPI_UNSIGNED_LONG_LONG, 0, comm);
  if (rank != 0) {
    v.assign(static_cast<std::size_t>(n), std::string());
    for (std::size_t i = 0; i < v.size(); ++i)
      v[i].resize(static_cast<std::size_t>(lens[i]));
  }
  for (auto& s : v)
    MPI_Bcast(s.data(), static_cast<int>(s.size()), MPI_CHAR, 0, comm);
}

}  // namespace iosweep
