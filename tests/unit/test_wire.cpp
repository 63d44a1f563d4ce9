// The storage-interface parsers (os/wire) on real /proc/net/dev and /proc/net/route text, the
// server a mount source names, the choice of interfaces from a mount, and the counters of this
// machine's own loopback.
//
// The server each file system's client names in its mount table line, from lines as each client
// writes them:
//   - GlusterFS: a line of the test bed's own client (scripts/dfs-bed, glusterfs 10.3);
//   - MooseFS 3.0: type fuse, source mfs#198.18.0.1:9421, as an outside MooseFS bed showed it;
//   - the other FUSE clients as their code builds the mount (libfuse's lib/mount.c: the type is
//     fuse.SUBTYPE, the source the fsname, else the subtype, else /dev/fuse; where the kernel
//     takes no subtype the type is fuse and the source SUBTYPE#FSNAME); MooseFS and LizardFS's
//     mfsmount make_fsname (subtype mfs, fsname host:port[/subfolder], or mfs#host:port without a
//     FUSE version check); sshfs 3 (subtype sshfs, fsname [user@]host:[dir]; sshfs 2 wrote
//     sshfs#[user@]host:[dir]); ceph-fuse (fuse_main's default subtype and source, the program
//     name; its monitors come from ceph.conf, not the mount);
//   - kernel clients as mount(8) and their mount helpers document them: mount.ceph(8) (both
//     device syntaxes), Lustre's mgsnid@net:/fsname, NFS, GPFS, BeeGFS.
#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "os/block_device.hpp"
#include "os/mountinfo.hpp"
#include "os/wire.hpp"

using namespace iosweep;

namespace {

// This machine's /proc/net/dev, and lines as the kernel prints them for a long interface name
// ("%6s:" leaves no blank) and for counters wider than their column (glued to the colon).
constexpr const char* kNetDev =
    "Inter-|   Receive                                                |  Transmit\n"
    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs "
    "drop fifo colls carrier compressed\n"
    "    lo: 12840445   38941    0    0    0     0          0         0 12840445   38941    0    "
    "0    0     0       0          0\n"
    "  ifb0:       0       0    0    0    0     0          0         0        0       0    0    "
    "0    0     0       0          0\n"
    "  eth0: 199557884    4583    0    0    0     0          0         0   167457    2290    0  "
    "  0    0     0       0          0\n"
    "enp94s0f1np1: 5000 10 0 0 0 0 0 0 7000 20 0 0 0 0 0 0\n"
    "   ib0:18446744073709551000 9 0 0 0 0 0 0 123456789012 8 0 0 0 0 0 0\n";

MountEntry mount(const char* fs_type, const char* source, const char* mount_point) {
  MountEntry m;
  m.found = true;
  m.fs_type = fs_type;
  m.source = source;
  m.mount_point = mount_point;
  return m;
}

WireChoice choice(std::vector<std::string> interfaces) {
  WireChoice c;
  c.interfaces = std::move(interfaces);
  return c;
}

std::uint32_t ip(const char* dotted) {
  in_addr a{};
  EXPECT_EQ(inet_pton(AF_INET, dotted, &a), 1) << dotted;
  return a.s_addr;
}

}  // namespace

TEST(Wire, NetDevCountersAreReceivedAndSentBytes) {
  WireCounters w;
  ASSERT_TRUE(net_dev_counters(kNetDev, "eth0", w));
  EXPECT_EQ(w.rx_bytes, 199557884u);
  EXPECT_EQ(w.tx_bytes, 167457u);
  ASSERT_TRUE(net_dev_counters(kNetDev, "lo", w));
  EXPECT_EQ(w.rx_bytes, 12840445u);
  ASSERT_TRUE(net_dev_counters(kNetDev, "enp94s0f1np1", w));
  EXPECT_EQ(w.rx_bytes, 5000u);
  EXPECT_EQ(w.tx_bytes, 7000u);
  ASSERT_TRUE(net_dev_counters(kNetDev, "ib0", w));  // 64-bit counters glued to the colon
  EXPECT_EQ(w.rx_bytes, 18446744073709551000u);
  EXPECT_EQ(w.tx_bytes, 123456789012u);
}

