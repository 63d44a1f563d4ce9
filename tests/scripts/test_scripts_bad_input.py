"""Bad input to iosweep-compare, iosweep-load and iosweep-report, table by table: exit status 2,
exactly one line on stderr starting with `<script>: ` and naming the argument, no traceback,
nothing created, changed or removed (conftest.snapshot), and no input read forever (a FIFO,
/dev/zero: every case has a deadline)."""
import os
import shutil
import subprocess

import h5py
import numpy as np
import pytest

import bad_files
from conftest import SOURCE_DIR, run_ids, run_iosweep, snapshot

SCRIPTS = SOURCE_DIR / "scripts"
LOCKED = "{side}: '{{locked}}' is locked by pid " + str(os.getpid()) + " (python3); waited 0.5 s"
FIX = SOURCE_DIR / "tests" / "fixtures"
BROKEN = ("text", "missing", "folder", "fifo", "dev-zero", "other-schema", "float-index")
BROKEN += ("empty-index", "bad-phase", "text-ranks", "no-summary", "no-runs")
# Files every reader refuses through the one reader they share (results.file, results.reader):
# each case a row of one command, the cases spread over the three. A file locked by a writer;
# a schema version newer than the scripts', 0, or none; a figure infinite or negative.
SHARED = {
    "compare": ("schema-v2", "attribute-inf", "cache-drop-9"),  # and locked: A-locked-says-so
    "load": ("locked", "schema-vNone", "figure-negative", "stonewalled-7"),
    "report": ("schema-v0", "figure-inf", "status-9"),
}
TOOLS = ("ior-inf", "ior-nan", "ior-negative")  # other tools' outputs with such a figure
LOCK_WAIT_S = "0.5"  # IOSWEEP_LOCK_WAIT_S of every row: a locked file is waited for this long


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("bad")
    work = tmp / "w"
    work.mkdir()
    good = tmp / "good.h5"
    for _ in range(2):
        run_iosweep(
            1,
            ["run", "--dir", work, "--file-size", "1m", "--seq-record", "1m", "--phases"]
            + ["seq-write,seq-read", "--repetitions", "2", "--output", good, "--quiet"],
            check=0,
        )
    with h5py.File(good, "r") as f:
        ids = run_ids(f)
    files = bad_files.make(tmp, good)
    (tmp / "taken.csv").mkdir()
    (tmp / "taken.html").mkdir()
    return tmp, good, ids, files


def expand(args, tmp, good, ids, files):
    out = []
    for a in args:
        a = str(a).replace("{tmp}", str(tmp)).replace("{good}", str(good))
        a = a.replace("{A}", ids[0]).replace("{B}", ids[1])
        for name, path in files.items():
            a = a.replace("{" + name + "}", str(path))
        out.append(a)
    return out


def refused(script, args, names, env):
    tmp, good, ids, files = env
    before = snapshot(tmp)
    p = subprocess.run(
        [str(SCRIPTS / script), *expand(args, *env)],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ, IOSWEEP_LOCK_WAIT_S=LOCK_WAIT_S),
    )
    assert p.returncode == 2, p.stdout + p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{script}: "), p.stderr
    assert expand([names], *env)[0] in lines[0], lines[0]
    assert "Traceback" not in p.stderr and "unexpected" not in lines[0], lines[0]
    assert snapshot(tmp) == before, "bad input must create, change or remove nothing"


