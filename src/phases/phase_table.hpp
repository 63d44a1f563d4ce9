// The phase table's behaviour: for every phase of the ordered description table
// (model/phase_desc.cpp, the one place that says which phases exist, their names, flags and
// order), the row with the same id here says what the phase does: its factory and the
// reduction it adds to the generic one. Adding a phase is its two files, one row in each table
// and one CMake line; a unit test checks that both tables list the same ids.
#pragma once

#include <memory>
#include <span>

#include "model/phase_desc.hpp"
#include "model/point.hpp"

namespace iosweep {

class Phase;

struct PhaseRow {
  PhaseId id;
  std::unique_ptr<Phase> (*make)(const PhaseDesc& desc);
  // Rank 0, after the generic reduction of a point: what this phase adds to its summary from
  // the points already reduced at the same ranks and repetition; nullptr: nothing.
  void (*reduce)(SummaryRow& summary, const PointBook& book);

  const PhaseDesc& desc() const { return phase_desc(id); }
};

std::span<const PhaseRow> phase_table();
// The row of a valid id (ids come from the description table); throws std::logic_error
// otherwise.
const PhaseRow& phase_row(PhaseId id);
// A new phase object for `id`.
std::unique_ptr<Phase> make_phase(PhaseId id);

}  // namespace iosweep
