// Command-line parsing into a Config (see cli.hpp). Options are read as text and converted
// here, so that every message names the option and the value it refuses.
#include "app/cli.hpp"

#include <CLI/CLI.hpp>

#include <limits>
#include <sstream>

#include "app/version.hpp"
#include "core/errors.hpp"
#include "core/units.hpp"
#include "engines/registry.hpp"
#include "phases/phase_table.hpp"

namespace iosweep {
namespace {

struct Raw {
  std::string dir, file_size = "1g", seq_record = "16m", rand_record = "4k", scan_record = "auto";
  std::vector<std::string> phases, ranks;
  std::string sweep, placement = "spread", repetitions = "1", seed = "42";
  std::string filter_key = "0xfeedfacecafebeef", filter_every = "1048576", filter_kernel = "auto";
  std::string rated_bw, engine = "posix", iodepth = "1", iodepth_batch = "1", cache = "drop",
                        read_shift = "0";
  std::vector<std::string> hints;
  std::string stonewall, timeseries_bin = "100ms", format = "table", reuse;
  std::string output = "results/iosweep.h5", label;
  bool fsync = false, keep = false, direct = false, sqpoll = false, wearout = false, verify = false,
       quiet = false, force = false, dry_run = false, hugepages = false;
};

std::uint64_t size_opt(const char* opt, const std::string& v) {
  std::uint64_t out = 0;
  if (auto why = parse_size(v, out); !why.empty()) throw UsageError(std::string(opt) + ": " + why);
  if (out == 0) throw UsageError(std::string(opt) + ": must be larger than zero");
  return out;
}

std::uint64_t count_opt(const char* opt, const std::string& v, std::uint64_t min,
                        std::uint64_t max) {
  std::uint64_t out = 0;
  if (auto why = parse_count(v, out); !why.empty()) throw UsageError(std::string(opt) + ": " + why);
  if (out < min) throw UsageError(std::string(opt) + ": must be at least " + std::to_string(min));
  if (out > max) throw UsageError(std::string(opt) + ": must be at most " + std::to_string(max));
  return out;
}

std::uint64_t u64_opt(const char* opt, const std::string& v) {
  try {
    std::size_t used = 0;
    if (!v.empty() && v[0] == '-') throw std::invalid_argument("negative");
    const unsigned long long x = std::stoull(v, &used, 0);
    if (used != v.size()) throw std::invalid_argument("trailing");
    return x;
  } catch (const std::exception&) {
    throw UsageError(std::string(opt) + ": '" + v +
                     "' is not an unsigned 64-bit number (decimal or 0x hex)");
  }
}

Config build(const Raw& r) {
  Config c;
  if (r.dir.empty())
    throw UsageError("--dir: required; the folder where each rank writes its file");
  c.dir = r.dir;
  while (c.dir.size() > 1 && c.dir.back() == '/')
    c.dir.pop_back();
  c.file_size = size_opt("--file-size", r.file_size);
  c.seq_record = size_opt("--seq-record", r.seq_record);
  c.rand_record = size_opt("--rand-record", r.rand_record);
  // auto: 1 MiB, a record that is still in the L2 cache when it is counted; with --direct the
  // data arrives by DMA, not through any cache, and only the request size matters to the
  // device, so the scan reads in --seq-record units as seq-read does.
  c.scan_record = r.scan_record == "auto" ? 0 : size_opt("--scan-record", r.scan_record);

  bool want[kPhaseCount] = {};
  if (r.phases.empty())
    for (auto& w : want)
      w = true;
  for (const auto& p : r.phases) {
    PhaseKind k;
    if (p.empty()) throw UsageError("--phases: empty phase name");
    if (!parse_phase(p, k))
      throw UsageError("--phases: unknown phase '" + p +
                       "'; choose from seq-write, seq-read, rand-write, rand-read, filter-count");
    want[static_cast<int>(k)] = true;
  }
  for (const auto& e : phase_table())
    if (want[static_cast<int>(e.kind)]) c.phases.push_back(e.kind);

  if (!r.ranks.empty() && !r.sweep.empty())
    throw UsageError("--ranks and --sweep: give one or the other");
  for (const auto& v : r.ranks) {
    if (v.empty()) throw UsageError("--ranks: empty entry in the list");
    c.ranks.push_back(static_cast<int>(count_opt("--ranks", v, 1, 1u << 24)));
  }
  if (!r.sweep.empty()) {
    const auto colon = r.sweep.find(':');
    if (colon == std::string::npos) throw UsageError("--sweep: '" + r.sweep + "' is not MIN:MAX");
    c.sweep_min = static_cast<int>(count_opt("--sweep", r.sweep.substr(0, colon), 1, 1u << 24));
    c.sweep_max = static_cast<int>(count_opt("--sweep", r.sweep.substr(colon + 1), 1, 1u << 24));
  }
  if (r.placement == "spread")
    c.placement = Placement::spread;
  else if (r.placement == "block")
    c.placement = Placement::block;
  else
    throw UsageError("--placement: '" + r.placement + "' is not spread or block");
  c.repetitions = static_cast<int>(count_opt("--repetitions", r.repetitions, 1, 1000000));
  c.seed = u64_opt("--seed", r.seed);
  c.filter_key = u64_opt("--filter-key", r.filter_key);
  c.filter_every =
      count_opt("--filter-every", r.filter_every, 2, std::numeric_limits<std::uint64_t>::max() / 2);
  if (!parse_filter_kernel(r.filter_kernel, c.filter_kernel))
    throw UsageError("--filter-kernel: '" + r.filter_kernel +
                     "' is not auto, avx512, avx2 or scalar");
  if (!r.rated_bw.empty())
    if (auto why = parse_rate(r.rated_bw, c.rated_bw_Bps); !why.empty())
      throw UsageError("--rated-bw: " + why);
  c.fsync = r.fsync;
  c.keep = r.keep;

  const EngineEntry* e = find_engine(r.engine);
  if (e == nullptr)
    throw UsageError("--engine: unknown engine '" + r.engine +
                     "'; choose from posix, uring, mpiio");
  if (!e->compiled)
    throw UsageError("--engine: " + r.engine +
                     " is not compiled into this build (have: " + compiled_engines() + ")");
  c.engine = e->kind;
  c.engine_options.iodepth = static_cast<unsigned>(count_opt("--iodepth", r.iodepth, 1, 4096));
  if (c.engine == EngineKind::posix && c.engine_options.iodepth != 1)
    throw UsageError(
        "--iodepth: the posix engine is synchronous (depth 1); use --engine uring or mpiio for " +
        r.iodepth);
  c.engine_options.iodepth_batch =
      static_cast<unsigned>(count_opt("--iodepth-batch", r.iodepth_batch, 1, 4096));
  if (c.engine_options.iodepth_batch > c.engine_options.iodepth)
    throw UsageError("--iodepth-batch: " + r.iodepth_batch + " is more than --iodepth " +
                     r.iodepth);
  c.engine_options.direct = r.direct;
  if (c.scan_record == 0) c.scan_record = c.engine_options.direct ? c.seq_record : (1ull << 20);
  c.hugepages = r.hugepages;
  c.engine_options.sqpoll = r.sqpoll;
  if (r.sqpoll && c.engine != EngineKind::uring)
    throw UsageError("--sqpoll: only for --engine uring");
  for (const auto& h : r.hints) {
    const auto eq = h.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError("--mpiio-hint: '" + h + "' is not key=value");
    c.engine_options.mpiio_hints.emplace_back(h.substr(0, eq), h.substr(eq + 1));
  }
  if (!c.engine_options.mpiio_hints.empty() && c.engine != EngineKind::mpiio)
    throw UsageError("--mpiio-hint: only for --engine mpiio");
  if (c.engine == EngineKind::mpiio && c.engine_options.direct)
    throw UsageError(
        "--direct: the mpiio engine cannot open files with O_DIRECT; use --engine posix or uring");
  if (r.cache == "drop")
    c.cache = CacheMode::drop;
  else if (r.cache == "keep")
    c.cache = CacheMode::keep;
  else
    throw UsageError("--cache: '" + r.cache + "' is not drop or keep");
  if (r.read_shift == "auto")
    c.read_shift_auto = true;
  else
    c.read_shift = static_cast<int>(count_opt("--read-shift", r.read_shift, 0, 1u << 24));

  if (!r.stonewall.empty())
    if (auto why = parse_seconds(r.stonewall, c.stonewall_s); !why.empty())
      throw UsageError("--stonewall: " + why);
  c.stonewall_wearout = r.wearout;
  if (c.stonewall_wearout && c.stonewall_s <= 0)
    throw UsageError("--stonewall-wearout: needs --stonewall SECONDS");
  if (auto why = parse_seconds(r.timeseries_bin, c.timeseries_bin_s); !why.empty())
    throw UsageError("--timeseries-bin: " + why);
  if (c.timeseries_bin_s < 1e-3) throw UsageError("--timeseries-bin: must be at least 1ms");
  c.verify = r.verify;
  c.quiet = r.quiet;
  c.force = r.force;
  if (r.format != "table" && r.format != "iozone")
    throw UsageError("--format: '" + r.format + "' is not table or iozone");
  c.format = r.format;
  c.reuse_run = r.reuse;
  if (!c.reuse_run.empty()) {
    if (c.reuse_run.find_first_of("/ \t") != std::string::npos)
      throw UsageError("--reuse: '" + c.reuse_run + "' is not a run id");
    for (auto k : c.phases)
      if (k == PhaseKind::seq_write)
        throw UsageError(
            "--reuse: seq-write makes new files; the kept files of another run are only read "
            "or rewritten in place (rand-write), so leave seq-write out of --phases");
  }
  if (r.output.empty()) throw UsageError("--output: empty file name");
  c.output = r.output;
  c.label = r.label;
  c.dry_run = r.dry_run;
  return c;
}

}  // namespace

CliResult parse_cli(int argc, char** argv) {
  CliResult res;
  Raw r;
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
  app.allow_config_extras(CLI::config_extras_mode::error);
  app.footer(
      "Engines compiled in: " + compiled_engines() +
      ". Bandwidth is printed in MiB/s (2^20 bytes/s); results are stored in bytes and seconds.");
  CLI::App* opts = &app;

  opts->add_option(
          "--dir", r.dir,
          "Target folder; every active rank writes <dir>/iosweep.<run-id>.<position> (required)")
      ->type_name("DIR");
  opts->add_option("--file-size", r.file_size,
                   "Bytes per rank's file, as IOzone -s (4k, 16m, 1g: binary units)")
      ->capture_default_str()
      ->type_name("SIZE");
  opts->add_option("--seq-record", r.seq_record, "Record size of seq-write and seq-read")
      ->capture_default_str()
      ->type_name("SIZE");
  opts->add_option("--rand-record", r.rand_record, "Record size of rand-write and rand-read")
      ->capture_default_str()
      ->type_name("SIZE");
  opts->add_option("--scan-record", r.scan_record,
                   "Read size of filter-count: auto = 1 MiB (counted while in L2), or --seq-record "
                   "with --direct")
      ->capture_default_str()
      ->type_name("SIZE");
  opts->add_option("--phases", r.phases,
                   "Subset of seq-write,seq-read,rand-write,rand-read,filter-count; always run in "
                   "that order (default: all)")
      ->delimiter(',')
      ->type_name("LIST");
  opts->add_option("--ranks", r.ranks,
                   "Active rank counts, strictly increasing, e.g. 1,2,4 (instead of --sweep)")
      ->delimiter(',')
      ->type_name("LIST");
  opts->add_option("--sweep", r.sweep,
                   "MIN:MAX: MIN, the powers of two above it, capped at the world size, and the "
                   "cap itself (default 1:<world size>)")
      ->type_name("MIN:MAX");
  opts->add_option("--placement", r.placement,
                   "spread: activate ranks round-robin across nodes; block: in rank order")
      ->capture_default_str()
      ->type_name("MODE");
  opts->add_option("--repetitions", r.repetitions, "Run every point this many times")
      ->capture_default_str()
      ->type_name("N");
  opts->add_option("--seed", r.seed, "Seed of the data pattern and of the random orders")
      ->capture_default_str()
      ->type_name("N");
  opts->add_option("--filter-key", r.filter_key,
                   "The 64-bit value filter-count counts (decimal or 0x hex)")
      ->capture_default_str()
      ->type_name("N");
  opts->add_option("--filter-every", r.filter_every,
                   "One planted key every N 64-bit words (N >= 2)")
      ->capture_default_str()
      ->type_name("N");
  opts->add_option("--filter-kernel", r.filter_kernel, "Count kernel: auto, avx512, avx2 or scalar")
      ->capture_default_str()
      ->type_name("PATH");
  opts->add_option("--rated-bw", r.rated_bw,
                   "Rated bandwidth of each rank's device, e.g. 5.2GB/s (decimal) or 3GiB/s; adds "
                   "percent of rated to the filter-count report")
      ->type_name("RATE");
  opts->add_flag("--fsync", r.fsync,
                 "fsync inside the timed write, as IOzone -e (close is always timed, as -c)");
  opts->add_flag(
      "--keep", r.keep,
      "Keep the files at the end, as IOzone -w (default: remove the files this run created)");
  opts->add_option("--engine", r.engine,
                   "I/O engine: posix (pread/pwrite, the reference), uring, mpiio; compiled in: " +
                       compiled_engines())
      ->capture_default_str()
      ->type_name("NAME");
  opts->add_option("--iodepth", r.iodepth, "Requests in flight per rank (uring, mpiio)")
      ->capture_default_str()
      ->type_name("N");
  opts->add_option(
          "--iodepth-batch", r.iodepth_batch,
          "io_uring: requests handed to the kernel per system call (fio's iodepth_batch_submit)")
      ->capture_default_str()
      ->type_name("N");
  opts->add_flag("--direct", r.direct, "O_DIRECT on every open (bypass the page cache)");
  opts->add_flag("--hugepages", r.hugepages,
                 "Advise I/O buffers for transparent huge pages (fewer DMA segments; fio and IOR "
                 "use plain pages)");
  opts->add_flag("--sqpoll", r.sqpoll, "io_uring kernel submission thread (takes a core)");
  opts->add_option("--mpiio-hint", r.hints,
                   "MPI_Info hint key=value for --engine mpiio (repeatable)")
      ->type_name("KEY=VALUE");
  opts->add_option("--cache", r.cache,
                   "drop: fsync + fadvise(DONTNEED) every file before each reading phase "
                   "(untimed); keep: read through the page cache")
      ->capture_default_str()
      ->type_name("MODE");
  opts->add_option("--read-shift", r.read_shift,
                   "Reading phases: position i reads the file of position (i+K) mod k, as IOR -C; "
                   "auto: smallest K that puts every reader on another node")
      ->capture_default_str()
      ->type_name("K|auto");
  opts->add_option(
          "--stonewall", r.stonewall,
          "Stop issuing operations after SECONDS in every phase; figures count only what completed")
      ->type_name("SECONDS");
  opts->add_flag("--stonewall-wearout", r.wearout,
                 "After the deadline every rank continues, untimed, to the furthest rank's count "
                 "(IOR's wear-out)");
  opts->add_option("--timeseries-bin", r.timeseries_bin,
                   "Time-series bin width (bytes and ops per bin, per rank)")
      ->capture_default_str()
      ->type_name("SECONDS");
  opts->add_flag("--verify", r.verify,
                 "Check every block read (stamp, pattern, keys); time spent is inside the timed "
                 "window and reported as verify");
  opts->add_flag("--quiet", r.quiet, "No live progress on stderr");
  opts->add_flag("--force", r.force,
                 "Run even when --dir lacks the free space the largest point needs");
  opts->add_option("--format", r.format,
                   "table, or iozone: also print IOzone-style throughput blocks")
      ->capture_default_str()
      ->type_name("FORMAT");
  opts->add_option(
          "--reuse", r.reuse,
          "Use the files an earlier run kept with --keep (its run id; same --dir, --file-size, "
          "--seed): read them, or rewrite them in place with rand-write; never removed")
      ->type_name("RUN_ID");
  opts->add_option("--output", r.output, "HDF5 results file; the run is appended")
      ->capture_default_str()
      ->type_name("FILE");
  opts->add_option("--label", r.label, "Free text stored with the run")->type_name("TEXT");
  opts->add_flag("--dry-run", r.dry_run,
                 "Validate, print the plan (points, files, bytes per phase) and touch nothing");

  try {
    app.parse(argc, argv);
    if (version) {
      res.action = CliResult::Action::print;
      res.text = version_text();
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
    res.cfg = build(r);
    // The effective configuration as TOML, without the options left unset (empty values).
    std::string toml;
    std::istringstream lines(app.config_to_str(true, false));
    for (std::string line; std::getline(lines, line);)
      if (!line.ends_with("=\"\"")) toml += line + "\n";
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
    std::string m = e.what();
    for (auto& ch : m)
      if (ch == '\n') ch = ' ';
    res.text = m;
  } catch (const UsageError& e) {
    res.action = CliResult::Action::usage_error;
    res.text = e.what();
  }
  return res;
}

}  // namespace iosweep
