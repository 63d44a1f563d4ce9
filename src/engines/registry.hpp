// The engine table: every engine iosweep knows, whether this build has it, and how to make it.
// An explicit table (IOR's backend list), never static self-registration.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "engines/engine.hpp"

namespace iosweep {

struct EngineEntry {
  EngineKind kind;
  const char* name;
  bool compiled;
  const char* summary;
  std::unique_ptr<Engine> (*make)(const EngineOptions&);  // nullptr when not compiled
};

std::span<const EngineEntry> engine_table();
const EngineEntry* find_engine(const std::string& name);
const char* engine_name(EngineKind kind);
// "posix uring mpiio": the engines this build can run.
std::string compiled_engines();
// Makes an engine for the timed phases; throws UsageError when the engine is not compiled in or
// the system refuses it.
std::unique_ptr<Engine> make_engine(EngineKind kind, const EngineOptions& options);
// An engine that overlaps reads with the caller's computing (filter-count): posix with two
// read-ahead threads, or the asynchronous engine itself with `depth` requests in flight (at
// least 2).
std::unique_ptr<Engine> make_overlapping_engine(EngineKind kind, const EngineOptions& options,
                                                unsigned depth);

}  // namespace iosweep
