// Command-line parsing into a Config (see cli.hpp): the commands, the sources of option values
// (command line, --config, --rerun) and the translation of CLI11's errors into iosweep's
// one-line messages. The options are the rows of app/option_table.cpp, declared and resolved
// in app/options.cpp and converted in app/config_build.cpp.
#include "app/cli.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <initializer_list>

#include "app/config_build.hpp"
#include "app/io500_ini.hpp"
#include "app/man_page.hpp"
#include "app/option_table.hpp"
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
  std::vector<PresetSteps::Step> steps;
  std::string preset_file;
  std::string steps_whose;
  if (preset_opt.count() > 0) {
    const PresetText text = read_preset(preset);
    PresetSteps split = split_steps(text.items, text.headers, text.whose);
    from_preset = given_in_toml(split.top, ValueSource::preset, text.whose);
    steps = std::move(split.steps);
    steps_whose = text.whose;
    preset_file = text.path;
  }
  StoredRun stored{{}, {ValueSource::stored_run, {}}, {}};
  stored.given.by_row.resize(cli.by_row.size());
  if (rerun_opt.count() > 0) stored = load_rerun(rerun_arg, load);
  // A preset's steps replace a stored run's; without either the run is one shape.
  if (steps.empty() && !stored.steps.empty()) {
    steps = stored.steps;
    steps_whose = "--rerun: the configuration of run " + stored.source.run_id;
  }
  const OptionValues values = resolve_options({&cli, &from_preset, &stored.given});
  res.rerun = stored.source;
  res.rerun.sweep_stored = setting_from(values, "points", {ValueSource::stored_run});
  res.rerun.sweep_given =
      setting_from(values, "points", {ValueSource::command_line, ValueSource::preset});
  res.steps =
      build_steps(cli, {&from_preset, &stored.given}, steps, ValueSource::step, steps_whose);
  const std::string recorded =
      steps.empty() ? options_toml(values) : stepped_toml(options_toml(values), steps);
  for (StepInput& step : res.steps) {
    step.cfg.rerun_of = res.rerun.run_id;
    step.cfg.preset_file = preset_file;
    step.cfg.config_toml = recorded;
    for (int i = 0; i < argc; ++i)
      step.cfg.argv.emplace_back(argv[i]);
  }
  res.cfg = res.steps.front().cfg;
}

constexpr const char* kIo500Help =
    "Usage: iosweep io500 FILE.ini [--output FILE] [--label TEXT] [--repetitions N] [--quiet]\n"
    "         [--dry-run] [--stall-limit S] [--stall-wait] [--timeseries-bin S]\n"
    "         [--wire-interface IF] [--rated-bw RATE] [--rated-iops N] [--show-controls]\n"
    "\n"
    "Runs the IO500 as the io500 application runs it, under mpirun or srun (every rank of the\n"
    "job): FILE.ini is the application's configuration file ([global] datadir, resultdir, ...;\n"
    "[debug] stonewall-time; [ior-easy], [ior-hard], [mdtest-easy], [mdtest-hard], [find] and\n"
    "each phase's run key), read as the application reads it. The twelve scored phases and\n"
    "ior-rnd4K-easy-read run in its order, with its shapes; the score is its calc_score, the\n"
    "rules its rules (a stonewall-time other than 300 makes the run INVALID). The result folder\n"
    "gets result_summary.txt, result.txt, config-orig.ini and config.ini in its formats, and\n"
    "iosweep's own result_phases.txt: each phase's window, straggler tail after the stonewall,\n"
    "wear-out, latency percentiles and whether a cache served it. The run is appended to\n"
    "--output as one run whose every row names its IO500 phase.\n"
    "\n"
    "  --repetitions N  the whole suite N times (1 to 100): result_repetitions.txt has each\n"
    "                   repetition's score and the medians with bootstrap 95% intervals\n"
    "  the others       as for iosweep run (see iosweep --help)\n"
    "\n"
    "README: The IO500. scripts/iosweep-compare and scripts/iosweep-report read its results\n"
    "beside the application's result folder; scripts/bench-vs-io500 runs both side by side.\n";

// The options `iosweep io500` takes from the command line: where results go and how the run
// is shown and watched; everything the IO500 measures comes from the INI file.
void configure_io500(const std::vector<CLI::Option*>& declared, const std::string& path,
                     CliResult& res) {
  static const char* const taken[] = {
      "output",         "label",          "quiet",    "dry-run",    "stall-limit",   "stall-wait",
      "timeseries-bin", "wire-interface", "rated-bw", "rated-iops", "show-controls", "repetitions"};
  res.io500_given = given_on_command_line(declared);
  const auto table = option_table();
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (!res.io500_given.by_row[i]) continue;
    const std::string_view name = table[i].name;
    if (std::none_of(std::begin(taken), std::end(taken), [&](const char* t) { return name == t; }))
      throw UsageError("--" + std::string(name) +
                       ": iosweep io500 takes its folders, sizes and phases from the INI file; "
                       "the command line gives only --output, --label, --quiet, --dry-run, "
                       "--repetitions, --stall-limit, --stall-wait, --timeseries-bin, "
                       "--wire-interface, --rated-bw, --rated-iops and --show-controls");
  }
  // --repetitions N repeats the whole suite (every step once per repetition), not each point.
  const std::size_t reps = option_index(*find_option("repetitions"));
  if (auto& given = res.io500_given.by_row[reps]) {
    const std::string text = given->empty() ? std::string() : given->back();
    std::uint64_t n = 0;
    const bool digits = !text.empty() && text.size() <= 4 &&
                        text.find_first_not_of("0123456789") == std::string::npos;
    if (digits) n = std::stoull(text);
    if (n < 1 || n > kMaxIo500Repetitions)
      throw UsageError("--repetitions: '" + printable(text) + "' is not a whole number from 1 to " +
                       std::to_string(kMaxIo500Repetitions) + " (the IO500 suite's repetitions)");
    res.io500_repetitions = static_cast<int>(n);
    given.reset();
  }
  res.io500_path = path;
  res.io500_text = read_io500_ini(path);
  res.io500 = parse_io500_ini(res.io500_text, "io500: '" + printable(path) + "'");
  res.action = CliResult::Action::io500;
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

