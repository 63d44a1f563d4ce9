// Command-line parsing into a Config (see cli.hpp): the commands, the sources of option values
// (command line, --config, --rerun) and the translation of CLI11's errors into iosweep's
// one-line messages. The options are the rows of app/option_table.cpp, declared and resolved
// in app/options.cpp and converted in app/config_build.cpp.
#include "app/cli.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <initializer_list>

#include "app/config_build.hpp"
#include "app/options.hpp"
#include "app/presets.hpp"
#include "app/settings.hpp"
#include "core/errors.hpp"
#include "core/units.hpp"
#include "model/engine_desc.hpp"
#include "output/versions.hpp"

namespace iosweep {

namespace {

// Whether the options of `setting` came from `source` (any of its rows).
bool setting_from(const OptionValues& values, std::string_view setting,
                  std::initializer_list<ValueSource> sources) {
  for (const OptionValue& v : values)
    if (v.row().setting != nullptr && v.row().setting == setting &&
        std::find(sources.begin(), sources.end(), v.source()) != sources.end())
      return true;
  return false;
}

// `iosweep run`: the option values from the command line, then --config, then --rerun's stored
// run, then the table's defaults; converted and checked (app/config_build.cpp).
void configure(const std::vector<CLI::Option*>& declared, int argc, char** argv,
               const CLI::Option& preset_opt, const std::string& preset,
               const CLI::Option& rerun_opt, const std::string& rerun_arg, const RunLoader& load,
               CliResult& res) {
  const GivenOptions cli = given_on_command_line(declared);
  GivenOptions from_preset{ValueSource::preset, {}};
  from_preset.by_row.resize(cli.by_row.size());
  if (preset_opt.count() > 0)
    from_preset = given_in_toml(read_preset(preset), ValueSource::preset,
                                "--config: '" + printable(preset) + "'");
  StoredRun stored{{}, {ValueSource::stored_run, {}}};
  stored.given.by_row.resize(cli.by_row.size());
  if (rerun_opt.count() > 0) stored = load_rerun(rerun_arg, load);
  const OptionValues values = resolve_options({&cli, &from_preset, &stored.given});
  res.rerun = stored.source;
  res.rerun.sweep_stored = setting_from(values, "points", {ValueSource::stored_run});
  res.rerun.sweep_given =
      setting_from(values, "points", {ValueSource::command_line, ValueSource::preset});
  res.cfg = build_config(values);
  res.cfg.rerun_of = res.rerun.run_id;
  res.cfg.config_toml = options_toml(values);
  for (int i = 0; i < argc; ++i)
    res.cfg.argv.emplace_back(argv[i]);
}

CliResult print(std::string text) {
  CliResult res;
  res.action = CliResult::Action::print;
  res.text = std::move(text);
  return res;
}

std::string units_text(const std::vector<std::string>& sizes) {
  std::string out;
  for (const auto& u : sizes) {
    std::uint64_t bytes = 0;
    if (auto why = parse_size(u, bytes); !why.empty()) throw UsageError("units: " + why);
    out += std::to_string(bytes) + "\n";
  }
  return out;
}

}  // namespace

CliResult parse_cli(int argc, char** argv, const RunLoader& load) {
  CliResult res;
  CLI::App app{
      "iosweep: MPI parallel I/O benchmark (N-to-N, one file per rank) in the IOzone/IOR "
      "tradition.\nSizes are binary: 4k = 4KiB = 4096 bytes, 16m = 16MiB, 1g = 1GiB.",
      "iosweep"};
  app.set_help_flag();
  app.set_help_all_flag("-h,--help", "Print this help (every option of `iosweep run`) and exit");
  bool version = false;
  app.add_flag("--version", version,
               "Print the iosweep version, git revision, MPI and HDF5 versions");
  app.require_subcommand(0, 1);
  // Every option lives on the main app and `run` falls through to it, so that `iosweep --help`
  // lists them all.
  CLI::App* run =
      app.add_subcommand("run", "Run the phases over a sweep of active ranks")->fallthrough();
  run->set_help_all_flag();
  run->set_help_flag();
  // `iosweep units 16m 4KiB`: the byte count of each size, one per line, with the same parser
  // and messages as every size option (scripts use it instead of parsing sizes themselves).
  std::vector<std::string> unit_args;
  CLI::App* units = app.add_subcommand("units", "Print the byte count of each SIZE, one per line");
  units->add_option("SIZE", unit_args, "A size as the options take it (4k, 16MiB, 1g)")->required();
  std::string preset, rerun_arg, show_file, show_id;
  const CLI::Option* preset_opt =
      app.add_option("--config", preset,
                     "TOML file of long option names (the command line wins): a path such as "
                     "modes/smoke.toml, or a preset's name such as smoke or pixstor-random, "
                     "looked up in the presets installed with this binary "
                     "(PREFIX/share/iosweep/modes) or in its source tree's modes/")
          ->type_name("FILE|NAME");
  const CLI::Option* rerun_opt = declare_rerun(app, rerun_arg);
  CLI::App* show = declare_show(app, show_file, show_id);
  std::string settings_file, settings_id;
  CLI::App* settings = declare_settings(app, settings_file, settings_id);
  app.footer(
      "Engines compiled in: " + compiled_engines() +
      ". Bandwidth is printed in MiB/s (2^20 bytes/s); results are stored in bytes and seconds.");
  const auto declared = declare_run_options(app);

  try {
    refuse_empty_values(argc, argv);
    app.parse(argc, argv);
    if (version) return print(version_text());
    if (show->parsed()) return print(show_run(load, show_file, show_id));
    if (settings->parsed()) return print(settings_of_run(load, settings_file, settings_id));
    if (units->parsed()) return print(units_text(unit_args));
    if (!run->parsed()) {
      res.action = CliResult::Action::usage_error;
      res.text = "a command is required: iosweep run --dir DIR [options] (see iosweep --help)";
      return res;
    }
    configure(declared, argc, argv, *preset_opt, preset, *rerun_opt, rerun_arg, load, res);
  } catch (const CLI::CallForAllHelp&) {
    app.clear();  // otherwise CLI11 prints the help of the selected subcommand only
    return print(app.help("", CLI::AppFormatMode::All));
  } catch (const CLI::ParseError& e) {
    res.action = CliResult::Action::usage_error;
    res.text = e.what();
  } catch (const UsageError& e) {
    res.action = CliResult::Action::usage_error;
    res.text = e.what();
  }
  return res;
}

}  // namespace iosweep