COMPARE = (
    [
        # (id, arguments, what the line must name)
        ("fail-below-nan", ["{good}", "{good}:{A}", "--fail-below", "nan"], "--fail-below"),
        ("fail-below-inf", ["{good}", "{good}:{A}", "--fail-below", "inf"], "--fail-below"),
        ("fail-below-zero", ["{good}", "{good}:{A}", "--fail-below", "0"], "--fail-below"),
        ("fail-below-negative", ["{good}", "{good}:{A}", "--fail-below=-1"], "--fail-below"),
        ("fail-below-text", ["{good}", "{good}:{A}", "--fail-below", "fast"], "--fail-below"),
        ("fail-below-missing", ["{good}", "{good}:{A}", "--fail-below"], "--fail-below"),
        (
            "fail-below-without-runs",
            ["{good}", FIX / "ior/01-posix-seq16m.txt", "--fail-below", "1"],
            "--fail-below",
        ),
        ("allow-partial-alone", ["{good}", "{good}:{A}", "--allow-partial"], "--allow-partial"),
        ("resamples-few", ["{good}", "{good}:{A}", "--resamples", "5"], "--resamples"),
        ("resamples-huge", ["{good}", "{good}:{A}", "--resamples", "1000000000"], "--resamples"),
        ("seed-text", ["{good}", "{good}:{A}", "--seed", "x"], "--seed"),
        ("run-beside-two-files", ["{good}", "{good}:{A}", "--run", "{A}"], "--run"),
        ("csv-missing-folder", ["{good}", "{good}:{A}", "--csv", "{tmp}/no/t.csv"], "--csv"),
        ("csv-in-proc", ["{good}", "{good}:{A}", "--csv", "/proc/t.csv"], "--csv"),
        ("csv-extension", ["{good}", "{good}:{A}", "--csv", "{tmp}/t.txt"], "--csv"),
        ("csv-a-folder", ["{good}", "{good}:{A}", "--csv", "{tmp}/taken.csv"], "--csv"),
        (
            "csv-old-mode-in-proc",
            ["{good}", FIX / "ior/01-posix-seq16m.txt", "--csv", "/proc/t.csv"],
            "--csv",
        ),
        (
            "run-not-in-file",
            ["{good}", "{good}:20990101T000000.000Z-deadbeef"],
            "20990101T000000.000Z-deadbeef",
        ),
        ("output-a-fifo", ["{good}", "{fifo}"], "{fifo}"),
        ("output-dev-zero", ["{good}", "/dev/zero"], "/dev/zero"),
        ("unknown-option", ["{good}", "--bogus"], "--bogus"),
    ]
    + [(f"A-{b}", ["{" + b + "}", "{good}"], "{" + b + "}") for b in BROKEN + SHARED["compare"]]
    + [
        (f"B-{b}", ["{good}", "{" + b + "}"], "{" + b + "}")
        for b in ("fifo", "dev-zero", "float-index", "empty-index", "bad-phase", "no-runs")
    ]
    + [
        # A file whose writer lock a stopped run holds: one bounded wait, the figure it waited,
        # who holds it, and never "expected IOzone or IOR output" for B.
        ("A-locked-says-so", ["{locked}", "{good}"], LOCKED.format(side="A")),
        ("B-locked-says-so", ["{good}", "{locked}:{A}"], LOCKED.format(side="B")),
        # The schema's version as the binary judges it.
        ("B-schema-v0", ["{good}", "{schema-v0}"], "version 0, which no iosweep writes"),
        ("B-figure-inf", ["{good}", "{figure-inf}"], "cached_fraction_mean: row 0 holds inf"),
        (
            "B-cache-drop-9",
            ["{good}", "{cache-drop-9}"],
            "md_cache_drop: row 0 holds 9, not one of its values (kept=0, dropped=1, refused=2)",
        ),
    ]
)

COMPARE += [
    (f"output-{t}", ["{good}", "{" + t + "}"], "{" + t + "}: line 40: expected a finite figure")
    for t in TOOLS
]

LOAD = [
    ("csv-missing-parent", ["{good}", "--csv", "{tmp}/no/such/dir"], "--csv"),
    ("csv-in-proc", ["{good}", "--csv", "/proc/iosweep-export"], "--csv"),
    ("csv-a-file", ["{good}", "--csv", "{tmp}/notes.txt"], "--csv"),
    ("json-extension", ["{good}", "--json", "{tmp}/r.txt"], "--json"),
    ("json-in-proc", ["{good}", "--json", "/proc/r.json"], "--json"),
    ("json-missing-folder", ["{good}", "--json", "{tmp}/no/r.json"], "--json"),
    ("json-a-folder", ["{good}", "--json", "{tmp}/folder.h5/../taken.html"], "--json"),
    ("run-shape", ["{good}", "--run", "latest"], "--run"),
    ("run-not-in-file", ["{good}", "--run", "20990101T000000.000Z-deadbeef"], "--run"),
    ("unknown-option", ["{good}", "--bogus"], "--bogus"),
    ("two-files", ["{good}", "{good}"], "unrecognized arguments"),
    # A table an export cannot hold whole: refused, where a report shows the rest and says why.
    ("csv-table-set-aside", ["{nodes-inf}", "--csv", "{tmp}/t"], "nodes field seconds: row 0"),
    (
        "csv-bool-out-of-range",
        ["{ranks-stonewalled-7}", "--csv", "{tmp}/t"],
        "ranks field stonewalled: row 0 holds 7, not one of its values (no=0, yes=1)",
    ),
    ("print-status-9", ["{status-9}"], "attribute status holds 9, not a member of its enum"),
] + [
    (f"input-{b}", ["{" + b + "}", "--json", "{tmp}/r.json"], "{" + b + "}")
    for b in BROKEN + SHARED["load"]
]