// What the command line binds its commands and options to.
struct Commands {
  bool version = false;
  std::vector<std::string> unit_args;
  std::string preset, rerun_arg, show_file, show_id, settings_file, settings_id, io500_ini;
  CLI::App* run = nullptr;
  CLI::App* io500 = nullptr;
  CLI::App* units = nullptr;
  CLI::App* show = nullptr;
  CLI::App* settings = nullptr;
  const CLI::Option* preset_opt = nullptr;
  const CLI::Option* rerun_opt = nullptr;
  std::vector<CLI::Option*> declared;
};

// Every command and option of iosweep on `app`, bound to `c` (parse_cli reads them back; the
// man page, app/man_page.cpp, renders them).
void declare_commands(CLI::App& app, Commands& c) {
  app.set_help_flag();
  app.set_help_all_flag("-h,--help", "Print this help (every option of `iosweep run`) and exit");
  app.add_flag("--version", c.version,
               "Print the iosweep version, git revision, MPI and HDF5 versions");
  app.require_subcommand(0, 1);
  // Every option lives on the main app and `run` falls through to it, so that `iosweep --help`
  // lists them all.
  c.run = app.add_subcommand("run", "Run the phases over a sweep of active ranks")->fallthrough();
  c.run->set_help_all_flag();
  c.run->set_help_flag();
  // `iosweep io500 FILE.ini`: the io500 application's configuration, run as its phases in one
  // launch (app/io500_command.cpp); the options it takes fall through to the main app.
  c.io500 = app.add_subcommand("io500",
                               "Run the IO500 from the io500 application's INI file: its phases "
                               "in its order, its score, rules and result files")
                ->fallthrough();
  c.io500->set_help_flag();
  c.io500->add_option("INI", c.io500_ini, "The io500 application's configuration file")->required();
  // `iosweep units 16m 4KiB`: the byte count of each size, one per line, with the same parser
  // and messages as every size option (scripts use it instead of parsing sizes themselves).
  c.units = app.add_subcommand("units", "Print the byte count of each SIZE, one per line");
  c.units->add_option("SIZE", c.unit_args, "A size as the options take it (4k, 16MiB, 1g)")
      ->required();
  c.preset_opt =
      app.add_option("--config", c.preset,
                     "TOML file of long option names (the command line wins): a path (a '/' in "
                     "it, or ending in .toml) such as modes/smoke.toml or ./mine, or a preset's "
                     "name such as smoke or pixstor-random, looked up only in the presets "
                     "installed with this binary (PREFIX/share/iosweep/modes) or in its source "
                     "tree's modes/")
          ->type_name("FILE|NAME")
          ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  c.rerun_opt =
      declare_rerun(app, c.rerun_arg)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  c.show = declare_show(app, c.show_file, c.show_id);
  c.settings = declare_settings(app, c.settings_file, c.settings_id);
  app.footer(
      "Engines compiled in: " + compiled_engines() +
      ". Bandwidth is printed in MiB/s (2^20 bytes/s); results are stored in bytes and seconds.\n" +
      kGivenTwice);
  c.declared = declare_run_options(app);
}

}  // namespace

constexpr const char* kAbout =
    "iosweep: MPI parallel I/O benchmark (N-to-N, one file per rank) in the IOzone/IOR "
    "tradition.\nSizes are binary: 4k = 4KiB = 4096 bytes, 16m = 16MiB, 1g = 1GiB.";

std::string man_page() {
  CLI::App app{kAbout, "iosweep"};
  Commands c;
  declare_commands(app, c);
  return render_man_page(app);
}

CliResult parse_cli(int argc, char** argv, const RunLoader& load) {
  CliResult res;
  CLI::App app{kAbout, "iosweep"};
  Commands c;
  declare_commands(app, c);
  try {
    refuse_empty_values(argc, argv);
    app.parse(argc, argv);
    if (c.version) return print(version_text());
    if (c.show->parsed()) return print(show_run(load, c.show_file, c.show_id));
    if (c.settings->parsed()) return print(settings_of_run(load, c.settings_file, c.settings_id));
    if (c.units->parsed()) return print(units_text(c.unit_args));
    if (c.io500->parsed()) {
      configure_io500(c.declared, c.io500_ini, res);
      return res;
    }
    if (!c.run->parsed()) {
      res.action = CliResult::Action::usage_error;
      res.text =
          "a command is required: iosweep run --dir DIR [options], or iosweep io500 "
          "FILE.ini (see iosweep --help)";
      return res;
    }
    configure(c.declared, argc, argv, *c.preset_opt, c.preset, *c.rerun_opt, c.rerun_arg, load,
              res);
  } catch (const CLI::CallForAllHelp&) {
    if (c.io500->parsed() || (argc > 1 && std::string_view(argv[1]) == "io500"))
      return print(kIo500Help);
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
