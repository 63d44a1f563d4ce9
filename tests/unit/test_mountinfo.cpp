// The mount table parser (os/mountinfo) on real /proc/self/mountinfo text: the mount holding a
// path is the longest mount point containing it (the last of stacked ones), mount points and
// sources with spaces, tabs, newlines and backslashes are decoded from the kernel's octal
// escapes, optional fields are skipped, and a malformed line is passed over.
#include <gtest/gtest.h>

#include <string>

#include "os/mountinfo.hpp"

using namespace iosweep;

namespace {

// The head of this machine's /proc/self/mountinfo (no optional fields, as in some containers).
constexpr const char* kContainer =
    "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
    "23 27 0:22 / /sys rw,relatime - sysfs sysfs rw\n"
    "24 27 0:6 / /dev rw,relatime - devtmpfs devtmpfs rw,size=12334192k,nr_inodes=3083548,"
    "mode=755\n"
    "25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24683584k\n"
    "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard,resv_strict,resuid=65534,"
    "resgid=65534\n"
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n";

// A systemd host with a GlusterFS FUSE client, an NFS scratch and a Lustre client: optional
// fields (shared:N, master:N) before the separator, none or several.
constexpr const char* kCluster =
    "29 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw,errors=remount-ro\n"
    "31 29 0:26 / /sys rw,nosuid,nodev,noexec,relatime shared:2 - sysfs sysfs rw\n"
    "842 29 0:61 / /mnt/iosweep-dfs rw,relatime shared:455 - fuse.glusterfs 198.18.0.1:/iosweep"
    " rw,user_id=0,group_id=0,default_permissions,allow_other,max_read=131072\n"
    "903 29 0:65 / /scratch rw,relatime shared:470 master:12 - nfs4 10.0.0.5:/export/scratch "
    "rw,vers=4.2,rsize=1048576,wsize=1048576,hard,proto=tcp,addr=10.0.0.5\n"
    "911 29 0:66 / /lustre/fs1 rw,flock,lazystatfs - lustre 10.1.0.1@o2ib:/fs1 rw\n";

}  // namespace

TEST(Mountinfo, TheLongestMountPointHoldingThePath) {
  EXPECT_EQ(mount_in(kContainer, "/work/wt").fs_type, "ext4");
  EXPECT_EQ(mount_in(kContainer, "/dev/shm/iosweep-1").fs_type, "tmpfs");
  EXPECT_EQ(mount_in(kContainer, "/dev/null").fs_type, "devtmpfs");
  const MountEntry cpu = mount_in(kContainer, "/sys/fs/cgroup/cpu/tasks");
  EXPECT_EQ(cpu.mount_point, "/sys/fs/cgroup/cpu");
  // A mount point is a whole path component: /sys/fs/cgroup/cpux is not under .../cpu.
  EXPECT_EQ(mount_in(kContainer, "/sys/fs/cgroup/cpux").mount_point, "/sys/fs/cgroup");
  EXPECT_EQ(mount_in(kContainer, "/sys/fs/cgroup/cpuacct").mount_point, "/sys/fs/cgroup/cpuacct");
  // The mount point itself is on its own mount.
  EXPECT_EQ(mount_in(kContainer, "/proc").fs_type, "proc");
  EXPECT_EQ(mount_in(kContainer, "/").mount_point, "/");
}

TEST(Mountinfo, SourceAndOptionsOfTheMountAndItsSuperBlock) {
  const MountEntry root = mount_in(kContainer, "/tmp/x");
  ASSERT_TRUE(root.found) << root.why;
  EXPECT_EQ(root.source, "/dev/vda");
  EXPECT_EQ(root.options, "rw,relatime,rw,discard,resv_strict,resuid=65534,resgid=65534");
  EXPECT_EQ(root.why, "");
}

TEST(Mountinfo, OptionalFieldsBeforeTheSeparatorAreSkipped) {
  const MountEntry dfs = mount_in(kCluster, "/mnt/iosweep-dfs/run1");
  EXPECT_EQ(dfs.fs_type, "fuse.glusterfs");
  EXPECT_EQ(dfs.source, "198.18.0.1:/iosweep");
  EXPECT_EQ(dfs.mount_point, "/mnt/iosweep-dfs");
  const MountEntry nfs = mount_in(kCluster, "/scratch/u1");  // shared:470 master:12
  EXPECT_EQ(nfs.fs_type, "nfs4");
  EXPECT_EQ(nfs.source, "10.0.0.5:/export/scratch");
  EXPECT_TRUE(nfs.options.starts_with("rw,relatime,rw,vers=4.2")) << nfs.options;
  const MountEntry lustre = mount_in(kCluster, "/lustre/fs1/u1");  // no optional field
  EXPECT_EQ(lustre.fs_type, "lustre");
  EXPECT_EQ(lustre.source, "10.1.0.1@o2ib:/fs1");
  EXPECT_EQ(mount_in(kCluster, "/home/u1").source, "/dev/nvme0n1p2");
}

