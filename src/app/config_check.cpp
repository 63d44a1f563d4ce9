// Pre-run validation (see config_check.hpp).
#include "app/config_check.hpp"

#include <sys/stat.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>

#include "core/aligned_buffer.hpp"
#include "core/pattern.hpp"

#include "core/errors.hpp"
#include "core/units.hpp"
#include "engines/engine_table.hpp"
#include "model/limits.hpp"
#include "model/md_plan.hpp"
#include "mpi/messages.hpp"
#include "os/file_ops.hpp"
#include "os/wire.hpp"
#include "output/hdf5_file.hpp"
#include "phases/phase.hpp"
#include "phases/phase_table.hpp"
#include "sweep/plan.hpp"

namespace iosweep {
namespace {

// /proc/meminfo's MemAvailable in bytes; 0 when unknown.
std::uint64_t mem_available_bytes() {
  std::ifstream in("/proc/meminfo");
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("MemAvailable:")) return std::stoull(line.substr(13)) * 1024;
  return 0;
}

// Before a run that reads another run's kept files: each must be that run's regular file, of
// --file-size, holding this seed's data (its first block checked). A shared file is checked
// once, by position 0: a segmented one must hold the regions of the largest point, a strided
// one exactly those of the only rank count it serves. `dir` is the position's folder.
std::string reuse_check(const Workload& w, const std::string& dir, int position, int min_k,
                        int max_k) {
  if (w.shared() && position != 0) return {};
  auto name = [&](bool shared) {
    return dir + "/iosweep." + w.reuse_run + "." +
           (shared ? std::string("shared") : std::to_string(position));
  };
  const std::string path = name(w.shared());
  const std::string q = "'" + printable(path) + "'";
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (fsops::exists(name(!w.shared())))
      return "--reuse: run " + printable(w.reuse_run) + " kept " +
             (w.shared() ? "one file per rank; drop --file-layout shared"
                         : "one shared file; add --file-layout shared");
    return "--reuse: " + q + " does not exist (was run " + printable(w.reuse_run) +
           " kept with --keep?)";
  }
  if (S_ISLNK(st.st_mode))
    return "--reuse: " + q + " is a symbolic link; iosweep never follows one";
  if (!S_ISREG(st.st_mode)) return "--reuse: " + q + " is not a regular file";
  const auto size = static_cast<std::uint64_t>(st.st_size);
  const bool strided = w.shared() && w.shared_pattern == SharedPattern::strided;
  if (strided && min_k != max_k)
    return "--reuse: a strided shared file serves only the rank count that wrote it; give one "
           "point (--sweep " +
           std::to_string(size / w.file_size) + ")";
  const std::uint64_t need =
      w.shared() ? static_cast<std::uint64_t>(max_k) * w.file_size : w.file_size;
  if (w.shared() && !strided ? size < need : size != need)
    return "--reuse: " + q + " holds " + std::to_string(size) + " bytes but " +
           (w.shared() ? std::to_string(max_k) + " ranks' regions of --file-size need " +
                             std::to_string(need)
                       : "--file-size is " + std::to_string(w.file_size)) +
           "; give the kept run's --file-size" + (w.shared() ? " and rank counts" : "");
  try {
    AlignedBuffer head(kBlockBytes);
    fsops::read_head(path, head.span());
    const DataSpec spec{w.seed, w.filter_key, w.filter_every, w.file_size};
    if (verify_blocks(spec, static_cast<std::uint64_t>(position), 0, head.span(), nullptr) != 0)
      return "--reuse: " + q +
             " does not hold this run's data (written with another --seed, --filter-key, "
             "--filter-every or --shared-pattern, or not by iosweep)";
  } catch (const IoError& e) {
    return "--reuse: " + std::string(e.what());
  }
  return {};
}

// The first non-empty message over all ranks (by rank), known to every rank.
std::string agree(const std::string& mine) {
  return agree_first(mine, MPI_COMM_WORLD);
}

