// The configuration from the option values, and the checks that relate options (see
// config_build.hpp).
#include "app/config_build.hpp"

#include "app/option_table.hpp"
#include "core/units.hpp"
#include "engines/engine_table.hpp"
#include "model/limits.hpp"

namespace iosweep {
namespace {

// Each check that relates several options: its refusal names the options involved.
struct Relation {
  const char* what;
  void (*check)(const Config& c);
};

void refuse(const std::string& why) {
  throw UsageError(why);
}

void one_way_to_choose_points(const Config& c) {
  const SweepSpec& sw = c.sweep;
  const bool sweep_given = sw.sweep_max != 0;
  if (!sw.ranks.empty() && sweep_given) refuse("--ranks and --sweep: give one or the other");
  if (sw.streams.empty()) return;
  for (const auto& [given, name] :
       {std::pair{!sw.ranks.empty(), "--ranks"}, std::pair{sweep_given, "--sweep"}})
    if (given)
      refuse(std::string("--streams and ") + name +
             ": give one or the other; --streams chooses each point's active ranks");
}

void depth_from_one_place(const Config& c) {
  const EngineOptions& io = c.io;
  if (!c.sweep.streams.empty()) {
    // --streams sets each point's depth; the batch is capped by it point by point.
    if (io.iodepth != 1)
      refuse(
          "--streams and --iodepth: give one or the other; --streams sets each point's depth "
          "(its streams / its active ranks)");
    const EngineDesc& e = engine_desc(io.engine);
    if (!(e.takes & kTakesDepth))
      refuse("--streams: the " + std::string(e.name) +
             " engine keeps one request in flight; use --engine " + engines_taking(kTakesDepth));
  } else if (io.iodepth_batch > io.iodepth) {
    refuse("--iodepth-batch: " + std::to_string(io.iodepth_batch) + " is more than --iodepth " +
           std::to_string(io.iodepth));
  }
}

// Collective calls must be made by every rank in the same order, one at a time: nothing can be
// in flight beside them, every rank must make as many, and none may wait on another's send.
void collective_calls_need_lockstep(const Config& c) {
  if (!c.io.collective) return;
  if (!c.work.shared())
    refuse(
        "--mpiio-collective: collective calls need a file the ranks share; add --file-layout "
        "shared");
  if (c.io.iodepth > 1)
    refuse(
        "--mpiio-collective: every request is one blocking collective call, so nothing else is "
        "in flight beside it; leave --iodepth at 1");
  if (!c.sweep.streams.empty())
    refuse(
        "--mpiio-collective: every request is one blocking collective call, one stream per "
        "rank; sweep ranks (--sweep, --ranks) instead of --streams");
  if (c.work.stonewall_s > 0)
    refuse(
        "--mpiio-collective: every rank must make the same number of collective calls, which "
        "--stonewall cannot promise; leave one of them out");
  for (auto id : c.work.phases)
    if (phase_desc(id).ships())
      refuse(std::string("--mpiio-collective: ") + phase_desc(id).name +
             " sends records while it reads, which collective reads would stall; leave it out of "
             "--phases");
}

void strided_blocks_hold_whole_records(const Config& c) {
  const Workload& w = c.work;
  if (w.shared_pattern != SharedPattern::strided) return;
  // A pattern that would change nothing is refused rather than ignored.
  if (!w.shared()) refuse("--shared-pattern: arranges one shared file; add --file-layout shared");
  for (auto id : w.phases) {
    if (phase_desc(id).record == RecordKind::none) continue;  // no records (metadata)
    const std::uint64_t rec = w.record_bytes(phase_desc(id).record);
    if (rec > w.seq_record || w.seq_record % rec != 0)
      refuse(std::string("--shared-pattern: strided blocks are --seq-record (") +
             format_size(w.seq_record) + "); " + phase_desc(id).name + "'s records of " +
             format_size(rec) + " must divide them");
  }
}

// One shared file lives in one folder: a list of folders would say that its ranks' bytes go
// to several drives, which they do not.
void shared_file_in_one_folder(const Config& c) {
  if (c.work.shared() && c.work.dirs.size() > 1)
    refuse("--dir: --file-layout shared makes one file in one folder; give one folder, not " +
           std::to_string(c.work.dirs.size()));
}

void reused_files_are_not_remade(const Config& c) {
  if (c.work.reuse_run.empty()) return;
  for (auto id : c.work.phases)
    if (phase_desc(id).creates())
      refuse(std::string("--reuse: ") + phase_desc(id).name +
             " makes new files; the kept files of another run are only read or rewritten in "
             "place, so leave " +
             phase_desc(id).name + " out of --phases");
}

void one_way_to_count_items(const Config& c) {
  if (c.work.md.items != 0 && c.work.md.items_total != 0)
    refuse(
        "--md-items and --md-items-total: give one or the other; --md-items-total divides its "
        "items over each point's ranks");
}

void wearout_needs_a_stonewall(const Config& c) {
  if (c.work.stonewall_wearout && c.work.stonewall_s <= 0)
    refuse("--stonewall-wearout: needs --stonewall SECONDS");
}

// The engine's own rules: options it does not take, and its row's further checks.
void engine_takes_its_options(const Config& c) {
  if (auto why = check_engine_options(c.work, c.io); !why.empty()) refuse(why);
}

const Relation kRelations[] = {
    {.what = "points", .check = &one_way_to_choose_points},
    {.what = "depth", .check = &depth_from_one_place},
    {.what = "collective", .check = &collective_calls_need_lockstep},
    {.what = "strided", .check = &strided_blocks_hold_whole_records},
    {.what = "shared folder", .check = &shared_file_in_one_folder},
    {.what = "reuse", .check = &reused_files_are_not_remade},
    {.what = "wearout", .check = &wearout_needs_a_stonewall},
    {.what = "md-items", .check = &one_way_to_count_items},
    {.what = "engine", .check = &engine_takes_its_options},
};

// What follows from several values once each is converted.
void settle_derived(Config& c) {
  // --scan-record auto: a record still in L2 when it is counted; with --direct the data
  // arrives by DMA, not through any cache, and only the request size matters to the device, so
  // the scan reads in --seq-record units as seq-read does.
  // A file or strided block that 1 MiB does not divide (one of 47008-byte records, IOR's
  // ior-hard) is scanned in --seq-record records, which do.
  if (c.work.scan_record == 0) {
    const Workload& w = c.work;
    const bool strided = w.shared() && w.shared_pattern == SharedPattern::strided;
    const std::uint64_t cached = kCachedScanRecordBytes;
    const bool fits = w.file_size % cached == 0 && (!strided || w.seq_record % cached == 0);
    c.work.scan_record = c.io.direct || !fits ? w.seq_record : cached;
  }
  // Neither --md-items nor --md-items-total: the default number of items per rank.
  if (c.work.md.items == 0 && c.work.md.items_total == 0) c.work.md.items = kDefaultMdItems;
}

}  // namespace

Config build_config(const OptionValues& values) {
  Config c;
  const auto table = option_table();
  for (std::size_t i = 0; i < table.size(); ++i)
    table[i].set(values[i], c);
  settle_derived(c);
  for (const Relation& r : kRelations)
    r.check(c);
  return c;
}

}  // namespace iosweep
