// The settings a run declares for iosweep-compare (model/settings.hpp), from the option table's
// rows: every option whose row says it is a setting (`compare`), with the run attribute that
// records it and the phases it changes, then what the run found itself. A run stores them as
// its `settings` attribute (record_options); `iosweep settings RESULTS[:RUN_ID]` prints the same
// text for a stored run from its recorded configuration, so that a script can compare a run
// recorded before runs stored it, through the binary rather than a list of its own.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "app/rerun.hpp"
#include "model/config.hpp"
#include "model/settings.hpp"

namespace iosweep {

// The options' settings of a configuration, in table order.
std::vector<Setting> option_settings(const Config& c);
// The `settings` attribute: option_settings, then found_settings, as TOML.
std::string run_settings_toml(const Config& c);

// The command `iosweep settings RESULTS [RUN_ID]`.
CLI::App* declare_settings(CLI::App& app, std::string& file, std::string& run_id);
// Its text: the stored run's recorded configuration converted by the option table, and its
// settings. Throws UsageError ("settings: ...").
std::string settings_of_run(const RunLoader& load, const std::string& file,
                            const std::string& run_id);

}  // namespace iosweep
