// Parsers of NFS's /proc/self/mountstats and Lustre's llite.*.stats (see client_stats.hpp).
#include "os/client_stats.hpp"

#include <array>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <new>
#include <sstream>

namespace iosweep {
namespace {

constexpr std::size_t kShown = 60;  // characters of an offending line an error quotes

// The text split into lines ('\n'; a '\r' before it is dropped), numbered from 1.
class Lines {
 public:
  explicit Lines(std::string_view text) : text_(text) {}
  // False at the end. `too_long` is set (and false returned) for a line beyond the bound.
  bool next(std::string_view& line, bool& too_long) {
    too_long = false;
    if (pos_ >= text_.size()) return false;
    std::size_t end = text_.find('\n', pos_);
    if (end == std::string_view::npos) end = text_.size();
    line = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    ++number_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.size() > kClientStatsMaxLine) {
      too_long = true;
      return false;
    }
    return true;
  }
  std::size_t number() const { return number_; }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t number_ = 0;
};

bool is_space(char c) {
  return c == ' ' || c == '\t';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && is_space(s.back()))
    s.remove_suffix(1);
  return s;
}

// Up to N whitespace-separated tokens; `count` is how many the line has in all.
template <std::size_t N>
struct Tokens {
  std::array<std::string_view, N> tok{};
  std::size_t count = 0;
};

template <std::size_t N>
Tokens<N> split(std::string_view s) {
  Tokens<N> t;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_space(s[i]))
      ++i;
    if (i >= s.size()) break;
    std::size_t j = i;
    while (j < s.size() && !is_space(s[j]))
      ++j;
    if (t.count < N) t.tok[t.count] = s.substr(i, j - i);
    ++t.count;
    i = j;
  }
  return t;
}

bool parse_u64(std::string_view s, std::uint64_t& out) {
  if (s.empty() || s.front() < '0' || s.front() > '9') return false;  // no sign, no space
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, out);
  return ec == std::errc{} && p == end;
}

// A line as an error quotes it: control characters escaped, cut after kShown characters.
std::string shown(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size() && out.size() < kShown; ++i) {
    const auto u = static_cast<unsigned char>(s[i]);
    if (u < 0x20 || u == 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", u);
      out += b;
    } else {
      out += s[i];
    }
  }
  if (s.size() > kShown) out += "...";
  return "'" + out + "'";
}

