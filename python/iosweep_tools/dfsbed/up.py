"""Bringing a GlusterFS bed (dfsbed.bed.Bed) up, in the order that dfs-bed's --help tells (the
docstring of dfsbed.cli): the bed's folders and the private mount its namespace files sit on,
the head network namespace with its bridge, the servers' mount namespace, the bricks (ext4 on
loop devices), glusterd and the volume, then each node's namespaces and its client. What is made
is recorded in the bed's state (state.json) step by step, so that dfsbed.down can take a partial
bed down. Also revive, which starts the brick daemons that a test killed again and waits for
every client.
"""
import os
import shlex
import subprocess
import time
from pathlib import Path

from iosweep_tools.dfsbed.base import (
    MADE_MARK,
    SERVER_BINDS,
    SERVER_IP,
    SUBNET,
    Fail,
    alive,
    mountinfo,
    read_pid,
    run,
)
from iosweep_tools.dfsbed.bed import NETNS_DIR


def up(bed, nodes, bricks, brick_size, slots, options):
    """Makes every part of `bed` (in the order above): `nodes`, `bricks` and `slots` per node are
    counts, `brick_size` is bytes, `options` the volume's [(key, value)]. Raises Fail (or OSError)
    part way; the caller then takes the bed down."""
    _folders(bed)
    _head(bed)
    _servers_namespace(bed)
    _bricks(bed, bricks, brick_size)
    _glusterd(bed)
    _volume(bed, bricks, options)
    bed.state["nodes"] = {}
    for i in range(1, nodes + 1):
        _node(bed, i)
    bed.hostfile.write_text("".join(f"{n} slots={slots}\n" for n in bed.state["nodes"]))
    bed.note("phase", "up")


def _folders(bed):
    """The bed's folders and state, the private mount of its namespace files, the mount point,
    and the bind targets of glusterd's fixed paths."""
    bed.state = {
        "name": bed.name,
        "mount": bed.mount,
        "phase": "starting",
        "started": time.time(),
    }
    bed.root.mkdir()  # the bed's folder is new: up refused one that exists
    # Its mark first, made exclusively: what shows dfsbed.down that the folder is a bed's.
    with open(bed.mark, "x") as f:
        f.write(bed.mark_text())
    for d in ("ns", "srv/glusterd", "srv/log", "srv/run", "log", "bricks", "clients"):
        (bed.root / d).mkdir(parents=True, exist_ok=True)
    bed.save()
    # Namespace files must sit on a private mount (a mount namespace bound on a shared one
    # could end up inside itself).
    run(["mount", "--bind", bed.ns, bed.ns])
    bed.note("ns_bound", True)
    run(["mount", "--make-private", bed.ns])
    _mount_point(bed)
    # The bind targets of glusterd's fixed paths (the packages make the first two): empty
    # folders of the host when they are missing, marked as made by a bed, so that the last
    # bed to go down removes them whichever bed made them.
    for d in SERVER_BINDS.values():
        if not Path(d).exists():
            os.makedirs(d)
            (Path(d) / MADE_MARK).touch()


def _mount_point(bed):
    """The mount point's folder and those above it that are missing, each recorded with its
    device and inode (outermost first) so that down removes only these, and only while empty."""
    missing = []
    p = Path(bed.mount)
    while not os.path.lexists(p):
        missing.append(p)
        p = p.parent
    made = []
    for d in reversed(missing):
        os.mkdir(d)
        st = os.stat(d)
        made.append([str(d), st.st_dev, st.st_ino])
        bed.note("made_dirs", made)


def _add_netns(bed, ns):
    """Network namespace `ns`, recorded before `ip netns add` makes it (its name checked free)
    and with its inode after."""
    if os.path.lexists(NETNS_DIR / ns):
        raise Fail(f"network namespace {ns} exists already and is not this bed's")
    recorded = bed.recorded_netns()
    recorded[ns] = None
    bed.note("netns", recorded)
    run(["ip", "netns", "add", ns])
    recorded[ns] = os.stat(NETNS_DIR / ns).st_ino
    bed.note("netns", recorded)


def _head(bed):
    """The head: a network namespace with the bridge the servers listen on."""
    _add_netns(bed, bed.head)
    ipn = ["ip", "-n", bed.head]
    run(ipn + ["link", "set", "lo", "up"])
    run(ipn + ["link", "add", "br0", "type", "bridge"])
    run(ipn + ["addr", "add", f"{SERVER_IP}/{SUBNET.prefixlen}", "dev", "br0"])
    run(ipn + ["link", "set", "br0", "up"])


def _servers_namespace(bed):
    """The servers' mount namespace: bricks and glusterd's fixed paths, private to it."""
    (bed.ns / "server.mnt").touch()
    binds = " && ".join(
        f"mount --bind {shlex.quote(str(bed.srv / src))} {dst}" for src, dst in SERVER_BINDS.items()
    )
    run(
        [
            "nsenter",
            f"--net=/run/netns/{bed.head}",
            "unshare",
            f"--mount={bed.ns / 'server.mnt'}",
            "--propagation",
            "private",
            "/bin/sh",
            "-c",
            binds,
        ],
        what="the servers' mount namespace",
    )


