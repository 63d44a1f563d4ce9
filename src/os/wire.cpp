// Interface counters and the choice of the storage interfaces (see wire.hpp).
#include "os/wire.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "os/text_file.hpp"

namespace iosweep {
namespace {

std::string read_all(const char* path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string_view> split_ws(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
      ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t')
      ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

template <class F>
void for_lines(std::string_view text, F&& f) {
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t nl = text.find('\n', at);
    const std::size_t end = nl == std::string_view::npos ? text.size() : nl;
    f(text.substr(at, end - at));
    at = end + 1;
  }
}

bool is_local_address(std::uint32_t addr) {
  if ((ntohl(addr) >> 24) == 127) return true;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return false;
  bool local = false;
  for (const ifaddrs* i = list; i != nullptr && !local; i = i->ifa_next)
    if (i->ifa_addr != nullptr && i->ifa_addr->sa_family == AF_INET)
      local = reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr.s_addr == addr;
  ::freeifaddrs(list);
  return local;
}

// "ib:mlx5_0:1" -> the port's counters folder; empty when `name` is not an InfiniBand port.
std::string ib_counters(const std::string& name) {
  if (!name.starts_with("ib:")) return {};
  const auto colon = name.find(':', 3);
  if (colon == std::string::npos) return {};
  return "/sys/class/infiniband/" + name.substr(3, colon - 3) + "/ports/" + name.substr(colon + 1) +
         "/counters/";
}

std::vector<std::string> every_ib_port() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& dev : std::filesystem::directory_iterator("/sys/class/infiniband", ec))
    for (const auto& port : std::filesystem::directory_iterator(dev.path() / "ports", ec))
      out.push_back("ib:" + dev.path().filename().string() + ":" + port.path().filename().string());
  return out;
}

}  // namespace

std::string WireChoice::joined() const {
  std::string s;
  for (const auto& i : interfaces)
    s += (s.empty() ? "" : ",") + i;
  return s;
}

bool net_dev_counters(std::string_view net_dev, std::string_view name, WireCounters& out) {
  bool found = false;
  // "  eth0: RX_BYTES PACKETS ERRS DROP FIFO FRAME COMPRESSED MULTICAST TX_BYTES ..."
  for_lines(net_dev, [&](std::string_view line) {
    const auto colon = line.find(':');
    if (found || colon == std::string_view::npos) return;
    const auto words = split_ws(line.substr(0, colon));
    if (words.size() != 1 || words[0] != name) return;
    const auto f = split_ws(line.substr(colon + 1));
    if (f.size() < 9) return;
    out.rx_bytes = std::strtoull(std::string(f[0]).c_str(), nullptr, 10);
    out.tx_bytes = std::strtoull(std::string(f[8]).c_str(), nullptr, 10);
    found = true;
  });
  return found;
}

std::string route_interface(std::string_view route_text, std::uint32_t addr, bool local) {
  if (local) return "lo";
  std::string best;
  int best_bits = -1;
  unsigned long best_metric = 0;
  // "Iface Destination Gateway Flags RefCnt Use Metric Mask ...", addresses in hex as stored.
  for_lines(route_text, [&](std::string_view line) {
    const auto f = split_ws(line);
    if (f.size() < 8 || f[0] == "Iface") return;
    const auto dest =
        static_cast<std::uint32_t>(std::strtoul(std::string(f[1]).c_str(), nullptr, 16));
    const auto mask =
        static_cast<std::uint32_t>(std::strtoul(std::string(f[7]).c_str(), nullptr, 16));
    const unsigned long metric = std::strtoul(std::string(f[6]).c_str(), nullptr, 10);
    if ((addr & mask) != dest) return;
    const int bits = __builtin_popcount(mask);
    if (bits > best_bits || (bits == best_bits && metric < best_metric)) {
      best = std::string(f[0]);
      best_bits = bits;
      best_metric = metric;
    }
  });
  return best;
}

namespace {

// The value of mount option `key` ("mon_addr") in a mountinfo options field, or empty.
std::string option_value(const std::string& options, const std::string& key) {
  std::size_t at = 0;
  while (at <= options.size()) {
    const std::size_t comma = std::min(options.find(',', at), options.size());
    const std::string opt = options.substr(at, comma - at);
    if (opt.starts_with(key + "=")) return opt.substr(key.size() + 1);
    at = comma + 1;
  }
  return {};
}

// The source as the file system's own client wrote it: FUSE's NAME#SOURCE without NAME#, and
// CephFS's new form (name@fsid.fs=/path) replaced by its first monitor from mon_addr.
std::string client_source(const MountEntry& m, std::string& why) {
  std::string source = m.source;
  if ((m.fs_type == "fuse" || m.fs_type == "fuseblk") && source.find('#') != std::string::npos)
    source = source.substr(source.find('#') + 1);
  if (m.fs_type == "ceph" && source.find('@') != std::string::npos &&
      source.find('=') != std::string::npos) {
    const std::string mons = option_value(m.options, "mon_addr");
    if (mons.empty()) why = "its source " + m.source + " names no monitor and it has no mon_addr";
    return mons.empty() ? std::string() : mons.substr(0, mons.find('/')) + ":";
  }
  return source;
}

}  // namespace