TEST(Mountinfo, EscapedSpacesTabsNewlinesAndBackslashesAreDecoded) {
  // As the kernel writes them (show_mountinfo: mangle " \t\n\\"): mount points and sources.
  const std::string table =
      "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
      "60 27 0:40 / /mnt/my\\040disk rw,relatime shared:9 - ext4 /dev/sdb1 rw\n"
      "61 27 0:41 / /mnt/tab\\011name rw - tmpfs tmpfs rw\n"
      "62 27 0:42 / /mnt/back\\134slash rw - tmpfs tmpfs rw\n"
      "63 27 0:43 / /mnt/new\\012line rw - tmpfs tmpfs rw\n"
      "64 27 0:44 / /mnt/share rw - cifs //server/team\\040share rw,vers=3.1.1\n";
  const MountEntry space = mount_in(table, "/mnt/my disk/run 1");
  EXPECT_EQ(space.mount_point, "/mnt/my disk");
  EXPECT_EQ(space.source, "/dev/sdb1");
  EXPECT_EQ(mount_in(table, "/mnt/tab\tname/f").mount_point, "/mnt/tab\tname");
  EXPECT_EQ(mount_in(table, "/mnt/back\\slash").mount_point, "/mnt/back\\slash");
  EXPECT_EQ(mount_in(table, "/mnt/new\nline/f").mount_point, "/mnt/new\nline");
  EXPECT_EQ(mount_in(table, "/mnt/share/x").source, "//server/team share");
  // The escaped spelling is not a path of the mount: /mnt/my\040disk is another folder on /.
  EXPECT_EQ(mount_in(table, "/mnt/my\\040disk").mount_point, "/");
  // A backslash not followed by three octal digits is taken as it is.
  const MountEntry odd = mount_in("70 27 0:50 / /mnt/a\\9b rw - tmpfs tmpfs rw\n", "/mnt/a\\9b");
  EXPECT_EQ(odd.mount_point, "/mnt/a\\9b");
}

TEST(Mountinfo, TheLastOfStackedMountsIsTheVisibleOne) {
  const std::string table =
      "27 1 254:0 / / rw - ext4 /dev/vda rw\n"
      "50 27 8:17 / /data rw - xfs /dev/sdb1 rw\n"
      "51 50 0:45 / /data rw - tmpfs tmpfs rw,size=1024k\n";
  const MountEntry m = mount_in(table, "/data/f");
  EXPECT_EQ(m.fs_type, "tmpfs");
  EXPECT_EQ(m.options, "rw,rw,size=1024k");
}

TEST(Mountinfo, MalformedLinesArePassedOverAndNothingFoundSaysWhy) {
  const std::string table =
      "27 1 254:0 / / rw - ext4 /dev/vda rw\n"
      "80 27 0:60 / /mnt/short\n"                     // cut short
      "81 27 0:61 / /mnt/nodash rw tmpfs tmpfs rw\n"  // no separator
      "82 27 0:62 / /mnt/nosource rw - tmpfs\n"       // the separator, no source
      "\n"
      "83 27 0:63 / /mnt/good rw - tmpfs tmpfs rw";  // no final newline
  EXPECT_EQ(mount_in(table, "/mnt/short/f").mount_point, "/");
  EXPECT_EQ(mount_in(table, "/mnt/nodash/f").mount_point, "/");
  EXPECT_EQ(mount_in(table, "/mnt/nosource/f").mount_point, "/");
  EXPECT_EQ(mount_in(table, "/mnt/good/f").mount_point, "/mnt/good");
  const MountEntry none = mount_in("", "/work");
  EXPECT_FALSE(none.found);
  EXPECT_EQ(none.why, "no mount in the mount table holds /work");
  EXPECT_FALSE(mount_in("80 27 0:60 / /mnt/x rw - tmpfs tmpfs rw\n", "/work").found);
}

TEST(Mountinfo, ThisProcessesOwnTable) {
  // The real file of this machine: /proc is procfs wherever it runs, and a path that does not
  // exist is refused by name rather than guessed.
  const MountEntry proc = mount_of("/proc/self");
  ASSERT_TRUE(proc.found) << proc.why;
  EXPECT_EQ(proc.fs_type, "proc");
  const MountEntry missing = mount_of("/no/such/folder/for/iosweep");
  EXPECT_FALSE(missing.found);
  EXPECT_EQ(missing.why, "cannot resolve /no/such/folder/for/iosweep");
}
