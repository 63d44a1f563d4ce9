// The storage-interface parsers (os/wire) on real /proc/net/dev and /proc/net/route text, the
// server a mount source names, the choice of interfaces from a mount, and the counters of this
// machine's own loopback.
#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

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

TEST(Wire, CountersThatWentBackwardsCountNothing) {
  const WireCounters before{1000, 5000}, after{1500, 4000};  // a counter reset in the window
  const WireCounters d = after - before;
  EXPECT_EQ(d.rx_bytes, 500u);
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
  EXPECT_TRUE(server_of("198.18.0.1:/iosweep", addr, why));  // GlusterFS, NFS
  EXPECT_EQ(addr, ip("198.18.0.1"));
  EXPECT_TRUE(server_of("10.1.0.1@o2ib:/fs1", addr, why));  // Lustre: the first NID
  EXPECT_EQ(addr, ip("10.1.0.1"));
  EXPECT_TRUE(server_of("10.0.0.7,10.0.0.8:/", addr, why));  // CephFS: the first monitor
  EXPECT_EQ(addr, ip("10.0.0.7"));
  EXPECT_FALSE(server_of("/dev/nvme0n1p2", addr, why));
  EXPECT_EQ(why, "its source /dev/nvme0n1p2 is a device, not a server");
  EXPECT_FALSE(server_of("", addr, why));
  EXPECT_EQ(why, "its source is empty");
  EXPECT_FALSE(server_of("tmpfs", addr, why));
  EXPECT_EQ(why, "its source tmpfs names no server");
  EXPECT_FALSE(server_of(":/export", addr, why));
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
  const WireCounters a = sample_wire(choice({"lo"}));
  const WireCounters b = sample_wire(choice({"lo"}));
  EXPECT_GE(b.rx_bytes, a.rx_bytes);
  EXPECT_GE(b.tx_bytes, a.tx_bytes);
  EXPECT_NE(network_identity(), 0u);
}
