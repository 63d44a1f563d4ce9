"""iosweep_tools' floor and results base: the launch environment of iosweep-env.sh as bash and
Python see it (core.launch), names decoded from the enum types of a real results file (and of
phases and engines the commands have never heard of: results.names), sizes through `iosweep
units` (core.units), the one-line errors, the results file's lock (results.file), and the block
device holding a folder (the root file system's, iosweep's own answer, partitions and
device-mapper devices: core.devices)."""
import fcntl
import os
import re
import shutil
import struct
import subprocess
import time

import h5py
import numpy as np
import pytest

from iosweep_tools.core import devices
from iosweep_tools.core import launch
from iosweep_tools.core import units
from iosweep_tools.results import file as rfile
from iosweep_tools.results import frames
from iosweep_tools.results import hdf5
from iosweep_tools.results import names
from conftest import BIN, SOURCE_DIR, latest_run, make_results, run_ids, run_iosweep

SCRIPTS = SOURCE_DIR / "scripts"
BASH_OWN = {"PWD", "OLDPWD", "SHLVL", "_"}  # what bash itself puts in the environment


# ------------------------------------------------------------------- launch environment


def bash_added(base, runner=()):
    """What sourcing iosweep-env.sh in bash adds to or changes in `base`. Under a `runner` that
    switches user, the file's text comes through stdin (its folder may be closed to that user)."""
    source = 'eval "$(cat)"' if runner else '. "$0"'
    p = subprocess.run(
        [*runner, "bash", "-c", f"set -euo pipefail; {source}; env -0", str(launch.ENV_FILE)],
        input=launch.ENV_FILE.read_text(),
        capture_output=True,
        text=True,
        env=base,
    )
    assert p.returncode == 0, p.stderr
    after = dict(kv.split("=", 1) for kv in p.stdout.split("\0") if kv)
    return {k: v for k, v in after.items() if base.get(k) != v and k not in BASH_OWN}


def python_added(base, euid=None):
    return {k: v for k, v in launch.launch_env(base, euid).items() if base.get(k) != v}


def clean_base():
    names = {name for name, _, _ in launch.env_settings()}
    return {k: v for k, v in os.environ.items() if k not in names}


def test_the_env_file_sets_something_for_everyone_and_for_root():
    settings = launch.env_settings()
    assert any(not root_only for _, _, root_only in settings)
    assert any(root_only for _, _, root_only in settings)
    root, user = launch.launch_vars(euid=0), launch.launch_vars(euid=1000)
    for name, value, root_only in settings:
        assert root[name] == value
        assert (name in user) == (not root_only)


def test_bash_and_python_read_the_same_environment():
    base = clean_base()
    added = python_added(base)
    assert added == launch.launch_vars() and added
    assert bash_added(base) == added


def test_a_value_the_caller_set_is_kept_by_both():
    name, value, _ = next(s for s in launch.env_settings() if not s[2])
    base = dict(clean_base(), **{name: value + "0"})
    assert launch.launch_env(base)[name] == value + "0"
    assert name not in bash_added(base) and name not in python_added(base)


def test_as_another_user_root_lines_do_not_apply_in_bash_or_python():
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("switching to another user needs root and setpriv (util-linux)")
    base = clean_base()
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    added = python_added(base, euid=65534)
    assert added == launch.launch_vars(euid=65534)
    assert bash_added(base, nobody) == added


def test_the_launch_environment_is_defined_in_one_file():
    names = [name for name, _, _ in launch.env_settings()]
    others = [
        p
        for p in list(SCRIPTS.rglob("*"))
        + list((SOURCE_DIR / "python").rglob("*.py"))
        + list((SOURCE_DIR / "tests").rglob("*.py"))
        if p.is_file() and p.resolve() != launch.ENV_FILE and "__pycache__" not in p.parts
    ]
    assert others
    for p in others:
        text = p.read_text(errors="replace")
        for name in names:
            assert name not in text, f"{p} sets {name} itself: take it from scripts/iosweep-env.sh"


def test_a_line_of_another_form_is_refused(tmp_path):
    bad = tmp_path / "env.sh"
    bad.write_text(launch.ENV_FILE.read_text() + "export SOMETHING=1\n")
    with pytest.raises(
        ValueError, match=r"line \d+: expected 'iosweep_env NAME VALUE'.*export SOMETHING=1"
    ):
        launch.env_settings(bad)