def _bricks(bed, bricks, brick_size):
    """Bricks: a sparse file, a loop device, ext4, mounted for the servers only."""
    bed.state["bricks"] = []
    for i in range(1, bricks + 1):
        img = bed.root / "bricks" / f"b{i}.img"
        mnt = bed.root / "bricks" / f"b{i}"
        mnt.mkdir()
        with open(img, "wb") as f:
            f.truncate(brick_size)
        dev = run(["losetup", "--find", "--show", img], what=f"losetup {img}").stdout.strip()
        bed.state["bricks"].append({"image": str(img), "dev": dev, "path": f"{mnt}/brick"})
        bed.save()
        run(["mkfs.ext4", "-q", "-F", "-E", "nodiscard", dev], what=f"mkfs.ext4 {dev}")
        run(bed.server_cmd(["mount", "-o", "noatime", dev, mnt]), what=f"mount {dev}")
        run(bed.server_cmd(["mkdir", f"{mnt}/brick"]))


def _glusterd(bed):
    """glusterd in the foreground (-N): the pid started is glusterd's own; waits (30 s at most)
    until it answers."""
    log = open(bed.root / "log" / "glusterd.out", "ab")
    gd = subprocess.Popen(
        bed.server_cmd(
            [
                "glusterd",
                "-N",
                "--log-level=WARNING",
                f"--log-file={bed.root / 'log' / 'glusterd.log'}",
                f"--xlator-option=management.working-directory={bed.srv / 'glusterd'}",
                f"--xlator-option=management.run-directory={bed.srv / 'run'}",
                f"--xlator-option=management.glusterd-sockfile={bed.sock}",
                f"--xlator-option=management.transport.socket.bind-address={SERVER_IP}",
            ]
        ),
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=log,
        start_new_session=True,
        cwd="/",
    )
    log.close()
    bed.note("glusterd_pid", gd.pid)
    end = time.monotonic() + 30
    while True:
        if gd.poll() is not None:
            raise Fail(f"glusterd exited with {gd.returncode}: see {bed.root}/log")
        if bed.sock.exists() and bed.gluster("volume", "list", check=False).returncode == 0:
            return
        if time.monotonic() > end:
            raise Fail("glusterd did not answer within 30 s")
        time.sleep(0.1)


def _volume(bed, bricks, options):
    """The volume over the bricks, its options set, started; waits (30 s at most) until every
    brick daemon is alive."""
    brick_args = [f"{SERVER_IP}:{b['path']}" for b in bed.state["bricks"]]
    bed.note("volume_created", True)
    bed.gluster("volume", "create", bed.name, *brick_args)
    bed.note("options", [f"{k}={v}" for k, v in options])
    for k, v in options:
        bed.gluster("volume", "set", bed.name, k, v)
    bed.note("volume_started", True)
    bed.gluster("volume", "start", bed.name)
    end = time.monotonic() + 30
    while len(bed.brick_pids()) < bricks or not all(map(alive, bed.brick_pids().values())):
        if time.monotonic() > end:
            raise Fail(f"{bricks} brick daemons did not start within 30 s")
        time.sleep(0.1)


def _node(bed, i):
    """Node i: its network, mount and UTS namespaces, its eth0 on the bridge, and the volume's
    own client mounting it there."""
    node = f"node{i}"
    bed.state["nodes"][node] = {"ip": bed.node_ip(i), "veth": f"v{i}"}
    bed.save()
    ipn = ["ip", "-n", bed.head]
    _add_netns(bed, bed.netns(node))
    run(ipn + ["link", "add", f"v{i}", "type", "veth", "peer", "name", "eth0", "netns",
               bed.netns(node)])  # fmt: skip
    run(ipn + ["link", "set", f"v{i}", "master", "br0", "up"])
    ipc = ["ip", "-n", bed.netns(node)]
    run(ipc + ["addr", "add", f"{bed.node_ip(i)}/{SUBNET.prefixlen}", "dev", "eth0"])
    run(ipc + ["link", "set", "eth0", "up"])
    run(ipc + ["link", "set", "lo", "up"])
    for kind in ("mnt", "uts"):
        (bed.ns / f"{node}.{kind}").touch()
    _client(bed, node)


def _client(bed, node):
    """The volume's client (a glusterfs process) in node's namespaces, mounting it at the bed's
    mount point; Fail unless it did."""
    pidfile = bed.root / "clients" / f"{node}.pid"
    client = [
        "glusterfs",
        "--process-name",
        "fuse",
        f"--volfile-server={SERVER_IP}",
        f"--volfile-id={bed.name}",
        f"--log-file={bed.root / 'log' / ('client-' + node + '.log')}",
        "--log-level=WARNING",
        f"--pid-file={pidfile}",
        bed.mount,
    ]
    run(
        [
            "nsenter",
            f"--net=/run/netns/{bed.netns(node)}",
            "unshare",
            f"--mount={bed.ns / (node + '.mnt')}",
            f"--uts={bed.ns / (node + '.uts')}",
            "--propagation",
            "private",
            "/bin/sh",
            "-c",
            f"hostname {node} && exec {shlex.join(client)}",
        ],
        what=f"mounting the volume on {node}",
    )
    pid = read_pid(pidfile)
    if not pid or not any(m == bed.mount and t == "fuse.glusterfs" for m, t, _ in mountinfo(pid)):
        raise Fail(f"{node}: the client did not mount {bed.mount}")


def revive(bed, timeout=60.0):
    """Restarts brick daemons that are gone (a brick killed in a test) and waits until every
    node's client is connected to every brick again."""
    end = time.monotonic() + timeout
    while True:
        bricks = bed.info()["bricks"]
        if not all(b["online"] for b in bricks):
            # glusterd restarts only bricks it has seen go down: ask until it has.
            bed.gluster("volume", "start", bed.name, "force", check=False)
        elif all(n == len(bricks) for n in bed.clients_connected().values()):
            return
        if time.monotonic() > end:
            raise Fail(f"bricks or clients not back after {timeout:g} s: {bed.info()}")
        time.sleep(0.2)
