// The run plan (IOR's InitTests, IO500's phase table): everything decided about a run before
// its first byte moves, made once by one pure function on rank 0 (sweep/plan.hpp: plan_run,
// from the steps' configurations and the placement) and broadcast; every other part reads it
// and decides nothing again. Plain data:
//
//   RunPlan    the run: its steps, the nonce of its random orders, its totals
//   StepPlan   one step (a shape of a study): its name, its configuration, where each position's
//              files go, its points
//   PointPlan  one point of a step: active ranks and what each keeps going, its read shifts,
//              its repetitions (each a list of phases in the order they run)
//   PhasePlan  one phase at one point and repetition: the engine as it is built (the depth the
//              phase keeps, not only the point's), record and buffer bytes, the bytes or items
//              each rank moves, the metadata tree, the read shift, the order seed, stonewall,
//              cache policy and fsync
//
// The dry run prints it, the checks before a run compare its totals with what src/os reports,
// the runner loops over it, a phase builds its engine from its PhasePlan, the reducer takes the
// figures it needs from it, and the results file stores it (the `plan` table).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/config.hpp"
#include "model/md_plan.hpp"
#include "model/phase_desc.hpp"

namespace iosweep {

struct PhasePlan {
  std::uint32_t row = 0;  // its row in the plan table (the results file's), from 0
  PhaseId phase = kSeqWrite;
  // The engine as the phase builds it: the step's engine options at the depth the phase keeps
  // (at most the point's, fewer when the phase has fewer records; more where it overlaps its
  // own computing, as filter-count) and a submission batch within it (engine_options()).
  unsigned depth = 1;
  unsigned batch = 1;
  int use = 0;                       // engines/engine_table.hpp EngineUse, as a number
  unsigned point_depth = 1;          // what the point asked of each rank
  std::uint64_t record_bytes = 0;    // 0 for the metadata phases
  std::uint64_t buffer_bytes = 0;    // I/O buffers one rank holds at once
  std::uint64_t bytes_per_rank = 0;  // data the phase moves per rank (a file; 0 for metadata)
  MdPoint md;                        // the metadata phases' layout at this point
  int read_shift = 0;                // position i reads (or looks up) position (i + shift) mod k
  std::uint64_t order_seed = 0;      // the seed of this point's and repetition's record orders
  bool fsync = false;                // fsync inside the timed window
  int caches_to_drop = 0;            // 0, 2 (dentries, inodes) or 3 (and the page cache)
};

struct PointPlan {
  std::uint32_t index = 0;  // the point's number within the run (all steps), from 0
  SweepPoint point;         // active ranks and what each keeps going
  int data_shift = 0;       // reading phases' shift at this point
  int md_shift = 0;         // metadata lookups' shift (another node's items when there is one)
  std::vector<std::vector<PhasePlan>> reps;  // every repetition's phases, in running order
};

// What a point holds on its file systems at its largest moment: the data files of every active
// rank and the metadata phases' items and folders, which stay on disk together.
struct PointFootprint {
  std::vector<std::uint64_t> bytes_of;   // index = position: bytes in that position's folder
  std::vector<std::uint64_t> inodes_of;  // index = position: files and folders it makes there
  bool data = false;                     // the point makes data files (not a --reuse run's)
  bool md = false;                       // the point makes metadata items
};

struct StepPlan {
  std::string name;       // "" for a run without steps
  Config cfg;             // the step's whole configuration
  std::string toml;       // its options as TOML (what the results file records for it)
  std::string overrides;  // what the command line gave that this step's own keys override
  std::vector<int> folder_of_position;  // index = position: the index of its folder in --dir
  std::vector<std::string> notes;       // what the plan had to settle, said before the run
  // The data files: steps that name one dataset share them (a step writes, a later one reads),
  // which are removed after the last of those steps (unless kept).
  std::string dataset;
  std::uint32_t dataset_index = 0;  // the steps' datasets numbered in order of first use
  bool last_of_dataset = true;
  std::vector<PointPlan> points;
};

// The options a phase's engine is built from: the step's, at the phase's depth and batch.
EngineOptions engine_options(const StepPlan& step, const PhasePlan& phase);

struct RunPlan {
  std::uint64_t order_base = 0;  // --order-seed, or the run's nonce
  std::vector<StepPlan> steps;
  std::uint32_t points() const;  // over every step
  // Bytes rank 0 itself moves over the whole run (its share of every point), for progress.
  std::uint64_t bytes_of_rank0() const;
};

// The footprint of a point: which positions hold how many bytes and inodes where (the data
// files of its data phases, the items and folders of its metadata phases), for the space and
// inode checks. An engine that moves no data leaves empty files and makes nothing.
PointFootprint footprint_of(const StepPlan& step, const PointPlan& point);

// The plan without the steps' configurations, as bytes (what rank 0 broadcasts; each rank has
// the configurations it parsed itself, and the steps' TOML is compared); and back, with the
// configurations set from `configs` (one per step). Throws std::runtime_error on bytes that are
// not a plan.
std::vector<char> pack_plan(const RunPlan& plan);
RunPlan unpack_plan(const std::vector<char>& bytes, const std::vector<Config>& configs);

}  // namespace iosweep
