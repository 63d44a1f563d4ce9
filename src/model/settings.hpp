// What iosweep-compare must know of a run's settings, declared by the binary and stored with
// every run (the `settings` attribute, TOML; results/README.md, "Settings"): each setting whose
// difference makes two runs' figures incomparable, the run attribute holding its value, what
// the comparison calls it and the phases whose figures it changes. The option table's rows say
// which options are such settings (app/option_table.cpp, `compare`); the run adds what it found
// itself (found_settings). A script compares what two files declare and knows no option: a file
// written today is compared right by a later script, whatever options are added meanwhile.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/phase_desc.hpp"

namespace iosweep {

// The phases a setting changes (evaluated over the phase table).
enum class PhaseScope : std::uint8_t {
  none,          // not a setting: two runs may differ in it and still be compared
  all,           // every phase
  data,          // the phases that read or write data files (not the metadata phases)
  metadata,      // the metadata phases
  counts,        // the counting phases (filter-count, ship-count)
  creates,       // the phases that make their file in the window (seq-write)
  ships,         // the phases that ship their records over MPI (ship-count)
  seq_records,   // the phases reading or writing --seq-record records
  rand_records,  // ... --rand-record records
  scan_records,  // ... --scan-record records
  fsynced,       // the phases that fsync in their window (--fsync's list): a per-phase switch
};

struct Setting {
  std::string attribute;     // the run attribute whose value is compared (the entry's key)
  std::string what;          // what iosweep-compare calls it
  std::string option;        // the option of `iosweep run` it records; empty: what the run found
  std::uint64_t phases = 0;  // bit i: it changes the figures of phase id i
  std::string shown;         // the attribute shown instead of `attribute`; empty: itself
  // The value compared and shown, when the binary decides it rather than an attribute holds it
  // (the number of --dir's folders; their paths are not a setting).
  std::optional<std::string> value;
};

// The phase ids of `scope` as a bit mask; `fsynced`: the phases --fsync names.
std::uint64_t phase_mask(PhaseScope scope, std::span<const PhaseId> fsynced);

// What the run found rather than was told, compared as settings: the engine's set-up, the file
// system under --dir, the data pattern's size.
std::vector<Setting> found_settings();

// The `settings` attribute: one line per setting, `attribute = {what, option, phases (their
// enum names), unit ("bytes" for an attribute named *_bytes), shown, value}`, in order.
std::string settings_toml(std::span<const Setting> settings);

}  // namespace iosweep
