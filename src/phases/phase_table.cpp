// Phase table and names (see phase_table.hpp, phase_kind.hpp).
#include "phases/phase_table.hpp"

#include "phases/filter_count.hpp"
#include "phases/io_phase.hpp"

namespace iosweep {
namespace {

template <PhaseKind K>
std::unique_ptr<Phase> make_io() {
  return std::make_unique<IoPhase>(K);
}
std::unique_ptr<Phase> make_filter() {
  return std::make_unique<FilterCount>();
}

const PhaseEntry kPhases[] = {
    {PhaseKind::seq_write, "seq-write", "seq_write", &make_io<PhaseKind::seq_write>},
    {PhaseKind::seq_read, "seq-read", "seq_read", &make_io<PhaseKind::seq_read>},
    {PhaseKind::rand_write, "rand-write", "rand_write", &make_io<PhaseKind::rand_write>},
    {PhaseKind::rand_read, "rand-read", "rand_read", &make_io<PhaseKind::rand_read>},
    {PhaseKind::filter_count, "filter-count", "filter_count", &make_filter},
};

}  // namespace

std::span<const PhaseEntry> phase_table() {
  return kPhases;
}

const PhaseEntry& phase_entry(PhaseKind k) {
  return kPhases[static_cast<int>(k)];
}

const char* phase_cli_name(PhaseKind k) {
  return phase_entry(k).cli_name;
}
const char* phase_enum_name(PhaseKind k) {
  return phase_entry(k).enum_name;
}

bool parse_phase(const std::string& s, PhaseKind& out) {
  for (const auto& e : kPhases)
    if (s == e.cli_name || s == e.enum_name) {
      out = e.kind;
      return true;
    }
  return false;
}

}  // namespace iosweep
