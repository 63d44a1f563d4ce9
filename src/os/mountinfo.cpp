// Reading the mount table (see mountinfo.hpp).
#include "os/mountinfo.hpp"

#include <climits>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

namespace iosweep {
namespace {

// mountinfo writes space, tab, newline and backslash as \NNN (octal).
std::string unescape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' &&
        s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::vector<std::string_view> fields_of(std::string_view line) {
  std::vector<std::string_view> f;
  std::size_t at = 0;
  while (at < line.size()) {
    const std::size_t sp = line.find(' ', at);
    const std::size_t end = sp == std::string_view::npos ? line.size() : sp;
    if (end > at) f.push_back(line.substr(at, end - at));
    at = end + 1;
  }
  return f;
}

bool contains(const std::string& mount_point, const std::string& path) {
  if (mount_point == "/") return true;
  return path == mount_point ||
         (path.size() > mount_point.size() &&
          path.compare(0, mount_point.size(), mount_point) == 0 && path[mount_point.size()] == '/');
}

}  // namespace

MountEntry mount_in(std::string_view mountinfo, const std::string& real_path) {
  MountEntry best;
  std::size_t at = 0;
  while (at < mountinfo.size()) {
    const std::size_t nl = mountinfo.find('\n', at);
    const std::string_view line =
        mountinfo.substr(at, (nl == std::string_view::npos ? mountinfo.size() : nl) - at);
    at = nl == std::string_view::npos ? mountinfo.size() : nl + 1;
    // ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER_OPTIONS
    const auto f = fields_of(line);
    std::size_t dash = 6;
    while (dash < f.size() && f[dash] != "-")
      ++dash;
    if (f.size() < 6 || dash + 2 >= f.size()) continue;
    const std::string mount_point = unescape(f[4]);
    if (!contains(mount_point, real_path)) continue;
    if (best.found && mount_point.size() < best.mount_point.size()) continue;
    best.found = true;
    best.mount_point = mount_point;
    best.fs_type = unescape(f[dash + 1]);
    best.source = unescape(f[dash + 2]);
    best.options = unescape(f[5]);
    if (dash + 3 < f.size()) best.options += "," + unescape(f[dash + 3]);
  }
  if (!best.found) best.why = "no mount in the mount table holds " + real_path;
  return best;
}

MountEntry mount_of(const std::string& dir) {
  char real[PATH_MAX];
  if (::realpath(dir.c_str(), real) == nullptr) {
    MountEntry m;
    m.why = "cannot resolve " + dir;
    return m;
  }
  std::ifstream in("/proc/self/mountinfo");
  if (!in) {
    MountEntry m;
    m.why = "/proc/self/mountinfo cannot be read";
    return m;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return mount_in(text.str(), real);
}

}  // namespace iosweep
