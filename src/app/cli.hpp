// The command line (CLI11): `iosweep run [options]`, `iosweep show RESULTS [RUN_ID]`,
// `iosweep --version`, `iosweep --help`. Every rank parses the same argv the same way; only
// rank 0 prints. A stored run (show, --rerun) is read through `load` (app/rerun.hpp).
#pragma once

#include <string>

#include "app/rerun.hpp"
#include "model/config.hpp"

namespace iosweep {

struct CliResult {
  enum class Action { run, print, usage_error } action = Action::run;
  Config cfg;
  std::string text;   // help or version text (print), or the one-line error (usage_error)
  RerunSource rerun;  // --rerun: the run repeated
  // The run's steps (one unnamed step for a run of one shape), each with its configuration;
  // `cfg` is the first's (every option of the whole run is the same in all).
  std::vector<StepInput> steps;
};

CliResult parse_cli(int argc, char** argv, const RunLoader& load = load_run_here);

}  // namespace iosweep
