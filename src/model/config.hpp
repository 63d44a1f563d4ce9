// The effective configuration of one run, after parsing and unit conversion, split by who reads
// it: the workload (what the phases do), the engine options (what the engines see), the sweep
// (which points run) and the report (what is printed and stored). Plain data: the option table
// (app/option_table.cpp) fills it, one row per option, and states every option's default; the
// fields here start empty (zero), except where a value is needed to be valid at all. The checks
// (app/config_check.cpp) validate it, every other layer only reads its own part, and the results
// writer stores what the option rows record (`recorded`).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/filter_kernel.hpp"
#include "model/engine_desc.hpp"
#include "model/limits.hpp"
#include "model/phase_desc.hpp"
#include "model/run_attributes.hpp"
#include "model/topology.hpp"

namespace iosweep {

enum class CacheMode { drop, keep };

// Where ship-count sends each rank's bytes: the rank the smallest node-crossing shift gives
// (another rank of the same node when one node is in use), or every rank to rank 0.
enum class Collector { next_node, rank0 };

// One file per rank (N-to-N, the default), or one file shared by the active ranks (N-to-1, as
// IOR without -F) whose regions are contiguous (segmented) or interleaved block by block.
enum class FileLayout { per_rank, shared };
enum class SharedPattern { segmented, strided };

// The metadata phases' items and folders (mdtest's options; model/md_plan.hpp makes a point's
// layout from them).
struct MdSpec {
  std::uint64_t items = 0;        // per rank (--md-items, mdtest -n)
  std::uint64_t items_total = 0;  // --md-items-total: divided over a point's ranks; 0: off
  std::uint64_t per_folder = 0;   // a stream's items per folder (-I); 0: spread evenly
  unsigned depth = 0;             // levels below each tree's top folder (-z)
  std::uint64_t branch = 0;       // children per folder (-b); 0: auto (what per_folder needs)
  bool shared = false;            // one tree for every rank (no -u), else one per stream
  bool leaf_only = true;          // items only in the leaf folders (-L)
  std::uint64_t write_bytes = 0;  // written into each item as it is created (-w)
  std::uint64_t read_bytes = 0;   // read from each item by md-read (-e)
  bool fsync = false;             // each item fsynced before its close (-y)
  bool sync = false;              // every metadata window ends with sync() (mdtest -Y)
};

// What find counts (IO500's find: pfind -newer T -size Nc -name P) and the file timestamp makes.
struct FindSpec {
  std::string newer;       // the reference file; "" for none
  std::uint64_t size = 0;  // bytes a counted file has, when size_given
  bool size_given = false;
  std::string name = "*";  // a shell pattern on the file's name (fnmatch)
};

// What an engine is built from.
struct EngineOptions {
  EngineId engine = kPosixEngine;
  unsigned iodepth = 1;        // at least one request in flight
  unsigned iodepth_batch = 1;  // io_uring: requests queued before they are handed to the kernel
  bool direct = false;         // O_DIRECT on every open
  bool sqpoll = false;         // io_uring: kernel submission polling thread
  bool collective = false;     // MPI-IO: collective calls on a file the active ranks share
  std::vector<std::pair<std::string, std::string>> mpiio_hints;
};

// What every phase does, on every active rank.
struct Workload {
  // --dir: the target folders, the same list on every node. A node's ranks take them
  // round-robin by their index within the node (model/topology.hpp); a shared file lives in
  // the only one.
  std::vector<std::string> dirs;
  std::uint64_t file_size = 0;
  std::uint64_t seq_record = 0;
  std::uint64_t rand_record = 0;
  std::uint64_t scan_record = 0;
  std::vector<PhaseId> phases;  // in execution order (the phase table's order)

  std::vector<PhaseId> fsync_phases;  // writing phases that fsync inside their timed window
  bool preallocate = false;           // create and fallocate seq-write's file before its window
  bool keep = false;
  std::uint64_t seed = 0;
  std::uint64_t filter_key = 0;
  std::uint64_t filter_every = 0;
  std::uint64_t order_seed = 0;  // --order-seed; else a nonce drawn per run
  bool order_seed_pinned = false;
  FilterKernel filter_kernel = FilterKernel::automatic;