std::string server_host_of(const MountEntry& m, std::string& why) {
  why.clear();
  const std::string source = client_source(m, why);
  if (source.empty() && why.empty()) why = "its source is empty";
  if (source.empty()) return {};
  if (source.front() == '/') {
    why = "its source " + source + " is a device, not a server";
    return {};
  }
  // Lustre names its first NID, nid@net:/fs; elsewhere user@host:path names a user first.
  const std::size_t at = source.find('@'), colon = source.find(':');
  const bool lustre = m.fs_type == "lustre" || source.find("@tcp") != std::string::npos ||
                      source.find("@o2ib") != std::string::npos;
  if (lustre && at != std::string::npos && at > 0) return source.substr(0, at);
  const std::string host = at != std::string::npos && (colon == std::string::npos || at < colon)
                               ? source.substr(at + 1)
                               : source;
  if (host.starts_with("[")) {
    why = "its server " + host.substr(0, host.find(']') + 1) +
          " is an IPv6 address; iosweep follows IPv4 routes: name the interface";
    return {};
  }
  const std::size_t end = host.find_first_of(":,/");
  if (end == std::string::npos || end == 0 || host[end] == '/') {
    why = "its source " + m.source + " names no server";
    return {};
  }
  return host.substr(0, end);
}

bool server_of(const MountEntry& mount, std::uint32_t& addr, std::string& why) {
  const std::string host = server_host_of(mount, why);
  if (host.empty()) return false;
  in_addr a{};
  if (::inet_pton(AF_INET, host.c_str(), &a) == 1) {
    addr = a.s_addr;
    return true;
  }
  addrinfo hints{};
  hints.ai_family = AF_INET;
  addrinfo* res = nullptr;
  if (::getaddrinfo(host.c_str(), nullptr, &hints, &res) != 0 || res == nullptr) {
    why = "its server " + host + " does not resolve to an IPv4 address";
    return false;
  }
  addr = reinterpret_cast<const sockaddr_in*>(res->ai_addr)->sin_addr.s_addr;
  ::freeaddrinfo(res);
  return true;
}

WireChoice choose_wire(const MountEntry& mount, const std::vector<std::string>& named) {
  WireChoice c;
  if (!named.empty()) {
    c.interfaces = named;
    return c;
  }
  if (!mount.found) {
    c.why = mount.why;
    return c;
  }
  if (mount.source.find("@o2ib") != std::string::npos) {
    c.interfaces = every_ib_port();
    if (c.interfaces.empty())
      c.why = mount.fs_type + " over o2ib, but this node has no InfiniBand port";
    return c;
  }
  std::uint32_t addr = 0;
  std::string why;
  if (!server_of(mount, addr, why)) {
    c.why = mount.fs_type + " at " + mount.mount_point + ": " + why;
    return c;
  }
  const std::string iface =
      route_interface(read_all("/proc/self/net/route"), addr, is_local_address(addr));
  if (iface.empty()) {
    c.why = "no route to the server of " + mount.source;
    return c;
  }
  c.interfaces = {iface};
  return c;
}

std::string check_wire(const WireChoice& choice) {
  const std::string net_dev = read_all("/proc/self/net/dev");
  for (const auto& i : choice.interfaces) {
    WireCounters w;
    const std::string ib = ib_counters(i);
    if (!ib.empty() ? first_line_of(ib + "port_rcv_data").empty()
                    : !net_dev_counters(net_dev, i, w))
      return "this node has no interface " + i + (ib.empty() ? "" : " (InfiniBand DEVICE:PORT)");
  }
  return {};
}

std::vector<WireCounters> sample_wire(const WireChoice& choice) {
  std::vector<WireCounters> out;
  const std::string net_dev = read_all("/proc/self/net/dev");
  for (const auto& i : choice.interfaces) {
    const std::string ib = ib_counters(i);
    WireCounters w;
    if (!ib.empty()) {
      // InfiniBand counts its data in units of 4 bytes (lanes); the counters may be 32 bits
      // wide on old adapters, which then saturate: prefer a run short enough for them.
      const std::string rx = first_line_of(ib + "port_rcv_data");
      const std::string tx = first_line_of(ib + "port_xmit_data");
      w.found = !rx.empty() && !tx.empty();
      w.rx_bytes = 4 * std::strtoull(rx.c_str(), nullptr, 10);
      w.tx_bytes = 4 * std::strtoull(tx.c_str(), nullptr, 10);
    } else {
      w.found = net_dev_counters(net_dev, i, w);
      w.index = ::if_nametoindex(i.c_str());
    }
    out.push_back(w);
  }
  return out;
}

WireDelta wire_delta(const WireChoice& choice, const std::vector<WireCounters>& before,
                     const std::vector<WireCounters>& after) {
  WireDelta d;
  for (std::size_t i = 0; i < choice.interfaces.size(); ++i) {
    const std::string& name = choice.interfaces[i];
    const WireCounters b = i < before.size() ? before[i] : WireCounters{0, 0, false, 0};
    const WireCounters a = i < after.size() ? after[i] : WireCounters{0, 0, false, 0};
    if (!b.found || !a.found)
      d.note = "interface " + name + " was gone " + (b.found ? "after" : "before") +
               " the phase (deleted, renamed or out of this network namespace)";
    else if (a.index != b.index)
      d.note = "interface " + name + " was replaced during the phase (another interface index)";
    else if (a.rx_bytes < b.rx_bytes || a.tx_bytes < b.tx_bytes)
      d.note = "the counters of " + name + " went back during the phase (reset)";
    if (!d.note.empty()) return {0, 0, d.note};
    d.rx_bytes += a.rx_bytes - b.rx_bytes;
    d.tx_bytes += a.tx_bytes - b.tx_bytes;
  }
  return d;
}

std::uint64_t network_identity() {
  struct stat st {};
  if (::stat("/proc/self/ns/net", &st) != 0) return 0;
  return (static_cast<std::uint64_t>(st.st_dev) << 32) ^ static_cast<std::uint64_t>(st.st_ino);
}

}  // namespace iosweep
