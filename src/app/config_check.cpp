// Pre-run validation (see config_check.hpp).
#include "app/config_check.hpp"

#include <sys/statvfs.h>

#include <cstring>
#include <map>

#include "core/errors.hpp"
#include "core/units.hpp"
#include "engines/file_ops.hpp"
#include "engines/registry.hpp"
#include "output/hdf5_file.hpp"
#include "phases/phase.hpp"
#include "phases/phase_table.hpp"
#include "sweep/plan.hpp"

namespace iosweep {
namespace {

constexpr int kLine = 512;

// The first non-empty message over all ranks (by rank), known to every rank.
std::string agree(const std::string& mine) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int mine_rank = mine.empty() ? size : rank;
  int first = size;
  MPI_Allreduce(&mine_rank, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == size) return {};
  char buf[kLine] = {};
  if (rank == first) std::strncpy(buf, mine.c_str(), kLine - 1);
  MPI_Bcast(buf, kLine, MPI_CHAR, first, MPI_COMM_WORLD);
  return buf;
}

std::string local_checks(Config& cfg, const LocalPlace& place, int max_k,
                         std::string& engine_detail) {
  Workload& w = cfg.work;
  if (auto why = fsops::check_writable_dir(w.dir); !why.empty()) return "--dir: " + why;
  if (cfg.io.direct) {
    std::uint64_t align = 4096;
    if (auto why = fsops::probe_direct(w.dir, align); !why.empty()) return "--direct: " + why;
    w.direct_alignment = align;
  }
  for (auto id : w.phases) {
    const PhaseRow& row = phase_row(id);
    if (auto why = row.make(row.desc)->validate(w, cfg.io); !why.empty()) return why;
  }
  if (auto why = probe_engine(cfg.io, engine_detail); !why.empty()) return why;
  if (!w.reuse_run.empty() && place.self.position < max_k) {
    const std::string path =
        w.dir + "/iosweep." + w.reuse_run + "." + std::to_string(place.self.position);
    if (!fsops::exists(path))
      return "--reuse: " + path + " does not exist (was run " + w.reuse_run + " kept with --keep?)";
  }
  return {};
}

// Free space: ranks that see the same file system (same f_fsid) share its free bytes; the
// largest point needs one file per active rank on it.
std::string space_check(const Config& cfg, const LocalPlace& place, int max_k, int rank, int size) {
  struct Row {
    unsigned long long fsid;
    unsigned long long free;
    int active;
  } mine{0, 0, place.self.position < max_k ? 1 : 0};
  struct statvfs v {};
  if (::statvfs(cfg.work.dir.c_str(), &v) == 0) {
    mine.fsid = v.f_fsid;
    mine.free = static_cast<unsigned long long>(v.f_bavail) * v.f_frsize;
  }
  std::vector<Row> all(rank == 0 ? static_cast<std::size_t>(size) : 0);
  MPI_Gather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, 0, MPI_COMM_WORLD);
  std::string why;
  // An engine that moves no data leaves its files empty: nothing to check.
  if (rank == 0 && !cfg.force && cfg.work.reuse_run.empty() &&
      engine_row(cfg.io.engine).moves_data) {
    std::map<unsigned long long, std::pair<unsigned long long, unsigned long long>>
        need;  // fsid -> free, files
    for (const auto& r : all) {
      auto& n = need[r.fsid];
      n.first = r.free;
      n.second += static_cast<unsigned long long>(r.active);
    }
    for (const auto& [fsid, n] : need) {
      const unsigned long long bytes = n.second * cfg.work.file_size;
      if (bytes > n.first) {
        why = "--file-size: the largest point needs " + std::to_string(bytes) + " bytes (" +
              format_size(bytes) + ", " + std::to_string(n.second) + " files) in " + cfg.work.dir +
              " but only " + std::to_string(n.first) + " bytes (" + format_size(n.first) +
              ") are free; use a smaller --file-size or --force";
        break;
      }
    }
  }
  return why;
}

}  // namespace

std::string validate_run(Config& cfg, const MpiSession& mpi, const LocalPlace& place,
                         std::vector<int>& points, std::string& engine_detail) {
  if (auto why = resolve_points(cfg.sweep, mpi.size(), points); !why.empty()) return why;
  const int max_k = points.empty() ? 0 : points.back();
  if (auto why = agree(local_checks(cfg, place, max_k, engine_detail)); !why.empty()) return why;
  std::string out_why;
  if (mpi.rank() == 0) {
    h5::quiet_errors();
    if (auto why = h5::check_results_file(cfg.report.output); !why.empty())
      out_why = "--output: " + why;
  }
  if (auto why = agree(out_why); !why.empty()) return why;
  // The alignment probed on rank 0 is the one recorded.
  std::uint64_t align = cfg.work.direct_alignment;
  MPI_Bcast(&align, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  cfg.work.direct_alignment = align;
  return agree(space_check(cfg, place, max_k, mpi.rank(), mpi.size()));
}

}  // namespace iosweep
