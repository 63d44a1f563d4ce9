"""Taking a GlusterFS bed (dfsbed.bed.Bed) down: everything dfsbed.up made, by pid and by path,
in reverse order, and only what it can show a bed made (dfsbed.bed says how): a folder without
the bed's mark, or namespaces named like the bed's that it did not record, are named and left
alone (NotOurs) before anything is touched. Each step skips what is already gone, so it works
after a partial up, on a bed that is gone already and twice in a row; failures are collected and
reported together.
"""
import errno
import json
import os
import shutil
import time
from pathlib import Path

from iosweep_tools.dfsbed.base import (
    MADE_MARK,
    SERVER_BINDS,
    Fail,
    NotOurs,
    alive,
    mountinfo,
    read_pid,
    run,
    stop_pid,
)


def down(bed):
    """Removes everything of `bed` that exists; each step skips what is already gone.
    Collects failures and reports them together after trying every step. Raises NotOurs, having
    touched nothing, when the bed's folder is not a bed's (bed.made) or namespaces named like the
    bed's are there that it did not record making."""
    made = bed.made()
    strays = bed.stray_netns()
    if strays:
        raise NotOurs(
            f"network namespace(s) {', '.join(strays)} are named like bed {bed.name}'s but it"
            " did not record making them: nothing touched (`ip netns delete NAME` removes one)"
        )
    if not made:
        return
    problems = []

    def step(what, fn, *a):
        try:
            fn(*a)
        except (Fail, OSError) as e:
            problems.append(f"{what}: {e}")

    _processes_down(bed, step)
    _mounts_down(bed, step)
    for ns in reversed(bed.our_netns()):
        step(f"delete netns {ns}", run, ["ip", "netns", "delete", ns])
    _folders_down(bed, step)
    left = bed.our_loops() or _mounts_under(bed.root) or bed.our_netns()
    if not problems and not left:
        step(f"remove {bed.root}", _remove_root, bed)
    if left and not problems:
        problems.append(f"still there: {left}")
    if problems:
        raise Fail("; ".join(problems))


def _mounts_under(root):
    """Mount points of this mount namespace at or under `root` (rmtree would go into them)."""
    prefix = str(root) + "/"
    return [m for m, _, _ in mountinfo() if m == str(root) or m.startswith(prefix)]


def _remove_root(bed):
    """The bed's folder and everything under it, its mark last (a removal that stops half way
    leaves a folder that is still the bed's)."""
    for entry in bed.root.iterdir():
        if entry == bed.mark:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()
    bed.mark.unlink()
    bed.root.rmdir()


def _processes_down(bed, step):
    """The nodes' clients, the volume, the brick daemons, glusterd, and any other process still
    in the bed's namespaces (a rank left on a node, say, would keep them alive)."""
    marker = str(bed.root) + "/"
    node_names = set(bed.nodes())
    node_names |= {p.stem for p in bed.ns.glob("node*.mnt")} if bed.ns.is_dir() else set()
    for node in sorted(node_names):
        step(f"{node}'s client", _down_client, bed, node, marker)
    gd = bed.state.get("glusterd_pid")
    if gd and alive(gd) and bed.state.get("volume_created"):
        # Stopping the volume ends the brick daemons; deleting it leaves glusterd clean.
        bed.gluster("volume", "stop", bed.name, "force", check=False, timeout=60)
        bed.gluster("volume", "delete", bed.name, check=False, timeout=60)
    for pid in bed.brick_pids().values():
        step(f"brick daemon {pid}", stop_pid, pid, marker)
    if gd:
        step(f"glusterd {gd}", stop_pid, gd, marker)
    for pid in _pids_in_namespaces(bed):  # found by namespace, ended by pid
        step(f"process {pid} in the bed's namespaces", stop_pid, pid, None)


def _mounts_down(bed, step):
    """The bricks' mounts in the servers' namespace, the loop devices, the namespace files and
    the private mount they sit on."""
    server = bed.ns / "server.mnt"
    if str(server) in bed.ns_mounts():
        for m, t, _ in reversed(_server_mounts(bed)):
            step(f"unmount {m}", run, bed.server_cmd(["umount", m]))
    for dev, _ in bed.our_loops():
        step(f"detach {dev}", run, ["losetup", "-d", dev])
    for m in reversed(bed.ns_mounts()):
        step(f"unmount {m}", run, ["umount", m])
    if bed.ns.is_dir() and any(m == str(bed.ns) for m, _, _ in mountinfo()):
        step(f"unmount {bed.ns}", run, ["umount", bed.ns])


