"""iosweep on a real distributed file system: a GlusterFS volume (scripts/dfs-bed) mounted by two
emulated nodes, each with its own network, mount and UTS namespaces, its own FUSE client and page
cache, and its own eth0, whose counters see exactly the node's storage traffic. mpirun runs in
the bed's head namespace and starts one orted per node inside it (scripts/dfs/emu-rsh).

One bed for the whole file (session fixture), brought up and always taken down through the
project script; what it leaves behind is checked at the end. Results are read with h5py from
the real results file; the wire is read from /proc/PID/net/dev of each node's client.
"""
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import h5py
import pytest

from iosweep_tools.dfsbed import base as dfs_bed
from iosweep_tools.dfsbed.bed import Bed
from iosweep_tools.results import hdf5
from iosweep_tools.results import names
from conftest import BIN, SOURCE_DIR, latest_run, mpi_env, run_ids

DFS_BED = str(SOURCE_DIR / "scripts" / "dfs-bed")
NAME = f"dfs-t{os.getpid()}"
MiB = 1 << 20
PY = "/usr/bin/python3"


def bed_cli(*args, name=NAME, timeout=180, env=None):
    return subprocess.run(
        [DFS_BED, "--name", name, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def leftovers(name):
    """What of bed `name` exists on this machine (empty when nothing): its namespaces, mounts,
    loop devices, folder and processes."""
    root = f"/run/{name}"
    left = []
    netns = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    left += [ln.split()[0] for ln in netns.splitlines() if ln.startswith(name + "-")]
    left += [ln for ln in Path("/proc/self/mountinfo").read_text().splitlines() if root in ln]
    for bf in Path("/sys/block").glob("loop*/loop/backing_file"):
        if bf.read_text().startswith(root + "/"):
            left.append(f"loop device {bf.parent.parent.name}")
    for d in Path("/proc").iterdir():
        if d.name.isdigit() and int(d.name) != os.getpid():
            args = dfs_bed.cmdline(int(d.name))
            if any(root.encode() in a for a in args) and dfs_bed.alive(int(d.name)):
                left.append(f"process {d.name}: {b' '.join(args)[:100]}")
    for p in (root, f"/mnt/{name}"):
        if os.path.exists(p):
            left.append(p)
    return left


class BedView:
    """The bed as the tests use it: its status, commands inside a node, wire counters."""

    def __init__(self, info):
        self.info = info
        self.mount = info["mount"]
        self.nodes = sorted(info["nodes"])
        self.hostfile = info["hostfile"]
        self.bed = Bed(info["name"])

    def node(self, node, *argv, check=True, timeout=120):
        p = bed_cli("node", node, "--", *argv, timeout=timeout)
        if check and p.returncode != 0:
            raise AssertionError(f"on {node}: {' '.join(map(str, argv))}: {p.stderr}")
        return p

    def py(self, node, code, *args):
        """Runs Python code inside a node; returns its stdout."""
        return self.node(node, PY, "-c", code, *args).stdout

    def wire(self, node):
        """(rx, tx) bytes of the node's eth0, read through its client's /proc/PID/net/dev."""
        return dfs_bed.netdev(self.info["nodes"][node]["client_pid"])

    def wire_all(self):
        return {n: self.wire(n) for n in self.nodes}

    def resident(self, node, path):
        out = self.node(node, "fincore", "--bytes", "--noheadings", "--output", "RES", path)
        return int(out.stdout.split()[0])

    def mpirun(self, n, args, timeout=240, popen=False, stderr=None, env=None):
        """Runs mpirun on the bed; popen=True returns the Popen (stderr to the open file
        `stderr` when given, for a test that reads it while the run goes on); `env` adds to the
        test launch environment."""
        cmd = [DFS_BED, "--name", self.info["name"], "exec", "--", "mpirun", "-np", str(n)]
        cmd += ["--hostfile", self.hostfile, "--map-by", "node", BIN] + [str(a) for a in args]
        if popen:
            return subprocess.Popen(
                cmd,
                stdout=subprocess.PIPE,
                stderr=stderr or subprocess.PIPE,
                text=True,
                env=mpi_env(env),
                start_new_session=True,
            )
        return subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, env=mpi_env(env)
        )


@pytest.fixture(scope="session")
def bed():
    why = dfs_bed.can_run()
    if why:
        pytest.skip(f"no GlusterFS bed here: {why}")
    t0 = time.monotonic()
    up = bed_cli("up", "--nodes", 2, "--bricks", 2, "--brick-size", "1g")
    try:
        assert up.returncode == 0, up.stdout + up.stderr
        st = bed_cli("status", "--json")
        assert st.returncode == 0, st.stdout + st.stderr
        info = json.loads(st.stdout)
        print(f"bed {NAME} up in {time.monotonic() - t0:.1f} s", file=sys.stderr)
        yield BedView(info)
    finally:
        t1 = time.monotonic()
        down = bed_cli("down")
        print(f"bed {NAME} down in {time.monotonic() - t1:.1f} s", file=sys.stderr)
        assert down.returncode == 0, down.stderr
        assert leftovers(NAME) == []


@pytest.fixture
def voldir(bed, request):
    """A folder of the volume for one test (made through node1, seen by every node)."""
    d = f"{bed.mount}/{re.sub(r'[^A-Za-z0-9_-]', '_', request.node.name)}"
    bed.py("node1", "import os, sys; os.makedirs(sys.argv[1])", d)
    return d


def summary(out):
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        return (
            dict(g.attrs),
            g["summary"][()],
            g["ranks"][()],
            g["rank_map"][()],
            list(g["hosts"].asstr()[()]),
            names.status_of(g),
            names.phases(g),
        )


def rows_of(s, phases, name):
    return s[s["phase"] == phases[name]]


def wire_delta(before, after):
    rx = sum(after[n][0] - before[n][0] for n in before)
    tx = sum(after[n][1] - before[n][1] for n in before)
    return rx, tx


# --------------------------------------------------------------------- the bed itself

WRITE = """
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_EXCL)
block = os.urandom(1 << 20)
for _ in range(int(sys.argv[2])):
    os.write(fd, block)
os.fsync(fd)
os.close(fd)
"""

READ = """
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
if sys.argv[2] == "drop":  # what iosweep's --cache drop does before a reading phase
    os.fsync(fd)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
while os.read(fd, 1 << 20):
    pass
os.close(fd)
"""


def test_every_node_is_a_client_of_its_own(bed, voldir):
    """Host name, address, interface and mount are the node's own; what one node wrote is not
    in another node's page cache, and reading it there crosses that node's wire."""
    for i, node in enumerate(bed.nodes, 1):
        assert bed.node(node, "hostname").stdout.strip() == node
        addr = bed.node(node, "ip", "-4", "-o", "addr", "show", "eth0").stdout
        assert f"inet 198.18.0.{10 + i}/24" in addr
        fstype = bed.node(node, "findmnt", "-n", "-o", "FSTYPE", bed.mount).stdout.strip()
        assert fstype == "fuse.glusterfs"
    path = f"{voldir}/f"
    w0 = bed.wire_all()
    bed.py("node1", WRITE, path, 32)
    w1 = bed.wire_all()
    assert w1["node1"][1] - w0["node1"][1] >= 32 * MiB  # the writer's tx
    assert w1["node2"][0] - w0["node2"][0] < MiB  # nothing for the other node
    # The writer's own pages stay in its cache; a few may be reclaimed or invalidated by the
    # client in the meantime (5 of 8192 pages were once), so "nearly all" is the claim.
    assert bed.resident("node1", path) >= 0.9 * 32 * MiB
    assert bed.resident("node2", path) == 0  # another client, another page cache
    bed.py("node2", READ, path, "keep")
    w2 = bed.wire_all()
    assert w2["node2"][0] - w1["node2"][0] >= 32 * MiB
    assert w2["node1"][0] - w1["node1"][0] < MiB
    assert bed.resident("node2", path) >= 0.9 * 32 * MiB


def test_fadvise_dontneed_drops_the_fuse_clients_page_cache(bed, voldir):
    """iosweep's --cache drop (fsync + posix_fadvise(DONTNEED)) works on this client: the pages
    go, and the next read crosses the wire again. Without it a re-read stays on the node."""
    path = f"{voldir}/f"
    bed.py("node1", WRITE, path, 32)
    bed.py("node2", READ, path, "keep")
    a = bed.wire("node2")
    bed.py("node2", READ, path, "keep")
    b = bed.wire("node2")
    assert b[0] - a[0] < MiB, "a re-read without drop is served by node2's page cache"
    bed.py(
        "node2",
        "import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); "
        "os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)",
        path,
    )
    assert bed.resident("node2", path) == 0
    c = bed.wire("node2")
    bed.py("node2", READ, path, "drop")
    d = bed.wire("node2")
    assert d[0] - c[0] >= 32 * MiB, f"after the drop the read crossed only {d[0] - c[0]} bytes"


def graph_has(bed, node, xlator):
    active = f"{bed.mount}/.meta/graphs/active"
    names = bed.py(node, "import os, sys; print(' '.join(os.listdir(sys.argv[1])))", active)
    return f"{bed.info['volume']}-{xlator}" in names.split()


def wait_for(condition, timeout=60.0, what="condition"):
    """Polls a condition the test observes, never a fixed sleep."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = condition()
        if v:
            return v
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_io_cache_would_serve_rereads_from_the_client_process(bed, voldir):
    """Why the bed turns performance.io-cache off: with it on, the client process itself keeps
    the data, so after the drop the page cache shows 0% resident, yet a re-read moves almost
    nothing over the wire. Turned on for this test only, and off again."""
    path = f"{voldir}/f"
    bed.py("node1", WRITE, path, 8)  # within io-cache's default 32 MB
    vol = bed.info["volume"]
    bed.bed.gluster("volume", "set", vol, "performance.io-cache", "on")
    try:
        wait_for(lambda: graph_has(bed, "node2", "io-cache"), what="node2's client with io-cache")
        bed.py("node2", READ, path, "drop")  # fills io-cache in node2's client process
        a = bed.wire("node2")
        bed.py("node2", READ, path, "drop")
        b = bed.wire("node2")
        # The read refilled the page cache (nearly all of it: the FUSE client may drop a few
        # pages again when it revalidates the file, 20 KiB of 8 MiB once under load) ...
        assert bed.resident("node2", path) >= 0.9 * 8 * MiB
        assert b[0] - a[0] < MiB, f"{b[0] - a[0]} bytes crossed"  # ... from the process
    finally:
        bed.bed.gluster("volume", "set", vol, "performance.io-cache", "off")
        wait_for(lambda: not graph_has(bed, "node2", "io-cache"), what="io-cache off again")


# ------------------------------------------------------------------------- iosweep on it


@pytest.mark.parametrize("n", [2, 4])
def test_the_sweep_over_all_phases(bed, voldir, tmp_path, n):
    out = tmp_path / "r.h5"
    size = 8 * MiB
    p = bed.mpirun(
        n,
        ["run", "--dir", voldir, "--file-size", size, "--seq-record", "1MiB", "--sweep", f"1:{n}"]
        + ["--verify", "--output", out, "--quiet"],
    )
    assert p.returncode == 0, p.stdout + p.stderr
    attrs, s, r, rm, hosts, status, phases = summary(out)
    assert status == "complete"
    assert sorted(hosts) == ["node1", "node2"]
    # The file system named for what it is, not FUSE's statfs magic, on every node.
    assert hdf5.text(attrs["fs_type"]) == "fuse.glusterfs"
    assert "0x65735546" not in p.stdout
    assert "file system: fuse.glusterfs 198.18.0.1:" in p.stdout, p.stdout
    with h5py.File(out, "r") as f:
        mounts = latest_run(f)["mounts"][()]
    assert sorted(int(m["node"]) for m in mounts) == [0, 1]
    for m in mounts:
        assert m["fs_type"] == b"fuse.glusterfs" and m["source"].startswith(b"198.18.0.1:")
        assert m["mount_point"] == bed.mount.encode() and m["wire"] == b"eth0"
    # Every row's bytes were checked by the wire: none is unverified.
    assert "unverified" not in p.stdout
    assert all(s["wire_fraction"] >= 0.9), s["wire_fraction"]
    points = [1, 2] if n == 2 else [1, 2, 4]
    ran = {name for name, v in phases.items() if len(s[s["phase"] == v])}
    # Every default phase, scan-only included; the metadata phases (IO500's timestamp and find
    # among them) run only when asked.
    assert ran == {p for p in phases if not p.startswith("md_")} - {
        "ship_count",
        "timestamp",
        "find",
    }
    for name in ran:
        rows = rows_of(s, phases, name)
        assert list(rows["ranks"]) == points, name
        assert list(rows["nodes"]) == [min(k, 2) for k in points], name
        assert list(rows["bytes"]) == [k * size for k in points], name
        assert all(rows["bad_blocks"] == 0), name
        if names.is_random(name, attrs):
            assert list(rows["ops"]) == [k * size // 4096 for k in points], name
    fc = rows_of(s, phases, "filter_count")
    assert all(fc["matches"] == fc["expected_matches"]) and all(fc["matches"] > 0)
    # rank r on node (r mod 2) + 1 (--map-by node)
    assert all(hosts[row["node"]] == f"node{row['rank'] % 2 + 1}" for row in rm)
    assert bed.py("node2", "import os, sys; print(os.listdir(sys.argv[1]))", voldir) == "[]\n"


@pytest.mark.parametrize("pattern", ["segmented", "strided"])
def test_one_shared_file_from_ranks_on_both_nodes(bed, voldir, tmp_path, pattern):
    out = tmp_path / "r.h5"
    p = bed.mpirun(
        4,
        ["run", "--dir", voldir, "--file-size", "4MiB", "--seq-record", "1MiB"]
        + ["--rand-record", "64KiB", "--file-layout", "shared", "--shared-pattern", pattern]
        + ["--ranks", "4", "--read-shift", "1", "--verify", "--output", out, "--quiet"],
    )
    assert p.returncode == 0, p.stdout + p.stderr
    attrs, s, r, rm, hosts, status, phases = summary(out)
    assert status == "complete"
    assert hdf5.text(attrs["file_layout"]) == "shared"
    assert hdf5.text(attrs["shared_pattern"]) == pattern
    assert all(s["nodes"] == 2) and all(s["bad_blocks"] == 0)
    assert all(s["bytes"] == 16 * MiB)
    fc = rows_of(s, phases, "filter_count")
    assert len(fc) == 1 and fc["matches"][0] == fc["expected_matches"][0] > 0


@pytest.mark.parametrize("collective", [False, True], ids=["independent", "collective"])
def test_mpiio(bed, voldir, tmp_path, collective):
    out = tmp_path / "r.h5"
    extra = ["--mpiio-collective", "--file-layout", "shared"] if collective else []
    p = bed.mpirun(
        4,
        ["run", "--dir", voldir, "--file-size", "4MiB", "--seq-record", "1MiB"]
        + ["--rand-record", "64KiB", "--engine", "mpiio", "--ranks", "4", "--verify"]
        + extra
        + ["--output", out, "--quiet"],
    )
    assert p.returncode == 0, p.stdout + p.stderr
    attrs, s, r, rm, hosts, status, phases = summary(out)
    assert status == "complete"
    assert bool(attrs["mpiio_collective"]) == collective
    engines = names.by_value(names.engines(out))
    assert {engines[e] for e in s["engine"]} == {"mpiio"}
    assert all(s["nodes"] == 2) and all(s["bad_blocks"] == 0) and all(s["bytes"] == 16 * MiB)
    fc = rows_of(s, phases, "filter_count")
    assert fc["matches"][0] == fc["expected_matches"][0] > 0


@pytest.mark.parametrize("cache", ["keep", "drop"])
def test_collective_mpiio_with_one_aggregator_says_the_truth(bed, voldir, tmp_path, cache):
    """Collective MPI-IO with one aggregator (cb_nodes=1, which OMPIO honours) on 3 ranks of 2
    nodes: the aggregator reads and writes for every rank and ships the bytes over MPI, on the
    same eth0 as the storage traffic. With --cache keep its node read the file it had written
    from its page cache (its eth0 received far less than the read's bytes): the row says cached,
    not the mean of the ranks' own nodes; with --cache drop its node brought every byte in. The
    wire cannot tell MPI's bytes from the storage's: the row says so, with no wire figure."""
    out = tmp_path / "r.h5"
    before = bed.wire_all()
    p = bed.mpirun(
        3,
        ["run", "--dir", voldir, "--file-size", "8MiB", "--seq-record", "1MiB", "--ranks", "3"]
        + ["--engine", "mpiio", "--file-layout", "shared", "--mpiio-collective"]
        + ["--mpiio-hint", "cb_nodes=1", "--cache", cache, "--phases", "seq-write,seq-read"]
        + ["--output", out],
    )
    after = bed.wire_all()
    assert p.returncode == 0, p.stdout + p.stderr
    assert "collective MPI-IO: every request is one collective call" in p.stdout
    attrs, s, r, rm, hosts, status, phases = summary(out)
    assert status == "complete"
    for name in ("seq_write", "seq_read"):
        built = hdf5.text(attrs[f"engine_detail.{name}"])
        assert "read_at_all/write_at_all" in built and "MPI_COMM_SELF" not in built, built
        assert "cb_nodes=1" in built
    read = rows_of(s, phases, "seq_read")[0]
    assert read["bytes"] == 24 * MiB and read["nodes"] == 2
    with h5py.File(out, "r") as f:
        nodes = latest_run(f)["nodes"][()]
    mine = nodes[nodes["point"] == read["point"]]
    held = [int(n["cached_before_bytes"]) for n in mine]
    brought = sum(int(n["cached_after_bytes"] - n["cached_before_bytes"]) for n in mine)
    notes = hdf5.text(read["notes"])
    assert "wire unverified: collective MPI-IO" in notes, notes
    assert read["wire_fraction"] != read["wire_fraction"]  # NaN: MPI shares the interface
    rx = {n: after[n][0] - before[n][0] for n in bed.nodes}
    if cache == "keep":
        # One node held the whole file it had written and read it from there: nothing crossed
        # for the read beyond the MPI traffic of the write (one region of 8 MiB came in).
        assert max(held) >= 0.9 * 24 * MiB and brought < MiB, (held, brought)
        assert read["cached_fraction_mean"] >= 0.95, notes
        assert re.search(r"seq-read .*cached 1\d\d%", p.stdout), p.stdout
        assert min(rx.values()) < 24 * MiB, rx  # the aggregator's node received no 24 MiB read
    else:
        assert max(held) < MiB and brought >= 0.9 * 24 * MiB, (held, brought)
        assert read["cached_fraction_mean"] <= 0.05, notes
        assert max(rx.values()) >= 24 * MiB, rx  # the aggregator's node read every byte


def bricks_written(bed):
    """Bytes the bricks' block devices have written since boot (/sys/block/loopN/stat)."""
    total = 0
    for b in bed.info["bricks"]:
        total += int(Path(b["stat"]).read_text().split()[6]) * 512
    return total


def test_direct_runs_and_every_byte_crosses_the_wire(bed, voldir, tmp_path):
    """O_DIRECT works through this FUSE client (direct-io-mode auto: an O_DIRECT open gets
    FUSE's direct I/O), so --direct runs; nothing is cached on the nodes, every byte read and
    written crosses their wires (strict-o-direct: write-behind does not hold them), and every
    byte written reaches the bricks' block devices."""
    out = tmp_path / "r.h5"
    before, dev0 = bed.wire_all(), bricks_written(bed)
    p = bed.mpirun(
        4,
        ["run", "--dir", voldir, "--file-size", "8MiB", "--seq-record", "1MiB", "--ranks", "4"]
        + ["--direct", "--verify", "--output", out, "--quiet"],
    )
    after, dev1 = bed.wire_all(), bricks_written(bed)
    assert p.returncode == 0, p.stdout + p.stderr
    attrs, s, r, rm, hosts, status, phases = summary(out)
    assert status == "complete" and bool(attrs["direct"])
    assert all(s["bad_blocks"] == 0)
    reads = [v for k, v in phases.items() if k in ("seq_read", "rand_read", "filter_count")]
    writes = [phases["seq_write"], phases["rand_write"]]
    read_bytes = int(s["bytes"][[ph in reads for ph in s["phase"]]].sum())
    write_bytes = int(s["bytes"][[ph in writes for ph in s["phase"]]].sum())
    rx, tx = wire_delta(before, after)
    assert rx >= read_bytes and tx >= write_bytes, (rx, read_bytes, tx, write_bytes)
    # ... and reached the servers' own block devices (the bricks' loop devices).
    assert dev1 - dev0 >= write_bytes, (dev1 - dev0, write_bytes)
    for name in ("seq_read", "rand_read", "filter_count"):
        assert rows_of(s, phases, name)["cached_fraction_max"][0] == 0.0, name


def test_read_shift_auto_reads_a_file_another_node_wrote(bed, voldir, tmp_path):
    out = tmp_path / "r.h5"
    p = bed.mpirun(
        4,
        ["run", "--dir", voldir, "--file-size", "8MiB", "--seq-record", "1MiB", "--ranks", "4"]
        + ["--read-shift", "auto", "--phases", "seq-write,seq-read", "--cache", "keep"]
        + ["--verify", "--output", out, "--quiet"],
    )
    assert p.returncode == 0, p.stdout + p.stderr
    attrs, s, r, rm, hosts, status, phases = summary(out)
    assert status == "complete"
    node_of = {int(row["position"]): int(row["node"]) for row in rm}
    point = rows_of(s, phases, "seq_read")["point"][0]
    reads = r[(r["point"] == point) & (r["bytes"] > 0)]
    assert len(reads) == 4
    for row in reads:  # every reader on another node than the file's writer
        assert node_of[int(row["file"])] != int(row["node"]), row
    read_rows = rows_of(s, phases, "seq_read")
    # Another node's file is in this node's page cache only if this node read it before, so
    # without any drop its bytes come over the wire.
    assert read_rows["cached_fraction_max"][0] < 0.05
    assert read_rows["wire_fraction"][0] >= 0.95, read_rows["wire_fraction"]
    assert all(read_rows["bad_blocks"] == 0)


@pytest.mark.parametrize("cache", ["drop", "keep"])
def test_cache_drop_and_keep(bed, voldir, tmp_path, cache):
    """--cache drop: reads start with nothing cached and their bytes cross the wire; --cache
    keep: a rank reading the file it wrote on its node reads its own client's page cache."""
    out = tmp_path / "r.h5"
    before = bed.wire_all()
    p = bed.mpirun(
        4,
        ["run", "--dir", voldir, "--file-size", "16MiB", "--ranks", "4", "--cache", cache]
        + ["--phases", "seq-write,seq-read", "--output", out, "--quiet"],
    )
    after = bed.wire_all()
    assert p.returncode == 0, p.stdout + p.stderr
    attrs, s, r, rm, hosts, status, phases = summary(out)
    assert status == "complete" and hdf5.text(attrs["cache"]) == cache
    read, write = rows_of(s, phases, "seq_read")[0], rows_of(s, phases, "seq_write")[0]
    rx, tx = wire_delta(before, after)
    assert tx >= 64 * MiB  # the writes went out either way
    # iosweep's own wire figures agree with the nodes' counters read around the whole job.
    assert write["wire_fraction"] >= 0.95 and write["wire_tx_bytes"] <= tx
    assert read["wire_rx_bytes"] <= rx
    if cache == "drop":
        assert read["cached_fraction_max"] == 0.0
        assert rx >= read["bytes"] == 64 * MiB
        assert read["wire_fraction"] >= 0.95
    else:
        assert read["cached_fraction_mean"] >= 0.95
        assert rx < read["bytes"] // 10, f"{rx} bytes received for a cached read"
        # A read served by the client's cache says so in the notes: its bytes did not cross.
        assert read["wire_fraction"] <= 0.05
        assert re.search(r"seq-read .*cached 100%; wire [0-5]%", p.stdout), p.stdout


# --------------------------------------------------------- the collectives after every phase


def test_many_metadata_points_on_two_nodes_never_hang_in_the_gather(bed, voldir, tmp_path):
    """After every phase the active ranks gather to rank 0 (gather.cpp: MPI_Reduce of the time
    series' histograms among it) and meet in the point's gate (mpi/waiting.cpp), where a node's
    ranks other than its leader sleep on a futex. Open MPI's TCP transport sends what a returned
    collective left in its queue only when the process next enters MPI: on the code before the
    fix, node1's ranks waited in MPI_Reduce inside gather_series while node2's waited in
    Gate::max for ever (issue 34) in 5 of 7 runs of this very command, and one opal_progress()
    called through gdb on node2's sleeping rank released a hung run. A sleeping rank now enters
    MPI at once and then at growing intervals. 24 points of the six metadata phases, 4 ranks
    over both nodes (about 45 s); a hang is the failure, bounded by the test's own timeout."""
    out = tmp_path / "r.h5"
    reps = 4
    args = ["run", "--dir", voldir, "--ranks", 4, "--repetitions", reps, "--quiet", "--output", out]
    args += ["--phases", "md-mkdir,md-create,md-stat,md-read,md-remove,md-rmdir"]
    args += ["--md-items", 256, "--md-depth", 2, "--md-branch", 4]
    p = bed.mpirun(4, args, popen=True)
    try:
        stdout, stderr = p.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        stdout, stderr = p.communicate()
        raise AssertionError(
            f"the run hung (killed after 300 s):\n{stdout[-3000:]}\n{stderr[-2000:]}"
        )
    assert p.returncode == 0, stdout + stderr
    attrs, s, ranks, rank_map, hosts, status, phases = summary(out)
    assert status == "complete"
    assert len(s) == 6 * reps and sorted(set(s["repetition"])) == list(range(reps))
    assert all(s["ranks"] == 4) and all(s["nodes"] == 2)
    left = bed.py("node1", "import os, sys; print(os.listdir(sys.argv[1]))", voldir)
    assert left.strip() == "[]", left
    # The same rows measure GlusterFS's costs again (model/md_costs.cpp): with the caches
    # dropped, stat-prefetch off and lookups of the other node's items, every operation reached
    # a brick, so none may cost less than the reference a row is judged by, and none is marked.
    for row in s:
        assert row["md_server_bytes_per_op"] > 128, row["phase"]  # GlusterFS's own, not the floor
        assert row["md_wire_bytes_per_op"] >= row["md_server_bytes_per_op"], row
        assert row["md_cached_fraction"] == 0
        assert "cached" not in hdf5.text(row["notes"]) and "unflushed" not in hdf5.text(
            row["notes"]
        )


def test_a_metadata_read_served_in_part_by_the_nodes_cache_says_partly_cached(
    bed, voldir, tmp_path
):
    """3 ranks, two on node1: no read shift puts every md-read on another node, so node1 reads
    one rank's items from its own page cache (--cache keep) and the other's from the bricks. Its
    wire bytes per read lie between nothing and what a 4 KiB read needs from a server, and the
    row says `partly cached N%` with N from its own fields, where it used to say nothing."""
    out = tmp_path / "r.h5"
    args = ["run", "--dir", voldir, "--ranks", 3, "--phases", "md-create,md-read", "--md-items"]
    args += [256, "--md-write-bytes", "4KiB", "--md-read-bytes", "4KiB", "--cache", "keep"]
    p = bed.mpirun(3, args + ["--quiet", "--output", out])
    assert p.returncode == 0, p.stdout + p.stderr
    attrs, s, ranks, rank_map, hosts, status, phases = summary(out)
    (read,) = rows_of(s, phases, "md_read")
    f = read["md_cached_fraction"]
    assert read["md_server_bytes_per_op"] > 4096  # the reply alone carries the 4 KiB
    assert 0.05 <= f < 0.95, (read["md_wire_bytes_per_op"], read["md_server_bytes_per_op"])
    assert f == pytest.approx(1 - read["md_wire_bytes_per_op"] / read["md_server_bytes_per_op"])
    said = (
        f"partly cached {min(int(100 * f + 0.5), 94)}% of {read['md_server_bytes_per_op']:.0f} B/op"
    )
    assert said in hdf5.text(read["notes"]), hdf5.text(read["notes"])
    assert said in p.stdout


# ------------------------------------------------------------------- a brick killed mid-phase


def test_a_brick_killed_mid_phase_is_an_io_error_naming_rank_host_file_offset(
    bed, voldir, tmp_path
):
    """A distributed volume keeps each file on one brick: killing that brick's daemon while a
    rank writes there makes the write fail with ENOTCONN. iosweep names rank, host, file, offset
    and errno, exits 1, and the results file keeps the earlier run and the earlier point."""
    out = tmp_path / "r.h5"
    early = bed.mpirun(
        2,
        ["run", "--dir", voldir, "--file-size", "4MiB", "--seq-record", "1MiB", "--ranks", "2"]
        + ["--phases", "seq-write,seq-read", "--output", out, "--quiet", "--label", "earlier"],
    )
    assert early.returncode == 0, early.stderr
    with h5py.File(out, "r") as f:
        (first,) = run_ids(f)
        first_summary = f["runs"][first]["summary"][()]
    # 1 rank, then 2: the second point's seq-write of 4 KiB records lasts seconds.
    p = bed.mpirun(
        2,
        ["run", "--dir", voldir, "--file-size", "64MiB", "--seq-record", "4KiB"]
        + ["--ranks", "1,2", "--phases", "seq-write", "--output", out, "--quiet"],
        popen=True,
    )
    sub = os.path.basename(voldir)
    bricks = json.loads(bed_cli("status", "--json").stdout)["bricks"]
    assert all(b["online"] for b in bricks)
    try:

        def second_point_writing():
            # position 1's file exists only in the 2-rank point; wait until it has grown on its
            # brick, so that the kill lands inside the timed window.
            if p.poll() is not None:
                raise AssertionError(f"iosweep ended early: {p.communicate()}")
            for b in bricks:
                d = f"/proc/{b['pid']}/root{b['path']}/{sub}"
                for name in os.listdir(d) if os.path.isdir(d) else []:
                    if name.startswith("iosweep.") and name.endswith(".1"):
                        if os.stat(f"{d}/{name}").st_size >= 2 * MiB:
                            return b, name
            return None

        brick, fname = wait_for(second_point_writing, timeout=120, what="the 2-rank seq-write")
        d = f"/proc/{brick['pid']}/root{brick['path']}/{sub}"
        on_brick = {n for n in os.listdir(d) if n.startswith("iosweep.")}
        os.kill(brick["pid"], signal.SIGKILL)
        _, err = p.communicate(timeout=180)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
        restart_bricks(bed)
    assert p.returncode == 1, err
    failed = re.findall(
        r"rank (\d) \(host (node\d)\): write of (\S+) at offset (\d+) failed: "
        r"Transport endpoint is not connected \(errno (\d+), ([^)]+)\)",
        err,
    )
    assert failed, err
    # Every rank whose file is on the killed brick fails; position 1's file is one of them.
    assert f"{voldir}/{fname}" in {f for _, _, f, _, _, _ in failed}
    for rank, host, file, offset, errno, name in failed:
        assert os.path.dirname(file) == voldir and os.path.basename(file) in on_brick
        assert 0 < int(offset) < 64 * MiB
        # ENOTCONN: the client lost the brick.
        assert int(errno) == 107 and name == "ENOTCONN", name
    rank, host = int(failed[0][0]), failed[0][1]
    with h5py.File(out, "r") as f:
        ids = run_ids(f)
        assert len(ids) == 2 and ids[0] == first
        g0, g1 = f["runs"][ids[0]], f["runs"][ids[1]]
        assert g0["summary"][()].tobytes() == first_summary.tobytes()
        assert names.status_of(g0) == "complete"
        assert names.status_of(g1) == "aborted"
        assert "errno 107, ENOTCONN" in hdf5.text(g1.attrs["status_message"])
        hosts = list(g1["hosts"].asstr()[()])
        rm = g1["rank_map"][()]
        assert hosts[[row["node"] for row in rm if row["rank"] == rank][0]] == host
        s1 = g1["summary"][()]
        assert list(s1["ranks"]) == [1] and s1["bytes"][0] == 64 * MiB  # the earlier point


# --------------------------------------------------------------- a client that stops answering

STALLED = re.compile(
    r"rank (\d) \(host (node\d)\): write of (\S+) at offset (\d+) has not completed after "
    r"([\d.]+) s \(--stall-limit (\S+)\)"
)


def client_writing(bed, p, voldir, node):
    """Waits until the ranks of `node` are inside the seq-write's window (their files growing
    on the bricks); the client pid of that node."""
    sub = os.path.basename(voldir)

    def growing():
        if p.poll() is not None:
            raise AssertionError("iosweep ended before the client was stopped")
        sizes = []
        for b in bed.info["bricks"]:
            d = f"/proc/{b['pid']}/root{b['path']}/{sub}"
            for name in os.listdir(d) if os.path.isdir(d) else []:
                if name.startswith("iosweep.") and name[-1] in "13":  # node2's positions
                    sizes.append(os.stat(f"{d}/{name}").st_size)
        return len(sizes) == 2 and min(sizes) >= 4 * MiB

    wait_for(growing, timeout=180, what="node2's ranks writing")
    return bed.info["nodes"][node]["client_pid"]


def test_a_stopped_client_is_a_stall_naming_rank_host_file_offset(bed, voldir, tmp_path):
    """node2's GlusterFS client stopped (SIGSTOP) while its ranks write: their writes never
    return. Each stalled rank's own watch names its rank, host, file and offset after the limit;
    rank 0 hears it through the side channel, marks the run aborted with those lines and ends
    the job: exit status 3, bounded, while the client is still stopped. The stalled ranks' files
    stay; node1's ranks remove theirs. SIGCONT in any case."""
    out = tmp_path / "r.h5"
    args = ["run", "--dir", voldir, "--file-size", "64MiB", "--seq-record", "64KiB", "--ranks", 4]
    args += ["--phases", "seq-write", "--stall-limit", "3s", "--quiet", "--output", out]
    # mpirun's own grace between SIGTERM and SIGKILL (the tests' default is none), in which the
    # ranks it stops remove their files.
    p = bed.mpirun(4, args, popen=True, env={"OMPI_MCA_odls_base_sigkill_timeout": "1"})
    pid = None
    try:
        pid = client_writing(bed, p, voldir, "node2")
        os.kill(pid, signal.SIGSTOP)
        t0 = time.monotonic()
        _, err = p.communicate(timeout=120)
        ended_s = time.monotonic() - t0
    finally:
        if pid:
            os.kill(pid, signal.SIGCONT)
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
    print(f"stall: the job ended {ended_s:.1f} s after the client stopped", file=sys.stderr)
    assert p.returncode == 3, err
    assert ended_s < 60, err
    stalled = {}
    for rank, host, file, offset, after, limit in STALLED.findall(err):
        assert host == "node2" and limit == "3s", err
        assert 3.0 <= float(after) < 10, err
        assert os.path.dirname(file) == voldir and file.endswith("." + rank), file
        assert 0 < int(offset) < 64 * MiB
        stalled[int(rank)] = os.path.basename(file)
    assert set(stalled) == {1, 3}, err
    assert "marked aborted in" in err and "rank 0's own files were removed" in err, err
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        assert names.status_of(g) == "aborted"
        message = hdf5.text(g.attrs["status_message"])
    assert message.startswith("stalled storage: rank "), message
    assert all(
        f"rank {r} (host node2): write of {voldir}/{n}" in message for r, n in stalled.items()
    ), (message, stalled)
    # The stalled ranks' files stay; node1's (positions 0 and 2) are gone once the job ended.
    left = bed.py(
        "node1", "import os, sys; print(' '.join(sorted(os.listdir(sys.argv[1]))))", voldir
    )
    assert left.split() == sorted(stalled.values()), left


def test_with_stall_wait_the_run_waits_and_the_row_says_how_long(bed, voldir, tmp_path):
    """--stall-wait: the stall is said on the stalled ranks' stderr and on rank 0's progress
    line (which goes on while rank 0 waits for the others), the run waits for the client and
    completes, and the row records the stall's length (stall_s, ranks' stall_s, the notes)."""
    out = tmp_path / "r.h5"
    log = tmp_path / "stderr"
    args = ["run", "--dir", voldir, "--file-size", "64MiB", "--seq-record", "64KiB", "--ranks", 4]
    args += ["--phases", "seq-write", "--stall-limit", "2s", "--stall-wait", "--output", out]
    with open(log, "w") as fh:
        p = bed.mpirun(4, args, popen=True, stderr=fh)
    pid = None
    try:
        pid = client_writing(bed, p, voldir, "node2")
        os.kill(pid, signal.SIGSTOP)
        # The progress line (one a 5 s in a log) names a stalled rank of node2 while it lasts.
        wait_for(
            lambda: re.search(
                r"waiting for the others.*stalled: rank [13] \(host node2\)", log.read_text()
            ),
            timeout=60,
            what="the progress line naming the stall",
        )
        os.kill(pid, signal.SIGCONT)
        pid = None
        stdout, _ = p.communicate(timeout=180)
    finally:
        if pid:
            os.kill(pid, signal.SIGCONT)
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
    err = log.read_text()
    assert p.returncode == 0, err
    assert re.search(
        r"rank [13] \(host node2\): write of .* has not completed after [\d.]+ s "
        r"\(--stall-limit 2s\); waiting for it \(--stall-wait\)",
        err,
    ), err
    assert re.search(r"rank [13] \(host node2\): write of .* completed after [\d.]+ s", err), err
    attrs, s, ranks, rank_map, hosts, status, phases = summary(out)
    assert status == "complete" and attrs["stall_wait"] and attrs["stall_limit_s"] == 2
    (row,) = s
    node_of = {r["rank"]: hosts[r["node"]] for r in rank_map}
    waited = {int(r["rank"]): float(r["stall_s"]) for r in ranks}
    # At least the wait for the progress line (a few seconds), and at most the whole run.
    assert all(waited[r] >= 2 for r in waited if node_of[r] == "node2"), waited
    assert all(waited[r] == 0 for r in waited if node_of[r] == "node1"), waited
    assert row["stall_s"] == max(waited.values())
    assert f"stalled {row['stall_s']:.1f} s" in hdf5.text(row["notes"]), row["notes"]


def restart_bricks(bed):
    """Restarts the killed brick daemon; every node's client is connected to it again."""
    p = bed_cli("revive")
    assert p.returncode == 0, p.stderr
    bed.info = json.loads(bed_cli("status", "--json").stdout)


# -------------------------------------------------------------------- the script's contract


@pytest.mark.parametrize(
    "args, said",
    [
        (["up", "--nodes", "0"], "dfs-bed: --nodes: must be a whole number from 1 to 200 "
         "(found '0')"),
        (["up", "--brick-size", "1m"], "dfs-bed: --brick-size: must be at least 64m (found '1m')"),
        (["up", "--brick-size", "lots"], "dfs-bed: --brick-size: 'lots' is not a size (512m, 1g)"),
        # Beyond the free space of /run, where the bricks go (EFBIG from truncate, before).
        (["up", "--brick-size", "1000t"], "dfs-bed: --brick-size: 2 file(s) of 1000 TiB need "
         "2000 TiB in '/run' but only "),
        (["up", "--option", "io-cache"], "dfs-bed: --option: 'io-cache' is not KEY=VALUE "
         "(performance.io-cache=on)"),
        (["up", "--mount", "x"], "dfs-bed: --mount: 'x' must be an absolute path of a folder"),
        (["up", "--mount", "/proc/x"], "dfs-bed: --mount: '/proc/x' is on proc, a pseudo file "
         "system, not storage"),
        (["up", "--mount", "/sys/kernel/x"], "dfs-bed: --mount: '/sys/kernel/x' is on sysfs, a "
         "pseudo file system, not storage"),
        (["up", "--mount", "/etc"], "dfs-bed: --mount: '/etc' exists and is not an empty folder"),
        (["up", "--mount", "/etc/hostname"], "dfs-bed: --mount: '/etc/hostname' exists and is "
         "not a folder"),
        (["up", "--mount", "/run/{name}/m"], "dfs-bed: --mount: '/run/{name}/m' must be a folder "
         "of its own, outside /run/{name}"),
        (["up", "--frob"], "dfs-bed: unrecognized arguments: --frob"),
    ],
)  # fmt: skip
def test_bad_arguments_are_refused_before_anything_starts(args, said):
    name = f"dfs-b{os.getpid()}"
    p = bed_cli(*[a.format(name=name) for a in args], name=name, timeout=60)
    assert (p.returncode, p.stdout) == (2, ""), p.stderr
    assert p.stderr.strip().startswith(said.format(name=name)) and p.stderr.count("\n") == 1
    assert leftovers(name) == []


def test_what_no_bed_made_is_never_removed(tmp_path):
    """down of a name whose /run/NAME is not a bed's folder (no mark, a mark of another bed, a
    link to a folder), or beside namespaces named like the bed's that no bed recorded, says so
    in one line with status 2 and touches nothing; up of such a name is refused alike."""
    if os.geteuid() != 0:
        pytest.skip("the bed's folder is in /run and its namespaces need root")
    name = f"dfs-v{os.getpid()}"
    root = Path(f"/run/{name}")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "file").write_text("x\n")
    victims = {
        "a folder": lambda: (root.mkdir(), (root / "file").write_text("x\n")),
        "another bed's mark": lambda: (
            root.mkdir(),
            (root / dfs_bed.MADE_MARK).write_text(Bed("other").mark_text()),
            (root / "state.json").write_text(json.dumps({"name": name})),
        ),
        "a link": lambda: root.symlink_to(elsewhere),
    }
    for what, make in victims.items():
        make()
        try:
            before = {str(p): p.read_bytes() for p in [root, elsewhere] for p in p.rglob("*")}
            commands = (("down", "down: "), ("up", "--name: "))
            for cmd, line in commands if what == "a folder" else commands[:1]:
                p = bed_cli(cmd, name=name, timeout=60)
                assert p.returncode == 2 and p.stdout == "", (what, cmd, p.stderr)
                assert (
                    p.stderr.startswith(f"dfs-bed: {line}/run/{name} ")
                    and p.stderr.count("\n") == 1
                ), (what, p.stderr)
                assert os.path.lexists(root), what
                after = {str(p): p.read_bytes() for p in [root, elsewhere] for p in p.rglob("*")}
                assert after == before, what
        finally:
            if root.is_dir() and not root.is_symlink():
                for f in root.iterdir():
                    f.unlink()
                root.rmdir()
            else:
                root.unlink()
    # Namespaces named as a bed names its own, that no bed recorded making.
    subprocess.run(["ip", "netns", "add", f"{name}-head"], check=True)
    try:
        for cmd, line in (("down", "down: network namespace(s) "), ("up", "--name: network ")):
            p = bed_cli(cmd, name=name, timeout=60)
            assert p.returncode == 2 and p.stderr.startswith(f"dfs-bed: {line}"), p.stderr
            assert os.path.exists(f"/run/netns/{name}-head") and not root.exists()
    finally:
        subprocess.run(["ip", "netns", "delete", f"{name}-head"], check=True)
    # Nothing of the bed anywhere: down says so and succeeds.
    p = bed_cli("down", name=name, timeout=60)
    assert p.returncode == 0 and "nothing of it was here" in p.stdout, p.stderr


def test_a_second_bed_beside_the_first_and_down_after_a_partial_up(bed):
    """Another bed comes up beside the first (namespaces, loop devices and glusterd's fixed
    paths are its own), goes down, and down again does nothing. An up interrupted as soon as its
    glusterd runs leaves nothing either, and a down after a killed up cleans what it made."""
    name = f"dfs-s{os.getpid()}"
    host_state = sorted(os.listdir("/var/lib/glusterd")), sorted(os.listdir("/var/log/glusterfs"))
    up = bed_cli("up", "--nodes", 1, "--bricks", 1, "--brick-size", "256m", name=name)
    try:
        assert up.returncode == 0, up.stderr
        st = bed_cli("status", name=name)
        assert st.returncode == 0 and "node1 198.18.0.11" in st.stdout
    finally:
        assert bed_cli("down", name=name).returncode == 0
    assert leftovers(name) == []
    again = bed_cli("down", name=name)
    assert again.returncode == 0 and leftovers(name) == []
    assert bed_cli("status", "--json").returncode == 0  # the first bed is untouched
    for sig in (signal.SIGTERM, signal.SIGKILL):
        p = subprocess.Popen(
            [DFS_BED, "--name", name, "up"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        state = Path(f"/run/{name}/state.json")

        def glusterd_started():
            try:
                pid = json.loads(state.read_text()).get("glusterd_pid")
            except (OSError, ValueError):
                return False
            return pid and dfs_bed.alive(pid)

        wait_for(glusterd_started, timeout=60, what="the second bed's glusterd")
        p.send_signal(sig)
        _, err = p.communicate(timeout=120)
        if sig == signal.SIGTERM:
            assert p.returncode == 1 and err.strip() == "dfs-bed: up: interrupted", err
        else:
            assert leftovers(name) != []  # a killed up could not clean up ...
            assert bed_cli("down", name=name).returncode == 0  # ... down does
        assert leftovers(name) == []
    assert (sorted(os.listdir("/var/lib/glusterd")), sorted(os.listdir("/var/log/glusterfs"))) == (
        host_state
    )


# ---------------------------------------------------------------------- scripts/dfs-vs-ior

DFS_VS_IOR = str(SOURCE_DIR / "scripts" / "dfs-vs-ior")


@pytest.mark.parametrize(
    "args, said",
    [
        ([], "dfs-vs-ior: the following arguments are required: --ior"),
        (["--ior", "/nonexistent/ior"], "dfs-vs-ior: --ior: /nonexistent/ior is not an executable"),
        (["--ior", "/bin/true", "--size", "10m"],
         "dfs-vs-ior: --size: must be a multiple of 16m, the sequential transfer (found 10m)"),
        (["--ior", "/bin/true", "--pairs", "0"],
         "dfs-vs-ior: --pairs: must be a whole number from 1 to 100 (found '0')"),
        (["--ior", "/bin/true", "--ranks", "3"],
         "dfs-vs-ior: --ranks: must be even, half on each of the 2 nodes (found 3)"),
    ],
)  # fmt: skip
def test_dfs_vs_ior_refuses_bad_arguments(args, said):
    p = subprocess.run([DFS_VS_IOR] + args, capture_output=True, text=True, timeout=60)
    assert (p.returncode, p.stderr.strip(), p.stdout) == (2, said, "")


def test_dfs_vs_ior_smoke(bed):
    """One pair of the sequential N-to-N workload against a real IOR, when one is given
    ($IOSWEEP_IOR: IOR is built outside this repository); the table has both phases."""
    ior = os.environ.get("IOSWEEP_IOR")
    if not ior or not os.access(ior, os.X_OK):
        pytest.skip("no IOR binary: set IOSWEEP_IOR to one to run iosweep and IOR side by side")
    p = subprocess.run(
        [DFS_VS_IOR, "--ior", ior, "--name", NAME, "--pairs", "1", "--size", "16m", "--only",
         "seq, N-to-N"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    rows = [ln.split() for ln in p.stdout.splitlines() if ln.startswith("16 MiB seq, N-to-N")]
    assert [r[4] for r in rows] == ["seq-write", "seq-read"], p.stdout
    for r in rows:
        assert float(r[6]) > 0 and float(r[7]) > 0  # IOR's and iosweep's MiB/s
        assert 0.9 < float(r[-1]) < 1.2 and 0.9 < float(r[-2]) < 1.2  # both went to the servers


# ----------------------------------------------------------------- scripts/bench-vs-mdtest


def test_bench_vs_mdtest_on_the_bed(bed, tmp_path):
    """One pair of mdtest and iosweep on the volume, 4 ranks round-robin over the 2 nodes, when
    an mdtest binary is given ($IOSWEEP_MDTEST: mdtest is built outside this repository): every
    operation has a finite, positive ratio, mdtest ran with -N 1, iosweep's points spanned both
    nodes, and the volume holds afterwards what it held before."""
    mdtest = os.environ.get("IOSWEEP_MDTEST")
    if not mdtest or not os.access(mdtest, os.X_OK):
        pytest.skip("no mdtest binary: set IOSWEEP_MDTEST to one to run iosweep and mdtest here")
    listing = "import os, sys; print(sorted(os.listdir(sys.argv[1])))"
    before = bed.py("node1", listing, bed.mount)
    save, table = tmp_path / "save", tmp_path / "table.csv"
    p = subprocess.run(
        [SOURCE_DIR / "scripts" / "bench-vs-mdtest", "--mdtest", mdtest, "--bed", "--name", NAME,
         "--pairs", "1", "--items", "20", "--save", save, "--csv", table],
        capture_output=True, text=True, timeout=600, env=mpi_env(),
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert bed.py("node1", listing, bed.mount) == before
    rows = table.read_text().splitlines()[1:]
    assert [r.split(",")[0] for r in rows] == ["mkdir", "create", "stat", "read", "remove", "rmdir"]
    for r in rows:
        ratio = float(r.split(",")[5])
        assert 0 < ratio < float("inf"), r
    assert "'-N' '1'" in (save / "mdtest.1.txt").read_text()
    with h5py.File(save / "iosweep.h5", "r") as f:
        s = latest_run(f)["summary"][()]
        assert set(s["nodes"]) == {2} and set(s["ranks"]) == {4}


# ----------------------------------------------------------------- iosweep io500 on the volume


def test_io500_on_the_volume_over_both_nodes(bed, voldir, tmp_path):
    """`iosweep io500` with its data on the volume, 4 ranks round-robin over the 2 nodes: the
    result files written, the score there, every row spanning both nodes, find's walk over the
    FUSE mount counting every file both mdtest tests made, and nothing of the run left."""
    listing = "import os, sys; print(sorted(os.listdir(sys.argv[1])))"
    ini, out, res = tmp_path / "io500.ini", tmp_path / "r.h5", tmp_path / "results"
    ini.write_text(
        f"[global]\ndatadir = {voldir}/data\nresultdir = {res}\ntimestamp-datadir = FALSE\n"
        "timestamp-resultdir = FALSE\n[debug]\nstonewall-time = 60\n[ior-easy]\n"
        "transferSize = 1m\nblockSize = 4m\n[ior-hard]\nsegmentCount = 40\n"
        "[mdtest-easy]\nn = 50\n[mdtest-hard]\nn = 50\n"
    )
    p = bed.mpirun(4, ["io500", ini, "--output", out, "--quiet"], timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    summary_text = (res / "result_summary.txt").read_text()
    assert re.search(r"^\[SCORE \] Bandwidth [0-9.]+ GiB/s", summary_text, re.M), summary_text
    text = (res / "result.txt").read_text()
    assert re.search(r"^total-files += 405$", text, re.M), text  # 4 x 50 x 2, 4 + 1 ior files
    with h5py.File(out, "r") as f:
        s = latest_run(f)["summary"][()]
    assert set(s["nodes"]) == {2} and set(s["ranks"]) == {4} and len(s) == 14
    # The application's four test folders are left, empty; nothing else of the run.
    assert bed.py("node1", listing, f"{voldir}/data").strip() == str(
        ["ior-easy", "ior-hard", "mdtest-easy", "mdtest-hard"]
    )
    for t in ("ior-easy", "ior-hard", "mdtest-easy", "mdtest-hard"):
        assert bed.py("node1", listing, f"{voldir}/data/{t}").strip() == "[]"
