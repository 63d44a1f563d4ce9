"""iosweep-compare and iosweep-plot against mdtest: the parser on every real mdtest 4.1 output
(values, tasks, items per task, bytes per file, fsync, layout, tree; --showRankStatistics, -P,
several iterations, a task sweep, phases that did not run), clean refusal of a garbled row, and a
real metadata run matched with mdtest's figures (a ratio only where every setting agrees)."""
import csv
import subprocess

import h5py
import pytest

from iosweep_tools.compare import mdtest, parsers
from iosweep_tools.compare.record import TOO_LARGE, ParseError
from iosweep_tools.results import names
from conftest import SOURCE_DIR, latest_run, make_results

FIX = SOURCE_DIR / "tests" / "fixtures" / "mdtest"
ORDER = ("md-create", "md-stat", "md-read", "md-remove", "md-mkdir", "md-rmdir")


def rates(*values):
    """{phase: rate} in the order mdtest prints its rows (File creation .. Tree removal)."""
    return dict(zip(ORDER, values))


# fixture -> {tasks: {phase: the per-iteration Mean of its SUMMARY rate row}}: a phase that did
# not run (0.000) is absent.
EXPECTED = {
    "01-easy-empty-np2.txt": {
        2: rates(10496.033, 222019.522, 124214.579, 60571.940, 241.482, 35.732)
    },
    "02-pixstor-empty-np2.txt": {
        2: rates(513.238, 136706.208, 81588.999, 51641.444, 228.730, 274.221)
    },
    "05-io500-easy-like-np2.txt": {
        2: rates(1070.928, 190489.997, 144079.695, 58480.835, 163.342, 46.275)
    },
    "07-dirs-and-files-i3-np2.txt": {
        2: rates(498.728, 203954.624, 149118.320, 64429.571, 3933.046, 111.605)
    },
    "11-rank-statistics-i2-w4k-np2.txt": {
        2: rates(427.467, 125130.472, 30580.374, 1380.057, 8264.982, 60.946)
    },
    "12-create-only-np2.txt": {2: {"md-create": 602.755, "md-mkdir": 11.365}},
    "13-shared-hard-like-P-np2.txt": {
        2: rates(350.835, 32033.482, 32273.807, 16554.231, 1281.878, 311.427)
    },
    "14-task-sweep-f1-l2-np2.txt": {
        1: rates(324.397, 251005.625, 36323.755, 15152.559, 14122.236, 477.548),
        2: rates(462.086, 81581.405, 47722.198, 17057.644, 284.900, 79.726),
    },
}
# fixture -> (items per task, bytes written, bytes read, fsync, one shared folder, tree) as the
# output states them: "N tasks, M files" and the command line (-w, -e, -y, -u, -z, -b).
SETTINGS = {
    "01-easy-empty-np2.txt": (5000, 0, 0, False, False, (0, 1)),
    "02-pixstor-empty-np2.txt": (2048, 0, 0, True, False, (1, 2)),  # -I 1024 x 2 leaves
    "05-io500-easy-like-np2.txt": (4000, 0, 0, False, False, (0, 1)),
    "07-dirs-and-files-i3-np2.txt": (1000, 0, 0, False, False, (0, 1)),
    "11-rank-statistics-i2-w4k-np2.txt": (300, 4096, 4096, True, False, (0, 1)),
    "12-create-only-np2.txt": (300, 0, 0, False, False, (0, 1)),
    "13-shared-hard-like-P-np2.txt": (200, 3901, 3901, False, True, (0, 1)),
    "14-task-sweep-f1-l2-np2.txt": (200, 0, 0, False, False, (0, 1)),
}


def test_every_fixture_is_listed():
    assert {p.name for p in FIX.glob("*.txt")} == set(EXPECTED) == set(SETTINGS)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_fixture_parses_to_its_rates_tasks_and_settings(name):
    results = parsers.parse_any(str(FIX / name))
    got = {}
    for r in results:
        assert (r.phase, r.threads) not in {(p, k) for k, ps in got.items() for p in ps}
        got.setdefault(r.threads, {})[r.phase] = r.value
        assert r.tool == "mdtest" and r.unit == "ops/s" and r.kind == "mean"
        assert (r.items, r.item_bytes, r.read_bytes, r.fsync, r.shared, r.tree) == SETTINGS[name]
        assert r.cache_drop is False  # mdtest never drops the caches
        assert r.value > 0  # a phase that did not run (0.000) gives no figure
        assert names.is_metadata(r.phase)
    assert got == EXPECTED[name]


