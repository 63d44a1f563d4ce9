"""Faults during a run: the job ends non-zero with a message naming rank, host, file, offset and
errno, the run's files are removed, earlier runs in the results file stay intact, and this run
is marked aborted."""
import os
import re
import signal
import socket
import subprocess
import time

import h5py
from iosweep_tools.results import file as rfile
from iosweep_tools.results.hdf5 import text
import pytest

from conftest import (
    BIN,
    iosweep_argv,
    latest_run,
    mpi_env,
    mpiexec_argv,
    run_ids,
    run_iosweep,
    run_sweep,
    this_host,
)


def mounted_tmpfs(folder, size):
    """A tmpfs of `size` at `folder` (made here), unmounted by the caller; skips without root."""
    if os.geteuid() != 0:
        pytest.skip(f"mounting a {size} tmpfs needs root")
    folder.mkdir()
    if (
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)]
        ).returncode
        != 0
    ):
        pytest.skip("cannot mount tmpfs here")
    return folder


@pytest.fixture
def small_tmpfs(tmp_path):
    """Room for 24 MiB of data files: ENOSPC part way through a run."""
    d = mounted_tmpfs(tmp_path / "small", "24m")
    yield d
    subprocess.run(["umount", "-l", str(d)])


def test_enospc_in_the_middle_of_seq_write(small_tmpfs, tmp_path):
    out = tmp_path / "r.h5"
    # An earlier, complete run in the same results file.
    run_sweep(2, dir=small_tmpfs, file_size="4MiB", output=out, check=0)
    with h5py.File(out, "r") as f:
        (first,) = f["runs"].keys()
        first_summary = f["runs"][first]["summary"][()]
    # 2 ranks x 16 MiB do not fit in 24 MiB: one rank meets ENOSPC part way through its file.
    p = run_sweep(2, dir=small_tmpfs, file_size="16MiB", output=out, force=True)
    assert p.returncode == 1
    m = re.search(
        (
            r"iosweep: rank (\d) \(host ([^)]+)\): write of (\S+) at offset (\d+) failed: .*errno"
            r" 28, ENOSPC"
        ),
        p.stderr,
    )
    assert m, p.stderr
    assert m.group(2) == this_host()
    assert m.group(3).startswith(str(small_tmpfs) + "/iosweep.")
    assert 0 < int(m.group(4)) < 16 * 2**20
    assert os.listdir(small_tmpfs) == [], "the run's files must be removed"
    with h5py.File(out, "r") as f:
        runs = run_ids(f)
        assert len(runs) == 2 and runs[0] == first
        # Byte for byte (fields that were not measured are NaN, which never equals itself).
        assert f["runs"][first]["summary"][()].tobytes() == first_summary.tobytes()
        assert f["runs"][first].attrs["status"] == 1
        g = f["runs"][runs[1]]
        assert g.attrs["status"] == 2  # aborted
        assert "ENOSPC" in g.attrs["status_message"]
        assert f["run_index"][-1]["status"] == 2


def test_a_collective_write_that_fills_the_file_system_is_enospc_on_every_rank(
    small_tmpfs, tmp_path
):
    """OMPIO reports a full file system only on its own stderr and returns a short count from
    the collective write; every rank of the call must stop with ENOSPC, none may wait for the
    others in the next collective call."""
    out = tmp_path / "r.h5"
    p = run_sweep(
        2,
        dir=small_tmpfs,
        file_size="16MiB",
        file_layout="shared",
        engine="mpiio",
        mpiio_collective=True,
        ranks=2,
        phases="seq-write",
        force=True,
        output=out,
        timeout=120,
    )
    assert p.returncode == 1, p.stdout + p.stderr
    failed = re.findall(
        r"rank (\d) \(host [^)]+\): write of \S+ at offset \d+ failed: .*" r"\(errno 28, ENOSPC\)",
        p.stderr,
    )
    assert sorted(set(failed)) == ["0", "1"], p.stderr
    assert "ENODATA" not in p.stderr
    assert os.listdir(small_tmpfs) == [], "the run's files must be removed"


