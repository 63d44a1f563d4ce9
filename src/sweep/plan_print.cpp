// The --dry-run report: the run plan as it will run, step by step (see plan.hpp). Everything
// printed is read from the plan; nothing is decided here.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "core/errors.hpp"
#include "core/units.hpp"
#include "model/engine_desc.hpp"
#include "model/phase_desc.hpp"
#include "os/file_ops.hpp"
#include "sweep/plan.hpp"

namespace iosweep {
namespace {

bool any_phase(const StepPlan& step, bool metadata) {
  return std::any_of(step.cfg.work.phases.begin(), step.cfg.work.phases.end(),
                     [&](PhaseId id) { return phase_desc(id).metadata() == metadata; });
}

std::uint64_t data_phases(const StepPlan& step) {
  return static_cast<std::uint64_t>(
      std::count_if(step.cfg.work.phases.begin(), step.cfg.work.phases.end(),
                    [](PhaseId id) { return !phase_desc(id).metadata(); }));
}

void print_step_header(std::FILE* out, const RunPlan& plan, std::size_t i) {
  const StepPlan& step = plan.steps[i];
  const Workload& w = step.cfg.work;
  if (!step.name.empty())
    std::fprintf(out, "step %zu of %zu: %s\n", i + 1, plan.steps.size(),
                 printable(step.name).c_str());
  if (!step.overrides.empty()) std::fprintf(out, "  %s\n", printable(step.overrides).c_str());
  std::fprintf(out, "  engine %s%s", engine_desc(step.cfg.io.engine).name,
               step.cfg.io.direct ? " (O_DIRECT)" : "");
  if (any_phase(step, false))
    std::fprintf(out, ", %s per rank, records seq %s / rand %s / scan %s",
                 format_size(w.file_size).c_str(), format_size(w.seq_record).c_str(),
                 format_size(w.rand_record).c_str(), format_size(w.scan_record).c_str());
  std::fprintf(out, "\n");
  std::string phases;
  for (auto p : w.phases)
    phases += (phases.empty() ? "" : ", ") + std::string(phase_desc(p).name);
  std::fprintf(out, "  phases (in this order): %s; %d repetition(s)\n", phases.c_str(),
               step.cfg.sweep.repetitions);
  if (!step.cfg.sweep.streams.empty())
    std::fprintf(out,
                 "  streams: ranks x depth; random phases keep depth requests in flight, "
                 "sequential phases stream depth regions of each file side by side\n");
  for (const std::string& n : step.notes)
    std::fprintf(out, "  note: %s\n", printable(n).c_str());
}

// The data phases' files, bytes and footprint at every point.
std::uint64_t print_data_plan(std::FILE* out, const StepPlan& step, const Topology& topo) {
  const Workload& w = step.cfg.work;
  const bool by_streams = !step.cfg.sweep.streams.empty();
  std::string dirs;
  for (const auto& d : w.dirs)
    dirs += (dirs.empty() ? "" : ", ") + printable(d);
  std::fprintf(out, "  files: %s/iosweep.<run-id>.<position>, removed at the end%s\n",
               w.dirs.size() == 1 ? dirs.c_str() : "<folder>",
               w.keep ? " unless kept (--keep: kept)" : "");
  if (w.dirs.size() > 1)
    std::fprintf(out,
                 "  folders: %s; a node's ranks take them round-robin by their index within the "
                 "node\n",
                 dirs.c_str());
  if (by_streams) std::fprintf(out, "%8s %6s ", "streams", "depth");
  std::fprintf(out, "%6s %6s %6s %14s %16s\n", "ranks", "nodes", "files", "bytes/phase",
               "bytes/point");
  std::uint64_t total = 0;
  for (const PointPlan& p : step.points) {
    const int k = p.point.ranks;
    const std::uint64_t per_phase = static_cast<std::uint64_t>(k) * w.file_size;
    const std::uint64_t per_point =
        per_phase * data_phases(step) * static_cast<std::uint64_t>(p.reps.size());
    total += per_point;
    if (by_streams)
      std::fprintf(out, "%8llu %6u ", static_cast<unsigned long long>(p.point.streams()),
                   p.point.per_rank.depth);
    std::fprintf(out, "%6d %6d %6d %14s %16s\n", k, topo.nodes_used(k), k,
                 format_size(per_phase).c_str(), format_size(per_point).c_str());
  }
  const int largest = step.points.empty() ? 0 : step.points.back().point.ranks;
  std::fprintf(out, "  total: %zu point(s), %s moved; largest footprint %s on disk\n",
               step.points.size(), format_size(total).c_str(),
               format_size(static_cast<std::uint64_t>(largest) * w.file_size).c_str());
  return total;
}

// The metadata phases' layout at every point: items, streams, branch and folders.
void print_md_plan(std::FILE* out, const StepPlan& step) {
  const MdSpec& md = step.cfg.work.md;
  std::fprintf(out, "  metadata: %s\n", describe_md(md).c_str());
  std::fprintf(out, "  files of the metadata phases: %s\n",
               describe_md_places(md, step.cfg.work.dirs).c_str());
  std::fprintf(out, "%6s %8s %12s %8s %10s\n", "ranks", "streams", "items", "branch", "folders");
  for (const PointPlan& p : step.points) {
    for (const PhasePlan& ph : p.reps.front()) {
      if (!phase_desc(ph.phase).metadata()) continue;
      std::fprintf(out, "%6d %8llu %12llu %8llu %10llu\n", p.point.ranks,
                   static_cast<unsigned long long>(ph.md.layout.streams) *
                       static_cast<unsigned long long>(p.point.ranks),
                   static_cast<unsigned long long>(ph.md.items()),
                   static_cast<unsigned long long>(ph.md.layout.tree.branch),
                   static_cast<unsigned long long>(ph.md.folders()));
      break;
    }
  }
}

// Every phase of every point as it was planned (the first repetition; later ones run the same
// phases, a control after its phase on odd ones): the depth its engine keeps against the
// point's, its records, the buffers each rank holds and the read shift.
void print_phase_plan(std::FILE* out, const StepPlan& step) {
  std::fprintf(out, "  phases as planned (first repetition):\n");
  std::fprintf(out, "%6s %6s %-14s %6s %6s %10s %12s %6s\n", "point", "ranks", "phase", "depth",
               "asked", "record", "buffers", "shift");
  for (const PointPlan& p : step.points)
    for (const PhasePlan& ph : p.reps.front())
      std::fprintf(out, "%6u %6d %-14s %6u %6u %10s %12s %6d\n", p.index, p.point.ranks,
                   phase_desc(ph.phase).name, ph.depth, ph.point_depth,
                   ph.record_bytes == 0 ? "-" : format_size(ph.record_bytes).c_str(),
                   format_size(ph.buffer_bytes).c_str(), ph.read_shift);
}

// Which node and folder the first positions take (the rest follow the same order).
void print_placement(std::FILE* out, const StepPlan& step, const Topology& topo) {
  const int largest = step.points.empty() ? 0 : step.points.back().point.ranks;
  const int shown = std::min(largest, 16);
  std::string line;
  for (int p = 0; p < shown; ++p) {
    line += (p == 0 ? "" : ", ") + std::to_string(p) + ":" +
            printable(topo.hosts[static_cast<std::size_t>(topo.node_at(p))]);
    if (step.cfg.work.dirs.size() > 1)
      line += "/" + std::to_string(step.folder_of_position[static_cast<std::size_t>(p)]);
  }
  std::fprintf(out, "  placement (position:host%s): %s%s\n",
               step.cfg.work.dirs.size() > 1 ? "/folder" : "", line.c_str(),
               largest > shown ? ", ..." : "");
}

}  // namespace

void print_plan(std::FILE* out, const RunPlan& plan, const Topology& topo) {
  std::fprintf(out, "iosweep dry run: nothing is created, written or removed.\n");
  if (!plan.steps.empty()) {
    const Config& cfg = plan.steps.front().cfg;
    if (!cfg.preset_file.empty())
      std::fprintf(out, "  preset: %s\n", printable(cfg.preset_file).c_str());
    // In full (a relative --output lands in the working folder); the default's folder is made.
    const std::string results = fsops::absolute_path(cfg.report.output);
    const bool made = cfg.report.output_is_default &&
                      !fsops::exists(std::filesystem::path(results).parent_path().string());
    std::fprintf(out, "  results: appended to %s%s\n", printable(results).c_str(),
                 made ? " (--output's default: the run makes its folder)" : "");
  }
  std::uint64_t moved = 0;
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const StepPlan& step = plan.steps[i];
    print_step_header(out, plan, i);
    print_placement(out, step, topo);
    if (any_phase(step, false)) moved += print_data_plan(out, step, topo);
    if (any_phase(step, true)) print_md_plan(out, step);
    print_phase_plan(out, step);
  }
  if (plan.steps.size() > 1)
    std::fprintf(out, "  run: %zu steps, %u point(s), %s moved by the data phases\n",
                 plan.steps.size(), plan.points(), format_size(moved).c_str());
}

}  // namespace iosweep