// The folders this rank checks: every one on a node's lowest rank (so that each folder is
// checked on every node, used or not), its own elsewhere. Each is named with the host.
std::string folder_checks(Workload& w, bool direct, const LocalPlace& place,
                          const std::string& host) {
  std::uint64_t align_max = kDefaultDirectAlignment;
  for (std::size_t f = 0; f < w.dirs.size(); ++f) {
    if (place.self.local_index != 0 && static_cast<int>(f) != place.self.folder) continue;
    const std::string& dir = w.dirs[f];
    if (auto why = fsops::check_writable_dir(dir); !why.empty())
      return "--dir: host " + host + ": " + why;
    if (!direct) continue;
    std::uint64_t align = kDefaultDirectAlignment;
    if (auto why = fsops::probe_direct(dir, align); !why.empty())
      return "--direct: host " + host + ": " + why;
    align_max = std::max(align_max, align);
  }
  w.direct_alignment = align_max;
  return {};
}

std::string local_checks(Config& cfg, const LocalPlace& place, const std::string& host, int min_k,
                         int max_k, std::string& engine_detail) {
  Workload& w = cfg.work;
  if (auto why = folder_checks(w, cfg.io.direct, place, host); !why.empty()) return why;
  for (auto id : w.phases) {
    const PhaseRow& row = phase_row(id);
    if (auto why = row.make(row.desc())->validate(w, cfg.io); !why.empty()) return why;
  }
  if (auto why = probe_engine(cfg.io, engine_detail); !why.empty()) return why;
  if (!w.wire_off && !w.wire_interfaces.empty())
    if (auto why = check_wire(choose_wire(mount_of(w.dirs.front()), w.wire_interfaces));
        !why.empty())
      return "--wire-interface: host " + host + ": " + why;
  const int pos = place.self.position;
  if (!w.reuse_run.empty() && pos < max_k) {
    const int folder = w.shared() ? 0 : place.folder_of_position[static_cast<std::size_t>(pos)];
    const std::string& dir = w.dirs[static_cast<std::size_t>(folder)];
    if (auto why = reuse_check(w, dir, pos, min_k, max_k); !why.empty()) return why;
  }
  return {};
}

// A memory figure in binary units, as the sizes are given.
std::string mib(std::uint64_t bytes) {
  return format_size(bytes);
}

// I/O buffers against the memory of each machine: at every point, the largest any phase holds
// per rank at that point's depth, times the ranks of this machine active at it, against
// MemAvailable. Ranks sharing memory are grouped as MPI sees them (emulated nodes on one machine
// share one).
std::string memory_check(const Config& cfg, const LocalPlace& place,
                         const std::vector<SweepPoint>& points) {
  MPI_Comm machine = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &machine);
  std::vector<int> active(points.size()), active_here(points.size());
  for (std::size_t i = 0; i < points.size(); ++i)
    active[i] = place.self.position < points[i].ranks ? 1 : 0;
  int me = 0;
  MPI_Allreduce(active.data(), active_here.data(), static_cast<int>(points.size()), MPI_INT,
                MPI_SUM, machine);
  MPI_Comm_rank(machine, &me);
  MPI_Comm_free(&machine);
  if (me != 0) return {};
  std::uint64_t need = 0, per_rank = 0;
  const PhaseDesc* largest = nullptr;
  const SweepPoint* at = nullptr;
  for (std::size_t i = 0; i < points.size(); ++i)
    for (auto id : cfg.work.phases) {
      const PhaseRow& row = phase_row(id);
      const std::uint64_t b = row.make(row.desc())->buffer_bytes(cfg.work, cfg.io, points[i]);
      const std::uint64_t n = b * static_cast<std::uint64_t>(active_here[i]);
      if (n > need) {
        need = n;
        per_rank = b;
        largest = &row.desc();
        at = &points[i];
      }
    }
  const std::uint64_t avail = mem_available_bytes();
  if (largest == nullptr || avail == 0 || need <= avail) return {};
  if (largest->metadata())
    return "--md-items: " + std::string(largest->name) + " at " + std::to_string(at->ranks) +
           " rank(s) needs " + mib(per_rank) + " per rank for its names and buffers, " + mib(need) +
           " for the " + std::to_string(active_here[static_cast<std::size_t>(at - points.data())]) +
           " active rank(s) of this machine, but only " + mib(avail) +
           " are available (MemAvailable); make fewer items";
  const std::uint64_t record = cfg.work.record_bytes(largest->record);
  const char* rec_opt = record_option(largest->record);
  const bool by_streams = !cfg.sweep.streams.empty();
  const unsigned depth = at->per_rank.depth;
  const std::string opt = by_streams ? "--streams" : depth > 1 ? "--iodepth" : rec_opt;
  return opt + ": " + std::string(largest->name) + " at depth " + std::to_string(depth) +
         (by_streams ? " (" + std::to_string(at->streams()) + " streams)" : std::string()) +
         " with " + mib(record) + " records (" + rec_opt + ") needs " + mib(per_rank) +
         " of I/O buffers per rank, " + mib(need) + " for the " +
         std::to_string(active_here[static_cast<std::size_t>(at - points.data())]) +
         " active rank(s) of this machine, but only " + mib(avail) +
         " are available (MemAvailable); lower " + (by_streams ? "the streams" : "--iodepth") +
         " or the record size";
}

