// HDF5 results writer (see hdf5_writer.hpp).
#include "output/hdf5_writer.hpp"

#include <cstring>
#include <ctime>
#include <type_traits>
#include <variant>

#include "core/clock.hpp"
#include "core/pattern.hpp"
#include "core/units.hpp"
#include "model/engine_desc.hpp"
#include "model/phase_desc.hpp"
#include "model/version.hpp"
#include "os/file_ops.hpp"
#include "os/process.hpp"
#include "output/hdf5_file.hpp"

namespace iosweep {
namespace {

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string join_argv(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    const bool plain = !a.empty() && a.find_first_of(" \t'\"\\$`*?") == std::string::npos;
    std::string q = plain ? a : "'" + a + "'";
    s += (s.empty() ? "" : " ") + q;
  }
  return s;
}

// The phase table as TOML, one inline table per phase (its enum name): what a script needs to
// read a row without a list of its own (record option, flags, the phase a control is for).
// Every run lists every phase, whichever ran.
std::string phase_table_toml() {
  std::string s;
  for (const PhaseDesc& d : phase_descs()) {
    std::string flags;
    auto flag = [&](bool on, const char* name) {
      if (on) flags += (flags.empty() ? "" : ",") + std::string(name);
    };
    flag(d.writes(), "writes");
    flag(d.random(), "random");
    flag(d.creates(), "creates");
    flag(d.counts(), "counts");
    flag(d.control(), "control");
    flag(d.metadata(), "metadata");
    flag(d.lookup(), "lookup");
    flag(d.tree(), "tree");
    const char* record = d.record == RecordKind::seq    ? "seq"
                         : d.record == RecordKind::rand ? "rand"
                         : d.record == RecordKind::scan ? "scan"
                                                        : "none";
    s += std::string(d.enum_name) + " = {id = " + std::to_string(d.id) + ", name = \"" + d.name +
         "\", record = \"" + record + "\", flags = \"" + flags + "\"";
    if (d.control_for != kNoPhase)
      s += ", control_for = \"" + std::string(phase_desc(d.control_for).enum_name) + "\"";
    s += "}\n";
  }
  return s;
}

// The attributes each option's row of the option table records (app/option_table.cpp), by
// their names: this writer knows no option.
void write_recorded(hid_t g, const RunAttributes& recorded) {
  for (const RunAttribute& a : recorded.all())
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::uint64_t>)
            h5::set_attr_u64(g, a.name.c_str(), v);
          else
            h5::set_attr(g, a.name.c_str(), v);
        },
        a.value);
}

void write_run_attributes(hid_t g, const RunContext& ctx) {
  const Config& c = *ctx.cfg;
  using h5::set_attr;
  set_attr(g, "run_id", ctx.run_id);
  set_attr(g, "argv", join_argv(c.argv));
  set_attr(g, "config", c.config_toml);
  set_attr(g, "rerun_of", c.rerun_of);
  set_attr(g, "versions", ctx.versions_toml);
  set_attr(g, "slurm_job_id", ctx.slurm_job_id);
  set_attr(g, "slurm_nodelist", ctx.slurm_nodelist);
  h5::set_attr_u64(g, "t_start_unix_ns", ctx.t_start_unix_ns);
  h5::set_attr_u64(g, "t_end_unix_ns", 0);
  h5::set_attr_enum(g, "status", h5::status_enum_type(),
                    static_cast<std::uint8_t>(RunStatus::running));
  set_attr(g, "status_message", std::string());
  set_attr(g, "world_size", static_cast<std::int64_t>(ctx.world_size));
  set_attr(g, "n_nodes", static_cast<std::int64_t>(ctx.topology.hosts.size()));
  write_recorded(g, c.recorded);
  // What the run found or drew itself, beside its configuration.
  set_attr(g, "fs_type", ctx.fs_type());
  h5::set_attr_u64(g, "pattern_bytes", kPatternBytes);
  set_attr(g, "phase_table", phase_table_toml());
  std::string dirs;
  for (const std::string& d : ctx.dirs)
    dirs += (dirs.empty() ? "" : ",") + d;
  set_attr(g, "dir", dirs);  // every step's folders together: the indexes of `folder` fields
  std::vector<std::int64_t> points, depths;
  for (const StepPlan& s : ctx.plan->steps)
    for (const PointPlan& p : s.points) {
      points.push_back(p.point.ranks);
      depths.push_back(p.point.per_rank.depth);
    }
  set_attr(g, "points", points);
  set_attr(g, "point_iodepths", depths);
  h5::set_attr_enum(g, "engine", h5::engine_enum_type(), c.io.engine);
  set_attr(g, "engine_detail", ctx.engine_detail);
  set_attr(g, "engines_compiled", compiled_engines());
  h5::set_attr_u64(g, "order_seed", ctx.order_seed);
  set_attr(g, "device_note", ctx.device_note);
  set_attr(g, "wire_note", ctx.wire_note);
  set_attr(g, "page_cache_probe", fsops::cache_probe_method());
  // Who writes this run: a later run marks it `interrupted` when this process is gone.
  const ProcessIdentity me = self_identity();
  set_attr(g, "writer_host", me.host);
  set_attr(g, "writer_boot_id", me.boot_id);
  set_attr(g, "writer_pid", me.pid);
  set_attr(g, "writer_start_ticks", static_cast<std::int64_t>(me.start_ticks));
}

