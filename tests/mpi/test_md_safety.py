"""The metadata phases are as safe as the data files, through the real binary under mpiexec:
their trees spread over the folders of --dir as the data files are;
a stream folder swapped for a symbolic link while the run goes on is never followed (posix,
io_uring, and the openat2 resolution a rank falls back to when it may not hold a descriptor per
folder), the cleanup removes only what the run made and recorded and names what it left (a file
placed at an item's name, a file dropped into a tree or into the run's own folder), and a signal
in the middle of a create window leaves nothing behind.

The tests act while the run is stopped where they want it: they read the table's rows as the
run prints them, then stop its ranks (SIGSTOP) and look at what is on disk before changing it,
so nothing depends on how fast the machine is; a repetition that went by before the ranks
stopped is passed over for the next one."""
import os
import re
import resource
import shutil
import signal
import subprocess
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import h5py
import pytest
from iosweep_tools.results.hdf5 import text

from conftest import BIN, iosweep_argv, latest_run, mpi_env, mpiexec_argv, this_host

from test_metadata import uring_works

REPS = 40  # repetitions a test may pass over before its moment comes


@pytest.fixture
def workdir():
    """A folder on tmpfs (/dev/shm): thousands of items per repetition in milliseconds, and no
    cache drop of the machine (--cache keep) between them."""
    if not os.path.isdir("/dev/shm"):
        pytest.skip("no /dev/shm (tmpfs) here")
    d = Path(tempfile.mkdtemp(prefix="iosweep-md-safety-", dir="/dev/shm"))
    (d / "w").mkdir()
    yield d / "w"
    shutil.rmtree(d)


def start(n, args, limit_fds=None):
    """The run in the background (its own session), stdout and stderr piped."""

    def limits():
        if limit_fds:
            resource.setrlimit(resource.RLIMIT_NOFILE, (limit_fds, limit_fds))

    return subprocess.Popen(
        mpiexec_argv(n, args),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=mpi_env(),
        start_new_session=True,
        preexec_fn=limits,
    )


def rank_pids(work):
    out = subprocess.run(
        ["pgrep", "-f", f"^{BIN} run --dir {work}"], capture_output=True, text=True
    ).stdout
    return [int(p) for p in out.split()]


def ranks_of(p, work, n=1):
    """The pids of the run's `n` ranks, once they are started (polled: nothing is waited for
    blind)."""
    end = time.monotonic() + 120
    while time.monotonic() < end:
        pids = rank_pids(work)
        if len(pids) == n:
            return pids
        assert p.poll() is None, p.communicate()
        time.sleep(0.02)
    raise AssertionError("the ranks did not start")


@contextmanager
def stopped(pids):
    """The run's ranks stopped (SIGSTOP) for the body, then continued."""
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGCONT)


def rows_until(p, prefix):
    """Reads the run's table until a row starting with `prefix`; False when the run ended."""
    for line in p.stdout:
        if line.startswith(prefix + " "):
            return True
    return False


def the_set(work, rep):
    """The set folder of point 0, repetition `rep`, of the run's own metadata folder in `work`
    (a path that does not exist once the run removed it)."""
    return the_root(work) / f"p0r{rep}"


def the_root(work):
    """The run's own metadata folder in `work` (a path that does not exist once removed)."""
    roots = [n for n in os.listdir(work) if n.endswith(".md")] or ["gone.md"]
    return work / roots[0]


def finish(p):
    out, err = p.communicate(timeout=300)
    return p.returncode, out, err


def iosweep_lines(err):
    return [ln for ln in err.splitlines() if ln.startswith("iosweep:")]


def md_args(work, out, phases, reps=REPS, **options):
    return iosweep_argv(
        dir=work,
        output=out,
        phases=phases,
        repetitions=reps,
        cache="keep",
        md_write_bytes="1k",
        md_read_bytes="1k",
        **options,
    )


def swap_for_link(stream, victim):
    """Stream folder `stream` (the run's, holding its items) moved aside and replaced by a
    symbolic link to `victim`, which gets a precious file at every item's path still there:
    followed, the run would stat, read and unlink them. Returns the victim's files, or None when
    the stream folder held no item any more (the repetition went by)."""
    items = [q.relative_to(stream) for q in stream.rglob("f.*")]
    if not items:
        return None
    for name in items:
        (victim / name).parent.mkdir(parents=True, exist_ok=True)
        (victim / name).write_bytes(b"precious" * 128)  # as long as an item (1 KiB)
    stream.rename(stream.with_name(stream.name + ".moved"))
    stream.symlink_to(victim)
    return victims(victim)


