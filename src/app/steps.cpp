// A run's steps from a preset's [[step]] tables (see steps.hpp).
#include "app/steps.hpp"

#include <map>

#include "app/config_build.hpp"
#include "app/option_table.hpp"
#include "core/errors.hpp"

namespace iosweep {
namespace {

std::string joined(const std::vector<std::string>& values) {
  std::string s;
  for (const auto& v : values)
    s += (s.empty() ? "" : ",") + v;
  return s;
}

const char* source_name(ValueSource s) {
  switch (s) {
    case ValueSource::command_line:
      return "the command line";
    case ValueSource::preset:
      return "the preset";
    case ValueSource::stored_run:
      return "the stored run";
    case ValueSource::step:
      return "the step";
    default:
      return "the defaults";
  }
}

// The rows `winner` gives whose option (or another option of the same setting) `loser` gives
// too: "the command line's --sweep 1:8 replaces the preset's streams = 1,64".
std::vector<std::string> replaced(const GivenOptions& winner, const GivenOptions& loser) {
  const auto table = option_table();
  std::vector<std::string> out;
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (!winner.by_row[i]) continue;
    for (std::size_t j = 0; j < table.size(); ++j) {
      const bool same = i == j || (table[i].setting != nullptr && table[j].setting != nullptr &&
                                   std::string_view(table[i].setting) == table[j].setting);
      if (!same || !loser.by_row[j]) continue;
      out.push_back("--" + std::string(table[i].name) + " " + printable(joined(*winner.by_row[i])) +
                    " (" + source_name(loser.source) + " gives " + table[j].name + " = " +
                    printable(joined(*loser.by_row[j])) + ")");
    }
  }
  return out;
}

std::string list_of(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& i : items)
    s += (s.empty() ? "" : "; ") + i;
  return s;
}

// What the command line replaced in the top-level sources, in one line ("" for nothing).
std::string command_line_overrides(const GivenOptions& cli,
                                   const std::vector<const GivenOptions*>& defaults) {
  std::vector<std::string> all;
  for (const GivenOptions* d : defaults)
    for (auto& r : replaced(cli, *d))
      all.push_back(std::move(r));
  return all.empty() ? std::string() : "the command line overrides: " + list_of(all);
}

StepInput one_step(std::string name, const std::vector<const GivenOptions*>& by_precedence,
                   std::string overrides) {
  const OptionValues values = resolve_options(by_precedence);
  StepInput in;
  in.name = std::move(name);
  try {
    in.cfg = build_config(values);
  } catch (const UsageError& e) {
    if (in.name.empty()) throw;
    throw UsageError("step '" + printable(in.name) + "': " + e.what());
  }
  in.toml = options_toml(values);
  in.overrides = std::move(overrides);
  return in;
}

}  // namespace

PresetSteps split_steps(const std::vector<TomlItem>& items, const std::vector<TomlHeader>& headers,
                        const std::string& whose) {
  PresetSteps out;
  for (const TomlHeader& h : headers) {
    if (h.table != "step")
      throw UsageError(whose + ": line " + std::to_string(h.line) + ": [[" + printable(h.table) +
                       "]] is not taken; a preset's tables are [[step]]");
    out.steps.push_back({{}, {}, h.line, {}});
  }
  for (const TomlItem& item : items) {
    if (item.element < 0) {
      out.top.push_back(item);
      continue;
    }
    PresetSteps::Step& step = out.steps[static_cast<std::size_t>(item.element)];
    const std::string at = whose + ": line " + std::to_string(item.line) + ": ";
    if (item.key == "name" || item.key == "dataset") {
      if (item.array || item.boolean || item.values.size() != 1 || item.values[0].empty() ||
          printable(item.values[0]) != item.values[0])
        throw UsageError(at + "a step's " + item.key +
                         " is one non-empty string of printable text");
      (item.key == "name" ? step.name : step.dataset) = item.values[0];
      continue;
    }
    if (const OptionRow* row = find_option(item.key); row != nullptr && row->whole_run)
      throw UsageError(at + "'" + item.key +
                       "' is an option of the whole run, the same for every step; set it at the "
                       "top, before the first [[step]]");
    step.items.push_back(item);
  }
  std::map<std::string, int> seen;
  for (const auto& step : out.steps) {
    if (step.name.empty())
      throw UsageError(whose + ": the [[step]] at line " + std::to_string(step.line) +
                       " has no name (name = \"...\")");
    if (auto [at, fresh] = seen.emplace(step.name, step.line); !fresh)
      throw UsageError(whose + ": two steps are named '" + printable(step.name) + "' (lines " +
                       std::to_string(at->second) + " and " + std::to_string(step.line) + ")");
  }
  return out;
}

std::vector<StepInput> build_steps(const GivenOptions& cli,
                                   const std::vector<const GivenOptions*>& defaults,
                                   const std::vector<PresetSteps::Step>& steps,
                                   ValueSource step_source, const std::string& whose) {
  const std::string top_overrides = command_line_overrides(cli, defaults);
  std::vector<const GivenOptions*> order{&cli};
  order.insert(order.end(), defaults.begin(), defaults.end());
  if (steps.empty()) return {one_step("", order, top_overrides)};
  std::vector<StepInput> out;
  for (const auto& step : steps) {
    const std::string whose_step = whose + " step '" + printable(step.name) + "'";
    const GivenOptions own = given_in_toml(step.items, step_source, whose_step);
    std::vector<const GivenOptions*> with_step{&own};
    with_step.insert(with_step.end(), order.begin(), order.end());
    std::string said = top_overrides;
    if (const auto kept = replaced(own, cli); !kept.empty())
      said += (said.empty() ? "" : "; ") + std::string("the step's own keys stand over the ") +
              "command line: " + list_of(kept);
    out.push_back(one_step(step.name, with_step, said));
    out.back().dataset = step.dataset.empty() ? step.name : step.dataset;
  }
  return out;
}

std::string stepped_toml(const std::string& top, const std::vector<PresetSteps::Step>& steps) {
  std::string s = top;
  for (const auto& step : steps) {
    s += "\n[[step]]\nname = " + toml_string(step.name) + "\n";
    if (!step.dataset.empty()) s += "dataset = " + toml_string(step.dataset) + "\n";
    for (const TomlItem& item : step.items) {
      s += item.key + " = ";
      if (item.array) {
        s += "[";
        for (std::size_t i = 0; i < item.values.size(); ++i)
          s += (i == 0 ? "" : ", ") + toml_string(item.values[i]);
        s += "]";
      } else {
        s += item.boolean ? item.values[0] : toml_string(item.values[0]);
      }
      s += "\n";
    }
  }
  return s;
}

}  // namespace iosweep