REPORT = [
    ("output-missing", ["{good}"], "--output"),
    ("output-extension", ["{good}", "-o", "{tmp}/r.txt"], "--output"),
    ("output-missing-folder", ["{good}", "-o", "{tmp}/no/r.html"], "--output"),
    ("output-in-proc", ["{good}", "-o", "/proc/r.html"], "--output"),
    ("output-a-folder", ["{good}", "-o", "{tmp}/taken.html"], "--output"),
    ("run-shape", ["{good}", "latest", "-o", "{tmp}/r.html"], "RUN_ID"),
    (
        "run-not-in-file",
        ["{good}", "20990101T000000.000Z-deadbeef", "-o", "{tmp}/r.html"],
        "RUN_ID",
    ),
    ("run-twice", ["{good}", "{A}", "{A}", "-o", "{tmp}/r.html"], "RUN_ID"),
    (
        "too-many-runs",
        ["{good}"]
        + [f"20990101T00000{i}.000Z-deadbeef" for i in range(9)]
        + ["-o", "{tmp}/r.html"],
        "RUN_ID",
    ),
    (
        "baseline-missing",
        ["{good}", "-o", "{tmp}/r.html", "--baseline", "{tmp}/none.txt"],
        "--baseline",
    ),
    ("baseline-fifo", ["{good}", "-o", "{tmp}/r.html", "--baseline", "{fifo}"], "--baseline"),
    (
        "baseline-dev-zero",
        ["{good}", "-o", "{tmp}/r.html", "--baseline", "/dev/zero"],
        "--baseline",
    ),
    ("baseline-not-a-tool", ["{good}", "-o", "{tmp}/r.html", "--baseline", "{text}"], "--baseline"),
    (
        "resamples-zero",
        ["{good}", "{A}", "{B}", "-o", "{tmp}/r.html", "--resamples", "0"],
        "--resamples",
    ),
    ("seed-negative", ["{good}", "-o", "{tmp}/r.html", "--seed=-3"], "--seed"),
] + [
    (f"input-{b}", ["{" + b + "}", "-o", "{tmp}/r.html"], "{" + b + "}")
    for b in BROKEN + SHARED["report"]
]
REPORT += [
    ("baseline-ior-nan", ["{good}", "-o", "{tmp}/r.html", "--baseline", "{ior-nan}"], "--baseline")
]


@pytest.mark.parametrize("case", COMPARE, ids=[c[0] for c in COMPARE])
def test_compare_refuses(env, case):
    refused("iosweep-compare", case[1], case[2], env)


@pytest.mark.parametrize("case", LOAD, ids=[c[0] for c in LOAD])
def test_load_refuses(env, case):
    refused("iosweep-load", case[1], case[2], env)


@pytest.mark.parametrize("case", REPORT, ids=[c[0] for c in REPORT])
def test_report_refuses(env, case):
    refused("iosweep-report", case[1], case[2], env)


def test_good_input_is_accepted_by_all_three(env, tmp_path):
    """The counterpart of the table: the same files and options, well formed, work."""
    tmp, good, ids, files = env
    ok = [
        [
            "iosweep-compare",
            good,
            f"{good}:{ids[0]}",
            "--fail-below",
            "0.001",
            "--csv",
            tmp_path / "t.csv",
        ],
        [
            "iosweep-load",
            good,
            "--run",
            ids[0],
            "--json",
            tmp_path / "r.json",
            "--csv",
            tmp_path / "c",
        ],
        ["iosweep-report", good, ids[0], ids[1], "-o", tmp_path / "r.html", "--resamples", "100"],
    ]
    for cmd in ok:
        p = subprocess.run(
            [str(SCRIPTS / cmd[0]), *map(str, cmd[1:])], capture_output=True, text=True, timeout=120
        )
        assert p.returncode == 0, p.stderr


REQUIRED_FIGURES = {"wall_s", "bandwidth_Bps", "iops", "timeseries_bin_s"}


def test_figures_not_measured_are_shown_and_a_table_set_aside_is_named(env, tmp_path):
    """The counterpart of the figure rows: NaN (what iosweep could not measure) in every figure
    no command requires, of every table and attribute, is read by all four commands; a report
    of a file whose nodes table holds inf shows the rest and names what it set aside."""
    tmp, good, ids, files = env
    nan = tmp_path / "nan.h5"
    shutil.copy(good, nan)
    with h5py.File(nan, "r+") as f:
        for g in f["runs"].values():
            for ds in g.values():
                if isinstance(ds, h5py.Dataset) and ds.dtype.names:
                    a = ds[()]
                    for fld in a.dtype.names:
                        if a.dtype[fld].kind == "f" and fld not in REQUIRED_FIGURES:
                            a[fld] = np.nan
                    ds[...] = a
            for k, v in g.attrs.items():
                if isinstance(v, np.floating) and k not in REQUIRED_FIGURES:
                    g.attrs[k] = np.float64(np.nan)
    out = tmp_path / "out"
    ok = [
        ["iosweep-compare", nan, good],
        ["iosweep-compare", good, FIX / "ior/01-posix-seq16m.txt"],
        ["iosweep-load", nan, "--csv", out, "--json", tmp_path / "r.json"],
        ["iosweep-report", nan, "-o", tmp_path / "r.html"],
        ["iosweep-plot", nan, "-o", tmp_path / "r.png", "--baselines-dir", ""],
    ]
    for cmd in ok:
        p = subprocess.run(
            [str(SCRIPTS / cmd[0]), *map(str, cmd[1:])], capture_output=True, text=True, timeout=120
        )
        assert p.returncode == 0 and p.stderr == "", (cmd[0], p.stderr)
    assert 'tables set aside</div><div class="v">none<' in (tmp_path / "r.html").read_text()
    p = subprocess.run(
        [str(SCRIPTS / "iosweep-report"), str(files["nodes-inf"]), "-o", str(tmp_path / "i.html")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    assert (
        "nodes: field seconds: row 0 holds inf, not a finite number of at least 0, or NaN"
        in (tmp_path / "i.html").read_text()
    )