// Runs left `running` by a writer that is gone (same host and boot, its process no longer
// there) become `interrupted`; runs of other hosts are left as they are (nothing can be told
// from here).
void mark_interrupted_runs(hid_t f) {
  hsize_t n = 0;
  std::vector<std::byte> rows = h5::read_rows(f, run_index_table(), n);
  for (hsize_t i = 0; i < n; ++i) {
    auto* r = reinterpret_cast<RunIndexRow*>(rows.data() + i * sizeof(RunIndexRow));
    if (r->status != static_cast<std::uint8_t>(RunStatus::running)) continue;
    const std::string id(r->run_id, strnlen(r->run_id, sizeof r->run_id));
    h5::Handle g(H5Gopen2(f, ("runs/" + id).c_str(), H5P_DEFAULT), H5Gclose);
    if (!g) continue;
    ProcessIdentity w;
    std::int64_t pid = 0, ticks = 0;
    if (!h5::read_attr(g.get(), "writer_host", w.host) ||
        !h5::read_attr(g.get(), "writer_boot_id", w.boot_id) ||
        !h5::read_attr(g.get(), "writer_pid", pid) ||
        !h5::read_attr(g.get(), "writer_start_ticks", ticks))
      continue;  // written before writers were recorded
    w.pid = pid;
    w.start_ticks = static_cast<std::uint64_t>(ticks);
    if (liveness_of(w) != Liveness::gone) continue;
    const std::string why = "interrupted: its writer (host " + w.host + ", pid " +
                            std::to_string(pid) +
                            ") ended without finishing the run (killed, or its node lost)";
    h5::set_attr_enum(g.get(), "status", h5::status_enum_type(),
                      static_cast<std::uint8_t>(RunStatus::interrupted));
    h5::set_attr(g.get(), "status_message", why);
    r->status = static_cast<std::uint8_t>(RunStatus::interrupted);
    h5::write_row(f, run_index_table(), i, r);
  }
}