def victims(victim):
    return {str(q.relative_to(victim)): q.read_bytes() for q in victim.rglob("*") if q.is_file()}


CASES = [
    pytest.param("posix", {}, None, id="posix"),
    pytest.param("uring", {"engine": "uring", "iodepth": 2}, None, id="uring"),
    # More folders than a rank may hold descriptors: each request resolves its folder with
    # openat2 (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), and the row says so.
    pytest.param("openat2", {"md_items_per_folder": 1, "md_depth": 1}, 200, id="openat2"),
]


@pytest.mark.parametrize("engine,options,limit_fds", CASES)
def test_a_stream_folder_swapped_for_a_link_is_never_followed(
    tmp_path, workdir, engine, options, limit_fds
):
    if engine == "uring" and not uring_works():
        pytest.skip("io_uring is not available here (kernel.io_uring_disabled or seccomp)")
    victim = workdir.parent / "victim"  # on tmpfs too: thousands of files in a moment
    victim.mkdir()
    out = tmp_path / "r.h5"
    items = 1500 if limit_fds else 2000
    args = md_args(workdir, out, "md-create,md-stat,md-read,md-remove", ranks=1, md_items=items)
    p = start(1, args + [f"--{k.replace('_', '-')}={v}" for k, v in options.items()], limit_fds)
    saved = None
    try:
        pids = ranks_of(p, workdir)
        for rep in range(REPS):
            if not rows_until(p, "md-create"):
                break
            with stopped(pids):
                stream = the_set(workdir, rep) / "t0.0"
                if stream.is_dir() and not stream.is_symlink():
                    saved = swap_for_link(stream, victim)
            if saved:
                break
        code, stdout, err = finish(p)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert saved, "no repetition was caught before its items were removed"
    assert victims(victim) == saved, "the link's target was touched"
    assert code == 1, stdout + err
    lines = iosweep_lines(err)
    assert len(lines) == 1, err
    m = re.match(rf"iosweep: rank 0 \(host {re.escape(this_host())}\): (.*)$", lines[0])
    assert m, lines[0]
    assert "/t0.0" in m.group(1) and re.search(r"\(errno \d+, E[A-Z]+\)", m.group(1)), lines[0]
    assert re.search(r"\(errno 40, ELOOP\)|a symbolic link", m.group(1)), lines[0]
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        assert text(g.attrs["status_message"]).startswith(lines[0][len("iosweep: ") :][:60])
        notes = [text(n) for n in g["summary"]["notes"]]
        resolved = ["openat2" in n for n in notes]
        assert all(resolved) if limit_fds else not any(resolved), notes


def test_a_file_at_an_items_name_is_left_and_named(tmp_path, workdir):
    """A file placed at the name of an item md-create has not reached yet: the create says File
    exists, and the cleanup leaves that file (it never removes what the run did not make),
    naming it and where."""
    out = tmp_path / "r.h5"
    args = md_args(workdir, out, "md-mkdir,md-create", ranks=1, md_items=3000)
    p = start(1, args)
    placed = None
    try:
        pids = ranks_of(p, workdir)
        for rep in range(REPS):
            if not rows_until(p, "md-mkdir"):
                break
            with stopped(pids):
                last = the_set(workdir, rep) / "t0.0" / "f.0.0.2999"
                if last.parent.is_dir() and not last.exists():  # md-create has not reached it
                    last.write_bytes(b"not the run's")
                    placed = last
            if placed:
                break
        code, stdout, err = finish(p)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert placed, "md-create went by before the ranks stopped, at every repetition"
    assert placed.read_bytes() == b"not the run's"
    assert code == 1, stdout + err
    (line,) = iosweep_lines(err)
    assert f"create of {placed} failed: File exists (errno 17, EEXIST)" in line
    assert f"left what this run did not make or could not remove: {placed.parent}" in line
    assert "(errno 39, ENOTEMPTY); holds what this run did not make: f.0.0.2999)" in line
    # Everything else the run made is gone: the stream folder holds the foreign file alone.
    assert os.listdir(placed.parent) == ["f.0.0.2999"]


