// Unit tests of the NFS mountstats and Lustre llite stats parsers (src/os/client_stats) on real
// samples copied from public sources (each named beside it), and on malformed, truncated and
// hostile text.
#include "os/client_stats.hpp"

#include <gtest/gtest.h>

#include <string>

namespace iosweep {
namespace {

// ------------------------------------------------------------------------ real samples

// prometheus/procfs, testdata/fixtures.ttar, entry fixtures/proc/26231/mountstats
// (commit 3c943fdba94a978d990553698da4add62bb11a30): a machine's mountstats with one NFSv4 mount
// among local ones; tab-indented, as the kernel writes it.
const char kProcfsMountstats[] =
    "device rootfs mounted on / with fstype rootfs\n"
    "device sysfs mounted on /sys with fstype sysfs\n"
    "device proc mounted on /proc with fstype proc\n"
    "device /dev/sda1 mounted on / with fstype ext4\n"
    "device 192.168.1.1:/srv/test mounted on /mnt/nfs/test with fstype nfs4 statvers=1.1\n"
    "\topts:\trw,vers=4.0,rsize=1048576,wsize=1048576,namlen=255,acregmin=3,acregmax=60,acdirmin="
    "30,acdirmax=60,hard,proto=tcp,port=0,timeo=600,retrans=2,sec=sys,mountaddr=192.168.1.1,"
    "clientaddr=192.168.1.5,local_lock=none\n"
    "\tage:\t13968\n"
    "\tcaps:\tcaps=0xfff7,wtmult=512,dtsize=32768,bsize=0,namlen=255\n"
    "\tnfsv4:\tbm0=0xfdffafff,bm1=0xf9be3e,bm2=0x0,acl=0x0,pnfs=not configured\n"
    "\tsec:\tflavor=1,pseudoflavor=1\n"
    "\tevents:\t52 226 0 0 1 13 398 0 0 331 0 47 0 0 77 0 0 77 0 0 0 0 0 0 0 0 0\n"
    "\tbytes:\t1207640230 0 0 0 1210214218 0 295483 0\n"
    "\tRPC iostats version: 1.0  p/v: 100003/4 (nfs)\n"
    "\txprt:\ttcp 832 0 1 0 11 6428 6428 0 12154 0 24 26 5726\n"
    "\tper-op statistics\n"
    "\t        NULL: 0 0 0 0 0 0 0 0\n"
    "\t        READ: 1298 1298 0 207680 1210292152 6 79386 79407\n"
    "\t       WRITE: 0 0 0 0 0 0 0 0\n"
    "\t      ACCESS: 2927395007 2927394995 0 526931094212 362996810236 18446743919241604546 "
    "1667369447 1953587717\n"
    "\n";

// prometheus/procfs, mountstats_test.go, case "NFS xprt over rdma proto" (same commit): an
// NFSv3 mount over RDMA (nconnect=16) with petabyte counters; indented with spaces as pasted there.
const char kProcfsRdma[] =
    "device <nfsserver>:<nfsmount> mounted on <mountpoint> with fstype nfs statvers=1.1\n"
    "        opts:   "
    "ro,vers=3,rsize=1048576,wsize=1048576,namlen=255,acregmin=120,acregmax=120,acdirmin=120,"
    "acdirmax=120,hard,nocto,forcerdirplus,proto=rdma,nconnect=16,port=20049,timeo=600,retrans=2,"
    "sec=sys,mountaddr=172.16.40.20,mountvers=3,mountport=0,mountproto=tcp,local_lock=none\n"
    "        age:    1270876\n"
    "        caps:   caps=0xf,wtmult=4096,dtsize=131072,bsize=0,namlen=255\n"
    "        sec:    flavor=1,pseudoflavor=1\n"
    "        events: 512052 36601115 0 68 1498583 16514 38815015 0 41584 2654459933 0 0 0 0 "
    "1527715 0 0 1498575 0 0 0 0 0 0 0 0 0\n"
    "        bytes:  3104202770327296 0 0 0 2013200952170479 0 491504202537 0\n"
    "        RPC iostats version: 1.1  p/v: 100003/3 (nfs)\n"
    "        xprt:   rdma 0 0 5808 62 0 494490723 494490687 36 10032963746 1282789 107150285 "
    "1226637531 2673889 135120843409861 135119397156505 266368832 75716996 0 7853 0 0 0 0 119328 "
    "1336431717 0 96\n"
    "        per-op statistics\n"
    "                NULL: 16 16 0 640 384 320 11 331 0\n";

// influxdata/telegraf, plugins/inputs/nfsclient/testdata/mountstats (commit
// 3f5f7729dbf9936f362c6333f4fbac02db8e95c0), an excerpt: the first devices and both NFS mounts,
// per-op lines cut but for a few, the hostile last two (a negative and a 25-digit counter) kept.
// The NFSv3 mount has every bytes: counter set, trailing spaces included; the NFSv4 mount's opts
// line is wrapped over three lines.
const char kTelegrafMountstats[] =
    "device rootfs mounted on / with fstype rootfs\n"
    "device proc mounted on /proc with fstype proc\n"
    "device sysfs mounted on /sys with fstype sysfs\n"
    "device sunrpc mounted on /var/lib/nfs/rpc_pipefs with fstype rpc_pipefs\n"
    "device /etc/auto.misc mounted on /misc with fstype autofs\n"
    "device -hosts mounted on /net with fstype autofs\n"
    "device 1.2.3.4:/storage/NFS mounted on /NFS with fstype nfs statvers=1.1\n"
    "    opts:   "
    "rw,vers=3,rsize=32768,wsize=32768,namlen=255,acregmin=60,acregmax=60,acdirmin=60,acdirmax=60,"
    "hard,nolock,noacl,nordirplus,proto=tcp,timeo=600,retrans=2,sec=sys,mountaddr=1.2.3.4,"
    "mountvers=3,mountport=49193,mountproto=tcp,local_lock=all\n"
    "    age:    1136770\n"
    "    caps:   caps=0x3fe6,wtmult=512,dtsize=8192,bsize=0,namlen=255\n"
    "    sec:    flavor=1,pseudoflavor=1\n"
    "    events: 301736 22838 410979 26188427 27525 9140 114420 30785253 5308856 5364858 30784819 "
    "79832668 170 64 18194 29294718 0 18279 0 2 785551 0 0 0 0 0 0 \n"
    "    bytes:  204440464584 110857586443 783170354688 296174954496 1134399088816 407107155723 "
    "85749323 30784819 \n"
    "    RPC iostats version: 1.0  p/v: 100003/3 (nfs)\n"
    "    xprt:   tcp 733 1 1 0 0 96172963 96172963 0 620878754 0 690 196347132 524706275\n"
    "    per-op statistics\n"
    "            NULL: 0 0 0 0 0 0 0 0\n"
    "         GETATTR: 100 101 102 103 104 105 106 107\n"
    "            READ: 600 601 602 603 604 605 606 607\n"
    "           WRITE: 700 701 702 703 704 705 706 707\n"
    "\n"
    "device 2.2.2.2:/nfsdata/ mounted on /mnt with fstype nfs4 statvers=1.1\n"
    "    opts:    rw,vers=4,rsize=1048576,wsize=1048576,namlen=255,acregmin=3,acregmax=60,\n"
    "            acdirmin=30,acdirmax=60,hard,proto=tcp,port=0,timeo=600,retrans=2,sec=sys,\n"
    "            clientaddr=3.3.3.3,minorversion=0,local_lock=none\n"
    "    age:    19\n"
    "    caps:    caps=0xfff7,wtmult=512,dtsize=32768,bsize=0,namlen=255\n"
    "    nfsv4:    bm0=0xfdffafff,bm1=0xf9be3e,acl=0x0\n"
    "    sec:    flavor=1,pseudoflavor=1\n"
    "    events:    0 168232 0 0 0 10095 217808 0 2 9797 0 9739 0 0 19739 19739 0 19739 0 0 0 0 0 "
    "0 0 0 0\n"
    "    bytes:    1612840960 0 0 0 627536112 0 158076 0\n"
    "    RPC iostats version: 1.0  p/v: 100003/4 (nfs)\n"
    "    xprt:    tcp 737 0 1 0 0 69698 69697 0 81817 0 2 1082 12119\n"
    "    per-op statistics\n"
    "            NULL: 0 0 0 0 0 0 0 0\n"
    "            READ: 9797 9797 0 1000 2000 71 7953 8200\n"
    "       LAYOUTGET: 0 0 0 0 0 0 0 0\n"
    "    GETDEVICEINFO: 0 0 0 0 0 0 0 0\n"
    "    LAYOUTCOMMIT: 0 0 0 0 0 0 0 -9999999999999999999999999\n"
    "    LAYOUTRETURN: 0 0 0 0 0 0 0 9999999999999999999999999\n";

// HewlettPackard/lustre_exporter, proc/fs/lustre/llite/lustrefs-ffff88105db50000/stats
// (commit 63e0aba8f6835790c7c9e6756b1b21e9c61dd708): one stats file of a Lustre client, the
// format without sums of squares.
const char kHpeLlite[] =
    "snapshot_time             1510950459.772792457 secs.nsecs\n"
    "read_bytes                1 samples [bytes] 4194304 4194304 4194304\n"
    "write_bytes               89467810 samples [bytes] 4096 1048576 93813797294080\n"
    "open                      136 samples [regs]\n"
    "close                     96 samples [regs]\n"
    "readdir                   12 samples [regs]\n"
    "truncate                  134 samples [regs]\n"
    "getattr                   41 samples [regs]\n"
    "alloc_inode               2 samples [regs]\n"
    "getxattr                  85 samples [regs]\n"
    "getxattr_hits             20 samples [regs]\n"
    "removexattr               134 samples [regs]\n"
    "inode_permission          398 samples [regs]\n";

// whamcloud/lustrefs-exporter, lustre-collector/src/fixtures/valid/lustre-2-14-0/client/
// llite_client.txt (commit 5298b2209993512bfaa5f8981356f3b1d303d2d7): `lctl get_param` of a Lustre
// 2.14 client, single-valued parameters, an ldlm stats block and one llite block (a metadata
// workload: no read_bytes or write_bytes line).
const char kWhamcloudClient[] =
    "memused=35721854085\n"
    "memused_max=41220347397\n"
    "lnet_memused=22228358\n"
    "health_check=healthy\n"
    "ldlm.services.ldlm_cbd.stats=\n"
    "snapshot_time             1710759783.270541554 secs.nsecs\n"
    "req_waittime              41083956 samples [usecs] 1 33890 255153949 6336801119\n"
    "req_qdepth                41083956 samples [reqs] 0 7 429581 432557\n"
    "req_active                41083956 samples [reqs] 1 14 53101359 86233965\n"
    "req_timeout               41083956 samples [secs] 15 15 616259340 9243890100\n"
    "reqbuf_avail              87745428 samples [bufs] 0 3 80539671 80656909\n"
    "ldlm_bl_callback          41083956 samples [usecs] 1 1623 446351106 6062478214\n"
    "llite.ai400x2-ff47bce9ca35d800.stats=\n"
    "snapshot_time             1710759783.271040288 secs.nsecs\n"
    "ioctl                     114 samples [reqs]\n"
    "open                      35955554 samples [usecs] 0 172939 3393651645 8836730033307\n"
    "close                     35955554 samples [usecs] 63 194037 5402095148 11956065309788\n"
    "readdir                   60 samples [usecs] 0 2242 34741 52343869\n"
    "getattr                   35955647 samples [usecs] 0 85505 2317024138 904252691326\n"
    "unlink                    17977752 samples [usecs] 107 148413 3846291010 6948473454642\n"
    "mkdir                     17987059 samples [usecs] 104 1306648 23731812831 644644512447919\n"
    "rmdir                     17987079 samples [usecs] 95 1478009 37000527306 744761005599966\n"
    "mknod                     17977752 samples [usecs] 119 193901 4144162753 7852936850197\n"
    "statfs                    17864 samples [usecs] 0 88480 10257950 80137794724\n"
    "setxattr                  1 samples [usecs] 8760 8760 8760 76737600\n"
    "inode_permission          629305628 samples [usecs] 0 147014 196719589 76130795547\n"
    "opencount                 35955576 samples [reqs] 1 2 40433335 49388853\n"
    "openclosetime             17977772 samples [usecs] 34302 20804335332 4185265858629453 "
    "2084188699388296969\n";

// whamcloud/lustrefs-exporter, lustre-collector/src/fixtures/valid/lustre-2.14.0_ddn145/
// 2.14.0_ddn145_stats.txt, lines 567-575 (same commit): an llite block with start_time and
// elapsed_time, followed by other parameters.
const char kWhamcloudDdn145[] =
    "llite.fs-ffff97e895d31000.stats=\n"
    "snapshot_time             1716295737.291444030 secs.nsecs\n"
    "start_time                1715767600.564021089 secs.nsecs\n"
    "elapsed_time              528136.727422941 secs.nsecs\n"
    "getattr                   6 samples [usecs] 408 449 2555 1088895\n"
    "mdd.fs-MDT0000.changelog_users=\n"
    "current_index: 0\n"
    "ID                            index (idle) mask\n"
    "qmt.fs-QMT0000.dt-0x0.glb-usr=\n";

// whamcloud/lustrefs-exporter, lustre-collector/src/fixtures/valid/lustre-2.14.0_ddn133/
// 2.14.0_ddn133_exports.txt, lines 936-952 (same commit): a server's obdfilter (OST) stats,
// whose read_bytes and write_bytes lines are the servers', not a client's: never llite counters.
// The same lprocfs format as llite's, with sums of squares.
const char kWhamcloudOst[] =
    "mgs.MGS.mgs.threads_max=32\n"
    "mgs.MGS.mgs.threads_min=3\n"
    "mgs.MGS.mgs.threads_started=4\n"
    "mgs.MGS.num_exports=20\n"
    "obdfilter.ai400x2-OST0000.stats=\n"
    "snapshot_time             1709305846.699318001 secs.nsecs\n"
    "read_bytes                71107883 samples [bytes] 4096 1048576 57978280017920 "
    "4944972323796025344\n"
    "write_bytes               50732814 samples [bytes] 4096 1048576 46800216580096 "
    "12081200006032261120\n"
    "read                      71107883 samples [usecs] 13 640342 457429792445 6312314186770069\n"
    "write                     50732814 samples [usecs] 1 180084 87991445571 437221716735881\n"
    "punch                     453 samples [usecs] 9 601 13811 2419661\n"
    "sync                      771 samples [usecs] 0 233833 5520406 405123348902\n"
    "create                    16 samples [usecs] 1546 284516 574180 93247395606\n"
    "statfs                    142347 samples [usecs] 0 26666 633882 714994628\n"
    "get_info                  2 samples [usecs] 5 6 11 61\n"
    "set_info                  58 samples [usecs] 2 15 440 3678\n"
    "obdfilter.ai400x2-OST0001.stats=\n";

// The two llite lines quoted in "[lustre-discuss] /proc/fs/lustre/llite/*/stats", 2018-04-06,
// http://lists.lustre.org/pipermail/lustre-discuss-lustre.org/2018-April/015426.html
const char kLustreDiscuss[] =
    "read_bytes                25673 samples [bytes] 1 3366225 145121869\n"
    "write_bytes               13641 samples [bytes] 1 3366225 468230469\n";

// ------------------------------------------------------------------------------- NFS

TEST(ClientStatsNfs, ProcfsFixtureHasOneNfsMountAmongLocalOnes) {
  const auto r = parse_nfs_mountstats(kProcfsMountstats);
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.mounts.size(), 1u);
  const auto& m = r.mounts[0];
  EXPECT_EQ(m.device, "192.168.1.1:/srv/test");
  EXPECT_EQ(m.mount_point, "/mnt/nfs/test");
  EXPECT_EQ(m.fstype, "nfs4");
  EXPECT_EQ(m.statvers, "1.1");
  ASSERT_TRUE(m.has_bytes);
  EXPECT_EQ(m.normal_read, 1207640230u);
  EXPECT_EQ(m.normal_write, 0u);
  EXPECT_EQ(m.direct_read, 0u);
  EXPECT_EQ(m.direct_write, 0u);
  EXPECT_EQ(m.server_read, 1210214218u);
  EXPECT_EQ(m.server_write, 0u);
  EXPECT_EQ(m.read_pages, 295483u);
  EXPECT_EQ(m.write_pages, 0u);
}

TEST(ClientStatsNfs, OneMountPointOrNone) {
  const auto r = parse_nfs_mountstats(kProcfsMountstats, "/mnt/nfs/test");
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.mounts.size(), 1u);
  EXPECT_EQ(r.mounts[0].server_read, 1210214218u);
  // "/" holds rootfs and ext4 here: not NFS.
  const auto root = parse_nfs_mountstats(kProcfsMountstats, "/");
  EXPECT_EQ(root.status, ClientStatsStatus::not_found);
  EXPECT_EQ(root.error, "mountstats: no NFS mount at '/'");
  EXPECT_TRUE(root.mounts.empty());
  const auto prefix = parse_nfs_mountstats(kProcfsMountstats, "/mnt/nfs");
  EXPECT_EQ(prefix.status, ClientStatsStatus::not_found);  // a mount point, not a prefix
}

