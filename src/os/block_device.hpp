// The block device under a folder, and its own I/O counters (/sys/dev/block/MAJ:MIN/stat), so
// that a figure can say whether its bytes reached the device. A partition is resolved to its
// disk; device-mapper and md devices are the top device and are named by their own name. A
// folder on a file system without a block device (tmpfs, NFS, Lustre, GPFS, overlay, btrfs's
// anonymous devices) has none: nothing is guessed, the reason is kept.
#pragma once

#include <cstdint>
#include <string>

namespace iosweep {

// A device's counters at one moment; `found` false when they could not be read (the device
// gone: unplugged, a loop device detached, a device-mapper table removed).
struct DeviceCounters {
  std::uint64_t read_bytes = 0, write_bytes = 0, read_ops = 0, write_ops = 0;
  bool found = true;
};

// What the device did between two samples, or why that cannot be said (`note` not empty, the
// counts then 0): gone at either sample, or a counter that went back (the device replaced under
// the same number). Never a measured zero that was not measured.
struct DeviceDelta {
  DeviceCounters counts;
  std::string note;
};

class BlockDevice {
 public:
  static BlockDevice of(const std::string& dir);

  bool valid() const { return !stat_path_.empty(); }
  const std::string& name() const { return name_; }  // "vda", "dm-0 (vg-root)", "md0"
  const std::string& why() const { return why_; }    // why there is none
  // Identity of the counted device on this kernel: the same on two emulated nodes of one
  // machine, different on two machines.
  std::uint64_t identity() const { return identity_; }
  // Counters since boot; `found` false when the device cannot be read any more.
  DeviceCounters sample() const;
  // The counters of its stat file's text ("read I/Os, read merges, read sectors, ..."); `found`
  // false when it holds fewer than seven numbers.
  static DeviceCounters parse_stat(const std::string& text);

 private:
  std::string stat_path_, name_, why_;
  std::uint64_t identity_ = 0;
};

// `after - before`, each counter on its own (counters only grow), or the note; `name` names the
// device in it.
DeviceDelta device_delta(const DeviceCounters& before, const DeviceCounters& after,
                         const std::string& name);

}  // namespace iosweep
