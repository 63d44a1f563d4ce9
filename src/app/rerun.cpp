// Showing and rerunning a stored run (see rerun.hpp).
#include "app/rerun.hpp"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <map>
#include <sstream>

#include "core/errors.hpp"
#include "mpi/messages.hpp"

namespace iosweep {
namespace {

std::string count_of(int n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string utc_ms(std::uint64_t unix_ns) {
  const std::time_t t = static_cast<std::time_t>(unix_ns / 1000000000u);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char day[32], out[48];
  std::strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(out, sizeof out, "%s.%03uZ", day,
                static_cast<unsigned>(unix_ns / 1000000u % 1000u));
  return out;
}

std::string join(const std::vector<int>& v) {
  std::string s;
  for (int x : v)
    s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

}  // namespace

bool looks_like_run_id(std::string_view s) {
  // YYYYMMDDTHHMMSS.mmmZ-xxxxxxxx
  static constexpr std::string_view shape = "dddddddd_dddddd.dddZ-xxxxxxxx";
  if (s.size() != shape.size()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    const bool ok = shape[i] == 'd'   ? std::isdigit(c) != 0
                    : shape[i] == 'x' ? std::isxdigit(c) != 0
                    : shape[i] == '_' ? c == 'T'
                                      : c == static_cast<unsigned char>(shape[i]);
    if (!ok) return false;
  }
  return true;
}

RunRef split_run_ref(const std::string& arg) {
  const auto colon = arg.rfind(':');
  if (colon != std::string::npos && looks_like_run_id(std::string_view(arg).substr(colon + 1)))
    return {arg.substr(0, colon), arg.substr(colon + 1)};
  return {arg, {}};
}

std::string show_text(const RunRecord& run, const std::string& path) {
  std::string s = "# iosweep run " + run.run_id + " of " + printable(path) + "\n";
  s += "# started " + utc_ms(run.t_start_unix_ns) + "; " +
       count_of(run.world_size, "rank", "ranks") + " on " + count_of(run.n_nodes, "node", "nodes") +
       "; " + run.status + "\n";
  if (!run.label.empty()) s += "# label: " + printable(run.label) + "\n";
  if (!run.rerun_of.empty()) s += "# rerun of: " + printable(run.rerun_of) + "\n";
  if (!run.argv.empty()) s += "# argv: " + printable(run.argv) + "\n";
  std::map<int, std::vector<int>> by_node;
  for (const auto& r : run.rank_map)
    by_node[r.node].push_back(r.rank);
  for (auto& [node, ranks] : by_node) {
    std::sort(ranks.begin(), ranks.end());
    const auto n = static_cast<std::size_t>(node);
    const std::string host = n < run.hosts.size() ? printable(run.hosts[n]) : "?";
    s += "# placement: node " + std::to_string(node) + " host " + host + " ranks " + join(ranks) +
         "\n";
  }
  for (const auto& m : run.mounts)
    s += "# file system: node " + std::to_string(m.node) +
         (m.dir[0] != '\0' && m.folder > 0 ? " folder " + printable(m.dir) : std::string()) + " " +
         printable(m.fs_type) + " " + printable(m.source) + " at " + printable(m.mount_point) +
         "; wire " + printable(m.wire) + "\n";
  s += "# as a preset: iosweep run --config FILE; or iosweep run --rerun " + printable(path) + ":" +
       run.run_id + "\n";
  s += run.config_toml;
  if (!s.ends_with('\n')) s += '\n';
  return s;
}

std::string load_run_here(const RunRef& ref, LoadedRun& out) {
  RunRecord rec;
  if (auto why = read_run_record(ref.path, ref.run_id, rec); !why.empty()) {
    // A ':' the rule did not split at may have been meant as one.
    const auto colon = ref.path.rfind(':');
    if (ref.run_id.empty() && colon != std::string::npos && why.ends_with(" does not exist"))
      why += " (a run id after ':' is shaped YYYYMMDDTHHMMSS.mmmZ-xxxxxxxx)";
    return why;
  }
  out = {rec.run_id, rec.config_toml, show_text(rec, ref.path), rec.world_size, rec.n_nodes};
  return {};
}

RunLoader load_run_on_rank0(MPI_Comm comm) {
  return [comm](const RunRef& ref, LoadedRun& out) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    std::vector<std::string> v;
    if (rank == 0) {
      const std::string why = load_run_here(ref, out);
      v = {why,
           out.run_id,
           out.config_toml,
           out.shown,
           std::to_string(out.world_size),
           std::to_string(out.n_nodes)};
    }
    broadcast_strings(v, comm);
    out = {v[1], v[2], v[3], std::stoi(v[4]), std::stoi(v[5])};
    return v[0];
  };
}

CLI::App* declare_show(CLI::App& app, std::string& file, std::string& run_id) {
  CLI::App* show = app.add_subcommand(
      "show",
      "Print a run's configuration as a preset (TOML, usable with --config) and its placement");
  show->add_option("RESULTS", file, "Results file, or RESULTS:RUN_ID")->required();
  show->add_option("RUN_ID", run_id, "The run (default: the file's latest)");
  return show;
}

std::string show_run(const RunLoader& load, const std::string& file, const std::string& run_id) {
  const RunRef ref = run_id.empty() ? split_run_ref(file) : RunRef{file, run_id};
  LoadedRun run;
  if (auto why = load(ref, run); !why.empty()) throw UsageError("show: " + why);
  return run.shown;
}

CLI::Option* declare_rerun(CLI::App& app, std::string& arg) {
  return app
      .add_option("--rerun", arg,
                  "Run again with the configuration a results file stores for RUN_ID (default: "
                  "its latest run); options given override it (README: Rerunning a run)")
      ->type_name("RESULTS[:RUN_ID]")
      ->configurable(false);
}

StoredRun load_rerun(const std::string& arg, const RunLoader& load) {
  LoadedRun run;
  if (auto why = load(split_run_ref(arg), run); !why.empty()) throw UsageError("--rerun: " + why);
  const std::string whose = "--rerun: the configuration of run " + run.run_id;
  std::vector<TomlItem> items;
  std::vector<TomlHeader> headers;
  if (auto why = parse_toml(run.config_toml, items, &headers); !why.empty())
    throw UsageError(whose + " is not TOML iosweep can read (" + why + ")");
  PresetSteps split = split_steps(items, headers, whose);
  // Older iosweeps recorded --version beside the run options. (The values are read before the
  // result is built: an exception thrown inside an aggregate's initializer destroys what was
  // built before it twice with GCC 12, PR 66139.)
  GivenOptions given = given_in_toml(split.top, ValueSource::stored_run, whose, {"version"});
  StoredRun out;
  out.source = {run.run_id, run.world_size, run.n_nodes, false, false};
  out.given = std::move(given);
  out.steps = std::move(split.steps);
  return out;
}

std::string fit_rerun_to_world(const RerunSource& src, SweepSpec& sweep, int world_size,
                               int n_nodes) {
  // The cap depends on the world size alone, so that every rank caps alike.
  std::string capped;
  if (src.sweep_stored && !sweep.ranks.empty() && sweep.ranks.back() > world_size) {
    const std::string before = join(sweep.ranks);
    std::erase_if(sweep.ranks, [&](int k) { return k >= world_size; });
    sweep.ranks.push_back(world_size);
    capped = "; its --ranks " + before + " becomes " + join(sweep.ranks);
  } else if (src.sweep_stored && sweep.ranks.empty() && sweep.sweep_min > world_size) {
    capped = "; its --sweep " + std::to_string(sweep.sweep_min) + ":" +
             std::to_string(sweep.sweep_max) + " becomes " + std::to_string(world_size) + ":" +
             std::to_string(world_size);
    sweep.sweep_min = sweep.sweep_max = world_size;
  }
  if (src.run_id.empty() || (src.world_size == world_size && src.n_nodes == n_nodes)) return {};
  return "--rerun: run " + src.run_id + " had " + count_of(src.world_size, "rank", "ranks") +
         " on " + count_of(src.n_nodes, "node", "nodes") + "; this job has " +
         count_of(world_size, "rank", "ranks") + " on " + count_of(n_nodes, "node", "nodes") +
         ": the sweep follows " + (src.sweep_given ? "the command line" : "this job") + capped;
}

}  // namespace iosweep
