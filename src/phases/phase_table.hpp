// The ordered phase table (IO500's phase list): the one place that says which phases exist,
// their names and the order they always run in.
#pragma once

#include <memory>
#include <span>

#include "phases/phase.hpp"

namespace iosweep {

struct PhaseEntry {
  PhaseKind kind;
  const char* cli_name;   // --phases spelling
  const char* enum_name;  // results file spelling
  std::unique_ptr<Phase> (*make)();
};

std::span<const PhaseEntry> phase_table();
const PhaseEntry& phase_entry(PhaseKind k);

}  // namespace iosweep