TEST(ClientStatsNfs, RdmaMountWithPetabyteCounters) {
  const auto r = parse_nfs_mountstats(kProcfsRdma);
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.mounts.size(), 1u);
  const auto& m = r.mounts[0];
  EXPECT_EQ(m.device, "<nfsserver>:<nfsmount>");
  EXPECT_EQ(m.mount_point, "<mountpoint>");
  EXPECT_EQ(m.fstype, "nfs");
  EXPECT_EQ(m.normal_read, 3104202770327296u);
  EXPECT_EQ(m.server_read, 2013200952170479u);
  EXPECT_EQ(m.read_pages, 491504202537u);
  EXPECT_EQ(m.normal_write + m.direct_read + m.direct_write + m.server_write + m.write_pages, 0u);
}

TEST(ClientStatsNfs, TelegrafSampleEveryCounterAndPerOpGarbageIgnored) {
  const auto r = parse_nfs_mountstats(kTelegrafMountstats);
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.mounts.size(), 2u);
  const auto& v3 = r.mounts[0];
  EXPECT_EQ(v3.mount_point, "/NFS");
  EXPECT_EQ(v3.device, "1.2.3.4:/storage/NFS");
  EXPECT_EQ(v3.fstype, "nfs");
  EXPECT_EQ(v3.normal_read, 204440464584u);
  EXPECT_EQ(v3.normal_write, 110857586443u);
  EXPECT_EQ(v3.direct_read, 783170354688u);
  EXPECT_EQ(v3.direct_write, 296174954496u);
  EXPECT_EQ(v3.server_read, 1134399088816u);
  EXPECT_EQ(v3.server_write, 407107155723u);
  EXPECT_EQ(v3.read_pages, 85749323u);
  EXPECT_EQ(v3.write_pages, 30784819u);
  const auto& v4 = r.mounts[1];
  EXPECT_EQ(v4.mount_point, "/mnt");
  EXPECT_EQ(v4.device, "2.2.2.2:/nfsdata/");
  EXPECT_EQ(v4.fstype, "nfs4");
  EXPECT_EQ(v4.normal_read, 1612840960u);
  EXPECT_EQ(v4.server_read, 627536112u);
  EXPECT_EQ(v4.read_pages, 158076u);
  // The server moved more than the applications read through the page cache plus O_DIRECT on
  // the v3 mount (read-ahead), less on the v4 one (cache hits): why iosweep wants the fifth and
  // sixth counters, not the first four.
  EXPECT_GT(v3.server_read, v3.normal_read + v3.direct_read);
  EXPECT_LT(v4.server_read, v4.normal_read);
}

