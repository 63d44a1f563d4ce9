// The run plan (model/run_plan.hpp), made here once on rank 0: which points run (active ranks
// from --ranks or --sweep against the world size, or streams split into ranks and depth by
// --streams), and for each step, point, repetition and phase what is decided before the run;
// the run id; and the --dry-run report, which prints the plan.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "model/config.hpp"
#include "model/run_plan.hpp"
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

// One step as the options made it: its name ("" in a run without steps), its configuration,
// its options as TOML, and what the command line gave that the step's own keys override.
struct StepInput {
  std::string name;
  Config cfg;
  std::string toml;
  std::string overrides;
  std::string dataset;  // steps of one dataset share their data files ("" for a run of one step)
};

// The plan of a run of these steps on this placement (the whole topology: rank 0's), its random
// orders drawn from `order_base`. Empty on success, else "--option: problem" (with the step's
// name in a run of steps) and `out` unspecified. Pure: reads nothing of the machine.
std::string plan_run(const std::vector<StepInput>& steps, const Topology& topo,
                     std::uint64_t order_base, RunPlan& out);

// The --dry-run report: the plan, step by step (points, phases, sizes, placement, totals).
void print_plan(std::FILE* out, const RunPlan& plan, const Topology& topo);

}  // namespace iosweep
