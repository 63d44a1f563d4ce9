// Messages between ranks, of any length (a 4000-character path in a message is never cut).
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace iosweep {

// The first non-empty message over the ranks of `comm` (by rank), known to every rank; empty
// when every rank passed an empty one. Collective.
std::string agree_first(const std::string& mine, MPI_Comm comm);

// Every rank's message, on rank 0 of `comm` (empty ones included); others get nothing.
std::vector<std::string> gather_messages(const std::string& mine, MPI_Comm comm);

// Rank 0's strings (their number and each of any length), on every rank of `comm`. Collective.
void broadcast_strings(std::vector<std::string>& v, MPI_Comm comm);

}  // namespace iosweep
