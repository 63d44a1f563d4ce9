// The run plan's arithmetic and its bytes (see run_plan.hpp).
#include "model/run_plan.hpp"

#include <stdexcept>
#include <type_traits>

#include "core/bytes.hpp"
#include "model/engine_desc.hpp"

namespace iosweep {

static_assert(std::is_trivially_copyable_v<PhasePlan> && std::is_trivially_copyable_v<SweepPoint>);

EngineOptions engine_options(const StepPlan& step, const PhasePlan& phase) {
  EngineOptions io = step.cfg.io;
  io.iodepth = phase.depth;
  io.iodepth_batch = phase.batch;
  return io;
}

std::uint32_t RunPlan::points() const {
  std::uint32_t n = 0;
  for (const StepPlan& s : steps)
    n += static_cast<std::uint32_t>(s.points.size());
  return n;
}

std::uint64_t RunPlan::bytes_of_rank0() const {
  std::uint64_t bytes = 0;
  for (const StepPlan& s : steps)
    for (const PointPlan& p : s.points)
      for (const auto& rep : p.reps)
        for (const PhasePlan& ph : rep)
          bytes += ph.bytes_per_rank;
  return bytes;
}

namespace {

// The metadata phases' layout at a point: every metadata phase of it has the same.
const PhasePlan* first_md_phase(const PointPlan& point) {
  for (const auto& rep : point.reps)
    for (const PhasePlan& ph : rep)
      if (phase_desc(ph.phase).metadata()) return &ph;
  return nullptr;
}

bool has_data_phase(const PointPlan& point) {
  for (const auto& rep : point.reps)
    for (const PhasePlan& ph : rep)
      if (!phase_desc(ph.phase).metadata()) return true;
  return false;
}

}  // namespace

PointFootprint footprint_of(const StepPlan& step, const PointPlan& point) {
  const int k = point.point.ranks;
  const Workload& w = step.cfg.work;
  PointFootprint f;
  f.bytes_of.assign(static_cast<std::size_t>(k), 0);
  f.inodes_of.assign(static_cast<std::size_t>(k), 0);
  const bool moves_data = engine_desc(step.cfg.io.engine).moves_data;
  // The data files: one per rank in its folder, or the shared file in position 0's; a kept
  // run's files (--reuse) are there already.
  f.data = has_data_phase(point) && w.reuse_run.empty();
  if (f.data) {
    for (int p = 0; p < k; ++p) {
      const auto at = static_cast<std::size_t>(w.shared() ? 0 : p);
      f.bytes_of[at] += moves_data ? w.file_size : 0;
      f.inodes_of[at] += (w.shared() && p > 0) ? 0 : 1;
    }
  }
  // The metadata items and folders: a tree per stream in its rank's folder, or the shared tree
  // in position 0's; position 0 also makes the run's and the point's own folders.
  const PhasePlan* md = first_md_phase(point);
  f.md = md != nullptr;
  if (md == nullptr || !moves_data) return f;
  const std::uint64_t item_bytes = (w.md.write_bytes + 4095) / 4096 * 4096;
  f.inodes_of[0] += 2 + (md->md.layout.shared ? md->md.layout.tree.folders() : 0);
  for (int p = 0; p < k; ++p) {
    const auto at = static_cast<std::size_t>(md->md.layout.shared ? 0 : p);
    const std::uint64_t items = md->md.items_of(p);
    f.inodes_of[at] += items + (md->md.layout.shared ? 0 : md->md.layout.folder_ops(p));
    f.bytes_of[at] += items * item_bytes;
  }
  return f;
}

namespace {

// Version of the bytes below: a rank of another build refuses them rather than misread them.
constexpr std::uint32_t kPlanBytesVersion = 1;

void put_point(ByteWriter& out, const PointPlan& p) {
  out.put(p.index);
  out.put(p.point);
  out.put(p.data_shift);
  out.put(p.md_shift);
  out.put(static_cast<std::uint64_t>(p.reps.size()));
  for (const auto& rep : p.reps)
    out.put(rep);
}

PointPlan get_point(ByteReader& in) {
  PointPlan p;
  in.get(p.index);
  in.get(p.point);
  in.get(p.data_shift);
  in.get(p.md_shift);
  std::uint64_t reps = 0;
  in.get(reps);
  if (reps > (1u << 20)) throw std::runtime_error("plan bytes: too many repetitions");
  p.reps.resize(reps);
  for (auto& rep : p.reps)
    in.get(rep);
  return p;
}

}  // namespace

std::vector<char> pack_plan(const RunPlan& plan) {
  ByteWriter out;
  out.put(kPlanBytesVersion);
  out.put(plan.order_base);
  out.put(static_cast<std::uint64_t>(plan.steps.size()));
  for (const StepPlan& s : plan.steps) {
    out.put(s.name);
    out.put(s.toml);
    out.put(s.overrides);
    out.put(s.folder_of_position);
    out.put(s.notes);
    out.put(s.dataset);
    out.put(s.dataset_index);
    out.put(s.last_of_dataset);
    out.put(static_cast<std::uint64_t>(s.points.size()));
    for (const PointPlan& p : s.points)
      put_point(out, p);
  }
  return std::move(out.bytes());
}

RunPlan unpack_plan(const std::vector<char>& bytes, const std::vector<Config>& configs) {
  ByteReader in(bytes);
  std::uint32_t version = 0;
  in.get(version);
  if (version != kPlanBytesVersion) throw std::runtime_error("plan bytes: another version");
  RunPlan plan;
  in.get(plan.order_base);
  std::uint64_t steps = 0;
  in.get(steps);
  if (steps != configs.size())
    throw std::runtime_error("plan bytes: " + std::to_string(steps) + " steps, but " +
                             std::to_string(configs.size()) + " configurations");
  plan.steps.resize(steps);
  for (std::size_t i = 0; i < steps; ++i) {
    StepPlan& s = plan.steps[i];
    s.cfg = configs[i];
    in.get(s.name);
    in.get(s.toml);
    in.get(s.overrides);
    in.get(s.folder_of_position);
    in.get(s.notes);
    in.get(s.dataset);
    in.get(s.dataset_index);
    in.get(s.last_of_dataset);
    std::uint64_t points = 0;
    in.get(points);
    if (points > (1u << 24)) throw std::runtime_error("plan bytes: too many points");
    for (std::uint64_t p = 0; p < points; ++p)
      s.points.push_back(get_point(in));
  }
  if (!in.done()) throw std::runtime_error("plan bytes: more than a plan");
  return plan;
}

}  // namespace iosweep
