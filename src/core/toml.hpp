// The TOML iosweep reads and writes: presets (--config), the configuration a run records and
// `iosweep show` prints, and what --rerun reads back. A small, strict subset of TOML 1.0, enough
// for flat files of long option names: `key = value` lines, comments, basic ("...", with every
// escape) and literal ('...') strings, integers, floats, booleans and arrays of those. Tables,
// inline tables, multi-line strings and dates are refused with the line they are on, rather
// than half read. Strings written by `toml_string` escape every character TOML requires, so any
// UTF-8 value written and read back is the same bytes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace iosweep {

struct TomlItem {
  std::string key;
  // The values as text: a string's decoded contents, a number as written (0x10, 1.5, 1_000
  // without the underscores), a boolean as true or false. One value, or an array's elements.
  std::vector<std::string> values;
  bool array = false;
  bool boolean = false;  // the (single) value was a TOML boolean
  int line = 0;
};

// Parses `text`; on success returns empty and fills `out` in file order. Otherwise returns
// "line N: problem" (one line) and `out` is unspecified. A key given twice is refused.
std::string parse_toml(std::string_view text, std::vector<TomlItem>& out);

// A TOML basic string of `s`, quoted: ", \ and every control character escaped (\n, \t, \uXXXX),
// the other bytes as they are. `s` must be valid UTF-8 (see utf8_problem).
std::string toml_string(std::string_view s);

// Empty when `s` is valid UTF-8 without NUL; else what is wrong and where ("byte 0xff at 3").
std::string utf8_problem(std::string_view s);

}  // namespace iosweep
