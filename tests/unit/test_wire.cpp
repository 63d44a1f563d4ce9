// Unit tests of the mount table reader (src/os/mountinfo) and of the server a mount's source
// names (src/os/wire: server_host_of), on mountinfo lines as each client writes them:
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
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "os/block_device.hpp"
#include "os/mountinfo.hpp"
#include "os/wire.hpp"

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