TEST(ClientStatsNfs, MultilineImplIdAndMountsWithoutStatistics) {
  // prometheus/procfs, mountstats_test.go, case "NFS4.1 device with multiline impl_id OK": the
  // server's implementation name runs over lines that start at column 0.
  const char text[] =
      "device 192.168.0.1:/srv mounted on /mnt/nfs with fstype nfs4 statvers=1.1\n"
      "opts: rw,vers=4.1,rsize=131072,wsize=131072,namlen=255,acregmin=3,acregmax=60,acdirmin=30,"
      "acdirmax=60,hard,proto=tcp,timeo=600,retrans=2,sec=sys,clientaddr=192.168.0.2,fsc,"
      "local_lock=none\n"
      "age: 1234567\n"
      "impl_id: name='FreeBSD 11.2-STABLE #0 r325575+c9231c7d6bd(HEAD): Mon Nov 18 22:46:47 UTC "
      "2019\n"
      "user@host:/path/to/something'\n"
      ",domain='something.org',date='1293840000,0'";
  const auto r = parse_nfs_mountstats(text);
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.mounts.size(), 1u);
  EXPECT_FALSE(r.mounts[0].has_bytes);
  EXPECT_EQ(r.mounts[0].normal_read, 0u);
  // prometheus/procfs, mountstats_test.go, "NFSv3 device with minimal stats OK".
  const auto minimal = parse_nfs_mountstats(
      "device 192.168.1.1:/srv mounted on /mnt/nfs with fstype nfs statvers=1.1");
  ASSERT_TRUE(minimal.ok()) << minimal.error;
  EXPECT_EQ(minimal.mounts[0].statvers, "1.1");
  EXPECT_FALSE(minimal.mounts[0].has_bytes);
}

