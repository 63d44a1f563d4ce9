// Console table (see console_writer.hpp; README.md explains every column).
#include "output/console_writer.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "core/errors.hpp"
#include "core/units.hpp"
#include "model/engine_desc.hpp"
#include "model/md_plan.hpp"
#include "model/phase_desc.hpp"
#include "os/file_ops.hpp"
#include "output/notes.hpp"

namespace iosweep {
namespace {

double mib(double bps) {
  return bps / kBytesPerMiB;
}

// "2,1" when the first k positions sit unequally on the nodes they use; empty when equal.
std::string unequal_per_node(const Topology& topo, int k) {
  std::map<int, int> per;
  for (int p = 0; p < k && p < static_cast<int>(topo.order.size()); ++p)
    ++per[topo.node_at(p)];
  std::string s;
  bool unequal = false;
  for (const auto& [node, n] : per) {
    unequal = unequal || n != per.begin()->second;
    s += (s.empty() ? "" : ",") + std::to_string(n);
  }
  return unequal ? s : std::string();
}

// A row's headline: operations per second for metadata and random phases, else MiB/s.
bool ops_headline(const PhaseDesc& d) {
  return d.metadata() || d.random();
}

}  // namespace

void ConsoleWriter::flush() {
  const bool failed = std::fflush(out_) != 0;
  if (failed && errno == EPIPE && reader_gone_) std::exchange(reader_gone_, nullptr)();
}

// The file system under each folder of --dir and what can tell where the bytes came from: one
// line per folder when every node agrees, a line per node when they differ.
void ConsoleWriter::print_storage(const RunContext& ctx) {
  const auto& dirs = ctx.dirs;
  std::set<std::string> wires;
  for (std::size_t f = 0; f < dirs.size(); ++f) {
    std::set<std::string> kinds;
    std::vector<const MountRow*> rows;
    for (const auto& m : ctx.mounts)
      if (m.folder == static_cast<std::int32_t>(f)) {
        kinds.insert(std::string(m.fs_type) + " " + m.source + " at " + m.mount_point);
        rows.push_back(&m);
        wires.insert("node " + std::to_string(m.node) + " " + printable(m.wire));
      }
    const std::string of = dirs.size() > 1 ? " of " + printable(dirs[f]) : "";
    for (const MountRow* m : rows) {
      if (kinds.size() <= 1 && m != rows.front()) break;
      std::fprintf(
          out_, "  file system%s%s: %s %s at %s%s\n", of.c_str(),
          kinds.size() > 1
              ? ((of.empty() ? " of node " : " on node ") + std::to_string(m->node)).c_str()
              : "",
          printable(m->fs_type).c_str(), printable(m->source).c_str(),
          printable(m->mount_point).c_str(),
          rows.size() > 1 && kinds.size() == 1 ? " (every node)" : "");
    }
  }
  std::fprintf(out_, "  device counters: %s\n",
               ctx.device_note.empty() ? "measured around every phase"
                                       : ("not measured: " + printable(ctx.device_note)).c_str());
  print_links(ctx);
  print_wire(ctx, wires);
}

// Every drive's link once: an NVMe drive's PCIe link, or why the drive's limit is unknown.
void ConsoleWriter::print_links(const RunContext& ctx) {
  std::map<int, const RunDrive*> by_drive;
  for (const auto& d : ctx.drives)
    by_drive.emplace(d.drive, &d);
  for (const auto& [id, d] : by_drive)
    std::fprintf(out_, "  drive %d (%s) link%s: %s\n", id, printable(d->device).c_str(),
                 std::isnan(d->link_Bps) ? " unknown" : "", printable(d->link).c_str());
}

// The storage interfaces: one line, the nodes' own when they differ.
void ConsoleWriter::print_wire(const RunContext& ctx, const std::set<std::string>& by_node) {
  std::set<std::string> wires;
  for (const auto& m : ctx.mounts)
    wires.insert(m.wire);
  std::string wire;
  if (!ctx.wire_note.empty()) {
    wire = "not measured: " + printable(ctx.wire_note);
  } else if (wires.size() == 1) {
    std::set<int> nodes;
    for (const auto& m : ctx.mounts)
      nodes.insert(m.node);
    wire = printable(*wires.begin()) + (nodes.size() > 1 ? " on every node" : "") +
           ", around every phase";
  } else {
    for (const auto& w : by_node)
      wire += (wire.empty() ? "" : ", ") + w;
    wire += ", around every phase";
  }
  std::fprintf(out_, "  wire counters: %s\n", wire.c_str());
}

// Which ranks run on which node and, with several folders, which of them use which folder
// there (and the drive under it).
void ConsoleWriter::print_placement(const RunContext& ctx) {
  const auto& dirs = ctx.dirs;
  std::fprintf(out_, "placement (%s%s):\n",
               ctx.cfg->sweep.placement == Placement::spread ? "spread" : "block",
               dirs.size() > 1 ? "; a node's ranks take the folders round-robin" : "");
  std::map<int, std::vector<int>> by_node;
  std::map<std::pair<int, int>, std::string> by_folder;
  for (const auto& r : ctx.topology.ranks) {
    by_node[r.node].push_back(r.rank);
    auto& list = by_folder[{r.node, r.folder}];
    list += (list.empty() ? "" : ",") + std::to_string(r.rank);
  }
  for (const auto& [node, ranks] : by_node) {
    std::string list;
    for (int r : ranks)
      list += (list.empty() ? "" : ",") + std::to_string(r);
    std::fprintf(out_, "  node %d %-20s ranks %s\n", node,
                 ctx.topology.hosts[static_cast<std::size_t>(node)].c_str(), list.c_str());
    for (std::size_t f = 0; f < dirs.size() && dirs.size() > 1; ++f) {
      std::string drive;
      for (const auto& d : ctx.drives)
        if (d.node == node && ((d.folders >> f) & 1u))
          drive = " (" + printable(d.device) + ", drive " + std::to_string(d.drive) + ")";
      const auto it = by_folder.find({node, static_cast<int>(f)});
      std::fprintf(out_, "    %s%s: ranks %s\n", printable(dirs[f]).c_str(), drive.c_str(),
                   it == by_folder.end() ? "none" : it->second.c_str());
    }
  }
}

// What a step runs: its engine, sizes, records, cache and fsync policy, layout, metadata and
// what the command line overrode (the run's only step, or each step of a run of several).
void ConsoleWriter::print_step(const StepPlan& step, const std::string& engine_detail) {
  const Config& cfg = step.cfg;
  const Workload& w = cfg.work;
  const std::string where = w.dirs.size() == 1
                                ? printable(w.dirs.front()) + " (" + ctx_.fs_type() + ")"
                                : std::to_string(w.dirs.size()) + " folders";
  const bool data = std::any_of(w.phases.begin(), w.phases.end(),
                                [](PhaseId id) { return !phase_desc(id).metadata(); });
  // What each rank works on: its file (data phases), else the metadata phases' items (the
  // metadata line below says how many).
  const std::string work = data ? format_size(w.file_size) + " per rank" : "metadata phases";
  std::fprintf(out_, "  %d ranks on %zu node(s); engine %s (%s)%s; %s in %s\n", ctx_.world_size,
               ctx_.topology.hosts.size(), engine_desc(cfg.io.engine).name, engine_detail.c_str(),
               cfg.io.direct ? ", O_DIRECT" : "", work.c_str(), where.c_str());
  if (data) print_records(cfg);
  if (w.shared())
    std::fprintf(out_, "  file layout: one file the active ranks share (%s)%s\n",
                 w.shared_pattern == SharedPattern::segmented ? "segmented" : "strided",
                 cfg.io.collective
                     ? "; collective MPI-IO: every request is one collective call, and aggregator "
                       "ranks read and write for all of them, shipping the bytes over MPI"
                     : "");
  for (PhaseId id : w.phases)
    if (phase_desc(id).metadata()) {
      std::fprintf(out_, "  metadata: %s\n", describe_md(w.md).c_str());
      if (!data)
        std::fprintf(out_, "  cache: %s\n",
                     w.cache == CacheMode::drop ? "dropped before md-stat and md-read" : "kept");
      break;
    }
  if (!cfg.sweep.streams.empty())
    std::fprintf(out_,
                 "  streams: each point runs ranks x depth of them; random phases keep depth "
                 "requests in flight, sequential phases stream depth regions of each file side by "
                 "side\n");
  if (!step.overrides.empty()) std::fprintf(out_, "  %s\n", printable(step.overrides).c_str());
}

void ConsoleWriter::begin_run(const RunContext& ctx) {
  ctx_ = ctx;
  const Config& cfg = *ctx.cfg;
  std::fprintf(out_, "iosweep run %s%s%s\n", ctx.run_id.c_str(),
               cfg.report.label.empty() ? "" : "  label: ", printable(cfg.report.label).c_str());
  if (!cfg.preset_file.empty())
    std::fprintf(out_, "  preset: %s\n", printable(cfg.preset_file).c_str());
  const std::vector<StepPlan>& steps = ctx.plan->steps;
  if (steps.size() == 1 && steps.front().name.empty())
    print_step(steps.front(), ctx.engine_detail);
  else
    std::fprintf(out_, "  %d ranks on %zu node(s); %zu steps, each printed as it begins\n",
                 ctx.world_size, ctx.topology.hosts.size(), steps.size());
  print_storage(ctx);
  print_placement(ctx);
  print_unequal(ctx);
  flush();
}

void ConsoleWriter::begin_step(const StepPlan& step, std::uint32_t index) {
  step_ = &step;
  step_index_ = index;
  last_kind_ = -1;
  if (step.name.empty()) return;
  std::fprintf(out_, "step %u of %zu: %s\n", index + 1, ctx_.plan->steps.size(),
               printable(step.name).c_str());
  print_step(step, index < ctx_.engine_details.size() ? ctx_.engine_details[index] : "");
  flush();
}

// The data phases' records, cache, fsync and filter kernel.
void ConsoleWriter::print_records(const Config& cfg) {
  const Workload& w = cfg.work;
  const std::string fsync = phase_list(w.fsync_phases);
  std::fprintf(out_, "  records: seq %s, rand %s, scan %s; cache %s; fsync %s; filter kernel %s\n",
               format_size(w.seq_record).c_str(), format_size(w.rand_record).c_str(),
               format_size(w.scan_record).c_str(),
               cfg.io.direct ? "bypassed (O_DIRECT)"
                             : (w.cache == CacheMode::drop ? "dropped before reads" : "kept"),
               fsync.empty() ? "off" : fsync.c_str(),
               filter_kernel_name(resolve_filter_kernel(w.filter_kernel)));
}

// IOR issue 40: a point whose active ranks sit unequally on its nodes reads as poor scaling
// unless it says so.
void ConsoleWriter::print_unequal(const RunContext& ctx) {
  std::string list;
  std::set<int> seen;
  for (const StepPlan& step : ctx.plan->steps)
    for (const PointPlan& pt : step.points)
      if (const std::string u = unequal_per_node(ctx.topology, pt.point.ranks);
          !u.empty() && seen.insert(pt.point.ranks).second)
        list += (list.empty() ? "" : ", ") + std::to_string(pt.point.ranks) + " ranks (" + u + ")";
  if (!list.empty())
    std::fprintf(out_, "  unequal active ranks per node at: %s; those rows say ranks/node\n",
                 list.c_str());
}

bool ConsoleWriter::by_streams() const {
  return step_ != nullptr && !step_->cfg.sweep.streams.empty();
}

void ConsoleWriter::print_header(bool metadata) {
  if (metadata)
    std::fprintf(out_,
                 "metadata phases: ops/s = every rank's operations / the slowest rank's window "
                 "(mdtest's and IO500's rate); rank_min/mean/max in ops/s\n");
  std::fprintf(out_, "%-12s ", "phase");
  if (by_streams()) std::fprintf(out_, "%7s ", "streams");
  if (metadata)
    std::fprintf(out_, "%5s %5s %3s %9s %10s %10s %10s %9s %9s %9s %9s %9s  %s\n", "ranks", "nodes",
                 "rep", "wall_s", "ops/s", "ops", "MiB/s", "rank_min", "rank_mean", "rank_max",
                 "p50_us", "p99_us", "notes");
  else
    std::fprintf(out_, "%5s %5s %3s %9s %10s %10s %10s %9s %9s %9s %9s %9s  %s\n", "ranks", "nodes",
                 "rep", "wall_s", "MiB/s", "IOPS", "child_MiB/s", "rank_min", "rank_mean",
                 "rank_max", "p50_us", "p99_us", "notes");
}

void ConsoleWriter::print_row(const PointResult& p, const std::string& notes) {
  const SummaryRow& s = p.summary;
  const PhaseDesc& phase = phase_desc(s.phase);
  std::fprintf(out_, "%-12s ", phase.name);
  if (by_streams()) std::fprintf(out_, "%7u ", s.streams);
  if (phase.metadata())
    std::fprintf(out_, "%5u %5u %3u %9.3f %10.0f %10llu %10.1f %9.0f %9.0f %9.0f %9.1f %9.1f  %s\n",
                 s.ranks, s.nodes, s.repetition, s.wall_s, s.iops,
                 static_cast<unsigned long long>(s.ops), mib(s.bandwidth_Bps), s.rank_iops_min,
                 s.rank_iops_mean, s.rank_iops_max, s.lat_p50_ns / 1e3, s.lat_p99_ns / 1e3,
                 notes.c_str());
  else
    std::fprintf(out_, "%5u %5u %3u %9.3f %10.1f %10.0f %10.1f %9.1f %9.1f %9.1f %9.1f %9.1f  %s\n",
                 s.ranks, s.nodes, s.repetition, s.wall_s, mib(s.bandwidth_Bps), s.iops,
                 mib(s.children_Bps), mib(s.rank_bw_min_Bps), mib(s.rank_bw_mean_Bps),
                 mib(s.rank_bw_max_Bps), s.lat_p50_ns / 1e3, s.lat_p99_ns / 1e3, notes.c_str());
}

void ConsoleWriter::append_point(const PointResult& p, const LatencyHistogram&) {
  const SummaryRow& s = p.summary;
  const PhaseDesc& phase = phase_desc(s.phase);
  if (phase.control() && !ctx_.cfg->report.show_controls) return;
  const int kind = phase.metadata() ? 1 : 0;
  if (kind != last_kind_) print_header(kind == 1);
  last_kind_ = kind;
  headlines_[{s.step, s.phase}][by_streams() ? s.streams : s.ranks].push_back(
      {ops_headline(phase) ? s.iops : mib(s.bandwidth_Bps), cache_verdict(s)});
  std::string notes = row_notes(p);
  if (const std::string u = unequal_per_node(ctx_.topology, static_cast<int>(s.ranks)); !u.empty())
    notes += (notes.empty() ? "" : "; ") + ("ranks/node " + u);
  print_row(p, notes);
  flush();
}

namespace {

// The notes column: one verdict when peak and sustained are one point, else each named.
std::string peak_notes(std::uint64_t peak_at, const std::string& peak, std::uint64_t last_at,
                       const std::string& last) {
  if (peak_at == last_at) return peak;
  std::string n = peak.empty() ? "" : "peak: " + peak;
  if (!last.empty()) n += (n.empty() ? "" : "; ") + ("sustained: " + last);
  return n;
}

}  // namespace

// Per phase, as the PixStor study presents its series: the best point (peak) and the point of
// the most ranks or streams (sustained), each the mean of its repetitions, with the cache
// verdict of the rows it is made of (a page-cache rate is never shown as the storage's).
void ConsoleWriter::print_peaks() {
  if (headlines_.empty()) return;
  const char* axis = by_streams() ? "streams" : "ranks";
  std::fprintf(out_,
               "Peak & Sustained (peak: the best point; sustained: the largest point; the mean "
               "of its repetitions; notes: where its rows' bytes came from, when not the "
               "storage)\n");
  std::fprintf(out_, "  %-14s %-6s %10s %8s %10s %8s  %s\n", "phase", "unit", "peak", axis,
               "sustained", axis, "notes");
  std::uint32_t step = 0;
  for (auto it = headlines_.begin(); it != headlines_.end(); ++it) {
    const auto [at_step, phase] = it->first;
    const PhaseDesc& d = phase_desc(phase);
    if (const std::string& name = ctx_.plan->steps[at_step].name;
        !name.empty() && (it == headlines_.begin() || at_step != step))
      std::fprintf(out_, "  step %s\n", printable(name).c_str());
    step = at_step;
    double peak = -1, last = 0;
    std::uint64_t peak_at = 0, last_at = 0;
    std::string peak_verdict, last_verdict;
    for (const auto& [at, rows] : it->second) {
      double sum = 0;
      std::vector<std::string> verdicts;
      for (const Headline& h : rows) {
        sum += h.value;
        verdicts.push_back(h.verdict);
      }
      const double mean = sum / static_cast<double>(rows.size());
      if (mean > peak) peak = mean, peak_at = at, peak_verdict = merged_verdict(verdicts);
      last = mean, last_at = at, last_verdict = merged_verdict(verdicts);
    }
    const bool ops = ops_headline(d);
    auto figure = [&](double v) {
      char b[32];
      std::snprintf(b, sizeof b, "%.1f", v);
      return ops ? format_compact(v) : std::string(b);
    };
    const std::string notes = peak_notes(peak_at, peak_verdict, last_at, last_verdict);
    std::fprintf(out_, "  %-14s %-6s %10s %8llu %10s %8llu%s%s\n", d.name, ops ? "ops/s" : "MiB/s",
                 figure(peak).c_str(), static_cast<unsigned long long>(peak_at),
                 figure(last).c_str(), static_cast<unsigned long long>(last_at),
                 notes.empty() ? "" : "  ", notes.c_str());
  }
}

// Where the run went and what it left, as the last lines: the results file in full (a
// relative --output lands in the working folder), and the data files a keep left (a preset's
// `keep = true` as much as --keep).
void ConsoleWriter::print_left() {
  const Config& cfg = *ctx_.cfg;
  const Workload& w = cfg.work;
  std::fprintf(out_, "results: run %s appended to %s\n", ctx_.run_id.c_str(),
               printable(fsops::absolute_path(cfg.report.output)).c_str());
  bool data = false;  // any step with a phase that makes data files
  for (const StepPlan& step : ctx_.plan->steps)
    for (PhaseId p : step.cfg.work.phases)
      data = data || !phase_desc(p).metadata();
  if (!data || (!w.keep && w.reuse_run.empty())) return;
  std::string dirs;  // every step's folders (keep and --reuse are the whole run's)
  for (const auto& d : ctx_.dirs.empty() ? w.dirs : ctx_.dirs)
    dirs += (dirs.empty() ? "" : ", ") + printable(fsops::absolute_path(d));
  const std::string files = "iosweep." + (w.reuse_run.empty() ? ctx_.run_id : w.reuse_run) + "." +
                            (w.shared() ? "shared" : "<position>");
  const char* nodes = ctx_.topology.hosts.size() > 1 ? " on every node" : "";
  if (!w.reuse_run.empty()) {
    std::fprintf(out_, "kept: the files of run %s it reused (--reuse), %s in %s%s\n",
                 w.reuse_run.c_str(), files.c_str(), dirs.c_str(), nodes);
    return;
  }
  std::string why = cfg.report.keep_from;
  if (why.ends_with("--config") && !cfg.preset_file.empty())
    why += " " + printable(cfg.preset_file);
  std::fprintf(out_,
               "kept (%s): this run's data files, %s in %s%s; read them again with --reuse %s, "
               "or remove them\n",
               why.c_str(), files.c_str(), dirs.c_str(), nodes, ctx_.run_id.c_str());
}

void ConsoleWriter::end_run(RunStatus status, const std::string& message) {
  if (status == RunStatus::complete) {
    print_peaks();
    print_final_math();
  }
  if (status == RunStatus::aborted)
    std::fprintf(out_, "run %s aborted: %s\n", ctx_.run_id.c_str(), message.c_str());
  if (ctx_.cfg != nullptr && ctx_.plan != nullptr) print_left();
  flush();
}

}  // namespace iosweep
