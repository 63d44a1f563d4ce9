// The engine table's descriptions (see engine_desc.hpp).
#include "model/engine_desc.hpp"

#include <stdexcept>

namespace iosweep {
namespace {

const EngineDesc kEngines[] = {
    {.id = kPosixEngine,
     .name = "posix",
     .help = "pread/pwrite, queue depth 1 (the reference)",
     .takes = kTakesDirect | kTakesMetadata,
     .moves_data = true,
     .compiled = true},
    {.id = kUringEngine,
     .name = "uring",
     .help = IOSWEEP_HAVE_URING ? "io_uring via liburing, --iodepth requests in flight"
                                : "io_uring (not compiled in)",
     .takes = kTakesDepth | kTakesSqpoll | kTakesDirect | kTakesMetadata,
     .moves_data = true,
     .compiled = IOSWEEP_HAVE_URING != 0},
    {.id = kMpiioEngine,
     .name = "mpiio",
     .help = IOSWEEP_HAVE_MPIIO ? "MPI_File_iread_at/iwrite_at on MPI_COMM_SELF"
                                : "MPI-IO (not compiled in)",
     .takes = kTakesDepth | kTakesHints | kTakesCollective,
     .moves_data = true,
     .compiled = IOSWEEP_HAVE_MPIIO != 0},
    {.id = kNullEngine,
     .name = "null",
     .help = "no I/O: every request completes at once (iosweep's own cost per operation)",
     .takes = kTakesDepth | kTakesDirect | kTakesMetadata,
     .moves_data = false,
     .compiled = true},
};

std::string either(const std::string& list) {
  // "uring mpiio null" -> "uring, mpiio or null"
  const auto last = list.rfind(' ');
  if (last == std::string::npos) return list;
  std::string head = list.substr(0, last), out;
  for (char c : head)
    out += c == ' ' ? std::string(", ") : std::string(1, c);
  return out + " or" + list.substr(last);
}

}  // namespace

std::span<const EngineDesc> engine_descs() {
  return kEngines;
}

const EngineDesc* find_engine_desc(std::string_view name) {
  for (const auto& e : kEngines)
    if (name == e.name) return &e;
  return nullptr;
}

const EngineDesc& engine_desc(EngineId id) {
  for (const auto& e : kEngines)
    if (e.id == id) return e;
  throw std::logic_error("no engine with id " + std::to_string(id));
}

std::string compiled_engines() {
  std::string s;
  for (const auto& e : kEngines)
    if (e.compiled) s += (s.empty() ? "" : " ") + std::string(e.name);
  return s;
}

std::string engines_taking(unsigned takes) {
  std::string s;
  for (const auto& e : kEngines)
    if (e.compiled && (e.takes & takes) == takes) s += (s.empty() ? "" : " ") + std::string(e.name);
  return either(s);
}

}  // namespace iosweep
