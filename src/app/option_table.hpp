// The option table (fio's fio_option[]): every option of `iosweep run`, one row each, in one
// table (app/option_table.cpp). A row states the long name, the help, the default (only
// there), how the option takes its value, the converter that sets the configuration field, and
// how the option is recorded with a run. Everything else is derived from the rows: CLI11's
// declarations and so --help (app/options.cpp), the plain conversions of build_config, the
// configuration a run records (the TOML `iosweep show` prints and --rerun reads back, and the
// run's HDF5 attributes), and the option list in README.md (a unit test checks it).
//
// A plain new option is one row, the field it sets (model/config.hpp) and its consumers. Checks
// that relate several options are not in the rows: each has one place in app/config_build.cpp,
// run after every row has converted its value.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "app/option_value.hpp"
#include "model/config.hpp"
#include "model/run_attributes.hpp"
#include "model/settings.hpp"

namespace iosweep {

// How an option takes its value on the command line and in a preset. Given twice on the
// command line, any option takes its last value (kGivenTwice, app/options.hpp).
enum class OptionForm : std::uint8_t {
  value,     // --name VALUE; a preset's name = "VALUE"
  list,      // --name A,B; a preset's name = ["A", "B"] or "A,B"
  flag,      // --name, --name=false; a preset's name = true
  optional,  // --name or --name VALUE: given bare, it takes the row's `bare` value (--fsync)
};

// How iosweep-compare treats two runs whose values of an option differ (model/settings.hpp): an
// option of `phases` other than none is a setting, which keeps the rows of those phases from
// being compared, named `what` ("--<name>" when nullptr). Its value is the first attribute the
// row records, shown as `shown` when given, or what `value` makes of the configuration when the
// binary decides what matters (--dir: how many folders, not their paths).
struct CompareAs {
  PhaseScope phases = PhaseScope::none;
  const char* what = nullptr;
  const char* shown = nullptr;
  std::string (*value)(const Config& c) = nullptr;
};

struct OptionRow {
  const char* name;     // long name without the dashes: also the key in presets and records
  const char* metavar;  // SIZE, N, LIST, ... (--help)
  const char* help;
  // The default, as the command line would give it; nullptr: unset unless given. Stated here
  // only: a field's value always comes through its row's converter.
  const char* fallback = nullptr;
  OptionForm form = OptionForm::value;
  const char* bare = nullptr;  // OptionForm::optional: the value of the option given bare
  // Options that are one setting (--ranks, --sweep, --streams choose the points): a rerun
  // whose command line gives one of them takes none of the others from the stored run.
  const char* setting = nullptr;
  // Converts the value (given, defaulted or unset) and sets the field(s) it configures.
  void (*set)(const OptionValue& v, Config& c) = nullptr;
  // The run attributes that record the option (results/README.md lists each); nullptr: only
  // the recorded configuration (TOML) holds it.
  void (*record)(const Config& c, RunAttributes& out) = nullptr;
  // Whether two runs that differ in it can be compared (the run's `settings`, app/settings.cpp).
  CompareAs compare{};
  // Help made from another table (the phases, the engines) appended to `help`.
  std::string (*help_from_tables)() = nullptr;
  // An option of the whole run (where results go, how ranks are placed, the data's seed): the
  // same for every step, so a preset's [[step]] cannot set it.
  bool whole_run = false;
};

std::span<const OptionRow> option_table();
// By long name without the dashes; nullptr when there is none.
const OptionRow* find_option(std::string_view name);
// The index of a row of option_table().
std::size_t option_index(const OptionRow& row);

// The run attributes every row records, from the final configuration (after the pre-run checks,
// which settle what was probed: the O_DIRECT alignment), then `settings`: what the rows say
// iosweep-compare must compare (app/settings.hpp).
RunAttributes record_options(const Config& c);

}  // namespace iosweep