def test_the_time_table_of_p_and_the_per_rank_columns_are_not_the_rates():
    # -P adds a SUMMARY time (ms/op) table after the rates: none of its figures is a Result.
    timed = parsers.parse_any(str(FIX / "13-shared-hard-like-P-np2.txt"))
    assert len(timed) == 6 and min(r.value for r in timed) > 300
    # --showRankStatistics puts three per-rank columns first: the figure is the per-iteration
    # Mean, the second to last column.
    stats = {r.phase: r for r in parsers.parse_any(str(FIX / "11-rank-statistics-i2-w4k-np2.txt"))}
    assert stats["md-stat"].value == 125130.472  # not 273746.785, the per-rank mean
    assert stats["md-mkdir"].figure == "mdtest mean rate (one tree's folders)"
    assert stats["md-mkdir"].counterpart == "one_tree" and stats["md-stat"].counterpart == "wall"


def test_the_command_line_is_read_as_mdtest_reads_it():
    got = mdtest.mdtest_settings(["-uyF", "-n5", "-w=3K", "-e", "1m", "-z", "2", "-b3", "-L"])
    assert got == {
        "shared": False,
        "item_bytes": 3072,
        "read_bytes": 1 << 20,
        "fsync": True,
        "depth": 2,
        "branch": 3,
        "cache_drop": False,
    }
    before = ["-n", "5", "--run-cmd-before-phase", "drop-caches.sh", "-u"]
    assert mdtest.mdtest_settings(before)["cache_drop"] is None
    assert mdtest.mdtest_settings(before)["shared"] is False


@pytest.mark.parametrize(
    "old,new,what",
    [
        ("222019.522     222019.522", "2220x9.522     222019.522", "a row of mdtest's SUMMARY"),
        ("2 tasks, 10000 files", "files", "the number of tasks before the SUMMARY table"),
        ("SUMMARY rate (in ops/sec)", "SUMMARY rates", "a 'SUMMARY rate (in ops/sec)' table"),
        # Numbers no figure can hold: 400 digits of items, 5000 of tasks (more than Python
        # converts), a tree 400 digits deep on the command line.
        ("2 tasks, 10000 files", "2 tasks, " + "9" * 400 + " files", TOO_LARGE),
        ("2 tasks, 10000 files", "9" * 5000 + " tasks, 10000 files", TOO_LARGE),
        ("'-n' '5000'", "'-n' '5000' '-z' '" + "9" * 400 + "'", TOO_LARGE),
    ],
)
def test_a_garbled_output_is_refused_in_one_line_naming_its_line(md_run, tmp_path, old, new, what):
    text = (FIX / "01-easy-empty-np2.txt").read_text()
    assert old in text
    text = text.replace(old, new, 1).replace("launched with 2 total task(s)", "launched")
    bad = tmp_path / "bad.txt"
    bad.write_text(text)
    lines = text.splitlines()
    at = next((i for i, ln in enumerate(lines, 1) if new in ln and "SUMMARY" not in new), None)
    with pytest.raises(ParseError) as e:
        parsers.parse_any(str(bad))
    assert what in str(e.value) and str(bad) in str(e.value)
    if at is not None and (what.startswith("a row") or what == TOO_LARGE):
        assert e.value.line == at
    p = compare_cmd(md_run, bad)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and what in p.stderr, p.stderr


def compare_cmd(*args):
    return subprocess.run(
        [str(SOURCE_DIR / "scripts" / "iosweep-compare")] + [str(a) for a in args],
        capture_output=True,
        text=True,
    )


@pytest.fixture(scope="module")
def md_run(tmp_path_factory):
    """A real metadata run shaped like fixture 14 (200 items per task in a folder each, no bytes,
    no fsync, depth 0) on 1 and 2 ranks, its caches kept as mdtest keeps them."""
    tmp = tmp_path_factory.mktemp("md")
    (tmp / "w").mkdir()
    out = tmp / "md.h5"
    make_results(
        2, tmp / "w", out, "1MiB", "1MiB", "--phases", "md", "--md-items", "200", "--cache", "keep"
    )
    return out


