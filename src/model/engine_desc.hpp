// What an engine is, as every layer sees it: its id (the value stored in results files), its
// name and help, the engine-specific options it takes, whether it moves data and whether this
// build has it. The rows live in one table, model/engine_desc.cpp; how each engine is checked,
// probed and built is a row of engines/engine_table.cpp with the same id.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace iosweep {

// The value stored in the `engine` enum of results files: never renumbered, never reused.
using EngineId = std::uint8_t;

enum : EngineId { kPosixEngine = 0, kUringEngine = 1, kMpiioEngine = 2, kNullEngine = 3 };

// Engine-specific options an engine takes; the others are refused with its name.
enum EngineTakes : unsigned {
  kTakesDepth = 1u << 0,       // --iodepth above 1
  kTakesSqpoll = 1u << 1,      // --sqpoll
  kTakesHints = 1u << 2,       // --mpiio-hint
  kTakesDirect = 1u << 3,      // --direct
  kTakesCollective = 1u << 4,  // --mpiio-collective
  kTakesMetadata = 1u << 5,    // the metadata phases (md-*: folders and items by name)
};

struct EngineDesc {
  EngineId id;
  const char* name;  // --engine spelling and HDF5 enum member
  const char* help;  // one line for --help
  unsigned takes;    // EngineTakes bits
  bool moves_data;   // false: reads fill nothing, so nothing can be verified or counted
  bool compiled;     // built into this binary
};

std::span<const EngineDesc> engine_descs();
const EngineDesc* find_engine_desc(std::string_view name);
// The engine of a valid id (ids come from the table); throws std::logic_error otherwise.
const EngineDesc& engine_desc(EngineId id);
// "posix uring mpiio null": the engines this build can run.
std::string compiled_engines();
// The names of the compiled engines that take an option, "uring, mpiio or null".
std::string engines_taking(unsigned takes);

}  // namespace iosweep
