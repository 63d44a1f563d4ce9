// A run as a sequence of steps: a preset may hold an array of tables `[[step]]`, each with a
// `name`, optionally a `dataset` (steps naming the same dataset work on the same data files: a
// step writes them, a later one reads them; by default every step has its own), and any option
// of a step (phases, points, sizes, records, layout, engine and depth,
// O_DIRECT, fsync, metadata options, folders, cache policy, stonewall: every row of the option
// table that is not `whole_run`). Top-level keys are every step's defaults; the command line
// overrides top-level keys only, and what it gives that a step sets is said (the step's value
// stands). Without [[step]] a run is one step with no name.
//
// The recorded configuration of a stepped run is itself such a preset: the top-level values
// the run resolved, then each step's own keys under its [[step]], so that `show` prints it and
// `--rerun` runs the same steps again.
#pragma once

#include <string>
#include <vector>

#include "app/options.hpp"
#include "core/toml.hpp"
#include "sweep/plan.hpp"

namespace iosweep {

// A preset's (or a stored run's) items split into the top level and its steps.
struct PresetSteps {
  std::vector<TomlItem> top;
  struct Step {
    std::string name;
    std::string dataset;  // `dataset`: steps naming the same one share their data files
    int line = 0;
    std::vector<TomlItem> items;  // without `name` and `dataset`
  };
  std::vector<Step> steps;
};

// Splits parsed items by their [[step]] element: only `step` tables, each with a unique,
// non-empty `name` of printable text and no option of the whole run. Throws UsageError naming
// `whose` ("--config: 'p.toml'") and the line.
PresetSteps split_steps(const std::vector<TomlItem>& items, const std::vector<TomlHeader>& headers,
                        const std::string& whose);

// Every step's configuration: its own keys, then the command line, then the top-level sources
// in `defaults` (preset, stored run), then the table's defaults. `cli` is the command line's
// values. Without steps, one unnamed step of cli and defaults. Throws UsageError (a step's
// refusal names the step).
std::vector<StepInput> build_steps(const GivenOptions& cli,
                                   const std::vector<const GivenOptions*>& defaults,
                                   const std::vector<PresetSteps::Step>& steps,
                                   ValueSource step_source, const std::string& whose);

// The configuration a stepped run records: `top` (the resolved top-level values as TOML) and
// each step's own keys under its [[step]] header.
std::string stepped_toml(const std::string& top, const std::vector<PresetSteps::Step>& steps);

}  // namespace iosweep
