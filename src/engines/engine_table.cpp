// Engine table (see engine_table.hpp).
#include "engines/engine_table.hpp"

#include <stdexcept>

#include "core/errors.hpp"
#include "engines/null_engine.hpp"
#include "engines/posix_engine.hpp"
#include "engines/readahead_engine.hpp"
#if IOSWEEP_HAVE_URING
#include "engines/uring_engine.hpp"
#endif
#if IOSWEEP_HAVE_MPIIO
#include "engines/mpiio_engine.hpp"
#endif

namespace iosweep {
namespace {

template <class E>
std::unique_ptr<Engine> make(const EngineOptions& o, EngineUse, MPI_Comm) {
  return std::make_unique<E>(o);
}

// Two read-ahead threads: with one, the device idles while that thread wakes up and issues its
// next read; measured on a virtio disk, one thread left the scan 0-20% behind seq-read, two
// kept it level (docs/performance.md).
std::unique_ptr<Engine> make_posix(const EngineOptions& o, EngineUse use, MPI_Comm) {
  if (use == EngineUse::overlap) return std::make_unique<ReadaheadEngine>(o, 2);
  return std::make_unique<PosixEngine>(o, use == EngineUse::metadata);
}

#if IOSWEEP_HAVE_URING
std::unique_ptr<Engine> make_uring(const EngineOptions& o, EngineUse use, MPI_Comm) {
  return std::make_unique<UringEngine>(o, use == EngineUse::metadata);
}
#endif

#if IOSWEEP_HAVE_MPIIO
std::unique_ptr<Engine> make_mpiio(const EngineOptions& o, EngineUse, MPI_Comm group) {
  return std::make_unique<MpiioEngine>(o, group);
}
#endif

std::string null_check(const Workload& work, const EngineOptions&) {
  if (work.verify) return "--verify: the null engine moves no data; there is nothing to verify";
  return {};
}

const EngineRow kEngines[] = {
    {.id = kPosixEngine, .check = nullptr, .probe = nullptr, .make = &make_posix},
#if IOSWEEP_HAVE_URING
    {.id = kUringEngine, .check = nullptr, .probe = &UringEngine::probe, .make = &make_uring},
#else
    {.id = kUringEngine, .check = nullptr, .probe = nullptr, .make = nullptr},
#endif
#if IOSWEEP_HAVE_MPIIO
    {.id = kMpiioEngine,
     .check = &MpiioEngine::check,
     .probe = &MpiioEngine::probe,
     .make = &make_mpiio},
#else
    {.id = kMpiioEngine, .check = nullptr, .probe = nullptr, .make = nullptr},
#endif
    {.id = kNullEngine, .check = &null_check, .probe = nullptr, .make = &make<NullEngine>},
};

}  // namespace

std::span<const EngineRow> engine_table() {
  return kEngines;
}

const EngineRow& engine_row(EngineId id) {
  for (const auto& e : kEngines)
    if (e.id == id) return e;
  throw std::logic_error("no engine with id " + std::to_string(id));
}

std::string check_engine_options(const Workload& work, const EngineOptions& io) {
  const EngineDesc& e = engine_desc(io.engine);
  const std::string name = e.name;
  if (!(e.takes & kTakesMetadata))
    for (PhaseId p : work.phases)
      if (phase_desc(p).metadata())
        return "--engine: the " + name + " engine does not make, stat or remove files by name, " +
               "so it cannot run " + phase_desc(p).name + "; use --engine " +
               engines_taking(kTakesMetadata);
  if (io.iodepth != 1 && !(e.takes & kTakesDepth))
    return "--iodepth: the " + name + " engine is synchronous (depth 1); for depth " +
           std::to_string(io.iodepth) + " use --engine " + engines_taking(kTakesDepth);
  if (io.sqpoll && !(e.takes & kTakesSqpoll))
    return "--sqpoll: only for --engine " + engines_taking(kTakesSqpoll);
  if (!io.mpiio_hints.empty() && !(e.takes & kTakesHints))
    return "--mpiio-hint: only for --engine " + engines_taking(kTakesHints);
  if (io.collective && !(e.takes & kTakesCollective))
    return "--mpiio-collective: only for --engine " + engines_taking(kTakesCollective);
  if (io.direct && !(e.takes & kTakesDirect))
    return "--direct: the " + name + " engine cannot open files with O_DIRECT; use --engine " +
           engines_taking(kTakesDirect);
  const EngineRow& row = engine_row(io.engine);
  return row.check != nullptr ? row.check(work, io) : std::string();
}

std::string probe_engine(const EngineOptions& io, std::string& detail) {
  const EngineDesc& e = engine_desc(io.engine);
  if (!e.compiled)
    return std::string("--engine: ") + e.name +
           " is not compiled into this build (have: " + compiled_engines() + ")";
  detail = e.help;
  const EngineRow& row = engine_row(io.engine);
  return row.probe != nullptr ? row.probe(io, detail) : std::string();
}

std::unique_ptr<Engine> make_engine(const EngineOptions& io, EngineUse use, MPI_Comm group) {
  const EngineRow& e = engine_row(io.engine);
  if (e.make == nullptr)
    throw UsageError(std::string("--engine: ") + e.desc().name +
                     " is not compiled into this build (have: " + compiled_engines() + ")");
  if (use == EngineUse::metadata && !(e.desc().takes & kTakesMetadata))
    throw UsageError(std::string("--engine: the ") + e.desc().name +
                     " engine does not run the metadata phases; use --engine " +
                     engines_taking(kTakesMetadata));
  return e.make(io, use, group);
}

}  // namespace iosweep
