// The engine table (IOR's backend list): every engine iosweep knows, in one explicit table, never
// static self-registration. A row here carries what an engine does: its own further checks, a
// probe of whether this system lets it run, and its factory; its description (the id stored in
// results files, name, help, the engine-specific options it takes, from which the checks of
// --iodepth, --sqpoll, --mpiio-hint and --direct derive) is the row of model/engine_desc.cpp with
// the same id. The HDF5 enum, --help and the messages read the descriptions; adding an engine is
// its two files, one row in each table and one CMake line.
#pragma once

#include <mpi.h>

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "engines/engine.hpp"
#include "model/config.hpp"
#include "model/engine_desc.hpp"

namespace iosweep {

// What the engine is for: the timed read/write phases, reads overlapped with the caller's
// computing (filter-count), where a synchronous engine gets read-ahead threads, or metadata
// requests (the md-* phases; only engines that take metadata are built for them).
enum class EngineUse { io, overlap, metadata };

// How an engine is checked, probed and built; its description (name, help, the options it
// takes) is the row of model/engine_desc.cpp with the same id.
struct EngineRow {
  EngineId id;
  // Further checks of the engine's own, "--option: problem" or empty; nullptr: none.
  std::string (*check)(const Workload& work, const EngineOptions& io);
  // Before a run, on every rank: empty when this system lets the engine run, else why not;
  // fills `detail` with what it found (ring flags, hints). nullptr: it always runs, and the
  // help text is its detail.
  std::string (*probe)(const EngineOptions& io, std::string& detail);
  // nullptr when the engine is not compiled into this build. `group`: the ranks that share the
  // files (the active ranks of a point), for engines that open files together (MPI-IO).
  std::unique_ptr<Engine> (*make)(const EngineOptions& io, EngineUse use, MPI_Comm group);

  const EngineDesc& desc() const { return engine_desc(id); }
};

std::span<const EngineRow> engine_table();
// The row of a valid id (ids come from the table); throws std::logic_error otherwise.
const EngineRow& engine_row(EngineId id);

// Every engine rule of a configuration: the option the engine does not take, then the row's own
// check. "--option: problem", or empty.
std::string check_engine_options(const Workload& work, const EngineOptions& io);
// The probe of `io`'s engine: empty or why this system refuses it ("--engine ...: ..."), and the
// detail recorded with the run.
std::string probe_engine(const EngineOptions& io, std::string& detail);
// Builds the engine of `io` for `use`; throws UsageError when it is not compiled in or the system
// refuses it. Called once per phase and rank.
std::unique_ptr<Engine> make_engine(const EngineOptions& io, EngineUse use = EngineUse::io,
                                    MPI_Comm group = MPI_COMM_SELF);

}  // namespace iosweep