// Free space: ranks whose folders are on the same file system (same f_fsid, whichever node or
// folder) share its free bytes; the largest point needs one file per active rank on it. The
// refusal names a folder and host of that file system.
std::string space_check(const Config& cfg, const LocalPlace& place, int max_k, int rank, int size) {
  struct Row {
    unsigned long long fsid;
    unsigned long long free;
    int active;
    int node;
    int folder;
  } mine{0, 0, place.self.position < max_k ? 1 : 0, place.self.node, place.self.folder};
  if (cfg.work.shared()) mine.folder = 0;
  struct statvfs v {};
  if (::statvfs(cfg.work.dirs[static_cast<std::size_t>(mine.folder)].c_str(), &v) == 0) {
    mine.fsid = v.f_fsid;
    mine.free = static_cast<unsigned long long>(v.f_bavail) * v.f_frsize;
  }
  std::vector<Row> all(rank == 0 ? static_cast<std::size_t>(size) : 0);
  MPI_Gather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, 0, MPI_COMM_WORLD);
  // An engine that moves no data leaves its files empty, and a run of metadata phases alone
  // makes none: nothing to check.
  bool data_files = false;
  for (auto id : cfg.work.phases)
    data_files = data_files || !phase_desc(id).metadata();
  if (rank != 0 || cfg.force || !cfg.work.reuse_run.empty() || !data_files ||
      !engine_desc(cfg.io.engine).moves_data)
    return {};
  struct Need {
    unsigned long long free = 0, files = 0;
    const Row* first = nullptr;  // where the file system is named from
  };
  std::map<unsigned long long, Need> need;
  for (const auto& r : all) {
    auto& n = need[r.fsid];
    n.free = r.free;
    n.files += static_cast<unsigned long long>(r.active);
    if (n.first == nullptr || (r.active && !n.first->active)) n.first = &r;
  }
  for (const auto& [fsid, n] : need) {
    const unsigned long long bytes = n.files * cfg.work.file_size;
    if (bytes <= n.free) continue;
    const std::string& dir = cfg.work.dirs[static_cast<std::size_t>(n.first->folder)];
    const std::string& host = place.full.hosts[static_cast<std::size_t>(n.first->node)];
    return "--file-size: the largest point needs " + std::to_string(bytes) + " bytes (" +
           format_size(bytes) + ", " + std::to_string(n.files) + " files) in '" + printable(dir) +
           "' on host " + host + " but only " + std::to_string(n.free) + " bytes (" +
           format_size(n.free) + ") are free; use a smaller --file-size or --force";
  }
  return {};
}