def _folders_down(bed, step):
    """The folders up made for the mount point (each while empty and still the one it made: same
    device and inode), and the bind targets of glusterd's fixed paths a bed made when no other
    bed is up."""
    for path, dev, ino in reversed(bed.state.get("made_dirs") or []):
        step(f"remove {path}", _rmdir_made, path, dev, ino)
    if not other_beds(bed.name):
        for d in SERVER_BINDS.values():
            if (Path(d) / MADE_MARK).exists():
                step(f"remove {d}", _remove_made_dir, d)


def _down_client(bed, node, marker):
    mnt_ns = bed.ns / f"{node}.mnt"
    pid = read_pid(bed.root / "clients" / f"{node}.pid")
    if str(mnt_ns) in bed.ns_mounts():
        inside = ["nsenter", f"--mount={mnt_ns}", "--"]
        mounted = run(inside + ["findmnt", "-n", bed.mount], check=False).returncode == 0
        if mounted and run(inside + ["umount", bed.mount], check=False).returncode != 0:
            # Busy (a process of a node still has a file open): detach it; the client ends
            # below.
            run(inside + ["umount", "-l", bed.mount], what=f"umount -l on {node}")
    if pid:
        end = time.monotonic() + 10  # the client exits by itself once unmounted
        while alive(pid) and time.monotonic() < end:
            time.sleep(0.05)
        stop_pid(pid, marker)


def _server_mounts(bed):
    pid = None
    for p in bed.brick_pids().values():
        if alive(p):
            pid = p
    if pid is None:
        # No process in the servers' namespace: look at it through a short-lived one.
        lines = run(
            ["nsenter", f"--mount={bed.ns / 'server.mnt'}", "cat", "/proc/self/mountinfo"]
        ).stdout.splitlines()
    else:
        lines = Path(f"/proc/{pid}/mountinfo").read_text().splitlines()
    out = []
    prefix = str(bed.root) + "/bricks/"
    for ln in lines:
        f = ln.split(" - ")[0].split()
        if len(f) >= 5 and f[4].startswith(prefix):
            out.append((f[4], "", ""))
    return out


def _namespace_names(bed):
    """The bed's namespaces as readlink of /proc/PID/ns/* shows them ("net:[4026532411]")."""
    names = set()
    for ns in bed.our_netns():
        try:
            names.add(f"net:[{os.stat(f'/run/netns/{ns}').st_ino}]")
        except OSError:
            pass
    for m in bed.ns_mounts():
        try:
            names.add(f"{'mnt' if m.endswith('.mnt') else 'uts'}:[{os.stat(m).st_ino}]")
        except OSError:
            pass
    return names


def _in_namespaces(proc, names):
    for kind in ("net", "mnt", "uts"):
        try:
            if os.readlink(proc / "ns" / kind) in names:
                return True
        except OSError:
            return False
    return False


def _pids_in_namespaces(bed):
    """Pids of processes in any of the bed's namespaces, compared as readlink shows them: a stat
    of /proc/PID/ns/net of some busy processes took seconds."""
    names = _namespace_names(bed)
    me = os.getpid()
    pids = [
        int(d.name)
        for d in Path("/proc").iterdir()
        if d.name.isdigit() and int(d.name) != me and _in_namespaces(d, names)
    ]
    return [p for p in pids if alive(p)]


def _remove_made_dir(path):
    """A bind target a bed made, when it holds the mark alone (anything else in it is not a
    bed's: then the folder and its mark stay)."""
    if os.listdir(path) == [MADE_MARK]:
        os.unlink(Path(path) / MADE_MARK)
        _rmdir_if_empty(path)


def _rmdir_made(path, dev, ino):
    """Folder `path` when it is still the one up made (device and inode) and empty."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if (st.st_dev, st.st_ino) == (dev, ino):
        _rmdir_if_empty(path)


def _rmdir_if_empty(path):
    try:
        os.rmdir(path)
    except FileNotFoundError:
        pass
    except OSError as e:
        if e.errno not in (errno.ENOTEMPTY, errno.EEXIST):  # something of someone else's is in it
            raise


def other_beds(name):
    """Names of other beds on this machine (their marked folders in /run with a state file)."""
    out = []
    for st in Path("/run").glob("*/state.json"):
        if st.parent.name != name and (st.parent / MADE_MARK).is_file():
            try:
                if json.loads(st.read_text()).get("name") == st.parent.name:
                    out.append(st.parent.name)
            except (OSError, ValueError):
                continue
    return out