# -------------------------------------------------------------------- names and decoding


@pytest.fixture(scope="module")
def run_file(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("common")
    work = tmp / "w"
    work.mkdir()
    out = tmp / "r.h5"
    p = run_iosweep(
        2,
        [
            "run",
            "--dir",
            work,
            "--file-size",
            "2MiB",
            "--seq-record",
            "1MiB",
            "--output",
            out,
            "--label",
            "names",
        ],
        check=0,
    )
    return out, p.stdout


def table_phases(stdout):
    """(phase, ranks) of every row of the table iosweep printed, phase names as printed."""
    return [
        (m.group(1), int(m.group(2)))
        for m in re.finditer(r"^([a-z]+(?:-[a-z]+)+) +(\d+) +\d+ +\d+ +[\d.]+ ", stdout, flags=re.M)
    ]


def test_phase_names_decode_the_rows_as_iosweep_printed_them(run_file):
    out, stdout = run_file
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        members = names.phases(g)
        assert names.phases(f) == members == names.phases(out)
        assert list(members.values()) == sorted(members.values())
        name = names.by_value(members)
        s = g["summary"][()]
        decoded = [(name[v].replace("_", "-"), int(k)) for v, k in zip(s["phase"], s["ranks"])]
    printed = table_phases(stdout)
    # Control phases (scan-only) are stored but printed only with --show-controls.
    shown = [(p, k) for p, k in decoded if p != "scan-only"]
    assert len(printed) == 10 and shown == printed
    _, summary = frames.load(out)
    loaded = [(p.replace("_", "-"), k) for p, k in zip(summary["phase_name"], summary["ranks"])]
    assert loaded == decoded


def test_documented_enums_are_the_ones_in_the_file(run_file):
    out, _ = run_file
    doc = (SOURCE_DIR / "results" / "README.md").read_text()
    documented = {
        kind: dict((n, int(v)) for n, v in re.findall(r"(\w+)=(\d+)", members))
        for kind, members in re.findall(r"(phase|engine|status)\s+`((?:\w+=\d+\s?)+)`", doc)
    }
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        assert names.phases(f) == documented["phase"]
        assert names.engines(f) == documented["engine"]
        assert names.enum_members(f["run_index"].dtype, "status") == documented["status"]
        assert names.enum_members(g.attrs.get_id("status").dtype) == documented["status"]


def test_engine_and_status_names_match_what_iosweep_wrote_as_text(run_file):
    out, stdout = run_file
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        engine = names.by_value(names.engines(g))
        assert {engine[v] for v in g["summary"]["engine"]} == {g.attrs["engine_name"]}
        assert engine[int(g.attrs["engine"])] == g.attrs["engine_name"]
        assert f"engine {g.attrs['engine_name']} " in stdout
        assert names.status_of(g) == "complete"
        status = names.by_value(names.enum_members(f["run_index"].dtype, "status"))
        assert status[f["run_index"][-1]["status"]] == "complete"
        raw = f["run_index"]["run_id"][-1]
        assert isinstance(raw, bytes) and hdf5.text(raw) == run_ids(f)[-1] == g.name.split("/")[-1]
        assert hdf5.text("already text") == "already text"
    runs, summary = frames.load(out)
    assert list(runs["status_name"]) == ["complete"]
    assert set(summary["engine_name"]) == {"posix"}


def with_added_members(src, dst):
    """A copy of the results file whose last run's phase and engine enums carry one member more
    each, used by the last summary row: what a newer iosweep writes when it gains a phase."""
    shutil.copy(src, dst)
    with h5py.File(dst, "r+") as f:
        g = latest_run(f)
        old = g["summary"]
        dt, data, attrs = old.dtype, old[()], dict(old.attrs)
        formats = {}
        for field, name in (("phase", "added_phase"), ("engine", "added_engine")):
            members = names.enum_members(dt, field)
            members[name] = max(members.values()) + 1
            formats[field] = h5py.enum_dtype(members, basetype=np.dtype(dt[field].str))
        new = np.dtype(
            {
                "names": list(dt.names),
                "offsets": [dt.fields[n][1] for n in dt.names],
                "formats": [formats.get(n, dt[n]) for n in dt.names],
                "itemsize": dt.itemsize,
            }
        )
        data = data.view(new)
        data["phase"][-1] = max(names.enum_members(new, "phase").values())
        data["engine"][-1] = max(names.enum_members(new, "engine").values())
        del g["summary"]
        ds = g.create_dataset("summary", data=data, maxshape=(None,), chunks=True)
        for k, v in attrs.items():
            ds.attrs[k] = v


def test_a_phase_or_engine_added_to_iosweep_reaches_the_scripts_unedited(run_file, tmp_path):
    newer = tmp_path / "newer.h5"
    with_added_members(run_file[0], newer)
    assert list(names.phases(newer))[-1] == "added_phase"
    assert list(names.engines(newer))[-1] == "added_engine"
    # Its name: the enum name with '_' made '-', as iosweep names its phases (a newer iosweep
    # also records its row in the phase table, whose name the scripts would take).
    _, summary = frames.load(newer)
    assert summary["phase_name"].iloc[-1] == "added-phase"
    assert summary["engine_name"].iloc[-1] == "added_engine"
    assert "added-phase" not in set(summary["phase_name"].iloc[:-1])
    p = subprocess.run([str(SCRIPTS / "iosweep-load"), str(newer)], capture_output=True, text=True)
    assert p.returncode == 0 and "added-phase" in p.stdout, p.stderr
    p = subprocess.run(
        [str(SCRIPTS / "iosweep-plot"), str(newer), "-o", str(tmp_path / "p.png")],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0 and (tmp_path / "p.png").stat().st_size > 0, p.stderr
    p = subprocess.run(
        [str(SCRIPTS / "iosweep-compare"), str(newer)], capture_output=True, text=True
    )
    assert p.returncode == 0, p.stderr


# ----------------------------------------------------------------- reading under the lock


def writer_lock(path):
    """An exclusive OFD lock on `path` as iosweep's writer takes it around an append: the open
    descriptor, or None when a reader holds the file."""
    fd = os.open(path, os.O_RDWR)
    try:
        fcntl.fcntl(fd, fcntl.F_OFD_SETLK, struct.pack(rfile._FLOCK, fcntl.F_WRLCK, 0, 0, 0, 0))
        return fd
    except BlockingIOError:
        os.close(fd)
        return None


def test_an_open_results_file_keeps_writers_out_until_it_is_closed(run_file):
    with rfile.open_results(run_file[0]) as f:
        assert len(f["run_index"]) >= 1
        assert writer_lock(run_file[0]) is None, "a run could append while the file is read"
        with rfile.open_results(run_file[0]) as g:  # readers share the lock
            assert len(g["run_index"]) == len(f["run_index"])
    fd = writer_lock(run_file[0])
    assert fd is not None, "closing the file must release the lock"
    os.close(fd)


def test_a_file_a_writer_holds_is_refused_in_one_line_after_the_wait(run_file):
    fd = writer_lock(run_file[0])
    try:
        with pytest.raises(rfile.ResultsError, match="locked by a run writing to it; waited 0.2 s"):
            rfile.open_results(run_file[0], lock_wait_s=0.2)
    finally:
        os.close(fd)
    with rfile.open_results(run_file[0]) as f:  # and is read once the writer is done
        assert len(f["run_index"]) >= 1


def test_the_scripts_read_the_schema_version_the_binary_writes(run_file):
    """One rule for every reader: the scripts read the versions the binary reads (1 to its
    kSchemaVersion), the version a real run's file carries among them."""
    header = (SOURCE_DIR / "src" / "model" / "schema.hpp").read_text()
    assert int(re.search(r"kSchemaVersion = (\d+);", header).group(1)) == rfile.SCHEMA_VERSION
    with h5py.File(run_file[0], "r") as f:
        assert f.attrs["schema_version"] == rfile.SCHEMA_VERSION
    assert rfile.version_problem(rfile.SCHEMA_VERSION) == ""
    for v in (None, 0, -1, rfile.SCHEMA_VERSION + 1, 1.0, "1", True):
        assert rfile.version_problem(v), v


def test_a_locked_file_is_waited_for_once_and_for_the_time_said(run_file, tmp_path, monkeypatch):
    """iosweep-compare with A or B held by a writer: one wait of IOSWEEP_LOCK_WAIT_S (the
    variable the binary reads) per file, the figure it waited in the line, and B never taken for
    another tool's output (it waited twice and said half of it, or called B 'expected IOzone or
    IOR output'). In this process, so that the time is the wait's and not Python's start."""
    from iosweep_tools.compare import cli

    locked = tmp_path / "locked.h5"
    shutil.copy(run_file[0], locked)
    monkeypatch.setenv("IOSWEEP_LOCK_WAIT_S", "1")
    assert rfile.lock_wait_seconds() == 1.0
    fd = writer_lock(locked)
    try:
        for side, argv in (("A", [locked, run_file[0]]), ("B", [run_file[0], locked])):
            t0 = time.monotonic()
            p = subprocess_free(cli.main, [str(a) for a in argv])
            took = time.monotonic() - t0
            assert p == (2, f"{side}: '{locked}' is locked by a run writing to it; waited 1 s"), p
            assert 1.0 <= took < 1.9, f"{side}: {took:.2f} s for one wait of 1 s"
    finally:
        os.close(fd)
    for bad in ("0", "-1", "nan", "inf", "soon"):  # as the binary: the default, 60 s
        monkeypatch.setenv("IOSWEEP_LOCK_WAIT_S", bad)
        assert rfile.lock_wait_seconds() == 60.0


def subprocess_free(main, argv):
    """(status, the start of the one line) of a command's main run in this process."""
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(argv)
    line = err.getvalue().split(": ", 1)[1].split(" (IOSWEEP_LOCK_WAIT_S)")[0]
    return status, line


# ------------------------------------------------------------------------------- sizes


def test_units_gives_the_binarys_byte_counts():
    assert units.units(BIN, "4k", "16MiB", "1g", "4KiB", "512") == [
        4096,
        16 << 20,
        1 << 30,
        4096,
        512,
    ]


def test_units_refuses_a_bad_size_with_the_binarys_message_and_status_2():
    direct = subprocess.run(
        [BIN, "units", "bogus"], capture_output=True, text=True, env=launch.launch_env()
    )
    assert direct.returncode == 2
    (line,) = direct.stderr.strip().splitlines()
    assert line.startswith("iosweep: units: ")
    with pytest.raises(units.UnitsError) as e:
        units.units(BIN, "4k", "bogus")
    assert e.value.status == 2
    assert str(e.value) == line.removeprefix("iosweep: units: ") and "'bogus'" in str(e.value)


def test_units_reports_a_binary_it_cannot_run(tmp_path):
    with pytest.raises(units.UnitsError) as e:
        units.units(tmp_path / "no-iosweep", "4k")
    assert e.value.status is None and str(tmp_path / "no-iosweep") in str(e.value)


def test_bench_vs_fio_names_size_and_stops_before_touching_anything(tmp_path):
    if shutil.which("fio") is None:
        pytest.skip("bench-vs-fio checks for fio first (scripts/install-deps installs it)")
    p = subprocess.run(
        [str(SCRIPTS / "bench-vs-fio"), "--bin", BIN, "--dir", str(tmp_path), "--size", "12q"],
        capture_output=True,
        text=True,
    )
    direct = subprocess.run(
        [BIN, "units", "12q"], capture_output=True, text=True, env=launch.launch_env()
    )
    assert p.returncode == 2
    assert (
        p.stderr
        == "bench-vs-fio: --size: " + direct.stderr.strip().removeprefix("iosweep: units: ") + "\n"
    )
    assert list(tmp_path.iterdir()) == []


# ----------------------------------------------------------------------- one-line errors


@pytest.mark.parametrize(
    "script,args,says",
    [
        ("make-threadlist", ["--slots", "0", "n1"], "--slots: must be at least 1"),
        ("iosweep-compare", ["RESULTS", "--run", "nope"], "--run: nope is not in"),
        ("iosweep-plot", ["RESULTS", "--run", "nope"], "--run: nope is not in"),
        (
            "filter-efficiency",
            ["--bin", "/nonexistent/iosweep"],
            "--bin: /nonexistent/iosweep is not an executable",
        ),
    ],
)
def test_scripts_stop_with_one_line_naming_the_option_and_status_2(run_file, script, args, says):
    args = [str(run_file[0]) if a == "RESULTS" else a for a in args]
    p = subprocess.run([str(SCRIPTS / script), *args], capture_output=True, text=True)
    assert p.returncode == 2
    assert len(p.stderr.splitlines()) == 1 and p.stderr.startswith(f"{script}: {says}"), p.stderr


# ----------------------------------------------------------------------- block devices


def test_the_root_file_systems_device_is_resolved_as_sys_describes_it():
    if not os.path.isdir("/sys/dev/block"):
        pytest.skip("/sys/dev/block is not available here (no sysfs): nothing to resolve against")
    st = os.stat("/")
    dev = devices.block_device("/")
    if os.major(st.st_dev) == 0:  # overlay, tmpfs ... in a container
        assert not dev and "has no block device" in dev.why and dev.sample() is None
        pytest.skip(f"the root file system has no block device here: {dev.why}")
    assert dev, dev.why
    sys_dir = os.path.realpath(f"/sys/dev/block/{os.major(st.st_dev)}:{os.minor(st.st_dev)}")
    if os.path.exists(os.path.join(sys_dir, "partition")):
        sys_dir = os.path.dirname(sys_dir)
    assert dev.stat_path == os.path.join(sys_dir, "stat")
    assert dev.name.split(" ")[0] == os.path.basename(sys_dir)
    first = dev.sample()
    assert set(first) == {"read_bytes", "write_bytes", "read_ops", "write_ops"}
    assert all(isinstance(v, int) and v >= 0 for v in first.values())
    second = dev.sample()
    assert all(second[k] >= first[k] for k in first)  # counters since boot only grow


def test_the_device_is_the_one_iosweep_found_for_the_same_folder(workdir, tmp_path):
    out = tmp_path / "r.h5"
    make_results(1, workdir, out, "1MiB", "1MiB", "--phases", "seq-write")
    dev = devices.block_device(workdir)
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        names = {hdf5.text(x) for x in g["device"]["device"]}
        note = hdf5.text(g.attrs["device_note"])
    if dev:
        assert names == {dev.name} and note == ""
    else:
        assert note and dev.why, (note, dev.why)


def fake_sysfs(root):
    """A /sys with a disk and its partition (8:0, 8:1), a device-mapper device (253:0) and a
    device without counters (7:9)."""
    sys_dir = root / "sys"
    (sys_dir / "dev" / "block").mkdir(parents=True)
    disk = sys_dir / "devices" / "pci0" / "block" / "sda"
    (disk / "sda1").mkdir(parents=True)
    (disk / "stat").write_text("  100 0 800 0 50 0 400 0 0 0 0\n")
    (disk / "sda1" / "partition").write_text("1\n")
    (disk / "sda1" / "stat").write_text("1 0 8 0 1 0 8 0 0 0 0\n")
    dm = sys_dir / "devices" / "virtual" / "block" / "dm-0"
    (dm / "dm").mkdir(parents=True)
    (dm / "dm" / "name").write_text("vg-root\n")
    (dm / "stat").write_text("3 0 16 0 2 0 24 0 0 0 0\n")
    bare = sys_dir / "devices" / "virtual" / "block" / "loop9"
    bare.mkdir(parents=True)
    for link, target in (("8:0", disk), ("8:1", disk / "sda1"), ("253:0", dm), ("7:9", bare)):
        os.symlink(
            os.path.relpath(target, sys_dir / "dev" / "block"), sys_dir / "dev" / "block" / link
        )
    return sys_dir


def test_a_partition_counts_as_its_disk_and_device_mapper_as_itself(tmp_path):
    sys_dir = fake_sysfs(tmp_path)
    part = devices.block_device("/data", sysfs=sys_dir, dev=(8, 1))
    assert part.name == "sda" and part.stat_path.endswith("/block/sda/stat")
    assert part.sample() == {
        "read_ops": 100,
        "read_bytes": 800 * 512,
        "write_ops": 50,
        "write_bytes": 400 * 512,
    }
    assert devices.block_device("/data", sysfs=sys_dir, dev=(8, 0)).stat_path == part.stat_path
    dm = devices.block_device("/", sysfs=sys_dir, dev=(253, 0))
    assert dm.name == "dm-0 (vg-root)" and dm.sample()["write_bytes"] == 24 * 512
    missing = devices.block_device("/x", sysfs=sys_dir, dev=(9, 9))
    assert not missing and "device 9:9 of /x is not in" in missing.why
    bare = devices.block_device("/x", sysfs=sys_dir, dev=(7, 9))
    assert not bare and bare.why.endswith("/loop9/stat does not exist")
    anonymous = devices.block_device("/dev/shm", sysfs=sys_dir, dev=(0, 27))
    assert not anonymous and "which has no block device (device 0:27)" in anonymous.why
