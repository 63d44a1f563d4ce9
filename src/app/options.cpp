// The run options from the option table: declaration, sources, precedence, TOML (see
// options.hpp).
#include "app/options.hpp"

#include <algorithm>
#include <map>
#include <string_view>

#include "core/errors.hpp"

namespace iosweep {
namespace {

std::string dashed(const OptionRow& row) {
  return std::string("--") + row.name;
}

// Every value an option takes from any source: text iosweep can record, a flag true or false,
// no empty value and no empty list (a preset's or a stored run's `[]` is refused as the command
// line refuses `--name=`), one value where the option takes one.
void check_values(const OptionRow& row, const std::vector<std::string>& values) {
  const std::string opt = dashed(row);
  if (values.empty()) throw UsageError(opt + ": empty value (an empty list)");
  if (row.form == OptionForm::value && values.size() != 1)
    throw UsageError(opt + ": takes one value, not a list");
  for (const auto& v : values) {
    if (auto why = utf8_problem(v); !why.empty())
      throw UsageError(opt + ": '" + printable(v) + "' cannot be recorded as text (" + why + ")");
    if (row.form == OptionForm::flag && v != "true" && v != "false")
      throw UsageError(opt + ": '" + printable(v) + "' is not true or false");
    if (v.empty()) throw UsageError(opt + ": empty value");
  }
}

}  // namespace

std::vector<CLI::Option*> declare_run_options(CLI::App& app) {
  std::vector<CLI::Option*> out;
  for (const OptionRow& row : option_table()) {
    std::string help = row.help;
    if (row.help_from_tables != nullptr) help += row.help_from_tables();
    // CLI11 gives an option that takes no value its shown default when it is given bare.
    if (row.form == OptionForm::optional)
      help += std::string(" (default: ") + row.fallback + "; given bare: " + row.bare + ")";
    CLI::Option* o = nullptr;
    switch (row.form) {
      case OptionForm::flag:
        o = app.add_flag(dashed(row))->description(help);
        break;
      case OptionForm::optional:
        o = app.add_option(dashed(row))->description(help)->expected(0, 1);
        break;
      case OptionForm::list:  // one value, A,B: a preset's array arrives as several values
      case OptionForm::value:
        o = app.add_option(dashed(row))->description(help);
        break;
    }
    // kGivenTwice: the last occurrence wins, for every option.
    o->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    if (row.fallback != nullptr && row.form != OptionForm::flag && row.form != OptionForm::optional)
      o->default_str(row.fallback);
    if (row.metavar[0] != '\0') o->type_name(row.metavar);
    out.push_back(o);
  }
  return out;
}

void refuse_empty_values(int argc, char** argv) {
  // CLI11 reads `--name=` as the option given without a value, or as a missing one; either
  // way it is an empty value, which is bad input.
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--") break;
    if (a.starts_with("--") && a.ends_with("=") && a.size() > 3 &&
        find_option(a.substr(2, a.size() - 3)) != nullptr)
      throw UsageError(std::string(a.substr(0, a.size() - 1)) + ": empty value");
  }
}

GivenOptions given_on_command_line(const std::vector<CLI::Option*>& declared) {
  const auto table = option_table();
  GivenOptions g{ValueSource::command_line,
                 std::vector<std::optional<std::vector<std::string>>>(table.size())};
  for (std::size_t i = 0; i < table.size(); ++i) {
    const CLI::Option* o = declared[i];
    if (o->count() == 0) continue;
    // The last occurrence (kGivenTwice): CLI11 reduces the results by the option's policy.
    std::vector<std::string> values = o->reduced_results();
    if (table[i].form == OptionForm::optional && values == std::vector<std::string>{""})
      values = {table[i].bare};
    if (values.size() > 1) values = {values.back()};
    check_values(table[i], values);
    g.by_row[i] = std::move(values);
  }
  return g;
}

GivenOptions given_in_toml(const std::vector<TomlItem>& items, ValueSource source,
                           const std::string& whose, const std::vector<std::string>& ignored) {
  const auto table = option_table();
  GivenOptions g{source, std::vector<std::optional<std::vector<std::string>>>(table.size())};
  for (const TomlItem& item : items) {
    const OptionRow* row = find_option(item.key);
    if (row == nullptr) {
      if (std::find(ignored.begin(), ignored.end(), item.key) != ignored.end()) continue;
      throw UsageError(whose + " has option '" + printable(item.key) +
                       "', which this iosweep does not take");
    }
    if (item.array && row->form != OptionForm::list)
      throw UsageError(dashed(*row) + ": takes one value, not a list (" + whose + ", line " +
                       std::to_string(item.line) + ")");
    check_values(*row, item.values);
    g.by_row[option_index(*row)] = item.values;
  }
  return g;
}

OptionValues resolve_options(const std::vector<const GivenOptions*>& by_precedence) {
  const auto table = option_table();
  // The source that gives a setting: the first, in precedence order, to give any of its rows.
  std::map<std::string_view, const GivenOptions*> owner;
  for (const GivenOptions* src : by_precedence)
    for (std::size_t i = 0; i < table.size(); ++i)
      if (table[i].setting != nullptr && src->by_row[i] && !owner.contains(table[i].setting))
        owner[table[i].setting] = src;
  OptionValues out;
  for (std::size_t i = 0; i < table.size(); ++i) {
    const OptionRow& row = table[i];
    const GivenOptions* from = nullptr;
    for (const GivenOptions* src : by_precedence) {
      if (row.setting != nullptr && owner.contains(row.setting) && owner[row.setting] != src)
        continue;
      if (src->by_row[i]) {
        from = src;
        break;
      }
    }
    if (from != nullptr)
      out.emplace_back(&row, *from->by_row[i], from->source);
    else if (row.fallback != nullptr)
      out.emplace_back(&row, std::vector<std::string>{row.fallback}, ValueSource::fallback);
    else
      out.emplace_back(&row, std::vector<std::string>{}, ValueSource::unset);
  }
  return out;
}

std::string options_toml(const OptionValues& values) {
  std::string s;
  for (const OptionValue& v : values) {
    if (v.unset()) continue;
    s += v.row().name;
    s += '=';
    if (v.row().form == OptionForm::flag) {
      s += v.text();
    } else if (v.row().form == OptionForm::list) {
      s += '[';
      for (std::size_t i = 0; i < v.values().size(); ++i)
        s += (i == 0 ? "" : ", ") + toml_string(v.values()[i]);
      s += ']';
    } else {
      s += toml_string(v.text());
    }
    s += '\n';
  }
  return s;
}

}  // namespace iosweep
