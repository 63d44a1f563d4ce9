// Converters of option values (see option_value.hpp).
#include "app/option_value.hpp"

#include <cctype>
#include <set>

#include "app/option_table.hpp"
#include "core/units.hpp"
#include "model/limits.hpp"

namespace iosweep {

std::string OptionValue::option() const {
  return std::string("--") + row_->name;
}

const std::string& OptionValue::text() const {
  static const std::string none;
  return values_.empty() ? none : values_.back();
}

void OptionValue::refuse(const std::string& why) const {
  throw UsageError(option() + ": " + why);
}

std::uint64_t OptionValue::size() const {
  std::uint64_t out = 0;
  if (auto why = parse_size(text(), out); !why.empty()) refuse(why);
  if (out == 0) refuse("must be larger than zero");
  return out;
}

std::uint64_t OptionValue::count(std::uint64_t min, std::uint64_t max) const {
  std::uint64_t out = 0;
  if (auto why = parse_count(text(), out); !why.empty()) refuse(why);
  if (out < min) refuse("must be at least " + std::to_string(min));
  if (out > max) refuse("must be at most " + std::to_string(max));
  return out;
}

std::uint64_t OptionValue::u64() const {
  const std::string& v = text();
  try {
    std::size_t used = 0;
    if (v.empty() || v[0] == '-' || std::isspace(static_cast<unsigned char>(v[0])))
      throw std::invalid_argument("not a plain number");
    const unsigned long long x = std::stoull(v, &used, 0);
    if (used != v.size()) throw std::invalid_argument("trailing");
    return x;
  } catch (const std::exception&) {
    refuse("'" + printable(v) + "' is not an unsigned 64-bit number (decimal or 0x hex)");
  }
}

double OptionValue::seconds() const {
  double s = 0;
  if (auto why = parse_seconds(text(), s); !why.empty()) refuse(why);
  if (!(s <= kMaxDurationS))
    refuse("'" + printable(text()) +
           "' is more than iosweep's nanosecond clock can count (at most about 146 years)");
  return s;
}

bool OptionValue::flag() const {
  if (text() == "true") return true;
  if (text() == "false") return false;
  refuse("'" + printable(text()) + "' is not true or false");
}

std::vector<std::string> OptionValue::list() const {
  return split(false);
}

std::vector<std::string> OptionValue::paths() const {
  return split(true);
}

std::vector<std::string> OptionValue::split(bool spaces) const {
  // Every source's values are checked before they get here (options.cpp); a list given empty
  // that reached a converter would otherwise become a run of nothing, or the option's default.
  // An option nobody gave (no default) has no values and is no list.
  if (values_.empty() && given()) refuse("empty value (an empty list)");
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& v : values_) {
    for (const char c : v)
      if (!spaces && std::isspace(static_cast<unsigned char>(c)))
        refuse("'" + printable(v) +
               "' contains white space; write lists without spaces, e.g. 1,2,4");
    std::size_t at = 0;
    for (;;) {
      const std::size_t comma = v.find(',', at);
      std::string entry = v.substr(at, comma == std::string::npos ? comma : comma - at);
      if (entry.empty())
        refuse("'" + printable(v) +
               "' has an empty entry; separate entries by single commas, e.g. 1,2,4");
      if (!seen.insert(entry).second) refuse("'" + printable(entry) + "' is listed twice");
      out.push_back(std::move(entry));
      if (comma == std::string::npos) break;
      at = comma + 1;
    }
  }
  return out;
}

}  // namespace iosweep
