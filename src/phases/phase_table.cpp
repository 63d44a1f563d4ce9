// The phase table (see phase_table.hpp).
#include "phases/phase_table.hpp"

#include <stdexcept>

#include "phases/filter_count.hpp"
#include "phases/io_phase.hpp"
#include "phases/ship_count.hpp"

namespace iosweep {
namespace {

template <class P>
std::unique_ptr<Phase> make(const PhaseDesc& d) {
  return std::make_unique<P>(d);
}

// Ids are the values stored in results files: never renumbered, never reused. Rows run in the
// order listed here, whatever order --phases names them in.
const PhaseRow kPhases[] = {
    {{0, "seq-write", "seq_write", "initial writers", kPhaseWrites | kPhaseCreates, RecordKind::seq,
      "writes the rank's file front to back (a fresh file each time)", nullptr},
     &make<IoPhase>,
     nullptr},
    {{1, "seq-read", "seq_read", "readers", 0, RecordKind::seq, "reads it back front to back",
      nullptr},
     &make<IoPhase>,
     nullptr},
    {{2, "rand-write", "rand_write", "random writers", kPhaseWrites | kPhaseRandom,
      RecordKind::rand, "rewrites every record once in a shuffled order", nullptr},
     &make<IoPhase>,
     nullptr},
    {{3, "rand-read", "rand_read", "random readers", kPhaseRandom, RecordKind::rand,
      "reads every record once in a shuffled order", nullptr},
     &make<IoPhase>,
     nullptr},
    {{5, "scan-only", "scan_only", nullptr, kPhaseControl, RecordKind::scan,
      "filter-count's read path with the counting switched off (its efficiency baseline)",
      "filter-count"},
     &make<FilterCount>,
     nullptr},
    {{4, "filter-count", "filter_count", nullptr, kPhaseCounts, RecordKind::scan,
      "scans the file as 64-bit words and counts the key, in situ", nullptr},
     &make<FilterCount>,
     &FilterCount::reduce},
    {{6, "ship-count", "ship_count", nullptr, kPhaseCounts | kPhaseOptIn | kPhaseShips,
      RecordKind::scan,
      "reads as filter-count but ships every record over MPI to a collector, which counts "
      "(only when --phases names it)",
      nullptr},
     &make<ShipCount>,
     &ShipCount::reduce},
};

}  // namespace

std::span<const PhaseRow> phase_table() {
  return kPhases;
}

const PhaseRow& phase_row(PhaseId id) {
  for (const auto& r : kPhases)
    if (r.desc.id == id) return r;
  throw std::logic_error("no phase with id " + std::to_string(id));
}

const PhaseRow* find_phase(std::string_view name) {
  for (const auto& r : kPhases)
    if (name == r.desc.name || name == r.desc.enum_name) return &r;
  return nullptr;
}

std::string phase_names() {
  std::string s;
  for (const auto& r : kPhases)
    s += (s.empty() ? "" : ", ") + std::string(r.desc.name);
  return s;
}

}  // namespace iosweep
