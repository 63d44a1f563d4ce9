// The block device under a folder, and its own I/O counters (/sys/dev/block/MAJ:MIN/stat), so
// that a figure can say whether its bytes reached the device. A partition is resolved to its
// disk; device-mapper and md devices are the top device and are named by their own name. A
// folder on a file system without a block device (tmpfs, NFS, Lustre, GPFS, overlay, btrfs's
// anonymous devices) has none: nothing is guessed, the reason is kept.
#pragma once

#include <cstdint>
#include <limits>
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

// How fast the path to a drive is: an NVMe drive's PCIe link, per direction (PCIe is full
// duplex: reads and writes each have it all), as the kernel reports the link now (it may have
// trained below what the drive and slot can do). `Bps` NaN: unknown, and `text` says which
// limit and why ("loop0 is a loop device: ..."); else `text` says what was read.
struct DriveLink {
  double Bps = std::numeric_limits<double>::quiet_NaN();
  std::string text;
};

// The bytes per second one lane carries per direction at a link speed as sysfs writes it
// ("16.0 GT/s PCIe" since Linux 5.x, "8 GT/s" before, "2.5 GT/s PCIe"): the transfer rate times
// its encoding's efficiency (8b/10b up to 5 GT/s, 128b/130b from 8 GT/s; docs/design-notes.md
// has the table and its source), and the PCIe generation ("4.0"); 0 for "Unknown" or a rate
// PCIe does not define.
double pcie_lane_Bps(const std::string& speed_text, std::string& generation);
// The lanes of a current_link_width text ("4"; "x4" as lspci writes it); 0 when unreadable.
unsigned pcie_lanes(const std::string& width_text);
// A link from the texts of current_link_speed and current_link_width (and the max_ ones, which
// the text names when the link trained below them; empty when not read).
DriveLink pcie_link(const std::string& speed, const std::string& width,
                    const std::string& max_speed = {}, const std::string& max_width = {});
// Why the limit of the device `name` at the sysfs path `sys` is not known, when it is no NVMe
// drive on PCIe: a virtio, SATA or SCSI disk, a loop, device-mapper, md, network or memory
// device. Pure text: unit-tested on real paths.
std::string unknown_link(const std::string& name, const std::string& sys);
// The link of the disk `name` whose sysfs folder (resolved, a partition's disk) is `sys`: an
// NVMe disk's PCIe link, found by walking up from it (or from each of its multipath paths) to
// the PCI function that has current_link_speed; else unknown_link's words.
DriveLink drive_link(const std::string& name, const std::string& sys);

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
  // Its link (an NVMe drive's PCIe link, read once when the device was resolved).
  const DriveLink& link() const { return link_; }

 private:
  std::string stat_path_, name_, why_;
  std::uint64_t identity_ = 0;
  DriveLink link_;
};

// `after - before`, each counter on its own (counters only grow), or the note; `name` names the
// device in it.
DeviceDelta device_delta(const DeviceCounters& before, const DeviceCounters& after,
                         const std::string& name);

}  // namespace iosweep
