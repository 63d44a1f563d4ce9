"""Engines and cache control under mpiexec: all five phases with io_uring (depth 8, O_DIRECT) and
with MPI-IO; --read-shift moves every read to another rank's file; --direct refuses records
that break the O_DIRECT alignment."""
import math

import h5py
import numpy as np
import pytest

from conftest import dir_listing, iosweep_argv, latest_run, mpi_env, mpiexec_argv, run_sweep
from iosweep_tools.results.names import by_value, engines, phases


def check_run(out, n_points, engine):
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        s = g["summary"][()]
        assert len(s) == len(g.attrs["phases"].split(",")) * n_points
        assert all(s["engine"] == engines(g)[engine])
        assert all(s["bytes"] > 0)
        fc = s[s["phase"] == phases(g)["filter_count"]]
        assert all(fc["matches"] == fc["expected_matches"]) and all(fc["matches"] > 0)
        return g.attrs["engine_detail"], dict(g.attrs)


def test_uring_depth8_direct_all_phases(diskdir, tmp_path):
    out = tmp_path / "r.h5"
    p = run_sweep(
        2,
        dir=diskdir,
        file_size="8MiB",
        engine="uring",
        iodepth=8,
        direct=True,
        verify=True,
        filter_every=4096,
        output=out,
    )
    if p.returncode == 2 and "io_uring is not available" in p.stderr:
        pytest.skip("io_uring refused here: " + p.stderr.strip().splitlines()[0])
    assert p.returncode == 0, p.stderr
    detail, attrs = check_run(out, 2, "uring")
    assert "registered files" in detail
    assert attrs["iodepth"] == 8 and attrs["direct"] == 1
    assert "uring" in attrs["engines_compiled"]
    with h5py.File(out, "r") as f:
        assert all(latest_run(f)["summary"]["bad_blocks"] == 0)
    assert dir_listing(diskdir) == []


def test_mpiio_all_phases_with_hints(tmp_path, workdir):
    out = tmp_path / "r.h5"
    run_sweep(
        2,
        dir=workdir,
        file_size="8MiB",
        engine="mpiio",
        iodepth=4,
        mpiio_hint="romio_cb_write=disable",
        verify=True,
        output=out,
        check=0,
    )
    detail, attrs = check_run(out, 2, "mpiio")
    assert attrs["mpiio_hints"] == "romio_cb_write=disable"
    assert "romio_cb_write=disable" in detail
    assert dir_listing(workdir) == []


@pytest.mark.parametrize("shift", ["1", "auto"])
def test_read_shift_reads_another_ranks_file(tmp_path, workdir, shift):
    out = tmp_path / "r.h5"
    p = run_sweep(
        4,
        dir=workdir,
        file_size="4MiB",
        ranks=4,
        read_shift=shift,
        verify=True,
        output=out,
        check=0,
    )
    if shift == "auto":  # one node: no shift moves reads to another node, and iosweep says so
        assert "warning: --read-shift auto" in p.stderr
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        assert g.attrs["read_shift_auto"] == (1 if shift == "auto" else 0)
        s, r = g["summary"][()], g["ranks"][()]
        name = by_value(phases(g))
        for point, phase in enumerate(s["phase"]):
            rows = r[r["point"] == point]
            assert len(rows) == 4
            if name[phase] in ("seq_write", "rand_write"):
                assert all(rows["file"] == rows["position"])
            else:
                assert all(rows["file"] == (rows["position"] + 1) % 4), name[phase]
        assert all(s["bad_blocks"] == 0)


def test_direct_record_must_follow_the_alignment(diskdir, tmp_path):
    p = run_sweep(
        2,
        dir=diskdir,
        file_size="8MiB",
        rand_record="6k",
        direct=True,
        output=tmp_path / "r.h5",
        quiet=False,
    )
    assert p.returncode == 2
    line = [ln for ln in p.stderr.splitlines() if ln.startswith("iosweep:")]
    assert len(line) == 1 and "--rand-record" in line[0] and "O_DIRECT alignment" in line[0]
    assert dir_listing(diskdir) == [] and not (tmp_path / "r.h5").exists()


SECCOMP_LAUNCH = """
import os, sys, errno, seccomp
f = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
f.add_rule(seccomp.ERRNO(errno.EPERM), "io_uring_setup")
f.load()
os.execvpe(sys.argv[1], sys.argv[1:], os.environ)
"""


def test_uring_refused_by_seccomp_is_one_clear_line(tmp_path, workdir):
    try:
        import seccomp  # noqa: F401  (Debian's python3-seccomp)
    except ImportError:
        pytest.skip("python3-seccomp is not installed")
    import subprocess
    import sys

    args = iosweep_argv(
        dir=workdir, file_size="4MiB", engine="uring", output=tmp_path / "r.h5", quiet=False
    )
    cmd = [sys.executable, "-c", SECCOMP_LAUNCH] + mpiexec_argv(2, args)
    p = subprocess.run(cmd, capture_output=True, text=True, env=mpi_env(), timeout=120)
    assert p.returncode == 2, p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("iosweep:")]
    assert (
        len(lines) == 1 and "--engine uring" in lines[0] and "--engine posix" in lines[0]
    ), p.stderr
    assert dir_listing(workdir) == [] and not (tmp_path / "r.h5").exists()


