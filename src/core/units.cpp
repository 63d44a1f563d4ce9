// Parsing and formatting of sizes, rates, durations and counts (see units.hpp).
#include "core/units.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/errors.hpp"

namespace iosweep {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

// Splits "16MiB" into number "16" and unit "mib" (lower case). Accepts a decimal fraction.
bool split_number(std::string_view text, std::string_view& number, std::string& unit) {
  text = trim(text);
  std::size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
    ++i;
  number = text.substr(0, i);
  unit = lower(trim(text.substr(i)));
  return !number.empty();
}

bool binary_multiplier(const std::string& unit, std::uint64_t& mult) {
  struct Row {
    const char* names[4];
    std::uint64_t mult;
  };
  static const Row rows[] = {
      {{"", "b", nullptr, nullptr}, 1},    {{"k", "kb", "kib", nullptr}, kKiB},
      {{"m", "mb", "mib", nullptr}, kMiB}, {{"g", "gb", "gib", nullptr}, kGiB},
      {{"t", "tb", "tib", nullptr}, kTiB},
  };
  for (const auto& r : rows)
    for (const char* n : r.names)
      if (n != nullptr && unit == n) {
        mult = r.mult;
        return true;
      }
  return false;
}

// One rule for every number iosweep reads: no empty value, and no white space anywhere, so
// that "4 MiB", " 4m" and "4m " are refused alike rather than read one way here and another
// way there. Returns the reason, or empty.
std::string check_spelling(std::string_view text, const char* example) {
  if (text.empty()) return std::string("empty value; expected e.g. ") + example;
  for (const char c : text)
    if (std::isspace(static_cast<unsigned char>(c)))
      return "'" + printable(text) +
             "' contains white space; write the number and its unit together, e.g. " + example;
  return {};
}

}  // namespace

std::string parse_size(std::string_view text, std::uint64_t& out) {
  std::string_view number;
  std::string unit;
  if (auto why = check_spelling(text, "4k, 16MiB or 1g"); !why.empty()) return why;
  if (trim(text).starts_with("-"))
    return "'" + std::string(text) + "' is negative; sizes must be positive";
  if (!split_number(text, number, unit))
    return "'" + std::string(text) +
           "' is not a size; expected a number with an optional unit (4k, 16MiB, 1g)";
  std::uint64_t mult = 1;
  if (!binary_multiplier(unit, mult))
    return "unknown unit '" + unit + "' in '" + std::string(text) +
           "'; use k/KiB, m/MiB, g/GiB or t/TiB (all binary)";
  if (number.find('.') == std::string_view::npos) {
    std::uint64_t v = 0;
    auto [p, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
    if (ec == std::errc::result_out_of_range ||
        (ec == std::errc() && v != 0 && mult > std::numeric_limits<std::uint64_t>::max() / v))
      return "'" + std::string(text) + "' is too large (more than 2^64 bytes)";
    if (ec != std::errc() || p != number.data() + number.size())
      return "'" + std::string(text) + "' is not a size";
    out = v * mult;
    return {};
  }
  double v = 0;
  auto [p, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
  if (ec != std::errc() || p != number.data() + number.size())
    return "'" + std::string(text) + "' is not a size";
  const double bytes = v * static_cast<double>(mult);
  if (bytes >= 18446744073709551615.0)
    return "'" + std::string(text) + "' is too large (more than 2^64 bytes)";
  if (bytes != std::floor(bytes))
    return "'" + std::string(text) + "' is not a whole number of bytes";
  out = static_cast<std::uint64_t>(bytes);
  return {};
}

// A rate's unit: an optional decimal (k, M, G, T) or binary (Ki, Mi, Gi, Ti) prefix, B for
// bytes or b (bit) for bits as networking writes them, then /s or ps. The prefix may be written
// in either case; B and b are told apart. Returns the bytes per second of one unit, 0 for an
// unknown unit, -1 for one that is not per second.
double rate_unit(std::string_view u) {
  if (!u.ends_with("/s") && !u.ends_with("ps")) return -1;
  u.remove_suffix(2);
  double per_unit = 0;
  if (u.ends_with("bit")) {
    per_unit = 1.0 / 8;
    u.remove_suffix(3);
  } else if (u.ends_with("B")) {
    per_unit = 1;
    u.remove_suffix(1);
  } else if (u.ends_with("b")) {
    per_unit = 1.0 / 8;
    u.remove_suffix(1);
  } else {
    return 0;
  }
  const std::string p = lower(u);
  static const struct {
    const char* prefix;
    double mult;
  } prefixes[] = {{"", 1},           {"k", 1e3},           {"m", 1e6},
                  {"g", 1e9},        {"t", 1e12},          {"ki", 1024.0},
                  {"mi", 1048576.0}, {"gi", 1073741824.0}, {"ti", 1099511627776.0}};
  for (const auto& r : prefixes)
    if (p == r.prefix) return per_unit * r.mult;
  return 0;
}

std::string parse_rate(std::string_view text, double& bytes_per_s) {
  if (auto why = check_spelling(text, "5.2GB/s or 800MiB/s"); !why.empty()) return why;
  const std::string shown = "'" + printable(text) + "'";
  // The number: digits with an optional fraction and exponent (1.5e9B/s).
  std::size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
    ++i;
  if (i > 0 && i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    std::size_t j = i + 1;
    if (j < text.size() && (text[j] == '+' || text[j] == '-')) ++j;
    if (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) {
      while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j])))
        ++j;
      i = j;
    }
  }
  const std::string_view number = text.substr(0, i), unit = text.substr(i);
  double v = 0;
  const auto [p, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
  if (number.empty() || (ec != std::errc() && ec != std::errc::result_out_of_range) ||
      p != number.data() + number.size())
    return shown + " is not a rate; expected e.g. 5.2GB/s, 800MiB/s or 40Gb/s";
  const double unit_bytes = rate_unit(unit);
  if (unit_bytes < 0)
    return shown + " has no /s; a rate is written per second, e.g. 5.2GB/s or 40Gb/s";
  if (unit_bytes == 0)
    return "unknown rate unit in " + shown +
           "; use B/s, kB/s, MB/s, GB/s, TB/s (decimal), KiB/s ... TiB/s (binary), or b/s, "
           "Mb/s, Gb/s (bits)";
  if (ec == std::errc::result_out_of_range || !std::isfinite(v * unit_bytes))
    return shown + " is out of range";
  if (!(v > 0)) return shown + " must be positive";
  bytes_per_s = v * unit_bytes;
  return {};
}

