"""Several drives per node for real: small ext4 file systems, each on its own loop device and
mounted on its own folder, under ranks on emulated nodes (scripts/cluster/emu-rsh). With the
nodes sharing this machine's mounts, the same folder is the same drive on every node (counted
once); with IOSWEEP_EMU_VIEWS every node has its own drives behind the same paths, as a node's
local NVMe drives are. Checked: every rank's file is in the folder the placement says, every
device's counters match what its ranks moved (O_DIRECT; within the file system's own metadata),
the final math's per-drive lines are the file's figures (and iosweep-report's are the
console's), a folder full or missing on one node is refused before anything is written, a drive
lost mid-run stops the run naming the rank, its host and the folder while the points before
stay readable, and the compute-adjacent study's shape scaled down (3 nodes x 4 drives, 12
ranks, filter-count with --direct)."""
import fcntl
import os
import re
import shutil
import struct
import subprocess
from pathlib import Path

import h5py
import numpy as np
import pytest

from conftest import BIN, SOURCE_DIR, iosweep_argv, latest_run, mpi_env
from iosweep_tools.core.launch import can_emulate, emulated_env
from iosweep_tools.report.final_math import final_math_text
from iosweep_tools.results import reader
from iosweep_tools.results.hdf5 import text
from iosweep_tools.results.names import phases, status_of
from loopdrives import make_drives, missing_loop_tools, sh

NODES = ["node1", "node2", "node3"]
DRIVES = 4
FILE = 4 << 20  # bytes of each rank's file
# What an O_DIRECT phase may add to a drive's counters beyond its ranks' bytes: the file
# system's own metadata (inodes, bitmaps, extents), written back or read around the window.
METADATA = 1 << 20
EXT4_IOC_SHUTDOWN = 0x8004587D  # _IOR('X', 125, __u32)
EXT4_GOING_FLAGS_NOLOGFLUSH = 2


def missing_tools():
    return can_emulate() or missing_loop_tools()


@pytest.fixture(scope="module")
def drives(tmp_path_factory):
    why = missing_tools()
    if why:
        pytest.skip(why)
    root = tmp_path_factory.mktemp("drives")
    d = make_drives(root, NODES, DRIVES)
    (root / "view").mkdir()
    try:
        yield d
    finally:
        d.close()


def threadlist(tmp_path, nodes, slots):
    p = sh(SOURCE_DIR / "scripts" / "make-threadlist", "--slots", slots, *nodes)
    path = tmp_path / "threadlist"
    path.write_text(p.stdout)
    return path


def command(hosts, n, folders, *extra, **options):
    """`mpirun -np N --hostfile HOSTS --map-by node iosweep run --dir F1,F2,...`, the rest of
    iosweep's command line built by iosweep_argv(*extra, **options)."""
    launch = ["mpirun", "-np", str(n), "--hostfile", str(hosts), "--map-by", "node", BIN]
    return launch + iosweep_argv(*extra, dir=",".join(str(f) for f in folders), **options)


def env_for(drives=None):
    """Emulated nodes; with `drives`, each node sees its own drives under ROOT/view."""
    env = emulated_env(mpi_env())
    if drives is not None:
        env["IOSWEEP_EMU_VIEWS"] = f"{drives.root / 'nodes'}:{drives.root / 'view'}"
    return env


def iosweep(hosts, n, folders, *extra, env=None, **options):
    return subprocess.run(
        command(hosts, n, folders, *extra, **options),
        capture_output=True,
        text=True,
        env=env or env_for(),
        timeout=300,
    )


def point_rows(g, phase_name, ranks):
    """The summary row and its device rows of `phase_name` at `ranks` active ranks."""
    s = g["summary"][()]
    row = s[(s["phase"] == phases(g)[phase_name]) & (s["ranks"] == ranks)][-1]
    dev = g["device"][()]
    return row, dev[dev["point"] == row["point"]]


