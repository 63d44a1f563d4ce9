// Declaration of the run options (see options.hpp). Help texts that list phases or engines are
// made from the phase and engine tables.
#include "app/options.hpp"

#include "engines/registry.hpp"
#include "phases/phase_table.hpp"

namespace iosweep {
namespace {

// A valued option whose default --help shows.
void value(CLI::App& app, const char* name, std::string& v, const char* type,
           const std::string& help) {
  app.add_option(name, v, help)->capture_default_str()->type_name(type);
}
// A valued option without a default (unset unless given).
void unset(CLI::App& app, const char* name, std::string& v, const char* type,
           const std::string& help) {
  app.add_option(name, v, help)->type_name(type);
}
// A comma-separated list.
void list(CLI::App& app, const char* name, std::vector<std::string>& v, const char* type,
          const std::string& help) {
  app.add_option(name, v, help)->delimiter(',')->type_name(type);
}
// A repeatable option, each value taken whole.
void repeat(CLI::App& app, const char* name, std::vector<std::string>& v, const char* type,
            const std::string& help) {
  app.add_option(name, v, help)->type_name(type);
}
void flag(CLI::App& app, const char* name, bool& v, const std::string& help) {
  app.add_flag(name, v, help);
}

// "posix (pread/pwrite ...); uring (...); ...": the engine table as help text.
std::string engine_help() {
  std::string s = "I/O engine:";
  for (const auto& e : engine_table())
    s += std::string(e.id == 0 ? " " : "; ") + e.name + " (" + e.help + ")";
  return s + ". Compiled in: " + compiled_engines();
}

}  // namespace

void declare_run_options(CLI::App& a, RawOptions& r) {
  unset(a, "--dir", r.dir, "DIR",
        "Target folder; every active rank writes <dir>/iosweep.<run-id>.<position> (required)");
  value(a, "--file-size", r.file_size, "SIZE",
        "Bytes per rank's file, as IOzone -s (4k, 16m, 1g: binary units)");
  value(a, "--seq-record", r.seq_record, "SIZE", "Record size of seq-write and seq-read");
  value(a, "--rand-record", r.rand_record, "SIZE", "Record size of rand-write and rand-read");
  value(a, "--scan-record", r.scan_record, "SIZE",
        "Read size of filter-count: auto = 1 MiB (counted while in L2), or --seq-record with "
        "--direct");
  list(a, "--phases", r.phases, "LIST",
       "Subset of " + phase_names() + "; always run in that order (default: all)");
  list(a, "--ranks", r.ranks, "LIST",
       "Active rank counts, strictly increasing, e.g. 1,2,4 (instead of --sweep)");
  unset(a, "--sweep", r.sweep, "MIN:MAX",
        "MIN:MAX: MIN, the powers of two above it, capped at the world size, and the cap itself "
        "(default 1:<world size>)");
  value(a, "--placement", r.placement, "MODE",
        "spread: activate ranks round-robin across nodes; block: in rank order");
  value(a, "--repetitions", r.repetitions, "N", "Run every point this many times");
  value(a, "--seed", r.seed, "N", "Seed of the data pattern (the bytes of every file)");
  unset(a, "--order-seed", r.order_seed, "N",
        "Pin the random phases' record orders (default: a new order every run; repetitions and "
        "points always differ)");
  value(a, "--filter-key", r.filter_key, "N",
        "The 64-bit value filter-count counts (decimal or 0x hex)");
  value(a, "--filter-every", r.filter_every, "N", "One planted key every N 64-bit words (N >= 2)");
  value(a, "--filter-kernel", r.filter_kernel, "NAME",
        "Count kernel: auto, avx512, avx2 or scalar");
  unset(a, "--rated-bw", r.rated_bw, "RATE",
        "Rated bandwidth of each rank's device, e.g. 5.2GB/s (decimal) or 3GiB/s; adds percent "
        "of rated to the filter-count report");
  a.add_option("--fsync", r.fsync,
               "fsync inside the timed window of every writing phase (as IOzone -e), or of the "
               "writing phases listed; close is always timed (as -c)")
      ->expected(0, 1)
      ->default_str("all")
      ->type_name("[LIST]");
  flag(a, "--preallocate", r.preallocate,
       "Create and fallocate seq-write's file before its timed window (default: block allocation "
       "is paid inside the window, as IOR, IOzone and fio pay it)");
  flag(a, "--keep", r.keep,
       "Keep the files at the end, as IOzone -w (default: remove the files this run created)");
  value(a, "--engine", r.engine, "NAME", engine_help());
  value(a, "--iodepth", r.iodepth, "N",
        "Requests in flight per rank (" + engines_taking(kTakesDepth) + ")");
  value(a, "--iodepth-batch", r.iodepth_batch, "N",
        "io_uring: requests handed to the kernel per system call (fio's iodepth_batch_submit)");
  flag(a, "--direct", r.direct, "O_DIRECT on every open (bypass the page cache)");
  flag(a, "--hugepages", r.hugepages,
       "Advise I/O buffers for transparent huge pages (fewer DMA segments; fio and IOR use "
       "plain pages)");
  flag(a, "--sqpoll", r.sqpoll,
       "Kernel submission thread, takes a core (" + engines_taking(kTakesSqpoll) + ")");
  repeat(a, "--mpiio-hint", r.hints, "KEY=VALUE",
         "MPI_Info hint key=value, repeatable (" + engines_taking(kTakesHints) + ")");
  value(a, "--cache", r.cache, "MODE",
        "drop: fsync + fadvise(DONTNEED) every file before each reading phase (untimed); keep: "
        "read through the page cache");
  value(a, "--read-shift", r.read_shift, "K|auto",
        "Reading phases: position i reads the file of position (i+K) mod k, as IOR -C; auto: "
        "smallest K that puts every reader on another node");
  unset(a, "--stonewall", r.stonewall, "SECONDS",
        "Stop issuing operations after SECONDS in every phase; figures count only what completed");
  flag(a, "--stonewall-wearout", r.wearout,
       "After the deadline every rank continues, untimed, to the furthest rank's count (IOR's "
       "wear-out)");
  value(a, "--timeseries-bin", r.timeseries_bin, "SECONDS",
        "Time-series bin width (bytes and ops per bin, per rank)");
  flag(a, "--verify", r.verify,
       "Check every block read (stamp, pattern, keys); time spent is inside the timed window and "
       "reported as verify");
  flag(a, "--quiet", r.quiet, "No live progress on stderr");
  flag(a, "--show-controls", r.show_controls,
       "Also print the rows of control phases (scan-only, filter-count's baseline)");
  flag(a, "--force", r.force, "Run even when --dir lacks the free space the largest point needs");
  value(a, "--format", r.format, "FORMAT",
        "table, or iozone: also print IOzone-style throughput blocks");
  unset(a, "--reuse", r.reuse, "RUN_ID",
        "Use the files an earlier run kept with --keep (its run id; same --dir, --file-size, "
        "--seed): read them, or rewrite them in place with rand-write; never removed");
  value(a, "--output", r.output, "FILE", "HDF5 results file; the run is appended");
  unset(a, "--label", r.label, "TEXT", "Free text stored with the run");
  flag(a, "--dry-run", r.dry_run,
       "Validate, print the plan (points, files, bytes per phase) and touch nothing");
}

}  // namespace iosweep
