// The io500 application's result files (see io500_writer.hpp). The formats follow the
// application's src/main.c (dupprintf of [RESULT] lines, PRINT_PAIR with a 15-column key) and
// its result.txt as found in a real run (tests/fixtures/io500/ext4-2ranks).
#include "output/io500_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "core/errors.hpp"
#include "model/phase_desc.hpp"
#include "os/file_ops.hpp"
#include "output/notes.hpp"

namespace iosweep {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string pair(const std::string& key, const std::string& value) {
  char line[64];
  std::snprintf(line, sizeof line, "%-15s = ", key.c_str());
  return line + value + "\n";
}

std::string fixed(double v, const char* fmt = "%f") {
  char s[64];
  std::snprintf(s, sizeof s, fmt, v);
  return s;
}

// Written whole, then renamed over the old: a reader never sees half a file.
void write_file(const std::string& path, const std::string& text) {
  fsops::replace_file(path, text);
}

// A text cell of result_phases.txt: no tab or line end inside, "-" for nothing.
std::string cell(std::string text) {
  if (text.empty()) return "-";
  for (char& c : text)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return text;
}

std::string result_line(const Io500Phase& p) {
  char line[160];
  std::snprintf(line, sizeof line, "%s %20s %15s %s : time %.3f seconds%s\n",
                p.group != Io500Group::none ? "[RESULT]" : "[      ]", p.name.c_str(),
                fixed(p.score).c_str(), p.name[0] == 'i' ? "GiB/s" : "kIOPS", p.time_s,
                p.invalid.empty() ? "" : " [INVALID]");
  return line;
}

}  // namespace

std::string io500_time_text(std::int64_t unix_s) {
  const auto t = static_cast<std::time_t>(unix_s);
  std::tm tm{};
  ::localtime_r(&t, &tm);
  char s[32];
  std::strftime(s, sizeof s, "%Y-%m-%d %H:%M:%S", &tm);
  return s;
}

Io500Phase io500_phase_of(const std::string& name, const PointResult& pr, double stonewall_s) {
  Io500Phase p;
  p.name = name;
  (void)io500_phase_kind(name, p.group, p.write, p.dummy);
  const SummaryRow& s = pr.summary;
  std::uint64_t wearout_ops = 0;
  for (const RankRow& r : pr.ranks)
    wearout_ops += r.wearout_ops;
  p.time_s = s.wall_s + s.wearout_max_s;
  const bool md = phase_desc(s.phase).metadata();
  if (p.dummy) {
    p.score = 0;
  } else if (md) {
    p.score = p.time_s > 0 ? static_cast<double>(s.ops + wearout_ops) / p.time_s / 1000 : 0;
    if (p.write && s.wall_s > 0) p.stonewall_rate = static_cast<double>(s.ops) / s.wall_s / 1000;
  } else {
    p.score = p.time_s > 0 ? static_cast<double>(s.bytes + s.wearout_bytes) / p.time_s / kGiB : 0;
    if (p.write && s.wall_s > 0) p.stonewall_rate = static_cast<double>(s.bytes) / s.wall_s / kGiB;
  }
  Io500Detail& d = p.detail;
  d.window_s = s.wall_s;
  d.first_done_s = s.rank_time_min_s;
  d.stonewalled = s.stonewalled != 0 && stonewall_s > 0;
  d.tail_s = std::max(0.0, s.wall_s - (d.stonewalled ? stonewall_s : s.rank_time_min_s));
  d.wearout_s = s.wearout_max_s;
  const double done = md ? static_cast<double>(s.ops) : static_cast<double>(s.bytes);
  const double worn = md ? static_cast<double>(wearout_ops) : static_cast<double>(s.wearout_bytes);
  d.wearout_share = done + worn > 0 ? worn / (done + worn) : 0;
  d.lat_p50_ns = s.lat_p50_ns;
  d.lat_p99_ns = s.lat_p99_ns;
  d.lat_p999_ns = s.lat_p999_ns;
  d.lat_max_ns = s.lat_max_ns;
  d.provenance = provenance_notes(pr);
  d.cache = cache_verdict(s);
  d.notes = std::string(s.notes, strnlen(s.notes, sizeof s.notes));
  p.found = s.matches;
  p.examined = s.ops;
  p.errors = s.bad_blocks;
  p.t_start_unix_s = static_cast<std::int64_t>(s.t_start_unix_ns / 1000000000ull);
  p.t_end_unix_s = p.t_start_unix_s + std::llround(p.time_s);
  return p;
}

