// The engine table (IOR's backend list): every engine iosweep knows, in one explicit table, never
// static self-registration. A row carries everything about its engine that the rest of iosweep
// needs: the id stored in results files, the name and help text, the engine-specific options it
// takes (the checks of --iodepth, --sqpoll, --mpiio-hint and --direct derive from them), its own
// further checks, a probe of whether this system lets it run, and its factory. The HDF5 enum,
// --help and the messages all read the table; adding an engine is its two files, one row in
// registry.cpp and one CMake line.
#pragma once

#include <mpi.h>

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "engines/engine.hpp"
#include "model/config.hpp"

namespace iosweep {

// Engine-specific options an engine takes; the others are refused with its name.
enum EngineTakes : unsigned {
  kTakesDepth = 1u << 0,       // --iodepth above 1
  kTakesSqpoll = 1u << 1,      // --sqpoll
  kTakesHints = 1u << 2,       // --mpiio-hint
  kTakesDirect = 1u << 3,      // --direct
  kTakesCollective = 1u << 4,  // --mpiio-collective
};

// What the engine is for: the timed read/write phases, or reads overlapped with the caller's
// computing (filter-count), where a synchronous engine gets read-ahead threads.
enum class EngineUse { io, overlap };

struct EngineRow {
  EngineId id;       // the value stored in results files: never renumbered, never reused
  const char* name;  // --engine spelling and HDF5 enum member
  const char* help;  // one line for --help
  unsigned takes;    // EngineTakes bits
  bool moves_data;   // false: reads fill nothing, so nothing can be verified or counted
  // Further checks of the engine's own, "--option: problem" or empty; nullptr: none.
  std::string (*check)(const Workload& work, const EngineOptions& io);
  // Before a run, on every rank: empty when this system lets the engine run, else why not;
  // fills `detail` with what it found (ring flags, hints). nullptr: it always runs, and the
  // help text is its detail.
  std::string (*probe)(const EngineOptions& io, std::string& detail);
  // nullptr when the engine is not compiled into this build. `group`: the ranks that share the
  // files (the active ranks of a point), for engines that open files together (MPI-IO).
  std::unique_ptr<Engine> (*make)(const EngineOptions& io, EngineUse use, MPI_Comm group);

  bool compiled() const { return make != nullptr; }
};

std::span<const EngineRow> engine_table();
const EngineRow* find_engine(std::string_view name);
// The row of a valid id (ids come from the table); throws std::logic_error otherwise.
const EngineRow& engine_row(EngineId id);
// "posix uring mpiio null": the engines this build can run.
std::string compiled_engines();
// The names of the compiled engines that take an option, "uring, mpiio or null".
std::string engines_taking(unsigned takes);

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
