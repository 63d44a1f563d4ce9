// The typed configuration (model/config.hpp) from the options' values: every row of the option
// table converts its own value (app/option_table.cpp), then what follows from several values is
// settled (--scan-record auto) and the checks that relate several options run, each in one place
// (`kRelations` in config_build.cpp). Every refusal is a UsageError of one line,
// "--option: problem".
#pragma once

#include "app/option_value.hpp"
#include "model/config.hpp"

namespace iosweep {

// Throws UsageError.
Config build_config(const OptionValues& values);

}  // namespace iosweep
