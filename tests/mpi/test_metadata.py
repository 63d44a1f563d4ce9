"""The metadata phases through the real binary under mpiexec: every phase on posix, io_uring at
depth and the null engine, both layouts, exact operation counts against what the options ask,
the headline as every rank's operations over the slowest window, the same latency and time-series
tables as the data phases, notes on every row, nothing left behind; a stonewalled create whose
later phases touch exactly the items it made; a file system that runs out of inodes mid-create."""
import os
import subprocess

import h5py
import pytest
from iosweep_tools.core.devices import fs_type
from iosweep_tools.results.hdf5 import text
from iosweep_tools.results.names import by_value, engines, phases, status_of

from conftest import latest_run, run_sweep, this_host

MD = ["md-mkdir", "md-create", "md-stat", "md-read", "md-remove", "md-rmdir"]


def md_run(n, work, out, check=0, phases="md", **options):
    """The metadata phases (all six unless `phases` says) on `n` ranks in `work`."""
    return run_sweep(n, dir=work, output=out, phases=phases, check=check, **options)


def summary_by_phase(run):
    """{(phase name, ranks, iodepth): summary row} of a run group (names from the file's enum)."""
    names = by_value(phases(run))
    return {
        (names[int(r["phase"])].replace("_", "-"), int(r["ranks"]), int(r["iodepth"])): r
        for r in run["summary"][()]
    }


def md_console_rows(stdout):
    """The table's metadata rows (the Peak & Sustained table's are indented)."""
    return [ln for ln in stdout.splitlines() if ln.startswith(tuple(m + " " for m in MD))]


def check_every_row(run, rows, items_per_rank, folders_per_rank, item_bytes):
    """The counts each phase must reach exactly, its rate's definition, the same tables as the
    data phases (latency histogram, merged time series) and its figures' units."""
    s = run["summary"]
    assert s.attrs["iops.unit"] == "ops/s" and s.attrs["rank_iops_min.unit"] == "ops/s"
    series = run["timeseries"][()]
    counts = run["latency/counts"][()]
    for (phase, k, _), r in rows.items():
        want = folders_per_rank * k if phase in ("md-mkdir", "md-rmdir") else items_per_rank * k
        assert r["ops"] == want, (phase, k, r["ops"], want)
        assert r["md_items"] == items_per_rank * k
        assert r["stonewalled"] == 0
        assert r["iops"] == pytest.approx(r["ops"] / r["wall_s"])
        assert r["rank_iops_min"] <= r["rank_iops_mean"] <= r["rank_iops_max"]
        assert 0 < r["lat_p50_ns"] <= r["lat_p99_ns"] <= r["lat_max_ns"] * 1.02
        merged = series[(series["point"] == r["point"]) & (series["rank"] == -1)]
        assert merged["ops"].sum() == r["ops"]
        assert counts[r["point"]].sum() == r["ops"]
        moved = item_bytes * want if phase in ("md-create", "md-read") else 0
        assert r["bytes"] == moved, phase


def test_posix_every_phase_private_trees(workdir, tmp_path):
    out = tmp_path / "r.h5"
    p = md_run(
        2,
        workdir,
        out,
        sweep="1:2",
        md_items=24,
        md_items_per_folder=4,
        md_depth=1,
        md_write_bytes="4k",
        md_read_bytes="4k",
        md_fsync=True,
    )
    assert os.listdir(workdir) == [], "the run removes every folder and item it made"
    with h5py.File(out, "r") as f:
        run = latest_run(f)
        rows = summary_by_phase(run)
        assert {phase for phase, _, _ in rows} == set(MD)
        assert {k for _, k, _ in rows} == {1, 2}
        # 24 items at 4 per folder: 6 leaves below each stream's top folder, 7 folders.
        check_every_row(run, rows, 24, 7, 4096)
        assert all(r["md_branch"] == 6 for r in rows.values())
        assert all(r["md_folders"] == 7 * k for (_, k, _), r in rows.items())
        # One node: each rank stats and reads its own items (--read-shift 0).
        ranks = run["ranks"][()]
        stat = rows[("md-stat", 2, 1)]
        mine = ranks[ranks["point"] == stat["point"]]
        assert list(mine["file"]) == list(mine["position"])
        assert run.attrs["md_items"] == 24 and run.attrs["md_layout"] == "private"
        table = text(run.attrs["phase_table"])
        assert 'md_stat = {id = 9, name = "md-stat", record = "none"' in table
    lines = md_console_rows(p.stdout)
    assert len(lines) == 12
    assert "ops/s = every rank's operations / the slowest rank's window" in p.stdout
    for ln in lines:  # never a blank note: what the storage counted, per operation
        assert "B/op" in ln or "unverified" in ln, ln
    assert "Peak & Sustained" in p.stdout and "md-create" in p.stdout.split("Peak & Sustained")[1]


def uring_works():
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        params = ctypes.create_string_buffer(120)
        fd = libc.syscall(425, 4, params)  # io_uring_setup
        if fd >= 0:
            os.close(fd)
            return True
    except OSError:
        pass
    return False


def test_uring_at_depth_in_one_shared_tree(workdir, tmp_path):
    if not uring_works():
        pytest.skip("io_uring is not available here (kernel.io_uring_disabled or seccomp)")
    out = tmp_path / "r.h5"
    # 2 ranks at depth 1, then at depth 4: every request its own stream, one tree for all.
    md_run(
        2,
        workdir,
        out,
        engine="uring",
        streams="2,8",
        md_layout="shared",
        md_items=30,
        md_depth=1,
        md_branch=3,
        md_write_bytes=3901,
        md_read_bytes=3901,
    )
    assert os.listdir(workdir) == []
    with h5py.File(out, "r") as f:
        run = latest_run(f)
        rows = summary_by_phase(run)
        assert {d for _, _, d in rows} == {1, 4}
        for (phase, k, depth), r in rows.items():
            assert r["streams"] == k * depth
            if phase in ("md-mkdir", "md-rmdir"):  # the shared tree, made by position 0 alone
                assert r["ops"] == 4 and r["md_folders"] == 4
            else:
                assert r["ops"] == 60
        engine_of = by_value(engines(run))
        assert {engine_of[int(e)] for e in run["summary"]["engine"]} == {"uring"}
        assert "linked openat" in text(run.attrs["engine_detail.md_create"])


