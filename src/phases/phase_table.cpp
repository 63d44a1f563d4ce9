// The phase table's behaviour rows (see phase_table.hpp).
#include "phases/phase_table.hpp"

#include <stdexcept>

#include "phases/filter_count.hpp"
#include "phases/find_phase.hpp"
#include "phases/io_phase.hpp"
#include "phases/md_phase.hpp"
#include "phases/ship_count.hpp"

namespace iosweep {
namespace {

template <class P>
std::unique_ptr<Phase> make(const PhaseDesc& d) {
  return std::make_unique<P>(d);
}

const PhaseRow kPhases[] = {
    {.id = kSeqWrite, .make = &make<IoPhase>, .reduce = nullptr},
    {.id = kSeqRead, .make = &make<IoPhase>, .reduce = nullptr},
    {.id = kRandWrite, .make = &make<IoPhase>, .reduce = nullptr},
    {.id = kRandRead, .make = &make<IoPhase>, .reduce = nullptr},
    {.id = kScanOnly, .make = &make<FilterCount>, .reduce = nullptr},
    {.id = kFilterCount, .make = &make<FilterCount>, .reduce = &FilterCount::reduce},
    {.id = kShipCount, .make = &make<ShipCount>, .reduce = &ShipCount::reduce},
    {.id = kMdMkdir, .make = &make<MdPhase>, .reduce = nullptr},
    {.id = kMdCreate, .make = &make<MdPhase>, .reduce = nullptr},
    {.id = kMdStat, .make = &make<MdPhase>, .reduce = nullptr},
    {.id = kMdRead, .make = &make<MdPhase>, .reduce = nullptr},
    {.id = kMdRemove, .make = &make<MdPhase>, .reduce = nullptr},
    {.id = kMdRmdir, .make = &make<MdPhase>, .reduce = nullptr},
    {.id = kTimestamp, .make = &make<TreePhase>, .reduce = nullptr},
    {.id = kFind, .make = &make<TreePhase>, .reduce = nullptr},
};

}  // namespace

std::span<const PhaseRow> phase_table() {
  return kPhases;
}

const PhaseRow& phase_row(PhaseId id) {
  for (const auto& r : kPhases)
    if (r.id == id) return r;
  throw std::logic_error("no phase with id " + std::to_string(id));
}

std::unique_ptr<Phase> make_phase(PhaseId id) {
  return phase_row(id).make(phase_desc(id));
}

}  // namespace iosweep