TEST(ClientStatsNfs, EscapedNamesAreDecodedAndStackedMountsKept) {
  const std::string text =
      "device srv:/a\\040b mounted on /mnt/with\\040space with fstype nfs statvers=1.1\n"
      "\tbytes:\t1 2 3 4 5 6 7 8\n"
      "no device mounted on /mnt/x with fstype nfs4 statvers=1.1\n"
      "\tbytes:\t10 0 0 0 10 0 0 0\n"
      "device srv:/b mounted on /mnt/with\\040space with fstype nfs statvers=1.1\n"
      "\tbytes:\t9 9 9 9 9 9 9 9\n";
  const auto r = parse_nfs_mountstats(text, "/mnt/with space");
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.mounts.size(), 2u);  // stacked: the last one is the one visible
  EXPECT_EQ(r.mounts[0].device, "srv:/a b");
  EXPECT_EQ(r.mounts[1].server_read, 9u);
  const auto nodev = parse_nfs_mountstats(text, "/mnt/x");
  ASSERT_TRUE(nodev.ok()) << nodev.error;
  EXPECT_EQ(nodev.mounts[0].device, "");
  EXPECT_EQ(nodev.mounts[0].server_read, 10u);
}

// Malformed, truncated and hostile text: an error naming the line, never a throw or a guess.
TEST(ClientStatsNfs, MalformedInputIsAnErrorNamingTheLine) {
  struct Case {
    std::string text;
    ClientStatsStatus status;
    std::string error;
  };
  const std::string dev =
      "device 192.168.1.1:/srv mounted on /mnt/nfs with fstype nfs4 statvers=1.1\n";
  const Case cases[] = {
      // prometheus/procfs mountstats_test.go's invalid cases, which our parser must refuse too
      {"device foo", ClientStatsStatus::malformed,
       "mountstats: line 1: expected 'device D mounted on M with fstype T', found 'device foo'"},
      {"device rootfs BAD on / with fstype rootfs", ClientStatsStatus::malformed,
       "mountstats: line 1: expected 'device D mounted on M with fstype T', found 'device rootfs "
       "BAD on / with fstype rootfs'"},
      {dev + "bytes: 0", ClientStatsStatus::malformed,
       "mountstats: line 2: bytes: expected 8 counters, found 1 in 'bytes: 0'"},
      // truncated in the middle of the bytes line
      {dev + "\tbytes:\t1207640230 0 0 0 12102", ClientStatsStatus::malformed,
       "mountstats: line 2: bytes: expected 8 counters, found 5 in '\\x09bytes:\\x091207640230 0 0 "
       "0 12102'"},
      {dev + "\tbytes:\t1 2 3 -4 5 6 7 8", ClientStatsStatus::malformed,
       "mountstats: line 2: bytes: counter 4 is not a count below 2^64: '-4'"},
      {dev + "\tbytes:\t1 2 3 4 18446744073709551616 6 7 8", ClientStatsStatus::malformed,
       "mountstats: line 2: bytes: counter 5 is not a count below 2^64: '18446744073709551616'"},
      {dev + "\tbytes:\t1 2 3 4 0x10 6 7 8", ClientStatsStatus::malformed,
       "mountstats: line 2: bytes: counter 5 is not a count below 2^64: '0x10'"},
      {dev + "\tbytes:\t1 2 3 4 5 6 7 8\n\tbytes:\t1 2 3 4 5 6 7 8", ClientStatsStatus::malformed,
       "mountstats: line 3: a second bytes: line for '/mnt/nfs'"},
      {"device a mounted on /m with fstype nfs statvers=1.1 extra", ClientStatsStatus::malformed,
       "mountstats: line 1: an NFS mount's line ends in 'statvers=V', found 'device a mounted on "
       "/m with fstype nfs statvers=1.1 extra'"},
      {"device \x1b[2J mounted", ClientStatsStatus::malformed,
       "mountstats: line 1: expected 'device D mounted on M with fstype T', found 'device "
       "\\x1b[2J mounted'"},
      {"hello", ClientStatsStatus::not_found, "mountstats: no NFS mount"},
      {"", ClientStatsStatus::not_found, "mountstats: no NFS mount"},
      {std::string("\0\0\0", 3), ClientStatsStatus::not_found, "mountstats: no NFS mount"},
  };
  for (const auto& c : cases) {
    const auto r = parse_nfs_mountstats(c.text);
    EXPECT_EQ(r.status, c.status) << c.text;
    EXPECT_EQ(r.error, c.error) << c.text;
    EXPECT_TRUE(r.mounts.empty()) << c.text;
  }
}

