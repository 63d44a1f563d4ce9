// Pre-run validation (see config_check.hpp).
#include "app/config_check.hpp"

#include <linux/limits.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "core/aligned_buffer.hpp"
#include "core/errors.hpp"
#include "core/pattern.hpp"
#include "core/units.hpp"
#include "engines/engine_table.hpp"
#include "model/limits.hpp"
#include "mpi/messages.hpp"
#include "os/file_ops.hpp"
#include "os/process.hpp"
#include "os/wire.hpp"
#include "output/hdf5_file.hpp"
#include "phases/phase.hpp"
#include "phases/phase_table.hpp"
#include "sweep/plan.hpp"

namespace iosweep {
namespace {

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
  const fsops::Entry at = fsops::entry_at(path);
  if (at.kind == fsops::Entry::Kind::none) {
    if (fsops::exists(name(!w.shared())))
      return "--reuse: run " + printable(w.reuse_run) + " kept " +
             (w.shared() ? "one file per rank; drop --file-layout shared"
                         : "one shared file; add --file-layout shared");
    return "--reuse: " + q + " does not exist (was run " + printable(w.reuse_run) +
           " kept with --keep?)";
  }
  if (at.kind == fsops::Entry::Kind::link)
    return "--reuse: " + q + " is a symbolic link; iosweep never follows one";
  if (at.kind != fsops::Entry::Kind::regular) return "--reuse: " + q + " is not a regular file";
  const std::uint64_t size = at.bytes;
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
    // The region's first contiguous bytes, at most a block (a strided block may be fewer).
    const std::uint64_t contiguous = strided ? w.seq_record : w.file_size;
    AlignedBuffer head(static_cast<std::size_t>(std::min<std::uint64_t>(kBlockBytes, contiguous)));
    fsops::read_head(path, head.span());
    const DataSpec spec{w.seed, w.filter_key, w.filter_every, w.file_size};
    if (verify_bytes(spec, static_cast<std::uint64_t>(position), 0, head.span(), nullptr) != 0)
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

// This rank's folder in a step (its index in the step's --dir).
int folder_in(const StepPlan& step, const LocalPlace& place) {
  const auto p = static_cast<std::size_t>(place.self.position);
  return p < step.folder_of_position.size() ? step.folder_of_position[p] : 0;
}

// The folders this rank checks: every one on a node's lowest rank (so that each folder is
// checked on every node, used or not), its own elsewhere. Each is named with the host.
std::string folder_checks(StepPlan& step, const LocalPlace& place, const std::string& host) {
  Workload& w = step.cfg.work;
  std::uint64_t align_max = kDefaultDirectAlignment;
  const int mine = folder_in(step, place);
  for (std::size_t f = 0; f < w.dirs.size(); ++f) {
    if (place.self.local_index != 0 && static_cast<int>(f) != mine) continue;
    const std::string& dir = w.dirs[f];
    if (auto why = fsops::check_writable_dir(dir); !why.empty())
      return "--dir: host " + host + ": " + why;
    if (!step.cfg.io.direct) continue;
    std::uint64_t align = kDefaultDirectAlignment;
    if (auto why = fsops::probe_direct(dir, align); !why.empty())
      return "--direct: host " + host + ": " + why;
    align_max = std::max(align_max, align);
  }
  w.direct_alignment = align_max;
  // Spellings are compared when the option is read (D,D/); the folders themselves here, on
  // every node: D,D/../d, a symbolic link to D and a bind mount of D are one folder.
  if (place.self.local_index == 0)
    if (auto why = fsops::same_folder_twice(w.dirs); !why.empty())
      return "--dir: host " + host + ": " + why;
  return {};
}

std::string local_checks(StepPlan& step, const LocalPlace& place, const std::string& host,
                         std::string& engine_detail) {
  if (auto why = folder_checks(step, place, host); !why.empty()) return why;
  const Config& cfg = step.cfg;
  const Workload& w = cfg.work;
  for (auto id : w.phases)
    if (auto why = make_phase(id)->validate(w, cfg.io); !why.empty()) return why;
  if (auto why = probe_engine(cfg.io, engine_detail); !why.empty()) return why;
  if (!w.wire_off && !w.wire_interfaces.empty())
    if (auto why = check_wire(choose_wire(mount_of(w.dirs.front()), w.wire_interfaces));
        !why.empty())
      return "--wire-interface: host " + host + ": " + why;
  const int pos = place.self.position;
  if (w.reuse_run.empty() || step.points.empty()) return {};
  const int min_k = step.points.front().point.ranks, max_k = step.points.back().point.ranks;
  if (pos >= max_k) return {};
  const int folder = w.shared() ? 0 : folder_in(step, place);
  return reuse_check(w, w.dirs[static_cast<std::size_t>(folder)], pos, min_k, max_k);
}

// The phase of a plan that holds the most buffers per rank at a point, and how many.
struct Largest {
  const PhasePlan* phase = nullptr;
  const PointPlan* point = nullptr;
  const StepPlan* step = nullptr;
  std::uint64_t per_rank = 0, need = 0;
  int here = 0;
};

std::string memory_refusal(const Largest& l, std::uint64_t avail) {
  const PhaseDesc& desc = phase_desc(l.phase->phase);
  const std::string tail = " for the " + std::to_string(l.here) +
                           " active rank(s) of this machine, but only " + format_size(avail) +
                           " are available (MemAvailable); ";
  if (desc.metadata())
    return "--md-items: " + std::string(desc.name) + " at " + std::to_string(l.point->point.ranks) +
           " rank(s) needs " + format_size(l.per_rank) + " per rank for its names and buffers, " +
           format_size(l.need) + tail + "make fewer items";
  const char* rec_opt = record_option(desc.record);
  const bool by_streams = !l.step->cfg.sweep.streams.empty();
  const unsigned depth = l.point->point.per_rank.depth;
  const std::string opt = by_streams ? "--streams" : depth > 1 ? "--iodepth" : rec_opt;
  return opt + ": " + std::string(desc.name) + " at depth " + std::to_string(depth) +
         (by_streams ? " (" + std::to_string(l.point->point.streams()) + " streams)"
                     : std::string()) +
         " with " + format_size(l.phase->record_bytes) + " records (" + rec_opt + ") needs " +
         format_size(l.per_rank) + " of I/O buffers per rank, " + format_size(l.need) + tail +
         "lower " + (by_streams ? "the streams" : "--iodepth") + " or the record size";
}

// I/O buffers against the memory of each machine: at every point, the largest any phase holds
// per rank (the plan's), times the ranks of this machine active at it, against MemAvailable.
// Ranks sharing memory are grouped as MPI sees them (emulated nodes on one machine share one).
std::string memory_check(const RunPlan& plan, const LocalPlace& place) {
  MPI_Comm machine = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &machine);
  std::vector<int> active, active_here;
  for (const StepPlan& s : plan.steps)
    for (const PointPlan& p : s.points)
      active.push_back(place.self.position < p.point.ranks ? 1 : 0);
  active_here.resize(active.size());
  int me = 0;
  MPI_Allreduce(active.data(), active_here.data(), static_cast<int>(active.size()), MPI_INT,
                MPI_SUM, machine);
  MPI_Comm_rank(machine, &me);
  MPI_Comm_free(&machine);
  if (me != 0) return {};
  Largest l;
  for (const StepPlan& s : plan.steps)
    for (const PointPlan& p : s.points)
      for (const auto& rep : p.reps)
        for (const PhasePlan& ph : rep) {
          const int here = active_here[p.index];
          const std::uint64_t n = ph.buffer_bytes * static_cast<std::uint64_t>(here);
          if (n > l.need) l = {&ph, &p, &s, ph.buffer_bytes, n, here};
        }
  const std::uint64_t avail = mem_available_bytes();
  if (l.phase == nullptr || avail == 0 || l.need <= avail) return {};
  return memory_refusal(l, avail);
}

// What one rank's folder of a step has free, as every rank reports it to rank 0.
struct FolderSpace {
  unsigned long long fsid = 0, free_bytes = 0, free_inodes = 0, inodes = 0;
  int known = 0;
  int node = 0;
};

// One point's footprint against the free space and inodes of every file system it lands on
// (ranks whose folders are on the same file system, same f_fsid on whichever node or folder,
// share its free bytes): the data files and the metadata items stay on disk together, so they
// are checked together. The refusal names a folder and host of that file system.
std::string point_space_check(const StepPlan& step, const PointPlan& p,
                              const std::vector<FolderSpace>& by_position, const Topology& topo) {
  const PointFootprint f = footprint_of(step, p);
  struct Need {
    unsigned long long bytes = 0, inodes = 0;
    const FolderSpace* space = nullptr;
    int position = 0;
  };
  std::map<unsigned long long, Need> need;
  for (std::size_t pos = 0; pos < f.bytes_of.size(); ++pos) {
    const FolderSpace& sp = by_position[pos];
    if (!sp.known) continue;
    Need& n = need[sp.fsid];
    n.bytes += f.bytes_of[pos];
    n.inodes += f.inodes_of[pos];
    if (n.space == nullptr) n = {n.bytes, n.inodes, &sp, static_cast<int>(pos)};
  }
  for (const auto& [fsid, n] : need) {
    const auto folder = static_cast<std::size_t>(
        step.cfg.work.shared() ? 0 : step.folder_of_position[static_cast<std::size_t>(n.position)]);
    const std::string where = "'" + printable(step.cfg.work.dirs[folder]) + "' on host " +
                              topo.hosts[static_cast<std::size_t>(n.space->node)];
    const std::string at = "the point of " + std::to_string(p.point.ranks) + " rank(s)";
    // Named after what the point holds: the option to change and the advice follow it.
    const bool data = f.data, md = f.md;
    const char* option = data ? "--file-size: " : "--md-write-bytes: ";
    const char* what = data && md ? "its data files and metadata items together"
                       : data     ? "its data files"
                                  : "its metadata items";
    const char* advice = data && md ? "make less or use --force"
                         : data     ? "use a smaller --file-size or --force"
                                    : "write less or use --force";
    if (n.bytes > n.space->free_bytes)
      return option + at + " needs " + std::to_string(n.bytes) + " bytes (" + format_size(n.bytes) +
             ": " + what + ") in " + where + " but only " + std::to_string(n.space->free_bytes) +
             " bytes (" + format_size(n.space->free_bytes) + ") are free; " + advice;
    if (n.space->inodes > 0 && n.inodes > n.space->free_inodes)
      return "--md-items: " + at + " makes " + std::to_string(n.inodes) + " files and folders in " +
             where + " but its file system has " + std::to_string(n.space->free_inodes) +
             " free inodes; make fewer items or use --force";
  }
  return {};
}

// Every point of every step against the free space of its file systems (--force skips it).
std::string space_check(const RunPlan& plan, const LocalPlace& place, const MpiSession& mpi,
                        bool force) {
  for (const StepPlan& step : plan.steps) {
    const Workload& w = step.cfg.work;
    const std::size_t folder = w.shared() ? 0 : static_cast<std::size_t>(folder_in(step, place));
    const fsops::Space sp = fsops::space_of(w.dirs[folder]);
    const FolderSpace mine{sp.fsid,   sp.free_bytes,    sp.free_inodes,
                           sp.inodes, sp.known ? 1 : 0, place.self.node};
    std::vector<FolderSpace> all(mpi.rank() == 0 ? static_cast<std::size_t>(mpi.size()) : 0);
    MPI_Gather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (mpi.rank() != 0 || force) continue;
    std::vector<FolderSpace> by_position(all.size());
    for (std::size_t pos = 0; pos < all.size(); ++pos)
      by_position[pos] = all[static_cast<std::size_t>(place.full.order[pos])];
    // The largest point first (points grow within a step): the refusal names what the step
    // needs at most.
    for (auto p = step.points.rbegin(); p != step.points.rend(); ++p)
      if (auto why = point_space_check(step, *p, by_position, place.full); !why.empty())
        return step.name.empty() ? why : "step '" + printable(step.name) + "': " + why;
  }
  return {};
}

// The longest path a point makes below folder `dir`: its data file, or its deepest metadata
// item (the last item of the last stream of its last position, in the deepest holder folder).
std::string longest_path(const StepPlan& step, const PointPlan& p, const std::string& dir,
                         const std::string& run_id) {
  const Workload& w = step.cfg.work;
  const int k = p.point.ranks;
  std::string longest = dir + "/iosweep." + run_id + ".d" + std::to_string(step.dataset_index) +
                        "." + (w.shared() ? std::string("shared") : std::to_string(k - 1));
  for (const auto& rep : p.reps)
    for (const PhasePlan& ph : rep) {
      if (!phase_desc(ph.phase).metadata()) continue;
      const MdLayout& l = ph.md.layout;
      const int last = l.shared ? 0 : k - 1;
      const std::uint64_t n = ph.md.items_of(last);
      std::string item = dir + "/iosweep." + run_id + ".md/p" + std::to_string(p.index) + "r" +
                         std::to_string(p.reps.size()) + "/";
      l.append_item(last, l.streams - 1, n > 0 ? n - 1 : 0, std::max<std::uint64_t>(n, 1), item);
      if (item.size() > longest.size()) longest = item;
    }
  return longest;
}

// Every path the run makes must fit in PATH_MAX, or a deep --dir would start and stop with
// ENAMETOOLONG part way through: refused before anything is made, naming the longest one.
std::string path_check(const RunPlan& plan) {
  const std::string run_id(make_run_id().size(), 'x');  // every run id has this length
  for (const StepPlan& step : plan.steps)
    for (const std::string& dir : step.cfg.work.dirs)
      for (const PointPlan& p : step.points)
        if (const std::string path = longest_path(step, p, dir, run_id); path.size() >= PATH_MAX)
          return "--dir: '" + printable(dir.substr(0, 60)) + "...' (" + std::to_string(dir.size()) +
                 " bytes) is too deep: the longest path this run " + "makes in it is " +
                 std::to_string(path.size()) + " bytes, and the kernel " + "takes at most " +
                 std::to_string(PATH_MAX - 1) + " (PATH_MAX); use a shorter " + "folder" +
                 (path.find(".md/") != std::string::npos ? " or a shallower --md-depth" : "");
  return {};
}

}  // namespace

