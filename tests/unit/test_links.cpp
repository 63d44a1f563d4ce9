// A drive's link, from the kernel's sysfs texts: the PCIe speed and width parsers against the
// formats the kernel writes (pci_speed_string's "16.0 GT/s PCIe" since Linux 5.x, "8 GT/s" and
// "Unknown speed" before; the width as "%u"), the per-lane table, the link of an NVMe drive
// found by walking up a sysfs tree laid out as the kernel lays it out (a namespace under its
// controller under its PCI function; a multipath head; NVMe over TCP), the words for every
// other kind of device on real sysfs paths, and the CPU clock a window is read with.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "os/block_device.hpp"
#include "os/process.hpp"

using namespace iosweep;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

void write(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text << "\n";
}

// A folder of its own under the test's temporary directory, removed at the end.
struct Tree {
  std::filesystem::path root;
  Tree() {
    root = std::filesystem::temp_directory_path() /
           ("iosweep-links-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root);
  }
  ~Tree() { std::filesystem::remove_all(root); }
  Tree(const Tree&) = delete;
  Tree& operator=(const Tree&) = delete;
};

// A PCI function with a link, as pci-sysfs writes its attributes.
void pci_function(const std::filesystem::path& f, const std::string& speed,
                  const std::string& width, const std::string& max_speed,
                  const std::string& max_width) {
  write(f / "current_link_speed", speed);
  write(f / "current_link_width", width);
  write(f / "max_link_speed", max_speed);
  write(f / "max_link_width", max_width);
}

}  // namespace

// Per lane and direction: 8b/10b up to 5 GT/s, 128b/130b from 8 GT/s; in both formats the
// kernel has written.
TEST(Links, LaneRatesByTheKernelsSpeedTexts) {
  const struct {
    const char* text;
    double gb_per_s;
    const char* generation;
  } cases[] = {{"2.5 GT/s PCIe", 0.25, "1.0"},    {"2.5 GT/s", 0.25, "1.0"},
               {"5.0 GT/s PCIe", 0.5, "2.0"},     {"5 GT/s", 0.5, "2.0"},
               {"8.0 GT/s PCIe", 0.9846, "3.0"},  {"8 GT/s", 0.9846, "3.0"},
               {"16.0 GT/s PCIe", 1.9692, "4.0"}, {"16 GT/s", 1.9692, "4.0"},
               {"32.0 GT/s PCIe", 3.9385, "5.0"}, {"64.0 GT/s PCIe", 7.8769, "6.0"}};
  for (const auto& c : cases) {
    std::string generation;
    EXPECT_NEAR(pcie_lane_Bps(c.text, generation) / 1e9, c.gb_per_s, 1e-4) << c.text;
    EXPECT_EQ(generation, c.generation) << c.text;
  }
  for (const char* unknown : {"Unknown", "Unknown speed", "", "2.7 GT/s PCIe", "16.0 Gb/s"}) {
    std::string generation;
    EXPECT_EQ(pcie_lane_Bps(unknown, generation), 0) << unknown;
  }
  EXPECT_EQ(pcie_lanes("4"), 4u);
  EXPECT_EQ(pcie_lanes("x4"), 4u);
  EXPECT_EQ(pcie_lanes("16"), 16u);
  for (const char* bad : {"", "x", "four", "-4", "4 lanes"})
    EXPECT_EQ(pcie_lanes(bad), 0u) << bad;
}

// PCIe 4.0 x4 carries 7.877 GB/s, 5.0 x4 15.754 GB/s; a link trained below the device says so;
// a link down is unknown, in words.
TEST(Links, ALinkFromItsSpeedAndWidth) {
  DriveLink l = pcie_link("16.0 GT/s PCIe", "4", "16.0 GT/s PCIe", "4");
  EXPECT_NEAR(l.Bps, 7.877e9, 1e6);
  EXPECT_EQ(l.text, "PCIe 4.0 x4 (16.0 GT/s PCIe, 4 lanes: 7.877 GB/s)");
  l = pcie_link("32.0 GT/s PCIe", "4");
  EXPECT_NEAR(l.Bps, 15.754e9, 1e6);
  l = pcie_link("8.0 GT/s PCIe", "2", "16.0 GT/s PCIe", "4");
  EXPECT_NEAR(l.Bps, 1.969e9, 1e6);
  EXPECT_EQ(l.text,
            "PCIe 3.0 x2 (8.0 GT/s PCIe, 2 lanes: 1.969 GB/s); trained below the device's PCIe "
            "4.0 x4");
  l = pcie_link("Unknown", "0");
  EXPECT_TRUE(std::isnan(l.Bps));
  EXPECT_TRUE(contains(l.text, "reads 'Unknown' at width '0'")) << l.text;
}

