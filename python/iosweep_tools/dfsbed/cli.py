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

A bed removes only what it can show it made: /run/NAME holds a mark up writes there first, and
the network namespaces and the mount point's folders up made are recorded with their inodes in
/run/NAME/state.json. `down` of a NAME whose /run/NAME lacks the mark, or beside namespaces
named like the bed's that it did not record, says so in one line (exit 2) and touches nothing.

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
import signal
import sys
import time

from iosweep_tools.core import command
from iosweep_tools.core import files
from iosweep_tools.core.cmdline import PlainParser, doc_parser, whole_numbers
from iosweep_tools.core.errors import Stop
from iosweep_tools.core.text import shown
from iosweep_tools.dfsbed import down, up
from iosweep_tools.dfsbed.base import (
    NAME_RE,
    SERVER_IP,
    SUBNET,
    VOLUME_OPTIONS,
    Fail,
    NotOurs,
    can_run,
)
from iosweep_tools.dfsbed.bed import RUN_DIR, Bed

MAX_NODES = 200  # addresses 198.18.0.11 .. 198.18.0.210
MAX_BRICKS = 16
MIN_BRICK = 64 << 20  # mkfs.ext4 and the tests' files need room


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
    up.add_argument(
        "--brick-size",
        default="1g",
        help="size of each brick's device, a sparse file in /run/NAME/bricks: at least 64m, and"
        " the bricks within the free space there (default 1g)",
    )
    up.add_argument("--slots", default="2", help="slots per node in the host file (default 2)")
    up.add_argument(
        "--mount",
        help="where every node mounts the volume: an absolute path on storage (not /proc, /sys,"
        " /dev), a new or empty folder (default /mnt/NAME)",
    )
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
    return _checked(ap.parse_args(argv))


def _checked(a):
    """The arguments checked, those of up made what up takes."""
    if not NAME_RE.fullmatch(a.name):
        raise Stop(f"--name: '{a.name}' must be a lowercase letter then letters, digits or '-'"
                   " (at most 24)")  # fmt: skip
    if a.cmd in ("exec", "node"):
        if a.command[:1] == ["--"]:
            a.command = a.command[1:]
        if not a.command:
            raise Stop(f"{a.cmd}: give the command to run after --")
    return _up_args(a) if a.cmd == "up" else a


def _up_args(a):
    whole_numbers(a, ("nodes", 1, MAX_NODES), ("bricks", 1, MAX_BRICKS), ("slots", 1, 1024))
    size = parse_size(a.brick_size)
    if size is None:
        raise Stop(f"--brick-size: {shown(a.brick_size)} is not a size (512m, 1g)")
    if size < MIN_BRICK:
        raise Stop(f"--brick-size: must be at least 64m (found {shown(a.brick_size)})")
    # The bricks are sparse files, yet mkfs and the tests' files fill them: they must fit where
    # they go (a size beyond the file system's largest file fails there with EFBIG).
    files.check_space("--brick-size", str(RUN_DIR), a.bricks, size)
    a.brick_size = size
    a.mount = _mount_arg(a.mount, a.name)
    a.options = _options(a.option)
    return a


def _mount_arg(mount, name):
    """--mount checked: an absolute path outside the bed's folder, on storage, and a new folder
    (up makes it, and the missing folders above it) or an empty one (not a link)."""
    if mount is None:
        mount = f"/mnt/{name}"
    elif not mount.startswith("/") or ".." in mount.split("/"):
        raise Stop(f"--mount: {shown(mount)} must be an absolute path of a folder")
    mount = os.path.normpath(mount)
    root = str(RUN_DIR / name)
    if mount in ("/", "/run") or mount == root or mount.startswith(root + "/"):
        raise Stop(f"--mount: {shown(mount)} must be a folder of its own, outside {root}")
    existing = mount
    while not os.path.lexists(existing):
        existing = os.path.dirname(existing)
    kind = files.pseudo_fs(existing)
    if kind:
        raise Stop(f"--mount: {shown(mount)} is on {kind}, a pseudo file system, not storage")
    if existing != mount and not os.path.isdir(existing):
        raise Stop(f"--mount: {shown(mount)}: {shown(existing)} is not a folder")
    if existing == mount:
        if os.path.islink(mount) or not os.path.isdir(mount):
            raise Stop(f"--mount: {shown(mount)} exists and is not a folder")
        if os.listdir(mount):
            raise Stop(f"--mount: {shown(mount)} exists and is not an empty folder")
    return mount