TEST(ClientStatsNfs, BoundsOnSizeLinesAndMounts) {
  // A line beyond 1 MiB, a text beyond 64 MiB, more than 100000 device lines: refused, with the
  // work bounded by what was read.
  const std::string dev = "device s:/e mounted on /m with fstype nfs statvers=1.1\n";
  const auto line = parse_nfs_mountstats(dev + "\t" + std::string(kClientStatsMaxLine + 1, 'x'));
  EXPECT_EQ(line.status, ClientStatsStatus::too_large);
  EXPECT_EQ(line.error, "mountstats: line 2: longer than 1048576 bytes");
  std::string big(kClientStatsMaxBytes + 1, '\n');
  EXPECT_EQ(parse_nfs_mountstats(big).status, ClientStatsStatus::too_large);
  std::string many;
  for (std::size_t i = 0; i <= kClientStatsMaxMounts; ++i)
    many += "device a mounted on /b with fstype ext4\n";
  const auto m = parse_nfs_mountstats(many);
  EXPECT_EQ(m.status, ClientStatsStatus::too_large);
  EXPECT_EQ(m.error, "mountstats: line 100001: more than 100000 mounts");
}

TEST(ClientStatsNfs, EveryTruncationOfARealSampleIsParsedOrRefusedNeverThrown) {
  const std::string full = kTelegrafMountstats;
  for (std::size_t n = 0; n <= full.size(); ++n) {
    const auto r = parse_nfs_mountstats(std::string_view(full).substr(0, n));
    if (r.ok()) {
      for (const auto& m : r.mounts) {
        if (m.has_bytes && m.mount_point == "/NFS") {
          EXPECT_EQ(m.server_write, 407107155723u);
        }
      }
    } else {
      EXPECT_FALSE(r.error.empty());
      EXPECT_EQ(r.error.find('\n'), std::string::npos);
    }
  }
}

