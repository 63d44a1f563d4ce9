// Field tables of results schema 1 (see schema.hpp).
#include "model/schema.hpp"

#include <cstddef>

namespace iosweep {
namespace {

#define F(S, f, T, unit, red)                   \
  FieldDesc {                                   \
#f, offsetof(S, f), FieldType::T, unit, red \
  }

const FieldDesc kSummary[] = {
    F(SummaryRow, point, u32, "1", "row index within the run"),
    F(SummaryRow, phase, phase_enum, "enum", "the phase; names and values from the phase table"),
    F(SummaryRow, engine, engine_enum, "enum",
      "the engine; names and values from the engine table"),
    F(SummaryRow, stonewalled, u8, "bool", "1 when --stonewall stopped any rank early"),
    F(SummaryRow, ranks, u32, "ranks", "active ranks at this point"),
    F(SummaryRow, nodes, u32, "nodes", "distinct nodes among the active ranks"),
    F(SummaryRow, repetition, u32, "1", "repetition index, from 0"),
    F(SummaryRow, bytes, u64, "bytes", "sum over ranks, timed window only"),
    F(SummaryRow, ops, u64, "ops", "sum over ranks"),
    F(SummaryRow, wall_s, f64, "s", "max over ranks of elapsed (open to close)"),
    F(SummaryRow, bandwidth_Bps, f64, "bytes/s", "bytes / wall_s (IOR's figure)"),
    F(SummaryRow, iops, f64, "ops/s", "ops / wall_s"),
    F(SummaryRow, children_Bps, f64, "bytes/s",
      "sum over ranks of bytes_i / elapsed_i (IOzone's 'Children see' with -x, stonewalling "
      "off; its default is iozone_children_Bps)"),
    F(SummaryRow, rank_bw_min_Bps, f64, "bytes/s", "min over ranks of bytes_i / elapsed_i"),
    F(SummaryRow, rank_bw_max_Bps, f64, "bytes/s", "max over ranks of bytes_i / elapsed_i"),
    F(SummaryRow, rank_bw_mean_Bps, f64, "bytes/s", "mean over ranks of bytes_i / elapsed_i"),
    F(SummaryRow, rank_bw_std_Bps, f64, "bytes/s",
      "population standard deviation over ranks of bytes_i / elapsed_i"),
    F(SummaryRow, rank_time_min_s, f64, "s", "min over ranks of elapsed"),
    F(SummaryRow, rank_time_max_s, f64, "s", "max over ranks of elapsed"),
    F(SummaryRow, rank_time_mean_s, f64, "s", "mean over ranks of elapsed"),
    F(SummaryRow, rank_time_std_s, f64, "s", "population standard deviation over ranks of elapsed"),
    F(SummaryRow, first_done_s, f64, "s", "elapsed of the first rank to finish"),
    F(SummaryRow, last_done_s, f64, "s", "elapsed of the last rank to finish"),
    F(SummaryRow, first_done_Bps, f64, "bytes/s",
      "bytes all ranks had moved when the first finished / first_done_s (time series, interpolated "
      "within a bin)"),
    F(SummaryRow, last_done_Bps, f64, "bytes/s", "bytes / last_done_s"),
    F(SummaryRow, iozone_children_Bps, f64, "bytes/s",
      "sum over ranks of bytes_i moved by first_done_s / first_done_s (IOzone's stonewalled "
      "'Children see')"),
    F(SummaryRow, rows, u64, "rows", "filter-count: 64-bit words scanned, sum over ranks"),
    F(SummaryRow, matches, u64, "rows", "filter-count: words equal to the key, MPI_Reduce sum"),
    F(SummaryRow, expected_matches, u64, "rows",
      "filter-count: exact expected matches over the scanned ranges"),
    F(SummaryRow, io_wait_mean_s, f64, "s",
      "filter-count: mean over ranks of time in the read loop not spent counting"),
    F(SummaryRow, compute_mean_s, f64, "s", "filter-count: mean over ranks of time spent counting"),
    F(SummaryRow, filter_efficiency, f64, "1",
      "filter-count bandwidth_Bps / scan-only bandwidth_Bps at the same point and repetition (the "
      "identical read path with counting switched off); NaN when scan-only did not run"),
    F(SummaryRow, lat_mean_ns, f64, "ns", "mean operation latency, all ranks"),
    F(SummaryRow, lat_p50_ns, f64, "ns",
      "median latency from the merged histogram (bucket midpoint)"),
    F(SummaryRow, lat_p90_ns, f64, "ns", "90th percentile latency, merged histogram"),
    F(SummaryRow, lat_p99_ns, f64, "ns", "99th percentile latency, merged histogram"),
    F(SummaryRow, lat_p999_ns, f64, "ns", "99.9th percentile latency, merged histogram"),
    F(SummaryRow, lat_p9999_ns, f64, "ns", "99.99th percentile latency, merged histogram"),
    F(SummaryRow, lat_max_ns, f64, "ns", "max over ranks of the largest latency"),
    F(SummaryRow, wearout_bytes, u64, "bytes",
      "sum over ranks of bytes moved untimed after the stonewall"),
    F(SummaryRow, wearout_max_s, f64, "s", "max over ranks of the untimed wear-out time"),
    F(SummaryRow, verify_max_s, f64, "s",
      "max over ranks of time spent verifying (inside the timed window)"),
    F(SummaryRow, bad_blocks, u64, "blocks",
      "sum over ranks of 4 KiB blocks that failed verification"),
    F(SummaryRow, order_seed, u64, "1",
      "random phases: the seed of this point's record orders (--order-seed, or the run's nonce, "
      "mixed with ranks, or streams with --streams, and repetition); a rank's order is keyed by "
      "it, its position and the phase"),
    F(SummaryRow, filter_vs_seq_read, f64, "1",
      "filter-count bandwidth_Bps / seq-read bandwidth_Bps at the same point and repetition; NaN "
      "when seq-read did not run"),
    F(SummaryRow, device_read_bytes, f64, "bytes",
      "bytes the block device holding --dir read during the phase, summed over nodes (each "
      "device of each kernel once); NaN without a block device"),
    F(SummaryRow, device_write_bytes, f64, "bytes",
      "bytes the block device holding --dir wrote during the phase, summed as device_read_bytes"),
    F(SummaryRow, device_fraction, f64, "1",
      "device bytes in the phase's direction / bytes; NaN without a block device"),
    F(SummaryRow, cached_fraction_mean, f64, "1",
      "reading phases: mean over ranks of the fraction of the bytes to read that were in the "
      "page cache when the phase started; NaN for writing phases"),
    F(SummaryRow, cached_fraction_max, f64, "1", "max over ranks of cached_fraction"),
    F(SummaryRow, unflushed_fraction, f64, "1",
      "writing phases without fsync or O_DIRECT: bytes still dirty or under writeback in the "
      "page cache after the last close / bytes written; NaN otherwise"),
    F(SummaryRow, t_start_unix_ns, u64, "ns",
      "unix time at which the first rank started its timed window (min over ranks)"),
    F(SummaryRow, overhead_s, f64, "s",
      "rank 0's time in this phase outside the slowest rank's window and outside its own "
      "preparation (buffers, file creation, cache drop): barriers, agreements, gathers, "
      "reductions, the results append"),
    F(SummaryRow, cpu_s, f64, "s",
      "sum over ranks of CPU time (user + system, all threads) during the timed window"),
    F(SummaryRow, rss_peak_max_bytes, u64, "bytes",
      "max over ranks of peak resident memory so far (getrusage; shared library pages included)"),
    F(SummaryRow, private_max_bytes, u64, "bytes",
      "max over ranks of the memory a rank held alone at the end of its window (smaps_rollup "
      "Private_*)"),
    F(SummaryRow, mpi_bytes, u64, "bytes",
      "counting phases: bytes the phase sent over MPI, sum over ranks: 8 per rank for "
      "filter-count's count, every byte read plus the count for ship-count"),
    F(SummaryRow, mpi_remote_bytes, u64, "bytes",
      "of mpi_bytes, the bytes sent to a rank on another node"),
    F(SummaryRow, filter_vs_ship, f64, "1",
      "ship-count: filter-count bandwidth_Bps / ship-count bandwidth_Bps at the same point and "
      "repetition (counting in situ against shipping the data to count it); NaN otherwise"),
    F(SummaryRow, streams, u32, "streams",
      "independent streams at this point: ranks x iodepth (--streams sweeps it; IOzone's "
      "threads)"),
    F(SummaryRow, iodepth, u32, "requests",
      "requests each rank keeps in flight at this point: --iodepth, or streams / ranks with "
      "--streams (random phases: over one file; sequential phases with --streams: one per "
      "region streamed side by side; filter-count's engine keeps more, see engine_detail)"),
};

const FieldDesc kRanks[] = {
    F(RankRow, point, u32, "1", "summary row this sample belongs to"),
    F(RankRow, rank, i32, "1", "world rank"),
    F(RankRow, position, i32, "1", "position in the activation order"),
    F(RankRow, node, i32, "1", "node id (index into hosts)"),
    F(RankRow, file, i32, "1", "position of the file the rank read or wrote"),
    F(RankRow, stonewalled, u8, "bool", "1 when --stonewall stopped this rank early"),
    F(RankRow, bytes, u64, "bytes", "moved inside the timed window"),
    F(RankRow, ops, u64, "ops", "operations completed inside the timed window"),
    F(RankRow, elapsed_s, f64, "s", "open + io + sync + close"),
    F(RankRow, open_s, f64, "s", "open (and create for seq-write)"),
    F(RankRow, io_s, f64, "s", "the I/O loop"),
    F(RankRow, sync_s, f64, "s", "fsync (--fsync, writes)"),
    F(RankRow, close_s, f64, "s", "close"),
    F(RankRow, rows, u64, "rows", "filter-count: words scanned"),
    F(RankRow, matches, u64, "rows", "filter-count: words equal to the key"),
    F(RankRow, expected_matches, u64, "rows",
      "filter-count: exact expected count for the scanned range"),
    F(RankRow, io_wait_s, f64, "s", "filter-count: read loop time not spent counting"),
    F(RankRow, compute_s, f64, "s", "filter-count: time spent counting"),
    F(RankRow, verify_s, f64, "s", "--verify: time spent verifying"),
    F(RankRow, bad_blocks, u64, "blocks", "--verify: blocks that failed"),
    F(RankRow, wearout_bytes, u64, "bytes", "untimed wear-out after the stonewall"),
    F(RankRow, wearout_ops, u64, "ops", "untimed wear-out operations"),
    F(RankRow, wearout_s, f64, "s", "untimed wear-out time"),
    F(RankRow, latency_max_ns, u64, "ns", "largest operation latency"),
    F(RankRow, cached_fraction, f64, "1",
      "reading phases: fraction of the bytes to read resident in the page cache before the "
      "timed window (cachestat(2), else mincore); NaN for writing phases"),
    F(RankRow, unflushed_fraction, f64, "1",
      "writing phases without fsync or O_DIRECT: fraction of the bytes written still dirty or "
      "under writeback after close (cachestat(2)); NaN otherwise"),
    F(RankRow, cpu_s, f64, "s", "CPU time of the rank (user + system, all threads) in the window"),
    F(RankRow, rss_peak_bytes, u64, "bytes",
      "peak resident memory of the rank so far (getrusage ru_maxrss; shared pages included)"),
    F(RankRow, private_bytes, u64, "bytes",
      "memory the rank held alone at the end of its window (smaps_rollup Private_Clean + "
      "Private_Dirty)"),
    F(RankRow, mpi_bytes, u64, "bytes", "counting phases: bytes the rank sent over MPI"),
    F(RankRow, mpi_remote_bytes, u64, "bytes", "of those, to a rank on another node"),
};

const FieldDesc kRankUsage[] = {
    F(RankUsageRow, rank, i32, "1", "world rank"),
    F(RankUsageRow, rss_peak_bytes, u64, "bytes",
      "peak resident memory over the run (getrusage ru_maxrss; shared library pages included)"),
    F(RankUsageRow, private_peak_bytes, u64, "bytes",
      "largest memory the rank held alone, sampled at the end of every window it ran and "
      "every point it waited out"),
    F(RankUsageRow, private_idle_peak_bytes, u64, "bytes",
      "largest memory the rank held alone at the end of a point it waited out (idle); 0 when it "
      "ran in every point"),
    F(RankUsageRow, cpu_user_s, f64, "s", "user CPU time over the run, all threads"),
    F(RankUsageRow, cpu_sys_s, f64, "s", "system CPU time over the run, all threads"),
};

const FieldDesc kRankMap[] = {
    F(RankMapRow, rank, i32, "1", "world rank"),
    F(RankMapRow, node, i32, "1", "node id (index into hosts)"),
    F(RankMapRow, local_index, i32, "1", "index of the rank among the ranks of its node"),
    F(RankMapRow, position, i32, "1", "position in the activation order (--placement)"),
};

const FieldDesc kRunIndex[] = {
    F(RunIndexRow, run_id, str64, "text", "group name under /runs"),
    F(RunIndexRow, t_start_unix_ns, u64, "ns", "start, unix time"),
    F(RunIndexRow, t_end_unix_ns, u64, "ns", "end, unix time; 0 while running"),
    F(RunIndexRow, world_size, u32, "ranks", "MPI world size"),
    F(RunIndexRow, n_nodes, u32, "nodes", "distinct nodes"),
    F(RunIndexRow, n_points, u32, "rows", "summary rows written so far"),
    F(RunIndexRow, status, status_enum, "enum", "running=0 complete=1 aborted=2 interrupted=3"),
};

const FieldDesc kNodes[] = {
    F(NodeRow, point, u32, "1", "summary row"),
    F(NodeRow, node, i32, "1", "node id"),
    F(NodeRow, ranks, u32, "ranks", "active ranks on this node"),
    F(NodeRow, bytes, u64, "bytes", "sum over the node's ranks"),
    F(NodeRow, seconds, f64, "s", "max elapsed over the node's ranks"),
    F(NodeRow, bandwidth_Bps, f64, "bytes/s", "bytes / seconds"),
};

const FieldDesc kTimeSeries[] = {
    F(TimeSeriesRow, point, u32, "1", "summary row"),
    F(TimeSeriesRow, rank, i32, "1", "world rank"),
    F(TimeSeriesRow, bin, u32, "1", "bin index from the rank's start"),
    F(TimeSeriesRow, t_start_s, f64, "s", "bin start, from the rank's exit of the phase barrier"),
    F(TimeSeriesRow, bytes, u64, "bytes", "completed in the bin"),
    F(TimeSeriesRow, ops, u64, "ops", "completed in the bin"),
};

const FieldDesc kDevice[] = {
    F(DeviceRow, point, u32, "1", "summary row"),
    F(DeviceRow, phase, phase_enum, "enum", "the phase"),
    F(DeviceRow, repetition, u32, "1", "repetition index"),
    F(DeviceRow, node, i32, "1", "node id"),
    F(DeviceRow, device, str64, "text",
      "the block device holding --dir on that node (a partition's disk; device-mapper and md by "
      "their own name)"),
    F(DeviceRow, counted, u8, "bool",
      "1 when this row is in the summary's device sums; 0 when another node shares the same "
      "kernel and device (emulated nodes)"),
    F(DeviceRow, read_bytes, u64, "bytes",
      "sectors read x 512 between the sample before the phase's barrier and after the last close"),
    F(DeviceRow, write_bytes, u64, "bytes", "sectors written x 512, same window"),
    F(DeviceRow, read_ops, u64, "ops", "read requests completed, same window"),
    F(DeviceRow, write_ops, u64, "ops", "write requests completed, same window"),
};

#undef F

const TableDesc kSummaryT{"summary", sizeof(SummaryRow), kSummary,
                          "one row per (phase, active ranks, repetition)"};
const TableDesc kRanksT{"ranks", sizeof(RankRow), kRanks,
                        "one row per (summary point, active rank)"};
const TableDesc kRankMapT{"rank_map", sizeof(RankMapRow), kRankMap, "one row per world rank"};
const TableDesc kRunIndexT{"run_index", sizeof(RunIndexRow), kRunIndex,
                           "one row per run in the file"};
const TableDesc kNodesT{"nodes", sizeof(NodeRow), kNodes, "one row per (summary point, node used)"};
const TableDesc kTimeSeriesT{"timeseries", sizeof(TimeSeriesRow), kTimeSeries,
                             "one row per (summary point, rank, time bin)"};
const TableDesc kDeviceT{"device", sizeof(DeviceRow), kDevice,
                         "one row per (summary point, node sampled): block device counters"};
const TableDesc kRankUsageT{"rank_usage", sizeof(RankUsageRow), kRankUsage,
                            "one row per world rank: memory and CPU over the whole run"};
const TableDesc* const kAll[] = {&kRunIndexT, &kRankMapT,    &kSummaryT, &kRanksT,
                                 &kNodesT,    &kTimeSeriesT, &kDeviceT,  &kRankUsageT};

const EnumMember kStatus[] = {{"running", 0}, {"complete", 1}, {"aborted", 2}, {"interrupted", 3}};

}  // namespace

std::span<const EnumMember> status_members() {
  return kStatus;
}

const TableDesc& summary_table() {
  return kSummaryT;
}
const TableDesc& ranks_table() {
  return kRanksT;
}
const TableDesc& rank_map_table() {
  return kRankMapT;
}
const TableDesc& run_index_table() {
  return kRunIndexT;
}
const TableDesc& nodes_table() {
  return kNodesT;
}
const TableDesc& timeseries_table() {
  return kTimeSeriesT;
}
const TableDesc& device_table() {
  return kDeviceT;
}
const TableDesc& rank_usage_table() {
  return kRankUsageT;
}
std::span<const TableDesc* const> all_tables() {
  return kAll;
}

}  // namespace iosweep
