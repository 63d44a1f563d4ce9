// The sweep plan: which active-rank counts run (--ranks or --sweep against the world size),
// the run id, the bytes each point moves, and the --dry-run report.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "model/config.hpp"
#include "model/topology.hpp"

namespace iosweep {

// Empty on success (points filled), otherwise "--option: problem".
std::string resolve_points(const SweepSpec& sweep, int world_size, std::vector<int>& points);

// "20261130T045512.345Z-3fa9c1d2": UTC start time (ms) and 32 random bits; a valid file and
// group name. Run groups sort by start time.
std::string make_run_id();
// 64 random bits (/dev/urandom).
std::uint64_t random_u64();

// Bytes rank 0 itself moves over the whole run (its share of every point), for progress.
std::uint64_t planned_bytes_of_rank0(const Config& cfg, const std::vector<int>& points);

void print_plan(std::FILE* out, const Config& cfg, const std::vector<int>& points,
                const Topology& topo);

}  // namespace iosweep
