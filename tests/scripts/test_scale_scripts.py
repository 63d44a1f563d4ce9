"""scripts/scale-check and scripts/isolation-check at their smallest, for real: the figures they
print come from the job and its results file, nothing is left on disk, and bad input is one
line with exit status 2."""
import re
import subprocess

import pytest

from conftest import BIN, SOURCE_DIR
from iosweep_tools.core.launch import can_emulate

SCALE = str(SOURCE_DIR / "scripts" / "scale-check")
ISO = str(SOURCE_DIR / "scripts" / "isolation-check")


def test_scale_check_reports_wall_memory_and_overhead(tmp_path):
    out = tmp_path / "r.h5"
    p = subprocess.run(
        [SCALE, "--ranks", "4", "--size", "1m", "--dir", str(tmp_path), "--output", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    text = p.stdout
    assert "4 ranks (one machine), sweep 1:4, 1m per rank, 3 points" in text
    wall = float(re.search(r"wall time of the whole job: ([0-9.]+) s", text).group(1))
    assert wall > 0
    idle = re.search(
        r"held alone while idle, per rank: median ([0-9.]+) MiB, max ([0-9.]+) MiB", text
    )
    assert (
        idle and 0 < float(idle.group(1)) <= float(idle.group(2)) < 8
    )  # the bound per idle rank
    over = re.search(r"per phase row: median ([0-9.]+) ms, max ([0-9.]+) ms", text)
    assert over and float(over.group(1)) <= float(over.group(2))
    assert out.stat().st_size > 0
    assert sorted(x.name for x in tmp_path.iterdir()) == ["r.h5"]  # the run's own folder is gone


# The job's ranks end other than the run says (a wrapper of the real binary: `iosweep units`
# and `iosweep run` as they are, then its own end): scale-check says mpirun's status, the run's
# status and points from the results file, and what was printed; a complete run's figures are
# printed all the same. (id, what the wrapper does after iosweep's arguments, report printed,
# what the line says after "scale-check: the job: mpirun exited 1; in '<file>' ")
ENDINGS = [
    ("ranks-end-1-after-a-complete-run",
     '"$BIN" "$@"; echo "wrapper: rank $OMPI_COMM_WORLD_RANK ended with 1" >&2; exit 1',
     True, r"run \S+ is complete, 2 of 2 points; it said: .*wrapper: rank [01] ended with 1"),
    ("ranks-end-1-before-any-run",
     'echo "wrapper: no run for you" >&2; exit 1',
     False, r"no run could be read from it \(.*No such file or directory\); it said: .*wrapper: "
     r"no run for you"),
]  # fmt: skip


@pytest.mark.parametrize("case", ENDINGS, ids=[e[0] for e in ENDINGS])
def test_scale_check_says_what_the_job_and_its_run_did(case, tmp_path):
    _, ending, report, said = case
    wrapper = tmp_path / "iosweep"
    wrapper.write_text(f'#!/bin/sh\nBIN={BIN}\n[ "$1" = run ] || exec "$BIN" "$@"\n{ending}\n')
    wrapper.chmod(0o755)
    work = tmp_path / "w"
    work.mkdir()
    p = subprocess.run(
        [SCALE, "--ranks", "2", "--size", "1m", "--dir", work, "--bin", wrapper],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 1, p.stdout + p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("scale-check: the job: mpirun exited 1; in '")
    assert re.search(said, lines[0]), lines[0]
    assert ("wall time of the whole job" in p.stdout) == report, p.stdout
    assert list(work.iterdir()) == []


@pytest.mark.parametrize(
    "args, said",
    [
        (["--ranks", "0"], "scale-check: --ranks: must be at least 1 (found 0)"),
        (
            ["--size", "xyz"],
            "scale-check: --size: 'xyz' is not a size; expected a number with an optional unit "
            "(4k, 16MiB, 1g)",
        ),
        (["--size", "0"], "scale-check: --size: must be more than 0 bytes"),
        (
            ["--ranks", "4", "--nodes", "2", "--slots", "1"],
            "scale-check: --slots: 2 nodes x 1 slots hold fewer than 4 ranks",
        ),
    ],
)
def test_scale_check_refuses_bad_input(args, said):
    p = subprocess.run([SCALE] + args, capture_output=True, text=True, timeout=60)
    assert (p.returncode, p.stderr.strip()) == (2, said)


@pytest.mark.parametrize(
    "args, said",
    [
        (
            ["--ranks", "1"],
            "isolation-check: --ranks: the large job needs at least 2 ranks (found 1)",
        ),
        (
            ["--size", "1m"],
            "isolation-check: --size: must hold at least one 16 MiB sequential record (found 1m)",
        ),
        (
            ["--emulated-nodes", "0"],
            "isolation-check: --emulated-nodes: must be from 1 to --emulated-ranks (128); found 0",
        ),
        (["--pairs", "0"], "isolation-check: --pairs: must be at least 1 (found 0)"),
    ],
)
def test_isolation_check_refuses_bad_input(args, said, tmp_path):
    p = subprocess.run(
        [ISO, "--dir", str(tmp_path)] + args, capture_output=True, text=True, timeout=60
    )
    assert (p.returncode, p.stderr.strip()) == (2, said)
    assert list(tmp_path.iterdir()) == []


def test_isolation_check_prints_ratios_and_the_disks_request_sizes(tmp_path):
    emulated = can_emulate() is None
    p = subprocess.run(
        [
            ISO,
            "--dir",
            str(tmp_path),
            "--pairs",
            "1",
            "--ranks",
            "2",
            "--emulated-ranks",
            "2",
            "--emulated-nodes",
            "2",
            "--size",
            "16m",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stderr
    rows = [
        ln.split("|")[1:-1] for ln in p.stdout.splitlines() if re.match(r"\| (rand|seq)-read", ln)
    ]
    assert len(rows) == 3 * (2 if emulated else 1)
    for r in rows:
        ratio, pairs = float(r[2]), r[3].split()
        assert ratio > 0 and len(pairs) == 1 and float(pairs[0]) == ratio
        # The disk's mean request size of each kind of job, from its own counters: a size in KiB
        # (or nan without a block device). Not compared with the record size: the counters are
        # the whole device's, and other tests run beside this one.
        for kib in r[4].split("/"):
            assert kib.strip() == "nan" or float(kib) >= 4, r
    assert list(tmp_path.iterdir()) == []
