// The effective configuration of one run, after parsing and unit conversion. Plain data: the
// CLI (app/cli.cpp) fills it, the checks (app/config_check.cpp) validate it, and every other
// layer only reads it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/filter_kernel.hpp"
#include "engines/engine.hpp"
#include "mpi/topology.hpp"
#include "phases/phase_kind.hpp"

namespace iosweep {

enum class CacheMode { drop, keep };

struct Config {
  // What and where
  std::string dir;
  std::uint64_t file_size = 0;
  std::uint64_t seq_record = 16ull << 20;
  std::uint64_t rand_record = 4096;
  std::uint64_t scan_record = 1ull << 20;
  std::vector<PhaseKind> phases;  // in execution order

  // Sweep
  std::vector<int> ranks;  // explicit --ranks, or empty
  int sweep_min = 1;
  int sweep_max = 0;  // 0: world size
  Placement placement = Placement::spread;
  int repetitions = 1;

  // Semantics of the timed window
  bool fsync = false;
  bool keep = false;
  std::uint64_t seed = 0;
  std::uint64_t filter_key = 0;
  std::uint64_t filter_every = 1048576;
  FilterKernel filter_kernel = FilterKernel::automatic;
  double rated_bw_Bps = 0;  // per rank's device; 0 = not given

  // Engines and cache
  EngineKind engine = EngineKind::posix;
  EngineOptions engine_options;
  CacheMode cache = CacheMode::drop;
  int read_shift = 0;  // reading phases read the file of position (i + shift) mod k
  bool read_shift_auto = false;
  std::uint64_t direct_alignment = 4096;  // found by probing --dir when --direct
  bool hugepages = false;                 // I/O buffers advised for transparent huge pages

  // Measurement extras
  double stonewall_s = 0;  // 0: off
  bool stonewall_wearout = false;
  double timeseries_bin_s = 0.1;
  bool verify = false;
  bool quiet = false;
  bool force = false;
  std::string format = "table";  // table | iozone
  std::string reuse_run;         // read the kept files of an earlier run

  // Output
  std::string output = "results/iosweep.h5";
  std::string label;
  bool dry_run = false;

  // Provenance (recorded in the results file)
  std::vector<std::string> argv;
  std::string config_toml;
};

}  // namespace iosweep
