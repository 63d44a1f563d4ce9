// The ordered phase table (IO500's phase list): the one place that says which phases exist and
// everything about each, in the order they always run. A row carries the phase's description
// (id stored in results files, names, IOzone label, flags, record kind, help), its factory and
// the reduction it adds to the generic one. The --phases choices, the HDF5 enum, the console
// and IOzone writers and, through the enum stored in every results file, the Python scripts all
// read it; adding a phase is its two files, one row in phase_table.cpp and one CMake line.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "model/phase_desc.hpp"
#include "model/point.hpp"

namespace iosweep {

class Phase;

struct PhaseRow {
  PhaseDesc desc;
  std::unique_ptr<Phase> (*make)(const PhaseDesc& desc);
  // Rank 0, after the generic reduction of a point: what this phase adds to its summary from
  // the points already reduced at the same ranks and repetition; nullptr: nothing.
  void (*reduce)(SummaryRow& summary, const PointBook& book);
};

std::span<const PhaseRow> phase_table();
// The row of a valid id (ids come from the table); throws std::logic_error otherwise.
const PhaseRow& phase_row(PhaseId id);
// By its command-line or results-file spelling; nullptr when there is none.
const PhaseRow* find_phase(std::string_view name);
// "seq-write, seq-read, ...": every phase, in table order.
std::string phase_names();

}  // namespace iosweep
