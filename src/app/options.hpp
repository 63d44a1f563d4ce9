// The options of `iosweep run` as the option table declares them: their declaration for CLI11
// (so --help lists every row with its default), the values given by each source (the command
// line, a --config preset, a stored run), the precedence between sources, and the recorded
// configuration as TOML. Values are text until each row's converter turns them into a field.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "app/option_table.hpp"
#include "core/toml.hpp"

namespace iosweep {

// One rule for every option given more than once on the command line, as IOR and fio read
// theirs (a wrapper's defaults first, the user's options after them, work as expected); --help
// says it in these words.
inline constexpr const char* kGivenTwice =
    "An option given twice takes its last value, as in IOR and fio: --dir A --dir B is --dir B "
    "(a list is one value: --dir A,B).";

// What one source gives: by row index, the values given (nullopt: not given).
struct GivenOptions {
  ValueSource source = ValueSource::command_line;
  std::vector<std::optional<std::vector<std::string>>> by_row;
};

// Declares every row of the option table on `app` (the main program, so that --help lists them
// all). Returns CLI11's option of each row, by row index.
std::vector<CLI::Option*> declare_run_options(CLI::App& app);

// Before parsing: a value given as `--name=` (nothing after '=') is refused as empty. Throws
// UsageError ("--option: empty value").
void refuse_empty_values(int argc, char** argv);
// After parsing: what the command line gave. A flag's value must be true or false, and every
// value must be text iosweep can record (valid UTF-8). Throws UsageError ("--option: problem").
GivenOptions given_on_command_line(const std::vector<CLI::Option*>& declared);

// What a TOML file gives (a preset, or a run's recorded configuration): every key must be an
// option of the table (`ignored` lists keys taken and dropped: what older iosweeps recorded
// beside the options). Refusals start with `whose` ("--config: 'p.toml'"). Throws UsageError.
GivenOptions given_in_toml(const std::vector<TomlItem>& items, ValueSource source,
                           const std::string& whose, const std::vector<std::string>& ignored = {});

// Each row's value from the first source (in precedence order) that gives it, else the row's
// default, else unset. Options of one `setting` go together: when a source gives any of them,
// lower sources give none.
OptionValues resolve_options(const std::vector<const GivenOptions*>& by_precedence);

// The recorded configuration: every option that has a value, in table order, as TOML of long
// option names (name="text", flags true or false, lists as arrays of the values as given), so
// that it is itself a preset for --config and reads back identical.
std::string options_toml(const OptionValues& values);

}  // namespace iosweep