TEST(Wire, NetDevNamesAreMatchedWhole) {
  WireCounters w{1, 2};
  EXPECT_FALSE(net_dev_counters(kNetDev, "eth", w));
  EXPECT_FALSE(net_dev_counters(kNetDev, "eth01", w));
  EXPECT_FALSE(net_dev_counters(kNetDev, "face", w));  // the header is no interface
  EXPECT_FALSE(net_dev_counters(kNetDev, "", w));
  EXPECT_EQ(w.rx_bytes, 1u);                                     // left as it was
  EXPECT_FALSE(net_dev_counters("  eth9: 1 2 3\n", "eth9", w));  // too few counters
}

TEST(Wire, CountersThatWentBackwardsAreNotMeasured) {
  const WireCounters before{1000, 5000}, after{1500, 4000};  // a counter reset in the window
  const WireDelta d = wire_delta(choice({"eth0"}), {before}, {after});
  EXPECT_EQ(d.note, "the counters of eth0 went back during the phase (reset)");
  EXPECT_EQ(d.rx_bytes, 0u);  // not 500 received and 0 sent: nothing of it is known
  EXPECT_EQ(d.tx_bytes, 0u);
}

TEST(Wire, RouteIsTheLongestPrefixThenTheLowestMetric) {
  if constexpr (std::endian::native != std::endian::little) {
    GTEST_SKIP() << "the samples are /proc/net/route of a little-endian machine";
  }
  // This machine's /proc/net/route: a default route and 192.0.2.0/24, both on eth0.
  const std::string here =
      "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
      "eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n"
      "eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n";
  EXPECT_EQ(route_interface(here, ip("192.0.2.7"), false), "eth0");
  EXPECT_EQ(route_interface(here, ip("8.8.8.8"), false), "eth0");
  // A cluster node: storage on ib0 (10.0.0.0/8), one server's subnet on eth1 (10.0.1.0/24),
  // two default routes of which the lower metric wins whatever their order.
  const std::string node =
      "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
      "wlan0\t00000000\t0101A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0\n"
      "eth0\t00000000\t0100A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0\n"
      "ib0\t0000000A\t00000000\t0001\t0\t0\t0\t000000FF\t0\t0\t0\n"
      "eth1\t0001000A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n";
  EXPECT_EQ(route_interface(node, ip("10.0.1.5"), false), "eth1");
  EXPECT_EQ(route_interface(node, ip("10.2.0.1"), false), "ib0");
  EXPECT_EQ(route_interface(node, ip("1.1.1.1"), false), "eth0");
  // An address of this node goes over loopback; no matching route is no interface.
  EXPECT_EQ(route_interface(node, ip("10.0.1.5"), true), "lo");
  EXPECT_EQ(route_interface("Iface\tDestination\n", ip("10.0.1.5"), false), "");
  EXPECT_EQ(route_interface(node.substr(0, node.find("ib0")), ip("10.2.0.1"), false), "eth0");
}

TEST(Wire, TheServerAMountSourceNames) {
  std::uint32_t addr = 0;
  std::string why;
  EXPECT_TRUE(server_of(mount("nfs4", "198.18.0.1:/iosweep", "/x"), addr, why));
  EXPECT_EQ(addr, ip("198.18.0.1"));
  EXPECT_TRUE(server_of(mount("lustre", "10.1.0.1@o2ib:/fs1", "/x"), addr, why));  // first NID
  EXPECT_EQ(addr, ip("10.1.0.1"));
  EXPECT_TRUE(server_of(mount("ceph", "10.0.0.7,10.0.0.8:/", "/x"), addr, why));  // first monitor
  EXPECT_EQ(addr, ip("10.0.0.7"));
  EXPECT_FALSE(server_of(mount("ext4", "/dev/nvme0n1p2", "/x"), addr, why));
  EXPECT_EQ(why, "its source /dev/nvme0n1p2 is a device, not a server");
  EXPECT_FALSE(server_of(mount("nfs4", "", "/x"), addr, why));
  EXPECT_EQ(why, "its source is empty");
  EXPECT_FALSE(server_of(mount("tmpfs", "tmpfs", "/x"), addr, why));
  EXPECT_EQ(why, "its source tmpfs names no server");
  EXPECT_FALSE(server_of(mount("nfs4", ":/export", "/x"), addr, why));
  EXPECT_EQ(why, "its source :/export names no server");
}

