// Running a run again from its results file: `iosweep show RESULTS [RUN_ID]` prints a run's
// stored configuration as a preset (TOML) with its placement as comments, and
// `iosweep run --rerun RESULTS[:RUN_ID]` takes that configuration as a preset under the command
// line (and --config), records the run it repeats (`rerun_of`), and follows the job's own world
// size when it differs from the stored run's.
//
// RESULTS[:RUN_ID]: the argument is split at its last ':' only when what follows is shaped like
// a run id (YYYYMMDDTHHMMSS.mmmZ-xxxxxxxx); otherwise all of it is the file's path and the
// file's latest run (the last row of /run_index) is meant.
#pragma once

#include <mpi.h>
#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <string_view>

#include "app/options.hpp"
#include "app/steps.hpp"
#include "model/config.hpp"
#include "output/run_record.hpp"

namespace iosweep {

struct RunRef {
  std::string path;
  std::string run_id;  // empty: the latest run of the file
};

// "20261130T154147.684Z-dd3794d4": as sweep/plan.cpp's make_run_id makes them.
bool looks_like_run_id(std::string_view s);
RunRef split_run_ref(const std::string& arg);

// What the command line takes from a stored run.
struct LoadedRun {
  std::string run_id, config_toml;
  std::string shown;  // `iosweep show`'s text
  int world_size = 0, n_nodes = 0;
};

// Loads a stored run: empty, or why not (one line, without an option's name). run.cpp reads
// the file on rank 0 only and shares what it found; load_run_here reads it in this process.
using RunLoader = std::function<std::string(const RunRef&, LoadedRun&)>;
std::string load_run_here(const RunRef& ref, LoadedRun& out);
RunLoader load_run_on_rank0(MPI_Comm comm);

// A stored run as a preset: comments naming the run (id, start, world size, nodes, status,
// label, command line, one `# placement:` line per node), then its configuration verbatim.
std::string show_text(const RunRecord& run, const std::string& path);

// The command `iosweep show RESULTS [RUN_ID]`.
CLI::App* declare_show(CLI::App& app, std::string& file, std::string& run_id);
// Its text; throws UsageError ("show: ...").
std::string show_run(const RunLoader& load, const std::string& file, const std::string& run_id);

// The run a rerun repeats, as the command line resolved it.
struct RerunSource {
  std::string run_id;  // empty: not a rerun
  int world_size = 0, n_nodes = 0;
  bool sweep_stored = false;  // the points (--ranks, --sweep) came from the stored run
  bool sweep_given = false;   // ... or from the command line (or --config), which replace them
};

CLI::Option* declare_rerun(CLI::App& app, std::string& arg);

// The stored run `arg` names (RESULTS[:RUN_ID]): which run, and its recorded configuration as a
// source of option values, below the command line and --config (app/options.hpp). Throws
// UsageError ("--rerun: ...").
struct StoredRun {
  RerunSource source;
  GivenOptions given;                    // its top-level values
  std::vector<PresetSteps::Step> steps;  // its [[step]] tables (none for a run of one shape)
};
StoredRun load_rerun(const std::string& arg, const RunLoader& load);

// Before the pre-run checks, on every rank: when this job's world size or node count differs
// from the stored run's, the one line that says so (empty otherwise). A stored --ranks or
// --sweep is then capped at the world size as --sweep caps it: counts above it are replaced by
// the world size itself, once.
std::string fit_rerun_to_world(const RerunSource& src, SweepSpec& sweep, int world_size,
                               int n_nodes);

}  // namespace iosweep