void Io500Writer::begin_run(const RunContext& ctx) {
  run_id_ = ctx.run_id;
  start_text_ = io500_time_text(static_cast<std::int64_t>(ctx.t_start_unix_ns / 1000000000ull));
  write_file(r_.resultdir + "/config-orig.ini", r_.config_orig);
  write_file(r_.resultdir + "/config.ini", r_.config_ini);
  write_files(false);
}

void Io500Writer::begin_step(const StepPlan& step, std::uint32_t index) {
  (void)index;
  step_ = step.name;
  const Workload& w = step.cfg.work;
  exe_ = "iosweep io500, step " + step.name + ": --phases " + phase_list(w.phases) + " --dir " +
         (w.dirs.empty() ? std::string() : w.dirs.front());
}

void Io500Writer::append_point(const PointResult& point, const LatencyHistogram& latency) {
  (void)latency;
  Io500Phase p = io500_phase_of(io500_step_phase(step_), point, r_.stonewall_s);
  p.repetition = io500_step_repetition(step_);
  p.exe = exe_;
  io500_check_phase(p, r_.stonewall_s, r_.min_write_s);
  phases_.push_back(std::move(p));
  write_files(false);
}

void Io500Writer::end_run(RunStatus status, const std::string& message) {
  if (status != RunStatus::complete)
    end_notes_.push_back("the run stopped before its end: " + printable(message));
  write_files(true);
  if (out_ == nullptr) return;
  std::string shown;
  for (const std::string& i : r_.run_invalid)
    shown += "ERROR INVALID " + i + "\n";
  const std::string more = r_.repetitions > 1 ? "\n" + repetitions_text() : std::string();
  std::fputs(("\n" + shown + summary_text(true) + more +
              "\nThe result files are stored in the directory: " + r_.resultdir + "\n")
                 .c_str(),
             out_);
  std::fflush(out_);
}

std::vector<Io500Phase> Io500Writer::of_repetition(int r) const {
  std::vector<Io500Phase> out;
  for (const Io500Phase& p : phases_)
    if (p.repetition == r) out.push_back(p);
  return out;
}

bool Io500Writer::valid(const std::vector<Io500Phase>& phases) const {
  bool ok = r_.run_invalid.empty() && end_notes_.empty();
  for (const Io500Phase& p : phases)
    ok = ok && p.invalid.empty();
  return ok;
}

std::string Io500Writer::summary_text(bool final) const {
  const std::vector<Io500Phase> first = of_repetition(1);
  std::string s = "IO500 version iosweep (standard)\n";
  for (const Io500Phase& p : first)
    s += result_line(p);
  if (!final) return s;
  const bool valid = this->valid(first);
  const Io500Score sc = io500_score(first);
  char line[200];
  std::snprintf(line, sizeof line, "[SCORE ] Bandwidth %f GiB/s : IOPS %f kiops : TOTAL %f%s\n",
                sc.bw, sc.md, sc.total, valid ? "" : " [INVALID]");
  return s + line;
}

std::string Io500Writer::result_text(bool final) const {
  std::string s = "[run]\n" + pair("procs", std::to_string(r_.procs)) + pair("version", "iosweep") +
                  pair("run-id", run_id_) + pair("result-dir", r_.resultdir) +
                  pair("mode", "standard") + "; START " + start_text_ + "\n";
  for (const std::string& i : r_.run_invalid)
    s += "; ERROR INVALID " + i + "\n";
  s += "\n";
  const std::vector<Io500Phase> first = of_repetition(1);
  for (const Io500Phase& p : first) {
    s += "\n[" + p.name + "]\n" + pair("t_start", io500_time_text(p.t_start_unix_s));
    if (!p.exe.empty()) s += pair("exe", p.exe);
    if (p.stonewall_rate >= 0)
      s += p.group == Io500Group::bw ? pair("throughput-stonewall", fixed(p.stonewall_rate, "%.2f"))
                                     : pair("rate-stonewall", fixed(p.stonewall_rate));
    if (p.name == "find") {
      s += pair("nproc", std::to_string(r_.procs)) + pair("found", std::to_string(p.found)) +
           pair("total-files", std::to_string(p.examined));
    }
    for (const std::string& i : p.invalid)
      s += "; ERROR INVALID " + i + "\n";
    if (!p.dummy) s += pair("score", fixed(p.score));
    s += pair("t_delta", fixed(p.time_s, "%.4f")) + pair("t_end", io500_time_text(p.t_end_unix_s));
  }
  for (const std::string& n : end_notes_)
    s += "; ERROR INVALID " + n + "\n";
  if (!final) return s;
  const Io500Score sc = io500_score(first);
  s += "\n[SCORE]\n" + pair("MD", fixed(sc.md)) + pair("BW", fixed(sc.bw)) +
       pair("SCORE", fixed(sc.total) + (valid(first) ? "" : " [INVALID]"));
  const auto now = static_cast<std::int64_t>(std::time(nullptr));
  s += "; END " + io500_time_text(now) + "\n";
  return s;
}

