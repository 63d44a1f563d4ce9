"""One GlusterFS bed of scripts/dfs-bed (dfsbed.cli's docstring describes what it is made of): its
paths and names, its state file (what up made, step by step), the commands that run inside its
namespaces, and what of it is there (info, which status prints). Bringing it up is dfsbed.up's,
taking it down dfsbed.down's.

What a bed may remove is what it can show it made: its folder /run/NAME holds the mark up wrote
there first (MADE_MARK, naming the bed), and everything under a marked folder is the bed's; the
network namespaces it made and the folders it made for its mount point are recorded in its state
with their inodes; a process is ended when its command line names the bed's folder or when it
runs inside one of those namespaces.
"""
import json
import os
import re
from pathlib import Path

from iosweep_tools.core import launch
from iosweep_tools.dfsbed.base import (
    AGENT,
    MADE_MARK,
    SERVER_IP,
    SUBNET,
    Fail,
    NotOurs,
    alive,
    mountinfo,
    read_pid,
    run,
)

NETNS_DIR = Path("/run/netns")  # where `ip netns add` binds a namespace it makes
RUN_DIR = Path("/run")  # where each bed's folder is, /run/NAME


class Bed:
    """Paths and names of one bed; `state` (state.json) records what up made, step by step."""

    def __init__(self, name="iosweep-dfs", mount=None):
        self.name = name
        self.root = RUN_DIR / name
        self.mark = self.root / MADE_MARK
        self.state_file = self.root / "state.json"
        self.state = self.load() or {}
        self.mount = self.state.get("mount") or mount or f"/mnt/{name}"
        self.ns = self.root / "ns"
        self.srv = self.root / "srv"
        self.head = f"{name}-head"
        self.sock = self.root / "glusterd.socket"
        self.hostfile = self.root / "hostfile"

    # what is the bed's -----------------------------------------------------------------

    def mark_text(self):
        """What up writes into the bed's mark."""
        return f"made by scripts/dfs-bed for bed {self.name}\n"

    def made(self):
        """False when the bed's folder does not exist, True when it is a folder (not a link)
        holding the bed's mark; raises NotOurs when something else is there."""
        if not os.path.lexists(self.root):
            return False
        why = None
        if self.root.is_symlink() or not self.root.is_dir():
            why = "is not a folder"
        elif self.mark.is_symlink() or not self.mark.is_file():
            why = f"holds no {MADE_MARK}, the mark dfs-bed writes into a bed's folder"
        else:
            try:
                if self.mark.read_text(errors="replace") != self.mark_text():
                    why = f"holds a {MADE_MARK} of another bed"
            except OSError as e:
                why = f"has a {MADE_MARK} that cannot be read ({e.strerror})"
        if why:
            raise NotOurs(f"{self.root} {why}: it is not bed {self.name}'s; nothing touched")
        return True

    def recorded_netns(self):
        """{name: inode or None} of the network namespaces up made (None: recorded just before
        `ip netns add` made it, the name checked free, its inode not yet known)."""
        ns = self.state.get("netns") or {}
        return dict.fromkeys(ns) if isinstance(ns, list) else dict(ns)

    # state ----------------------------------------------------------------------------

    def load(self):
        try:
            return json.loads(self.state_file.read_text())
        except (OSError, ValueError):
            return None

    def save(self):
        tmp = self.state_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.state, indent=1, sort_keys=True) + "\n")
        os.replace(tmp, self.state_file)

    def note(self, key, value):
        self.state[key] = value
        self.save()

    # names ----------------------------------------------------------------------------

    def netns(self, node):
        return f"{self.name}-{node}"

    def node_ip(self, i):
        return str(SUBNET.network_address + 10 + i)

    def nodes(self):
        return list(self.state.get("nodes", {}))

    def node_cmd(self, node, argv):
        """argv run inside node `node`'s network, mount and UTS namespaces."""
        return [
            "nsenter",
            f"--net=/run/netns/{self.netns(node)}",
            f"--mount={self.ns / (node + '.mnt')}",
            f"--uts={self.ns / (node + '.uts')}",
            "--",
        ] + [str(a) for a in argv]

    def server_cmd(self, argv):
        return [
            "nsenter",
            f"--net=/run/netns/{self.head}",
            f"--mount={self.ns / 'server.mnt'}",
            "--",
        ] + [str(a) for a in argv]

    def gluster(self, *args, timeout=60, check=True):
        # In the servers' mount namespace: the CLI too writes under /var/lib/glusterd.
        return run(
            self.server_cmd(
                [
                    "gluster",
                    f"--glusterd-sock={self.sock}",
                    f"--log-file={self.root / 'log' / 'cli.log'}",
                    "--mode=script",
                    *args,
                ]
            ),
            timeout=timeout,
            check=check,
            what=f"gluster {' '.join(args[:2])}",
        )

    def mpi_env(self, base=None):
        """The launch environment (scripts/iosweep-env.sh) with what runs each node's orted in
        its namespaces and keeps Open MPI's TCP on the bed's subnet. Tree spawn stays off: an
        orted inside one node cannot enter another node's mount namespace (nsfs files of mount
        namespaces are not copied into new mount namespaces)."""
        env = launch.launch_env(base)
        env.update(
            {
                "OMPI_MCA_plm_rsh_agent": str(AGENT),
                "OMPI_MCA_plm_rsh_no_tree_spawn": "1",
                "OMPI_MCA_oob_tcp_if_include": str(SUBNET),
                "OMPI_MCA_btl_tcp_if_include": str(SUBNET),
                "IOSWEEP_DFS_ROOT": str(self.root),
                "IOSWEEP_DFS_NAME": self.name,
                "IOSWEEP_DFS_MOUNT": self.mount,
                "IOSWEEP_DFS_HOSTFILE": str(self.hostfile),
            }
        )
        return env

    def head_cmd(self, argv):
        """argv run in the head's network namespace with the host's file systems (nsenter, not
        `ip netns exec`, whose new mount namespace would hide the nodes' namespace files)."""
        return ["nsenter", f"--net=/run/netns/{self.head}", "--"] + [str(a) for a in argv]

    # what is there --------------------------------------------------------------------

    def brick_pids(self):
        d = self.srv / "run" / "vols" / self.name
        pids = {}
        for pf in sorted(d.glob("*.pid")) if d.is_dir() else []:
            pid = read_pid(pf)
            if pid:
                pids[pf.name] = pid
        return pids

    def our_netns(self):
        """The network namespaces of this bed that exist: those up recorded, with the inode it
        recorded (a name recorded just before `ip netns add`, whose inode it did not get to
        record, counts: the name was free and carries the bed's)."""
        out = []
        for name, ino in self.recorded_netns().items():
            if not self.netns_pattern().fullmatch(name):
                continue  # not a name this bed gives
            try:
                now = os.stat(NETNS_DIR / name).st_ino
            except OSError:
                continue
            if ino is None or ino == now:
                out.append(name)
        return out

    def stray_netns(self):
        """Network namespaces named as this bed names its own (NAME-head, NAME-nodeI) that it
        did not record: never removed, only named."""
        try:
            names = [ln.split()[0] for ln in run(["ip", "netns", "list"]).stdout.splitlines()]
        except Fail:
            return []
        ours = set(self.our_netns())
        return [n for n in names if self.netns_pattern().fullmatch(n) and n not in ours]

    def netns_pattern(self):
        return re.compile(re.escape(self.name) + r"-(head|node\d+)")

    def our_loops(self):
        """[(loop device, backing file)] of the loop devices backed by this bed's brick files."""
        out = []
        bricks = str(self.root / "bricks") + "/"
        for bf in sorted(Path("/sys/block").glob("loop*/loop/backing_file")):
            try:
                backing = bf.read_text().strip()
            except OSError:
                continue
            if backing.startswith(bricks):
                out.append(("/dev/" + bf.parent.parent.name, backing))
        return out

    def ns_mounts(self):
        """Namespace files of this bed that are bound (nsfs mounts under /run/NAME/ns)."""
        prefix = str(self.ns) + "/"
        return [m for m, fstype, _ in mountinfo() if fstype == "nsfs" and m.startswith(prefix)]

    def info(self):
        """What a caller needs about the bed (status --json)."""
        s = self.state
        nodes = {}
        for n, v in s.get("nodes", {}).items():
            pid = read_pid(self.root / "clients" / f"{n}.pid")
            mounted = (
                bool(pid)
                and alive(pid)
                and any(m == self.mount and t == "fuse.glusterfs" for m, t, _ in mountinfo(pid))
            )
            nodes[n] = dict(v, client_pid=pid, mounted=mounted, netns=self.netns(n))
        bricks = []
        pids = self.brick_pids()
        for b in s.get("bricks", []):
            pidfile = f"{SERVER_IP}-{b['path'].strip('/').replace('/', '-')}.pid"
            dev = b.get("dev")
            bricks.append(
                dict(
                    b,
                    pid=pids.get(pidfile),
                    online=bool(pids.get(pidfile)) and alive(pids[pidfile]),
                    stat=f"/sys/block/{os.path.basename(dev)}/stat" if dev else None,
                )
            )
        gd = s.get("glusterd_pid")
        return {
            "name": self.name,
            "root": str(self.root),
            "volume": self.name,
            "mount": self.mount,
            "server_ip": SERVER_IP,
            "subnet": str(SUBNET),
            "head_netns": self.head,
            "hostfile": str(self.hostfile),
            "agent": str(AGENT),
            "phase": s.get("phase", "down"),
            "glusterd_pid": gd,
            "glusterd_alive": bool(gd) and alive(gd),
            "options": s.get("options", []),
            "bricks": bricks,
            "nodes": nodes,
        }

    def clients_connected(self):
        """{node: number of bricks its client is connected to}, from the client's own view
        (.meta/graphs/active/VOLUME-client-K/private of its mount, through /proc/PID/root)."""
        out = {}
        for node in self.nodes():
            pid = read_pid(self.root / "clients" / f"{node}.pid")
            active = f"/proc/{pid}/root{self.mount}/.meta/graphs/active"
            n = 0
            for k in range(len(self.state.get("bricks", []))):
                try:
                    text = Path(f"{active}/{self.name}-client-{k}/private").read_text()
                except OSError:
                    continue
                n += "connected = 1" in text
            out[node] = n
        return out