def test_null_engine_counts_its_own_cost(workdir, tmp_path):
    """Operations counted exactly, nothing made; every row says `no I/O` and nothing of caches
    or devices (what they counted in the window was someone else's), and the header of a run of
    metadata phases alone says no file size per rank."""
    out = tmp_path / "r.h5"
    p = md_run(2, workdir, out, engine="null", iodepth=4, md_items=50)
    assert os.listdir(workdir) == []
    header = p.stdout[: p.stdout.index("placement")]
    assert " per rank in " not in header and "; metadata phases in " in header, header
    assert "records: seq" not in header and "cache: dropped before md-stat and md-read" in header
    with h5py.File(out, "r") as f:
        run = latest_run(f)
        rows = summary_by_phase(run)
        assert len(rows) == 6 * 2
        for (phase, k, depth), r in rows.items():
            assert depth == 4
            assert r["ops"] == (4 * k if phase in ("md-mkdir", "md-rmdir") else 50 * k)
            assert text(r["notes"]).endswith("no I/O (engine null)"), (phase, r["notes"])
            for word in ("unflushed", "cached", "B/op", "dropped", "kept", "unverified"):
                assert word not in text(r["notes"]), (phase, r["notes"])
    for line in md_console_rows(p.stdout):
        assert line.endswith("no I/O (engine null)"), line


def test_stonewalled_create_sets_what_the_later_phases_touch(tmp_path):
    """Creates that fsync every item on a disk stop at the stonewall; md-stat and md-read touch
    exactly the items each rank made (another rank's), md-remove its own, and with the wear-out
    every rank goes on to the furthest count first. The directory is empty afterwards."""
    work = tmp_path / "disk"
    work.mkdir()
    if fs_type(work) in ("tmpfs", "ramfs"):
        pytest.skip(f"{work} is on tmpfs: fsync costs nothing there, no stonewall would stop")
    for wearout in (False, True):
        out = tmp_path / f"r{int(wearout)}.h5"
        md_run(
            2,
            work,
            out,
            phases="md-create,md-stat,md-read,md-remove",
            ranks=2,
            read_shift=1,
            md_items=20000,
            md_fsync=True,
            md_write_bytes="4k",
            md_read_bytes="4k",
            stonewall="0.05s",
            stonewall_wearout=wearout,
            cache="keep",
        )
        assert os.listdir(work) == []
        with h5py.File(out, "r") as f:
            run = latest_run(f)
            rows = summary_by_phase(run)
            ranks = run["ranks"][()]

            def per_position(phase):
                pts = ranks[ranks["point"] == rows[(phase, 2, 1)]["point"]]
                return {int(r["position"]): r for r in pts}

            create = per_position("md-create")
            assert rows[("md-create", 2, 1)]["stonewalled"] == 1
            made = {p: int(r["ops"]) + int(r["wearout_ops"]) for p, r in create.items()}
            assert all(0 < m < 20000 for m in made.values())
            if wearout:
                assert len(set(made.values())) == 1, made
            checked = 0
            for phase in ("md-stat", "md-read"):
                for p, r in per_position(phase).items():
                    assert r["file"] == (p + 1) % 2  # the other rank's items
                    if not r["stonewalled"]:
                        assert r["ops"] == made[r["file"]], (phase, p)
                        checked += 1
            for p, r in per_position("md-remove").items():
                if not r["stonewalled"]:
                    assert r["ops"] == made[p]
                    checked += 1
            assert checked > 0, "every later phase was stonewalled: nothing was compared"


@pytest.fixture
def few_inodes(tmp_path):
    """A tmpfs with room for 300 inodes: a create runs out of them part way through."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs with nr_inodes needs root")
    d = tmp_path / "inodes"
    d.mkdir()
    opts = "size=16m,nr_inodes=300"
    if subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(d)]).returncode != 0:
        pytest.skip("cannot mount tmpfs here")
    yield d
    subprocess.run(["umount", "-l", str(d)])


def test_a_file_system_out_of_inodes_mid_create(few_inodes, tmp_path):
    out = tmp_path / "r.h5"
    # 1 rank: 150 items fit; 2 ranks: 2 x 150 do not. --force: past the check of free inodes.
    p = md_run(
        2,
        few_inodes,
        out,
        phases="md-create,md-stat",
        sweep="1:2",
        md_items=150,
        force=True,
        check=1,
    )
    err = [ln for ln in p.stderr.splitlines() if "failed" in ln]
    assert err, p.stderr
    assert f"(host {this_host()})" in p.stderr
    assert "create of " + str(few_inodes) in p.stderr and "(errno 28, ENOSPC)" in p.stderr
    assert any(ln.startswith("rank ") or "rank " in ln for ln in err)
    assert os.listdir(few_inodes) == [], "the run removes what it made, even when it fails"
    with h5py.File(out, "r") as f:
        run = latest_run(f)
        assert status_of(run) == "aborted"
        rows = summary_by_phase(run)
        assert rows[("md-create", 1, 1)]["ops"] == 150  # the earlier point, intact
        assert rows[("md-stat", 1, 1)]["ops"] == 150