// ----------------------------------------------------------------------------- Lustre

TEST(ClientStatsLustre, OneStatsFileWithoutSumsOfSquares) {
  const auto r = parse_lustre_llite_stats(kHpeLlite);
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.mounts.size(), 1u);
  const auto& m = r.mounts[0];
  EXPECT_EQ(m.instance, "");
  EXPECT_EQ(m.snapshot, "1510950459.772792457");
  EXPECT_TRUE(m.read.present);
  EXPECT_EQ(m.read.samples, 1u);
  EXPECT_EQ(m.read.min, 4194304u);
  EXPECT_EQ(m.read.max, 4194304u);
  EXPECT_EQ(m.read.sum, 4194304u);
  EXPECT_FALSE(m.read.has_sumsq);
  EXPECT_EQ(m.write.samples, 89467810u);
  EXPECT_EQ(m.write.min, 4096u);
  EXPECT_EQ(m.write.max, 1048576u);
  EXPECT_EQ(m.write.sum, 93813797294080u);
}

TEST(ClientStatsLustre, LctlOutputWithOtherParametersAndNoByteCounters) {
  const auto r = parse_lustre_llite_stats(kWhamcloudClient);
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.mounts.size(), 1u);  // the ldlm stats block is not a mount
  const auto& m = r.mounts[0];
  EXPECT_EQ(m.instance, "ai400x2-ff47bce9ca35d800");
  EXPECT_EQ(m.snapshot, "1710759783.271040288");
  EXPECT_FALSE(m.read.present);  // no read() since the counters were cleared: not printed
  EXPECT_FALSE(m.write.present);
  EXPECT_EQ(m.read.sum + m.write.sum, 0u);
  // By file system name or by instance; anything else is not found.
  EXPECT_TRUE(parse_lustre_llite_stats(kWhamcloudClient, "ai400x2").ok());
  EXPECT_TRUE(parse_lustre_llite_stats(kWhamcloudClient, "ai400x2-ff47bce9ca35d800").ok());
  const auto other = parse_lustre_llite_stats(kWhamcloudClient, "ai400");
  EXPECT_EQ(other.status, ClientStatsStatus::not_found);
  EXPECT_EQ(other.error, "llite stats: no llite mount 'ai400'");
}

