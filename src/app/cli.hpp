// The command line (CLI11): `iosweep run [options]`, `iosweep --version`, `iosweep --help`.
// Every rank parses the same argv the same way; only rank 0 prints.
#pragma once

#include <string>

#include "model/config.hpp"

namespace iosweep {

struct CliResult {
  enum class Action { run, print, usage_error } action = Action::run;
  Config cfg;
  std::string text;  // help or version text (print), or the one-line error (usage_error)
};

CliResult parse_cli(int argc, char** argv);

}  // namespace iosweep