std::string validate_run(RunPlan& plan, const MpiSession& mpi, const LocalPlace& place,
                         std::vector<std::string>& engine_details) {
  engine_details.assign(plan.steps.size(), {});
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    StepPlan& step = plan.steps[i];
    std::string why = local_checks(step, place, mpi.host(), engine_details[i]);
    if (!why.empty() && !step.name.empty()) why = "step '" + printable(step.name) + "': " + why;
    if (auto agreed = agree(why); !agreed.empty()) return agreed;
    // The largest alignment any folder on any node needs is the one every rank uses and
    // records.
    std::uint64_t& align = step.cfg.work.direct_alignment;
    std::uint64_t largest = align;
    MPI_Allreduce(&align, &largest, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    align = largest;
  }
  if (auto why = path_check(plan); !why.empty()) return why;  // the same on every rank
  if (auto why = agree(memory_check(plan, place)); !why.empty()) return why;
  std::string out_why;
  if (mpi.rank() == 0) {
    h5::quiet_errors();
    const Config& first = plan.steps.front().cfg;
    if (auto why = h5::check_results_file(first.report.output, first.report.output_is_default);
        !why.empty())
      out_why = "--output: " + why;
  }
  if (auto why = agree(out_why); !why.empty()) return why;
  return agree(space_check(plan, place, mpi, plan.steps.front().cfg.force));
}

}  // namespace iosweep
