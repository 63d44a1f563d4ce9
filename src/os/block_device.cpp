// Block device counters (see block_device.hpp).
#include "os/block_device.hpp"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <sstream>
#include <vector>

#include "os/file_ops.hpp"
#include "os/mountinfo.hpp"
#include "os/text_file.hpp"

namespace iosweep {
namespace {

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::string parent_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos || slash == 0 ? std::string() : path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  return path.substr(path.find_last_of('/') + 1);
}

// The PCI function of the controller above an NVMe disk's sysfs folder: the first folder up
// that has current_link_speed, below the `devices` folder; empty when there is none (NVMe over
// fabrics, whose controllers sit under /sys/devices/virtual).
std::string pci_function_above(std::string path) {
  for (; !path.empty() && base_of(path) != "devices"; path = parent_of(path))
    if (exists(path + "/current_link_speed")) return path;
  return {};
}

// The sysfs folders of an NVMe disk's paths to its drive: with native multipath the disk is the
// subsystem's head and each path a hidden disk (multipath/nvme0c0n1 ...), else the disk itself.
std::vector<std::string> nvme_paths(const std::string& sys) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(sys + "/multipath", ec)) {
    std::error_code real_ec;
    const auto real = std::filesystem::canonical(e.path(), real_ec);
    if (!real_ec) out.push_back(real.string());
  }
  if (out.empty()) out.push_back(sys);
  std::sort(out.begin(), out.end());
  return out;
}

// An NVMe disk's links: every path's PCIe link, summed over the paths (a dual-ported drive on
// two controllers carries both), or why unknown.
DriveLink nvme_link(const std::string& name, const std::string& sys) {
  DriveLink total;
  double sum = 0;
  const std::vector<std::string> paths = nvme_paths(sys);
  for (const auto& p : paths) {
    const std::string pci = pci_function_above(p);
    if (pci.empty()) {
      const std::string transport = first_line_of(p + "/device/transport");
      total.text = name + " has no PCIe link in sysfs" +
                   (transport.empty() || transport == "pcie"
                        ? std::string()
                        : " (NVMe over " + transport + ": the fabric sets its limit)");
      return total;
    }
    const DriveLink l = pcie_link(
        first_line_of(pci + "/current_link_speed"), first_line_of(pci + "/current_link_width"),
        first_line_of(pci + "/max_link_speed"), first_line_of(pci + "/max_link_width"));
    if (std::isnan(l.Bps)) {
      total.text = name + " at " + base_of(pci) + ": " + l.text;
      return total;
    }
    sum += l.Bps;
    total.text += (total.text.empty() ? "" : " + ") + l.text;
  }
  total.Bps = sum;
  if (paths.size() > 1) total.text += " (" + std::to_string(paths.size()) + " paths)";
  return total;
}

}  // namespace

double pcie_lane_Bps(const std::string& speed_text, std::string& generation) {
  // Per lane and direction: GT/s x encoding efficiency / 8 bits (docs/design-notes.md).
  struct Rate {
    double gts;
    const char* generation;
    double efficiency;
  };
  static constexpr Rate kRates[] = {{2.5, "1.0", 8.0 / 10},   {5, "2.0", 8.0 / 10},
                                    {8, "3.0", 128.0 / 130},  {16, "4.0", 128.0 / 130},
                                    {32, "5.0", 128.0 / 130}, {64, "6.0", 128.0 / 130}};
  double gts = 0;
  std::istringstream in(speed_text);
  std::string unit;
  if (!(in >> gts >> unit) || unit != "GT/s") return 0;
  for (const Rate& r : kRates)
    if (std::abs(gts - r.gts) < 1e-9) {
      generation = r.generation;
      return r.gts * 1e9 * r.efficiency / 8;
    }
  return 0;
}

unsigned pcie_lanes(const std::string& width_text) {
  std::string t = width_text;
  if (!t.empty() && (t.front() == 'x' || t.front() == 'X')) t.erase(0, 1);
  if (t.empty() || t.find_first_not_of("0123456789") != std::string::npos || t.size() > 3) return 0;
  return static_cast<unsigned>(std::stoul(t));
}

DriveLink pcie_link(const std::string& speed, const std::string& width,
                    const std::string& max_speed, const std::string& max_width) {
  DriveLink l;
  std::string generation;
  const double lane_Bps = pcie_lane_Bps(speed, generation);
  const unsigned lanes = pcie_lanes(width);
  if (lane_Bps == 0 || lanes == 0) {
    l.text = "its PCIe link reads '" + speed + "' at width '" + width +
             "' (link down, or a speed this iosweep does not know)";
    return l;
  }
  l.Bps = lane_Bps * lanes;
  char b[160];
  std::snprintf(b, sizeof b, "PCIe %s x%u (%s, %u lane%s: %.3f GB/s)", generation.c_str(), lanes,
                speed.c_str(), lanes, lanes == 1 ? "" : "s", l.Bps / 1e9);
  l.text = b;
  std::string max_generation;
  const double max_lane_Bps = pcie_lane_Bps(max_speed, max_generation);
  const unsigned max_lanes = pcie_lanes(max_width);
  if (max_lane_Bps * max_lanes > l.Bps)
    l.text +=
        "; trained below the device's PCIe " + max_generation + " x" + std::to_string(max_lanes);
  return l;
}

