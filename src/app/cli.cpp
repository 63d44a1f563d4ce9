// Command-line parsing into a Config (see cli.hpp): the commands, --config presets, and the
// translation of CLI11's errors into iosweep's one-line messages. The run options are declared
// in app/options.cpp and converted in app/config_build.cpp.
#include "app/cli.hpp"

#include <CLI/CLI.hpp>

#include <sstream>

#include "app/config_build.hpp"
#include "app/options.hpp"
#include "app/presets.hpp"
#include "core/errors.hpp"
#include "core/units.hpp"
#include "engines/registry.hpp"
#include "output/versions.hpp"

namespace iosweep {

CliResult parse_cli(int argc, char** argv, const RunLoader& load) {
  CliResult res;
  RawOptions r;
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
  // lists them all and CLI11's own --config reads plain long option names.
  CLI::App* run =
      app.add_subcommand("run", "Run the phases over a sweep of active ranks")->fallthrough();
  run->set_help_all_flag();
  run->set_help_flag();
  // `iosweep units 16m 4KiB`: the byte count of each size, one per line, with the same parser
  // and messages as every size option (scripts use it instead of parsing sizes themselves).
  std::vector<std::string> unit_args;
  CLI::App* units = app.add_subcommand("units", "Print the byte count of each SIZE, one per line");
  units->add_option("SIZE", unit_args, "A size as the options take it (4k, 16MiB, 1g)")->required();
  app.set_config("--config", "",
                 "TOML file of long option names (CLI11's format), e.g. modes/smoke.toml")
      ->type_name("FILE");
  app.config_formatter(preset_format());
  std::string rerun_arg, show_file, show_id;
  declare_rerun(app, rerun_arg);
  CLI::App* show = declare_show(app, show_file, show_id);
  app.allow_config_extras(CLI::config_extras_mode::error);
  app.footer(
      "Engines compiled in: " + compiled_engines() +
      ". Bandwidth is printed in MiB/s (2^20 bytes/s); results are stored in bytes and seconds.");
  const auto flags = declare_run_options(app, r);

  try {
    if (auto why = check_preset_args(argc, argv); !why.empty()) throw UsageError(why);
    app.parse(argc, argv);
    if (auto why = check_given_values(app, flags); !why.empty()) throw UsageError(why);
    if (version) {
      res.action = CliResult::Action::print;
      res.text = version_text();
      return res;
    }
    if (show->parsed()) {
      res.action = CliResult::Action::print;
      res.text = show_run(load, show_file, show_id);
      return res;
    }
    if (units->parsed()) {
      res.action = CliResult::Action::print;
      for (const auto& u : unit_args) {
        std::uint64_t bytes = 0;
        if (auto why = parse_size(u, bytes); !why.empty()) throw UsageError("units: " + why);
        res.text += std::to_string(bytes) + "\n";
      }
      return res;
    }
    if (!run->parsed()) {
      res.action = CliResult::Action::usage_error;
      res.text = "a command is required: iosweep run --dir DIR [options] (see iosweep --help)";
      return res;
    }
    if (!rerun_arg.empty()) {
      res.rerun = apply_rerun(app, rerun_arg, load);
      if (auto why = check_given_values(app, flags); !why.empty()) throw UsageError(why);
    }
    res.cfg = build_config(r);
    res.cfg.rerun_of = res.rerun.run_id;
    // The effective configuration as TOML, without the options left unset (empty values).
    // --fsync's default text is its value when given bare ("all"); not given, no phase fsyncs.
    const bool fsync_given = app.get_option("--fsync")->count() > 0;
    std::string toml;
    std::istringstream lines(app.config_to_str(true, false));
    for (std::string line; std::getline(lines, line);)
      if (!fsync_given && line.starts_with("fsync="))
        toml += "fsync=\"none\"\n";
      else if (!line.ends_with("=\"\""))
        toml += line + "\n";
    res.cfg.config_toml = toml;
    for (int i = 0; i < argc; ++i)
      res.cfg.argv.emplace_back(argv[i]);
  } catch (const CLI::CallForAllHelp&) {
    res.action = CliResult::Action::print;
    app.clear();  // otherwise CLI11 prints the help of the selected subcommand only
    res.text = app.help("", CLI::AppFormatMode::All);
  } catch (const CLI::ConfigError& e) {
    res.action = CliResult::Action::usage_error;
    const std::string m = e.what(), prefix = "INI was not able to parse ";
    res.text = m.starts_with(prefix) ? "--config: unknown option '" + m.substr(prefix.size()) +
                                           "' in the configuration file"
                                     : "--config: " + m;
  } catch (const CLI::FileError& e) {
    res.action = CliResult::Action::usage_error;
    res.text = std::string("--config: ") + e.what();
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