@pytest.mark.parametrize("where", ["stream", "root"])
def test_a_file_dropped_into_the_runs_folders_is_left_and_the_run_says_so(tmp_path, workdir, where):
    """A file dropped into a stream folder, or into the run's own metadata folder, during the
    run: the cleanup leaves it and the run ends with status 1 saying what was left and where
    (it used to be removed with the rest, once with status 0 and no word)."""
    out = tmp_path / "r.h5"
    # The run's own folder stays from its first set to its end: a few repetitions are enough.
    reps = REPS if where == "stream" else 4
    p = start(1, md_args(workdir, out, "md-create,md-stat", reps, ranks=1, md_items=2000))
    stray = None
    try:
        pids = ranks_of(p, workdir)
        for rep in range(reps):
            if not rows_until(p, "md-create"):
                break
            with stopped(pids):
                folder = the_set(workdir, rep) / "t0.0" if where == "stream" else the_root(workdir)
                if folder.is_dir():
                    stray = folder / "stray"
                    stray.write_text("someone else's\n")
            if stray:
                break
        code, stdout, err = finish(p)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert stray, "no repetition was caught before its folder was removed"
    assert stray.read_text() == "someone else's\n"
    assert code == 1, stdout + err
    (line,) = iosweep_lines(err)
    assert f"rank 0 (host {this_host()}): left what this run did not make" in line
    assert f"{stray.parent} (Directory not empty (errno 39, ENOTEMPTY)" in line
    assert "holds what this run did not make: stray" in line
    # Only the stray file and the folders on its way are left.
    left = sorted(str(q.relative_to(workdir)) for q in workdir.rglob("*"))
    assert left == sorted(
        str(q.relative_to(workdir)) for q in [stray, *stray.parents] if workdir in q.parents
    )
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        assert g.attrs["status"] == 2 and "holds what this run did not make: stray" in text(
            g.attrs["status_message"]
        )


def test_sigterm_in_a_create_window_leaves_nothing(tmp_path, diskdir):
    """SIGTERM while md-create's window creates at depth: the watcher closes the set, waits for
    the window to stop, records and removes what it made; nothing the run made stays."""
    if not uring_works():
        pytest.skip("io_uring is not available here (kernel.io_uring_disabled or seccomp)")
    out = tmp_path / "r.h5"
    args = iosweep_argv(
        dir=diskdir,
        output=out,
        phases="md-create",
        engine="uring",
        iodepth=8,
        md_items=200000,
        md_fsync=True,
        repetitions=REPS,
    )
    p = subprocess.Popen(
        [BIN] + args,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=mpi_env(),
        start_new_session=True,
    )
    try:
        end = time.monotonic() + 120
        while time.monotonic() < end:  # items appear: the window is creating
            the = the_set(diskdir, 0)
            streams = list(the.iterdir()) if the.is_dir() else []
            if any(len(os.listdir(s)) > 50 for s in streams if s.is_dir()):
                break
            assert p.poll() is None, p.communicate()
            time.sleep(0.02)
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert p.returncode == 143, err
    assert os.listdir(diskdir) == [], err


def test_the_trees_take_the_folders_as_the_data_files_do(tmp_path, workdir):
    """--dir a,b: each rank's trees sit in its own folder (rank i of a node in folder i mod 2,
    as its data file), under that folder's own iosweep.<run-id>.md made by the lowest position
    using it; the shared layout keeps its one tree in the first folder, as --dry-run says; every
    row's ranks are claimed for the folder whose items they touched; nothing is left."""
    a, b = workdir / "a", workdir / "b"
    a.mkdir()
    b.mkdir()
    out = tmp_path / "r.h5"
    common = dict(dir=f"{a},{b}", output=out, cache="keep", ranks=3, md_items=800)
    dry = subprocess.run(
        mpiexec_argv(3, iosweep_argv(**common, phases="md", md_layout="shared", dry_run=True)),
        capture_output=True,
        text=True,
        env=mpi_env(),
        timeout=300,
    )
    assert f"files of the metadata phases: the one shared tree in the first folder, {a}/" in (
        dry.stdout
    ), (dry.stdout + dry.stderr)
    reps = 5  # the run goes to its end: a few chances to stop it with a set in place
    args = iosweep_argv(**common, phases="md-create,md-stat", repetitions=reps)  # --dir first
    p = start(3, args)
    seen = None
    try:
        pids = ranks_of(p, f"{a},{b}", 3)
        for rep in range(reps):
            if not rows_until(p, "md-create"):
                break
            with stopped(pids):
                sets = [the_set(d, rep) for d in (a, b)]
                if all(s.is_dir() for s in sets):
                    seen = [sorted(os.listdir(s)) for s in sets]
            if seen:
                break
        code, stdout, err = finish(p)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert code == 0, stdout + err
    assert seen == [["t0.0", "t2.0"], ["t1.0"]], seen
    assert os.listdir(a) == [] and os.listdir(b) == []
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        rk = g["ranks"][()]
        assert set(zip(rk["position"], rk["folder"])) >= {(0, 0), (1, 1), (2, 0)}
        for row in g["summary"][()]:
            mine = rk[rk["point"] == row["point"]]
            assert list(mine["folder"]) == [int(x) % 2 for x in mine["file"]]
