"""What every part of the GlusterFS bed (dfs_bed, scripts/dfs-bed) shares: its addresses, the
fixed paths of glusterd it binds, the one exception its steps raise (Fail), and the bounded ways
it runs commands and reads processes through /proc.
"""
import ipaddress
import os
import signal
import subprocess
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
AGENT = HERE / "dfs" / "emu-rsh"

SUBNET = ipaddress.ip_network("198.18.0.0/24")
SERVER_IP = "198.18.0.1"
# glusterd and its brick daemons write to these fixed paths whatever their options say (sockets,
# brick logs, geo-replication folders): inside the servers' mount namespace they are the bed's
# own folders, so the host's stay untouched.
MADE_MARK = ".made-by-iosweep-dfs-bed"  # in a bind target a bed had to make
SERVER_BINDS = {"glusterd": "/var/lib/glusterd", "log": "/var/log/glusterfs", "run": "/run/gluster"}


class Fail(Exception):
    """A step of up or down that failed; str() is one line."""


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
    """Ends process `pid` (SIGTERM, then SIGKILL after `grace` s) when its command line holds
    `marker` (a path of this bed): a pid reused by another process is left alone."""
    if not alive(pid) or not any(marker.encode() in a for a in cmdline(pid)):
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
