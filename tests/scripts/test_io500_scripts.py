"""The IO500's scripts, run for real: iosweep-compare setting the io500 application's result
folder (the shared fixture, a real run of it) beside a real `iosweep io500` run; scale-check
--io500 over emulated nodes; bench-vs-io500 against the io500 application when $IOSWEEP_IO500
names one (skipped, saying so, otherwise), and every script refusing bad arguments in one line
with nothing made."""

import csv
import json
import os
import re
import subprocess

import pytest

from conftest import SOURCE_DIR, run_iosweep, snapshot
from iosweep_tools.core.launch import can_emulate

COMPARE = str(SOURCE_DIR / "scripts" / "iosweep-compare")
SCALE = str(SOURCE_DIR / "scripts" / "scale-check")
BENCH = str(SOURCE_DIR / "scripts" / "bench-vs-io500")
FIXTURE = SOURCE_DIR / "tests" / "fixtures" / "io500" / "ext4-2ranks"


def fixture_folder():
    return FIXTURE


def small_run(tmp_path):
    ini = tmp_path / "my.ini"
    ini.write_text(
        f"[global]\ndatadir = {tmp_path}/data\nresultdir = {tmp_path}/results\n"
        "timestamp-datadir = FALSE\ntimestamp-resultdir = FALSE\n[debug]\nstonewall-time = 1\n"
        "[ior-easy]\ntransferSize = 1m\nblockSize = 8m\n[ior-hard]\nsegmentCount = 100\n"
        "[mdtest-easy]\nn = 300\n[mdtest-hard]\nn = 300\n"
    )
    out = tmp_path / "r.h5"
    run_iosweep(2, ["io500", ini, "--output", out, "--quiet"], timeout=300, check=0)
    return out


