"""Where the bytes came from, measured for real: page-cache residency before reads, unflushed
writes, block device counters (on a loop device the tests attach and detach themselves), and NaN
with a reason where there is no block device."""
import math
import os
import shutil
import subprocess

import h5py
import numpy as np
import pytest

from conftest import latest_run, run_sweep
from iosweep_tools.results.names import phases


def summary_of(out):
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        return g["summary"][()], phases(g), dict(g.attrs), g["device"][()]


def row(s, names, phase):
    return s[s["phase"] == names[phase]][0]


def fs_type(path):
    return subprocess.run(
        ["stat", "-f", "-c", "%T", str(path)], capture_output=True, text=True
    ).stdout.strip()


def test_dropped_cache_reads_cold_and_unsynced_writes_stay_dirty(workdir, tmp_path):
    if fs_type(workdir) not in ("ext2/ext3", "ext4", "xfs"):
        pytest.skip(f"{workdir} is on {fs_type(workdir)}, not a disk file system")
    out = tmp_path / "r.h5"
    p = run_sweep(
        1,
        dir=workdir,
        file_size="16MiB",
        phases="seq-write,seq-read",
        cache="drop",
        output=out,
        check=0,
    )
    s, names, attrs, _ = summary_of(out)
    w, r = row(s, names, "seq_write"), row(s, names, "seq_read")
    # The write ran without fsync: what it wrote is still in the page cache.
    assert w["unflushed_fraction"] > 0
    assert math.isnan(w["cached_fraction_mean"])
    # --cache drop: fsync and fadvise(DONTNEED) before the read, which then starts cold.
    assert r["cached_fraction_mean"] <= 0.05 and r["cached_fraction_max"] <= 0.05
    assert math.isnan(r["unflushed_fraction"])
    assert "unflushed" in p.stdout and attrs["page_cache_probe"].startswith(
        ("cachestat", "mincore")
    )


def page_cache_drops():
    """How often anything on this machine wrote 1 or 3 to /proc/sys/vm/drop_caches (the
    metadata phases' md-stat and md-read do, as root, to start cold): /proc/vmstat counts it."""
    with open("/proc/vmstat") as f:
        for line in f:
            if line.startswith("drop_pagecache "):
                return int(line.split()[1])
    return None


def pre_read_then_reuse(workdir, out, rid):
    """The kept file read whole into the page cache, then read again by iosweep with --cache
    keep; its seq-read row and the console's output."""
    with open(workdir / f"iosweep.{rid}.0", "rb") as fh:
        while fh.read(1 << 20):
            pass
    p = run_sweep(
        1,
        dir=workdir,
        file_size="16MiB",
        phases="seq-read",
        reuse=rid,
        cache="keep",
        output=out,
        check=0,
    )
    s, names, _, _ = summary_of(out)
    return row(s, names, "seq_read"), p.stdout


def test_kept_cache_after_a_pre_read_is_reported_cached(workdir, tmp_path):
    """A file pre-read into the page cache is reported 100% cached by a --cache keep read.
    Every page was cached by the pre-read, and the kept file's checks (before the run and
    before the phase) read its first 4 KiB without dropping what was cached (dropping those
    4 KiB after the read dropped what the user had cached). What else can empty the cache is
    another process dropping the whole machine's page cache between the pre-read and the
    phase (a metadata test running beside this one does, as root: a 16 MiB pre-read cut after
    its first MiB left 1/16 missing): then the attempt is repeated, a bounded number of times."""
    if page_cache_drops() is None:
        pytest.skip("this kernel's /proc/vmstat does not count page-cache drops")
    out = tmp_path / "r.h5"
    run_sweep(
        1,
        dir=workdir,
        file_size="16MiB",
        phases="seq-write",
        fsync=True,
        keep=True,
        output=out,
        check=0,
    )
    with h5py.File(out, "r") as f:
        rid = latest_run(f).attrs["run_id"]
    for _ in range(8):
        drops = page_cache_drops()
        r, stdout = pre_read_then_reuse(workdir, out, rid)
        if page_cache_drops() == drops:
            break
    else:
        pytest.fail("the machine's page cache was dropped during each of 8 attempts")
    assert r["cached_fraction_mean"] == 1.0
    assert "cached 100%" in stdout
    os.unlink(workdir / f"iosweep.{rid}.0")