std::string parse_iops(std::string_view text, double& ops_per_s) {
  if (auto why = check_spelling(text, "1.5M or 800k"); !why.empty()) return why;
  const std::string shown = "'" + printable(text) + "'";
  std::string_view rest = text;
  // The unit after the number: IOPS or /s, in either case, then an optional decimal prefix.
  const std::string low = lower(text);
  if (low.ends_with("iops"))
    rest.remove_suffix(4);
  else if (low.ends_with("/s"))
    rest.remove_suffix(2);
  double mult = 1;
  if (!rest.empty()) {
    const char p = static_cast<char>(std::tolower(static_cast<unsigned char>(rest.back())));
    mult = p == 'k' ? 1e3 : p == 'm' ? 1e6 : p == 'g' ? 1e9 : 1;
    if (mult > 1) rest.remove_suffix(1);
  }
  double v = 0;
  const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), v);
  if (rest.empty() || (ec != std::errc() && ec != std::errc::result_out_of_range) ||
      end != rest.data() + rest.size())
    return shown +
           " is not a rate of operations; expected e.g. 1.5M, 800k or 1500000IOPS "
           "(k, M, G decimal)";
  if (ec == std::errc::result_out_of_range || !std::isfinite(v * mult))
    return shown + " is out of range";
  if (!(v > 0)) return shown + " must be positive";
  ops_per_s = v * mult;
  return {};
}

std::string parse_seconds(std::string_view text, double& seconds) {
  std::string_view number;
  std::string unit;
  if (auto why = check_spelling(text, "30, 30s or 100ms"); !why.empty()) return why;
  if (!split_number(text, number, unit))
    return "'" + std::string(text) + "' is not a duration; expected e.g. 30, 30s, 100ms";
  double v = 0;
  auto [p, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
  if (ec != std::errc() || p != number.data() + number.size())
    return "'" + std::string(text) + "' is not a duration";
  double mult = 0;
  if (unit.empty() || unit == "s")
    mult = 1;
  else if (unit == "ms")
    mult = 1e-3;
  else if (unit == "us")
    mult = 1e-6;
  else if (unit == "m" || unit == "min")
    mult = 60;
  else if (unit == "h")
    mult = 3600;
  else
    return "unknown time unit '" + unit + "' in '" + std::string(text) +
           "'; use s, ms, us, min or h";
  if (!(v > 0)) return "'" + std::string(text) + "' must be positive";
  seconds = v * mult;
  return {};
}

std::string parse_count(std::string_view text, std::uint64_t& out) {
  if (auto why = check_spelling(text, "4"); !why.empty()) return why;
  const auto t = trim(text);
  if (t.starts_with("-")) return "'" + std::string(text) + "' is negative";
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec == std::errc::result_out_of_range) return "'" + std::string(text) + "' is too large";
  if (ec != std::errc() || p != t.data() + t.size() || t.empty())
    return "'" + std::string(text) + "' is not a whole number";
  out = v;
  return {};
}

std::string format_compact(double v, int small_decimals) {
  char b[32];
  if (v >= 1e6)
    std::snprintf(b, sizeof b, "%.1fM", v / 1e6);
  else if (v >= 1e3)
    std::snprintf(b, sizeof b, "%.1fK", v / 1e3);
  else
    std::snprintf(b, sizeof b, "%.*f", small_decimals, v);
  return b;
}

std::string format_size(std::uint64_t bytes) {
  static const char* names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (u < 4 && bytes >= (std::uint64_t{1024} << (10 * u)))
    ++u;
  const double v = static_cast<double>(bytes) / static_cast<double>(std::uint64_t{1} << (10 * u));
  char buf[64];
  if (bytes % (std::uint64_t{1} << (10 * u)) == 0) {
    std::snprintf(buf, sizeof buf, "%.0f %s", v, names[u]);
    return buf;
  }
  // Not a whole number of its unit: the largest unit it is a whole number of, when that reads
  // well (4100 KiB), else the rounded figure with the exact bytes, so that no remainder hides.
  for (int w = u - 1; w >= 1; --w) {
    const std::uint64_t unit = std::uint64_t{1} << (10 * w);
    if (bytes % unit == 0 && bytes / unit < 100000) {
      std::snprintf(buf, sizeof buf, "%llu %s", static_cast<unsigned long long>(bytes / unit),
                    names[w]);
      return buf;
    }
  }
  std::snprintf(buf, sizeof buf, "%.2f %s (%llu bytes)", v, names[u],
                static_cast<unsigned long long>(bytes));
  return buf;
}

}  // namespace iosweep