TEST(Wire, TheChoiceFollowsTheMountUnlessInterfacesAreNamed) {
  const MountEntry disk = mount("ext4", "/dev/vda", "/");
  const WireChoice named = choose_wire(disk, {"eth0", "ib:mlx5_0:1"});
  EXPECT_EQ(named.joined(), "eth0,ib:mlx5_0:1");
  const WireChoice none = choose_wire(disk, {});
  EXPECT_TRUE(none.interfaces.empty());
  EXPECT_EQ(none.why, "ext4 at /: its source /dev/vda is a device, not a server");
  MountEntry lost;
  lost.why = "no mount in the mount table holds /x";
  EXPECT_EQ(choose_wire(lost, {}).why, lost.why);
  // A file system served by this node itself goes over loopback.
  const MountEntry self = mount("nfs4", "127.0.0.1:/export", "/scratch");
  EXPECT_EQ(choose_wire(self, {}).joined(), "lo");
  // Lustre over o2ib samples every InfiniBand port of the node, or says it has none.
  const MountEntry o2ib = mount("lustre", "10.1.0.1@o2ib:/fs1", "/lustre/fs1");
  const WireChoice ib = choose_wire(o2ib, {});
  for (const auto& i : ib.interfaces)
    EXPECT_TRUE(i.starts_with("ib:")) << i;
  if (ib.interfaces.empty()) {
    EXPECT_EQ(ib.why, "lustre over o2ib, but this node has no InfiniBand port");
  }
}

TEST(Wire, ThisNodesLoopbackIsReadAndAnInterfaceItLacksIsNamed) {
  EXPECT_EQ(check_wire(choice({"lo"})), "");
  EXPECT_EQ(check_wire(choice({"lo", "nosuchif0"})), "this node has no interface nosuchif0");
  EXPECT_EQ(check_wire(choice({"ib:nosuchdev:1"})),
            "this node has no interface ib:nosuchdev:1 (InfiniBand DEVICE:PORT)");
  const std::vector<WireCounters> a = sample_wire(choice({"lo"}));
  const std::vector<WireCounters> b = sample_wire(choice({"lo"}));
  ASSERT_EQ(a.size(), 1u);
  EXPECT_TRUE(a[0].found && a[0].index > 0);
  const WireDelta d = wire_delta(choice({"lo"}), a, b);
  EXPECT_EQ(d.note, "");
  EXPECT_EQ(sample_wire(choice({"nosuchif0"}))[0].found, false);
  EXPECT_NE(network_identity(), 0u);
}

