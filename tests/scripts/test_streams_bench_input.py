"""streams-curve and bench-vs-fio check all their own arguments, the ones they pass to iosweep and
fio included, before any folder or job is made: one line naming the argument, status 2, nothing
created. No row starts a job; the arguments a row does not change are the smallest a real run
would take. Ctrl-C in the middle of a real streams-curve run ends in one line and 130 with its
folder and its job gone."""
import os
import shutil
import signal
import subprocess
import time

import pytest

from iosweep_tools.core import files
from conftest import BIN, SOURCE_DIR, mpi_env
from refusals import MiB, beyond_free, expand, refused, traps

STREAMS = [
    "--dir",
    "{d}",
    "--bin",
    BIN,
    "--size",
    "1m",
    "--max",
    "4",
    "--ranks-max",
    "2",
    "--seconds",
    "0.1",
    "--no-direct",
]
BENCH = [
    "--dir",
    "{d}",
    "--bin",
    BIN,
    "--size",
    "32m",
    "--runtime",
    "1",
    "--pairs",
    "1",
    "--only",
    "randread 4k direct psync",
]

CASES = [
    # streams-curve: numbers
    ("streams-curve", "max-power-text", ["--max", "2^40"], "--max: '2^40' is not a whole number"),
    ("streams-curve", "max-absurd", ["--max", "1099511627776"], "--max: must be at most 8192"),
    ("streams-curve", "max-one", ["--max", "1"], "--max: must be at least 2 (found 1)"),
    ("streams-curve", "seconds-nan", ["--seconds", "nan"], "--seconds: 'nan' is not a positive"),
    ("streams-curve", "seconds-inf", ["--seconds", "inf"], "--seconds: 'inf' is not a positive"),
    ("streams-curve", "seconds-zero", ["--seconds", "0"], "--seconds: '0' is not a positive"),
    ("streams-curve", "seconds-negative", ["--seconds", "-1"], "--seconds: '-1' is not a"),
    ("streams-curve", "seconds-absurd", ["--seconds", "1e9"], "--seconds: must be at most 3600"),
    ("streams-curve", "repetitions-zero", ["--repetitions", "0"], "--repetitions: must be"),
    ("streams-curve", "repetitions-absurd", ["--repetitions", "1000"], "--repetitions: must be"),
    ("streams-curve", "rank-mib-zero", ["--rank-mib", "0"], "--rank-mib: must be at least 1"),
    ("streams-curve", "ranks-max-absurd", ["--ranks-max", "100000"], "--ranks-max: must be at"),
    ("streams-curve", "engine-without-streams", ["--engine", "posix"], "--engine: invalid choice"),
    # streams-curve: sizes through iosweep units
    ("streams-curve", "size-not-a-size", ["--size", "abc"], "--size: 'abc' is not a size"),
    ("streams-curve", "size-below-a-record", ["--size", "3000"], "--size: must be at least 4 KiB"),
    ("streams-curve", "size-not-whole-records", ["--size", "6k"], "--size: 6k is not a multiple"),
    ("streams-curve", "size-absurd", ["--size", "2t"], "--size: must be at most 1 TiB"),
    ("streams-curve", "alone-size-nan", ["--alone-size", "nan"], "--alone-size: 'nan' is not a"),
    ("streams-curve", "alone-size-zero", ["--alone-size", "0"], "--alone-size: must be at least"),
    # streams-curve: the results file it appends to
    ("streams-curve", "output-folder-missing", ["--output", "{tmp}/none/r.h5"], "--output: "),
    ("streams-curve", "output-in-proc", ["--output", "/proc/r.h5"], "--output: "),
    ("streams-curve", "output-dev-zero", ["--output", "/dev/zero"], "--output: "),
    ("streams-curve", "output-a-fifo", ["--output", "{tmp}/fifo.h5"], "--output: "),
    ("streams-curve", "output-a-folder", ["--output", "{tmp}/a-folder.h5"], "--output: "),
    ("streams-curve", "output-not-hdf5", ["--output", "{tmp}/notes.txt"], "--output: "),
    ("streams-curve", "output-truncated", ["--output", "{truncated}"], "--output: "),
    ("streams-curve", "output-run-index-floats", ["--output", "{run-index-of-floats}"], "--output"),
    ("streams-curve", "output-run-id-floats", ["--output", "{run-id-of-floats}"], "--output: "),
    ("streams-curve", "output-schema-array", ["--output", "{schema-an-array}"], "--output: "),
    # streams-curve: the image
    ("streams-curve", "image-extension-unknown", ["-o", "{out}/c.xyz"], "-o: "),
    ("streams-curve", "image-folder-missing", ["-o", "{tmp}/none/c.png"], "-o: "),
    ("streams-curve", "image-in-proc", ["-o", "/proc/c.png"], "-o: '/proc/c.png' is on proc"),
    ("streams-curve", "image-a-folder", ["-o", "{tmp}/a-folder.h5"], "-o: "),
    # bench-vs-fio
    ("bench-vs-fio", "runtime-nan", ["--runtime", "nan"], "--runtime: 'nan' is not a positive"),
    ("bench-vs-fio", "runtime-inf", ["--runtime", "inf"], "--runtime: 'inf' is not a positive"),
    ("bench-vs-fio", "runtime-zero", ["--runtime", "0"], "--runtime: '0' is not a positive"),
    ("bench-vs-fio", "runtime-below-a-second", ["--runtime", "0.5"], "--runtime: must be at"),
    ("bench-vs-fio", "runtime-absurd", ["--runtime", "1e6"], "--runtime: must be at most 3600"),
    ("bench-vs-fio", "pairs-zero", ["--pairs", "0"], "--pairs: must be at least 1 (found 0)"),
    ("bench-vs-fio", "pairs-absurd", ["--pairs", "1000"], "--pairs: must be at most 100"),
    ("bench-vs-fio", "pairs-float", ["--pairs", "1e3"], "--pairs: '1e3' is not a whole number"),
    ("bench-vs-fio", "target-nan", ["--target", "nan"], "--target: 'nan' is not a positive"),
    ("bench-vs-fio", "target-zero", ["--target", "0"], "--target: '0' is not a positive"),
    ("bench-vs-fio", "target-absurd", ["--target", "100"], "--target: must be at most 10"),
    ("bench-vs-fio", "only-selects-nothing", ["--only", "randwrote"], "--only: 'randwrote' sel"),
    ("bench-vs-fio", "only-empty-entry", ["--only", "randread,,read"], "--only: '' selects no"),
    ("bench-vs-fio", "size-below-two-records", ["--size", "16m"], "--size: must hold at least"),
    ("bench-vs-fio", "size-not-whole-records", ["--size", "40m"], "--size: 40m is not a mult"),
]
COMMON = [
    ("dir-missing", ["--dir", "{tmp}/none"], "--dir: "),
    ("dir-in-proc", ["--dir", "/proc/self"], "--dir: '/proc/self' is on proc"),
    ("dir-a-file", ["--dir", "{tmp}/notes.txt"], "--dir: "),
    ("bin-a-folder", ["--bin", "{tmp}"], "--bin: "),
    ("bin-prints-without-end", ["--bin", "/usr/bin/yes"], "--bin: /usr/bin/yes units: printed"),
    ("size-nan", ["--size", "nan"], "--size: 'nan' is not a size"),
    ("size-overflow", ["--size", "99999999999TiB"], "--size: "),
    ("size-with-newline", ["--size", "1m\nx"], "--size: '1m\\nx' contains white space"),
    ("unknown-option", ["--bogus"], "--bogus: "),
]
# Refused in one line with status 2 already before these checks (test_streams_scripts.py and
# test_common.py hold them): not rows here, where every row is refused only by them.
BEFORE = {
    "streams-curve": {"dir-missing", "dir-a-file"},
    "bench-vs-fio": {"dir-missing", "dir-a-file", "bin-a-folder", "size-nan", "size-overflow"}
    | {"size-with-newline"},
}
CASES += [
    (s, c, a, n)
    for s in ("streams-curve", "bench-vs-fio")
    for c, a, n in COMMON
    if c not in BEFORE[s]
]
BASE = {"streams-curve": STREAMS, "bench-vs-fio": BENCH}