std::string unknown_link(const std::string& name, const std::string& sys) {
  auto named = [&](const char* prefix) { return name.rfind(prefix, 0) == 0; };
  auto on = [&](const char* part) { return sys.find(part) != std::string::npos; };
  std::string why;
  if (named("loop"))
    why = "a loop device: its file's storage sets the limit";
  else if (named("dm-"))
    why = "device-mapper: the devices under it set the limit";
  else if (named("md"))
    why = "md RAID: its member devices set the limit";
  else if (named("nbd") || named("rbd") || named("drbd"))
    why = "a network block device: the network sets the limit";
  else if (named("zram") || named("ram") || named("pmem"))
    why = "memory-backed: no link";
  else if (on("/virtio"))
    why = "a virtio disk: the host hides its limit";
  else if (on("/ata"))
    why = "a SATA disk: its SATA link is not read";
  else if (on("/host") && on("/target"))
    why = "a SCSI disk (SAS, USB, iSCSI, RAID): its link is not read";
  else if (named("mmcblk"))
    why = "an MMC or SD card: its bus is not read";
  else
    return name + " has no PCIe link in sysfs";
  return name + " is " + why;
}

DriveLink drive_link(const std::string& name, const std::string& sys) {
  if (name.rfind("nvme", 0) == 0 && sys.find("/nvme") != std::string::npos)
    return nvme_link(name, sys);
  return {std::numeric_limits<double>::quiet_NaN(), unknown_link(name, sys)};
}

BlockDevice BlockDevice::of(const std::string& dir) {
  BlockDevice d;
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    d.why_ = "cannot stat " + dir;
    return d;
  }
  const unsigned maj = major(st.st_dev), min = minor(st.st_dev);
  if (maj == 0) {
    d.why_ = dir + " is on " + mount_of(dir).fs_type +
             ", which has no block device (device 0:" + std::to_string(min) + ")";
    return d;
  }
  const std::string link = "/sys/dev/block/" + std::to_string(maj) + ":" + std::to_string(min);
  char real[PATH_MAX];
  if (::realpath(link.c_str(), real) == nullptr) {
    d.why_ = "device " + std::to_string(maj) + ":" + std::to_string(min) + " of " + dir +
             " is not in /sys/dev/block";
    return d;
  }
  std::string sys = real;
  if (exists(sys + "/partition")) sys = sys.substr(0, sys.find_last_of('/'));  // its disk
  if (!exists(sys + "/stat")) {
    d.why_ = sys + "/stat does not exist";
    return d;
  }
  d.stat_path_ = sys + "/stat";
  d.name_ = sys.substr(sys.find_last_of('/') + 1);
  d.link_ = drive_link(d.name_, sys);
  if (const std::string dm = first_line_of(sys + "/dm/name"); !dm.empty())
    d.name_ += " (" + dm + ")";
  const std::string boot = first_line_of("/proc/sys/kernel/random/boot_id");
  d.identity_ = std::hash<std::string>{}(boot + "|" + sys);
  return d;
}

DeviceCounters BlockDevice::parse_stat(const std::string& text) {
  // Fields (Documentation/block/stat.rst): read I/Os, read merges, read sectors, read ticks,
  // write I/Os, write merges, write sectors, ...; sectors are 512 bytes whatever the device's.
  std::istringstream in(text);
  std::uint64_t f[7] = {};
  for (auto& x : f)
    if (!(in >> x)) return {0, 0, 0, 0, false};
  return {f[2] * 512, f[6] * 512, f[0], f[4], true};
}

DeviceCounters BlockDevice::sample() const {
  if (!valid()) return {0, 0, 0, 0, false};
  return parse_stat(first_line_of(stat_path_));
}

DeviceDelta device_delta(const DeviceCounters& b, const DeviceCounters& a,
                         const std::string& name) {
  if (!b.found || !a.found)
    return {{},
            "device " + name + " could not be read " + (b.found ? "after" : "before") +
                " the phase (gone)"};
  if (a.read_bytes < b.read_bytes || a.write_bytes < b.write_bytes || a.read_ops < b.read_ops ||
      a.write_ops < b.write_ops)
    return {{}, "the counters of device " + name + " went back during the phase (replaced)"};
  return {{a.read_bytes - b.read_bytes, a.write_bytes - b.write_bytes, a.read_ops - b.read_ops,
           a.write_ops - b.write_ops, true},
          {}};
}

}  // namespace iosweep
