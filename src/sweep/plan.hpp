// The sweep plan: which points run (active ranks from --ranks or --sweep against the world
// size, or streams split into ranks and depth by --streams),
// the run id, the bytes each point moves, and the --dry-run report.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "model/config.hpp"
#include "model/topology.hpp"

namespace iosweep {

// Empty on success (points filled), otherwise "--option: problem". Points of --ranks and
// --sweep keep `iodepth` requests in flight per rank in one stream; a point of --streams runs
// s streams on k = min(s, world size) ranks at depth s / k, each rank's sequential phases
// streaming that many regions of its file side by side.
std::string resolve_points(const SweepSpec& sweep, unsigned iodepth, int world_size,
                           std::vector<SweepPoint>& points);

// "20261130T045512.345Z-3fa9c1d2": UTC start time (ms) and 32 random bits; a valid file and
// group name. Run groups sort by start time.
std::string make_run_id();
// 64 random bits (/dev/urandom).
std::uint64_t random_u64();

// Bytes rank 0 itself moves over the whole run (its share of every point), for progress.
std::uint64_t planned_bytes_of_rank0(const Config& cfg, const std::vector<SweepPoint>& points);

void print_plan(std::FILE* out, const Config& cfg, const std::vector<SweepPoint>& points,
                const Topology& topo);

}  // namespace iosweep