// The kernel's mangling of names in mountstats (seq_file's mangle(): space, tab, newline and
// backslash as \ooo) undone.
std::string unescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && s.size() - i >= 4) {
      const char a = s[i + 1], b = s[i + 2], c = s[i + 3];
      if (a >= '0' && a <= '3' && b >= '0' && b <= '7' && c >= '0' && c <= '7') {
        out += static_cast<char>((a - '0') * 64 + (b - '0') * 8 + (c - '0'));
        i += 3;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

template <class Result>
Result failed(ClientStatsStatus status, const std::string& message) {
  Result r;
  r.status = status;
  r.error = message;
  return r;
}

std::string at(const char* what, std::size_t line) {
  return std::string(what) + ": line " + std::to_string(line) + ": ";
}

// A step of a parser: empty when the line was taken, else why the text is refused.
struct Refusal {
  ClientStatsStatus status = ClientStatsStatus::ok;
  std::string why;
  explicit operator bool() const { return status != ClientStatsStatus::ok; }
};
Refusal refuse(ClientStatsStatus s, std::string why) {
  return {s, std::move(why)};
}

std::string too_large_text(const char* what, std::size_t bytes) {
  return std::string(what) + ": " + std::to_string(bytes) + " bytes, more than the " +
         std::to_string(kClientStatsMaxBytes) + " read";
}

// ------------------------------------------------------------------------------- NFS

constexpr const char* kNfs = "mountstats";

// "device D mounted on M with fstype T [statvers=V]" (or "no device mounted on M ..."): a new
// block; `out` is the NFS mount it opens, or null for another file system or mount point.
Refusal nfs_device_line(std::string_view line, std::size_t n, std::string_view mount_point,
                        NfsClientStats& r, NfsMountBytes*& out) {
  out = nullptr;
  // "no device mounted on M ..." when the mount has no device name: read as device "-".
  const bool nodev = line.front() == 'n';
  const std::string nodev_line =
      nodev ? "device - " + std::string(line.substr(std::string_view("no device ").size()))
            : std::string();
  auto t = split<10>(nodev ? std::string_view(nodev_line) : line);
  if (t.count < 8 || t.tok[2] != "mounted" || t.tok[3] != "on" || t.tok[5] != "with" ||
      t.tok[6] != "fstype")
    return refuse(
        ClientStatsStatus::malformed,
        at(kNfs, n) + "expected 'device D mounted on M with fstype T', found " + shown(line));
  if (t.tok[7] != "nfs" && t.tok[7] != "nfs4") return {};
  if (t.count > 9 || (t.count == 9 && t.tok[8].rfind("statvers=", 0) != 0))
    return refuse(ClientStatsStatus::malformed,
                  at(kNfs, n) + "an NFS mount's line ends in 'statvers=V', found " + shown(line));
  std::string mnt = unescape(t.tok[4]);
  if (!mount_point.empty() && mnt != mount_point) return {};
  NfsMountBytes m;
  m.device = nodev ? std::string() : unescape(t.tok[1]);
  m.mount_point = std::move(mnt);
  m.fstype = std::string(t.tok[7]);
  if (t.count == 9) m.statvers = std::string(t.tok[8].substr(9));
  r.mounts.push_back(std::move(m));
  out = &r.mounts.back();
  return {};
}

// "bytes: NORMAL_READ NORMAL_WRITE DIRECT_READ DIRECT_WRITE SERVER_READ SERVER_WRITE
// READ_PAGES WRITE_PAGES" of the mount being read.
Refusal nfs_bytes_line(std::string_view s, std::string_view line, std::size_t n, NfsMountBytes& m) {
  if (m.has_bytes)
    return refuse(ClientStatsStatus::malformed,
                  at(kNfs, n) + "a second bytes: line for " + shown(m.mount_point));
  auto t = split<12>(s.substr(6));
  std::array<std::uint64_t, 8> v{};
  if (t.count < v.size())
    return refuse(ClientStatsStatus::malformed, at(kNfs, n) + "bytes: expected 8 counters, found " +
                                                    std::to_string(t.count) + " in " + shown(line));
  for (std::size_t i = 0; i < t.count && i < t.tok.size(); ++i) {
    std::uint64_t x = 0;
    if (!parse_u64(t.tok[i], x))
      return refuse(ClientStatsStatus::malformed,
                    at(kNfs, n) + "bytes: counter " + std::to_string(i + 1) +
                        " is not a count below 2^64: " + shown(t.tok[i]));
    if (i < v.size()) v[i] = x;
  }
  m.has_bytes = true;
  m.normal_read = v[0];
  m.normal_write = v[1];
  m.direct_read = v[2];
  m.direct_write = v[3];
  m.server_read = v[4];
  m.server_write = v[5];
  m.read_pages = v[6];
  m.write_pages = v[7];
  return {};
}

NfsClientStats nfs_impl(std::string_view text, std::string_view mount_point) {
  using R = NfsClientStats;
  if (text.size() > kClientStatsMaxBytes)
    return failed<R>(ClientStatsStatus::too_large, too_large_text(kNfs, text.size()));
  R r;
  Lines lines(text);
  std::string_view line;
  bool too_long = false;
  std::size_t devices = 0;
  NfsMountBytes* cur = nullptr;  // the NFS block being read, or none (skipping)
  while (lines.next(line, too_long)) {
    if (line.rfind("device ", 0) == 0 || line.rfind("no device ", 0) == 0) {
      if (++devices > kClientStatsMaxMounts)
        return failed<R>(ClientStatsStatus::too_large, at(kNfs, lines.number()) + "more than " +
                                                           std::to_string(kClientStatsMaxMounts) +
                                                           " mounts");
      if (auto no = nfs_device_line(line, lines.number(), mount_point, r, cur))
        return failed<R>(no.status, no.why);
      continue;
    }
    if (cur == nullptr) continue;  // another file system's block, or text before any device
    const std::string_view s = trim(line);
    if (s.rfind("bytes:", 0) != 0) continue;  // opts, events, xprt, per-op statistics, ...
    if (auto no = nfs_bytes_line(s, line, lines.number(), *cur))
      return failed<R>(no.status, no.why);
  }
  if (too_long)
    return failed<R>(
        ClientStatsStatus::too_large,
        at(kNfs, lines.number()) + "longer than " + std::to_string(kClientStatsMaxLine) + " bytes");
  if (r.mounts.empty())
    return failed<R>(ClientStatsStatus::not_found,
                     mount_point.empty()
                         ? std::string(kNfs) + ": no NFS mount"
                         : std::string(kNfs) + ": no NFS mount at " + shown(mount_point));
  return r;
}

// ---------------------------------------------------------------------------- Lustre

constexpr const char* kLlite = "llite stats";

bool llite_header(std::string_view line, std::string_view& instance) {
  constexpr std::string_view kPre = "llite.", kPost = ".stats=";
  if (line.size() <= kPre.size() + kPost.size() || line.rfind(kPre, 0) != 0 ||
      line.substr(line.size() - kPost.size()) != kPost)
    return false;
  instance = line.substr(kPre.size(), line.size() - kPre.size() - kPost.size());
  return true;
}

bool matches(std::string_view instance, std::string_view want) {
  if (want.empty()) return true;
  if (instance == want) return true;
  return instance.size() > want.size() && instance.rfind(want, 0) == 0 &&
         instance[want.size()] == '-';
}

// A line of one mount's statistics: its snapshot time, or read_bytes / write_bytes as
// "NAME N samples [bytes] MIN MAX SUM [SUMSQ]"; other counters are skipped.
Refusal llite_counter_line(std::string_view s, std::size_t n, LustreMountBytes& m) {
  auto t = split<9>(s);
  const std::string_view name = t.tok[0];
  if (name == "snapshot_time") {
    if (t.count >= 2) m.snapshot = std::string(t.tok[1]);
    return {};
  }
  LustreCounter* c = name == "read_bytes" ? &m.read : name == "write_bytes" ? &m.write : nullptr;
  if (c == nullptr) return {};  // open, close, getattr, osc_read, ...
  if (c->present)
    return refuse(ClientStatsStatus::malformed,
                  at(kLlite, n) + std::string(name) +
                      " a second time in one mount's statistics (several mounts without their "
                      "llite.INSTANCE.stats= headers, as lctl get_param -n prints them?)");
  std::uint64_t v[5] = {};
  bool good = (t.count == 7 || t.count == 8) && t.tok[2] == "samples" && t.tok[3] == "[bytes]";
  for (std::size_t i = 0; good && i < t.count - 3; ++i)
    good = parse_u64(t.tok[i == 0 ? 1 : i + 3], v[i]);
  if (!good)
    return refuse(ClientStatsStatus::malformed,
                  at(kLlite, n) +
                      "expected 'NAME N samples [bytes] MIN MAX SUM [SUMSQ]' with counts below "
                      "2^64, found " +
                      shown(s));
  c->present = true;
  c->samples = v[0];
  c->min = v[1];
  c->max = v[2];
  c->sum = v[3];
  c->has_sumsq = t.count == 8;
  c->sumsq = v[4];
  return {};
}

LustreClientStats lustre_impl(std::string_view text, std::string_view want) {
  using R = LustreClientStats;
  if (text.size() > kClientStatsMaxBytes)
    return failed<R>(ClientStatsStatus::too_large, too_large_text(kLlite, text.size()));
  R r;
  Lines lines(text);
  std::string_view line;
  bool too_long = false;
  bool started = false;  // a first line was seen (a header, or the stats of a bare file)
  std::size_t blocks = 0;
  LustreMountBytes* cur = nullptr;
  while (lines.next(line, too_long)) {
    const std::string_view s = trim(line);
    if (s.empty()) continue;
    const bool header =
        s.find_first_of(" \t") == std::string_view::npos && s.find('=') != std::string_view::npos;
    if (header) {
      started = true;
      cur = nullptr;
      std::string_view instance;
      if (!llite_header(s, instance)) continue;  // another parameter: skip its lines
      if (++blocks > kClientStatsMaxMounts)
        return failed<R>(ClientStatsStatus::too_large, at(kLlite, lines.number()) + "more than " +
                                                           std::to_string(kClientStatsMaxMounts) +
                                                           " mounts");
      if (!matches(instance, want)) continue;
      r.mounts.emplace_back();
      r.mounts.back().instance = std::string(instance);
      cur = &r.mounts.back();
      continue;
    }
    if (!started) {  // the text of one stats file, without a header
      started = true;
      blocks = 1;
      if (want.empty()) cur = &r.mounts.emplace_back();
    }
    if (cur == nullptr) continue;
    if (auto no = llite_counter_line(s, lines.number(), *cur)) return failed<R>(no.status, no.why);
  }
  if (too_long)
    return failed<R>(ClientStatsStatus::too_large, at(kLlite, lines.number()) + "longer than " +
                                                       std::to_string(kClientStatsMaxLine) +
                                                       " bytes");
  if (r.mounts.empty())
    return failed<R>(ClientStatsStatus::not_found,
                     want.empty() ? std::string(kLlite) + ": no llite.*.stats"
                                  : std::string(kLlite) + ": no llite mount " + shown(want));
  return r;
}

// A parser that never throws: running out of memory is "too large", anything else a failure
// of its own, each one line.
template <class R, class F>
R never_throwing(const char* what, F&& parse) noexcept {
  try {
    return parse();
  } catch (const std::bad_alloc&) {
    return failed<R>(ClientStatsStatus::too_large, std::string(what) + ": out of memory");
  } catch (...) {
    return failed<R>(ClientStatsStatus::malformed, std::string(what) + ": unexpected failure");
  }
}

}  // namespace

NfsClientStats parse_nfs_mountstats(std::string_view text, std::string_view mount_point) noexcept {
  return never_throwing<NfsClientStats>(kNfs, [&] { return nfs_impl(text, mount_point); });
}

LustreClientStats parse_lustre_llite_stats(std::string_view text,
                                           std::string_view instance) noexcept {
  return never_throwing<LustreClientStats>(kLlite, [&] { return lustre_impl(text, instance); });
}

NfsClientStats read_nfs_mountstats(const std::string& mount_point) {
  std::ifstream in("/proc/self/mountstats");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_nfs_mountstats(text.str(), mount_point);
}

}  // namespace iosweep