// Every other device says in words which limit is unknown and why, from real sysfs paths.
TEST(Links, OtherDevicesSayWhyTheirLimitIsUnknown) {
  const struct {
    const char* name;
    const char* sys;
    const char* says;
  } cases[] = {
      {"vda", "/sys/devices/pci0000:00/0000:00:02.0/virtio1/block/vda",
       "vda is a virtio disk: the host hides its limit"},
      {"loop0", "/sys/devices/virtual/block/loop0",
       "loop0 is a loop device: its file's storage sets the limit"},
      {"sda", "/sys/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda",
       "sda is a SATA disk: its SATA link is not read"},
      {"sdb",
       "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/host6/target6:2:0/6:2:0:0/block/sdb",
       "sdb is a SCSI disk"},
      {"dm-0", "/sys/devices/virtual/block/dm-0",
       "dm-0 is device-mapper: the devices under it set the limit"},
      {"md127", "/sys/devices/virtual/block/md127",
       "md127 is md RAID: its member devices set the limit"},
      {"nbd0", "/sys/devices/virtual/block/nbd0", "nbd0 is a network block device"},
      {"rbd0", "/sys/devices/rbd/0/block/rbd0", "rbd0 is a network block device"},
      {"zram0", "/sys/devices/virtual/block/zram0", "zram0 is memory-backed: no link"},
      {"mmcblk0", "/sys/devices/platform/soc/mmc0/mmc_host/mmc0/mmc0:0001/block/mmcblk0",
       "mmcblk0 is an MMC or SD card"},
      {"xvda", "/sys/devices/vbd-51712/block/xvda", "xvda has no PCIe link in sysfs"},
  };
  for (const auto& c : cases) {
    const DriveLink l = drive_link(c.name, c.sys);
    EXPECT_TRUE(std::isnan(l.Bps)) << c.name;
    EXPECT_EQ(l.text.rfind(c.says, 0), 0u) << l.text;
  }
}

// An NVMe namespace's link is its controller's PCI function's, the first up from the disk (not
// the root port's above it); a multipath head takes its paths'; NVMe over TCP has none.
TEST(Links, AnNvmeDriveIsFoundUpItsSysfsTree) {
  Tree t;
  const auto port = t.root / "sys/devices/pci0000:00/0000:00:01.1";
  const auto function = port / "0000:01:00.0";
  pci_function(port, "16.0 GT/s PCIe", "16", "16.0 GT/s PCIe", "16");
  pci_function(function, "16.0 GT/s PCIe", "4", "16.0 GT/s PCIe", "4");
  const auto disk = function / "nvme/nvme0/nvme0n1";
  std::filesystem::create_directories(disk);
  DriveLink l = drive_link("nvme0n1", disk.string());
  EXPECT_NEAR(l.Bps, 7.877e9, 1e6) << l.text;
  EXPECT_EQ(l.text, "PCIe 4.0 x4 (16.0 GT/s PCIe, 4 lanes: 7.877 GB/s)");

  // Native multipath: the head under the subsystem, its path's hidden disk under multipath/.
  const auto path_disk = function / "nvme/nvme0/nvme0c0n1";
  std::filesystem::create_directories(path_disk);
  const auto head = t.root / "sys/devices/virtual/nvme-subsystem/nvme-subsys0/nvme0n1";
  std::filesystem::create_directories(head / "multipath");
  std::filesystem::create_directory_symlink(path_disk, head / "multipath/nvme0c0n1");
  l = drive_link("nvme0n1", head.string());
  EXPECT_NEAR(l.Bps, 7.877e9, 1e6) << l.text;

  // NVMe over TCP: a controller under /sys/devices/virtual, no PCI function above it.
  const auto ctrl = t.root / "sys/devices/virtual/nvme-fabrics/ctl/nvme1";
  write(ctrl / "transport", "tcp");
  std::filesystem::create_directories(ctrl / "nvme1n1");
  std::filesystem::create_directory_symlink(ctrl, ctrl / "nvme1n1/device");
  l = drive_link("nvme1n1", (ctrl / "nvme1n1").string());
  EXPECT_TRUE(std::isnan(l.Bps));
  EXPECT_EQ(l.text, "nvme1n1 has no PCIe link in sysfs (NVMe over tcp: the fabric sets its limit)");

  // A link that is down reads Unknown: unknown, saying where it was read.
  pci_function(function, "Unknown", "0", "16.0 GT/s PCIe", "4");
  l = drive_link("nvme0n1", disk.string());
  EXPECT_TRUE(std::isnan(l.Bps));
  EXPECT_TRUE(contains(l.text, "nvme0n1 at 0000:01:00.0: its PCIe link reads 'Unknown'")) << l.text;
}

TEST(CpuClock, ScheduleStatisticsGiveTheRunQueueDelay) {
  std::uint64_t delay = 0;
  EXPECT_TRUE(parse_schedstat("4172632 4648438 17", delay));
  EXPECT_EQ(delay, 4648438u);
  EXPECT_FALSE(parse_schedstat("4172632", delay));
  EXPECT_FALSE(parse_schedstat("", delay));
}

// The clock counts every thread of the process, not only the one that reads it.
TEST(CpuClock, CountsEveryThreadOfTheProcess) {
  auto thread_cpu_s = [] {
    timespec ts{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  };
  CpuClock clock;
  clock.start();
  std::thread worker([&] {
    const double until = thread_cpu_s() + 0.05;  // 50 ms of its own CPU, however loaded
    volatile double x = 0;
    while (thread_cpu_s() < until)
      x = x + 1;
  });
  worker.join();
  const CpuSpent spent = clock.stop();
  EXPECT_GE(spent.user_s + spent.sys_s, 0.045);
  if (!std::isnan(spent.queued_s)) {
    EXPECT_GE(spent.queued_s, 0.0);
  }
}
