// Engine table (see registry.hpp).
#include "engines/registry.hpp"

#include "core/errors.hpp"
#include "engines/posix_engine.hpp"
#include "engines/threaded_engine.hpp"
#if IOSWEEP_HAVE_URING
#include "engines/uring_engine.hpp"
#endif
#if IOSWEEP_HAVE_MPIIO
#include "engines/mpiio_engine.hpp"
#endif

namespace iosweep {
namespace {

template <class E>
std::unique_ptr<Engine> make(const EngineOptions& o) {
  return std::make_unique<E>(o);
}

const EngineEntry kEngines[] = {
    {EngineKind::posix, "posix", true, "pread/pwrite, queue depth 1 (the reference)",
     &make<PosixEngine>},
#if IOSWEEP_HAVE_URING
    {EngineKind::uring, "uring", true, "io_uring via liburing, --iodepth requests in flight",
     &make<UringEngine>},
#else
    {EngineKind::uring, "uring", false, "io_uring (not compiled in)", nullptr},
#endif
#if IOSWEEP_HAVE_MPIIO
    {EngineKind::mpiio, "mpiio", true, "MPI_File_iread_at/iwrite_at on MPI_COMM_SELF",
     &make<MpiioEngine>},
#else
    {EngineKind::mpiio, "mpiio", false, "MPI-IO (not compiled in)", nullptr},
#endif
};

}  // namespace

std::span<const EngineEntry> engine_table() {
  return kEngines;
}

const EngineEntry* find_engine(const std::string& name) {
  for (const auto& e : kEngines)
    if (name == e.name) return &e;
  return nullptr;
}

const char* engine_name(EngineKind kind) {
  for (const auto& e : kEngines)
    if (e.kind == kind) return e.name;
  return "?";
}

std::string compiled_engines() {
  std::string s;
  for (const auto& e : kEngines)
    if (e.compiled) s += (s.empty() ? "" : " ") + std::string(e.name);
  return s;
}

std::unique_ptr<Engine> make_engine(EngineKind kind, const EngineOptions& options) {
  for (const auto& e : kEngines)
    if (e.kind == kind) {
      if (!e.compiled)
        throw UsageError(std::string("--engine: ") + e.name +
                         " is not compiled into this build (have: " + compiled_engines() + ")");
      return e.make(options);
    }
  throw UsageError("--engine: unknown engine");
}

std::unique_ptr<Engine> make_overlapping_engine(EngineKind kind, const EngineOptions& options,
                                                unsigned depth) {
  // Two read-ahead threads: with one, the device idles while that thread wakes up and issues
  // its next read; measured on a virtio disk, one thread left the scan 0-20% behind seq-read,
  // two kept it level (docs/performance.md).
  if (kind == EngineKind::posix) return std::make_unique<ThreadedEngine>(options, 2);
  EngineOptions o = options;
  o.iodepth = depth < 2 ? 2 : depth;
  if (o.iodepth_batch > o.iodepth) o.iodepth_batch = o.iodepth;
  return make_engine(kind, o);
}

}  // namespace iosweep
