// The value one option has for a run, as text, with where it came from, and the converters its
// row in the option table uses to turn it into a configuration field. Every converter refuses
// bad text with a UsageError "--option: problem" that names the option and the value, so the
// rows themselves only say which field a value sets.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.hpp"

namespace iosweep {

struct OptionRow;

// Where an option's value came from, highest precedence first.
enum class ValueSource : std::uint8_t { step, command_line, preset, stored_run, fallback, unset };

class OptionValue {
 public:
  OptionValue() = default;
  OptionValue(const OptionRow* row, std::vector<std::string> values, ValueSource source)
      : row_(row), values_(std::move(values)), source_(source) {}

  const OptionRow& row() const { return *row_; }
  std::string option() const;  // "--file-size"
  ValueSource source() const { return source_; }
  // Neither given nor defaulted: an option without a default that the run did not give.
  bool unset() const { return source_ == ValueSource::unset; }
  // Given by the user (command line, preset or a stored run), not the table's default.
  bool given() const { return source_ != ValueSource::unset && source_ != ValueSource::fallback; }
  const std::vector<std::string>& values() const { return values_; }
  // The one value; "" when unset.
  const std::string& text() const;

  // Throws UsageError("--option: why").
  [[noreturn]] void refuse(const std::string& why) const;

  std::uint64_t size() const;  // a size above zero, binary units (4k, 16MiB)
  std::uint64_t count(std::uint64_t min, std::uint64_t max) const;
  std::uint64_t u64() const;  // decimal or 0x hex, the whole 64-bit range
  double seconds() const;     // a duration (30, 30s, 100ms), within the clock's range
  bool flag() const;          // true or false
  // A list: entries separated by single commas, no white space, no empty and no repeated
  // entry; several values (a preset's array) are split alike.
  std::vector<std::string> list() const;
  // A list of paths: split as list() is, but an entry may hold white space (a folder's name);
  // a comma always separates two entries.
  std::vector<std::string> paths() const;
  // One of a fixed set of words: "--cache: 'maybe' is not drop or keep".
  template <class T>
  T choice(std::initializer_list<std::pair<const char*, T>> words) const {
    std::string names;
    for (const auto& [name, value] : words) {
      if (text() == name) return value;
      names += (names.empty() ? "" : " or ") + std::string(name);
    }
    refuse("'" + printable(text()) + "' is not " + names);
  }

 private:
  std::vector<std::string> split(bool spaces) const;

  const OptionRow* row_ = nullptr;
  std::vector<std::string> values_;
  ValueSource source_ = ValueSource::unset;
};

// The value of every row of the option table, in table order (index = row index).
using OptionValues = std::vector<OptionValue>;

}  // namespace iosweep
