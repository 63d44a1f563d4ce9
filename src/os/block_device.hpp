// The block device under a folder, and its own I/O counters (/sys/dev/block/MAJ:MIN/stat), so
// that a figure can say whether its bytes reached the device. A partition is resolved to its
// disk; device-mapper and md devices are the top device and are named by their own name. A
// folder on a file system without a block device (tmpfs, NFS, Lustre, GPFS, overlay, btrfs's
// anonymous devices) has none: nothing is guessed, the reason is kept.
#pragma once

#include <cstdint>
#include <string>

namespace iosweep {

struct DeviceCounters {
  std::uint64_t read_bytes = 0, write_bytes = 0, read_ops = 0, write_ops = 0;
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
  // Counters since boot; all zero when the device cannot be read any more.
  DeviceCounters sample() const;

 private:
  std::string stat_path_, name_, why_;
  std::uint64_t identity_ = 0;
};

// `after - before`, each counter on its own (counters only grow).
DeviceCounters operator-(const DeviceCounters& after, const DeviceCounters& before);

}  // namespace iosweep
