// The run plan, made once on rank 0 (see plan.hpp and model/run_plan.hpp): every step's points,
// each point's shifts and repetitions, each phase's engine depth, buffers, metadata tree and
// order seed. Pure: the steps' configurations and the placement in, the plan out.
#include <algorithm>
#include <cstdio>

#include "core/errors.hpp"
#include "core/pattern.hpp"
#include "engines/engine_table.hpp"
#include "phases/phase.hpp"
#include "phases/phase_table.hpp"
#include "sweep/plan.hpp"

namespace iosweep {
namespace {

// Every position's folder with `dirs` folders: a node's ranks take them round-robin by their
// index within the node (model/topology.hpp).
std::vector<int> folders_of_positions(const Topology& topo, std::size_t dirs) {
  std::vector<int> out;
  out.reserve(topo.order.size());
  for (const int rank : topo.order) {
    const RankPlace& r = topo.ranks[static_cast<std::size_t>(rank)];
    out.push_back(dirs == 0 ? 0 : r.local_index % static_cast<int>(dirs));
  }
  return out;
}

std::vector<int> nodes_of_positions(const Topology& topo, int k) {
  std::vector<int> nodes;
  nodes.reserve(static_cast<std::size_t>(k));
  for (int p = 0; p < k; ++p)
    nodes.push_back(topo.node_at(p));
  return nodes;
}

// The reading phases' shift at a point of k ranks (--read-shift, or the smallest that moves every
// read to another node), and the metadata lookups' (another node's items whenever the point spans
// nodes, as mdtest -N; else the same). A note when auto finds no shift that moves every read.
void plan_shifts(const Workload& w, const Topology& topo, PointPlan& p,
                 std::vector<std::string>& notes) {
  const int k = p.point.ranks;
  bool all_remote = false;
  const int remote = remote_shift(nodes_of_positions(topo, k), k, all_remote);
  p.data_shift = w.read_shift_auto ? remote : (k > 0 ? w.read_shift % k : 0);
  p.md_shift = topo.nodes_used(k) > 1 ? remote : p.data_shift;
  if (w.read_shift_auto && !all_remote && k > 1)
    notes.push_back("--read-shift auto: at " + std::to_string(k) +
                    " ranks no shift moves every read to another node (" +
                    std::to_string(topo.nodes_used(k)) + " node(s) in use); using " +
                    std::to_string(remote));
}

// The phases of one repetition: the table's order, except that on odd repetitions a control
// phase runs right after the phase it is the baseline of instead of right before it.
std::vector<PhaseId> order_for(const std::vector<PhaseId>& phases, int rep) {
  std::vector<PhaseId> order = phases;
  if (rep % 2 == 0) return order;
  for (std::size_t i = 0; i + 1 < order.size(); ++i)
    if (phase_desc(order[i]).control_for == order[i + 1]) std::swap(order[i], order[i + 1]), ++i;
  return order;
}

// Random orders differ per run (unless --order-seed pins them), point and repetition; a point
// is keyed by its ranks, or by its streams with --streams (where points share their ranks).
std::uint64_t order_seed_for(std::uint64_t base, std::uint64_t point_key, int rep) {
  return mix64(base ^ mix64((point_key << 32) | static_cast<std::uint64_t>(rep)));
}

// One phase at one point: the one place where the depth an engine keeps, the metadata tree and
// the buffers are decided.
PhasePlan plan_phase(PhaseId id, const Config& cfg, const PointPlan& p, const MdPoint& md,
                     std::uint64_t seed) {
  const PhaseDesc& desc = phase_desc(id);
  const std::unique_ptr<Phase> phase = make_phase(id);
  const Workload& w = cfg.work;
  PhasePlan ph;
  ph.phase = id;
  ph.point_depth = p.point.per_rank.depth;
  const EngineNeed need = phase->engine_need(w, cfg.io, p.point.per_rank);
  ph.depth = std::max(1u, need.depth);
  ph.batch = std::min(std::max(1u, cfg.io.iodepth_batch), ph.depth);
  ph.use = static_cast<int>(need.use);
  ph.record_bytes = w.record_bytes(desc.record);
  ph.bytes_per_rank = desc.metadata() ? 0 : w.file_size;
  if (desc.metadata()) ph.md = md;
  ph.read_shift = desc.metadata() ? p.md_shift : p.data_shift;
  ph.order_seed = seed;
  ph.fsync = w.fsyncs(id);
  ph.caches_to_drop = phase->caches_to_drop(w, cfg.io);
  ph.buffer_bytes = phase->buffer_bytes(w, p.point, ph);
  return ph;
}

bool has_metadata(const Workload& w) {
  return std::any_of(w.phases.begin(), w.phases.end(),
                     [](PhaseId id) { return phase_desc(id).metadata(); });
}

// One point of a step, every repetition's phases. Empty, or why the point cannot run.
std::string plan_point(const Config& cfg, const Topology& topo, std::uint64_t order_base,
                       PointPlan& p, std::vector<std::string>& notes) {
  plan_shifts(cfg.work, topo, p, notes);
  MdPoint md;
  if (has_metadata(cfg.work))
    if (auto why = plan_md_point(cfg.work.md, p.point.ranks, p.point.per_rank.depth, md);
        !why.empty())
      return why;
  const std::uint64_t key =
      cfg.sweep.streams.empty() ? static_cast<std::uint64_t>(p.point.ranks) : p.point.streams();
  for (int rep = 0; rep < cfg.sweep.repetitions; ++rep) {
    const std::uint64_t seed = order_seed_for(order_base, key, rep);
    std::vector<PhasePlan>& phases = p.reps.emplace_back();
    for (const PhaseId id : order_for(cfg.work.phases, rep))
      phases.push_back(plan_phase(id, cfg, p, md, seed));
  }
  return {};
}

// One step: its folders, points and their phases. Empty, or "--option: problem" (named with
// the step when the run has steps).
std::string plan_step(const StepInput& in, const Topology& topo, std::uint64_t order_base,
                      std::uint32_t& next_point, StepPlan& step) {
  step.name = in.name;
  step.dataset = in.dataset;
  step.cfg = in.cfg;
  step.toml = in.toml;
  step.overrides = in.overrides;
  step.folder_of_position = folders_of_positions(topo, in.cfg.work.dirs.size());
  std::vector<SweepPoint> points;
  const int world = static_cast<int>(topo.ranks.size());
  if (auto why = resolve_points(in.cfg.sweep, in.cfg.io.iodepth, world, points); !why.empty())
    return why;
  for (const SweepPoint& sp : points) {
    PointPlan& p = step.points.emplace_back();
    p.index = next_point++;
    p.point = sp;
    if (auto why = plan_point(in.cfg, topo, order_base, p, step.notes); !why.empty()) return why;
  }
  return {};
}

// What steps sharing a dataset must agree on: the files' names, places, sizes and layout, and
// the metadata set's shape (the steps of a dataset share its items).
std::string same_files(const StepPlan& a, const StepPlan& b) {
  const Workload &x = a.cfg.work, &y = b.cfg.work;
  const char* opt = x.dirs != y.dirs                                     ? "--dir"
                    : x.file_size != y.file_size                         ? "--file-size"
                    : x.layout != y.layout                               ? "--file-layout"
                    : x.shared() && x.shared_pattern != y.shared_pattern ? "--shared-pattern"
                    : x.shared() && x.seq_record != y.seq_record         ? "--seq-record"
                    : x.reuse_run != y.reuse_run                         ? "--reuse"
                    : x.md.items != y.md.items || x.md.items_total != y.md.items_total
                        ? "--md-items"
                    : x.md.depth != y.md.depth || x.md.branch != y.md.branch ||
                            x.md.per_folder != y.md.per_folder || x.md.leaf_only != y.md.leaf_only
                        ? "--md-depth"
                    : x.md.shared != y.md.shared           ? "--md-layout"
                    : x.md.write_bytes != y.md.write_bytes ? "--md-write-bytes"
                                                           : nullptr;
  if (opt == nullptr) return {};
  return "step '" + printable(b.name) + "': " + opt + ": differs from step '" + printable(a.name) +
         "', whose data files (dataset '" + printable(a.dataset) +
         "') it works on; give both the same";
}

// The datasets: numbered in order of first use, each step told whether it is the last of its
// dataset (its files are removed after it), steps of one dataset checked to agree.
std::string settle_datasets(RunPlan& out) {
  std::vector<std::string> seen;
  for (std::size_t i = 0; i < out.steps.size(); ++i) {
    StepPlan& s = out.steps[i];
    const auto at = std::find(seen.begin(), seen.end(), s.dataset);
    s.dataset_index = static_cast<std::uint32_t>(at - seen.begin());
    if (at == seen.end()) seen.push_back(s.dataset);
    for (std::size_t j = i + 1; j < out.steps.size(); ++j)
      if (out.steps[j].dataset == s.dataset) s.last_of_dataset = false;
    for (std::size_t j = 0; j < i; ++j)
      if (out.steps[j].dataset == s.dataset) {
        if (auto why = same_files(out.steps[j], s); !why.empty()) return why;
        break;
      }
  }
  return {};
}

}  // namespace

std::string plan_run(const std::vector<StepInput>& steps, const Topology& topo,
                     std::uint64_t order_base, RunPlan& out) {
  out = {};
  out.order_base = order_base;
  std::uint32_t next_point = 0;
  for (const StepInput& in : steps) {
    StepPlan& step = out.steps.emplace_back();
    if (auto why = plan_step(in, topo, order_base, next_point, step); !why.empty())
      return in.name.empty() ? why : "step '" + printable(in.name) + "': " + why;
  }
  if (auto why = settle_datasets(out); !why.empty()) return why;
  std::uint32_t row = 0;  // the plan table's rows, in the order the run goes through them
  for (StepPlan& s : out.steps)
    for (PointPlan& p : s.points)
      for (auto& rep : p.reps)
        for (PhasePlan& ph : rep)
          ph.row = row++;
  return {};
}

}  // namespace iosweep
