// The settings a run declares (see settings.hpp).
#include "model/settings.hpp"

#include <algorithm>
#include <utility>

#include "core/toml.hpp"

namespace iosweep {
namespace {

bool in_scope(const PhaseDesc& d, PhaseScope scope, std::span<const PhaseId> fsynced) {
  switch (scope) {
    case PhaseScope::none:
      return false;
    case PhaseScope::all:
      return true;
    case PhaseScope::data:
      return !d.metadata();
    case PhaseScope::metadata:
      return d.metadata();
    case PhaseScope::counts:
      return d.counts();
    case PhaseScope::creates:
      return d.creates();
    case PhaseScope::ships:
      return d.ships();
    case PhaseScope::seq_records:
      return d.record == RecordKind::seq;
    case PhaseScope::rand_records:
      return d.record == RecordKind::rand;
    case PhaseScope::scan_records:
      return d.record == RecordKind::scan;
    case PhaseScope::fsynced:
      return std::find(fsynced.begin(), fsynced.end(), d.id) != fsynced.end();
  }
  return false;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string phase_array(std::uint64_t mask) {
  std::string s;
  for (const PhaseDesc& d : phase_descs())
    if ((mask >> d.id) & 1u) s += (s.empty() ? "" : ", ") + toml_string(d.enum_name);
  return "[" + s + "]";
}

}  // namespace

std::uint64_t phase_mask(PhaseScope scope, std::span<const PhaseId> fsynced) {
  std::uint64_t mask = 0;
  for (const PhaseDesc& d : phase_descs())
    if (in_scope(d, scope, fsynced)) mask |= std::uint64_t{1} << d.id;
  return mask;
}

std::vector<Setting> found_settings() {
  std::vector<Setting> out;
  for (const auto& [attribute, what] :
       {std::pair{"engine_detail", "engine set-up"}, std::pair{"fs_type", "file system"},
        std::pair{"pattern_bytes", "pattern"}}) {
    Setting s;
    s.attribute = attribute;
    s.what = what;
    s.phases = phase_mask(PhaseScope::all, {});
    out.push_back(std::move(s));
  }
  return out;
}

std::string settings_toml(std::span<const Setting> settings) {
  std::string s;
  for (const Setting& x : settings) {
    s += x.attribute + " = {what = " + toml_string(x.what) + ", option = " + toml_string(x.option) +
         ", phases = " + phase_array(x.phases);
    if (ends_with(x.attribute, "_bytes")) s += ", unit = \"bytes\"";
    if (!x.shown.empty()) s += ", shown = " + toml_string(x.shown);
    if (x.value) s += ", value = " + toml_string(*x.value);
    s += "}\n";
  }
  return s;
}

}  // namespace iosweep