def test_fsync_list_and_preallocation_are_recorded(workdir, tmp_path):
    out = tmp_path / "r.h5"
    run_sweep(
        1,
        dir=workdir,
        file_size="8MiB",
        phases="seq-write,rand-write",
        fsync="rand-write",
        preallocate=True,
        output=out,
        check=0,
    )
    s, names, attrs, _ = summary_of(out)
    assert attrs["fsync_phases"] == "rand-write" and attrs["fsync"] == 1
    assert attrs["preallocate"] == 1
    with h5py.File(out, "r") as f:
        r = latest_run(f)["ranks"][()]
    sync = {int(p): r["sync_s"][r["point"] == p][0] for p in s["point"]}
    assert sync[int(row(s, names, "seq_write")["point"])] == 0
    assert sync[int(row(s, names, "rand_write")["point"])] > 0
    # The write that fsynced left nothing dirty to measure; the other one did.
    assert math.isnan(row(s, names, "rand_write")["unflushed_fraction"])
    assert not math.isnan(row(s, names, "seq_write")["unflushed_fraction"])


def test_orders_differ_per_run_and_repetition_unless_pinned(workdir, tmp_path):
    out = tmp_path / "r.h5"
    seeds = []
    for extra in ([], [], ["--order-seed", "7"], ["--order-seed", "7"]):
        run_sweep(
            1,
            *extra,
            dir=workdir,
            file_size="1MiB",
            phases="rand-read",
            repetitions=2,
            output=out,
            check=0,
        )
        s, _, attrs, _ = summary_of(out)
        seeds.append(tuple(int(x) for x in s["order_seed"]))
        assert attrs["order_seed_pinned"] == (1 if extra else 0)
    for run in seeds:
        assert run[0] != run[1] and all(x != 0 for x in run)  # repetitions differ
    assert seeds[0] != seeds[1]  # runs differ
    assert seeds[2] == seeds[3]  # --order-seed pins them


def mount_type(path):
    """The type of the mount holding `path`, from /proc/self/mountinfo (as iosweep reads it)."""
    real, best, kind = os.path.realpath(path), "", None
    for line in open("/proc/self/mountinfo"):
        f = line.split()
        mnt, fstype = f[4], f[f.index("-") + 1]
        if (real == mnt or real.startswith(mnt.rstrip("/") + "/")) and len(mnt) >= len(best):
            best, kind = mnt, fstype
    return kind


def test_a_local_disk_is_named_from_the_mount_table_and_its_rows_are_verified(workdir, tmp_path):
    """On a file system with a block device the device counts every row: no row is
    unverified, and no wire is sampled (the mount names a device, not a server)."""
    if fs_type(workdir) not in ("ext2/ext3", "ext4", "xfs"):
        pytest.skip(f"{workdir} is on {fs_type(workdir)}, not a disk file system")
    out = tmp_path / "r.h5"
    p = run_sweep(
        1, dir=workdir, file_size="4MiB", phases="seq-write,seq-read", output=out, check=0
    )
    s, _, attrs, dev = summary_of(out)
    kind = mount_type(workdir)
    assert attrs["fs_type"] == kind and f"file system: {kind} " in p.stdout
    assert all(np.isfinite(s["device_fraction"])) and "unverified" not in p.stdout
    assert all(np.isnan(s["wire_fraction"])) and "a device, not a server" in attrs["wire_note"]
    with h5py.File(out, "r") as f:
        mounts = latest_run(f)["mounts"][()]
    assert len(mounts) == 1 and mounts[0]["fs_type"].decode() == kind


