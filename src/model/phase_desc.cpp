// The ordered phase table (see phase_desc.hpp).
#include "model/phase_desc.hpp"

#include <stdexcept>

namespace iosweep {
namespace {

// Ids are the values stored in results files: never renumbered, never reused. Rows run in the
// order listed here, whatever order --phases names them in.
const PhaseDesc kPhases[] = {
    {.id = kSeqWrite,
     .name = "seq-write",
     .enum_name = "seq_write",
     .iozone_label = "initial writers",
     .flags = kPhaseWrites | kPhaseCreates,
     .record = RecordKind::seq,
     .help = "writes the rank's file front to back (a fresh file each time)"},
    {.id = kSeqRead,
     .name = "seq-read",
     .enum_name = "seq_read",
     .iozone_label = "readers",
     .flags = 0,
     .record = RecordKind::seq,
     .help = "reads it back front to back"},
    {.id = kRandWrite,
     .name = "rand-write",
     .enum_name = "rand_write",
     .iozone_label = "random writers",
     .flags = kPhaseWrites | kPhaseRandom,
     .record = RecordKind::rand,
     .help = "rewrites every record once in a shuffled order"},
    {.id = kRandRead,
     .name = "rand-read",
     .enum_name = "rand_read",
     .iozone_label = "random readers",
     .flags = kPhaseRandom,
     .record = RecordKind::rand,
     .help = "reads every record once in a shuffled order"},
    {.id = kScanOnly,
     .name = "scan-only",
     .enum_name = "scan_only",
     .iozone_label = nullptr,
     .flags = kPhaseControl,
     .record = RecordKind::scan,
     .help = "filter-count's read path with the counting switched off (its efficiency baseline)",
     .control_for = kFilterCount},
    {.id = kFilterCount,
     .name = "filter-count",
     .enum_name = "filter_count",
     .iozone_label = nullptr,
     .flags = kPhaseCounts,
     .record = RecordKind::scan,
     .help = "scans the file as 64-bit words and counts the key, in situ"},
    {.id = kShipCount,
     .name = "ship-count",
     .enum_name = "ship_count",
     .iozone_label = nullptr,
     .flags = kPhaseCounts | kPhaseOptIn | kPhaseShips,
     .record = RecordKind::scan,
     .help = "reads as filter-count but ships every record over MPI to a collector, which "
             "counts (only when --phases names it)"},
    // The metadata phases (mdtest's), after the data phases, only when --phases names them
    // (or md): the folder tree, then the items in it, stat, read, remove, then the tree again.
    {.id = kMdMkdir,
     .name = "md-mkdir",
     .enum_name = "md_mkdir",
     .iozone_label = nullptr,
     .flags = kPhaseMetadata | kPhaseOptIn,
     .record = RecordKind::none,
     .help = "makes each stream's folder tree (mdtest's tree creation)"},
    {.id = kMdCreate,
     .name = "md-create",
     .enum_name = "md_create",
     .iozone_label = nullptr,
     .flags = kPhaseMetadata | kPhaseOptIn,
     .record = RecordKind::none,
     .help = "creates each item, writing --md-write-bytes and fsyncing it with --md-fsync"},
    {.id = kMdStat,
     .name = "md-stat",
     .enum_name = "md_stat",
     .iozone_label = nullptr,
     .flags = kPhaseMetadata | kPhaseOptIn | kPhaseLookup,
     .record = RecordKind::none,
     .help = "stats each item (another node's, when the point spans nodes)"},
    {.id = kMdRead,
     .name = "md-read",
     .enum_name = "md_read",
     .iozone_label = nullptr,
     .flags = kPhaseMetadata | kPhaseOptIn | kPhaseLookup,
     .record = RecordKind::none,
     .help = "opens each item, reads --md-read-bytes, closes it (another node's, as md-stat)"},
    {.id = kMdRemove,
     .name = "md-remove",
     .enum_name = "md_remove",
     .iozone_label = nullptr,
     .flags = kPhaseMetadata | kPhaseOptIn,
     .record = RecordKind::none,
     .help = "removes each item"},
    {.id = kMdRmdir,
     .name = "md-rmdir",
     .enum_name = "md_rmdir",
     .iozone_label = nullptr,
     .flags = kPhaseMetadata | kPhaseOptIn,
     .record = RecordKind::none,
     .help = "removes each stream's folder tree (mdtest's tree removal)"},
    // IO500's timestamp and find (only when --phases names them; never through md).
    {.id = kTimestamp,
     .name = "timestamp",
     .enum_name = "timestamp",
     .iozone_label = nullptr,
     .flags = kPhaseMetadata | kPhaseOptIn | kPhaseTree,
     .record = RecordKind::none,
     .help = "the first rank makes the file --find-newer names, find's reference (IO500's "
             "timestamp)"},
    {.id = kFind,
     .name = "find",
     .enum_name = "find",
     .iozone_label = nullptr,
     .flags = kPhaseMetadata | kPhaseOptIn | kPhaseLookup | kPhaseTree,
     .record = RecordKind::none,
     .help = "walks every folder below the first --dir, the folders shared out over the ranks, "
             "and counts the files named --find-name of --find-size bytes changed since "
             "--find-newer (IO500's find, as pfind)"},
};

}  // namespace

std::span<const PhaseDesc> phase_descs() {
  return kPhases;
}

const PhaseDesc& phase_desc(PhaseId id) {
  for (const auto& d : kPhases)
    if (d.id == id) return d;
  throw std::logic_error("no phase with id " + std::to_string(id));
}

const PhaseDesc* find_phase_desc(std::string_view name) {
  for (const auto& d : kPhases)
    if (name == d.name || name == d.enum_name) return &d;
  return nullptr;
}

std::string phase_names() {
  std::string s;
  for (const auto& d : kPhases)
    s += (s.empty() ? "" : ", ") + std::string(d.name);
  return s;
}

std::string metadata_phase_names() {
  std::string s;
  for (const auto& d : kPhases)
    if (d.metadata() && !d.tree()) s += (s.empty() ? "" : ", ") + std::string(d.name);
  return s;
}

std::string phase_list(std::span<const PhaseId> ids) {
  std::string s;
  for (const PhaseId id : ids)
    s += (s.empty() ? "" : ",") + std::string(phase_desc(id).name);
  return s;
}

const char* record_option(RecordKind k) {
  return k == RecordKind::seq    ? "--seq-record"
         : k == RecordKind::rand ? "--rand-record"
         : k == RecordKind::scan ? "--scan-record"
                                 : "";
}

}  // namespace iosweep
