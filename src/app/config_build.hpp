// Conversion of the run options from text (app/options.hpp) to the typed configuration
// (model/config.hpp), with the checks that need nothing but the options themselves. Every
// refusal is a UsageError of one line, "--option: problem".
#pragma once

#include "app/options.hpp"
#include "model/config.hpp"

namespace iosweep {

// Throws UsageError.
Config build_config(const RawOptions& r);

}  // namespace iosweep
