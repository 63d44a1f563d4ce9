// The command line (CLI11): `iosweep run [options]`, `iosweep show RESULTS [RUN_ID]`,
// `iosweep --version`, `iosweep --help` (and `iosweep help-man`, below). Every rank parses the
// same argv the same way; only rank 0 prints. A stored run (show, --rerun) is read through `load`
// (app/rerun.hpp).
#pragma once

#include <string>

#include "app/io500_ini.hpp"
#include "app/options.hpp"
#include "app/rerun.hpp"
#include "model/config.hpp"

namespace iosweep {

struct CliResult {
  enum class Action { run, print, usage_error, io500 } action = Action::run;
  Config cfg;
  std::string text;   // help or version text (print), or the one-line error (usage_error)
  RerunSource rerun;  // --rerun: the run repeated
  // The run's steps (one unnamed step for a run of one shape), each with its configuration;
  // `cfg` is the first's (every option of the whole run is the same in all).
  std::vector<StepInput> steps;
  // `iosweep io500 FILE.ini`: the file, its text and its settings (read and checked on every
  // rank), and the options the command line gave (app/io500_command.cpp makes the steps).
  std::string io500_path, io500_text;
  Io500Ini io500;
  GivenOptions io500_given;
  int io500_repetitions = 1;  // --repetitions: the whole suite, one after the other
};

CliResult parse_cli(int argc, char** argv, const RunLoader& load = load_run_here);

// iosweep(1) in roff, from the same declarations as --help (every command, and every option
// with its help and default: the option table's rows). Needs no MPI: `iosweep help-man`, a
// command --help does not list, prints it before MPI starts, so that a build makes the man page
// where MPI cannot start (a build chroot without a network).
std::string man_page();

}  // namespace iosweep