namespace iosweep {
namespace {

struct Case {
  const char* what;
  const char* line;  // one /proc/self/mountinfo line, mount point /mnt/x
  const char* fs_type;
  const char* host;  // the server named; "" when none
  const char* why;   // a part of the reason when none
};

const Case kCases[] = {
    {"glusterfs (the test bed)",
     "106 80 0:40 / /mnt/x rw,relatime - fuse.glusterfs 198.18.0.1:iosweep-dfs "
     "rw,user_id=0,group_id=0,default_permissions,allow_other,max_read=131072",
     "fuse.glusterfs", "198.18.0.1", ""},
    {"moosefs 3.0 without a subtype",
     "95 29 0:48 / /mnt/x rw,nosuid,nodev,relatime shared:51 - fuse mfs#198.18.0.1:9421 "
     "rw,user_id=0,group_id=0,default_permissions,allow_other",
     "fuse", "198.18.0.1", ""},
    {"moosefs meta mount without a subtype",
     "96 29 0:49 / /mnt/x rw,relatime - fuse mfsmeta#mfsmaster:9421 rw,user_id=0,group_id=0",
     "fuse", "mfsmaster", ""},
    {"moosefs 4 with its subtype",
     "97 29 0:50 / /mnt/x rw,nosuid,nodev,relatime - fuse.mfs mfsmaster:9421 "
     "rw,user_id=0,group_id=0,allow_other",
     "fuse.mfs", "mfsmaster", ""},
    {"lizardfs with a subfolder",
     "98 29 0:51 / /mnt/x rw,relatime - fuse.mfs 10.0.0.5:9421/projects rw,user_id=0,group_id=0",
     "fuse.mfs", "10.0.0.5", ""},
    {"sshfs 3", "99 29 0:52 / /mnt/x rw,nosuid,nodev,relatime - fuse.sshfs eve@10.1.2.3:/data rw",
     "fuse.sshfs", "10.1.2.3", ""},
    {"sshfs 3 with the home folder",
     "100 29 0:53 / /mnt/x rw,relatime - fuse.sshfs store.example: rw,user_id=0,group_id=0",
     "fuse.sshfs", "store.example", ""},
    {"sshfs 2 without a subtype",
     "101 29 0:54 / /mnt/x rw,relatime - fuse sshfs#eve@10.1.2.3:/data rw,user_id=0,group_id=0",
     "fuse", "10.1.2.3", ""},
    {"sshfs to an IPv6 server",
     "102 29 0:55 / /mnt/x rw,relatime - fuse.sshfs eve@[fd00::1]:/data rw", "fuse.sshfs", "",
     "IPv6"},
    {"ceph-fuse", "103 29 0:56 / /mnt/x rw,relatime - fuse.ceph-fuse ceph-fuse rw,allow_other",
     "fuse.ceph-fuse", "", "names no server"},
    {"fuse without fsname or subtype", "104 29 0:57 / /mnt/x rw - fuse /dev/fuse rw", "fuse", "",
     "is a device"},
    {"ntfs-3g (fuseblk)", "105 29 8:17 / /mnt/x rw - fuseblk /dev/sdb1 rw,user_id=0,group_id=0",
     "fuseblk", "", "is a device"},
    {"cephfs kernel, monitors in the source",
     "106 29 0:58 / /mnt/x rw,relatime - ceph 10.0.0.1:6789,10.0.0.2:6789:/ "
     "rw,name=admin,secret=<hidden>,acl",
     "ceph", "10.0.0.1", ""},
    {"cephfs kernel, new device syntax",
     "107 29 0:59 / /mnt/x rw,noatime - ceph "
     "admin@0d9a9d6f-1b36-4e2c-9d6d-1f0a5c3e1234.cephfs=/ "
     "rw,name=admin,secret=<hidden>,acl,mon_addr=10.0.0.1:3300/10.0.0.2:3300",
     "ceph", "10.0.0.1", ""},
    {"cephfs kernel, new syntax without mon_addr",
     "108 29 0:60 / /mnt/x rw - ceph admin@.cephfs=/ rw,name=admin", "ceph", "", "mon_addr"},
    {"lustre over tcp", "109 29 0:61 / /mnt/x rw - lustre 10.0.0.1@tcp:/scratch rw,flock", "lustre",
     "10.0.0.1", ""},
    {"lustre over o2ib, failover nids",
     "110 29 0:62 / /mnt/x rw - lustre mgs1@o2ib:mgs2@o2ib:/fs rw", "lustre", "mgs1", ""},
    {"nfs4", "111 29 0:63 / /mnt/x rw,relatime - nfs4 nas:/export rw,vers=4.2,addr=10.0.0.9",
     "nfs4", "nas", ""},
    {"gpfs", "112 29 0:64 / /mnt/x rw,relatime - gpfs gpfs0 rw", "gpfs", "", "names no server"},
    {"beegfs", "113 29 0:65 / /mnt/x rw,relatime - beegfs beegfs_nodev rw,cfgFile=/etc/c.conf",
     "beegfs", "", "names no server"},
    {"ext4", "114 29 8:1 / /mnt/x rw,relatime - ext4 /dev/sda1 rw", "ext4", "", "is a device"},
};

TEST(Wire, TheServerEachClientNamesInTheMountTable) {
  for (const Case& c : kCases) {
    const MountEntry m = mount_in(std::string(c.line) + "\n", "/mnt/x/data");
    ASSERT_TRUE(m.found) << c.what;
    EXPECT_EQ(m.fs_type, c.fs_type) << c.what;
    std::string why;
    EXPECT_EQ(server_host_of(m, why), c.host) << c.what << ": " << why;
    if (c.host[0] == '\0') {
      EXPECT_NE(why.find(c.why), std::string::npos) << c.what << ": " << why;
    }
  }
}

TEST(Wire, AnAddressIsResolvedWithoutAskingAnyone) {
  const MountEntry m = mount_in(std::string(kCases[1].line) + "\n", "/mnt/x");
  std::uint32_t addr = 0;
  std::string why;
  ASSERT_TRUE(server_of(m, addr, why)) << why;
  EXPECT_EQ(addr, 0x010012c6u);  // 198.18.0.1 in network byte order, as the route table holds it
}

}  // namespace
}  // namespace iosweep