// Each repetition's score, then every phase's and the three scores' medians over the
// repetitions with bootstrap 95% intervals (model/io500_score.hpp).
std::string Io500Writer::repetitions_text() const {
  std::string s = "# iosweep io500 --repetitions " + std::to_string(r_.repetitions) +
                  ": each repetition's score, then the median over the repetitions of every "
                  "phase and score with a bootstrap 95% interval\n";
  std::vector<Io500Score> scores;
  for (int r = 1; r <= r_.repetitions; ++r) {
    const std::vector<Io500Phase> mine = of_repetition(r);
    if (mine.empty()) continue;
    scores.push_back(io500_score(mine));
    char line[200];
    std::snprintf(
        line, sizeof line, "[SCORE ] r%d Bandwidth %f GiB/s : IOPS %f kiops : TOTAL %f%s\n", r,
        scores.back().bw, scores.back().md, scores.back().total, valid(mine) ? "" : " [INVALID]");
    s += line;
  }
  auto interval_line = [&](const std::string& name, const char* unit,
                           const std::vector<double>& v) {
    const Io500Interval i = io500_interval(v);
    char line[200];
    std::snprintf(line, sizeof line, "[MEDIAN] %20s %15f %s [%f, %f] over %zu\n", name.c_str(),
                  i.median, unit, i.low, i.high, v.size());
    s += line;
  };
  for (const Io500Phase& p : of_repetition(1)) {
    std::vector<double> v;
    for (const Io500Phase& q : phases_)
      if (q.name == p.name) v.push_back(q.score);
    interval_line(p.name, p.name[0] == 'i' ? "GiB/s" : "kIOPS", v);
  }
  std::vector<double> bw, md, total;
  for (const Io500Score& sc : scores)
    bw.push_back(sc.bw), md.push_back(sc.md), total.push_back(sc.total);
  interval_line("BW", "GiB/s", bw);
  interval_line("MD", "kIOPS", md);
  interval_line("TOTAL", "     ", total);
  return s;
}

// One line per phase and repetition, tab-separated under a header of column names with their
// units; microseconds with three decimals, NaN ("nan") where no operation completed.
std::string Io500Writer::phases_text() const {
  std::string s =
      "# iosweep io500: where each phase's time went and how long its operations took, from its "
      "row (iosweep's own file; the application has none)\n"
      "# window_s: the timed window, to the last rank's close; first_done_s: to the first "
      "rank's; tail_s: the straggler tail, how long the window ran on after tail_from (the "
      "stonewall, or the first rank's close when no rank was stonewalled); wearout_s: the "
      "untimed wear-out after the window, wearout_share its part of the phase's operations "
      "(metadata, find) or bytes (data); lat_*_us: percentiles of the operations' latency "
      "(find: per file examined), merged over ranks; cache: the marks that say a cache served "
      "(or held back) the phase, - when none; provenance: where its bytes came from (device, "
      "page cache, wire); notes: everything the row says\n"
      "phase\trepetition\twindow_s\tfirst_done_s\ttail_from\ttail_s\twearout_s\t"
      "wearout_share\tlat_p50_us\tlat_p99_us\tlat_p999_us\tlat_max_us\tcache\tprovenance\t"
      "notes\n";
  for (const Io500Phase& p : phases_) {
    const Io500Detail& d = p.detail;
    char line[320];
    std::snprintf(
        line, sizeof line, "%s\t%d\t%.6f\t%.6f\t%s\t%.6f\t%.6f\t%.6f\t%.3f\t%.3f\t%.3f\t%.3f\t",
        p.name.c_str(), p.repetition, d.window_s, d.first_done_s,
        d.stonewalled ? "stonewall" : "first-rank", d.tail_s, d.wearout_s, d.wearout_share,
        d.lat_p50_ns / 1e3, d.lat_p99_ns / 1e3, d.lat_p999_ns / 1e3, d.lat_max_ns / 1e3);
    s += line + cell(d.cache) + "\t" + cell(d.provenance) + "\t" + cell(d.notes) + "\n";
  }
  return s;
}

void Io500Writer::write_files(bool final) const {
  write_file(r_.resultdir + "/result_summary.txt", summary_text(final));
  write_file(r_.resultdir + "/result.txt", result_text(final));
  write_file(r_.resultdir + "/result_phases.txt", phases_text());
  if (r_.repetitions > 1) write_file(r_.resultdir + "/result_repetitions.txt", repetitions_text());
}

}  // namespace iosweep
