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
