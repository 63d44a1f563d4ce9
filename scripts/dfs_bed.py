"""A real distributed file system on one machine: a GlusterFS volume and emulated client nodes.

    scripts/dfs-bed up [--nodes 2] [--bricks 2] [--brick-size 1g] [--slots 2] [--option K=V]...
    scripts/dfs-bed exec -- mpirun -np 4 --hostfile /run/iosweep-dfs/hostfile build/iosweep run \\
        --dir /mnt/iosweep-dfs ...
    scripts/dfs-bed node node1 -- fincore /mnt/iosweep-dfs/FILE
    scripts/dfs-bed status [--json]
    scripts/dfs-bed revive      # restart brick daemons killed by a test
    scripts/dfs-bed down

What `up` builds (all of it under the bed's folder /run/NAME, NAME = --name, iosweep-dfs):
- a head network namespace NAME-head holding a bridge br0 at 198.18.0.1/24: the servers and
  mpirun live there. The addresses exist only inside the bed's namespaces;
- the servers: glusterd (started in the foreground, -N, so its pid is the one started) and one
  glusterfsd per brick, in NAME-head and in a mount namespace of their own (/run/NAME/ns/
  server.mnt) where every brick is an ext4 file system on its own loop device (a sparse file in
  /run/NAME/bricks, attached with losetup), so the servers' block devices have counters of their
  own (/sys/block/loopN/stat). glusterd's state, logs and sockets stay in /run/NAME/srv, bound
  over /var/lib/glusterd, /var/log/glusterfs and /run/gluster inside that mount namespace only;
- one distributed volume NAME over the bricks (each file on one brick), with the options of
  VOLUME_OPTIONS below (and --option), so that what a client measures is the servers;
- per node nodeI (I = 1..N): a network namespace NAME-nodeI whose eth0 (198.18.0.(10+I)/24) is a
  veth to the bridge, and a mount and a UTS namespace (/run/NAME/ns/nodeI.mnt, .uts, host name
  nodeI) in which the volume's own client (a glusterfs process, pid in /run/NAME/clients)
  mounts it at --mount (/mnt/NAME) as on every other node. Each node has its own client and so its
  own page cache, and its storage traffic crosses its own eth0 (/proc/PID/net/dev of its client).
  The namespaces persist between launches: nsfs bind mounts on files of a private mount of
  /run/NAME/ns, and the ip netns names.

`exec` runs a command in the head namespace (the host's file systems, NAME-head's network) with
what makes mpirun start one orted per node of /run/NAME/hostfile inside that node's namespaces
(scripts/dfs/emu-rsh as its rsh agent) and keeps Open MPI's TCP to the bed's subnet. `node` runs
a command inside one node. `down` removes everything `up` made, by pid and by path, in reverse
order: it works after a partial `up`, on a bed that is already gone, and twice in a row.

Bad arguments are refused in one line before anything starts (exit 2); a failure during `up`
takes down what was made so far and exits 1 with one line naming what failed.
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

from iosweep_tools.core.cmdline import PlainParser, doc_parser, whole_numbers
from iosweep_tools.core import command
from iosweep_tools.core.errors import Stop
from dfs_bed_base import SERVER_IP, SUBNET, Fail
from dfs_bed_layout import Bed

# Not used here; tests and dfs_vs_ior read them as dfs_bed.NAME.
from dfs_bed_base import alive, cmdline, netdev  # noqa: F401

MAX_NODES = 200  # addresses 198.18.0.11 .. 198.18.0.210
MAX_BRICKS = 16
MIN_BRICK = 64 << 20  # mkfs.ext4 and the tests' files need room
NAME_RE = re.compile(r"[a-z][a-z0-9-]{0,23}")

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


# ----------------------------------------------------------------------------- checks


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


def parse_size(text):
    m = re.fullmatch(r"(\d+)([kmgt]?)(i?b)?", text.strip().lower())
    if not m:
        return None
    return int(m.group(1)) << {"": 0, "k": 10, "m": 20, "g": 30, "t": 40}[m.group(2)]


def parse_args(argv):
    ap = doc_parser(__doc__, cls=PlainParser, prog="dfs-bed")
    ap.add_argument("--name", default="iosweep-dfs", help="the bed's name (default iosweep-dfs)")
    sub = ap.add_subparsers(
        dest="cmd", metavar="up|down|status|exec|node|revive", parser_class=PlainParser
    )
    sub.required = True
    up = sub.add_parser("up", help="bring the bed up")
    up.add_argument("--nodes", default="2", help="emulated client nodes (default 2)")
    up.add_argument("--bricks", default="2", help="bricks of the volume (default 2)")
    up.add_argument("--brick-size", default="1g", help="size of each brick's device (default 1g)")
    up.add_argument("--slots", default="2", help="slots per node in the host file (default 2)")
    up.add_argument("--mount", help="where every node mounts the volume (default /mnt/NAME)")
    up.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a volume option, after the bed's own (repeatable)",
    )
    sub.add_parser("down", help="take the bed down completely (idempotent)")
    sub.add_parser("revive", help="restart killed brick daemons; wait for every client")
    st = sub.add_parser("status", help="print the bed; exit 0 when it is up and whole")
    st.add_argument("--json", action="store_true", help="as JSON")
    ex = sub.add_parser("exec", help="run a command in the head namespace with mpirun's setup")
    ex.add_argument("command", nargs=argparse.REMAINDER)
    nd = sub.add_parser("node", help="run a command inside one node")
    nd.add_argument("node")
    nd.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    if not NAME_RE.fullmatch(a.name):
        raise Stop(f"--name: '{a.name}' must be a lowercase letter then letters, digits or '-'"
                   " (at most 24)")  # fmt: skip
    if a.cmd in ("exec", "node"):
        if a.command[:1] == ["--"]:
            a.command = a.command[1:]
        if not a.command:
            raise Stop(f"{a.cmd}: give the command to run after --")
    if a.cmd != "up":
        return a
    whole_numbers(a, ("nodes", 1, MAX_NODES), ("bricks", 1, MAX_BRICKS), ("slots", 1, 1024))
    size = parse_size(a.brick_size)
    if size is None:
        raise Stop(f"--brick-size: '{a.brick_size}' is not a size (512m, 1g)")
    if size < MIN_BRICK:
        raise Stop(f"--brick-size: must be at least 64m (found '{a.brick_size}')")
    a.brick_size = size
    if a.mount is None:
        a.mount = f"/mnt/{a.name}"
    else:
        if not a.mount.startswith("/") or a.mount.rstrip("/") in ("", "/run") or ".." in a.mount:
            raise Stop(f"--mount: '{a.mount}' must be an absolute path of a folder")
        a.mount = os.path.normpath(a.mount)
    if os.path.exists(a.mount) and (not os.path.isdir(a.mount) or os.listdir(a.mount)):
        raise Stop(f"--mount: '{a.mount}' exists and is not an empty folder")
    opts = list(VOLUME_OPTIONS)
    for o in a.option:
        k, eq, v = o.partition("=")
        if not eq or not re.fullmatch(r"[a-z][a-z0-9.-]*\.[a-z0-9.-]+", k) or not v or " " in v:
            raise Stop(f"--option: '{o}' is not KEY=VALUE (performance.io-cache=on)")
        opts = [(ok, ov) for ok, ov in opts if ok != k] + [(k, v)]
    a.options = opts
    return a


# ------------------------------------------------------------------------------- main


def main(argv=None):
    """The command; its status (a Stop in one line, see core.command.plain)."""
    return command.plain(_main, sys.argv[1:] if argv is None else argv)


def _main(argv):
    a = parse_args(argv)
    bed = Bed(a.name, getattr(a, "mount", None))
    if a.cmd == "status":
        return status(bed, a.json)
    if a.cmd == "exec":
        if bed.state.get("phase") != "up":
            raise Stop(f"exec: bed {a.name} is not up (scripts/dfs-bed up)", 1)
        return exec_cmd(bed.head_cmd(a.command), bed.mpi_env())
    if a.cmd == "node":
        if bed.state.get("phase") != "up":
            raise Stop(f"node: bed {a.name} is not up (scripts/dfs-bed up)", 1)
        if a.node not in bed.nodes():
            raise Stop(f"node: '{a.node}' is not a node of bed {a.name} ({', '.join(bed.nodes())})")
        return exec_cmd(bed.node_cmd(a.node, a.command), None)
    why = can_run(to_start=a.cmd == "up")
    if why:
        raise Stop(f"{a.cmd}: {why}", 1)
    if a.cmd == "revive":
        if bed.state.get("phase") != "up":
            raise Stop(f"revive: bed {a.name} is not up (scripts/dfs-bed up)", 1)
        t0 = time.monotonic()
        try:
            bed.revive()
        except Fail as e:
            raise Stop(f"revive: {e}", 1)
        print(f"dfs-bed: every brick of {a.name} is back ({time.monotonic() - t0:.1f} s)")
        return 0
    if a.cmd == "down":
        t0 = time.monotonic()
        try:
            bed.down()
        except Fail as e:
            raise Stop(f"down: {e}", 1)
        print(f"dfs-bed: {a.name} is down ({time.monotonic() - t0:.1f} s)")
        return 0
    # up
    if bed.root.exists() or bed.our_netns():
        raise Stop(f"up: bed {a.name} exists already (scripts/dfs-bed --name {a.name} down)", 1)
    t0 = time.monotonic()
    old = signal.signal(signal.SIGTERM, _interrupt)
    try:
        bed.up(a.nodes, a.bricks, a.brick_size, a.slots, a.options)
    except (Fail, OSError, KeyboardInterrupt) as e:
        why = "interrupted" if isinstance(e, KeyboardInterrupt) else str(e)
        try:
            bed.down()
        except Fail as e2:
            why += f"; taking it down again also failed: {e2}"
        raise Stop(f"up: {why}", 1)
    finally:
        signal.signal(signal.SIGTERM, old)
    print(
        f"dfs-bed: {a.name} is up in {time.monotonic() - t0:.1f} s: volume {a.name} on "
        f"{a.bricks} brick(s), {a.nodes} node(s) mounting it at {bed.mount}; host file "
        f"{bed.hostfile}"
    )
    return 0


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def exec_cmd(argv, env):
    try:
        os.execvpe(argv[0], argv, env if env is not None else os.environ)
    except OSError as e:
        raise Stop(f"{argv[0]}: {e.strerror}", 1)


def status(bed, as_json):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output, not a traceback
    info = bed.info()
    whole = (
        info["phase"] == "up"
        and info["glusterd_alive"]
        and all(b["online"] for b in info["bricks"])
        and all(n["mounted"] for n in info["nodes"].values())
    )
    info["whole"] = whole
    if as_json:
        print(json.dumps(info, indent=1))
        return 0 if whole else 1
    if info["phase"] == "down" and not bed.root.exists():
        print(f"dfs-bed: {bed.name} is down")
        return 1
    print(f"dfs-bed: {bed.name}: {info['phase']}{'' if whole else ' (not whole)'}")
    print(
        f"  servers  netns {info['head_netns']} bridge br0 {SERVER_IP}/{SUBNET.prefixlen}, "
        f"glusterd pid {info['glusterd_pid']} ({'alive' if info['glusterd_alive'] else 'gone'})"
    )
    for b in info["bricks"]:
        print(
            f"  brick    {b['path']} on {b['dev']} ({b['stat']}), glusterfsd pid {b['pid']} "
            f"({'online' if b['online'] else 'offline'})"
        )
    for n, v in info["nodes"].items():
        print(
            f"  node     {n} {v['ip']} netns {v['netns']}, client pid {v['client_pid']}, "
            f"{info['mount']} {'mounted' if v['mounted'] else 'NOT mounted'}"
        )
    print(f"  options  {', '.join(info['options'])}")
    print(f"  run      scripts/dfs-bed --name {bed.name} exec -- mpirun --hostfile {bed.hostfile}")
    return 0 if whole else 1


if __name__ == "__main__":
    sys.exit(main())
