// The io500 command (see io500_command.hpp).
#include "app/io500_command.hpp"

#include <ctime>

#include "app/io500_steps.hpp"
#include "app/launch.hpp"
#include "app/steps.hpp"
#include "core/errors.hpp"
#include "core/toml.hpp"
#include "mpi/messages.hpp"
#include "os/file_ops.hpp"
#include "os/tree_walk.hpp"
#include "output/io500_writer.hpp"

namespace iosweep {
namespace {

// The application's timestamp folder name ("2026.12.02-00.47.45"), drawn on rank 0.
std::string stamp_on_rank0(const MpiSession& mpi) {
  std::vector<std::string> v(1);
  if (mpi.rank() == 0) {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    ::localtime_r(&now, &tm);
    char s[32];
    std::strftime(s, sizeof s, "%Y.%m.%d-%H.%M.%S", &tm);
    v[0] = s;
  }
  broadcast_strings(v, MPI_COMM_WORLD);
  return v[0];
}

Io500Dirs dirs_of(const Io500Ini& ini, const std::string& stamp) {
  Io500Dirs d;
  d.datadir = ini.timestamp_datadir ? ini.datadir + "/" + stamp : ini.datadir;
  d.resultdir = ini.timestamp_resultdir ? ini.resultdir + "/" + stamp : ini.resultdir;
  return d;
}

// The files a run writes into its result folder. The application writes over an earlier
// run's; iosweep never replaces results, so a folder that holds one is refused.
void refuse_earlier_results(const std::string& resultdir) {
  for (const char* name :
       {"result_summary.txt", "result.txt", "result_phases.txt", "result_repetitions.txt",
        "config-orig.ini", "config.ini", "timestampfile"})
    if (fsops::exists(resultdir + "/" + name))
      throw UsageError("resultdir '" + printable(resultdir) + "' holds an earlier run's " + name +
                       ": iosweep never writes over results; give another resultdir, or "
                       "timestamp-resultdir = TRUE");
}

// Rank 0 makes the folders the application makes; every rank learns whether it could.
std::string make_dirs(const Io500Dirs& d, const MpiSession& mpi, std::vector<std::string>& made) {
  std::string why;
  if (mpi.rank() == 0) {
    try {
      refuse_earlier_results(d.resultdir);
      for (const std::string& f : {d.resultdir, d.datadir})
        for (auto& m : fsops::make_folders(f))
          made.push_back(std::move(m));
      for (const std::string& f : d.test_dirs())
        for (auto& m : fsops::make_folders(f))
          made.push_back(std::move(m));
    } catch (const std::exception& e) {
      fsops::remove_empty_folders(made);
      made.clear();
      why = std::string("io500: ") + e.what();
    }
  }
  return agree_first(why, MPI_COMM_WORLD);
}

std::vector<StepInput> steps_of(const CliResult& cli, const std::string& preset, int argc,
                                char** argv) {
  const std::string whose = "io500: '" + printable(cli.io500_path) + "'";
  std::vector<TomlItem> items;
  std::vector<TomlHeader> headers;
  if (auto why = parse_toml(preset, items, &headers); !why.empty())
    throw std::logic_error("the IO500 steps do not parse: " + why);
  PresetSteps split = split_steps(items, headers, whose);
  const GivenOptions top = given_in_toml(split.top, ValueSource::preset, whose);
  std::vector<StepInput> steps =
      build_steps(cli.io500_given, {&top}, split.steps, ValueSource::step, whose);
  for (StepInput& s : steps) {
    s.cfg.preset_file = cli.io500_path;
    s.cfg.config_toml = preset;
    for (int i = 0; i < argc; ++i)
      s.cfg.argv.emplace_back(argv[i]);
  }
  return steps;
}

}  // namespace

int run_io500(CliResult& cli, int argc, char** argv, const MpiSession& mpi) {
  const bool rank0 = mpi.rank() == 0;
  const Io500Dirs dirs = dirs_of(cli.io500, stamp_on_rank0(mpi));
  std::vector<std::string> made;
  if (const std::string why = make_dirs(dirs, mpi, made); !why.empty()) {
    if (rank0) std::fprintf(stderr, "iosweep: %s\n", printable(why).c_str());
    return kExitUsage;
  }
  auto undo = [&made, rank0] {
    if (rank0) fsops::remove_empty_folders(made);
  };
  const std::string preset = io500_preset(cli.io500, dirs, mpi.size(), cli.io500_repetitions);
  std::vector<StepInput> steps;
  try {
    steps = steps_of(cli, preset, argc, argv);
    if (steps.empty())
      throw UsageError("io500: '" + printable(cli.io500_path) +
                       "' runs no phase (every run = FALSE)");
  } catch (const UsageError& e) {
    if (rank0) std::fprintf(stderr, "iosweep: %s\n", printable(e.what()).c_str());
    undo();
    return kExitUsage;
  }
  Io500Report report;
  report.resultdir = dirs.resultdir;
  report.config_orig = cli.io500_text;
  report.config_ini = io500_config_ini(cli.io500);
  report.procs = mpi.size();
  report.stonewall_s = static_cast<double>(cli.io500.stonewall_s);
  report.min_write_s = static_cast<double>(kIo500RuleStonewallS);
  report.repetitions = cli.io500_repetitions;
  if (cli.io500.stonewall_s != kIo500RuleStonewallS)
    report.run_invalid.push_back("stonewall-time " + std::to_string(cli.io500.stonewall_s) +
                                 "s != " + std::to_string(kIo500RuleStonewallS) + "s");
  // The application runs drop-caches-cmd on every rank before every phase; iosweep drops what
  // it measures itself (README: The IO500), and says so rather than pass over the command.
  if (rank0 && cli.io500.drop_caches && cli.io500.given.count("global.drop-caches-cmd") != 0)
    std::fprintf(stderr,
                 "iosweep: io500: [global] drop-caches-cmd is not run: with drop-caches = TRUE "
                 "iosweep drops each data file's pages before its reads and every node's dentries "
                 "and inodes before the stats and reads itself\n");
  RunExtras extras;
  if (rank0) extras.writer = std::make_unique<Io500Writer>(std::move(report), stdout);
  extras.refused = undo;
  return plan_and_run(steps, RerunSource{}, mpi, std::move(extras));
}

}  // namespace iosweep
