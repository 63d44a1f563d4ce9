// The TOML subset of presets and recorded configurations (see toml.hpp).
#include "core/toml.hpp"

#include <cstdint>
#include <cstdio>
#include <map>
#include <set>

namespace iosweep {
namespace {

bool bare_key_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// A cursor over the text that knows its line; every error is "line N: problem".
class Reader {
 public:
  explicit Reader(std::string_view t) : t_(t) {}

  std::string run(std::vector<TomlItem>& out, std::vector<TomlHeader>& headers) {
    std::set<std::string> seen;
    std::string table;
    int element = -1;
    std::map<std::string, int> elements;
    for (;;) {
      skip_blank_lines();
      if (at_end()) return {};
      TomlItem item;
      item.line = line_;
      if (peek() == '[') {
        if (peek(1) != '[')
          return fail("tables ([section]) are not taken; write option=value lines");
        if (auto why = header(table); !why.empty()) return why;
        element = elements[table]++;
        headers.push_back({table, element, item.line});
        seen.clear();
        continue;
      }
      item.table = table;
      item.element = element;
      if (auto why = key(item.key); !why.empty()) return why;
      skip_spaces();
      if (peek() != '=') return fail("expected '=' after '" + item.key + "'");
      ++pos_;
      skip_spaces();
      if (auto why = value(item); !why.empty()) return why;
      if (auto why = end_of_line(); !why.empty()) return why;
      if (!seen.insert(item.key).second) {
        line_ = item.line;
        return fail("'" + item.key + "' is given twice");
      }
      out.push_back(std::move(item));
    }
  }

 private:
  bool at_end() const { return pos_ >= t_.size(); }
  char peek(std::size_t ahead = 0) const {
    return pos_ + ahead < t_.size() ? t_[pos_ + ahead] : '\0';
  }
  std::string fail(const std::string& why) const {
    return "line " + std::to_string(line_) + ": " + why;
  }

  void skip_spaces() {
    while (peek() == ' ' || peek() == '\t')
      ++pos_;
  }
  void skip_comment() {
    if (peek() != '#') return;
    while (!at_end() && peek() != '\n')
      ++pos_;
  }
  // Spaces, comments and line ends (inside arrays and between items).
  void skip_blank_lines() {
    for (;;) {
      skip_spaces();
      skip_comment();
      if (peek() == '\r' && peek(1) == '\n') ++pos_;
      if (peek() != '\n') return;
      ++pos_;
      ++line_;
    }
  }
  std::string end_of_line() {
    skip_spaces();
    skip_comment();
    if (peek() == '\r' && peek(1) == '\n') ++pos_;
    if (at_end()) return {};
    if (peek() != '\n') return fail("expected the end of the line after the value");
    ++pos_;
    ++line_;
    return {};
  }

  // `[[name]]` up to the end of its line: the array of tables the keys after it belong to.
  std::string header(std::string& name) {
    pos_ += 2;
    skip_spaces();
    name.clear();
    while (bare_key_char(peek()))
      name += t_[pos_++];
    if (name.empty()) return fail("expected a table name after '[['");
    skip_spaces();
    if (peek() != ']' || peek(1) != ']') return fail("expected ']]' after '[[" + name + "'");
    pos_ += 2;
    return end_of_line();
  }

  std::string key(std::string& out) {
    if (peek() == '"' || peek() == '\'') {
      bool dummy = false;
      if (auto why = string(out, dummy); !why.empty()) return why;
    } else {
      while (bare_key_char(peek()))
        out += t_[pos_++];
      if (out.empty()) return fail("expected an option name");
    }
    skip_spaces();
    if (peek() == '.') return fail("dotted keys are not taken; write option=value lines");
    return {};
  }

  std::string escape(std::string& out) {
    const char e = peek();
    ++pos_;
    switch (e) {
      case 'b':
        out += '\b';
        return {};
      case 't':
        out += '\t';
        return {};
      case 'n':
        out += '\n';
        return {};
      case 'f':
        out += '\f';
        return {};
      case 'r':
        out += '\r';
        return {};
      case '"':
        out += '"';
        return {};
      case '\\':
        out += '\\';
        return {};
      case 'u':
      case 'U': {
        const std::size_t n = e == 'u' ? 4 : 8;
        std::uint32_t cp = 0;
        for (std::size_t i = 0; i < n; ++i, ++pos_) {
          const char h = peek();
          const int d = h >= '0' && h <= '9'   ? h - '0'
                        : h >= 'a' && h <= 'f' ? h - 'a' + 10
                        : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                               : -1;
          if (d < 0)
            return fail("\\" + std::string(1, e) + " needs " + std::to_string(n) + " hex digits");
          cp = cp * 16 + static_cast<std::uint32_t>(d);
        }
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
          return fail("\\" + std::string(1, e) + " escape is not a Unicode scalar value");
        append_utf8(out, cp);
        return {};
      }
      default:
        return fail(std::string("unknown escape \\") +
                    (e >= 0x20 && e < 0x7f ? std::string(1, e) : "?"));
    }
  }

