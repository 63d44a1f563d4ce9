// Option conversion and option-only checks (see config_build.hpp).
#include "app/config_build.hpp"

#include <cctype>
#include <initializer_list>
#include <limits>
#include <utility>

#include "core/errors.hpp"
#include "core/units.hpp"
#include "engines/registry.hpp"
#include "phases/phase_table.hpp"

namespace iosweep {
namespace {

std::uint64_t size_opt(const char* opt, const std::string& v) {
  std::uint64_t out = 0;
  if (auto why = parse_size(v, out); !why.empty()) throw UsageError(std::string(opt) + ": " + why);
  if (out == 0) throw UsageError(std::string(opt) + ": must be larger than zero");
  return out;
}

std::uint64_t count_opt(const char* opt, const std::string& v, std::uint64_t min,
                        std::uint64_t max) {
  std::uint64_t out = 0;
  if (auto why = parse_count(v, out); !why.empty()) throw UsageError(std::string(opt) + ": " + why);
  if (out < min) throw UsageError(std::string(opt) + ": must be at least " + std::to_string(min));
  if (out > max) throw UsageError(std::string(opt) + ": must be at most " + std::to_string(max));
  return out;
}

std::uint64_t u64_opt(const char* opt, const std::string& v) {
  try {
    std::size_t used = 0;
    if (v.empty() || v[0] == '-' || std::isspace(static_cast<unsigned char>(v[0])))
      throw std::invalid_argument("not a plain number");
    const unsigned long long x = std::stoull(v, &used, 0);
    if (used != v.size()) throw std::invalid_argument("trailing");
    return x;
  } catch (const std::exception&) {
    throw UsageError(std::string(opt) + ": '" + printable(v) +
                     "' is not an unsigned 64-bit number (decimal or 0x hex)");
  }
}

// A list: entries separated by single commas, no white space, no empty entry ("1,2,4"); a
// preset's TOML array arrives as several values, each split the same way.
std::vector<std::string> split_list(const char* opt, const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const auto& v : values) {
    for (const char c : v)
      if (std::isspace(static_cast<unsigned char>(c)))
        throw UsageError(std::string(opt) + ": '" + printable(v) +
                         "' contains white space; write lists without spaces, e.g. 1,2,4");
    std::size_t at = 0;
    for (;;) {
      const std::size_t comma = v.find(',', at);
      const std::string entry = v.substr(at, comma == std::string::npos ? comma : comma - at);
      if (entry.empty())
        throw UsageError(std::string(opt) + ": '" + printable(v) +
                         "' has an empty entry; separate entries by single commas, e.g. 1,2,4");
      out.push_back(entry);
      if (comma == std::string::npos) break;
      at = comma + 1;
    }
  }
  return out;
}

std::string writing_phases() {
  std::string s;
  for (const auto& row : phase_table())
    if (row.desc.writes()) s += (s.empty() ? "" : ", ") + std::string(row.desc.name);
  return s;
}

// Durations become nanoseconds on a 64-bit monotonic clock and are added to its readings: one
// that does not fit with room to spare (2^62 ns, about 146 years) is refused.
void within_clock(const char* opt, const std::string& text, double seconds) {
  constexpr double kMaxSeconds = 4611686018.427387904;  // 2^62 ns
  if (!(seconds <= kMaxSeconds))
    throw UsageError(std::string(opt) + ": '" + printable(text) +
                     "' is more than iosweep's nanosecond clock can count (at most about 146 "
                     "years)");
}

// One of a fixed set of words: "--cache: 'maybe' is not drop or keep".
template <class T>
T choice(const char* opt, const std::string& v,
         std::initializer_list<std::pair<const char*, T>> c) {
  std::string names;
  for (const auto& [name, value] : c) {
    if (v == name) return value;
    names += (names.empty() ? "" : " or ") + std::string(name);
  }
  throw UsageError(std::string(opt) + ": '" + v + "' is not " + names);
}

// --fsync: nothing given, "false" or "none": no phase; alone, "true" or "all": every writing
// phase; else a list of writing phases.
std::vector<PhaseId> fsync_phases(const std::string& v) {
  std::vector<PhaseId> out;
  if (v.empty() || v == "false" || v == "none") return out;
  const bool all = v == "all" || v == "true";
  std::string names = all ? std::string() : v + ",";
  for (const auto& row : phase_table())
    if (all && row.desc.writes()) out.push_back(row.desc.id);
  for (std::size_t at = 0; !all && at < names.size();) {
    const std::size_t comma = names.find(',', at);
    const std::string name = names.substr(at, comma - at);
    at = comma + 1;
    const PhaseRow* row = find_phase(name);
    if (row == nullptr)
      throw UsageError("--fsync: '" + name + "' is not a phase; give writing phases (" +
                       writing_phases() + "), all, or none");
    if (!row->desc.writes())
      throw UsageError("--fsync: " + name + " does not write; give writing phases (" +
                       writing_phases() + "), all, or none");
    out.push_back(row->desc.id);
  }
  return out;
}

// --streams: a list strictly increasing ("1,64,1024"), or MIN:MAX expanded as --sweep expands
// (MIN, the powers of two above it, MAX); values as every list takes them.
std::vector<std::uint64_t> streams_list(const std::string& v) {
  constexpr std::uint64_t kMax = 1ull << 32;  // stored as 32-bit counts
  const std::vector<std::string> entries = split_list("--streams", {v});
  std::vector<std::uint64_t> out;
  if (entries.size() == 1 && entries[0].find(':') != std::string::npos) {
    const std::string& e = entries[0];
    const auto colon = e.find(':');
    const std::uint64_t lo = count_opt("--streams", e.substr(0, colon), 1, kMax - 1);
    const std::uint64_t hi = count_opt("--streams", e.substr(colon + 1), 1, kMax - 1);
    if (hi < lo)
      throw UsageError("--streams: MAX " + std::to_string(hi) + " is below MIN " +
                       std::to_string(lo));
    out.push_back(lo);
    std::uint64_t p = 1;
    while (p <= lo)
      p *= 2;
    for (; p <= hi; p *= 2)
      out.push_back(p);
    if (out.back() != hi) out.push_back(hi);
    return out;
  }
  for (const auto& e : entries) {
    if (e.find(':') != std::string::npos)
      throw UsageError("--streams: '" + printable(v) +
                       "' is neither a list (1,64,1024) nor MIN:MAX (1:1024)");
    const std::uint64_t s = count_opt("--streams", e, 1, kMax - 1);
    if (!out.empty() && s <= out.back())
      throw UsageError("--streams: counts must be strictly increasing (" + std::to_string(s) +
                       " after " + std::to_string(out.back()) + ")");
    out.push_back(s);
  }
  return out;
}

}  // namespace