def _options(given):
    """The volume options: the bed's own, each --option KEY=VALUE replacing or adding one."""
    opts = list(VOLUME_OPTIONS)
    for o in given:
        k, eq, v = o.partition("=")
        if not eq or not re.fullmatch(r"[a-z][a-z0-9.-]*\.[a-z0-9.-]+", k) or not v or " " in v:
            raise Stop(f"--option: '{o}' is not KEY=VALUE (performance.io-cache=on)")
        opts = [(ok, ov) for ok, ov in opts if ok != k] + [(k, v)]
    return opts


# ------------------------------------------------------------------------------- main


def main(argv=None):
    """The command; its status (a Stop in one line, see core.command.plain)."""
    return command.plain(_main, sys.argv[1:] if argv is None else argv)


def _main(argv):
    a = parse_args(argv)
    bed = Bed(a.name, getattr(a, "mount", None))
    if a.cmd == "status":
        return status(bed, a.json)
    if a.cmd in ("exec", "node"):
        return _run_in(bed, a)
    why = can_run(to_start=a.cmd == "up")
    if why:
        raise Stop(f"{a.cmd}: {why}", 1)
    try:
        return {"revive": _revive, "down": _down, "up": _up}[a.cmd](bed, a)
    except NotOurs as e:  # nothing touched
        raise Stop(f"{a.cmd}: {e}", 2) from None


def _run_in(bed, a):
    """exec (the head namespace, mpirun's set-up) or node (inside one node): the command
    replaces this process."""
    if bed.state.get("phase") != "up":
        raise Stop(f"{a.cmd}: bed {a.name} is not up (scripts/dfs-bed up)", 1)
    if a.cmd == "exec":
        return exec_cmd(bed.head_cmd(a.command), bed.mpi_env())
    if a.node not in bed.nodes():
        raise Stop(f"node: '{a.node}' is not a node of bed {a.name} ({', '.join(bed.nodes())})")
    return exec_cmd(bed.node_cmd(a.node, a.command), None)


def _revive(bed, a):
    if bed.state.get("phase") != "up":
        raise Stop(f"revive: bed {a.name} is not up (scripts/dfs-bed up)", 1)
    t0 = time.monotonic()
    try:
        up.revive(bed)
    except Fail as e:
        raise Stop(f"revive: {e}", 1) from None
    print(f"dfs-bed: every brick of {a.name} is back ({time.monotonic() - t0:.1f} s)")
    return 0


def _down(bed, a):
    t0 = time.monotonic()
    there = os.path.lexists(bed.root)
    try:
        down.down(bed)
    except NotOurs:
        raise
    except Fail as e:
        raise Stop(f"down: {e}", 1) from None
    took = f"{time.monotonic() - t0:.1f} s" if there else "nothing of it was here"
    print(f"dfs-bed: {a.name} is down ({took})")
    return 0


def _up(bed, a):
    """Brings the bed up; on any failure (or Ctrl-C, SIGTERM) takes down what was made."""
    try:
        made = bed.made()
    except NotOurs:
        raise Stop(
            f"--name: {bed.root} exists and is not a bed's folder; nothing touched"
        ) from None
    if made:
        raise Stop(f"up: bed {a.name} exists already (scripts/dfs-bed --name {a.name} down)", 1)
    strays = bed.stray_netns()
    if strays:
        raise Stop(f"--name: network namespace(s) {', '.join(strays)} exist already")
    t0 = time.monotonic()
    old = signal.signal(signal.SIGTERM, _interrupt)
    try:
        up.up(bed, a.nodes, a.bricks, a.brick_size, a.slots, a.options)
    except (Fail, OSError, KeyboardInterrupt) as e:
        why = "interrupted" if isinstance(e, KeyboardInterrupt) else str(e)
        try:
            down.down(bed)
        except Fail as e2:
            why += f"; taking it down again also failed: {e2}"
        raise Stop(f"up: {why}", 1) from None
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
        raise Stop(f"{argv[0]}: {e.strerror}", 1) from None


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
