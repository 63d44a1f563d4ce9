// Declaration of the run options (see options.hpp). Help texts that list phases or engines are
// made from the phase and engine tables.
#include "app/options.hpp"

#include <algorithm>

#include "core/errors.hpp"
#include "engines/registry.hpp"
#include "phases/phase_table.hpp"

namespace iosweep {
namespace {

// The four kinds of option, declared on one app; flags are collected so that their values can
// be checked after parsing.
struct Declare {
  CLI::App& app;
  std::vector<const CLI::Option*> flags;

  // A valued option whose default --help shows.
  void value(const char* name, std::string& v, const char* type, const std::string& help) {
    app.add_option(name, v, help)->capture_default_str()->type_name(type);
  }
  // A valued option without a default (unset unless given).
  void unset(const char* name, std::string& v, const char* type, const std::string& help) {
    app.add_option(name, v, help)->type_name(type);
  }
  // A comma-separated list (split by app/config_build.cpp, which refuses spaces and empty
  // entries), or a TOML array in a preset; repeating the option adds to the list.
  void list(const char* name, std::vector<std::string>& v, const char* type,
            const std::string& help) {
    app.add_option(name, v, help)->type_name(type);
  }
  void flag(const char* name, bool& v, const std::string& help) {
    flags.push_back(app.add_flag(name, v, help));
  }
};

// "posix (pread/pwrite ...); uring (...); ...": the engine table as help text.
std::string engine_help() {
  std::string s = "I/O engine:";
  for (const auto& e : engine_table())
    s += std::string(e.id == 0 ? " " : "; ") + e.name + " (" + e.help + ")";
  return s + ". Compiled in: " + compiled_engines();
}

}  // namespace

std::string check_given_values(const CLI::App& app, const std::vector<const CLI::Option*>& flags) {
  for (const CLI::Option* o : app.get_options()) {
    if (o->count() == 0) continue;
    const bool is_flag = std::find(flags.begin(), flags.end(), o) != flags.end();
    for (const auto& v : o->results()) {
      if (is_flag && v != "true" && v != "false")
        return o->get_name() + ": '" + printable(v) + "' is not true or false";
      if (!is_flag && v.empty()) return o->get_name() + ": empty value";
    }
  }
  // A pattern that would change nothing is refused rather than ignored (the default is
  // accepted: a run's recorded configuration, which --rerun applies, names every option).
  const CLI::Option* pattern = app.get_option_no_throw("--shared-pattern");
  const CLI::Option* layout = app.get_option_no_throw("--file-layout");
  if (pattern != nullptr && pattern->count() > 0 && pattern->results().back() != "segmented" &&
      (layout == nullptr || layout->count() == 0 || layout->results().back() != "shared"))
    return "--shared-pattern: arranges one shared file; add --file-layout shared";
  return {};
}

std::vector<const CLI::Option*> declare_run_options(CLI::App& app, RawOptions& r) {
  Declare d{app, {}};
  d.unset("--dir", r.dir, "DIR",
          "Target folder; every active rank writes <dir>/iosweep.<run-id>.<position> (required)");
  d.value("--file-size", r.file_size, "SIZE",
          "Bytes per rank's file, as IOzone -s (4k, 16m, 1g: binary units)");
  d.value("--seq-record", r.seq_record, "SIZE", "Record size of seq-write and seq-read");
  d.value("--rand-record", r.rand_record, "SIZE", "Record size of rand-write and rand-read");
  d.value("--scan-record", r.scan_record, "SIZE",
          "Read size of filter-count: auto = 1 MiB (counted while in L2), or --seq-record with "
          "--direct");
  d.list("--phases", r.phases, "LIST",
         "Subset of " + phase_names() + "; always run in that order (default: all)");
  d.list("--ranks", r.ranks, "LIST",
         "Active rank counts, strictly increasing, e.g. 1,2,4 (instead of --sweep)");
  d.unset("--sweep", r.sweep, "MIN:MAX",
          "MIN:MAX: MIN, the powers of two above it, capped at the world size, and the cap itself "
          "(default 1:<world size>)");
  d.unset("--streams", r.streams, "LIST|MIN:MAX",
          "Sweep streams instead of ranks: s streams = k active ranks (min(s, world size)) x "
          "depth s/k each, as IOzone sweeps threads; a list strictly increasing (1,64,1024) or "
          "MIN:MAX (MIN, the powers of two above it, MAX). Sequential phases split each file "
          "into depth regions streamed side by side (" +
              engines_taking(kTakesDepth) + "; sets the depth instead of --iodepth)");
  d.value("--placement", r.placement, "MODE",
          "spread: activate ranks round-robin across nodes; block: in rank order");
  d.value("--repetitions", r.repetitions, "N", "Run every point this many times");
  d.value("--seed", r.seed, "N", "Seed of the data pattern (the bytes of every file)");
  d.unset("--order-seed", r.order_seed, "N",
          "Pin the random phases' record orders (default: a new order every run; repetitions and "
          "points always differ)");
  d.value("--filter-key", r.filter_key, "N",
          "The 64-bit value filter-count counts (decimal or 0x hex)");
  d.value("--filter-every", r.filter_every, "N", "One planted key every N 64-bit words (N >= 2)");
  d.value("--filter-kernel", r.filter_kernel, "NAME", "Count kernel: auto, avx512, avx2 or scalar");
  d.value("--file-layout", r.file_layout, "LAYOUT",
          "per-rank: one file per rank (N-to-N); shared: one file for the active ranks of a point "
          "(N-to-1, IOR without -F)");
  d.value("--shared-pattern", r.shared_pattern, "PATTERN",
          "--file-layout shared: segmented (each rank's bytes contiguous) or strided (blocks of "
          "--seq-record interleaved rank by rank, as IOR's segments)");
  d.value("--collector", r.collector, "MODE",
          "ship-count: next-node (each rank sends to a rank on another node) or rank0 (all to "
          "rank 0)");
  d.unset("--rated-bw", r.rated_bw, "RATE[,RATE]",
          "Rated bandwidth of each rank's device, e.g. 5.2GB/s (decimal) or 3GiB/s, or two "
          "ceilings (5.2GB/s,3.4GB/s: sequential, and random from the rated IOPS); adds percent "
          "of rated (a range with two) to the filter-count report");
  app.add_option("--fsync", r.fsync,
                 "fsync inside the timed window of every writing phase (as IOzone -e), or of the "
                 "writing phases listed; close is always timed (as -c)")
      ->expected(0, 1)
      ->default_str("all")
      ->type_name("[LIST]");
  d.flag("--preallocate", r.preallocate,
         "Create and fallocate seq-write's file before its timed window (default: block allocation "
         "is paid inside the window, as IOR, IOzone and fio pay it)");
  d.flag("--keep", r.keep,
         "Keep the files at the end, as IOzone -w (default: remove the files this run created)");
  d.value("--engine", r.engine, "NAME", engine_help());
  d.value("--iodepth", r.iodepth, "N",
          "Requests in flight per rank (" + engines_taking(kTakesDepth) + ")");
  d.value("--iodepth-batch", r.iodepth_batch, "N",
          "io_uring: requests handed to the kernel per system call (fio's iodepth_batch_submit)");
  d.flag("--direct", r.direct, "O_DIRECT on every open (bypass the page cache)");
  d.flag("--hugepages", r.hugepages,
         "Advise I/O buffers for transparent huge pages (fewer DMA segments; fio and IOR use "
         "plain pages)");
  d.flag("--mpiio-collective", r.collective,
         "MPI-IO on a shared file with collective calls (MPI_File_write_at_all, read_at_all), "
         "one request at a time (" +
             engines_taking(kTakesCollective) + ")");
  d.flag("--sqpoll", r.sqpoll,
         "Kernel submission thread, takes a core (" + engines_taking(kTakesSqpoll) + ")");
  d.list("--mpiio-hint", r.hints, "KEY=VALUE",
         "MPI_Info hint key=value, repeatable (" + engines_taking(kTakesHints) + ")");
  d.value("--cache", r.cache, "MODE",
          "drop: fsync + fadvise(DONTNEED) every file before each reading phase (untimed); keep: "
          "read through the page cache");
  d.value("--read-shift", r.read_shift, "K|auto",
          "Reading phases: position i reads the file of position (i+K) mod k, as IOR -C; auto: "
          "smallest K that puts every reader on another node");
  d.unset(
      "--stonewall", r.stonewall, "SECONDS",
      "Stop issuing operations after SECONDS in every phase; figures count only what completed");
  d.flag("--stonewall-wearout", r.wearout,
         "After the deadline every rank continues, untimed, to the furthest rank's count (IOR's "
         "wear-out)");
  d.value("--timeseries-bin", r.timeseries_bin, "SECONDS",
          "Time-series bin width (bytes and ops per bin, per rank)");
  d.flag("--verify", r.verify,
         "Check every block read (stamp, pattern, keys); time spent is inside the timed window and "
         "reported as verify");
  d.flag("--quiet", r.quiet, "No live progress on stderr");
  d.flag("--show-controls", r.show_controls,
         "Also print the rows of control phases (scan-only, filter-count's baseline)");
  d.flag("--force", r.force, "Run even when --dir lacks the free space the largest point needs");
  d.value("--format", r.format, "FORMAT",
          "table, or iozone: also print IOzone-style throughput blocks");
  d.unset("--reuse", r.reuse, "RUN_ID",
          "Use the files an earlier run kept with --keep (its run id; same --dir, --file-size, "
          "--seed): read them, or rewrite them in place with rand-write; never removed");
  d.value("--output", r.output, "FILE", "HDF5 results file; the run is appended");
  d.unset("--label", r.label, "TEXT", "Free text stored with the run");
  d.flag("--dry-run", r.dry_run,
         "Validate, print the plan (points, files, bytes per phase) and touch nothing");
  return d.flags;
}

}  // namespace iosweep
