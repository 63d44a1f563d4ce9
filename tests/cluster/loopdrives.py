"""Drives for the tests: small ext4 file systems, each an image file on its own loop device
mounted on its own folder (as root), made and taken down by the test that uses them.

    drives = make_drives(root, ["node1", "node2"], 2)   # skips the test when they cannot be made
    drives.folder("node1", 0), drives.device("node1", 0)
    drives.close()                                      # unmounts and detaches every one
"""
import os
import shutil
import subprocess

import pytest

IMAGE = 24 << 20  # bytes of each drive's file system image
LAZY_OFF = "lazy_itable_init=0,lazy_journal_init=0"


def sh(*cmd):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, check=True)


def mounted(path):
    with open("/proc/self/mountinfo") as f:
        return any(line.split()[4] == str(path) for line in f)


class LoopDrives:
    """`drives` ext4 file systems per node, each an image file on its own loop device mounted at
    ROOT/nodes/NODE/dI; close() unmounts and detaches every one of them, whatever happened."""

    def __init__(self, root, nodes, drives):
        self.root, self.mounts, self.loops = root, [], []
        try:
            for node in nodes:
                for i in range(drives):
                    self._make(node, i)
        except BaseException:
            self.close()
            raise

    def _make(self, node, i):
        img = self.root / "img" / f"{node}-d{i}.img"
        img.parent.mkdir(parents=True, exist_ok=True)
        with open(img, "wb") as f:
            f.truncate(IMAGE)
        # No journal and no lazy initialisation: nothing of the file system's own writes in
        # the background while a phase is counted.
        sh("mkfs.ext4", "-q", "-F", "-O", "^has_journal", "-E", LAZY_OFF, img)
        loop = sh("losetup", "-f", "--show", img).stdout.strip()
        self.loops.append(loop)
        mnt = self.folder(node, i)
        mnt.mkdir(parents=True)
        sh("mount", loop, mnt)
        self.mounts.append(mnt)

    def folder(self, node, i):
        return self.root / "nodes" / node / f"d{i}"

    def device(self, node, i):
        """The loop device's name (loop7) under the folder."""
        return os.path.basename(self.loops[self.mounts.index(self.folder(node, i))])

    def close(self):
        for mnt in reversed(self.mounts):
            if mounted(mnt):
                if subprocess.run(["umount", str(mnt)], capture_output=True).returncode != 0:
                    subprocess.run(["umount", "-l", str(mnt)], capture_output=True)
        for loop in reversed(self.loops):
            subprocess.run(["losetup", "-d", loop], capture_output=True)
        self.mounts, self.loops = [], []


def missing_loop_tools():
    """Why loop devices with their own file system cannot be made here, or None."""
    if os.geteuid() != 0:
        return "loop devices need root"
    for tool in ("mkfs.ext4", "losetup", "mount", "umount"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    return None


def make_drives(root, nodes, drives):
    try:
        return LoopDrives(root, nodes, drives)
    except subprocess.CalledProcessError as e:
        pytest.skip(f"loop devices with their own file system cannot be made here: {e.stderr}")