TEST(ClientStatsLustre, StartAndElapsedTimeAndABlockEndingAtTheNextParameter) {
  const auto r = parse_lustre_llite_stats(kWhamcloudDdn145);
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.mounts.size(), 1u);
  EXPECT_EQ(r.mounts[0].instance, "fs-ffff97e895d31000");
  EXPECT_EQ(r.mounts[0].snapshot, "1716295737.291444030");
  EXPECT_FALSE(r.mounts[0].read.present);
}

TEST(ClientStatsLustre, ServerStatsAreNotClientCounters) {
  const auto r = parse_lustre_llite_stats(kWhamcloudOst);
  EXPECT_EQ(r.status, ClientStatsStatus::not_found);
  EXPECT_EQ(r.error, "llite stats: no llite.*.stats");
  // The same lines as the text of one file: the format with sums of squares.
  const std::string body =
      std::string(kWhamcloudOst).substr(std::string(kWhamcloudOst).find("snapshot_time"));
  const auto b = parse_lustre_llite_stats(body.substr(0, body.find("obdfilter.")));
  ASSERT_TRUE(b.ok()) << b.error;
  EXPECT_EQ(b.mounts[0].read.samples, 71107883u);
  EXPECT_EQ(b.mounts[0].read.sum, 57978280017920u);
  EXPECT_TRUE(b.mounts[0].read.has_sumsq);
  EXPECT_EQ(b.mounts[0].read.sumsq, 4944972323796025344u);
  EXPECT_EQ(b.mounts[0].write.sumsq, 12081200006032261120u);
}

TEST(ClientStatsLustre, LinesQuotedOnTheMailingList) {
  const auto r = parse_lustre_llite_stats(kLustreDiscuss);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.mounts[0].read.samples, 25673u);
  EXPECT_EQ(r.mounts[0].read.min, 1u);
  EXPECT_EQ(r.mounts[0].read.max, 3366225u);
  EXPECT_EQ(r.mounts[0].read.sum, 145121869u);
  EXPECT_EQ(r.mounts[0].write.sum, 468230469u);
  EXPECT_EQ(r.mounts[0].snapshot, "");
}

TEST(ClientStatsLustre, SeveralMountsAreKeptApart) {
  const std::string text =
      std::string("llite.a-ffff1.stats=\n") + kLustreDiscuss + "llite.b-ffff2.stats=\n" + kHpeLlite;
  const auto r = parse_lustre_llite_stats(text);
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.mounts.size(), 2u);
  EXPECT_EQ(r.mounts[0].instance, "a-ffff1");
  EXPECT_EQ(r.mounts[0].write.sum, 468230469u);
  EXPECT_EQ(r.mounts[1].instance, "b-ffff2");
  EXPECT_EQ(r.mounts[1].write.sum, 93813797294080u);
  const auto b = parse_lustre_llite_stats(text, "b");
  ASSERT_TRUE(b.ok()) << b.error;
  ASSERT_EQ(b.mounts.size(), 1u);
  EXPECT_EQ(b.mounts[0].instance, "b-ffff2");
}

