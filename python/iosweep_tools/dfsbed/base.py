"""What every part of the GlusterFS bed (scripts/dfs-bed) shares: its addresses, the fixed paths
of glusterd it binds, the volume options it sets, whether this machine can hold one (can_run),
the one exception its steps raise (Fail), and the bounded ways it runs commands and reads
processes through /proc.
"""
import ipaddress
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

from iosweep_tools.core.install import scripts_dir

AGENT = scripts_dir() / "dfs" / "emu-rsh"
NAME_RE = re.compile(r"[a-z][a-z0-9-]{0,23}")  # a bed's name

SUBNET = ipaddress.ip_network("198.18.0.0/24")
SERVER_IP = "198.18.0.1"
# glusterd and its brick daemons write to these fixed paths whatever their options say (sockets,
# brick logs, geo-replication folders): inside the servers' mount namespace they are the bed's
# own folders, so the host's stay untouched.
MADE_MARK = ".made-by-iosweep-dfs-bed"  # in the bed's folder, and in a bind target it made
SERVER_BINDS = {"glusterd": "/var/lib/glusterd", "log": "/var/log/glusterfs", "run": "/run/gluster"}


# Volume options the bed sets, with why (measured on this bed, docs/dfs.md has the figures):
VOLUME_OPTIONS = [
    # io-cache keeps file data in the client process: after posix_fadvise(DONTNEED) the page
    # cache shows 0% resident, yet a re-read of 32 MiB moved 114 bytes over the node's wire.
    ("performance.io-cache", "off"),
    # read-ahead prefetches into the client process (more bytes on the wire than asked for,
    # served later from the process, invisible to mincore).
    ("performance.read-ahead", "off"),
    # quick-read serves whole small files (up to 64 KiB) from the client process.
    ("performance.quick-read", "off"),
    # O_DIRECT passes write-behind (which would acknowledge a write before any server has it)
    # and the other performance translators: --direct measures the servers.
    ("performance.strict-o-direct", "on"),
    # md-cache caches file sizes in the client process. With strict-o-direct on, a 16 MiB
    # O_DIRECT write goes out as 128 KiB requests in flight together, md-cache kept the size of
    # a reply that came back early (16 MiB - 128 KiB), and an O_DIRECT read right after came
    # back short (6 reads in 10); FUSE then takes the short read for the end of the file
    # (iosweep: ENODATA, short read). Off, every stat goes to the servers and no read was short.
    ("performance.stat-prefetch", "off"),
]

# What the packages must provide.
TOOLS = ("glusterd", "gluster", "glusterfs", "glusterfsd", "losetup", "mkfs.ext4", "nsenter",
         "unshare", "ip", "mount", "umount")  # fmt: skip


def can_run(to_start=True):
    """None when this machine can hold a bed, else why not (one line). Without `to_start`, only
    what taking one down needs (root and the tools): no free loop device is no reason to leave
    a bed up."""
    if os.geteuid() != 0:
        return "the bed needs root (namespaces, loop devices, FUSE mounts)"
    for t in TOOLS:
        if shutil.which(t) is None:
            return f"{t} is not installed (scripts/install-deps installs GlusterFS and its tools)"
    if not to_start:
        return None
    if not os.path.exists("/dev/fuse"):
        return "/dev/fuse does not exist (no FUSE in this kernel or container)"
    try:
        os.close(os.open("/dev/fuse", os.O_RDWR))
    except OSError as e:
        return f"/dev/fuse cannot be opened ({e.strerror})"
    if not os.path.exists("/dev/loop-control"):
        return "/dev/loop-control does not exist (no loop devices here)"
    if subprocess.run(["losetup", "--find"], capture_output=True).returncode != 0:
        return "no free loop device (losetup --find fails)"
    probe = subprocess.run(["unshare", "--net", "--mount", "--uts", "true"], capture_output=True)
    if probe.returncode != 0:
        return "this machine refuses new network, mount or UTS namespaces"
    return None


class Fail(Exception):
    """A step of up or down that failed; str() is one line."""


class NotOurs(Fail):
    """Something a step would remove or end that no bed can be shown to have made (a folder
    without the bed's mark, a namespace it did not record): nothing was touched; str() is one
    line."""


# ----------------------------------------------------------------------------- running


def run(argv, timeout=60, check=True, what=None, **kw):
    """Runs argv (no shell), bounded; raises Fail naming `what` (or the command) on failure."""
    try:
        p = subprocess.run(
            [str(a) for a in argv],
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            **kw,
        )
    except subprocess.TimeoutExpired:
        raise Fail(f"{what or argv[0]}: no answer after {timeout} s") from None
    except OSError as e:
        raise Fail(f"{what or argv[0]}: {e.strerror}") from None
    if check and p.returncode != 0:
        said = " ".join((p.stderr.strip() or p.stdout.strip()).split())[:300]
        raise Fail(f"{what or ' '.join(map(str, argv[:3]))} failed (exit {p.returncode}): {said}")
    return p


def alive(pid):
    """True when `pid` is a process that has not exited (zombies count as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def cmdline(pid):
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return []


def stop_pid(pid, marker, grace=10.0):
    """Ends process `pid` (SIGTERM, then SIGKILL after `grace` s) when one argument of its command
    line holds `marker` (the bed's folder and a slash: a path of this bed, and of no other bed
    whose name starts with this one's), so that a pid reused by another process is left alone.
    `marker` None: a process found inside the bed's own namespaces, ended whatever it runs."""
    if not alive(pid):
        return
    if marker is not None and not any(marker.encode() in a for a in cmdline(pid)):
        return
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        end = time.monotonic() + wait
        while time.monotonic() < end:
            if not alive(pid):
                return
            time.sleep(0.05)
    raise Fail(f"process {pid} did not end after SIGKILL")


def read_pid(path):
    try:
        return int(Path(path).read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def mountinfo(pid="self"):
    """[(mount point, fs type, source)] of a process's mount namespace."""
    out = []
    try:
        lines = Path(f"/proc/{pid}/mountinfo").read_text().splitlines()
    except OSError:
        return out
    for ln in lines:
        left, _, right = ln.partition(" - ")
        f, r = left.split(), right.split()
        if len(f) >= 5 and len(r) >= 2:
            out.append((f[4].replace("\\040", " "), r[0], r[1]))
    return out


def netdev(pid, iface="eth0"):
    """(rx_bytes, tx_bytes) of `iface` in the network namespace of process `pid`
    (/proc/PID/net/dev always shows the process's own namespace; /sys/class/net shows the one of
    whoever mounted /sys)."""
    for ln in Path(f"/proc/{pid}/net/dev").read_text().splitlines():
        name, _, rest = ln.partition(":")
        if name.strip() == iface:
            f = rest.split()
            return int(f[0]), int(f[8])
    raise Fail(f"no interface {iface} in the network namespace of process {pid}")
