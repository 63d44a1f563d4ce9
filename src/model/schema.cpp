// Field tables of results schema 1 (see schema.hpp).
#include "model/schema.hpp"

#include <cstddef>

namespace iosweep {
namespace {

// A field's name and offset, from the member itself; the rest of each row is designated.
#define FIELD(S, f) .name = #f, .offset = offsetof(S, f)

const FieldDesc kSummary[] = {
    {FIELD(SummaryRow, point), .type = FieldType::u32, .unit = "1",
     .reduction = "row index within the run"},
    {FIELD(SummaryRow, phase), .type = FieldType::phase_enum, .unit = "enum",
     .reduction = "the phase; names and values from the phase table"},
    {FIELD(SummaryRow, engine), .type = FieldType::engine_enum, .unit = "enum",
     .reduction = "the engine; names and values from the engine table"},
    {FIELD(SummaryRow, stonewalled), .type = FieldType::u8, .unit = "bool",
     .reduction = "1 when --stonewall stopped any rank early"},
    {FIELD(SummaryRow, ranks), .type = FieldType::u32, .unit = "ranks",
     .reduction = "active ranks at this point"},
    {FIELD(SummaryRow, nodes), .type = FieldType::u32, .unit = "nodes",
     .reduction = "distinct nodes among the active ranks"},
    {FIELD(SummaryRow, repetition), .type = FieldType::u32, .unit = "1",
     .reduction = "repetition index, from 0"},
    {FIELD(SummaryRow, bytes), .type = FieldType::u64, .unit = "bytes",
     .reduction = "sum over ranks, timed window only"},
    {FIELD(SummaryRow, ops), .type = FieldType::u64, .unit = "ops", .reduction = "sum over ranks"},
    {FIELD(SummaryRow, wall_s), .type = FieldType::f64, .unit = "s",
     .reduction = "max over ranks of elapsed (open to close)"},
    {FIELD(SummaryRow, bandwidth_Bps), .type = FieldType::f64, .unit = "bytes/s",
     .reduction = "bytes / wall_s (IOR's figure)"},
    {FIELD(SummaryRow, iops), .type = FieldType::f64, .unit = "ops/s", .reduction = "ops / wall_s"},
    {FIELD(SummaryRow, children_Bps), .type = FieldType::f64, .unit = "bytes/s",
     .reduction = "sum over ranks of bytes_i / elapsed_i (IOzone's 'Children see' with -x, "
                  "stonewalling off; its default is iozone_children_Bps)"},
    {FIELD(SummaryRow, rank_bw_min_Bps), .type = FieldType::f64, .unit = "bytes/s",
     .reduction = "min over ranks of bytes_i / elapsed_i"},
    {FIELD(SummaryRow, rank_bw_max_Bps), .type = FieldType::f64, .unit = "bytes/s",
     .reduction = "max over ranks of bytes_i / elapsed_i"},
    {FIELD(SummaryRow, rank_bw_mean_Bps), .type = FieldType::f64, .unit = "bytes/s",
     .reduction = "mean over ranks of bytes_i / elapsed_i"},
    {FIELD(SummaryRow, rank_bw_std_Bps), .type = FieldType::f64, .unit = "bytes/s",
     .reduction = "population standard deviation over ranks of bytes_i / elapsed_i"},
    {FIELD(SummaryRow, rank_time_min_s), .type = FieldType::f64, .unit = "s",
     .reduction = "min over ranks of elapsed"},
    {FIELD(SummaryRow, rank_time_max_s), .type = FieldType::f64, .unit = "s",
     .reduction = "max over ranks of elapsed"},
    {FIELD(SummaryRow, rank_time_mean_s), .type = FieldType::f64, .unit = "s",
     .reduction = "mean over ranks of elapsed"},
    {FIELD(SummaryRow, rank_time_std_s), .type = FieldType::f64, .unit = "s",
     .reduction = "population standard deviation over ranks of elapsed"},
    {FIELD(SummaryRow, first_done_s), .type = FieldType::f64, .unit = "s",
     .reduction = "elapsed of the first rank to finish"},
    {FIELD(SummaryRow, last_done_s), .type = FieldType::f64, .unit = "s",
     .reduction = "elapsed of the last rank to finish"},
    {FIELD(SummaryRow, first_done_Bps), .type = FieldType::f64, .unit = "bytes/s",
     .reduction = "bytes all ranks had moved when the first finished / first_done_s (time series, "
                  "interpolated within a bin)"},
    {FIELD(SummaryRow, last_done_Bps), .type = FieldType::f64, .unit = "bytes/s",
     .reduction = "bytes / last_done_s"},
    {FIELD(SummaryRow, iozone_children_Bps), .type = FieldType::f64, .unit = "bytes/s",
     .reduction = "sum over ranks of bytes_i moved by first_done_s / first_done_s (IOzone's "
                  "stonewalled 'Children see')"},
    {FIELD(SummaryRow, rows), .type = FieldType::u64, .unit = "rows",
     .reduction = "filter-count: 64-bit words scanned, sum over ranks"},
    {FIELD(SummaryRow, matches), .type = FieldType::u64, .unit = "rows",
     .reduction = "filter-count: words equal to the key, MPI_Reduce sum"},
    {FIELD(SummaryRow, expected_matches), .type = FieldType::u64, .unit = "rows",
     .reduction = "filter-count: exact expected matches over the scanned ranges"},
    {FIELD(SummaryRow, io_wait_mean_s), .type = FieldType::f64, .unit = "s",
     .reduction = "filter-count: mean over ranks of time in the read loop not spent counting"},
    {FIELD(SummaryRow, compute_mean_s), .type = FieldType::f64, .unit = "s",
     .reduction = "filter-count: mean over ranks of time spent counting"},
    {FIELD(SummaryRow, filter_efficiency), .type = FieldType::f64, .unit = "1",
     .reduction =
         "filter-count bandwidth_Bps / scan-only bandwidth_Bps at the same point and repetition "
         "(the identical read path with counting switched off, through the same buffers); NaN "
         "when scan-only did not run"},
    {FIELD(SummaryRow, lat_mean_ns), .type = FieldType::f64, .unit = "ns",
     .reduction = "mean operation latency, all ranks; every latency figure NaN when no operation "
                  "completed"},
    {FIELD(SummaryRow, lat_p50_ns), .type = FieldType::f64, .unit = "ns",
     .reduction = "median latency from the merged histogram (bucket midpoint)"},
    {FIELD(SummaryRow, lat_p90_ns), .type = FieldType::f64, .unit = "ns",
     .reduction = "90th percentile latency, merged histogram"},
    {FIELD(SummaryRow, lat_p99_ns), .type = FieldType::f64, .unit = "ns",
     .reduction = "99th percentile latency, merged histogram"},
    {FIELD(SummaryRow, lat_p999_ns), .type = FieldType::f64, .unit = "ns",
     .reduction = "99.9th percentile latency, merged histogram"},
    {FIELD(SummaryRow, lat_p9999_ns), .type = FieldType::f64, .unit = "ns",
     .reduction = "99.99th percentile latency, merged histogram"},
    {FIELD(SummaryRow, lat_max_ns), .type = FieldType::f64, .unit = "ns",
     .reduction = "max over ranks of the largest latency"},
    {FIELD(SummaryRow, wearout_bytes), .type = FieldType::u64, .unit = "bytes",
     .reduction = "sum over ranks of bytes moved untimed after the stonewall"},
    {FIELD(SummaryRow, wearout_max_s), .type = FieldType::f64, .unit = "s",
     .reduction = "max over ranks of the untimed wear-out time"},
    {FIELD(SummaryRow, verify_max_s), .type = FieldType::f64, .unit = "s",
     .reduction = "max over ranks of time spent verifying (inside the timed window)"},
    {FIELD(SummaryRow, bad_blocks), .type = FieldType::u64, .unit = "blocks",
     .reduction = "sum over ranks of 4 KiB blocks that failed verification (a block two records "
                  "share counts once per record whose part of it failed)"},
    {FIELD(SummaryRow, order_seed), .type = FieldType::u64, .unit = "1",
     .reduction = "random phases: the seed of this point's record orders (--order-seed, or the "
                  "run's nonce, mixed with ranks, or streams with --streams, and repetition); a "
                  "rank's order is keyed by it, its position and the phase"},
    {FIELD(SummaryRow, filter_vs_seq_read), .type = FieldType::f64, .unit = "1",
     .reduction = "filter-count bandwidth_Bps / seq-read bandwidth_Bps at the same point and "
                  "repetition; NaN when seq-read did not run"},
    {FIELD(SummaryRow, device_read_bytes), .type = FieldType::f64, .unit = "bytes",
     .reduction = "bytes the block device holding --dir read during the phase, summed over nodes "
                  "(each device of each kernel once); NaN without a block device"},
    {FIELD(SummaryRow, device_write_bytes), .type = FieldType::f64, .unit = "bytes",
     .reduction = "bytes the block device holding --dir wrote during the phase, summed as "
                  "device_read_bytes"},
    {FIELD(SummaryRow, device_fraction), .type = FieldType::f64, .unit = "1",
     .reduction = "device bytes in the phase's direction / bytes; NaN without a block device or "
                  "for a metadata phase"},
    {FIELD(SummaryRow, cached_fraction_mean), .type = FieldType::f64, .unit = "1",
     .reduction = "reading phases: mean over ranks of the fraction of the bytes to read that were "
                  "in the page cache when the phase started; NaN for writing phases. Collective "
                  "MPI-IO reads: 1 - the bytes the read brought into any node's page cache / "
                  "bytes (an upper bound), NaN with O_DIRECT"},
    {FIELD(SummaryRow, cached_fraction_max), .type = FieldType::f64, .unit = "1",
     .reduction = "max over ranks of cached_fraction; collective MPI-IO reads: the largest "
                  "fraction of the shared file one node held before the window"},
    {FIELD(SummaryRow, unflushed_fraction), .type = FieldType::f64, .unit = "1",
     .reduction = "writing phases without fsync or O_DIRECT: bytes still dirty or under writeback "
                  "in the page cache after the last close / bytes written; NaN otherwise"},
    {FIELD(SummaryRow, t_start_unix_ns), .type = FieldType::u64, .unit = "ns",
     .reduction = "unix time at which the first rank started its timed window (min over ranks)"},
    {FIELD(SummaryRow, overhead_s), .type = FieldType::f64, .unit = "s",
     .reduction = "rank 0's time in this phase outside the slowest rank's window and outside its "
                  "own preparation (buffers, file creation, cache drop): barriers, agreements, "
                  "gathers, reductions, the results append"},
    {FIELD(SummaryRow, cpu_s), .type = FieldType::f64, .unit = "s",
     .reduction =
         "sum over ranks of CPU time (user + system, all threads) during the timed window"},
    {FIELD(SummaryRow, rss_peak_max_bytes), .type = FieldType::u64, .unit = "bytes",
     .reduction = "max over ranks of peak resident memory so far (getrusage; shared library pages "
                  "included)"},
    {FIELD(SummaryRow, private_max_bytes), .type = FieldType::u64, .unit = "bytes",
     .reduction = "max over ranks of the memory a rank held alone at the end of its window "
                  "(smaps_rollup Private_*)"},
    {FIELD(SummaryRow, mpi_bytes), .type = FieldType::u64, .unit = "bytes",
     .reduction = "counting phases: bytes the phase sent over MPI, sum over ranks: 8 per rank for "
                  "filter-count's count, every byte read plus the count for ship-count"},
    {FIELD(SummaryRow, mpi_remote_bytes), .type = FieldType::u64, .unit = "bytes",
     .reduction = "of mpi_bytes, the bytes sent to a rank on another node"},
    {FIELD(SummaryRow, filter_vs_ship), .type = FieldType::f64, .unit = "1",
     .reduction =
         "ship-count: filter-count bandwidth_Bps / ship-count bandwidth_Bps at the same point and "
         "repetition (counting in situ against shipping the data to count it); NaN otherwise"},
    {FIELD(SummaryRow, streams), .type = FieldType::u32, .unit = "streams",
     .reduction = "independent streams that ran: ranks x iodepth (--streams sweeps it; IOzone's "
                  "threads); fewer than the point's when its phase had fewer records than its "
                  "depth (the notes say so)"},
    {FIELD(SummaryRow, iodepth), .type = FieldType::u32, .unit = "requests",
     .reduction =
         "requests each rank keeps in flight at this point: --iodepth, or streams / ranks with "
         "--streams (random phases: over one file; sequential phases with --streams: one per "
         "region streamed side by side; filter-count's engine keeps more, see engine_detail)"},
    {FIELD(SummaryRow, wire_rx_bytes), .type = FieldType::f64, .unit = "bytes",
     .reduction = "bytes the storage interfaces of the nodes received during the phase (the wire "
                  "table), summed over nodes, each network namespace once; NaN where none was "
                  "sampled"},
    {FIELD(SummaryRow, wire_tx_bytes), .type = FieldType::f64, .unit = "bytes",
     .reduction = "bytes the storage interfaces sent during the phase, summed as wire_rx_bytes"},
    {FIELD(SummaryRow, wire_fraction), .type = FieldType::f64, .unit = "1",
     .reduction = "wire bytes in the phase's direction (received for reads, sent for writes) / "
                  "bytes; NaN where no interface was sampled, where a counter could not be "
                  "measured (a node's wire row says why), for collective MPI-IO on several "
                  "nodes (MPI's traffic shares the interfaces) and for a metadata phase"},
    {FIELD(SummaryRow, drives), .type = FieldType::u32, .unit = "drives",
     .reduction = "drives the point's files were on: distinct block devices (each once per "
                  "kernel) under the folders of its active ranks' files; 0 without device "
                  "counters"},
    {FIELD(SummaryRow, drive_bw_min_Bps), .type = FieldType::f64, .unit = "bytes/s",
     .reduction = "the slowest drive: min over drives of its ranks' bytes / the slowest of those "
                  "ranks' elapsed (the device table's drive_Bps); NaN without device counters"},
    {FIELD(SummaryRow, drive_bw_max_Bps), .type = FieldType::f64, .unit = "bytes/s",
     .reduction = "the fastest drive: max over drives of drive_Bps; NaN without device counters"},
    {FIELD(SummaryRow, drive_slowest), .type = FieldType::i32, .unit = "1",
     .reduction = "the device table's drive id of the slowest drive; -1 without device counters"},
    {FIELD(SummaryRow, drive_fastest), .type = FieldType::i32, .unit = "1",
     .reduction = "the device table's drive id of the fastest drive; -1 without device counters"},
    {FIELD(SummaryRow, drive_fraction_min), .type = FieldType::f64, .unit = "1",
     .reduction = "min over drives of the device's bytes in the phase's direction / its ranks' "
                  "bytes (the device table's drive_fraction); NaN without device counters"},
    {FIELD(SummaryRow, drive_iops_min), .type = FieldType::f64, .unit = "ops/s",
     .reduction = "the slowest drive by operations: min over drives of its ranks' ops / the "
                  "slowest of those ranks' elapsed (the device table's drive_iops; the metadata "
                  "phases' per-drive rate); NaN without device counters"},
    {FIELD(SummaryRow, drive_iops_max), .type = FieldType::f64, .unit = "ops/s",
     .reduction = "the fastest drive by operations: max over drives of drive_iops; NaN without "
                  "device counters"},
    {FIELD(SummaryRow, rank_iops_min), .type = FieldType::f64, .unit = "ops/s",
     .reduction = "min over ranks of ops_i / elapsed_i"},
    {FIELD(SummaryRow, rank_iops_max), .type = FieldType::f64, .unit = "ops/s",
     .reduction = "max over ranks of ops_i / elapsed_i"},
    {FIELD(SummaryRow, rank_iops_mean), .type = FieldType::f64, .unit = "ops/s",
     .reduction = "mean over ranks of ops_i / elapsed_i"},
    {FIELD(SummaryRow, rank_iops_std), .type = FieldType::f64, .unit = "ops/s",
     .reduction = "population standard deviation over ranks of ops_i / elapsed_i"},
    {FIELD(SummaryRow, md_items), .type = FieldType::u64, .unit = "items",
     .reduction = "metadata phases: the items every active rank was to make at this point "
                  "(--md-items x ranks, or --md-items-total; mdtest's -n x tasks); 0 otherwise"},
    {FIELD(SummaryRow, md_folders), .type = FieldType::u64, .unit = "folders",
     .reduction = "metadata phases: the folders of this point's trees, every stream's (or the one "
                  "shared tree), top folders included (mdtest's tree); 0 otherwise"},
    {FIELD(SummaryRow, md_branch), .type = FieldType::u32, .unit = "1",
     .reduction = "metadata phases: children per folder of this point's trees (--md-branch, or "
                  "the smallest that gives every item a folder at --md-items-per-folder); 0 "
                  "otherwise"},
    {FIELD(SummaryRow, md_cache_drop), .type = FieldType::u8, .unit = "1",
     .reduction = "md-stat and md-read: 1 when every node's dentry, inode and page caches were "
                  "dropped right before the phase (--cache drop), 2 when a node's kernel refused "
                  "it, 0 when not dropped (--cache keep, other phases)"},
    {FIELD(SummaryRow, md_device_bytes_per_op), .type = FieldType::f64, .unit = "bytes/op",
     .reduction = "metadata phases: bytes the block device holding --dir read (md-stat, md-read) "
                  "or read and wrote (the others) during the phase / ops; NaN without a block "
                  "device or for a data phase"},
    {FIELD(SummaryRow, md_wire_bytes_per_op), .type = FieldType::f64, .unit = "bytes/op",
     .reduction = "metadata phases: the smallest over nodes of a node's wire bytes (received + "
                  "sent) during the phase / the ops its ranks completed; NaN where no interface "
                  "was sampled or for a data phase"},
    {FIELD(SummaryRow, md_server_bytes_per_op), .type = FieldType::f64, .unit = "bytes/op",
     .reduction = "metadata phases: what one operation needs on a node's wire when it reaches a "
                  "server, the reference md_wire_bytes_per_op is judged against: the operation's "
                  "cost measured on the client (GlusterFS's FUSE client, on the bed), else 128 "
                  "bytes, plus the item's bytes for md-read and md-create; NaN where no interface "
                  "was sampled or for a data phase"},
    {FIELD(SummaryRow, md_cached_fraction), .type = FieldType::f64, .unit = "1",
     .reduction = "metadata phases: 1 - md_wire_bytes_per_op / md_server_bytes_per_op, within "
                  "0..1: the share of the operations a cache answered (a lookup) or held back (a "
                  "change), a lower bound where only 128 bytes are known; NaN where no interface "
                  "was sampled or for a data phase"},
    {FIELD(SummaryRow, stall_s), .type = FieldType::f64, .unit = "s",
     .reduction = "max over ranks of stall_s: the longest time one operation stayed outstanding, "
                  "as the ranks' stall watches saw it (to 0.25 s), from 10 s (or --stall-limit "
                  "when smaller) on; 0 when no operation took that long"},
    {FIELD(SummaryRow, notes), .type = FieldType::str256, .unit = "text",
     .reduction = "what the row's figures carry, as the console's notes column prints it (counts, "
                  "efficiency, where the bytes came from, what could not be measured and why, "
                  "what ran when it differs from what was asked, a window too short; fitted to "
                  "255 bytes by cutting before where the bytes came from, which stays whole, the "
                  "cut marked '...; ')"},
    {FIELD(SummaryRow, step), .type = FieldType::u32, .unit = "1",
     .reduction = "the step of the run this row belongs to, from 0 (the run's steps group names "
                  "it); 0 in a run without steps"},
    {FIELD(SummaryRow, plan_row), .type = FieldType::u32, .unit = "1",
     .reduction = "the row of the plan table that decided this phase at this point and "
                  "repetition"},
    {FIELD(SummaryRow, cpu_user_ns_per_op), .type = FieldType::f64, .unit = "ns/op",
     .reduction = "sum over ranks of user CPU time in the window (every thread of the rank) / "
                  "ops; NaN when no operation completed"},
    {FIELD(SummaryRow, cpu_sys_ns_per_op), .type = FieldType::f64, .unit = "ns/op",
     .reduction = "sum over ranks of system CPU time in the window (every thread of the rank, "
                  "io_uring's SQPOLL thread and io-wq workers included) / ops; NaN when no "
                  "operation completed"},
    {FIELD(SummaryRow, busy_fraction_mean), .type = FieldType::f64, .unit = "1",
     .reduction = "mean over ranks of the rank's CPU time (user + system) / its elapsed: the "
                  "share of its window it was on a CPU (above 1 when several of its threads ran); "
                  "ranks with a window under 1 ms left out"},
    {FIELD(SummaryRow, busy_fraction_max), .type = FieldType::f64, .unit = "1",
     .reduction = "max over ranks of CPU time / elapsed"},
    {FIELD(SummaryRow, queued_fraction_mean), .type = FieldType::f64, .unit = "1",
     .reduction = "mean over ranks of the time the rank's threads were runnable but waiting for "
                  "a CPU (schedstat run_delay) / its elapsed; NaN where the kernel keeps no "
                  "schedstat"},
    {FIELD(SummaryRow, link_fraction_min), .type = FieldType::f64, .unit = "1",
     .reduction =
         "data phases of an engine that moves data: min over the drives whose PCIe link "
         "is known of the device table's link_fraction; NaN when no drive's link is known"},
    {FIELD(SummaryRow, link_fraction_max), .type = FieldType::f64, .unit = "1",
     .reduction = "data phases of an engine that moves data: max over the drives whose PCIe link "
                  "is known of link_fraction; NaN when no drive's link is known"},
    {FIELD(SummaryRow, rated_bw_fraction), .type = FieldType::f64, .unit = "1",
     .reduction = "data phases of an engine that moves data: bandwidth_Bps / drives (/ ranks "
                  "without device counters) / --rated-bw (its second rate for a random phase when "
                  "two are given); NaN without --rated-bw"},
    {FIELD(SummaryRow, rated_iops_fraction), .type = FieldType::f64, .unit = "1",
     .reduction = "data phases of an engine that moves data: iops / drives (/ ranks without "
                  "device counters) / --rated-iops; NaN without --rated-iops"},
};

const FieldDesc kWire[] = {
    {FIELD(WireRow, point), .type = FieldType::u32, .unit = "1", .reduction = "summary row"},
    {FIELD(WireRow, phase), .type = FieldType::phase_enum, .unit = "enum",
     .reduction = "the phase"},
    {FIELD(WireRow, repetition), .type = FieldType::u32, .unit = "1",
     .reduction = "repetition index"},
    {FIELD(WireRow, node), .type = FieldType::i32, .unit = "1", .reduction = "node id"},
    {FIELD(WireRow, interfaces), .type = FieldType::str64, .unit = "text",
     .reduction = "the interfaces sampled on that node (--wire-interface, or the route to the "
                  "mount's server; ib:DEVICE:PORT for an InfiniBand port)"},
    {FIELD(WireRow, counted), .type = FieldType::u8, .unit = "bool",
     .reduction = "1 when this row is in the summary's wire sums; 0 when another node shares "
                  "the same network namespace (emulated nodes), or when `note` says its "
                  "counters could not be measured"},
    {FIELD(WireRow, rx_bytes), .type = FieldType::u64, .unit = "bytes",
     .reduction = "received, between the sample before the phase's barrier and after the last "
                  "close (InfiniBand: port_rcv_data x 4)"},
    {FIELD(WireRow, tx_bytes), .type = FieldType::u64, .unit = "bytes",
     .reduction = "sent, same window (InfiniBand: port_xmit_data x 4)"},
    {FIELD(WireRow, client_read_bytes), .type = FieldType::f64, .unit = "bytes",
     .reduction = "NFS: bytes READ brought from the server for this mount (/proc/self/mountstats), "
                  "same window; NaN for other file systems"},
    {FIELD(WireRow, client_write_bytes), .type = FieldType::f64, .unit = "bytes",
     .reduction = "NFS: bytes WRITE sent to the server for this mount, same window; NaN for other "
                  "file systems"},
    {FIELD(WireRow, note), .type = FieldType::str256, .unit = "text",
     .reduction = "why the interfaces' counters could not be measured around this phase (an "
                  "interface gone, replaced or reset), then rx and tx 0 and counted 0; empty when "
                  "they were"},
};

const FieldDesc kMounts[] = {
    {FIELD(MountRow, node), .type = FieldType::i32, .unit = "1", .reduction = "node id"},
    {FIELD(MountRow, fs_type), .type = FieldType::str64, .unit = "text",
     .reduction = "the file system type of the mount holding the folder on that node "
                  "(/proc/self/mountinfo: ext4, fuse.glusterfs, nfs4, lustre, gpfs ...)"},
    {FIELD(MountRow, source), .type = FieldType::str256, .unit = "text",
     .reduction = "its source: the device, or the server and export"},
    {FIELD(MountRow, mount_point), .type = FieldType::str256, .unit = "text",
     .reduction = "its mount point"},
    {FIELD(MountRow, options), .type = FieldType::str256, .unit = "text",
     .reduction = "the mount's options, then the super block's (cut at 255 bytes)"},
    {FIELD(MountRow, wire), .type = FieldType::str256, .unit = "text",
     .reduction = "the interfaces sampled for the wire table, or why none was"},
    {FIELD(MountRow, folder), .type = FieldType::i32, .unit = "1",
     .reduction = "index of the folder in --dir's list"},
    {FIELD(MountRow, dir), .type = FieldType::str256, .unit = "text",
     .reduction = "the folder (cut at 255 bytes)"},
};

const FieldDesc kRanks[] = {
    {FIELD(RankRow, point), .type = FieldType::u32, .unit = "1",
     .reduction = "summary row this sample belongs to"},
    {FIELD(RankRow, rank), .type = FieldType::i32, .unit = "1", .reduction = "world rank"},
    {FIELD(RankRow, position), .type = FieldType::i32, .unit = "1",
     .reduction = "position in the activation order"},
    {FIELD(RankRow, node), .type = FieldType::i32, .unit = "1",
     .reduction = "node id (index into hosts)"},
    {FIELD(RankRow, file), .type = FieldType::i32, .unit = "1",
     .reduction = "position of the file the rank read or wrote"},
    {FIELD(RankRow, stonewalled), .type = FieldType::u8, .unit = "bool",
     .reduction = "1 when --stonewall stopped this rank early"},
    {FIELD(RankRow, bytes), .type = FieldType::u64, .unit = "bytes",
     .reduction = "moved inside the timed window"},
    {FIELD(RankRow, ops), .type = FieldType::u64, .unit = "ops",
     .reduction = "operations completed inside the timed window"},
    {FIELD(RankRow, elapsed_s), .type = FieldType::f64, .unit = "s",
     .reduction = "open + io + sync + close"},
    {FIELD(RankRow, open_s), .type = FieldType::f64, .unit = "s",
     .reduction = "open (and create for seq-write)"},
    {FIELD(RankRow, io_s), .type = FieldType::f64, .unit = "s", .reduction = "the I/O loop"},
    {FIELD(RankRow, sync_s), .type = FieldType::f64, .unit = "s",
     .reduction = "fsync (--fsync, writes)"},
    {FIELD(RankRow, close_s), .type = FieldType::f64, .unit = "s", .reduction = "close"},
    {FIELD(RankRow, rows), .type = FieldType::u64, .unit = "rows",
     .reduction = "filter-count: words scanned"},
    {FIELD(RankRow, matches), .type = FieldType::u64, .unit = "rows",
     .reduction = "filter-count: words equal to the key"},
    {FIELD(RankRow, expected_matches), .type = FieldType::u64, .unit = "rows",
     .reduction = "filter-count: exact expected count for the scanned range"},
    {FIELD(RankRow, io_wait_s), .type = FieldType::f64, .unit = "s",
     .reduction = "filter-count: read loop time not spent counting"},
    {FIELD(RankRow, compute_s), .type = FieldType::f64, .unit = "s",
     .reduction = "filter-count: time spent counting"},
    {FIELD(RankRow, verify_s), .type = FieldType::f64, .unit = "s",
     .reduction = "--verify: time spent verifying"},
    {FIELD(RankRow, bad_blocks), .type = FieldType::u64, .unit = "blocks",
     .reduction = "--verify: blocks that failed"},
    {FIELD(RankRow, wearout_bytes), .type = FieldType::u64, .unit = "bytes",
     .reduction = "untimed wear-out after the stonewall"},
    {FIELD(RankRow, wearout_ops), .type = FieldType::u64, .unit = "ops",
     .reduction = "untimed wear-out operations"},
    {FIELD(RankRow, wearout_s), .type = FieldType::f64, .unit = "s",
     .reduction = "untimed wear-out time"},
    {FIELD(RankRow, latency_max_ns), .type = FieldType::u64, .unit = "ns",
     .reduction = "largest operation latency"},
    {FIELD(RankRow, cached_fraction), .type = FieldType::f64, .unit = "1",
     .reduction = "reading phases: fraction of the bytes to read resident in the page cache before "
                  "the timed window (cachestat(2), else mincore); NaN for writing phases and for "
                  "collective MPI-IO reads (the aggregators read for every rank)"},
    {FIELD(RankRow, unflushed_fraction), .type = FieldType::f64, .unit = "1",
     .reduction = "writing phases without fsync or O_DIRECT: fraction of the bytes written still "
                  "dirty or under writeback after close (cachestat(2)); NaN otherwise"},
    {FIELD(RankRow, cpu_s), .type = FieldType::f64, .unit = "s",
     .reduction = "CPU time of the rank (user + system, all threads) in the window"},
    {FIELD(RankRow, rss_peak_bytes), .type = FieldType::u64, .unit = "bytes",
     .reduction =
         "peak resident memory of the rank so far (getrusage ru_maxrss; shared pages included)"},
    {FIELD(RankRow, private_bytes), .type = FieldType::u64, .unit = "bytes",
     .reduction = "memory the rank held alone at the end of its window (smaps_rollup Private_Clean "
                  "+ Private_Dirty)"},
    {FIELD(RankRow, mpi_bytes), .type = FieldType::u64, .unit = "bytes",
     .reduction = "counting phases: bytes the rank sent over MPI"},
    {FIELD(RankRow, mpi_remote_bytes), .type = FieldType::u64, .unit = "bytes",
     .reduction = "of those, to a rank on another node"},
    {FIELD(RankRow, folder), .type = FieldType::i32, .unit = "1",
     .reduction = "index into --dir's folders of the file the rank read or wrote (the folder of "
                  "the rank at position file)"},
    {FIELD(RankRow, stall_s), .type = FieldType::f64, .unit = "s",
     .reduction = "the longest time one operation of the rank stayed outstanding in the phase "
                  "(its preparation and cleanup included), as its stall watch saw it (to 0.25 "
                  "s), from 10 s (or --stall-limit when smaller) on; 0 when none took that long"},
    {FIELD(RankRow, cpu_user_s), .type = FieldType::f64, .unit = "s",
     .reduction = "user CPU time of the rank (all threads) in the window (getrusage, read just "
                  "before its start and after its end)"},
    {FIELD(RankRow, cpu_sys_s), .type = FieldType::f64, .unit = "s",
     .reduction = "system CPU time of the rank (all threads, io_uring's SQPOLL thread and io-wq "
                  "workers included) in the window"},
    {FIELD(RankRow, cpu_queued_s), .type = FieldType::f64, .unit = "s",
     .reduction = "time the rank's threads were runnable but waiting for a CPU in the window "
                  "(/proc/self/task/*/schedstat run_delay); NaN where the kernel keeps none"},
    {FIELD(RankRow, busy_fraction), .type = FieldType::f64, .unit = "1",
     .reduction = "(cpu_user_s + cpu_sys_s) / elapsed_s; NaN for a window under 1 ms"},
};

const FieldDesc kRankUsage[] = {
    {FIELD(RankUsageRow, rank), .type = FieldType::i32, .unit = "1", .reduction = "world rank"},
    {FIELD(RankUsageRow, rss_peak_bytes), .type = FieldType::u64, .unit = "bytes",
     .reduction =
         "peak resident memory over the run (getrusage ru_maxrss; shared library pages included)"},
    {FIELD(RankUsageRow, private_peak_bytes), .type = FieldType::u64, .unit = "bytes",
     .reduction = "largest memory the rank held alone, sampled at the end of every window it ran "
                  "and every point it waited out"},
    {FIELD(RankUsageRow, private_idle_peak_bytes), .type = FieldType::u64, .unit = "bytes",
     .reduction = "largest memory the rank held alone at the end of a point it waited out (idle); "
                  "0 when it ran in every point"},
    {FIELD(RankUsageRow, cpu_user_s), .type = FieldType::f64, .unit = "s",
     .reduction = "user CPU time over the run, all threads"},
    {FIELD(RankUsageRow, cpu_sys_s), .type = FieldType::f64, .unit = "s",
     .reduction = "system CPU time over the run, all threads"},
};

const FieldDesc kRankMap[] = {
    {FIELD(RankMapRow, rank), .type = FieldType::i32, .unit = "1", .reduction = "world rank"},
    {FIELD(RankMapRow, node), .type = FieldType::i32, .unit = "1",
     .reduction = "node id (index into hosts)"},
    {FIELD(RankMapRow, local_index), .type = FieldType::i32, .unit = "1",
     .reduction = "index of the rank among the ranks of its node"},
    {FIELD(RankMapRow, position), .type = FieldType::i32, .unit = "1",
     .reduction = "position in the activation order (--placement)"},
    {FIELD(RankMapRow, folder), .type = FieldType::i32, .unit = "1",
     .reduction = "index into --dir's folders of the rank's own folder: local_index mod their "
                  "number"},
};

const FieldDesc kRunIndex[] = {
    {FIELD(RunIndexRow, run_id), .type = FieldType::str64, .unit = "text",
     .reduction = "group name under /runs"},
    {FIELD(RunIndexRow, t_start_unix_ns), .type = FieldType::u64, .unit = "ns",
     .reduction = "start, unix time"},
    {FIELD(RunIndexRow, t_end_unix_ns), .type = FieldType::u64, .unit = "ns",
     .reduction = "end, unix time; 0 while running"},
    {FIELD(RunIndexRow, world_size), .type = FieldType::u32, .unit = "ranks",
     .reduction = "MPI world size"},
    {FIELD(RunIndexRow, n_nodes), .type = FieldType::u32, .unit = "nodes",
     .reduction = "distinct nodes"},
    {FIELD(RunIndexRow, n_points), .type = FieldType::u32, .unit = "rows",
     .reduction = "summary rows written so far"},
    {FIELD(RunIndexRow, status), .type = FieldType::status_enum, .unit = "enum",
     .reduction = "running=0 complete=1 aborted=2 interrupted=3"},
};

const FieldDesc kNodes[] = {
    {FIELD(NodeRow, point), .type = FieldType::u32, .unit = "1", .reduction = "summary row"},
    {FIELD(NodeRow, node), .type = FieldType::i32, .unit = "1", .reduction = "node id"},
    {FIELD(NodeRow, ranks), .type = FieldType::u32, .unit = "ranks",
     .reduction = "active ranks on this node"},
    {FIELD(NodeRow, bytes), .type = FieldType::u64, .unit = "bytes",
     .reduction = "sum over the node's ranks"},
    {FIELD(NodeRow, seconds), .type = FieldType::f64, .unit = "s",
     .reduction = "max elapsed over the node's ranks"},
    {FIELD(NodeRow, bandwidth_Bps), .type = FieldType::f64, .unit = "bytes/s",
     .reduction = "bytes / seconds"},
    {FIELD(NodeRow, cached_before_bytes), .type = FieldType::f64, .unit = "bytes",
     .reduction = "collective MPI-IO reads: bytes of the shared file resident in the node's page "
                  "cache before the window (its lowest rank's cachestat); NaN otherwise"},
    {FIELD(NodeRow, cached_after_bytes), .type = FieldType::f64, .unit = "bytes",
     .reduction = "the same after every rank's close; NaN otherwise"},
    {FIELD(NodeRow, ops), .type = FieldType::u64, .unit = "ops",
     .reduction = "sum over the node's ranks"},
    {FIELD(NodeRow, iops), .type = FieldType::f64, .unit = "ops/s", .reduction = "ops / seconds"},
};

const FieldDesc kTimeSeries[] = {
    {FIELD(TimeSeriesRow, point), .type = FieldType::u32, .unit = "1", .reduction = "summary row"},
    {FIELD(TimeSeriesRow, rank), .type = FieldType::i32, .unit = "1",
     .reduction = "world rank; -1: every active rank's bin merged (bytes and ops summed, latency "
                  "from the sum of the ranks' bin histograms)"},
    {FIELD(TimeSeriesRow, bin), .type = FieldType::u32, .unit = "1",
     .reduction = "bin index from the rank's start"},
    {FIELD(TimeSeriesRow, t_start_s), .type = FieldType::f64, .unit = "s",
     .reduction = "bin start, from the rank's exit of the phase barrier"},
    {FIELD(TimeSeriesRow, bytes), .type = FieldType::u64, .unit = "bytes",
     .reduction = "completed in the bin"},
    {FIELD(TimeSeriesRow, ops), .type = FieldType::u64, .unit = "ops",
     .reduction = "completed in the bin"},
    {FIELD(TimeSeriesRow, lat_p50_ns), .type = FieldType::f64, .unit = "ns",
     .reduction = "median latency of the operations completed in the bin (bin histogram, 16 "
                  "buckets per power of two: at most 3.1% off); NaN for an empty bin"},
    {FIELD(TimeSeriesRow, lat_p99_ns), .type = FieldType::f64, .unit = "ns",
     .reduction = "99th percentile latency in the bin, as lat_p50_ns"},
    {FIELD(TimeSeriesRow, lat_max_ns), .type = FieldType::f64, .unit = "ns",
     .reduction = "largest latency in the bin (exact); 0 for an empty bin"},
};

const FieldDesc kDevice[] = {
    {FIELD(DeviceRow, point), .type = FieldType::u32, .unit = "1", .reduction = "summary row"},
    {FIELD(DeviceRow, phase), .type = FieldType::phase_enum, .unit = "enum",
     .reduction = "the phase"},
    {FIELD(DeviceRow, repetition), .type = FieldType::u32, .unit = "1",
     .reduction = "repetition index"},
    {FIELD(DeviceRow, node), .type = FieldType::i32, .unit = "1", .reduction = "node id"},
    {FIELD(DeviceRow, device), .type = FieldType::str64, .unit = "text",
     .reduction = "a block device holding folders of --dir on that node (a partition's disk; "
                  "device-mapper and md by their own name)"},
    {FIELD(DeviceRow, counted), .type = FieldType::u8, .unit = "bool",
     .reduction = "1 when this row is in the summary's device sums; 0 when another node shares the "
                  "same kernel and device (emulated nodes), or when `note` says its counters "
                  "could not be measured"},
    {FIELD(DeviceRow, read_bytes), .type = FieldType::u64, .unit = "bytes",
     .reduction = "sectors read x 512 between the sample before the phase's barrier and after the "
                  "last close"},
    {FIELD(DeviceRow, write_bytes), .type = FieldType::u64, .unit = "bytes",
     .reduction = "sectors written x 512, same window"},
    {FIELD(DeviceRow, read_ops), .type = FieldType::u64, .unit = "ops",
     .reduction = "read requests completed, same window"},
    {FIELD(DeviceRow, write_ops), .type = FieldType::u64, .unit = "ops",
     .reduction = "write requests completed, same window"},
    {FIELD(DeviceRow, drive), .type = FieldType::i32, .unit = "1",
     .reduction = "the drive's id in the run: devices numbered in order of first appearance by "
                  "node and folder; rows of one device of one kernel (emulated nodes) share it"},
    {FIELD(DeviceRow, folders), .type = FieldType::str256, .unit = "text",
     .reduction = "the folders of --dir on this device on that node, comma-separated (cut at 255 "
                  "bytes)"},
    {FIELD(DeviceRow, ranks), .type = FieldType::u32, .unit = "ranks",
     .reduction = "active ranks of that node whose file is in those folders"},
    {FIELD(DeviceRow, claimed_bytes), .type = FieldType::u64, .unit = "bytes",
     .reduction = "sum over those ranks of bytes (their timed windows)"},
    {FIELD(DeviceRow, claimed_ops), .type = FieldType::u64, .unit = "ops",
     .reduction = "sum over those ranks of ops (their timed windows): the metadata phases' "
                  "items or folders touched in the folders on this device"},
    {FIELD(DeviceRow, seconds), .type = FieldType::f64, .unit = "s",
     .reduction = "max over those ranks of elapsed; 0 without ranks"},
    {FIELD(DeviceRow, drive_Bps), .type = FieldType::f64, .unit = "bytes/s",
     .reduction = "on the row with counted = 1: claimed_bytes of every row of the drive / the max "
                  "of their seconds; NaN on other rows and for a drive without ranks"},
    {FIELD(DeviceRow, drive_iops), .type = FieldType::f64, .unit = "ops/s",
     .reduction = "on the row with counted = 1: claimed_ops of every row of the drive / the max "
                  "of their seconds; NaN on other rows and for a drive without ranks"},
    {FIELD(DeviceRow, drive_fraction), .type = FieldType::f64, .unit = "1",
     .reduction = "on the row with counted = 1: the device's bytes in the phase's direction / "
                  "claimed_bytes of every row of the drive; NaN on other rows and for a drive "
                  "whose ranks claimed nothing"},
    {FIELD(DeviceRow, note), .type = FieldType::str256, .unit = "text",
     .reduction = "why the device's counters could not be measured around this phase (the device "
                  "gone or replaced), then every count 0 and counted 0; empty when they were"},
    {FIELD(DeviceRow, link_Bps), .type = FieldType::f64, .unit = "bytes/s",
     .reduction = "an NVMe drive's PCIe link per direction: lanes x the per-lane rate of its "
                  "current link speed (sysfs current_link_speed, current_link_width); NaN when "
                  "unknown (link says why)"},
    {FIELD(DeviceRow, link_fraction), .type = FieldType::f64, .unit = "1",
     .reduction = "on the row with counted = 1: the device's bytes in the phase's direction / "
                  "the drive's seconds / link_Bps; NaN on other rows, for an unknown link, for a "
                  "metadata phase and for an engine that moves no data"},
    {FIELD(DeviceRow, link), .type = FieldType::str256, .unit = "text",
     .reduction = "the link as read, e.g. PCIe 4.0 x4 (16.0 GT/s PCIe, 4 lanes: 7.877 GB/s), or "
                  "in words why the device's limit is unknown (a virtio, SATA or SCSI, loop, "
                  "device-mapper, md, network or memory device; NVMe over a fabric)"},
    {FIELD(DeviceRow, lag_note), .type = FieldType::str256, .unit = "text",
     .reduction = "on the counted row of a drive that lagged (drive_fraction under 0.90 while the "
                  "point's other drives' were not): the console's note of it, `drive DEVICE (node "
                  "N) P%` (P at most 89); empty on every other row"},
};

#undef FIELD

const TableDesc kSummaryT{.name = "summary",
                          .row_bytes = sizeof(SummaryRow),
                          .fields = kSummary,
                          .description = "one row per (phase, active ranks, repetition)"};
const TableDesc kRanksT{.name = "ranks",
                        .row_bytes = sizeof(RankRow),
                        .fields = kRanks,
                        .description = "one row per (summary point, active rank)"};
const TableDesc kRankMapT{.name = "rank_map",
                          .row_bytes = sizeof(RankMapRow),
                          .fields = kRankMap,
                          .description = "one row per world rank"};
const TableDesc kRunIndexT{.name = "run_index",
                           .row_bytes = sizeof(RunIndexRow),
                           .fields = kRunIndex,
                           .description = "one row per run in the file"};
const TableDesc kNodesT{.name = "nodes",
                        .row_bytes = sizeof(NodeRow),
                        .fields = kNodes,
                        .description = "one row per (summary point, node used)"};
const TableDesc kTimeSeriesT{.name = "timeseries",
                             .row_bytes = sizeof(TimeSeriesRow),
                             .fields = kTimeSeries,
                             .description =
                                 "one row per (summary point, rank, time bin), and one per "
                                 "(summary point, bin) with rank -1 merging every rank's bin"};
const TableDesc kDeviceT{
    .name = "device",
    .row_bytes = sizeof(DeviceRow),
    .fields = kDevice,
    .description =
        "one row per (summary point, node sampled, block device under its folders): block "
        "device counters and what the ranks whose files are on the device claimed"};
const TableDesc kRankUsageT{
    .name = "rank_usage",
    .row_bytes = sizeof(RankUsageRow),
    .fields = kRankUsage,
    .description = "one row per world rank: memory and CPU over the whole run"};
const TableDesc kWireT{
    .name = "wire",
    .row_bytes = sizeof(WireRow),
    .fields = kWire,
    .description =
        "one row per (summary point, node sampled): the storage interfaces' byte counters"};
const TableDesc kMountsT{.name = "mounts",
                         .row_bytes = sizeof(MountRow),
                         .fields = kMounts,
                         .description =
                             "one row per (node, folder of --dir): the file system holding the "
                             "folder there"};
const EnumMember kStatus[] = {{.name = "running", .value = 0},
                              {.name = "complete", .value = 1},
                              {.name = "aborted", .value = 2},
                              {.name = "interrupted", .value = 3}};

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
const TableDesc& wire_table() {
  return kWireT;
}
const TableDesc& mounts_table() {
  return kMountsT;
}
std::span<const TableDesc* const> all_tables() {
  // Made on first use: the tables of model/schema_final_math.cpp and model/schema_plan.cpp are
  // other files' statics.
  static const TableDesc* const all[] = {
      &kRunIndexT,  &kRankMapT,    &kSummaryT,          &kRanksT,
      &kNodesT,     &kTimeSeriesT, &kDeviceT,           &kRankUsageT,
      &kWireT,      &kMountsT,     &final_math_table(), &final_math_drives_table(),
      &plan_table()};
  return all;
}

}  // namespace iosweep
