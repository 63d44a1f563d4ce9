// Block device counters (see block_device.hpp).
#include "os/block_device.hpp"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <functional>
#include <sstream>

#include "os/file_ops.hpp"
#include "os/mountinfo.hpp"
#include "os/text_file.hpp"

namespace iosweep {
namespace {

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

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
  if (const std::string dm = first_line_of(sys + "/dm/name"); !dm.empty())
    d.name_ += " (" + dm + ")";
  const std::string boot = first_line_of("/proc/sys/kernel/random/boot_id");
  d.identity_ = std::hash<std::string>{}(boot + "|" + sys);
  return d;
}

DeviceCounters BlockDevice::sample() const {
  DeviceCounters c;
  if (!valid()) return c;
  // Fields (Documentation/block/stat.rst): read I/Os, read merges, read sectors, read ticks,
  // write I/Os, write merges, write sectors, ...; sectors are 512 bytes whatever the device's.
  std::istringstream in(first_line_of(stat_path_));
  std::uint64_t f[7] = {};
  for (auto& x : f)
    if (!(in >> x)) return {};
  c.read_ops = f[0];
  c.read_bytes = f[2] * 512;
  c.write_ops = f[4];
  c.write_bytes = f[6] * 512;
  return c;
}

DeviceCounters operator-(const DeviceCounters& a, const DeviceCounters& b) {
  auto sub = [](std::uint64_t x, std::uint64_t y) { return x >= y ? x - y : 0; };
  return {sub(a.read_bytes, b.read_bytes), sub(a.write_bytes, b.write_bytes),
          sub(a.read_ops, b.read_ops), sub(a.write_ops, b.write_ops)};
}

}  // namespace iosweep
