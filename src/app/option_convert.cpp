// Converters of the option table (see option_convert.hpp).
#include "app/option_convert.hpp"

#include <set>

#include "core/units.hpp"
#include "model/limits.hpp"

namespace iosweep {
namespace {

std::string writing_phases() {
  std::string s;
  for (const auto& d : phase_descs())
    if (d.writes()) s += (s.empty() ? "" : ", ") + std::string(d.name);
  return s;
}

// MIN:MAX as --sweep and --streams take it: both counts within [1, max], MAX not below MIN.
std::pair<std::uint64_t, std::uint64_t> range_of(const OptionValue& v, const std::string& text,
                                                 std::uint64_t max) {
  const auto colon = text.find(':');
  const OptionValue lo(&v.row(), {text.substr(0, colon)}, v.source());
  const OptionValue hi(&v.row(), {text.substr(colon + 1)}, v.source());
  const std::uint64_t a = lo.count(1, max), b = hi.count(1, max);
  if (b < a) v.refuse("MAX " + std::to_string(b) + " is below MIN " + std::to_string(a));
  return {a, b};
}

}  // namespace

std::vector<std::string> dirs_of(const OptionValue& v) {
  if (v.unset()) v.refuse("required; the folder (or folders, one per drive) where ranks write");
  std::vector<std::string> dirs;
  std::set<std::string> seen;
  for (std::string d : v.paths()) {
    while (d.size() > 1 && d.back() == '/')
      d.pop_back();
    if (!seen.insert(d).second) v.refuse("'" + printable(d) + "' is listed twice");
    dirs.push_back(std::move(d));
  }
  if (dirs.size() > kMaxDirs)
    v.refuse(std::to_string(dirs.size()) + " folders; at most " + std::to_string(kMaxDirs));
  return dirs;
}

std::string joined_dirs(const Workload& w) {
  std::string s;
  for (const auto& d : w.dirs)
    s += (s.empty() ? "" : ",") + d;
  return s;
}

std::vector<PhaseId> phases_of(const OptionValue& v) {
  std::vector<bool> want(256, false);
  if (v.unset())  // the default: every phase but the opt-in ones (ship-count, metadata)
    for (const auto& d : phase_descs())
      want[d.id] = !d.opt_in();
  // One rule for a phase named twice, by its name or through the group md, as for any list
  // entry given twice (OptionValue::list): refused, saying how.
  std::vector<std::string> named_as(256);
  auto name_it = [&](const PhaseDesc& d, const std::string& as) {
    const std::string& before = named_as[d.id];
    if (!before.empty())
      v.refuse("'" + std::string(d.name) + "' is listed twice (through " + before + " and " + as +
               ")");
    named_as[d.id] = as;
    want[d.id] = true;
  };
  for (const auto& name : v.list()) {
    if (name == "md") {  // every metadata phase
      for (const auto& d : phase_descs())
        if (d.metadata() && !d.tree()) name_it(d, name);
      continue;
    }
    const PhaseDesc* d = find_phase_desc(name);
    if (d == nullptr)
      v.refuse("unknown phase '" + printable(name) + "'; choose from " + phase_names() + ", or md");
    name_it(*d, name);
  }
  // A control phase runs whenever the phase it is the baseline of runs.
  for (const auto& d : phase_descs())
    if (d.control_for != kNoPhase && want[d.control_for]) want[d.id] = true;
  std::vector<PhaseId> out;
  for (const auto& d : phase_descs())
    if (want[d.id]) out.push_back(d.id);
  return out;
}

std::vector<PhaseId> fsync_phases_of(const OptionValue& v) {
  std::vector<PhaseId> out;
  const std::string& t = v.text();
  if (t == "false" || t == "none") return out;
  if (t == "all" || t == "true") {
    for (const auto& d : phase_descs())
      if (d.writes()) out.push_back(d.id);
    return out;
  }
  for (const auto& name : v.list()) {
    const PhaseDesc* d = find_phase_desc(name);
    if (d == nullptr)
      v.refuse("'" + printable(name) + "' is not a phase; give writing phases (" +
               writing_phases() + "), all, or none");
    if (!d->writes())
      v.refuse(name + " does not write; give writing phases (" + writing_phases() +
               "), all, or none");
    out.push_back(d->id);
  }
  return out;
}

std::uint64_t item_bytes_of(const OptionValue& v) {
  if (v.text() == "0") return 0;
  const std::uint64_t b = v.size();
  if (b > kMaxMdItemBytes) v.refuse("must be at most " + format_size(kMaxMdItemBytes));
  return b;
}

std::vector<int> rank_counts_of(const OptionValue& v) {
  std::vector<int> out;
  for (const auto& e : v.list()) {
    const int k = static_cast<int>(OptionValue(&v.row(), {e}, v.source()).count(1, kMaxRanks));
    if (!out.empty() && k <= out.back())
      v.refuse("counts must be strictly increasing (" + std::to_string(k) + " after " +
               std::to_string(out.back()) + ")");
    out.push_back(k);
  }
  return out;
}

void sweep_of(const OptionValue& v, SweepSpec& sw) {
  if (v.unset()) return;
  if (v.text().find(':') == std::string::npos)
    v.refuse("'" + printable(v.text()) + "' is not MIN:MAX");
  const auto [lo, hi] = range_of(v, v.text(), kMaxRanks);
  sw.sweep_min = static_cast<int>(lo);
  sw.sweep_max = static_cast<int>(hi);
}

std::vector<std::uint64_t> streams_of(const OptionValue& v) {
  std::vector<std::uint64_t> out;
  if (v.unset()) return out;
  const std::vector<std::string> entries = v.list();
  if (entries.size() == 1 && entries[0].find(':') != std::string::npos) {
    const auto [lo, hi] = range_of(v, entries[0], kMaxStreams);
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
      v.refuse("'" + printable(v.text()) + "' is neither a list (1,64,1024) nor MIN:MAX (1:1024)");
    const std::uint64_t s = OptionValue(&v.row(), {e}, v.source()).count(1, kMaxStreams);
    if (!out.empty() && s <= out.back())
      v.refuse("counts must be strictly increasing (" + std::to_string(s) + " after " +
               std::to_string(out.back()) + ")");
    out.push_back(s);
  }
  return out;
}

std::pair<double, double> rates_of(const OptionValue& v) {
  if (v.unset()) return {0, 0};
  // One rate, or two (a sequential and a random ceiling: 5.2GB/s,3.4GB/s).
  const std::vector<std::string> rates = v.list();
  if (rates.size() > 2)
    v.refuse("'" + printable(v.text()) +
             "' gives more than two rates; give one, or two as 5.2GB/s,3.4GB/s");
  double out[2] = {0, 0};
  for (std::size_t i = 0; i < rates.size(); ++i)
    if (auto why = parse_rate(rates[i], out[i]); !why.empty()) v.refuse(why);
  return {out[0], out[1]};
}

namespace {

// The hints of one value, KEY=VALUE[,KEY=VALUE...]: a comma starts a new hint only where a key=
// follows it, since ROMIO's own values hold commas (cb_config_list=n1:1,n2:1).
std::vector<std::string> split_hints(const std::string& text) {
  std::vector<std::string> out{std::string()};
  std::size_t at = 0;
  for (;;) {
    const std::size_t comma = text.find(',', at);
    const std::string part = text.substr(at, comma == std::string::npos ? comma : comma - at);
    if (at > 0 && part.find('=') != std::string::npos)
      out.push_back(part);
    else
      out.back() += (at > 0 ? "," : "") + part;
    if (comma == std::string::npos) return out;
    at = comma + 1;
  }
}

}  // namespace

double iops_of(const OptionValue& v) {
  if (v.unset()) return 0;
  double out = 0;
  if (auto why = parse_iops(v.text(), out); !why.empty()) v.refuse(why);
  return out;
}

std::vector<std::pair<std::string, std::string>> hints_of(const OptionValue& v) {
  std::vector<std::pair<std::string, std::string>> out;
  std::set<std::string> keys;
  std::vector<std::string> hints;
  for (const auto& value : v.values())
    for (auto& h : split_hints(value))
      hints.push_back(std::move(h));
  for (const auto& h : hints) {
    const auto eq = h.find('=');
    if (eq == std::string::npos || eq == 0) v.refuse("'" + printable(h) + "' is not key=value");
    const std::string key = h.substr(0, eq);
    if (!keys.insert(key).second) v.refuse("the hint " + printable(key) + " is given twice");
    out.emplace_back(key, h.substr(eq + 1));
  }
  return out;
}

}  // namespace iosweep
