// The TOML iosweep reads and writes: presets (--config), the configuration a run records and
// `iosweep show` prints, and what --rerun reads back. A small, strict subset of TOML 1.0, enough
// for files of long option names: `key = value` lines, comments, basic ("...", with every
// escape) and literal ('...') strings, integers, floats, booleans and arrays of those, and
// arrays of tables (`[[step]]` headers: the keys after one belong to that element, until the
// next). Plain tables ([section]), inline tables, dotted keys, multi-line strings and dates are
// refused with the line they are on, rather than half read. Strings written by `toml_string` escape
// every character TOML requires, so any UTF-8 value written and read back is the same bytes.
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
  // The array of tables the key is in (`step` after a `[[step]]` header), and which element of
  // it (from 0); empty and -1 for a key before any header.
  std::string table;
  int element = -1;
};

// Parses `text`; on success returns empty and fills `out` in file order. Otherwise returns
// "line N: problem" (one line) and `out` is unspecified. A key given twice in one table (or at
// the top) is refused. An array-of-tables header with no key after it yields no item; `headers`
// (when given) receives every header's (table, element, line) in order, so that an empty
// element is seen too.
struct TomlHeader {
  std::string table;
  int element = 0;
  int line = 0;
};
std::string parse_toml(std::string_view text, std::vector<TomlItem>& out,
                       std::vector<TomlHeader>* headers = nullptr);

// A TOML basic string of `s`, quoted: ", \ and every control character escaped (\n, \t, \uXXXX),
// the other bytes as they are. `s` must be valid UTF-8 (see utf8_problem).
std::string toml_string(std::string_view s);

// Empty when `s` is valid UTF-8 without NUL; else what is wrong and where ("byte 0xff at 3").
std::string utf8_problem(std::string_view s);

}  // namespace iosweep
