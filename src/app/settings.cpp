// The settings a run declares (see settings.hpp).
#include "app/settings.hpp"

#include <stdexcept>

#include "app/config_build.hpp"
#include "app/option_table.hpp"
#include "app/options.hpp"
#include "core/errors.hpp"
#include "core/toml.hpp"

namespace iosweep {

std::vector<Setting> option_settings(const Config& c) {
  std::vector<Setting> out;
  for (const OptionRow& row : option_table()) {
    if (row.compare.phases == PhaseScope::none) continue;
    RunAttributes recorded;
    if (row.record != nullptr) row.record(c, recorded);
    if (recorded.all().empty())
      throw std::logic_error(std::string("option ") + row.name +
                             " is a setting but records nothing");
    Setting s;
    s.attribute = recorded.all().front().name;
    s.what = row.compare.what != nullptr ? row.compare.what : std::string("--") + row.name;
    s.option = row.name;
    s.phases = phase_mask(row.compare.phases, c.work.fsync_phases);
    if (row.compare.shown != nullptr) s.shown = row.compare.shown;
    if (row.compare.value != nullptr) s.value = row.compare.value(c);
    out.push_back(std::move(s));
  }
  return out;
}

std::string run_settings_toml(const Config& c) {
  std::vector<Setting> all = option_settings(c);
  for (Setting& s : found_settings())
    all.push_back(std::move(s));
  return settings_toml(all);
}

CLI::App* declare_settings(CLI::App& app, std::string& file, std::string& run_id) {
  CLI::App* cmd = app.add_subcommand(
      "settings",
      "Print the settings a stored run declares for iosweep-compare (TOML: each setting's run "
      "attribute, name and phases), made from its recorded configuration");
  cmd->add_option("RESULTS", file, "Results file, or RESULTS:RUN_ID")->required();
  cmd->add_option("RUN_ID", run_id, "The run (default: the file's latest)");
  return cmd;
}

std::string settings_of_run(const RunLoader& load, const std::string& file,
                            const std::string& run_id) {
  const RunRef ref = run_id.empty() ? split_run_ref(file) : RunRef{file, run_id};
  LoadedRun run;
  if (auto why = load(ref, run); !why.empty()) throw UsageError("settings: " + why);
  const std::string whose = "settings: the configuration of run " + run.run_id;
  std::vector<TomlItem> items;
  if (auto why = parse_toml(run.config_toml, items); !why.empty())
    throw UsageError(whose + " is not TOML iosweep can read (" + why + ")");
  // As --rerun reads it (app/rerun.cpp): older iosweeps recorded --version beside the options.
  const GivenOptions given = given_in_toml(items, ValueSource::stored_run, whose, {"version"});
  try {
    return run_settings_toml(build_config(resolve_options({&given})));
  } catch (const UsageError& e) {
    throw UsageError(whose + ": " + e.what());
  }
}

}  // namespace iosweep