def test_no_block_device_is_nan_with_the_reason(tmp_path):
    shm = "/dev/shm"
    if fs_type(shm) != "tmpfs":
        pytest.skip("/dev/shm is not tmpfs here")
    work = os.path.join(shm, f"iosweep-prov-{os.getpid()}")
    os.mkdir(work)
    try:
        out = tmp_path / "r.h5"
        p = run_sweep(
            2, dir=work, file_size="4MiB", phases="seq-write,seq-read", output=out, check=0
        )
        s, _, attrs, dev = summary_of(out)
        assert all(np.isnan(s["device_read_bytes"])) and all(np.isnan(s["device_fraction"]))
        assert len(dev) == 0
        assert "tmpfs" in attrs["device_note"] and "no block device" in attrs["device_note"]
        assert "not measured" in p.stdout
        # Nothing counted these bytes, neither a device nor a wire: every row says so, so that
        # a blank note can only mean checked.
        assert all(np.isnan(s["wire_fraction"])) and "names no server" in attrs["wire_note"]
        table = [ln for ln in p.stdout.splitlines() if ln.startswith(("seq-write", "seq-read"))]
        assert len(table) == len(s) and all(ln.rstrip().endswith("unverified") for ln in table)
    finally:
        shutil.rmtree(work, ignore_errors=True)


@pytest.fixture
def loop_mount(tmp_path):
    """An ext4 file system on a loop device of its own, detached at the end."""
    for tool in ("losetup", "mkfs.ext4", "mount", "umount"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    if os.geteuid() != 0:
        pytest.skip("attaching a loop device needs root")
    image = tmp_path / "disk.img"
    with open(image, "wb") as fh:
        fh.truncate(256 << 20)
    attach = subprocess.run(
        ["losetup", "--find", "--show", str(image)], capture_output=True, text=True
    )
    if attach.returncode != 0:
        pytest.skip("no loop device here: " + attach.stderr.strip())
    dev = attach.stdout.strip()
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    try:
        # Initialised in full now, so that no background initialisation writes during the run.
        subprocess.run(
            ["mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", dev],
            check=True,
            capture_output=True,
        )
        subprocess.run(["mount", dev, str(mnt)], check=True, capture_output=True)
        work = mnt / "work"
        work.mkdir()
        yield dev, work
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)
        subprocess.run(["losetup", "-d", dev], capture_output=True)


def test_loop_device_counters_match_direct_writes_and_reads(loop_mount, tmp_path):
    dev, work = loop_mount
    out = tmp_path / "r.h5"
    run_sweep(
        1,
        dir=work,
        file_size="64MiB",
        seq_record="4MiB",
        phases="seq-write,seq-read",
        direct=True,
        output=out,
        check=0,
    )
    s, names, attrs, devrows = summary_of(out)
    assert attrs["device_note"] == ""
    assert {d.decode() for d in devrows["device"]} == {os.path.basename(dev)}
    w, r = row(s, names, "seq_write"), row(s, names, "seq_read")
    assert w["device_write_bytes"] == pytest.approx(64 << 20, rel=0.01)
    assert w["device_fraction"] == pytest.approx(1.0, rel=0.01)
    assert r["device_read_bytes"] == pytest.approx(64 << 20, rel=0.01)
    assert r["device_fraction"] == pytest.approx(1.0, rel=0.01)


def test_filter_count_and_its_control_read_through_the_same_buffers(loop_mount, tmp_path):
    """With O_DIRECT the block layer cuts each read into requests by the physical contiguity of
    the rank's buffer (on a loop device: at most 128 segments of up to 64 KiB, so 512 KiB to
    1280 KiB per request). scan-only and filter-count of one repetition read through the same
    pages, so the device must see exactly the same requests for both; separately mapped
    buffers give different counts."""
    dev, work = loop_mount
    out = tmp_path / "r.h5"
    run_sweep(
        1,
        dir=work,
        file_size="64MiB",
        seq_record="16MiB",
        phases="filter-count",
        direct=True,
        repetitions=4,
        output=out,
        check=0,
    )
    s, names, attrs, devrows = summary_of(out)
    assert attrs["device_note"] == ""
    ops = {}
    for r in s:
        d = devrows[devrows["point"] == r["point"]]
        assert len(d) == 1
        assert int(d["read_bytes"][0]) == pytest.approx(64 << 20, rel=0.01)
        ops[(int(r["repetition"]), int(r["phase"]))] = int(d["read_ops"][0])
    for rep in range(4):
        control, counted = ops[(rep, names["scan_only"])], ops[(rep, names["filter_count"])]
        assert control > 50 and control == counted, ops  # 64 MiB in requests of <= 1280 KiB
