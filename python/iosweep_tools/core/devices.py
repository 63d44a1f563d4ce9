"""The block device holding a folder and the file system it is on, resolved as iosweep resolves
them (iosweep's block_device.cpp and the mount table).

    block_device("/var/tmp")          # BlockDevice("vda", "/sys/block/vda/stat"); .sample()
    fs_type("/var/tmp")               # "ext4"
"""
import os
from pathlib import Path


class BlockDevice:
    """The block device holding a folder, resolved as iosweep resolves it
    (its block_device.cpp): stat's st_dev, /sys/dev/block/MAJ:MIN, a partition counted
    as its disk, device-mapper and md devices as themselves. `name` is "vda", "dm-0 (vg-root)";
    `stat_path` its counters; where there is none, `stat_path` is None and `why` says why."""

    def __init__(self, name=None, stat_path=None, why="", dev=None):
        self.name, self.stat_path, self.why, self.dev = name, stat_path, why, dev

    def __bool__(self):
        return self.stat_path is not None

    def __repr__(self):
        return (
            f"BlockDevice({self.name!r}, {self.stat_path!r})"
            if self
            else f"BlockDevice(none: {self.why})"
        )

    def sample(self):
        """The device's counters since boot: {read_bytes, write_bytes, read_ops, write_ops}
        (sectors are 512 bytes whatever the device's); None without a device."""
        if not self:
            return None
        f = Path(self.stat_path).read_text().split()
        if len(f) < 7:
            raise ValueError(
                f"{self.stat_path}: expected at least 7 counters (found '{' '.join(f)}')"
            )
        f = [int(x) for x in f[:7]]
        return {
            "read_ops": f[0],
            "read_bytes": f[2] * 512,
            "write_ops": f[4],
            "write_bytes": f[6] * 512,
        }


def fs_type(path):
    """The type of the file system mounted at or above `path`, from /proc/self/mounts."""
    best, kind = "", "an unknown file system"
    try:
        real = os.path.realpath(path)
        for line in Path("/proc/self/mounts").read_text().splitlines():
            parts = line.split()
            if len(parts) >= 3:
                mnt = parts[1].replace("\\040", " ")
                if (real == mnt or real.startswith(mnt.rstrip("/") + "/")) and len(mnt) >= len(
                    best
                ):
                    best, kind = mnt, parts[2]
    except OSError:
        pass
    return kind


def block_device(path, sysfs="/sys", dev=None):
    """The BlockDevice holding `path` (`dev` = (major, minor) instead of stat's, and `sysfs`
    another /sys, for tests)."""
    if dev is None:
        try:
            st = os.stat(path)
        except OSError as e:
            return BlockDevice(why=f"cannot stat {path} ({e.strerror})")
        dev = (os.major(st.st_dev), os.minor(st.st_dev))
    maj, mnr = dev
    if maj == 0:
        return BlockDevice(
            why=f"{path} is on {fs_type(path)}, which has no block device (device 0:{mnr})", dev=dev
        )
    link = os.path.join(sysfs, "dev", "block", f"{maj}:{mnr}")
    if not os.path.exists(link):
        return BlockDevice(
            why=f"device {maj}:{mnr} of {path} is not in {os.path.dirname(link)}", dev=dev
        )
    sys_dir = os.path.realpath(link)
    if os.path.exists(os.path.join(sys_dir, "partition")):
        sys_dir = os.path.dirname(sys_dir)  # a partition counts as its disk
    stat_path = os.path.join(sys_dir, "stat")
    if not os.path.exists(stat_path):
        return BlockDevice(why=f"{stat_path} does not exist", dev=dev)
    name = os.path.basename(sys_dir)
    try:
        dm = Path(sys_dir, "dm", "name").read_text().strip()
    except OSError:
        dm = ""
    return BlockDevice(f"{name} ({dm})" if dm else name, stat_path, "", dev)
