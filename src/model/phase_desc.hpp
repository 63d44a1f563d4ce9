// What a phase is, as every layer sees it: its id (the value stored in results files), its
// names and labels, and the flags that decide how it is run, reduced and printed. The rows live
// in one ordered table, model/phase_desc.cpp (IO500's phase list: the order they always run
// in); what each phase does (its class, factory and reduction) is a row of phases/phase_table.cpp
// with the same id.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace iosweep {

// The value stored in the `phase` enum of results files: never renumbered, never reused.
using PhaseId = std::uint8_t;

// The phases by id, for the code that names one (a control, a ratio's baseline).
enum : PhaseId {
  kSeqWrite = 0,
  kSeqRead = 1,
  kRandWrite = 2,
  kRandRead = 3,
  kFilterCount = 4,
  kScanOnly = 5,
  kShipCount = 6,
  kMdMkdir = 7,
  kMdCreate = 8,
  kMdStat = 9,
  kMdRead = 10,
  kMdRemove = 11,
  kMdRmdir = 12,
  kTimestamp = 13,
  kFind = 14,
};
inline constexpr PhaseId kNoPhase = 0xFF;

enum PhaseFlag : unsigned {
  kPhaseWrites = 1u << 0,   // writes the rank's own file (else reads the read-shift file)
  kPhaseRandom = 1u << 1,   // visits records in a shuffled order; its headline figure is IOPS
  kPhaseCreates = 1u << 2,  // makes a fresh file inside its timed window (IOzone's initial write)
  kPhaseCounts = 1u << 3,   // counts planted keys; the total must equal the exact expected count
  kPhaseControl = 1u << 4,  // a measurement control: stored, shown only with --show-controls
  kPhaseOptIn = 1u << 5,    // runs only when --phases names it (not in the default set)
  kPhaseShips = 1u << 6,    // moves the data it reads over MPI to be counted elsewhere
  // A metadata phase: operations on named files and folders (mdtest's), counted in operations
  // per second; it never touches the ranks' data files.
  kPhaseMetadata = 1u << 7,
  kPhaseLookup = 1u << 8,  // looks existing items up without changing them (stat, read)
  // A metadata phase on the folder of --dir as it stands (IO500's timestamp and find), not on
  // the run's metadata set: not in the group md, no set made, nothing of its own removed.
  kPhaseTree = 1u << 9,
};

// Which record size option a phase reads; none for the metadata phases.
enum class RecordKind : std::uint8_t { seq, rand, scan, none };

struct PhaseDesc {
  PhaseId id;
  const char* name;          // command-line spelling (--phases), also the console label
  const char* enum_name;     // results-file spelling (the HDF5 enum member)
  const char* iozone_label;  // "initial writers" ...; nullptr: no IOzone counterpart
  unsigned flags;            // PhaseFlag bits
  RecordKind record;         // --seq-record, --rand-record, --scan-record, or none
  const char* help;          // one line for --help
  // A control phase: the phase it is the baseline of. It runs whenever that phase runs, just
  // before it, and just after it on odd repetitions. kNoPhase for the others.
  PhaseId control_for = kNoPhase;

  bool writes() const { return (flags & kPhaseWrites) != 0; }
  bool random() const { return (flags & kPhaseRandom) != 0; }
  bool creates() const { return (flags & kPhaseCreates) != 0; }
  bool counts() const { return (flags & kPhaseCounts) != 0; }
  bool control() const { return (flags & kPhaseControl) != 0; }
  bool opt_in() const { return (flags & kPhaseOptIn) != 0; }
  bool ships() const { return (flags & kPhaseShips) != 0; }
  bool metadata() const { return (flags & kPhaseMetadata) != 0; }
  bool lookup() const { return (flags & kPhaseLookup) != 0; }
  bool tree() const { return (flags & kPhaseTree) != 0; }
};

// Every phase, in the order phases run.
std::span<const PhaseDesc> phase_descs();
// The phase of a valid id (ids come from the table); throws std::logic_error otherwise.
const PhaseDesc& phase_desc(PhaseId id);
// By its command-line or results-file spelling; nullptr when there is none.
const PhaseDesc* find_phase_desc(std::string_view name);
// "seq-write, seq-read, ...": every phase, in table order.
std::string phase_names();
// The metadata phases, in table order (what --phases md names).
std::string metadata_phase_names();
// "seq-write,rand-write": the command-line names of `ids`, comma-separated.
std::string phase_list(std::span<const PhaseId> ids);
// The record option a kind of record comes from ("--seq-record"; "" for none).
const char* record_option(RecordKind k);

// Whether one of `a` and `b` is the other's control.
inline bool control_pair(const PhaseDesc& a, const PhaseDesc& b) {
  return a.control_for == b.id || b.control_for == a.id;
}

}  // namespace iosweep