def test_data_files_and_metadata_items_that_fit_alone_but_not_together_are_refused(
    small_tmpfs, tmp_path
):
    """A point's data files and metadata items stay on disk together: 2 ranks x 8 MiB of data
    (16 MiB) fit 24 MiB, so do 2 x 1200 items of 4 KiB (~9.4 MiB); both do not, and the run is
    refused before anything is made. Each alone starts."""
    out = tmp_path / "r.h5"
    md = dict(md_items=1200, md_write_bytes=4096)
    p = run_sweep(
        2,
        dir=small_tmpfs,
        file_size="8MiB",
        phases="seq-write,md-create",
        output=out,
        check=None,
        **md,
    )
    said = [ln for ln in p.stderr.splitlines() if ln.startswith("iosweep:")]
    assert p.returncode == 2 and len(said) == 1, p.stderr
    assert said[0].startswith("iosweep: --file-size: the point of 2 rank(s) needs "), said
    assert "its data files and metadata items together" in said[0], said
    assert os.listdir(small_tmpfs) == [] and not out.exists()
    for phases in ("seq-write", "md-create"):
        dry = run_sweep(
            2, dir=small_tmpfs, file_size="8MiB", phases=phases, output=out, dry_run=True, **md
        )
        assert dry.returncode == 0, dry.stderr


@pytest.fixture
def thin_disk(tmp_path):
    """An ext4 on a loop device whose 256 MiB backing file lies sparse on a 24 MiB tmpfs (a thin
    volume promising more than it has): writes land in the page cache and fail only when they
    are written back, so the fsync fails after every write succeeded."""
    if os.geteuid() != 0:
        pytest.skip("a loop device needs root")
    base = mounted_tmpfs(tmp_path / "thin", "24m")
    mnt = tmp_path / "fs"
    mnt.mkdir()
    with open(base / "disk", "wb") as f:
        f.truncate(256 << 20)
    loop = subprocess.run(
        ["losetup", "-f", "--show", str(base / "disk")], capture_output=True, text=True
    )
    if loop.returncode != 0:
        subprocess.run(["umount", "-l", str(base)])
        pytest.skip("no loop device here")
    dev = loop.stdout.strip()
    try:
        lazy = "lazy_itable_init=1,lazy_journal_init=1"
        subprocess.run(["mkfs.ext4", "-q", "-E", lazy, dev], check=True)
        subprocess.run(["mount", dev, str(mnt)], check=True)
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)])
        subprocess.run(["losetup", "-d", dev])
        subprocess.run(["umount", "-l", str(base)])


@pytest.mark.parametrize("engine", ["posix", "mpiio"])
def test_an_fsync_error_says_what_was_written_not_an_offset(thin_disk, tmp_path, engine):
    p = run_sweep(
        2,
        dir=thin_disk,
        file_size="32MiB",
        phases="seq-write",
        fsync=True,
        ranks=2,
        engine=engine,
        output=tmp_path / "r.h5",
    )
    assert p.returncode == 1, p.stdout + p.stderr
    failed = re.findall(
        r"rank (\d) \(host [^)]+\): fsync of (\S+) failed: [^;]*\(errno \d+, \w+\); "
        r"33554432 bytes written since its open, none of them synced",
        p.stderr,
    )
    assert failed, p.stderr
    assert " at offset " not in p.stderr, "a call on the whole file has no offset to name"


# ------------------------------------------------------------------------- signals and kills

STARTED = []


@pytest.fixture(autouse=True)
def kill_leftovers():
    """Whatever a test started is gone after it, even when the test failed half way."""
    yield
    while STARTED:
        p = STARTED.pop()
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()


def start(args, n=2, env=None, mpirun=True):
    cmd = mpiexec_argv(n, args) if mpirun else [BIN] + args
    p = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=mpi_env(env),
        start_new_session=True,
    )
    STARTED.append(p)
    return p