def check_drives_counted_their_ranks(g, phase_name, ranks, writes):
    """Every drive's claims are its ranks' bytes, from the ranks table and the folders on it;
    its own counters saw those bytes and at most the file system's metadata more."""
    folders = text(g.attrs["dir"]).split(",")
    row, dev = point_rows(g, phase_name, ranks)
    rk = g["ranks"][()]
    rk = rk[rk["point"] == row["point"]]
    assert row["drives"] == len(set(dev["drive"][dev["ranks"] > 0]))
    for drive in set(dev["drive"]):
        rows = dev[dev["drive"] == drive]
        (counted,) = rows[rows["counted"] == 1]
        claimed = 0
        for r in rows:
            on_it = [folders.index(f) for f in text(r["folders"]).split(",")]
            mine = rk[(rk["node"] == r["node"]) & np.isin(rk["folder"], on_it)]
            assert r["claimed_bytes"] == mine["bytes"].sum() and r["ranks"] == len(mine)
            claimed += int(r["claimed_bytes"])
        seen = int(counted["write_bytes" if writes else "read_bytes"])
        assert claimed <= seen <= claimed + METADATA, (phase_name, drive, claimed, seen)
        if claimed == 0:  # a drive no rank of the point used
            assert np.isnan(counted["drive_fraction"]) and np.isnan(counted["drive_Bps"])
        else:
            assert counted["drive_fraction"] == pytest.approx(seen / claimed)
    return row, dev


DRIVE_LINE = re.compile(
    r"^  drive (\d+) +(\S+) on nodes? ([\d,]+) \((.+)\): device read (\d+) bytes = ([\d.]+) GB/s "
    r"over the ([\d.]+) s window; (\d+) ranks? claimed (\d+) bytes, ([\d.]+) GB/s$",
    re.M,
)


def check_final_math(stdout, g, ranks):
    """The final math's per-drive lines are the file's figures for filter-count's largest point."""
    row, dev = point_rows(g, "filter_count", ranks)
    m = re.search(r"^  per drive  ([\d.]+) GB/s \(aggregate / (\d+) drives? used\)$", stdout, re.M)
    assert m, stdout
    assert int(m.group(2)) == row["drives"]
    assert float(m.group(1)) == pytest.approx(row["bandwidth_Bps"] / row["drives"] / 1e9, abs=6e-4)
    lines = DRIVE_LINE.findall(stdout)
    assert len(lines) == row["drives"], stdout
    for drive, name, nodes, _, read, _, window, n, claimed, bps in lines:
        rows = dev[dev["drive"] == int(drive)]
        (counted,) = rows[rows["counted"] == 1]
        assert text(counted["device"]) == name and int(read) == counted["read_bytes"]
        assert int(claimed) == rows["claimed_bytes"].sum() and int(n) == rows["ranks"].sum()
        assert {int(x) for x in nodes.split(",")} == set(rows["node"][rows["ranks"] > 0])
        assert float(window) == pytest.approx(row["wall_s"], abs=6e-4)
        assert float(bps) == pytest.approx(counted["drive_Bps"] / 1e9, abs=6e-4)
    return row