namespace iosweep {
namespace {

// What crossed the interfaces, or why that cannot be said: never a measured zero that was not
// measured (an interface gone, replaced by another of its name, counters that went back).
TEST(Counters, AWireCounterThatVanishedOrWentBackIsNoMeasuredZero) {
  const WireChoice c{{"eth0", "eth1"}, ""};
  const std::vector<WireCounters> before = {{1000, 2000, true, 2}, {10, 20, true, 3}};
  WireDelta d = wire_delta(c, before, {{1500, 2100, true, 2}, {15, 25, true, 3}});
  EXPECT_EQ(d.note, "");
  EXPECT_EQ(d.rx_bytes, 505u);
  EXPECT_EQ(d.tx_bytes, 105u);
  const struct {
    std::vector<WireCounters> after;
    const char* says;
  } cases[] = {
      {{{1500, 2100, true, 2}, {0, 0, false, 0}}, "interface eth1 was gone after the phase"},
      {{{1500, 2100, true, 2}, {15, 25, true, 9}}, "interface eth1 was replaced"},
      {{{900, 2100, true, 2}, {15, 25, true, 3}}, "the counters of eth0 went back"},
      {{{1500, 2100, true, 2}}, "interface eth1 was gone after the phase"},
  };
  for (const auto& k : cases) {
    d = wire_delta(c, before, k.after);
    EXPECT_NE(d.note.find(k.says), std::string::npos) << d.note;
    EXPECT_EQ(d.rx_bytes, 0u);
    EXPECT_EQ(d.tx_bytes, 0u);
  }
  d = wire_delta(c, {{0, 0, false, 0}, {10, 20, true, 3}}, before);
  EXPECT_NE(d.note.find("interface eth0 was gone before the phase"), std::string::npos);
}

TEST(Counters, ADeviceThatVanishedOrWentBackIsNoMeasuredZero) {
  // /sys/block/DEV/stat: reads, merges, sectors, ticks, writes, merges, sectors, ...
  const DeviceCounters b = BlockDevice::parse_stat("100 0 2048 5 50 0 4096 7 0 12 12 0 0 0 0");
  ASSERT_TRUE(b.found);
  EXPECT_EQ(b.read_bytes, 2048u * 512);
  EXPECT_EQ(b.write_ops, 50u);
  const DeviceCounters a = BlockDevice::parse_stat("110 0 2560 5 60 0 8192 7 0 12 12 0 0 0 0");
  DeviceDelta d = device_delta(b, a, "vda");
  EXPECT_EQ(d.note, "");
  EXPECT_EQ(d.counts.read_bytes, 512u * 512);
  EXPECT_EQ(d.counts.write_bytes, 4096u * 512);
  EXPECT_EQ(d.counts.read_ops, 10u);
  d = device_delta(b, BlockDevice::parse_stat(""), "vda");  // its stat file gone
  EXPECT_NE(d.note.find("device vda could not be read after the phase"), std::string::npos);
  EXPECT_EQ(d.counts.write_bytes, 0u);
  d = device_delta(a, b, "vda");  // a new device under the same number
  EXPECT_NE(d.note.find("went back"), std::string::npos);
  EXPECT_EQ(d.counts.read_bytes, 0u);
}

}  // namespace
}  // namespace iosweep