@pytest.fixture(scope="module")
def where(tmp_path_factory):
    return traps(tmp_path_factory.mktemp("streams-bench"))


def run_row(where, script, args, name):
    if script == "bench-vs-fio" and shutil.which("fio") is None:
        pytest.skip("bench-vs-fio checks for fio first (scripts/install-deps installs it)")
    refused(script, expand(BASE[script] + args, where), name, [where["tmp"]], cwd=where["out"])


@pytest.mark.parametrize("script,case,args,name", CASES, ids=[f"{c[0]}:{c[1]}" for c in CASES])
def test_bad_arguments_are_refused_before_anything_is_made(where, script, case, args, name):
    run_row(where, script, args, name)


# (script, files of --size, the size's multiple): bench-vs-fio keeps its file and writes a fresh
# one beside it; streams-curve's 2 ranks x depth curve has two files.
SPACE = [("streams-curve", 2, 4096), ("bench-vs-fio", 2, 16 * MiB)]


@pytest.mark.parametrize("script,files,multiple", SPACE, ids=[s[0] for s in SPACE])
def test_files_beyond_the_free_space_are_refused_before_anything_is_made(
    where, script, files, multiple
):
    size = beyond_free(where["d"], files, multiple, 1 << 40)
    if size is None:
        pytest.skip(f"{where['d']} has more room than {files} files of 1 TiB")
    run_row(where, script, ["--size", size], "--size: ")


def test_ranks_beyond_the_memory_are_refused_before_anything_is_made(where):
    args = ["--max", "4096", "--ranks-max", "4096", "--rank-mib", "4096"]
    if files.mem_available() >= 4096 << 32:
        pytest.skip("this machine holds 4096 ranks of 4 GiB")
    run_row(where, "streams-curve", args, "--ranks-max: 4096 ranks need about")


def test_ctrl_c_stops_the_job_and_leaves_nothing(tmp_path):
    """SIGINT while the first job runs: one line, status 130, the run's folder removed and no
    process of the job left."""
    (tmp_path / "d").mkdir()
    cmd = [str(SOURCE_DIR / "scripts" / "streams-curve"), "--dir", str(tmp_path / "d")]
    cmd += ["--bin", BIN, "--size", "256m", "--max", "2", "--ranks-max", "2"]
    cmd += ["--seconds", "60", "--no-direct"]
    p = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=mpi_env()
    )
    deadline = time.monotonic() + 120
    files = []
    while not files and p.poll() is None and time.monotonic() < deadline:
        # The job is under way once its ranks have made their files in the run's folder.
        files = [f for d in (tmp_path / "d").glob("iosweep-streams.*") for f in d.glob("iosweep.*")]
        time.sleep(0.05)  # polling the folder for the files, not waiting for them to appear
    assert files and p.poll() is None, "the job never made its files"
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert "Traceback" not in out + err
    lines = err.splitlines()
    assert p.returncode == 130 and len(lines) == 1, err
    assert lines[0].startswith("streams-curve: interrupted (SIGINT)"), err
    assert list((tmp_path / "d").iterdir()) == []
    left = subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True, text=True)
    assert left.stdout == "", f"processes of the job are left: {left.stdout}"
    assert os.path.exists(BIN)