@pytest.mark.parametrize("n_folders", [2, 4])
def test_folders_shared_by_two_nodes(drives, tmp_path, n_folders):
    """8 ranks on 2 nodes over 2 and 4 folders on this machine's mounts: both nodes' ranks of a
    folder write to one drive, which the counters count once against both nodes' claims."""
    folders = [drives.folder("node1", i) for i in range(n_folders)]
    hosts = threadlist(tmp_path, NODES[:2], 4)
    out = tmp_path / "r.h5"
    p = iosweep(
        hosts,
        8,
        folders,
        direct=True,
        file_size=FILE,
        ranks=8,
        keep=True,
        phases="seq-write,seq-read,filter-count",
        output=out,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    try:
        with h5py.File(out, "r") as f:
            g = latest_run(f)
            run_id, hosts_of = g.name.split("/")[-1], list(g["hosts"].asstr()[()])
            rm = g["rank_map"][()]
            assert list(rm["folder"]) == [r % n_folders for r in rm["local_index"]]
            # Each rank's file is where the placement says, and nothing else is anywhere.
            for r in rm:
                node = hosts_of[r["node"]]
                assert node in p.stdout
                assert (folders[r["folder"]] / f"iosweep.{run_id}.{r['position']}").is_file()
            assert sum(len(os.listdir(d)) - 1 for d in folders) == 8  # and lost+found
            seq = point_rows(g, "seq_write", 8)[0]
            rk = g["ranks"][()]
            rk = rk[rk["point"] == seq["point"]]
            assert {(r["rank"], r["folder"]) for r in rk} == {(r["rank"], r["folder"]) for r in rm}
            for phase_name, writes in (("seq_write", True), ("seq_read", False)):
                row, dev = check_drives_counted_their_ranks(g, phase_name, 8, writes)
                assert row["drives"] == n_folders
                assert {text(d["device"]) for d in dev} == {
                    drives.device("node1", i) for i in range(n_folders)
                }
                assert sorted(dev["counted"]) == [0] * n_folders + [1] * n_folders
            check_final_math(p.stdout, g, 8)
        # iosweep-report's final math re-derives the console's from the file, byte for byte,
        # with each drive's rows of both nodes gathered as the console gathers them.
        console = p.stdout[p.stdout.index("filter-count at ") :]
        console = console[: console.index("results: run ")]  # the run's last lines follow
        assert final_math_text(reader.read(out)) == console
        # The header names every folder's drive and the ranks that use it on each node.
        for i, folder in enumerate(folders):
            assert f"    {folder} ({drives.device('node1', i)}, drive {i}): ranks" in p.stdout
    finally:
        for d in folders:
            for name in os.listdir(d):
                if name.startswith("iosweep."):
                    os.unlink(d / name)


def test_a_folder_missing_or_full_on_one_node_is_refused_before_anything_is_written(
    drives, tmp_path
):
    """Each node has its own drives behind the same paths: a folder only node1 has, then a
    drive of node2 nearly full, are refused in one line naming the host and the folder."""
    view = drives.root / "view"
    hosts = threadlist(tmp_path, NODES[:2], 2)
    out = tmp_path / "r.h5"
    (drives.root / "nodes" / "node1" / "extra").mkdir()
    before = {d: sorted(os.listdir(d)) for d in drives.mounts}
    p = iosweep(
        hosts, 4, [view / "d0", view / "extra"], file_size=FILE, output=out, env=env_for(drives)
    )
    said = [ln for ln in p.stderr.splitlines() if ln.startswith("iosweep:")]
    assert p.returncode == 2 and said == [
        f"iosweep: --dir: host node2: '{view / 'extra'}' does not exist"
    ], p.stderr
    filler = drives.folder("node2", 1) / "filler"
    free = shutil.disk_usage(drives.folder("node2", 1)).free
    sh("fallocate", "-l", free - FILE // 2, filler)
    try:
        p = iosweep(
            hosts, 4, [view / "d0", view / "d1"], file_size=FILE, output=out, env=env_for(drives)
        )
    finally:
        filler.unlink()
    said = [ln for ln in p.stderr.splitlines() if ln.startswith("iosweep:")]
    assert p.returncode == 2 and len(said) == 1, p.stderr
    assert said[0].startswith(
        f"iosweep: --file-size: the point of 4 rank(s) needs {FILE} bytes (4 MiB: its data "
        f"files) in '{view / 'd1'}' on host node2 but only "
    )
    assert {d: sorted(os.listdir(d)) for d in drives.mounts} == before
    assert not out.exists()


@pytest.mark.parametrize("how", ["unmounted", "failed"])
def test_a_drive_lost_mid_run_stops_the_run_and_keeps_the_points_before(tmp_path, how):
    """The second drive is lost after the first point is written: lazily unmounted (its folder
    then leads to whatever is under the mount point) or failed (the file system shut down, as
    when its device is gone). The run stops with one line naming the rank, its host and the
    folder (and for an I/O error the offset and errno); the points before stay readable."""
    why = missing_tools()
    if why:
        pytest.skip(why)
    mine = make_drives(tmp_path, ["node1"], 2)
    try:
        folders = [mine.folder("node1", 0), mine.folder("node1", 1)]
        out = tmp_path / "r.h5"
        hosts = threadlist(tmp_path, NODES[:2], 2)
        cmd = command(
            hosts,
            4,
            folders,
            direct=True,
            file_size=1 << 20,
            seq_record="256KiB",
            ranks=4,
            phases="seq-write,seq-read",
            repetitions=200,
            output=out,
        )
        pipe = subprocess.PIPE
        p = subprocess.Popen(cmd, stdout=pipe, stderr=pipe, text=True, env=env_for())
        try:
            for line in p.stdout:
                if line.startswith("seq-read "):  # a point is in the results file
                    lose(folders[1], how)
                    break
            stdout, stderr = p.communicate(timeout=120)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        assert p.returncode == 1, stdout + stderr
        said = [ln for ln in stderr.splitlines() if ln.startswith("iosweep:")]
        assert len(said) == 1, stderr
        m = re.match(r"iosweep: rank (\d+) \(host (node[12])\): (.*)$", said[0])
        assert m, said[0]
        if how == "failed":
            assert re.search(
                rf"of {re.escape(str(folders[1]))}/iosweep\.\S+ at offset \d+ failed: .*"
                r"\(errno 5, EIO\)",
                m.group(3),
            ), said[0]
        else:
            assert m.group(3).startswith(
                f"folder '{folders[1]}' is no longer on the file system it was on when the run "
                "started"
            ), said[0]
        with h5py.File(out, "r") as f:
            g = latest_run(f)
            assert status_of(g) == "aborted"
            assert text(g.attrs["status_message"]).startswith(m.group(0)[len("iosweep: ") :])
            s = g["summary"][()]
            assert len(s) >= 2 and (s["bytes"] == 4 << 20).all()
    finally:
        mine.close()


def lose(folder, how):
    """A drive gone: its file system lazily unmounted, or shut down as ext4 does when its
    device fails (every later operation: EIO)."""
    if how == "unmounted":
        sh("umount", "-l", folder)
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.ioctl(fd, EXT4_IOC_SHUTDOWN, struct.pack("I", EXT4_GOING_FLAGS_NOLOGFLUSH))
    finally:
        os.close(fd)


def test_the_compute_adjacent_study_scaled_down(drives, tmp_path):
    """3 nodes x 4 drives, one rank per drive (12 ranks), filter-count with O_DIRECT: every
    rank's file on its own node's drive, every drive counted once with its rank's bytes, the
    final math per node, per drive and in percent of the rated figures."""
    view = drives.root / "view"
    hosts = threadlist(tmp_path, NODES, 4)
    out = tmp_path / "r.h5"
    folders = [view / f"d{i}" for i in range(DRIVES)]
    preset = SOURCE_DIR / "modes" / "compute-adjacent.toml"
    p = iosweep(
        hosts,
        12,
        folders,
        config=preset,
        file_size=FILE,
        seq_record="1MiB",
        ranks="6,12",
        keep=True,
        rated_bw="5.2GB/s,3.4GB/s",
        output=out,
        quiet=True,
        env=env_for(drives),
    )
    assert p.returncode == 0, p.stdout + p.stderr
    try:
        with h5py.File(out, "r") as f:
            g = latest_run(f)
            run_id, hosts_of = g.name.split("/")[-1], list(g["hosts"].asstr()[()])
            for r in g["rank_map"][()]:  # on its own node's drive, the steps' one data set
                node = hosts_of[r["node"]]
                assert (
                    drives.folder(node, r["folder"]) / f"iosweep.{run_id}.d0.{r['position']}"
                ).is_file()
            half, _ = check_drives_counted_their_ranks(g, "filter_count", 6, False)
            assert half["drives"] == 6 and half["nodes"] == 3  # nodes first, drives second
            row, dev = check_drives_counted_their_ranks(g, "filter_count", 12, False)
            assert row["drives"] == 12 and (dev["counted"] == 1).all() and (dev["ranks"] == 1).all()
            assert {(hosts_of[d["node"]], text(d["device"])) for d in dev} == {
                (n, drives.device(n, i)) for n in NODES for i in range(DRIVES)
            }
            check_final_math(p.stdout, g, 12)
        per_node = re.search(r"^  per node   ([\d.]+) GB/s", p.stdout, re.M)
        assert float(per_node.group(1)) == pytest.approx(row["bandwidth_Bps"] / 3e9, abs=6e-4)
        rated = r"^  rated +5\.200 GB/s and 3\.400 GB/s per drive: between ([\d.]+)% and ([\d.]+)%"
        m = re.search(rated, p.stdout, re.M)
        assert m, p.stdout
        per_drive = row["bandwidth_Bps"] / 12
        assert float(m.group(1)) == pytest.approx(100 * per_drive / 5.2e9, abs=0.051)
        assert float(m.group(2)) == pytest.approx(100 * per_drive / 3.4e9, abs=0.051)
        assert re.search(r"^  matches    \d+ found, \d+ expected \(exact\)$", p.stdout, re.M)
    finally:
        for node in NODES:
            for i in range(DRIVES):
                for name in os.listdir(drives.folder(node, i)):
                    if name.startswith("iosweep."):
                        os.unlink(drives.folder(node, i) / name)


MD_PHASES = ["md_mkdir", "md_create", "md_stat", "md_read", "md_remove", "md_rmdir"]


def test_the_metadata_phases_on_every_drive(drives, tmp_path):
    """The metadata phases over 2 drives and 2 nodes (this machine's mounts: both nodes' ranks
    of a folder on one drive), as mdtest -d a@b: each rank's trees in its folder of --dir, every
    drive's rows claim the operations of the ranks whose items were there and its counted row
    gives their rate, md-create's fsynced items reach each drive's own counters, and nothing is
    left on any drive."""
    folders = [drives.folder("node1", i) for i in range(2)]
    hosts = threadlist(tmp_path, NODES[:2], 2)
    out = tmp_path / "r.h5"
    p = iosweep(
        hosts,
        4,
        folders,
        phases="md",
        ranks=4,
        md_items=200,
        md_fsync=True,
        md_write_bytes="4k",
        md_read_bytes="4k",
        output=out,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert [sorted(os.listdir(d)) for d in folders] == [["lost+found"]] * 2
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        folder_of = {int(r["position"]): int(r["folder"]) for r in g["rank_map"][()]}
        assert sorted(folder_of.values()) == [0, 0, 1, 1]
        for phase_name in MD_PHASES:
            row, dev = point_rows(g, phase_name, 4)
            rk = g["ranks"][()]
            rk = rk[rk["point"] == row["point"]]
            # A rank's operations are claimed where the items it touched are: its source's folder.
            assert [int(r["folder"]) for r in rk] == [folder_of[int(r["file"])] for r in rk]
            assert row["drives"] == 2, phase_name
            rates = []
            for drive in set(dev["drive"]):
                rows = dev[dev["drive"] == drive]
                (counted,) = rows[rows["counted"] == 1]
                on_it = {
                    folders.index(Path(x)) for r in rows for x in text(r["folders"]).split(",")
                }
                mine = rk[np.isin(rk["folder"], list(on_it))]
                assert rows["claimed_ops"].sum() == mine["ops"].sum() > 0, phase_name
                seconds = rows["seconds"].max()
                assert counted["drive_iops"] == pytest.approx(mine["ops"].sum() / seconds)
                rates.append(counted["drive_iops"])
                if phase_name == "md_create":  # fsynced: every item's bytes reached its drive
                    assert counted["write_bytes"] >= rows["claimed_bytes"].sum() > 0
            assert row["drive_iops_min"] == pytest.approx(min(rates))
            assert row["drive_iops_max"] == pytest.approx(max(rates))