TEST(ClientStatsLustre, MalformedInputIsAnErrorNamingTheLine) {
  struct Case {
    std::string text;
    ClientStatsStatus status;
    std::string error;
  };
  const Case cases[] = {
      {"read_bytes 25673 samples [bytes] 1 3366225", ClientStatsStatus::malformed,
       "llite stats: line 1: expected 'NAME N samples [bytes] MIN MAX SUM [SUMSQ]' with counts "
       "below 2^64, found 'read_bytes 25673 samples [bytes] 1 3366225'"},
      {"write_bytes 1 samples [regs] 1 2 3", ClientStatsStatus::malformed,
       "llite stats: line 1: expected 'NAME N samples [bytes] MIN MAX SUM [SUMSQ]' with counts "
       "below 2^64, found 'write_bytes 1 samples [regs] 1 2 3'"},
      {"read_bytes -1 samples [bytes] 1 2 3", ClientStatsStatus::malformed,
       "llite stats: line 1: expected 'NAME N samples [bytes] MIN MAX SUM [SUMSQ]' with counts "
       "below 2^64, found 'read_bytes -1 samples [bytes] 1 2 3'"},
      {"read_bytes 1 samples [bytes] 1 2 99999999999999999999", ClientStatsStatus::malformed,
       "llite stats: line 1: expected 'NAME N samples [bytes] MIN MAX SUM [SUMSQ]' with counts "
       "below 2^64, found 'read_bytes 1 samples [bytes] 1 2 99999999999999999999'"},
      // lctl get_param -n of two mounts: no headers, so the two cannot be told apart
      {std::string(kLustreDiscuss) + kLustreDiscuss, ClientStatsStatus::malformed,
       "llite stats: line 3: read_bytes a second time in one mount's statistics (several mounts "
       "without their llite.INSTANCE.stats= headers, as lctl get_param -n prints them?)"},
      {"", ClientStatsStatus::not_found, "llite stats: no llite.*.stats"},
      {"memused=35721854085\nhealth_check=healthy\n", ClientStatsStatus::not_found,
       "llite stats: no llite.*.stats"},
  };
  for (const auto& c : cases) {
    const auto r = parse_lustre_llite_stats(c.text);
    EXPECT_EQ(r.status, c.status) << c.text;
    EXPECT_EQ(r.error, c.error) << c.text;
    EXPECT_TRUE(r.mounts.empty()) << c.text;
  }
  // A malformed line of a mount not asked about is never read.
  const std::string other =
      "llite.x-1.stats=\nread_bytes garbage\nllite.y-2.stats=\n" + std::string(kLustreDiscuss);
  const auto y = parse_lustre_llite_stats(other, "y");
  ASSERT_TRUE(y.ok()) << y.error;
  EXPECT_EQ(y.mounts[0].read.sum, 145121869u);
  EXPECT_EQ(parse_lustre_llite_stats(other).status, ClientStatsStatus::malformed);
}

TEST(ClientStatsLustre, BoundsAndEveryTruncation) {
  const auto line =
      parse_lustre_llite_stats("llite.a-1.stats=\n" + std::string(kClientStatsMaxLine + 1, 'y'));
  EXPECT_EQ(line.status, ClientStatsStatus::too_large);
  EXPECT_EQ(line.error, "llite stats: line 2: longer than 1048576 bytes");
  EXPECT_EQ(parse_lustre_llite_stats(std::string(kClientStatsMaxBytes + 1, ' ')).status,
            ClientStatsStatus::too_large);
  std::string many;
  for (std::size_t i = 0; i <= kClientStatsMaxMounts; ++i)
    many += "llite.f-" + std::to_string(i) + ".stats=\n";
  EXPECT_EQ(parse_lustre_llite_stats(many).status, ClientStatsStatus::too_large);
  // Text cut inside the last number of a line reads as a smaller number (the kernel's files end
  // in a newline, but lctl's output need not): once the write_bytes line is whole, it is exact.
  const std::string full = std::string("llite.a-ffff1.stats=\n") + kHpeLlite;
  const std::size_t whole = full.find('\n', full.find("write_bytes"));
  for (std::size_t n = 0; n <= full.size(); ++n) {
    const auto r = parse_lustre_llite_stats(std::string_view(full).substr(0, n));
    if (!r.ok()) {
      EXPECT_EQ(r.error.find('\n'), std::string::npos);
      EXPECT_LT(n, whole);
    } else if (n >= whole) {
      EXPECT_EQ(r.mounts[0].write.sum, 93813797294080u);
    }
  }
}

// Hostile text made of the formats' own pieces, in random order: every result is a status with
// a one-line error or parsed mounts, never a crash (the sanitizer build runs this too).
TEST(ClientStats, RandomTextMadeOfTheFormatsPieces) {
  const std::string pieces[] = {"device ",
                                "mounted ",
                                "on ",
                                "with ",
                                "fstype ",
                                "nfs ",
                                "nfs4 ",
                                "statvers=1.1",
                                "\n",
                                "\t",
                                "bytes: ",
                                "1 ",
                                "18446744073709551615 ",
                                "-1 ",
                                "\\040",
                                "llite.",
                                ".stats=",
                                "read_bytes ",
                                "samples ",
                                "[bytes] ",
                                "x=",
                                "\r",
                                std::string("\0", 1),
                                " "};
  std::uint64_t state = 20261201;
  auto next = [&state] {
    state = state * 6364136223846793005u + 1442695040888963407u;
    return state >> 33;
  };
  for (int i = 0; i < 3000; ++i) {
    std::string text;
    const auto n = next() % 64;
    for (std::uint64_t k = 0; k < n; ++k)
      text += pieces[next() % std::size(pieces)];
    for (const auto& r : {parse_nfs_mountstats(text).error, parse_lustre_llite_stats(text).error})
      EXPECT_EQ(r.find('\n'), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace iosweep