def wait_for(condition, timeout=60.0, what="condition"):
    """Polls for a condition the test observes (files appearing, a rank's pid), never a fixed
    sleep."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = condition()
        if v:
            return v
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def rank_pids(marker):
    """Pids of the iosweep ranks whose command line contains `marker`."""
    out = subprocess.run(
        ["pgrep", "-f", f"^{BIN} run --dir {marker}"], capture_output=True, text=True
    ).stdout
    return [int(p) for p in out.split()]


def long_run_args(workdir, out):
    # A run that lasts well beyond the seconds mpirun waits before it passes a signal on: random
    # 4 KiB reads with O_DIRECT, many repetitions, each stopped after 30 s at the latest.
    return iosweep_argv(
        dir=workdir,
        file_size="256MiB",
        phases="rand-read",
        direct=True,
        stonewall="30s",
        repetitions=1000,
        ranks=2,
        output=out,
        seq_record=None,
    )


def in_timed_phase(workdir, n):
    return len([f for f in os.listdir(workdir) if f.startswith("iosweep.")]) == n


def many_points(workdir, out, ranks="1,2", n=2):
    """A run of many short points (seq-write of 1 MiB files), started in the background."""
    args = iosweep_argv(
        dir=workdir, file_size="1MiB", phases="seq-write", ranks=ranks, repetitions=2000, output=out
    )
    return start(args, n=n)


def points_in(out, runs, points):
    """A condition: the results file lists `runs` runs and the last has written `points` points."""

    def written():
        # As the scripts read it: under iosweep's read lock, never half way through an append
        # (but perhaps just created and not yet locked by the writer: empty).
        try:
            with rfile.open_results(out) as f:
                return len(f["run_index"]) == runs and f["run_index"][-1]["n_points"] >= points
        except (rfile.ResultsError, KeyError):
            return False

    return written


def earlier_run(workdir, out):
    run_sweep(
        1, dir=workdir, file_size="1MiB", phases="seq-write", output=out, label="earlier", check=0
    )


# (signal sent to mpirun, the signal its ranks get, mpirun's odls_base_sigkill_timeout): mpirun
# hands SIGTERM to its ranks for SIGINT and SIGTERM (after the timeout), and forwards SIGUSR1 at
# once, the clean stop README's "Stopping a large run cleanly" gives.
@pytest.mark.parametrize(
    "sig,name,grace_s",
    [(signal.SIGINT, "SIGTERM", 5), (signal.SIGTERM, "SIGTERM", 5), (signal.SIGUSR1, "SIGUSR1", 1)],
)
def test_signal_to_mpirun_marks_the_run_aborted_and_removes_its_files(
    diskdir, tmp_path, sig, name, grace_s
):
    out = tmp_path / "r.h5"
    earlier_run(diskdir, out)
    p = start(long_run_args(diskdir, out), env={"OMPI_MCA_odls_base_sigkill_timeout": str(grace_s)})
    wait_for(
        lambda: in_timed_phase(diskdir, 2) and len(rank_pids(diskdir)) == 2, what="the timed phase"
    )
    t0 = time.monotonic()
    p.send_signal(sig)
    _, err = p.communicate(timeout=60)
    assert time.monotonic() - t0 < 30
    # Open MPI 4.1's mpirun exits 1 whenever it is interrupted, whatever its ranks return.
    assert p.returncode != 0
    assert f"interrupted by {name}" in err
    assert os.listdir(diskdir) == []
    with h5py.File(out, "r") as f:
        ids = run_ids(f)
        assert len(ids) == 2
        assert f["runs"][ids[0]].attrs["status"] == 1
        g = f["runs"][ids[1]]
        assert g.attrs["status"] == 2 and "interrupted" in g.attrs["status_message"]
        assert f["run_index"][-1]["status"] == 2


@pytest.mark.parametrize(
    "sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGUSR1, 138)]
)
def test_signal_to_iosweep_itself_exits_128_plus_signal(diskdir, tmp_path, sig, code):
    out = tmp_path / "r.h5"
    args = long_run_args(diskdir, out)
    args[args.index("--ranks") + 1] = "1"
    p = start(args, mpirun=False)

    def started():
        if p.poll() is not None:
            raise AssertionError(f"iosweep ended early ({p.returncode}): {p.communicate()[1]}")
        return in_timed_phase(diskdir, 1)

    wait_for(started, what="the timed phase")
    p.send_signal(sig)
    _, err = p.communicate(timeout=60)
    assert p.returncode == code, err
    assert os.listdir(diskdir) == []
    with h5py.File(out, "r") as f:
        assert latest_run(f).attrs["status"] == 2


def test_a_rank_killed_mid_phase_ends_the_job_and_keeps_earlier_runs(diskdir, tmp_path):
    out = tmp_path / "r.h5"
    earlier_run(diskdir, out)
    # mpirun's default grace (1 s) between its SIGTERM and SIGKILL, for rank 0 to mark the run.
    p = start(long_run_args(diskdir, out), env={"OMPI_MCA_odls_base_sigkill_timeout": "1"})
    pids = wait_for(lambda: in_timed_phase(diskdir, 2) and rank_pids(diskdir), what="the ranks")
    t0 = time.monotonic()
    killed = max(pids)  # rank 1: rank 0, started first, has the lower pid and marks the run
    os.kill(killed, signal.SIGKILL)
    p.communicate(timeout=60)
    assert p.returncode != 0
    assert time.monotonic() - t0 < 30, "mpirun must end the job in bounded time"
    wait_for(lambda: not rank_pids(diskdir), timeout=30, what="every rank to be gone")
    with h5py.File(out, "r") as f:
        ids = run_ids(f)
        assert (
            f["runs"][ids[0]].attrs["label"] == "earlier" and f["runs"][ids[0]].attrs["status"] == 1
        )
        # The run says a rank was lost, not only that mpirun's follow-up SIGTERM arrived.
        g = f["runs"][ids[1]]
        why = g.attrs["status_message"]
        assert g.attrs["status"] == 2 and "a rank was lost: rank 1 " in why, why
        assert f"pid {killed})" in why and "SIGTERM" in why, why
    # The killed rank could not clean up: its leftover is a file of that run only.
    assert all(n.startswith("iosweep.") for n in os.listdir(diskdir))


# Who stops rank 0 after rank 1 ended on SIGTERM through its cleanup: mpirun, which ends the job
# once a rank has ended (SIGTERM odls_base_sigkill_timeout seconds later), or the sender that
# stopped rank 1 (the test), as a launcher that signals every rank at once does when one rank
# is quicker than rank 0. Only in the first is rank 1's signal a cause of its own.
@pytest.mark.parametrize(
    "rank0_by,grace_s,named",
    [("mpirun", "1", True), ("the same sender", "20", False)],
)
def test_a_rank_stopped_first_is_named_and_one_stopped_with_rank_0_is_not(
    diskdir, tmp_path, rank0_by, grace_s, named
):
    out = tmp_path / "r.h5"
    p = start(long_run_args(diskdir, out), env={"OMPI_MCA_odls_base_sigkill_timeout": grace_s})
    pids = wait_for(lambda: in_timed_phase(diskdir, 2) and rank_pids(diskdir), what="the ranks")
    rank0, rank1 = min(pids), max(pids)  # rank 0, started first, has the lower pid
    os.kill(rank1, signal.SIGTERM)
    # Gone and reaped: nothing of it is left for rank 0 to see alive.
    wait_for(lambda: not os.path.exists(f"/proc/{rank1}"), what="rank 1 to end")
    if rank0_by != "mpirun":
        os.kill(rank0, signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    with h5py.File(out, "r") as f:
        why = latest_run(f).attrs["status_message"]
        assert latest_run(f).attrs["status"] == 2, why
    first = f"interrupted: rank 1 (host {socket.gethostname()}, pid {rank1}) on SIGTERM ended "
    if named:
        assert why.startswith(first) and why.endswith("stopped the job with SIGTERM"), why
    else:
        assert why == "interrupted by SIGTERM", why
    assert why in err


def test_writer_killed_between_points_leaves_a_readable_file(tmp_path, workdir):
    out = tmp_path / "r.h5"
    earlier_run(workdir, out)
    # Many short points; kill rank 0 (the writer) once some points are in the file.
    p = many_points(workdir, out)
    wait_for(points_in(out, 2, 3), what="points in the results file")
    rank0 = min(wait_for(lambda: rank_pids(workdir), what="the ranks"))
    os.kill(rank0, signal.SIGKILL)
    p.communicate(timeout=60)
    assert p.returncode != 0
    wait_for(lambda: not rank_pids(workdir), timeout=30, what="every rank to be gone")
    with h5py.File(out, "r") as f:
        ids = run_ids(f)
        assert len(ids) == 2 and f["runs"][ids[0]].attrs["status"] == 1
        assert len(f["runs"][ids[1]]["summary"]) >= 3
    h = subprocess.run(["h5dump", "-H", str(out)], capture_output=True, text=True)
    assert h.returncode == 0 and "run_index" in h.stdout, h.stderr


def test_a_killed_writer_is_marked_interrupted_by_the_next_run(tmp_path, workdir):
    out = tmp_path / "r.h5"
    earlier_run(workdir, out)
    p = many_points(workdir, out)
    wait_for(points_in(out, 2, 2), what="points in the results file")
    os.killpg(p.pid, signal.SIGKILL)  # launcher and ranks at once: nobody can mark the run
    p.communicate(timeout=60)
    wait_for(lambda: not rank_pids(workdir), timeout=30, what="every rank to be gone")
    with h5py.File(out, "r") as f:
        killed = run_ids(f)[1]
        assert f["runs"][killed].attrs["status"] == 0  # still `running`: nothing could tell
        pid = int(f["runs"][killed].attrs["writer_pid"])
    earlier_run(workdir, out)  # the next run that opens the file decides
    with h5py.File(out, "r") as f:
        g = f["runs"][killed]
        assert g.attrs["status"] == 3  # interrupted
        assert (
            str(pid) in g.attrs["status_message"]
            and "ended without finishing" in g.attrs["status_message"]
        )
        row = [r for r in f["run_index"] if r["run_id"].decode() == killed][0]
        assert row["status"] == 3
        assert (
            f["runs"][run_ids(f)[0]].attrs["status"] == 1
            and f["runs"][run_ids(f)[2]].attrs["status"] == 1
        )


def test_a_running_writer_is_never_marked_interrupted(tmp_path, workdir):
    out = tmp_path / "r.h5"
    p = many_points(workdir, out, ranks="1", n=1)
    wait_for(points_in(out, 1, 2), what="a run in progress")
    other = workdir / "other"
    other.mkdir()
    earlier_run(other, out)  # appends beside the live run
    with rfile.open_results(out) as f:  # the live run appends between our reads
        assert f["run_index"][0]["status"] == 0
    p.send_signal(signal.SIGTERM)
    p.communicate(timeout=60)


@pytest.mark.parametrize("timeout", ["1"])
def test_sigterm_with_mpiruns_default_grace_marks_the_run_aborted(diskdir, tmp_path, timeout):
    """mpirun passes SIGTERM on and sends SIGKILL odls_base_sigkill_timeout seconds later (1 by
    default): rank 0 marks the run first, then the ranks remove their files."""
    out = tmp_path / "r.h5"
    earlier_run(diskdir, out)
    p = start(long_run_args(diskdir, out), env={"OMPI_MCA_odls_base_sigkill_timeout": timeout})
    wait_for(
        lambda: in_timed_phase(diskdir, 2) and len(rank_pids(diskdir)) == 2, what="the timed phase"
    )
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    assert "interrupted by SIGTERM" in err and "marked aborted" in err
    with h5py.File(out, "r") as f:
        g = f["runs"][run_ids(f)[-1]]
        assert g.attrs["status"] == 2 and g.attrs["t_end_unix_ns"] > 0
        assert g.attrs["status_message"] == "interrupted by SIGTERM"


@pytest.fixture
def tiny_tmpfs(tmp_path):
    """Room for a results file of about 1 MiB beside the 2 MiB iosweep keeps free."""
    d = mounted_tmpfs(tmp_path / "tiny", "3584k")
    yield d
    subprocess.run(["umount", "-l", str(d)])


def test_results_disk_filling_up_stops_the_run_cleanly(tiny_tmpfs, tmp_path, workdir):
    out = tiny_tmpfs / "r.h5"
    earlier_run(workdir, out)
    with h5py.File(out, "r") as f:
        first = run_ids(f)[0]
        before = f["runs"][first]["summary"][()].tobytes()
    p = run_sweep(
        1,
        dir=workdir,
        file_size="64KiB",
        seq_record="64KiB",
        phases="seq-write",
        repetitions=400,
        output=out,
    )
    assert p.returncode == 1, p.stderr
    assert "Segmentation" not in p.stderr and "signal" not in p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("iosweep:")]
    assert len(lines) == 1 and "free" in lines[0] and str(out) in lines[0], p.stderr
    with h5py.File(out, "r") as f:
        ids = run_ids(f)
        assert f["runs"][first]["summary"][()].tobytes() == before
        assert f["runs"][first].attrs["status"] == 1
        assert f["runs"][ids[1]].attrs["status"] == 2  # aborted, and says why
        assert "free" in f["runs"][ids[1]].attrs["status_message"]


def test_results_file_removed_during_a_run_is_not_recreated(tmp_path, workdir):
    out = tmp_path / "r.h5"
    p = many_points(workdir, out, ranks="1", n=1)
    wait_for(points_in(out, 1, 2), what="points in the results file")
    os.unlink(out)
    _, err = p.communicate(timeout=60)
    assert p.returncode != 0
    lines = [ln for ln in err.splitlines() if ln.startswith("iosweep:")]
    assert len(lines) == 1 and "removed during the run" in lines[0], err
    assert not out.exists(), "a results file removed during a run must not be recreated"
    earlier_run(workdir, out)  # and a later run starts a proper file there
    with h5py.File(out, "r") as f:
        assert f.attrs["schema"] == "iosweep.results" and len(run_ids(f)) == 1


# ------------------------------------------------------------------- every lock wait ends

_FLOCK = "hhxxxxqqixxxx"  # struct flock on Linux x86-64 and aarch64 (the Python package's)


def hold_lock(path, exclusive):
    """A descriptor of `path` holding iosweep's OFD lock, as a run (exclusive) or a reader
    (shared) that was stopped while it held it would; closing it releases the lock."""
    import fcntl
    import struct

    fd = os.open(path, os.O_RDWR)
    kind = fcntl.F_WRLCK if exclusive else fcntl.F_RDLCK
    fcntl.fcntl(fd, fcntl.F_OFD_SETLK, struct.pack(_FLOCK, kind, os.SEEK_SET, 0, 0, 0))
    return fd


def appending_run(out, work):
    return iosweep_argv(dir=work, file_size="1MiB", phases="seq-write", output=out)


LOCK_CASES = [
    # (id, who holds the lock, the command, its exit status, what its one line says)
    ("show-behind-a-writer", True, lambda out, work: ["show", out], 2, "show:"),
    (
        "rerun-behind-a-writer",
        True,
        lambda out, work: iosweep_argv(rerun=out, dir=work, file_size="1MiB"),
        2,
        "--rerun:",
    ),
    ("run-check-behind-a-writer", True, appending_run, 2, "--output:"),
    # The run's checks only read (shared, granted); its first append waits for the reader.
    ("run-append-behind-a-reader", False, appending_run, 1, "starting the results"),
]


@pytest.mark.parametrize("case", LOCK_CASES, ids=[c[0] for c in LOCK_CASES])
def test_every_lock_wait_ends_with_one_line_naming_the_holder(tmp_path, workdir, case):
    _, exclusive, argv, status, says = case
    out = tmp_path / "r.h5"
    earlier_run(workdir, out)
    before = out.read_bytes()
    fd = hold_lock(out, exclusive)
    try:
        t0 = time.monotonic()
        p = run_iosweep(1, argv(out, workdir), timeout=60, env={"IOSWEEP_LOCK_WAIT_S": "1"})
        waited = time.monotonic() - t0
    finally:
        os.close(fd)
    assert p.returncode == status, p.stdout + p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("iosweep:")]
    assert len(lines) == 1, p.stderr
    assert says in lines[0] and str(out) in lines[0], lines[0]
    # The holder is named: this test's own process, which holds the lock.
    assert f"pid {os.getpid()} (" in lines[0] and "waited 1 s" in lines[0], lines[0]
    assert waited < 30
    assert out.read_bytes() == before, "a run that could not get the lock wrote nothing"
    assert os.listdir(workdir) == []


# --------------------------------------------------------------- a closed standard output


def test_a_closed_standard_output_ends_the_run_through_its_cleanup(tmp_path, workdir):
    """`iosweep run ... | head` without mpirun: when the table's reader goes, the run ends as
    SIGPIPE would end it, but through its cleanup: files removed, the run marked aborted."""
    out = tmp_path / "r.h5"
    args = iosweep_argv(
        dir=workdir, file_size="1MiB", phases="seq-write", repetitions=2000, output=out, quiet=False
    )
    p = start(args, n=1, mpirun=False)
    assert p.stdout.readline().startswith("iosweep run ")  # the banner: the run is under way
    wait_for(points_in(out, 1, 1), what="a point in the results file")
    p.stdout.close()
    err = p.stderr.read()
    p.wait(timeout=60)
    assert p.returncode == 128 + signal.SIGPIPE, err
    assert "SIGPIPE (the standard output was closed)" in err
    assert os.listdir(workdir) == []
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        assert g.attrs["status"] == 2 and "SIGPIPE" in g.attrs["status_message"]


# ------------------------------------------------------- counters that vanish during a run


def ip(*args):
    return subprocess.run(["ip", *args], capture_output=True, text=True)


@pytest.fixture
def veth():
    """A veth pair of this test's own (its first end is the interface the run samples), removed
    afterwards whatever it was renamed to; skips without root or veth."""
    if os.geteuid() != 0:
        pytest.skip("making a network interface needs root")
    a, b, c = (f"iosw{os.getpid() % 100000}{x}" for x in "abc")
    if ip("link", "add", a, "type", "veth", "peer", "name", b).returncode != 0:
        pytest.skip("this kernel makes no veth interfaces")
    yield a, b, c
    for name in (a, c):
        ip("link", "del", name)


def wire_rows(out):
    """(summary notes, wire_fraction, wire table notes) of the latest run, read as scripts do."""
    try:
        with rfile.open_results(out) as f:
            g = latest_run(f)
            s, w = g["summary"][()], g["wire"][()]
            notes = [text(n) for n in s["notes"]]
            return notes, list(s["wire_fraction"]), [text(n) for n in w["note"]]
    except (rfile.ResultsError, KeyError):
        return [], [], []


VANISH_CASES = [
    # (id, what is done to the sampled interface, what the rows then say)
    ("deleted", lambda a, b, c: ip("link", "del", a), "was gone"),
    (
        "renamed",
        lambda a, b, c: (ip("link", "set", a, "down"), ip("link", "set", a, "name", c)),
        "was gone",
    ),
    # An interface replaced by another of its name, or counters that went back, inside one
    # window: the unit suite (Counters.*) holds wire_delta and device_delta to them.
]


@pytest.mark.parametrize("case", VANISH_CASES, ids=[c[0] for c in VANISH_CASES])
def test_a_vanished_interface_is_never_a_measured_zero(tmp_path, workdir, veth, case):
    _, act, says = case
    a, b, c = veth
    out = tmp_path / "r.h5"
    args = iosweep_argv(
        dir=workdir, file_size="1MiB", phases="seq-write", repetitions=2000, output=out
    )
    p = start(args + ["--wire-interface", a], n=1, mpirun=False)
    wait_for(points_in(out, 1, 2), what="points sampled on the interface")
    first = len(wire_rows(out)[0])

    def said():
        notes, fractions, table = wire_rows(out)
        hit = [i for i, n in enumerate(notes[first:], first) if says in n]
        return hit and (notes, fractions, table, hit[0])

    act(a, b, c)
    notes, fractions, table, i = wait_for(said, what=f"a row saying '{says}'")
    p.terminate()
    p.communicate(timeout=60)
    assert all(n == "" for n in table[:first]) and not any(
        "wire not measured" in n for n in notes[:first]
    )
    assert f"wire not measured: node 0: interface {a} " in notes[i], notes[i]
    assert fractions[i] != fractions[i]  # NaN, never 0
    assert says in table[i]
    assert os.listdir(workdir) == []
