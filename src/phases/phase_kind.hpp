// The five phases, with the fixed enum values stored in results files (never renumbered).
#pragma once

#include <cstdint>
#include <string>

namespace iosweep {

enum class PhaseKind : std::uint8_t {
  seq_write = 0,
  seq_read = 1,
  rand_write = 2,
  rand_read = 3,
  filter_count = 4,
};
inline constexpr int kPhaseCount = 5;

// "seq-write" etc. (command line spelling) and "seq_write" (results file spelling).
const char* phase_cli_name(PhaseKind k);
const char* phase_enum_name(PhaseKind k);
bool parse_phase(const std::string& s, PhaseKind& out);
inline bool phase_writes(PhaseKind k) {
  return k == PhaseKind::seq_write || k == PhaseKind::rand_write;
}
inline bool phase_random(PhaseKind k) {
  return k == PhaseKind::rand_write || k == PhaseKind::rand_read;
}

}  // namespace iosweep
