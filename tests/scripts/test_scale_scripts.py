"""scripts/scale-check and scripts/isolation-check at their smallest, for real: the figures they
print come from the job and its results file, nothing is left on disk, and bad input is one
line with exit status 2. scale-check's metadata path runs the PixStor empty-file preset over
emulated nodes, and says so when the run it verifies is not what it asked for."""
import os
import re
import subprocess

import h5py
import pytest

from conftest import BIN, SOURCE_DIR, latest_run
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


MD_PHASES = ["md-create", "md-stat", "md-remove"]  # modes/pixstor-md-empty.toml's


def test_scale_check_runs_a_metadata_preset_over_emulated_nodes(tmp_path):
    why = can_emulate()
    if why:
        pytest.skip(why)
    out = tmp_path / "r.h5"
    p = subprocess.run(
        [SCALE, "--ranks", "8", "--nodes", "4", "--config", "pixstor-md-empty"]
        + ["--md-items", "3", "--dir", str(tmp_path), "--output", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    text = p.stdout
    assert (
        "8 ranks (4 emulated nodes x 2 slots, round-robin), sweep 1:8, --config pixstor-md-empty"
        " (md-create, md-stat, md-remove), 3 items per rank, 4 points" in text
    )
    assert "verified: run complete, all 4 points" in text
    # The table of the metadata rows: every phase at every point, ops = ranks x items.
    rows = re.findall(r"^ +(\d+)  (md-\S+) +(\d+) +([0-9.]+)$", text, re.M)
    assert [(int(k), ph) for k, ph, _, _ in rows] == [
        (k, ph) for k in (1, 2, 4, 8) for ph in MD_PHASES
    ]
    assert all(int(ops) == 3 * int(k) and float(rate) > 0 for k, _, ops, rate in rows), rows
    # The results file itself: the preset's count replaced, ranks round-robin over the nodes.
    with h5py.File(out, "r") as f:
        run = latest_run(f)
        assert int(run.attrs["md_items"]) == 3 and int(run.attrs["md_items_total"]) == 0
        hosts = list(run["hosts"].asstr()[()])
        for r in run["rank_map"][()]:
            assert hosts[r["node"]] == f"node{r['rank'] % 4 + 1:02d}"
        s = run["summary"][()]
        assert list(s["ops"]) == [3 * int(k) for k in s["ranks"]]
        assert list(s["nodes"]) == [min(int(k), 4) for k in s["ranks"]]
    assert sorted(x.name for x in tmp_path.iterdir()) == ["r.h5"]  # no item, no folder left


# A job whose run is not what scale-check asked for (a wrapper of the real binary that changes
# the arguments of `iosweep run`, what it leaves behind or what its results file says; the dry
# run and `units` go through unchanged): the figures are printed, then one line says what does
# not hold, status 1. (id, the wrapper's Python line over `args` (iosweep's arguments), what
# the line says after "scale-check: the job's run <id> in '<file>': ")
MISRUNS = [
    ("items-not-taken",
     "i = args.index('--md-items'); args[i + 1] = '4'",
     r"its md-items, md_items, md_items_total are \('4', 4, 0\), not 3 per rank \(and 6 more"),
    ("a-stat-short-of-one-op",
     "after = lambda: one_op_less(args[args.index('--output') + 1], 'md_stat')",
     r"md-stat at 1 ranks: 3 items and 2 ops, not 1 x 3$"),
    ("a-point-missing",
     "i = args.index('--sweep'); args[i:i + 2] = ['--ranks', '2']",
     r"its points are \[2\], not \[1, 2\] \(--sweep 1:2\) \(and 1 more\)$"),
    ("a-phase-missing",
     "args += ['--phases', 'md-create,md-remove']",
     r"0 md-stat rows at 1 ranks, not 1 \(and 1 more\)$"),
    ("an-item-left-behind",
     "after = lambda: open(args[args.index('--dir') + 1] + '/stray', 'w').close()",
     r"'[^']*/data' still holds 1 entries \(stray ...\)$"),
]  # fmt: skip
WRAPPER = """#!/usr/bin/python3
import os, subprocess, sys
import h5py

def one_op_less(out, phase):  # the first summary row of `phase` counts one operation less
    with h5py.File(out, "r+") as f:
        run = f["runs"][f["run_index"]["run_id"][-1].decode()]
        s = run["summary"][()]
        code = h5py.check_enum_dtype(s.dtype["phase"])[phase]
        s["ops"][list(s["phase"]).index(code)] -= 1
        run["summary"][...] = s

BIN, args, after = {bin!r}, sys.argv[1:], None
if args[:1] == ["run"] and "--dry-run" not in args:
    {change}
status = subprocess.run([BIN] + args).returncode
if after and os.environ.get("OMPI_COMM_WORLD_RANK") == "0":  # once, after rank 0 wrote
    after()
sys.exit(status)
"""


@pytest.mark.parametrize("case", MISRUNS, ids=[m[0] for m in MISRUNS])
def test_scale_check_says_when_the_run_is_not_what_it_asked(case, tmp_path):
    _, change, said = case
    wrapper = tmp_path / "iosweep"
    wrapper.write_text(WRAPPER.format(bin=BIN, change=change))
    wrapper.chmod(0o755)
    work = tmp_path / "w"
    work.mkdir()
    p = subprocess.run(
        [SCALE, "--ranks", "2", "--config", "pixstor-md-empty", "--md-items", "3"]
        + ["--dir", work, "--bin", wrapper],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 1, p.stdout + p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("scale-check: the job's run "), p.stderr
    assert re.search(said, lines[0]), lines[0]
    assert "wall time of the whole job" in p.stdout and "verified:" not in p.stdout
    assert list(work.iterdir()) == []


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


# iosweep's own dry run refuses a preset whose items do not fit the file system, advising "or
# use --force", which scale-check does not take: scale-check says what it takes instead. The
# folder is a 256 KiB tmpfs in a mount namespace of the command's own.
@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a small tmpfs needs root")
def test_scale_check_advises_its_own_options_when_a_preset_does_not_fit(tmp_path):
    work = tmp_path / "small"
    work.mkdir()
    scale = [SCALE, "--ranks", "2", "--config", "pixstor-md-4k", "--md-items", "100"]
    p = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c"]
        + ['mount -t tmpfs -o size=256k iosweep-small "$1" && shift && exec "$@"', "sh", work]
        + scale
        + ["--dir", work, "--output", tmp_path / "r.h5"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 2, p.stdout + p.stderr
    line = p.stderr.strip()
    assert line.startswith("scale-check: --md-write-bytes: ") and "\n" not in line, line
    assert line.endswith("; give fewer --md-items (the preset sets the bytes of each item) or "
                         "another --dir"), line  # fmt: skip
    assert "--force" not in line


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


def test_scale_check_runs_the_pixstor_study_in_one_launch_over_emulated_nodes(tmp_path):
    """The PixStor study (IOzone random, then MDtest empty, 4 KiB and 3 KiB files) as one
    launch of a stepped preset: every step sweeps every point, each with its own phases, and
    the metadata table names each row's step."""
    why = can_emulate()
    if why:
        pytest.skip(why)
    out = tmp_path / "r.h5"
    p = subprocess.run(
        [SCALE, "--ranks", "4", "--nodes", "2", "--config", "pixstor-study", "--size", "1m"]
        + ["--md-items", "3", "--dir", str(tmp_path), "--output", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert "verified: run complete, all 12 points" in p.stdout, p.stdout
    rows = re.findall(r"^ +(\d+)  (\S+/md-\S+) +(\d+) +([0-9.]+)$", p.stdout, re.M)
    steps = {ph.split("/")[0] for _, ph, _, _ in rows}
    assert steps == {"mdtest-empty", "mdtest-4k", "mdtest-3k"}, p.stdout
    assert all(int(ops) == 3 * int(k) for k, _, ops, _ in rows), rows
    with h5py.File(out, "r") as f:
        run = latest_run(f)
        assert [run["steps"][str(i)].attrs["name"] for i in range(4)] == [
            "iozone-random",
            "mdtest-empty",
            "mdtest-4k",
            "mdtest-3k",
        ]