@pytest.mark.parametrize(
    "engine,depth,layout",
    [
        ("posix", 1, "per-rank"),
        ("uring", 4, "per-rank"),
        ("mpiio", 4, "per-rank"),
        ("mpiio", 4, "shared"),
        ("null", 4, "per-rank"),
        ("mpiio", 1, "collective"),
    ],
)
def test_every_row_records_the_depth_its_engine_ran(workdir, tmp_path, engine, depth, layout):
    """A row says what ran: the iodepth of every read/write row is the depth of the engine that
    phase was built with (engine_detail.<phase> of the run), for every engine and layout; and
    every row, whatever its engine, records its ranks' CPU in the window (user and system per
    operation, the busy fraction of each rank's window)."""
    out = tmp_path / "r.h5"
    extra = {"per-rank": [], "shared": ["--file-layout", "shared"]}.get(
        layout, ["--file-layout", "shared", "--mpiio-collective"]
    )
    run_sweep(
        2,
        *extra,
        dir=workdir,
        file_size="4MiB",
        ranks=2,
        engine=engine,
        iodepth=depth,
        phases="seq-write,seq-read,rand-read",
        output=out,
        check=0,
    )
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        s, names = g["summary"][()], by_value(phases(g))
        ranks = g["ranks"][()]
        for row in s:
            name = names[int(row["phase"])]
            mine = ranks[ranks["point"] == row["point"]]
            busy = (mine["cpu_user_s"] + mine["cpu_sys_s"]) / mine["elapsed_s"]
            told = mine["elapsed_s"] >= 1e-3  # a shorter window tells no CPU share (NaN)
            if told.any():
                want = busy[told].max()
                assert row["busy_fraction_max"] == pytest.approx(want) and want > 0, name
            else:  # the null engine's 4 MiB: windows of microseconds
                assert math.isnan(row["busy_fraction_max"]), name
            assert np.isnan(mine["busy_fraction"][~told]).all(), name
            assert row["cpu_user_ns_per_op"] + row["cpu_sys_ns_per_op"] > 0, name
            built = g.attrs[f"engine_detail.{name}"]
            assert built.split(" ")[0].startswith(engine) and f" depth {depth}:" in built, built
            assert row["iodepth"] == depth and row["streams"] == 2 * depth, (name, built)
            # The stored detail says what the engine did, never two things at once.
            if layout == "collective":
                assert "read_at_all/write_at_all" in built and "MPI_COMM_SELF" not in built, built
            elif engine == "mpiio":
                assert "MPI_COMM_SELF" in built and "collective" not in built, built


def test_a_depth_beyond_the_records_takes_buffers_for_the_records_only(workdir, tmp_path):
    """--iodepth 4096 on a 4 MiB file of 1 MiB records: every phase keeps at most its records in
    flight, so the run is quick and small; the rows say how many were in flight."""
    out = tmp_path / "r.h5"
    p = run_sweep(
        1,
        dir=workdir,
        file_size="4MiB",
        engine="uring",
        iodepth=4096,
        output=out,
        check=0,
        timeout=60,
    )
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        s, names = g["summary"][()], by_value(phases(g))
        records = {"seq_write": 4, "seq_read": 4, "rand_write": 1024, "rand_read": 1024}
        for row in s:
            name = names[int(row["phase"])]
            if name in records:
                assert row["iodepth"] == records[name], name
                assert f"depth {records[name]}:" in g.attrs[f"engine_detail.{name}"]
            # The row's streams are what ran (1 rank x its depth), its notes say why not 4096.
            assert row["streams"] == row["iodepth"]
            if row["iodepth"] < 4096:
                assert f"depth {row['iodepth']}, not 4096" in row["notes"].decode(), name
        assert list(g.attrs["point_iodepths"]) == [4096]  # what the point asked
        # Buffers for the records only: far below 4096 records of 1 MiB per phase.
        assert max(s["private_max_bytes"]) < 256 * 2**20, max(s["private_max_bytes"])
    assert "filter-count" in p.stdout


@pytest.mark.parametrize(
    "case",
    [
        # (id, --dir length in bytes, OMPI_MCA_sharedfp, exit status)
        ("long-dir-sharedfp-left-to-iosweep", 200, None, 0),
        ("at-lockedfile-limit", 190, "lockedfile", 0),
        ("beyond-lockedfile-limit", 191, "lockedfile", 2),
    ],
    ids=lambda c: c[0],
)
def test_mpiio_with_a_long_dir(tmp_path, case):
    """Open MPI's sharedfp lockedfile writes FILE.locktest.RANK into a 256-byte buffer (abort:
    buffer overflow detected) and leaves files beside FILE: iosweep keeps it out unless the user
    selects it, and then refuses a --dir whose file names would not fit, in one line."""
    _, length, sharedfp, status = case
    d = tmp_path / "d"
    d = d.parent / ("d" * (length - len(str(tmp_path)) - 1))
    d.mkdir()
    assert len(str(d)) == length
    out = tmp_path / "r.h5"
    env = {"OMPI_MCA_sharedfp": sharedfp} if sharedfp else {}
    p = run_sweep(
        2,
        dir=d,
        file_size="1MiB",
        engine="mpiio",
        phases="seq-write,seq-read",
        ranks=2,
        output=out,
        env=env,
    )
    assert p.returncode == status, p.stdout + p.stderr
    assert "buffer overflow detected" not in p.stderr
    if status == 2:
        lines = [ln for ln in p.stderr.splitlines() if ln.startswith("iosweep:")]
        assert len(lines) == 1 and lines[0].startswith("iosweep: --dir: 191 bytes"), p.stderr
        assert "at most 237" in lines[0] and "(a --dir of 190 bytes)" in lines[0], lines[0]
        assert not out.exists()
    else:
        with h5py.File(out, "r") as f:
            assert latest_run(f).attrs["status"] == 1
    if sharedfp is None:
        assert dir_listing(d) == [], "nothing of Open MPI's shared file pointers beside the files"
