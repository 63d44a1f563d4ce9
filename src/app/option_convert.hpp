// The converters of the option table's rows that are more than one call: lists of phases,
// sweeps and streams, rates, MPI-IO hints. Each refuses bad text through the value it converts,
// so every message names the option (app/option_value.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "app/option_value.hpp"
#include "model/config.hpp"

namespace iosweep {

// --dir: the folders, each without trailing slashes, none twice, at most kMaxDirs; required.
std::vector<std::string> dirs_of(const OptionValue& v);
// The folders as the `dir` attribute records them: joined by commas.
std::string joined_dirs(const Workload& w);
// --phases: the phases named (all but the opt-in ones when unset), each control phase with the
// phase it is the baseline of, in table order.
std::vector<PhaseId> phases_of(const OptionValue& v);
// --fsync: none (or false), all (or true: every writing phase), or a list of writing phases.
std::vector<PhaseId> fsync_phases_of(const OptionValue& v);
// --ranks: counts strictly increasing, at least 1, at most kMaxRanks.
std::vector<int> rank_counts_of(const OptionValue& v);
// --sweep MIN:MAX into `sw` (left as it is when unset).
void sweep_of(const OptionValue& v, SweepSpec& sw);
// --streams: a list strictly increasing, or MIN:MAX expanded as --sweep expands.
std::vector<std::uint64_t> streams_of(const OptionValue& v);
// --rated-bw: one rate or two, bytes per second (0 when not given).
std::pair<double, double> rates_of(const OptionValue& v);
// --rated-iops: operations per second (0 when not given).
double iops_of(const OptionValue& v);
// --md-write-bytes, --md-read-bytes: 0, or a size up to kMaxMdItemBytes.
std::uint64_t item_bytes_of(const OptionValue& v);
// --mpiio-hint key=value (repeatable; a key once).
std::vector<std::pair<std::string, std::string>> hints_of(const OptionValue& v);

}  // namespace iosweep