  // A basic or literal string at the cursor, on one line.
  std::string string(std::string& out, bool& is_string) {
    const char q = peek();
    is_string = true;
    if (peek(1) == q && peek(2) == q) return fail("multi-line strings are not taken");
    ++pos_;
    for (;;) {
      if (at_end() || peek() == '\n') return fail("the string is not closed on its line");
      const char c = t_[pos_];
      if (c == q) {
        ++pos_;
        return {};
      }
      if (q == '"' && c == '\\') {
        ++pos_;
        if (auto why = escape(out); !why.empty()) return why;
        continue;
      }
      const auto u = static_cast<unsigned char>(c);
      if ((u < 0x20 && c != '\t') || u == 0x7F)
        return fail("a control character in a string must be escaped (\\n, \\t, \\uXXXX)");
      out += c;
      ++pos_;
    }
  }

  // A number or boolean: checked for TOML's shapes, kept as written (underscores removed).
  std::string scalar(std::string& out, bool& boolean) {
    std::string tok;
    while (!at_end() && peek() != ' ' && peek() != '\t' && peek() != ',' && peek() != ']' &&
           peek() != '#' && peek() != '\n' && peek() != '\r')
      tok += t_[pos_++];
    if (tok.empty()) return fail("expected a value");
    if (tok == "true" || tok == "false") {
      boolean = true;
      out = tok;
      return {};
    }
    if (!number_shape(tok)) return fail("'" + tok + "' is not a string, number or boolean");
    for (const char c : tok)
      if (c != '_') out += c;
    return {};
  }

  static bool digits(std::string_view s, bool hex) {
    if (s.empty() || s.front() == '_' || s.back() == '_') return false;
    for (std::size_t i = 0; i < s.size(); ++i) {
      const char c = s[i];
      const bool d =
          (c >= '0' && c <= '9') || (hex && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')));
      if (!d && !(c == '_' && s[i - 1] != '_')) return false;
    }
    return true;
  }
  static bool number_shape(std::string_view s) {
    if (s.starts_with("0x")) return digits(s.substr(2), true);
    if (s.starts_with("0o") || s.starts_with("0b")) return digits(s.substr(2), false);
    if (s.front() == '+' || s.front() == '-') s.remove_prefix(1);
    if (s == "inf" || s == "nan") return true;
    const std::size_t e = s.find_first_of("eE");
    std::string_view mant = s.substr(0, e),
                     exp = e == std::string_view::npos ? "" : s.substr(e + 1);
    if (e != std::string_view::npos) {
      if (!exp.empty() && (exp.front() == '+' || exp.front() == '-')) exp.remove_prefix(1);
      if (!digits(exp, false)) return false;
    }
    const std::size_t dot = mant.find('.');
    const std::string_view whole = mant.substr(0, dot);
    if (!digits(whole, false) || (whole.size() > 1 && whole.front() == '0')) return false;
    return dot == std::string_view::npos || digits(mant.substr(dot + 1), false);
  }

  std::string one(std::string& out, bool& boolean) {
    if (peek() == '"' || peek() == '\'') {
      bool is_string = false;
      return string(out, is_string);
    }
    if (peek() == '{') return fail("inline tables are not taken");
    if (peek() == '[') return fail("arrays of arrays are not taken");
    return scalar(out, boolean);
  }

  std::string value(TomlItem& item) {
    if (peek() != '[') {
      item.values.emplace_back();
      return one(item.values.back(), item.boolean);
    }
    item.array = true;
    ++pos_;
    for (;;) {
      skip_blank_lines();
      if (at_end()) return fail("the array is not closed");
      if (peek() == ']') {
        ++pos_;
        return {};
      }
      item.values.emplace_back();
      bool boolean = false;
      if (auto why = one(item.values.back(), boolean); !why.empty()) return why;
      skip_blank_lines();
      if (peek() == ',') {
        ++pos_;
      } else if (peek() != ']') {
        return fail("expected ',' or ']' in the array");
      }
    }
  }

  std::string_view t_;
  std::size_t pos_ = 0;
  int line_ = 1;
};

}  // namespace

std::string parse_toml(std::string_view text, std::vector<TomlItem>& out,
                       std::vector<TomlHeader>* headers) {
  out.clear();
  std::vector<TomlHeader> seen;
  if (auto why = utf8_problem(text); !why.empty()) return "not UTF-8 text: " + why;
  Reader r(text);
  if (auto why = r.run(out, seen); !why.empty()) return why;
  if (headers != nullptr) *headers = std::move(seen);
  for (const auto& item : out)
    for (const auto& v : item.values)
      if (v.find('\0') != std::string::npos)
        return "line " + std::to_string(item.line) + ": '" + item.key + "' holds a NUL character";
  return {};
}

std::string toml_string(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (u < 0x20 || u == 0x7F) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04X", u);
          out += b;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string utf8_problem(std::string_view s) {
  auto bad = [&](std::size_t at) {
    char b[64];
    std::snprintf(b, sizeof b, "byte 0x%02x at %zu is not valid UTF-8",
                  static_cast<unsigned char>(s[at]), at);
    return std::string(b);
  };
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == 0) return "a NUL character at " + std::to_string(i);
    if (c < 0x80) {
      ++i;
      continue;
    }
    const std::size_t n = (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xE ? 2 : (c >> 3) == 0x1E ? 3 : 0;
    if (n == 0 || i + n >= s.size()) return bad(i);
    std::uint32_t cp = c & (0x7Fu >> (n + 1));
    for (std::size_t k = 1; k <= n; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d >> 6) != 0x2) return bad(i);
      cp = (cp << 6) | (d & 0x3Fu);
    }
    const std::uint32_t min = n == 1 ? 0x80 : n == 2 ? 0x800 : 0x10000;
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return bad(i);
    i += n + 1;
  }
  return {};
}

}  // namespace iosweep
