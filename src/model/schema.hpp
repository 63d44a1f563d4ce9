// Results schema 1: the row types of every table iosweep stores, and a field table for each
// (name, type, unit, how the value was reduced). The HDF5 writer builds its compound types and
// unit attributes from these tables, its enum types from the phase and engine tables and the
// status names here, and results/README.md documents the same fields (a test checks the two
// agree). Fields may be added; none is ever renamed or renumbered.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

namespace iosweep {

inline constexpr const char* kSchemaName = "iosweep.results";
inline constexpr int kSchemaVersion = 1;

// interrupted: found `running` by a later run although its writer process was gone (killed
// before it could mark the run aborted).
enum class RunStatus : std::uint8_t { running = 0, complete = 1, aborted = 2, interrupted = 3 };

struct EnumMember {
  const char* name;
  std::uint8_t value;
};
// The members of the results file's `status` enum.
std::span<const EnumMember> status_members();

enum class FieldType {
  u8,
  i32,
  u32,
  u64,
  f64,
  phase_enum,
  status_enum,
  engine_enum,
  str64,
  str256
};

struct FieldDesc {
  const char* name;
  std::size_t offset;
  FieldType type;
  const char* unit;       // "bytes", "s", "bytes/s", "ops/s", "ns", "1", ...
  const char* reduction;  // how the value was obtained from per-rank samples
};

struct TableDesc {
  const char* name;
  std::size_t row_bytes;
  std::span<const FieldDesc> fields;
  const char* description;
};

// One row per (phase, active ranks, repetition).
struct SummaryRow {
  std::uint32_t point;  // row index within the run
  std::uint8_t phase;
  std::uint8_t engine;
  std::uint8_t stonewalled;
  std::uint32_t ranks;
  std::uint32_t nodes;
  std::uint32_t repetition;
  std::uint64_t bytes;
  std::uint64_t ops;
  double wall_s;
  double bandwidth_Bps;
  double iops;
  double children_Bps;
  double rank_bw_min_Bps;
  double rank_bw_max_Bps;
  double rank_bw_mean_Bps;
  double rank_bw_std_Bps;
  double rank_time_min_s;
  double rank_time_max_s;
  double rank_time_mean_s;
  double rank_time_std_s;
  double first_done_s;
  double last_done_s;
  double first_done_Bps;
  double last_done_Bps;
  double iozone_children_Bps;
  std::uint64_t rows;
  std::uint64_t matches;
  std::uint64_t expected_matches;
  double io_wait_mean_s;
  double compute_mean_s;
  double filter_efficiency;
  double lat_mean_ns;
  double lat_p50_ns;
  double lat_p90_ns;
  double lat_p99_ns;
  double lat_p999_ns;
  double lat_p9999_ns;
  double lat_max_ns;
  std::uint64_t wearout_bytes;
  double wearout_max_s;
  double verify_max_s;
  std::uint64_t bad_blocks;
  // Where the bytes came from (NaN where not measured: see the field table).
  std::uint64_t order_seed;
  double filter_vs_seq_read;
  double device_read_bytes;
  double device_write_bytes;
  double device_fraction;
  double cached_fraction_mean;
  double cached_fraction_max;
  double unflushed_fraction;
  std::uint64_t t_start_unix_ns;
  double overhead_s;
  double cpu_s;
  std::uint64_t rss_peak_max_bytes;
  std::uint64_t private_max_bytes;
  std::uint64_t mpi_bytes;
  std::uint64_t mpi_remote_bytes;
  double filter_vs_ship;
  std::uint32_t streams;  // ranks x iodepth
  std::uint32_t iodepth;  // requests in flight per rank at this point
  double wire_rx_bytes;   // NaN where no storage interface was sampled
  double wire_tx_bytes;
  double wire_fraction;
  // The drives (block devices under --dir's folders, each once per kernel) the point's files
  // were on: how many, the slowest and fastest by their ranks' bytes over those ranks' slowest
  // time, and the lowest share of its ranks' bytes a drive's own counters saw (the device
  // table has every drive's figures; NaN and -1 without device counters).
  std::uint32_t drives;
  double drive_bw_min_Bps;
  double drive_bw_max_Bps;
  std::int32_t drive_slowest;  // the device table's `drive` id
  std::int32_t drive_fastest;
  double drive_fraction_min;
  // The same drives by their ranks' operations over those ranks' slowest time (the metadata
  // phases' per-drive figure; NaN without device counters).
  double drive_iops_min;
  double drive_iops_max;
  // Operations per second of each rank (ops_i / elapsed_i): the spread of the headline.
  double rank_iops_min;
  double rank_iops_max;
  double rank_iops_mean;
  double rank_iops_std;
  // The metadata phases (0 or NaN for the data phases: see the field table).
  std::uint64_t md_items;
  std::uint64_t md_folders;
  std::uint32_t md_branch;
  std::uint8_t md_cache_drop;  // 0 not dropped, 1 dropped on every node, 2 refused
  double md_device_bytes_per_op;
  double md_wire_bytes_per_op;
  double md_server_bytes_per_op;  // what one operation needs when it reaches a server
  double md_cached_fraction;      // 1 - md_wire_bytes_per_op / md_server_bytes_per_op, 0..1
  // The longest time one operation of a rank stayed outstanding (sweep/stall.hpp), 0: none long.
  double stall_s;
  char notes[256];         // what the row's figures carry, as the console's notes column prints it
  std::uint32_t step;      // the step of the run (0 for a run without steps)
  std::uint32_t plan_row;  // its row in the plan table: what was decided before it ran
  // How close the row came to the CPU and to the hardware (sweep/headroom.cpp): the ranks' CPU
  // per operation and how busy they were; the drives' device bytes against their PCIe links;
  // the per-drive figure against --rated-bw and --rated-iops (NaN where unknown or not given).
  double cpu_user_ns_per_op;
  double cpu_sys_ns_per_op;
  double busy_fraction_mean;
  double busy_fraction_max;
  double queued_fraction_mean;
  double link_fraction_min;
  double link_fraction_max;
  double rated_bw_fraction;
  double rated_iops_fraction;
};

// One row per (step, point, repetition, phase) of the run plan (model/run_plan.hpp), written
// when the run begins: what was decided before the first byte moved.
struct PlanRow {
  std::uint32_t step;
  std::uint32_t point;  // the point's number in the run (every step's), from 0
  std::uint32_t repetition;
  std::uint8_t phase;
  std::uint8_t engine;
  std::uint32_t ranks;
  std::uint64_t streams;
  std::uint32_t point_iodepth;  // what the point asked of each rank
  std::uint32_t iodepth;        // what the phase's engine keeps
  std::uint32_t iodepth_batch;
  std::uint64_t record_bytes;
  std::uint64_t buffer_bytes;
  std::uint64_t bytes_per_rank;
  std::uint64_t md_items;
  std::uint64_t md_folders;
  std::uint64_t md_branch;
  std::int32_t read_shift;
  std::uint64_t order_seed;
  std::uint8_t fsync;
  std::uint8_t caches_to_drop;
};

// One row per (point, active rank): the raw per-rank sample.
struct RankRow {
  std::uint32_t point;
  std::int32_t rank;
  std::int32_t position;
  std::int32_t node;
  std::int32_t file;
  std::uint8_t stonewalled;
  std::uint64_t bytes;
  std::uint64_t ops;
  double elapsed_s;
  double open_s;
  double io_s;
  double sync_s;
  double close_s;
  std::uint64_t rows;
  std::uint64_t matches;
  std::uint64_t expected_matches;
  double io_wait_s;
  double compute_s;
  double verify_s;
  std::uint64_t bad_blocks;
  std::uint64_t wearout_bytes;
  std::uint64_t wearout_ops;
  double wearout_s;
  std::uint64_t latency_max_ns;
  double cached_fraction;
  double unflushed_fraction;
  double cpu_s;
  std::uint64_t rss_peak_bytes;
  std::uint64_t private_bytes;
  std::uint64_t mpi_bytes;
  std::uint64_t mpi_remote_bytes;
  std::int32_t folder;  // index into --dir's folders of the file the rank read or wrote
  double stall_s;       // the longest time one of its operations stayed outstanding
  double cpu_user_s;
  double cpu_sys_s;
  double cpu_queued_s;  // waiting for a CPU; NaN where the kernel keeps no schedstat
  double busy_fraction;
};

// One row per world rank, written at the end of a run: what each rank used over the whole run,
// idle or active.
struct RankUsageRow {
  std::int32_t rank;
  std::uint64_t rss_peak_bytes;
  std::uint64_t private_peak_bytes;
  std::uint64_t private_idle_peak_bytes;
  double cpu_user_s;
  double cpu_sys_s;
};

struct RankMapRow {
  std::int32_t rank;
  std::int32_t node;
  std::int32_t local_index;
  std::int32_t position;
  std::int32_t folder;  // index into --dir's folders: local_index mod their number
};

struct RunIndexRow {
  char run_id[64];
  std::uint64_t t_start_unix_ns;
  std::uint64_t t_end_unix_ns;
  std::uint32_t world_size;
  std::uint32_t n_nodes;
  std::uint32_t n_points;
  std::uint8_t status;
};

// One row per (point, node): what the ranks of one node moved together.
struct NodeRow {
  std::uint32_t point;
  std::int32_t node;
  std::uint32_t ranks;
  std::uint64_t bytes;
  double seconds;
  double bandwidth_Bps;
  // Collective MPI-IO reads: the shared file's bytes resident in the node's page cache before
  // and after the window (what the node's aggregators could read from it); NaN otherwise.
  double cached_before_bytes;
  double cached_after_bytes;
  std::uint64_t ops;
  double iops;
};

// One row per (point, node sampled, block device under its folders): the device's counters as
// the node's lowest rank read them around one phase, and what the ranks whose files are in its
// folders claimed.
struct DeviceRow {
  std::uint32_t point;
  std::uint8_t phase;
  std::uint32_t repetition;
  std::int32_t node;
  char device[64];
  std::uint8_t counted;  // 0: the same device of the same kernel was counted for another node
  std::uint64_t read_bytes;
  std::uint64_t write_bytes;
  std::uint64_t read_ops;
  std::uint64_t write_ops;
  std::int32_t drive;   // the run's id of the device: equal on rows of one device and kernel
  char folders[256];    // the folders of --dir on it on that node, comma-separated
  std::uint32_t ranks;  // active ranks of that node whose file is in those folders
  std::uint64_t claimed_bytes;  // what those ranks moved in their timed windows
  std::uint64_t claimed_ops;    // the operations they completed in them
  double seconds;               // the slowest of those ranks' windows; 0 without ranks
  // On the row that counts the drive: every row's claims of the drive over their slowest
  // time, and the device's bytes in the phase's direction over those claims; NaN elsewhere.
  double drive_Bps;
  double drive_iops;  // the same for their operations
  double drive_fraction;
  char note[256];  // why the counters could not be measured (then 0, and counted 0); empty: they
                   // were
  // The drive's PCIe link (NVMe): its rate per direction, or NaN and `link` says why unknown;
  // on the counted row the device's bytes in the phase's direction over that rate.
  double link_Bps;
  double link_fraction;
  char link[256];
  // On the counted row of a drive that lagged (saw under 90% of its ranks' bytes while the
  // point's other drives did not): the note the console's notes column gives it; else empty.
  char lag_note[256];
};

// One row per (point, node sampled): the byte counters of the interfaces that carry the node's
// storage traffic around one phase, and the client's own counters where its kernel keeps them.
struct WireRow {
  std::uint32_t point;
  std::uint8_t phase;
  std::uint32_t repetition;
  std::int32_t node;
  char interfaces[64];
  std::uint8_t counted;  // 0: another node shares the same network namespace (emulated nodes)
  std::uint64_t rx_bytes;
  std::uint64_t tx_bytes;
  double client_read_bytes;   // NFS: bytes the server sent (mountstats); NaN elsewhere
  double client_write_bytes;  // NFS: bytes sent to the server
  char note[256];  // why the counters could not be measured (then 0, and counted 0); empty: they
                   // were
};

// One row per (node, folder of --dir): the file system holding the folder there, from its mount
// table.
struct MountRow {
  std::int32_t node;
  char fs_type[64];
  char source[256];
  char mount_point[256];
  char options[256];
  char wire[256];  // the interfaces sampled, or why none
  std::int32_t folder;
  char dir[256];
};

// One row per (point, rank, time bin), and one per (point, bin) with rank -1: every rank's
// bin merged.
struct TimeSeriesRow {
  std::uint32_t point;
  std::int32_t rank;
  std::uint32_t bin;
  double t_start_s;
  std::uint64_t bytes;
  std::uint64_t ops;
  double lat_p50_ns;
  double lat_p99_ns;
  double lat_max_ns;
};

// The rank of the time-series rows that merge every rank's bin.
inline constexpr std::int32_t kAllRanks = -1;

// `text` into a row's fixed text field, NUL-padded, cut at a character boundary to fit.
template <std::size_t N>
void put_text(char (&field)[N], std::string_view text) {
  std::size_t len = std::min(text.size(), N - 1);
  while (len > 0 && len < text.size() && (static_cast<unsigned char>(text[len]) & 0xC0) == 0x80)
    --len;  // not in the middle of a UTF-8 character
  std::memset(field, 0, N);
  std::memcpy(field, text.data(), len);
}
// A row's fixed text field as text.
template <std::size_t N>
std::string_view text_of(const char (&field)[N]) {
  return {field, strnlen(field, N)};
}

// One row per step of the run (step 0 for a run without steps): the compute-adjacent "final
// math" of the step's largest filter-count point (the last one appended), as
// model/final_math.hpp makes it and the console prints it after the run. Its node lines are the
// `nodes` rows of `point`, its drive lines the final_math_drives rows of the step.
struct FinalMathRow {
  std::uint32_t step;
  std::uint32_t point;  // filter-count's summary row
  std::uint32_t ranks;
  std::uint32_t nodes;
  std::uint32_t streams;
  std::uint32_t iodepth;
  std::uint32_t repetition;
  std::uint8_t by_streams;  // 1: the point is named by its streams (the step swept --streams)
  std::uint64_t bytes;
  std::uint64_t rows;
  double wall_s;
  double bandwidth_Bps;
  double per_node_Bps;  // bandwidth_Bps / nodes
  double per_rank_Bps;  // bandwidth_Bps / ranks
  std::uint32_t drives;
  double per_drive_Bps;  // bandwidth_Bps / drives; NaN without a drive
  char drive_note[256];  // why per drive is not known; empty with drives
  std::uint64_t matches;
  std::uint64_t expected_matches;
  char count_check[64];  // the count's verdict: exact, MISMATCH, not checked: ..., nothing scanned
  double rated_bw_Bps;   // --rated-bw's rates; 0 when not given
  double rated_bw2_Bps;
  char rated_per[64];     // what is compared with them: "per drive" or "per rank's device"
  double rated_per_Bps;   // its figure: per_drive_Bps, or per_rank_Bps without a drive
  double rated_fraction;  // rated_per_Bps / rated_bw_Bps; NaN when not given
  double rated2_fraction;
  double rated_iops;           // --rated-iops; 0 when not given
  double rated_per_iops;       // operations per second per drive (per rank's device without one)
  double rated_iops_fraction;  // rated_per_iops / rated_iops; NaN when not given
  std::int32_t ship_point;     // ship-count's summary row at the same ranks and repetition; -1 none
  std::uint32_t ship_ranks;
  std::uint64_t ship_mpi_bytes;
  double ship_remote_fraction;
  std::uint64_t filter_mpi_bytes;
  double ship_bandwidth_Bps;
  double filter_vs_ship;
};

// One row per (step, drive used by its final math's point): the drive's own counters over the
// point's window and what its ranks claimed, gathered over the drive's device rows.
struct FinalMathDriveRow {
  std::uint32_t step;
  std::uint32_t point;
  std::int32_t drive;
  char device[64];
  char nodes[64];     // the nodes whose ranks used it, comma-separated
  char folders[256];  // their folders on it, comma-separated
  std::uint64_t read_bytes;
  double window_s;
  double device_Bps;
  std::uint32_t ranks;
  std::uint64_t claimed_bytes;
  double drive_Bps;
  double link_Bps;       // the drive's PCIe link per direction; NaN when unknown (link says why)
  double link_fraction;  // device_Bps / link_Bps; NaN when unknown
  char link[256];
};

const TableDesc& summary_table();
const TableDesc& ranks_table();
const TableDesc& rank_map_table();
const TableDesc& run_index_table();
const TableDesc& nodes_table();
const TableDesc& timeseries_table();
const TableDesc& device_table();
const TableDesc& rank_usage_table();
const TableDesc& wire_table();
const TableDesc& mounts_table();
const TableDesc& plan_table();
const TableDesc& final_math_table();         // model/schema_final_math.cpp
const TableDesc& final_math_drives_table();  // model/schema_final_math.cpp
std::span<const TableDesc* const> all_tables();

}  // namespace iosweep
