// The options of `iosweep run`, as text exactly as given (on the command line or in a --config
// preset), and their declaration for CLI11 with help text and defaults. Conversion and checks
// are in app/config_build.cpp, so that every message names the option and the value it refuses.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace iosweep {

struct RawOptions {
  std::string dir, file_size = "1g", seq_record = "16m", rand_record = "4k", scan_record = "auto";
  std::vector<std::string> phases, ranks;
  std::string streams, sweep, placement = "spread", repetitions = "1", seed = "42";
  std::string filter_key = "0xfeedfacecafebeef", filter_every = "1048576", filter_kernel = "auto";
  std::string collector = "next-node", file_layout = "per-rank", shared_pattern = "segmented";
  std::string rated_bw, engine = "posix", iodepth = "1", iodepth_batch = "1", cache = "drop",
                        read_shift = "0";
  std::vector<std::string> hints;
  std::string stonewall, timeseries_bin = "100ms", format = "table", reuse, fsync, order_seed;
  std::string output = "results/iosweep.h5", label;
  bool collective = false;
  bool preallocate = false, show_controls = false, keep = false, direct = false, sqpoll = false,
       wearout = false, verify = false, quiet = false, force = false, dry_run = false,
       hugepages = false;
};

// Declares every run option on `app` (the main program, so that --help lists them all and a
// preset's keys are exactly the long option names). Returns the flags among them (options
// that take true or false), so that their values can be checked after parsing.
std::vector<const CLI::Option*> declare_run_options(CLI::App& app, RawOptions& r);

// After parsing: a flag's value is true or false (a preset's `keep = 3` is refused), and no
// option given is empty (`--reuse ""` is refused, not taken as unset), and no option is given
// that the others make meaningless (--shared-pattern strided without --file-layout shared).
// "--option: problem", or empty.
std::string check_given_values(const CLI::App& app, const std::vector<const CLI::Option*>& flags);

}  // namespace iosweep
