// Field tables of the final math's two tables (see schema.hpp, FinalMathRow and
// FinalMathDriveRow; model/final_math.hpp makes their rows). Apart from schema.cpp only to keep
// each file short; all_tables() lists them after its own.
#include <cstddef>

#include "model/schema.hpp"

namespace iosweep {
namespace {

#define FIELD(S, f) .name = #f, .offset = offsetof(S, f)

const FieldDesc kFinalMath[] = {
    {FIELD(FinalMathRow, step), .type = FieldType::u32, .unit = "1",
     .reduction = "the run's step, from 0 (0 for a run without steps)"},
    {FIELD(FinalMathRow, point), .type = FieldType::u32, .unit = "1",
     .reduction = "summary row of the step's largest filter-count point (the last appended); its "
                  "node lines are the nodes rows of this point"},
    {FIELD(FinalMathRow, ranks), .type = FieldType::u32, .unit = "ranks",
     .reduction = "the point's active ranks"},
    {FIELD(FinalMathRow, nodes), .type = FieldType::u32, .unit = "nodes",
     .reduction = "the point's nodes"},
    {FIELD(FinalMathRow, streams), .type = FieldType::u32, .unit = "1",
     .reduction = "the point's streams (ranks x iodepth)"},
    {FIELD(FinalMathRow, iodepth), .type = FieldType::u32, .unit = "1",
     .reduction = "the point's requests in flight per rank"},
    {FIELD(FinalMathRow, repetition), .type = FieldType::u32, .unit = "1",
     .reduction = "the point's repetition"},
    {FIELD(FinalMathRow, by_streams), .type = FieldType::u8, .unit = "bool",
     .reduction = "1 when the point is named by its streams (the run swept --streams)"},
    {FIELD(FinalMathRow, bytes), .type = FieldType::u64, .unit = "bytes",
     .reduction = "data: the point's bytes (GB = 10^9 bytes as printed)"},
    {FIELD(FinalMathRow, rows), .type = FieldType::u64, .unit = "rows",
     .reduction = "64-bit words scanned"},
    {FIELD(FinalMathRow, wall_s), .type = FieldType::f64, .unit = "s",
     .reduction = "runtime: the point's wall_s"},
    {FIELD(FinalMathRow, bandwidth_Bps), .type = FieldType::f64, .unit = "bytes/s",
     .reduction = "aggregate: the point's bandwidth_Bps"},
    {FIELD(FinalMathRow, per_node_Bps), .type = FieldType::f64, .unit = "bytes/s",
     .reduction = "bandwidth_Bps / nodes (0 without nodes)"},
    {FIELD(FinalMathRow, per_rank_Bps), .type = FieldType::f64, .unit = "bytes/s",
     .reduction = "bandwidth_Bps / ranks (0 without ranks)"},
    {FIELD(FinalMathRow, drives), .type = FieldType::u32, .unit = "1",
     .reduction = "drives used at the point (the summary's drives)"},
    {FIELD(FinalMathRow, per_drive_Bps), .type = FieldType::f64, .unit = "bytes/s",
     .reduction = "bandwidth_Bps / drives; NaN without a drive"},
    {FIELD(FinalMathRow, drive_note), .type = FieldType::str256, .unit = "text",
     .reduction = "why per drive is not known (no drive was counted, or why the device counters "
                  "were not measured); empty with drives"},
    {FIELD(FinalMathRow, matches), .type = FieldType::u64, .unit = "rows",
     .reduction = "keys found"},
    {FIELD(FinalMathRow, expected_matches), .type = FieldType::u64, .unit = "rows",
     .reduction = "keys planted in what was scanned"},
    {FIELD(FinalMathRow, count_check), .type = FieldType::str64, .unit = "text",
     .reduction = "the count's verdict: exact, MISMATCH, not checked: no data moved (an engine "
                  "that moves no data), or nothing scanned"},
    {FIELD(FinalMathRow, rated_bw_Bps), .type = FieldType::f64, .unit = "bytes/s",
     .reduction = "--rated-bw's first rate; 0 when not given"},
    {FIELD(FinalMathRow, rated_bw2_Bps), .type = FieldType::f64, .unit = "bytes/s",
     .reduction = "--rated-bw's second rate; 0 when not given"},
    {FIELD(FinalMathRow, rated_per), .type = FieldType::str64, .unit = "text",
     .reduction = "what the rates are compared with: per drive, or per rank's device when no "
                  "drive was counted"},
    {FIELD(FinalMathRow, rated_per_Bps), .type = FieldType::f64, .unit = "bytes/s",
     .reduction = "its figure: per_drive_Bps, or per_rank_Bps"},
    {FIELD(FinalMathRow, rated_fraction), .type = FieldType::f64, .unit = "1",
     .reduction = "rated_per_Bps / rated_bw_Bps; NaN when not given"},
    {FIELD(FinalMathRow, rated2_fraction), .type = FieldType::f64, .unit = "1",
     .reduction = "rated_per_Bps / rated_bw2_Bps; NaN when not given"},
    {FIELD(FinalMathRow, rated_iops), .type = FieldType::f64, .unit = "ops/s",
     .reduction = "--rated-iops; 0 when not given"},
    {FIELD(FinalMathRow, rated_per_iops), .type = FieldType::f64, .unit = "ops/s",
     .reduction = "the point's iops / drives used, or / ranks when no drive was counted"},
    {FIELD(FinalMathRow, rated_iops_fraction), .type = FieldType::f64, .unit = "1",
     .reduction = "rated_per_iops / rated_iops; NaN when not given"},
    {FIELD(FinalMathRow, ship_point), .type = FieldType::i32, .unit = "1",
     .reduction = "summary row of ship-count's last point when it is the same ranks and "
                  "repetition; -1 when none (then the ship fields are 0)"},
    {FIELD(FinalMathRow, ship_ranks), .type = FieldType::u32, .unit = "ranks",
     .reduction = "ship-count's active ranks"},
    {FIELD(FinalMathRow, ship_mpi_bytes), .type = FieldType::u64, .unit = "bytes",
     .reduction = "bytes ship-count sent over MPI"},
    {FIELD(FinalMathRow, ship_remote_fraction), .type = FieldType::f64, .unit = "1",
     .reduction = "of those, the fraction sent to another node (0 when none was sent)"},
    {FIELD(FinalMathRow, filter_mpi_bytes), .type = FieldType::u64, .unit = "bytes",
     .reduction = "bytes filter-count sent over MPI (8 per rank)"},
    {FIELD(FinalMathRow, ship_bandwidth_Bps), .type = FieldType::f64, .unit = "bytes/s",
     .reduction = "ship-count's bandwidth_Bps"},
    {FIELD(FinalMathRow, filter_vs_ship), .type = FieldType::f64, .unit = "1",
     .reduction = "bandwidth_Bps / ship_bandwidth_Bps; 0 when ship-count moved nothing"},
};

const FieldDesc kFinalMathDrives[] = {
    {FIELD(FinalMathDriveRow, step), .type = FieldType::u32, .unit = "1",
     .reduction = "the final_math row's step"},
    {FIELD(FinalMathDriveRow, point), .type = FieldType::u32, .unit = "1",
     .reduction = "its summary row"},
    {FIELD(FinalMathDriveRow, drive), .type = FieldType::i32, .unit = "1",
     .reduction = "the device table's drive id"},
    {FIELD(FinalMathDriveRow, device), .type = FieldType::str64, .unit = "text",
     .reduction = "the drive's device, from its counted row"},
    {FIELD(FinalMathDriveRow, nodes), .type = FieldType::str64, .unit = "text",
     .reduction = "the nodes of its rows that had ranks, ascending, comma-separated"},
    {FIELD(FinalMathDriveRow, folders), .type = FieldType::str256, .unit = "text",
     .reduction = "the folders of those rows, sorted, comma-separated (cut at 255 bytes)"},
    {FIELD(FinalMathDriveRow, read_bytes), .type = FieldType::u64, .unit = "bytes",
     .reduction = "the counted row's read_bytes: what the device read over the phase"},
    {FIELD(FinalMathDriveRow, window_s), .type = FieldType::f64, .unit = "s",
     .reduction = "the point's wall_s"},
    {FIELD(FinalMathDriveRow, device_Bps), .type = FieldType::f64, .unit = "bytes/s",
     .reduction = "read_bytes / window_s (0 for an empty window)"},
    {FIELD(FinalMathDriveRow, ranks), .type = FieldType::u32, .unit = "ranks",
     .reduction = "sum of ranks over its rows"},
    {FIELD(FinalMathDriveRow, claimed_bytes), .type = FieldType::u64, .unit = "bytes",
     .reduction = "sum of claimed_bytes over its rows"},
    {FIELD(FinalMathDriveRow, drive_Bps), .type = FieldType::f64, .unit = "bytes/s",
     .reduction = "the counted row's drive_Bps: claimed bytes over the slowest of its ranks' "
                  "windows"},
    {FIELD(FinalMathDriveRow, link_Bps), .type = FieldType::f64, .unit = "bytes/s",
     .reduction = "the counted row's link_Bps: the drive's PCIe link per direction; NaN when "
                  "unknown"},
    {FIELD(FinalMathDriveRow, link_fraction), .type = FieldType::f64, .unit = "1",
     .reduction = "the counted row's link_fraction: device bytes / window / link_Bps; NaN when "
                  "the link is unknown"},
    {FIELD(FinalMathDriveRow, link), .type = FieldType::str256, .unit = "text",
     .reduction = "the counted row's link: as read, or in words why it is unknown"},
};

#undef FIELD

const TableDesc kFinalMathT{.name = "final_math",
                            .row_bytes = sizeof(FinalMathRow),
                            .fields = kFinalMath,
                            .description =
                                "one row: the final math of the largest filter-count point (of "
                                "the last step that ran filter-count), as the console prints it "
                                "after the run"};
const TableDesc kFinalMathDrivesT{
    .name = "final_math_drives",
    .row_bytes = sizeof(FinalMathDriveRow),
    .fields = kFinalMathDrives,
    .description =
        "one row per drive the final math's point used: the drive's counters over the "
        "window and what its ranks claimed"};

}  // namespace

const TableDesc& final_math_table() {
  return kFinalMathT;
}
const TableDesc& final_math_drives_table() {
  return kFinalMathDrivesT;
}

}  // namespace iosweep