def test_compare_sets_the_applications_folder_beside_an_iosweep_io500_run(tmp_path):
    app = fixture_folder()
    out = small_run(tmp_path)
    for b in (str(out), str(tmp_path / "results"), str(tmp_path / "results/result_summary.txt")):
        p = subprocess.run(
            [COMPARE, str(app), b, "--csv", str(tmp_path / "c.csv")],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert p.returncode == 0, p.stderr
        rows = {ln.split()[0]: ln.split() for ln in p.stdout.splitlines() if ln.strip()}
        # The application's own figure, as printed, beside iosweep's, with B / A.
        assert rows["ior-easy-write"][2] == "0.075695"
        a, bb, r = (float(x) for x in rows["mdtest-hard-delete"][2:5])
        assert r == pytest.approx(bb / a, rel=2e-3)
        assert rows["TOTAL"][1] == "1.290439"
        assert "A's score is marked [INVALID]" in p.stdout
        csv = (tmp_path / "c.csv").read_text().splitlines()
        assert csv[0] == "phase,unit,A,B,ratio,note" and len(csv) == 1 + 14 + 3


@pytest.mark.parametrize(
    "args, said",
    [
        (["{app}"], "IO500 results are compared two at a time"),
        (["{app}", "{app}", "--fail-below", "1"], "--fail-below: not for IO500 results"),
        (["{app}", "/etc/hostname"], "neither an IO500 result folder"),
    ],
)
def test_compare_refuses_bad_io500_arguments(args, said):
    app = str(fixture_folder())
    p = subprocess.run(
        [COMPARE] + [a.format(app=app) for a in args], capture_output=True, text=True, timeout=60
    )
    assert p.returncode == 2 and said in p.stderr and "Traceback" not in p.stderr


# The io500 script's summary before the 2020 application: names with underscores, bandwidth
# printed as GB/s, `[SCORE]` without the space.
OLD_SUMMARY = (
    "[RESULT] BW   phase 1            ior_easy_write                2.500 GB/s : time 310.00 s"
    "econds\n"
    "[RESULT] IOPS phase 1         mdtest_easy_write               10.000 kiops : time 320.00 s"
    "econds\n"
    "[RESULT] IOPS phase 3                      find               50.000 kiops : time  20.00 s"
    "econds\n"
    "[SCORE] Bandwidth 2.500 GB/s : IOPS 20.000 kiops : TOTAL 7.071\n"
)


def compare_csv(a, b, tmp_path):
    out = tmp_path / "cmp.csv"
    p = subprocess.run(
        [COMPARE, str(a), str(b), "--csv", str(out)], capture_output=True, text=True, timeout=60
    )
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    with open(out, newline="") as f:
        return {row[0]: row for row in list(csv.reader(f))[1:]}


def test_compare_reads_the_summary_of_the_io500_script_before_2020(tmp_path):
    old = tmp_path / "old"
    old.mkdir()
    (old / "result_summary.txt").write_text(OLD_SUMMARY)
    rows = compare_csv(old, fixture_folder(), tmp_path)
    # Its names as today's, its figures as printed; a ratio where the units agree.
    assert rows["mdtest-easy-write"][2] == "10.0" and rows["find"][2] == "50.0"
    assert float(rows["mdtest-easy-write"][4]) == pytest.approx(4.263571 / 10.0, rel=1e-6)
    assert float(rows["MD"][4]) == pytest.approx(12.912694 / 20.0, rel=1e-6)
    # GB/s is not GiB/s: no ratio, said so, for the phase, BW and the TOTAL made from it.
    for name in ("ior-easy-write", "BW", "TOTAL"):
        assert rows[name][4] == "" and "units differ" in rows[name][5], rows[name]


def test_compare_gives_no_ratio_to_a_figure_that_is_not_finite(tmp_path):
    odd = tmp_path / "odd"
    odd.mkdir()
    (odd / "result_summary.txt").write_text(
        "[RESULT]       ior-easy-write        1e400 GiB/s : time 1.0 seconds\n"
        "[RESULT]    mdtest-easy-write          nan kIOPS : time 1.0 seconds\n"
    )
    rows = compare_csv(odd, fixture_folder(), tmp_path)
    assert rows["ior-easy-write"][4] == "" and rows["mdtest-easy-write"][4] == ""


def test_scale_check_runs_the_io500_over_emulated_nodes(tmp_path):
    why = can_emulate()
    if why:
        pytest.skip(why)
    out = tmp_path / "r.h5"
    p = subprocess.run(
        [SCALE, "--io500", "--ranks", "8", "--nodes", "4", "--size", "2m", "--md-items", "20"]
        + ["--dir", str(tmp_path), "--output", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert "8 ranks (4 emulated nodes x 2 slots, round-robin), one point, iosweep io500" in p.stdout
    assert re.search(r"^\[SCORE \] Bandwidth [0-9.]+ GiB/s", p.stdout, re.M)
    assert "verified: run complete, one step per IO500 phase" in p.stdout
    assert sorted(x.name for x in tmp_path.iterdir()) == ["r.h5"]


@pytest.mark.parametrize(
    "args, said",
    [
        (["--io500", "--config", "smoke"], "--io500: not with --config"),
        (["--stonewall", "3"], "--stonewall: only with --io500"),
        (["--io500", "--direct"], "--direct: not with --io500"),
    ],
)
def test_scale_check_refuses_bad_io500_arguments(args, said, tmp_path):
    before = snapshot(tmp_path)
    p = subprocess.run(
        [SCALE, "--dir", str(tmp_path)] + args, capture_output=True, text=True, timeout=60
    )
    assert p.returncode == 2 and said in p.stderr, p.stderr
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(
    "args, said",
    [
        (["--dir", "{tmp}"], "--io500: give the io500 application"),
        (["--io500", "{tmp}/plain.txt", "--dir", "{tmp}"], "is not an executable"),
        (["--io500", "/bin/true", "--target", "tmpfs", "--dir", "{tmp}"], "needs a tmpfs"),
        (["--io500", "/bin/true", "--easy-block", "3m", "--dir", "{tmp}"], "--easy-block"),
        (["--io500", "/bin/true", "--pairs", "0", "--dir", "{tmp}"], "--pairs"),
        (["--io500", "/bin/true", "--bed", "--dir", "{tmp}"], "--dir: not with --target bed"),
        (["--io500", "/bin/true", "--bed", "--ranks", "3"], "spread evenly over the bed's 2"),
        (["--io500", "/bin/true", "--name", "x", "--dir", "{tmp}"], "--name: only with"),
    ],
)
def test_bench_vs_io500_refuses_bad_arguments(args, said, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "IOSWEEP_IO500"}
    (tmp_path / "plain.txt").write_text("not a program\n")
    (tmp_path / "plain.txt").chmod(0o644)
    args = [a.format(tmp=tmp_path) for a in args]
    before = snapshot(tmp_path)
    p = subprocess.run([BENCH] + args, capture_output=True, text=True, timeout=60, env=env)
    assert p.returncode == 2 and said in p.stderr, p.stderr
    assert "Traceback" not in p.stderr
    assert snapshot(tmp_path) == before


def test_bench_vs_io500_against_the_application(tmp_path):
    app = os.environ.get("IOSWEEP_IO500")
    if not app:
        pytest.skip("IOSWEEP_IO500 does not name an io500 application (built outside this repo)")
    p = subprocess.run(
        [BENCH, "--io500", app, "--pairs", "1", "--dir", "/var/tmp", "--csv", tmp_path / "b.csv"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    for name in ("ior-easy-write", "find", "mdtest-hard-delete", "TOTAL"):
        assert re.search(rf"^{name} +[0-9.]+ +[0-9.]+ +[0-9.]+ ", p.stdout, re.M), name


def test_the_report_has_an_io500_section_with_the_application_beside(tmp_path):
    """The report's IO500 section, rendered in a real Chromium: every figure of the run's own
    result_summary.txt and of the application's (the fixture) in a cell that carries it, the
    ratio marked derived."""
    from chromium import Chromium  # the report tests' headless Chromium (tests/scripts)

    out = small_run(tmp_path)
    page = tmp_path / "p.html"
    p = subprocess.run(
        [str(SOURCE_DIR / "scripts" / "iosweep-report"), str(out), "--baseline", str(FIXTURE)]
        + ["-o", str(page)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    ours = io500_lines(tmp_path / "results" / "result_summary.txt")
    app = io500_lines(FIXTURE / "result_summary.txt")
    with Chromium() as b:
        b.open(page.resolve().as_uri())
        assert b.problems() == []
        cells = json.loads(
            b.evaluate(
                "JSON.stringify(Array.from(document.querySelectorAll('#io500 [data-value]'))"
                ".map(e => ({src: e.dataset.source || null, derived: e.dataset.derived || null,"
                " value: e.dataset.value})))"
            )
        )
        heading = b.evaluate("document.querySelector('#io500 h2').textContent")
    assert heading.startswith("IO500")
    mine = [float(c["value"]) for c in cells if c["src"] == "io500"]
    theirs = [float(c["value"]) for c in cells if c["src"] == "io500-baseline"]
    for v in ours:
        assert any(abs(m - v) <= 1e-9 for m in mine), v
    for v in app:
        assert any(abs(t - v) <= 1e-9 for t in theirs), v
    assert len([c for c in cells if c["derived"]]) == 14 + 3
    # result_phases.txt: each phase's window, tail, wear-out and latency, in cells of their own.
    phases = [
        ln.split("\t")
        for ln in (tmp_path / "results" / "result_phases.txt").read_text().splitlines()
        if not ln.startswith(("#", "phase\t"))
    ]
    assert len(phases) == 14
    shown = [float(c["value"]) for c in cells if c["src"] == "io500-phases"]
    assert len(shown) == 14 * 8
    for cols in phases:
        for v in (cols[2], cols[5], cols[6], cols[9], cols[11]):  # window, tail, wear-out, p99, max
            assert any(abs(m - float(v)) <= 1e-9 for m in shown), (cols[0], v)
    with Chromium() as b:
        b.open(page.resolve().as_uri())
        texts = json.loads(
            b.evaluate(
                "JSON.stringify(Array.from(document.querySelectorAll('#io500 td'))"
                ".map(e => e.textContent))"
            )
        )
    for cols in phases:  # the cache marks and where the bytes came from, as the file says them
        assert cols[12] in texts and cols[13] in texts, cols[0]


def io500_lines(path):
    """Every figure of a result_summary.txt: the phases' scores and the three scores."""
    text = path.read_text()
    out = [
        float(m.group(1))
        for m in re.finditer(r"^\[(?:RESULT|      )\] +\S+ +([0-9.]+) ", text, re.M)
    ]
    m = re.search(r"Bandwidth ([0-9.]+) GiB/s : IOPS ([0-9.]+) kiops : TOTAL ([0-9.]+)", text)
    return out + [float(m.group(i)) for i in (1, 2, 3)]