  CacheMode cache = CacheMode::drop;
  // The interfaces whose byte counters say what crossed the wire: named (netdev names, or
  // ib:DEVICE:PORT), or chosen from the mount's server when empty; none at all with wire_off.
  std::vector<std::string> wire_interfaces;
  bool wire_off = false;
  int read_shift = 0;  // reading phases read the file of position (i + shift) mod k
  bool read_shift_auto = false;
  std::uint64_t direct_alignment = kDefaultDirectAlignment;  // probed in --dir with --direct
  bool hugepages = false;  // I/O buffers advised for transparent huge pages

  double stonewall_s = 0;  // 0: off
  bool stonewall_wearout = false;
  double stall_limit_s = 0;  // an operation outstanding this long is a stall (sweep/stall.hpp)
  bool stall_wait = false;   // a stall is waited for and recorded instead of stopping the run
  double timeseries_bin_s = 0;
  Collector collector = Collector::next_node;
  FileLayout layout = FileLayout::per_rank;
  SharedPattern shared_pattern = SharedPattern::segmented;
  bool shared() const { return layout == FileLayout::shared; }
  bool verify = false;
  std::string reuse_run;  // read the kept files of an earlier run
  MdSpec md;
  FindSpec find;

  bool fsyncs(PhaseId p) const {
    for (PhaseId f : fsync_phases)
      if (f == p) return true;
    return false;
  }
  std::uint64_t record_bytes(RecordKind k) const {
    return k == RecordKind::seq    ? seq_record
           : k == RecordKind::rand ? rand_record
           : k == RecordKind::scan ? scan_record
                                   : 0;
  }
};

// Which points run.
struct SweepSpec {
  std::vector<int> ranks;  // explicit --ranks, or empty
  int sweep_min = 1;
  int sweep_max = 0;  // 0: world size
  // --streams, expanded and strictly increasing: each point's streams (active ranks x depth)
  // instead of its ranks; empty without --streams.
  std::vector<std::uint64_t> streams;
  Placement placement = Placement::spread;
  int repetitions = 1;
};

// What each active rank keeps going at one point.
struct RankStreams {
  unsigned depth = 1;    // requests in flight: --iodepth, or the point's streams / active ranks
  unsigned regions = 1;  // sequential phases: contiguous regions of the file streamed side by
                         // side (--streams: the depth; otherwise 1, one stream of depth requests)
};

// One point of the sweep: its active ranks and what each of them keeps going.
struct SweepPoint {
  int ranks = 1;
  RankStreams per_rank;
  std::uint64_t streams() const { return static_cast<std::uint64_t>(ranks) * per_rank.depth; }
};

// What is printed and stored.
struct ReportSpec {
  std::string output;
  std::string label;
  bool iozone_format = false;  // --format iozone: IOzone-style blocks beside the table
  bool quiet = false;
  bool show_controls = false;  // console rows of control phases (scan-only)
  double rated_bw_Bps = 0;     // per rank's device; 0 = not given
  double rated_bw2_Bps = 0;    // a second rated figure (--rated-bw A,B); 0 = not given
  // --output not given: its default, relative to the working folder, whose folder the run
  // makes when it is missing (so that the default works from any working folder).
  bool output_is_default = false;
  // What asked to keep the data files ("--keep", "keep = true in the preset"): the end of the
  // run says where they stay.
  std::string keep_from;
  double rated_iops = 0;  // --rated-iops, operations per second per drive; 0 = not given
};

struct Config {
  Workload work;
  EngineOptions io;
  SweepSpec sweep;
  ReportSpec report;
  bool force = false;
  bool dry_run = false;

  // Provenance (recorded in the results file)
  std::vector<std::string> argv;
  std::string config_toml;  // every option's value as TOML (app/option_table.cpp writes it)
  RunAttributes recorded;   // the option rows' run attributes, made after the pre-run checks
  std::string rerun_of;     // --rerun: the run this one repeats
  std::string preset_file;  // --config: the file read (a preset's name found in full)
};

}  // namespace iosweep