Config build_config(const RawOptions& r) {
  Config c;
  Workload& w = c.work;
  if (r.dir.empty())
    throw UsageError("--dir: required; the folder where each rank writes its file");
  w.dir = r.dir;
  while (w.dir.size() > 1 && w.dir.back() == '/')
    w.dir.pop_back();
  w.file_size = size_opt("--file-size", r.file_size);
  w.seq_record = size_opt("--seq-record", r.seq_record);
  w.rand_record = size_opt("--rand-record", r.rand_record);
  // auto: 1 MiB, a record that is still in the L2 cache when it is counted; with --direct the
  // data arrives by DMA, not through any cache, and only the request size matters to the
  // device, so the scan reads in --seq-record units as seq-read does.
  w.scan_record = r.scan_record == "auto" ? 0 : size_opt("--scan-record", r.scan_record);

  std::vector<bool> want(256, false);
  if (r.phases.empty())  // the default: every phase but the opt-in ones (ship-count)
    for (const auto& row : phase_table())
      want[row.desc.id] = !row.desc.opt_in();
  for (const auto& p : split_list("--phases", r.phases)) {
    if (p.empty()) throw UsageError("--phases: empty phase name");
    const PhaseRow* row = find_phase(p);
    if (row == nullptr)
      throw UsageError("--phases: unknown phase '" + p + "'; choose from " + phase_names());
    want[row->desc.id] = true;
  }
  // A control phase runs whenever the phase it is the baseline of runs.
  for (const auto& row : phase_table())
    if (row.desc.control_for != nullptr) {
      const PhaseRow* subject = find_phase(row.desc.control_for);
      if (subject != nullptr && want[subject->desc.id]) want[row.desc.id] = true;
    }
  for (const auto& row : phase_table())
    if (want[row.desc.id]) w.phases.push_back(row.desc.id);
  w.layout =
      choice<FileLayout>("--file-layout", r.file_layout,
                         {{"per-rank", FileLayout::per_rank}, {"shared", FileLayout::shared}});
  w.shared_pattern = choice<SharedPattern>(
      "--shared-pattern", r.shared_pattern,
      {{"segmented", SharedPattern::segmented}, {"strided", SharedPattern::strided}});
  w.collector =
      choice<Collector>("--collector", r.collector,
                        {{"next-node", Collector::next_node}, {"rank0", Collector::rank0}});

  SweepSpec& sw = c.sweep;
  if (!r.ranks.empty() && !r.sweep.empty())
    throw UsageError("--ranks and --sweep: give one or the other");
  if (!r.streams.empty()) {
    for (const auto& [given, name] :
         {std::pair{!r.ranks.empty(), "--ranks"}, std::pair{!r.sweep.empty(), "--sweep"}})
      if (given)
        throw UsageError(std::string("--streams and ") + name +
                         ": give one or the other; --streams chooses each point's active ranks");
    sw.streams = streams_list(r.streams);
  }
  for (const auto& v : split_list("--ranks", r.ranks)) {
    if (v.empty()) throw UsageError("--ranks: empty entry in the list");
    sw.ranks.push_back(static_cast<int>(count_opt("--ranks", v, 1, 1u << 24)));
  }
  if (!r.sweep.empty()) {
    const auto colon = r.sweep.find(':');
    if (colon == std::string::npos) throw UsageError("--sweep: '" + r.sweep + "' is not MIN:MAX");
    sw.sweep_min = static_cast<int>(count_opt("--sweep", r.sweep.substr(0, colon), 1, 1u << 24));
    sw.sweep_max = static_cast<int>(count_opt("--sweep", r.sweep.substr(colon + 1), 1, 1u << 24));
  }
  sw.placement = choice<Placement>("--placement", r.placement,
                                   {{"spread", Placement::spread}, {"block", Placement::block}});
  sw.repetitions = static_cast<int>(count_opt("--repetitions", r.repetitions, 1, 1000000));
  w.seed = u64_opt("--seed", r.seed);
  w.filter_key = u64_opt("--filter-key", r.filter_key);
  w.filter_every =
      count_opt("--filter-every", r.filter_every, 2, std::numeric_limits<std::uint64_t>::max() / 2);
  if (!parse_filter_kernel(r.filter_kernel, w.filter_kernel))
    throw UsageError("--filter-kernel: '" + r.filter_kernel +
                     "' is not auto, avx512, avx2 or scalar");
  if (!r.rated_bw.empty()) {
    // One rate, or two (a sequential and a random ceiling: 5.2GB/s,3.4GB/s).
    const std::vector<std::string> rates = split_list("--rated-bw", {r.rated_bw});
    if (rates.size() > 2)
      throw UsageError("--rated-bw: '" + printable(r.rated_bw) +
                       "' gives more than two rates; give one, or two as 5.2GB/s,3.4GB/s");
    double* into[] = {&c.report.rated_bw_Bps, &c.report.rated_bw2_Bps};
    for (std::size_t i = 0; i < rates.size(); ++i)
      if (auto why = parse_rate(rates[i], *into[i]); !why.empty())
        throw UsageError("--rated-bw: " + why);
  }
  w.fsync_phases = fsync_phases(r.fsync);
  w.preallocate = r.preallocate;
  if (!r.order_seed.empty()) {
    w.order_seed = u64_opt("--order-seed", r.order_seed);
    w.order_seed_pinned = true;
  }
  w.keep = r.keep;

  EngineOptions& io = c.io;
  const EngineRow* e = find_engine(r.engine);
  if (e == nullptr)
    throw UsageError("--engine: unknown engine '" + r.engine + "'; choose from " +
                     compiled_engines());
  if (!e->compiled())
    throw UsageError("--engine: " + r.engine +
                     " is not compiled into this build (have: " + compiled_engines() + ")");
  io.engine = e->id;
  io.iodepth = static_cast<unsigned>(count_opt("--iodepth", r.iodepth, 1, 4096));
  io.iodepth_batch = static_cast<unsigned>(count_opt("--iodepth-batch", r.iodepth_batch, 1, 4096));
  if (!sw.streams.empty()) {
    // --streams sets each point's depth; the batch is capped by it point by point.
    if (io.iodepth != 1)
      throw UsageError(
          "--streams and --iodepth: give one or the other; --streams sets each "
          "point's depth (its streams / its active ranks)");
    if (!(e->takes & kTakesDepth))
      throw UsageError("--streams: the " + std::string(e->name) +
                       " engine keeps one request in flight; use --engine " +
                       engines_taking(kTakesDepth));
  } else if (io.iodepth_batch > io.iodepth)
    throw UsageError("--iodepth-batch: " + r.iodepth_batch + " is more than --iodepth " +
                     r.iodepth);
  io.direct = r.direct;
  if (w.scan_record == 0) w.scan_record = io.direct ? w.seq_record : (1ull << 20);
  w.hugepages = r.hugepages;
  io.sqpoll = r.sqpoll;
  io.collective = r.collective;
  if (io.collective && !w.shared())
    throw UsageError(
        "--mpiio-collective: collective calls need a file the ranks share; add "
        "--file-layout shared");
  for (const auto& h : r.hints) {
    const auto eq = h.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError("--mpiio-hint: '" + h + "' is not key=value");
    io.mpiio_hints.emplace_back(h.substr(0, eq), h.substr(eq + 1));
  }
  w.cache =
      choice<CacheMode>("--cache", r.cache, {{"drop", CacheMode::drop}, {"keep", CacheMode::keep}});
  if (r.read_shift == "auto")
    w.read_shift_auto = true;
  else
    w.read_shift = static_cast<int>(count_opt("--read-shift", r.read_shift, 0, 1u << 24));

  if (!r.stonewall.empty()) {
    if (auto why = parse_seconds(r.stonewall, w.stonewall_s); !why.empty())
      throw UsageError("--stonewall: " + why);
    within_clock("--stonewall", r.stonewall, w.stonewall_s);
  }
  w.stonewall_wearout = r.wearout;
  if (w.stonewall_wearout && w.stonewall_s <= 0)
    throw UsageError("--stonewall-wearout: needs --stonewall SECONDS");
  if (auto why = parse_seconds(r.timeseries_bin, w.timeseries_bin_s); !why.empty())
    throw UsageError("--timeseries-bin: " + why);
  if (w.timeseries_bin_s < 1e-3) throw UsageError("--timeseries-bin: must be at least 1ms");
  within_clock("--timeseries-bin", r.timeseries_bin, w.timeseries_bin_s);
  w.verify = r.verify;
  c.report.quiet = r.quiet;
  c.report.show_controls = r.show_controls;
  c.force = r.force;
  c.report.format =
      choice<std::string>("--format", r.format, {{"table", "table"}, {"iozone", "iozone"}});
  w.reuse_run = r.reuse;
  if (!w.reuse_run.empty()) {
    if (w.reuse_run.find_first_of("/ \t") != std::string::npos)
      throw UsageError("--reuse: '" + w.reuse_run + "' is not a run id");
    for (auto id : w.phases)
      if (phase_row(id).desc.creates())
        throw UsageError(std::string("--reuse: ") + phase_row(id).desc.name +
                         " makes new files; the kept files of another run are only read or "
                         "rewritten in place, so leave " +
                         phase_row(id).desc.name + " out of --phases");
  }
  if (io.collective && w.stonewall_s > 0)
    throw UsageError(
        "--mpiio-collective: every rank must make the same number of collective "
        "calls, which --stonewall cannot promise; leave one of them out");
  if (io.collective)
    for (auto id : w.phases)
      if (phase_row(id).desc.flags & kPhaseShips)
        throw UsageError(std::string("--mpiio-collective: ") + phase_row(id).desc.name +
                         " sends records while it reads, which collective reads would stall; "
                         "leave it out of --phases");
  if (w.shared() && w.shared_pattern == SharedPattern::strided)
    for (auto id : w.phases) {
      const std::uint64_t rec = w.record_bytes(phase_row(id).desc.record);
      if (rec > w.seq_record || w.seq_record % rec != 0)
        throw UsageError(std::string("--shared-pattern: strided blocks are --seq-record (") +
                         format_size(w.seq_record) + "); " + phase_row(id).desc.name +
                         "'s records of " + format_size(rec) + " must divide them");
    }
  // The engine's own rules: options it does not take, and its row's further checks.
  if (auto why = check_engine_options(w, io); !why.empty()) throw UsageError(why);
  if (r.output.empty()) throw UsageError("--output: empty file name");
  c.report.output = r.output;
  c.report.label = r.label;
  c.dry_run = r.dry_run;
  return c;
}

}  // namespace iosweep