def csv_rows(path):
    """The comparison CSV as {(phase, threads, source): row}, each text cell as stored: a cell a
    spreadsheet would take for a formula ('=' for settings that agree) carries one leading quote."""
    rows = [
        {k: v[1:] if v.startswith("'") else v for k, v in r.items()}
        for r in csv.DictReader(open(path))
    ]
    return {(r["phase"], int(r["threads"]), r["source"]): r for r in rows}


def test_a_metadata_run_beside_mdtest_gives_ratios_where_every_setting_agrees(md_run, tmp_path):
    p = compare_cmd(
        md_run,
        FIX / "14-task-sweep-f1-l2-np2.txt",
        FIX / "13-shared-hard-like-P-np2.txt",
        "--csv",
        tmp_path / "t.csv",
    )
    assert p.returncode == 0, p.stderr
    assert (
        "[1] mdtest: items 200 per task, 0 B written, 0 B read, fsync no, a folder per task"
        in p.stdout
    )
    # A run of metadata phases alone is not described by a file and records it never used.
    assert "ranks, engine posix; metadata phases alone (no file, no records)" in p.stdout
    assert "per rank a" not in p.stdout
    by = csv_rows(tmp_path / "t.csv")
    with h5py.File(md_run, "r") as f:
        run = latest_run(f)
        s = run["summary"][()]
        enum = names.by_value(names.phases(run))
    for row in s:
        phase, k = enum[int(row["phase"])].replace("_", "-"), int(row["streams"])
        same = by[(phase, k, "mdtest[1]")]
        assert same["match"] == "=", (phase, k, same["match"])
        want = float(row["iops"]) / (k if phase in ("md-mkdir", "md-rmdir") else 1)
        got = float(
            same["iosweep_one_tree" if phase in ("md-mkdir", "md-rmdir") else "iosweep_wall"]
        )
        assert got == pytest.approx(want, rel=1e-12)
        source = EXPECTED["14-task-sweep-f1-l2-np2.txt"][k][phase]
        assert float(same["ratio"]) == pytest.approx(got / source, rel=1e-9)
        if k == 2:  # one shared folder, 3901 bytes per file: no ratio
            other = by[(phase, k, "mdtest[2]")]
            assert other["ratio"] == "" and "layout" in other["match"] and "bytes" in other["match"]
    # --loose gives the ratio anyway, still marked.
    p = compare_cmd(
        md_run, FIX / "13-shared-hard-like-P-np2.txt", "--loose", "--csv", tmp_path / "l.csv"
    )
    loose = csv_rows(tmp_path / "l.csv")[("md-create", 2, "mdtest[1]")]
    assert loose["match"].startswith("≠") and float(loose["ratio"]) > 0


def test_a_dropped_cache_is_a_setting_that_differs(tmp_path):
    (tmp_path / "w").mkdir()
    out = tmp_path / "drop.h5"
    make_results(1, tmp_path / "w", out, "1MiB", "1MiB", "--phases", "md-stat", "--md-items", "200")
    with h5py.File(out, "r") as f:
        dropped = int(latest_run(f)["summary"]["md_cache_drop"][0])
    p = compare_cmd(out, FIX / "14-task-sweep-f1-l2-np2.txt", "--csv", tmp_path / "t.csv")
    assert p.returncode == 0, p.stderr
    row = csv_rows(tmp_path / "t.csv")[("md-stat", 1, "mdtest[1]")]
    if dropped == 1:  # root: iosweep dropped the caches, mdtest never does
        assert row["match"] == "≠ cache" and row["ratio"] == ""
    else:
        assert row["match"] == "=" and float(row["ratio"]) > 0


def test_plot_draws_the_metadata_panel_and_prints_peak_and_sustained(md_run, tmp_path):
    png = tmp_path / "md.png"
    p = subprocess.run(
        [
            str(SOURCE_DIR / "scripts" / "iosweep-plot"),
            str(md_run),
            str(FIX / "14-task-sweep-f1-l2-np2.txt"),
        ]
        + ["-o", str(png)],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000
    lines = p.stdout.splitlines()
    assert lines[0].startswith("Peak & Sustained") and len(lines) == 2 + 6 + 1
    assert [ln.split()[0] for ln in lines[2:8]] == [
        "md-mkdir",
        "md-create",
        "md-stat",
        "md-read",
        "md-remove",
        "md-rmdir",
    ]