// The run's steps (/runs/<id>/steps/<i>): each one's name, configuration, what the command line
// overrode, its first point, its engine probe and the attributes its options record, as the run
// group holds them for a run of one shape.
void write_steps(hid_t run, const RunContext& ctx) {
  h5::Handle steps = h5::check(H5Gcreate2(run, "steps", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                               H5Gclose, "steps group");
  h5::set_attr(steps.get(), "description",
               std::string("one group per step of the run, in the order they ran (a run of one "
                           "shape has one step with no name); summary.step is its index"));
  for (std::size_t i = 0; i < ctx.plan->steps.size(); ++i) {
    const StepPlan& s = ctx.plan->steps[i];
    h5::Handle g = h5::check(
        H5Gcreate2(steps.get(), std::to_string(i).c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
        H5Gclose, "step group");
    write_recorded(g.get(), s.cfg.recorded);
    h5::set_attr(g.get(), "name", s.name);
    h5::set_attr(g.get(), "config", s.toml);
    h5::set_attr(g.get(), "overrides", s.overrides);
    h5::set_attr(g.get(), "first_point",
                 static_cast<std::int64_t>(s.points.empty() ? 0 : s.points.front().index));
    h5::set_attr(g.get(), "n_points", static_cast<std::int64_t>(s.points.size()));
    h5::set_attr(g.get(), "engine_detail",
                 i < ctx.engine_details.size() ? ctx.engine_details[i] : std::string());
  }
}

// The plan table: every (step, point, repetition, phase) as decided before the run.
void write_plan(hid_t run, const RunContext& ctx) {
  std::vector<PlanRow> rows;
  for (std::size_t i = 0; i < ctx.plan->steps.size(); ++i) {
    const StepPlan& s = ctx.plan->steps[i];
    for (const PointPlan& p : s.points)
      for (std::size_t rep = 0; rep < p.reps.size(); ++rep)
        for (const PhasePlan& ph : p.reps[rep])
          rows.push_back(
              {.step = static_cast<std::uint32_t>(i),
               .point = p.index,
               .repetition = static_cast<std::uint32_t>(rep),
               .phase = ph.phase,
               .engine = s.cfg.io.engine,
               .ranks = static_cast<std::uint32_t>(p.point.ranks),
               .streams = p.point.streams(),
               .point_iodepth = ph.point_depth,
               .iodepth = ph.depth,
               .iodepth_batch = ph.batch,
               .record_bytes = ph.record_bytes,
               .buffer_bytes = ph.buffer_bytes,
               .bytes_per_rank = ph.bytes_per_rank,
               .md_items = phase_desc(ph.phase).metadata() ? ph.md.items() : 0,
               .md_folders = phase_desc(ph.phase).metadata() ? ph.md.folders() : 0,
               .md_branch = phase_desc(ph.phase).metadata() ? ph.md.layout.tree.branch : 0,
               .read_shift = ph.read_shift,
               .order_seed = ph.order_seed,
               .fsync = static_cast<std::uint8_t>(ph.fsync ? 1 : 0),
               .caches_to_drop = static_cast<std::uint8_t>(ph.caches_to_drop)});
  }
  h5::create_table(run, plan_table(), 256);
  h5::append_rows(run, plan_table(), rows.data(), rows.size());
}

}  // namespace

void Hdf5Writer::begin_run(const RunContext& ctx) {
  std::lock_guard guard(mu_);
  h5::quiet_errors();
  run_id_ = ctx.run_id;
  if (ctx.cfg != nullptr && ctx.cfg->report.output_is_default) h5::make_results_folder(path_);
  h5::FileLock lock(path_, h5::FileLock::Mode::create);
  file_ = lock.identity();
  const bool was_empty = lock.was_empty();
  try {
    begin_locked(ctx, was_empty);
  } catch (...) {
    // A file this run found empty is left empty: never a stub that later runs refuse.
    if (was_empty) lock.truncate_to_empty();
    throw;
  }
  begun_ = true;
}

void Hdf5Writer::begin_locked(const RunContext& ctx, bool was_empty) {
  h5::Handle f = h5::open_file(path_, was_empty);
  if (was_empty) {
    h5::set_attr(f.get(), "schema", std::string(kSchemaName));
    h5::set_attr(f.get(), "schema_version", static_cast<std::int64_t>(kSchemaVersion));
    h5::set_attr(f.get(), "created_utc", utc_now());
    h5::set_attr(f.get(), "created_by",
                 std::string("iosweep ") + build::kVersion + " (git " + build::kGitRevision + ")");
    h5::create_table(f.get(), run_index_table(), 16);
    h5::check(H5Gcreate2(f.get(), "runs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose, "runs");
  }
  mark_interrupted_runs(f.get());
  h5::Handle runs = h5::check(H5Gopen2(f.get(), "runs", H5P_DEFAULT), H5Gclose, "opening /runs");
  h5::Handle g =
      h5::check(H5Gcreate2(runs.get(), run_id_.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                H5Gclose, "creating run group " + run_id_);
  write_run_attributes(g.get(), ctx);
  h5::write_strings(g.get(), "hosts", ctx.topology.hosts);
  std::vector<RankMapRow> map;
  for (const auto& r : ctx.topology.ranks)
    map.push_back({r.rank, r.node, r.local_index, r.position, r.folder});
  h5::create_table(g.get(), rank_map_table(), 1024);
  h5::append_rows(g.get(), rank_map_table(), map.data(), map.size());
  h5::create_table(g.get(), summary_table(), 64);
  h5::create_table(g.get(), ranks_table(), 1024);
  h5::create_table(g.get(), nodes_table(), 256);
  h5::create_table(g.get(), timeseries_table(), 4096);
  // A node's device and wire rows carry their notes (256 bytes each): chunks of 64 rows keep the
  // first allocation of a run's tables near what it was before they did.
  h5::create_table(g.get(), device_table(), 64);
  h5::create_table(g.get(), rank_usage_table(), 1024);
  h5::create_table(g.get(), wire_table(), 64);
  h5::create_table(g.get(), mounts_table(), 64);
  h5::append_rows(g.get(), mounts_table(), ctx.mounts.data(), ctx.mounts.size());
  write_steps(g.get(), ctx);
  write_plan(g.get(), ctx);
  // Empty until the run completes with a filter-count point (finish): a reader tells a run
  // without final math from a file older than the tables.
  h5::create_table(g.get(), final_math_table(), 4);
  h5::create_table(g.get(), final_math_drives_table(), 16);
  h5::Handle lat = h5::check(H5Gcreate2(g.get(), "latency", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                             H5Gclose, "latency group");
  std::vector<std::uint64_t> lower, upper;
  for (std::size_t i = 0; i < LatencyHistogram::kBuckets; ++i) {
    lower.push_back(LatencyHistogram::bucket_lower(i));
    upper.push_back(LatencyHistogram::bucket_upper(i));
  }
  h5::write_vector_u64(lat.get(), "bucket_lower_ns", lower);
  h5::write_vector_u64(lat.get(), "bucket_upper_ns", upper);
  h5::create_matrix_u64(lat.get(), "counts", LatencyHistogram::kBuckets);
  h5::set_attr(lat.get(), "description",
               std::string("counts: one row per summary point (row i = summary point i); bucket j "
                           "holds latencies in [bucket_lower_ns[j], bucket_upper_ns[j]) ns; the "
                           "last bucket also holds everything above"));

  index_ = {};
  std::strncpy(index_.run_id, run_id_.c_str(), sizeof index_.run_id - 1);
  index_.t_start_unix_ns = ctx.t_start_unix_ns;
  index_.world_size = static_cast<std::uint32_t>(ctx.world_size);
  index_.n_nodes = static_cast<std::uint32_t>(ctx.topology.hosts.size());
  index_.status = static_cast<std::uint8_t>(RunStatus::running);
  run_index_row_ = h5::table_rows(f.get(), run_index_table().name);
  h5::append_rows(f.get(), run_index_table(), &index_, 1);
  h5::check_status(H5Fflush(f.get(), H5F_SCOPE_GLOBAL), "flushing " + path_);
}

void Hdf5Writer::append_point(const PointResult& p, const LatencyHistogram& latency) {
  std::lock_guard guard(mu_);
  if (!begun_ || ended_) return;
  const std::uint64_t t0 = now_ns();
  h5::FileLock lock(path_, h5::FileLock::Mode::append, file_);
  if (const std::uint64_t free = h5::free_bytes(path_); free < h5::kResultsReserveBytes)
    throw std::runtime_error("only " + std::to_string(free) + " bytes are free beside " + path_ +
                             " (iosweep keeps " + std::to_string(h5::kResultsReserveBytes) +
                             " free so that a full disk never breaks the file); the run stops "
                             "here, its earlier points and earlier runs are intact");
  h5::Handle f = h5::open_file(path_, false);
  h5::Handle g = h5::check(H5Gopen2(f.get(), ("runs/" + run_id_).c_str(), H5P_DEFAULT), H5Gclose,
                           "opening run " + run_id_);
  h5::append_rows(g.get(), summary_table(), &p.summary, 1);
  h5::append_rows(g.get(), ranks_table(), p.ranks.data(), p.ranks.size());
  h5::append_rows(g.get(), nodes_table(), p.nodes.data(), p.nodes.size());
  h5::append_rows(g.get(), timeseries_table(), p.series.data(), p.series.size());
  h5::append_rows(g.get(), device_table(), p.devices.data(), p.devices.size());
  h5::append_rows(g.get(), wire_table(), p.wire.data(), p.wire.size());
  h5::Handle lat = h5::check(H5Gopen2(g.get(), "latency", H5P_DEFAULT), H5Gclose, "latency");
  std::vector<std::uint64_t> counts(latency.counts().begin(), latency.counts().end());
  h5::append_matrix_u64(lat.get(), "counts", counts);
  // The engine each phase ran on, as built (the run's engine_detail was the probe's until the
  // first point; from then on it is the first phase's engine).
  if (!p.engine_detail.empty() && engines_noted_.insert(p.summary.phase).second) {
    if (engines_noted_.size() == 1) h5::set_attr(g.get(), "engine_detail", p.engine_detail);
    const std::string key = std::string("engine_detail.") + phase_desc(p.summary.phase).enum_name;
    h5::set_attr(g.get(), key.c_str(), p.engine_detail);
  }
  // The append is part of the point's overhead: its time so far goes into the row just written.
  SummaryRow s = p.summary;
  s.overhead_s += ns_to_s(now_ns() - t0);
  h5::write_row(g.get(), summary_table(), index_.n_points, &s);
  ++index_.n_points;
  h5::write_row(f.get(), run_index_table(), run_index_row_, &index_);
  h5::check_status(H5Fflush(f.get(), H5F_SCOPE_GLOBAL), "flushing " + path_);
}

void Hdf5Writer::finish(RunStatus status, const std::string& message) {
  if (!begun_ || ended_) return;
  ended_ = true;
  h5::FileLock lock(path_, h5::FileLock::Mode::append, file_);
  h5::Handle f = h5::open_file(path_, false);
  h5::Handle g = h5::check(H5Gopen2(f.get(), ("runs/" + run_id_).c_str(), H5P_DEFAULT), H5Gclose,
                           "opening run " + run_id_);
  if (status == RunStatus::complete && final_math_) {
    h5::append_rows(g.get(), final_math_table(), &final_math_->row, 1);
    h5::append_rows(g.get(), final_math_drives_table(), final_math_->drives.data(),
                    final_math_->drives.size());
  }
  const std::uint64_t t_end = unix_now_ns();
  h5::set_attr_u64(g.get(), "t_end_unix_ns", t_end);
  h5::set_attr_enum(g.get(), "status", h5::status_enum_type(), static_cast<std::uint8_t>(status));
  h5::set_attr(g.get(), "status_message", message);
  index_.t_end_unix_ns = t_end;
  index_.status = static_cast<std::uint8_t>(status);
  h5::write_row(f.get(), run_index_table(), run_index_row_, &index_);
  h5::check_status(H5Fflush(f.get(), H5F_SCOPE_GLOBAL), "flushing " + path_);
}

void Hdf5Writer::append_usage(const std::vector<RankUsageRow>& rows) {
  std::lock_guard guard(mu_);
  if (!begun_ || ended_) return;
  h5::FileLock lock(path_, h5::FileLock::Mode::append, file_);
  h5::Handle f = h5::open_file(path_, false);
  h5::Handle g = h5::check(H5Gopen2(f.get(), ("runs/" + run_id_).c_str(), H5P_DEFAULT), H5Gclose,
                           "opening run " + run_id_);
  h5::append_rows(g.get(), rank_usage_table(), rows.data(), rows.size());
  h5::check_status(H5Fflush(f.get(), H5F_SCOPE_GLOBAL), "flushing " + path_);
}

void Hdf5Writer::append_final_math(const FinalMath& fm) {
  std::lock_guard guard(mu_);
  final_math_ = fm;
}

void Hdf5Writer::end_run(RunStatus status, const std::string& message) {
  std::lock_guard guard(mu_);
  finish(status, message);
}

bool Hdf5Writer::abort_from_signal(const std::string& message) {
  std::lock_guard guard(mu_);
  if (!begun_ || ended_) return false;
  finish(RunStatus::aborted, message);
  return true;
}

}  // namespace iosweep