bool has_metadata(const Workload& w) {
  for (auto id : w.phases)
    if (phase_desc(id).metadata()) return true;
  return false;
}

// Every point's metadata layout fits (the same arithmetic on every rank: no agreement needed).
std::string md_points_check(const Config& cfg, const std::vector<SweepPoint>& points) {
  if (!has_metadata(cfg.work)) return {};
  MdPoint plan;
  for (const SweepPoint& pt : points)
    if (auto why = plan_md_point(cfg.work.md, pt.ranks, pt.per_rank.depth, plan); !why.empty())
      return why;
  return {};
}

// The inodes and bytes the metadata phases' largest point makes, against what the file system
// of --dir has free (on rank 0's node; --force skips it as it skips the free-space check).
std::string md_space_check(const Config& cfg, const std::vector<SweepPoint>& points) {
  const MdSpec& md = cfg.work.md;
  if (!has_metadata(cfg.work) || cfg.force || !engine_desc(cfg.io.engine).moves_data) return {};
  struct statvfs v {};
  const std::string& dir = cfg.work.dirs.front();  // the metadata phases' folder
  if (::statvfs(dir.c_str(), &v) != 0) return {};
  std::uint64_t inodes = 0, bytes = 0;
  MdPoint plan;
  for (const SweepPoint& pt : points) {
    if (!plan_md_point(md, pt.ranks, pt.per_rank.depth, plan).empty()) continue;
    inodes = std::max(inodes, plan.items() + plan.folders() + 2);
    bytes = std::max(bytes, plan.items() * ((md.write_bytes + 4095) / 4096 * 4096));
  }
  const std::uint64_t free_inodes = v.f_favail, free_bytes = v.f_bavail * v.f_frsize;
  if (v.f_files > 0 && inodes > free_inodes)
    return "--md-items: the largest point makes " + std::to_string(inodes) +
           " files and folders in '" + printable(dir) + "' but its file system has " +
           std::to_string(free_inodes) + " free inodes; make fewer items or use --force";
  if (bytes > free_bytes)
    return "--md-write-bytes: the largest point writes " + format_size(bytes) +
           " into its items in '" + printable(dir) + "' but only " + format_size(free_bytes) +
           " are free; write less or use --force";
  return {};
}

}  // namespace

std::string validate_run(Config& cfg, const MpiSession& mpi, const LocalPlace& place,
                         std::vector<SweepPoint>& points, std::string& engine_detail) {
  if (auto why = resolve_points(cfg.sweep, cfg.io.iodepth, mpi.size(), points); !why.empty())
    return why;
  if (auto why = md_points_check(cfg, points); !why.empty()) return why;
  const int max_k = points.empty() ? 0 : points.back().ranks;  // ranks never decrease
  if (auto why = agree(local_checks(
          cfg, place, mpi.host(), points.empty() ? 0 : points.front().ranks, max_k, engine_detail));
      !why.empty())
    return why;
  if (auto why = agree(memory_check(cfg, place, points)); !why.empty()) return why;
  std::string out_why;
  if (mpi.rank() == 0) {
    h5::quiet_errors();
    if (auto why = h5::check_results_file(cfg.report.output, cfg.report.output_is_default);
        !why.empty())
      out_why = "--output: " + why;
  }
  if (auto why = agree(out_why); !why.empty()) return why;
  // The largest alignment any folder on any node needs is the one every rank uses and records.
  std::uint64_t align = cfg.work.direct_alignment;
  MPI_Allreduce(&cfg.work.direct_alignment, &align, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  cfg.work.direct_alignment = align;
  if (auto why = agree(space_check(cfg, place, max_k, mpi.rank(), mpi.size())); !why.empty())
    return why;
  return agree(mpi.rank() == 0 ? md_space_check(cfg, points) : std::string());
}

}  // namespace iosweep
