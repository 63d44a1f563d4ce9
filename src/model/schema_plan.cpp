// The plan table's fields (see schema.hpp): one row per (step, point, repetition, phase) of the
// run plan, as sweep/plan_run.cpp decided it before the run.
#include <cstddef>

#include "model/schema.hpp"

namespace iosweep {
namespace {

#define FIELD(S, f) .name = #f, .offset = offsetof(S, f)

const FieldDesc kPlan[] = {
    {FIELD(PlanRow, step), .type = FieldType::u32, .unit = "1",
     .reduction = "the step, from 0 (0 in a run without steps)"},
    {FIELD(PlanRow, point), .type = FieldType::u32, .unit = "1",
     .reduction = "the point's number in the run, every step's points counted, from 0"},
    {FIELD(PlanRow, repetition), .type = FieldType::u32, .unit = "1",
     .reduction = "repetition index, from 0"},
    {FIELD(PlanRow, phase), .type = FieldType::phase_enum, .unit = "enum",
     .reduction = "the phase, in the order the repetition runs them"},
    {FIELD(PlanRow, engine), .type = FieldType::engine_enum, .unit = "enum",
     .reduction = "the step's engine"},
    {FIELD(PlanRow, ranks), .type = FieldType::u32, .unit = "ranks",
     .reduction = "active ranks at the point"},
    {FIELD(PlanRow, streams), .type = FieldType::u64, .unit = "streams",
     .reduction = "ranks x the point's depth per rank"},
    {FIELD(PlanRow, point_iodepth), .type = FieldType::u32, .unit = "requests",
     .reduction = "what the point asks each rank to keep in flight (--iodepth, or streams / "
                  "ranks)"},
    {FIELD(PlanRow, iodepth), .type = FieldType::u32, .unit = "requests",
     .reduction = "what the phase's engine keeps in flight per rank: the point's depth, fewer "
                  "when the phase has fewer records, more where it overlaps its own computing "
                  "(filter-count)"},
    {FIELD(PlanRow, iodepth_batch), .type = FieldType::u32, .unit = "requests",
     .reduction = "io_uring: requests queued before they are handed to the kernel, within "
                  "iodepth"},
    {FIELD(PlanRow, record_bytes), .type = FieldType::u64, .unit = "bytes",
     .reduction = "the phase's record (0 for the metadata phases)"},
    {FIELD(PlanRow, buffer_bytes), .type = FieldType::u64, .unit = "bytes",
     .reduction = "I/O buffers (and a metadata phase's names) one rank holds at once, as checked "
                  "against each machine's available memory"},
    {FIELD(PlanRow, bytes_per_rank), .type = FieldType::u64, .unit = "bytes",
     .reduction = "data each rank moves in the phase were nothing stonewalled (0 for metadata)"},
    {FIELD(PlanRow, md_items), .type = FieldType::u64, .unit = "items",
     .reduction = "metadata phases: items every rank together makes at the point (0 otherwise)"},
    {FIELD(PlanRow, md_folders), .type = FieldType::u64, .unit = "folders",
     .reduction = "metadata phases: folders of the point's trees (0 otherwise)"},
    {FIELD(PlanRow, md_branch), .type = FieldType::u64, .unit = "folders",
     .reduction = "metadata phases: children per folder of the point's trees (0 otherwise)"},
    {FIELD(PlanRow, read_shift), .type = FieldType::i32, .unit = "positions",
     .reduction = "position i reads (or looks up) the file (items) of position (i + read_shift) "
                  "mod ranks"},
    {FIELD(PlanRow, order_seed), .type = FieldType::u64, .unit = "1",
     .reduction = "the seed of the point's and repetition's record orders"},
    {FIELD(PlanRow, fsync), .type = FieldType::u8, .unit = "bool",
     .reduction = "1 when the phase fsyncs inside its timed window"},
    {FIELD(PlanRow, caches_to_drop), .type = FieldType::u8, .unit = "1",
     .reduction = "the kernel caches every node drops before the phase's barrier: 0 none, 2 "
                  "dentries and inodes, 3 those and the page cache"},
};

#undef FIELD

const TableDesc kPlanT{.name = "plan",
                       .row_bytes = sizeof(PlanRow),
                       .fields = kPlan,
                       .description =
                           "one row per (step, point, repetition, phase) of the run "
                           "plan: what was decided before the run"};

}  // namespace

const TableDesc& plan_table() {
  return kPlanT;
}

}  // namespace iosweep
