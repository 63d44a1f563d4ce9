"""`iosweep io500 FILE.ini`: the io500 application's INI file run as its phases in one launch,
under real mpiexec on real files: the application's result files, its score recomputed from its
own [RESULT] lines, its validity rules, the rows of the HDF5 file naming their IO500 phase, and
the INI file refused as the application refuses it (nothing made on disk)."""

import math
import re

import h5py
import pytest

from conftest import latest_run, run_iosweep, snapshot

# The io500 application's scored phases (src/main.c's groups): bandwidth and metadata.
BW = ["ior-easy-write", "ior-easy-read", "ior-hard-write", "ior-hard-read"]
MD = [
    "mdtest-easy-write",
    "mdtest-hard-write",
    "find",
    "mdtest-easy-stat",
    "mdtest-hard-stat",
    "mdtest-easy-delete",
    "mdtest-hard-read",
    "mdtest-hard-delete",
]
ORDER = [
    "ior-easy-write",
    "mdtest-easy-write",
    "timestamp",
    "ior-hard-write",
    "mdtest-hard-write",
    "find",
    "ior-easy-read",
    "mdtest-easy-stat",
    "ior-hard-read",
    "mdtest-hard-stat",
    "mdtest-easy-delete",
    "mdtest-hard-read",
    "mdtest-hard-delete",
    "ior-rnd4K-easy-read",
]

RESULT = re.compile(
    r"^\[(RESULT|      )\] +(\S+) +([0-9.]+) (GiB/s|kIOPS) : time ([0-9.]+) seconds( \[INVALID\])?$"
)
SCORE = re.compile(
    r"^\[SCORE \] Bandwidth ([0-9.]+) GiB/s : IOPS ([0-9.]+) kiops : TOTAL ([0-9.]+)"
    r"( \[INVALID\])?$"
)


def small_ini(tmp_path, stonewall=30, extra=""):
    """A small IO500: the shapes of the application, sizes a test can afford, a stonewall none
    of them reaches (every item is made: the counts below are exact)."""
    ini = tmp_path / "my.ini"
    ini.write_text(
        f"""[global]
datadir = {tmp_path}/data
resultdir = {tmp_path}/results
timestamp-datadir = FALSE
timestamp-resultdir = FALSE
[debug]
stonewall-time = {stonewall}
[ior-easy]
transferSize = 1m
blockSize = 16m
[ior-hard]
segmentCount = 400
[mdtest-easy]
n = 1500
[mdtest-hard]
n = 800
{extra}"""
    )
    return ini


def summary_lines(path):
    results, score = {}, None
    for line in path.read_text().splitlines():
        if m := RESULT.match(line):
            results[m.group(2)] = (float(m.group(3)), float(m.group(5)), bool(m.group(6)))
        elif m := SCORE.match(line):
            score = tuple(float(m.group(i)) for i in (1, 2, 3)) + (bool(m.group(4)),)
    return results, score


def geomean(values):
    values = [v for v in values if v > 0]
    return math.prod(values) ** (1 / len(values)) if values else 0.0


@pytest.fixture(scope="module")
def io500_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("io500")
    ini = small_ini(tmp)
    out = tmp / "r.h5"
    p = run_iosweep(2, ["io500", ini, "--output", out, "--quiet"], timeout=600, check=0)
    return tmp, out, p


def test_result_files_in_the_application_formats(io500_run):
    tmp, _, p = io500_run
    res = tmp / "results"
    for name in ["result_summary.txt", "result.txt", "config-orig.ini", "config.ini"]:
        assert (res / name).is_file(), name
    results, score = summary_lines(res / "result_summary.txt")
    assert list(results) == ORDER
    assert score is not None
    # stdout carries the same lines, as the application prints them.
    assert "[SCORE ] Bandwidth" in p.stdout
    assert f"The result files are stored in the directory: {res}" in p.stdout
    # config-orig.ini is the file as given; config.ini every section with the effective keys.
    assert (res / "config-orig.ini").read_text() == (tmp / "my.ini").read_text()
    cfg = (res / "config.ini").read_text()
    assert "[ior-easy]\nAPI = \ntransferSize = 1m\nblockSize = 16m\n" in cfg
    assert "stonewall-time = 30" in cfg and "[mdtest-hard-delete]" in cfg


def test_score_recomputed_from_its_own_result_lines(io500_run):
    tmp, _, _ = io500_run
    results, (bw, md, total, _) = summary_lines(tmp / "results" / "result_summary.txt")
    want_bw = geomean([results[n][0] for n in BW])
    want_md = geomean([results[n][0] for n in MD])
    # The lines print six decimals: the recomputation agrees to their rounding.
    assert bw == pytest.approx(want_bw, rel=1e-5)
    assert md == pytest.approx(want_md, rel=1e-5)
    assert total == pytest.approx(math.sqrt(want_bw * want_md), rel=1e-5)
    assert all(results[n][0] > 0 for n in BW + MD)


def test_invalid_when_stonewall_time_is_not_300(io500_run):
    tmp, _, p = io500_run
    _, score = summary_lines(tmp / "results" / "result_summary.txt")
    assert score[3], "a run with stonewall-time 30 must be marked INVALID"
    text = (tmp / "results" / "result.txt").read_text()
    assert "; ERROR INVALID stonewall-time 30s != 300s" in text
    assert "ERROR INVALID stonewall-time 30s != 300s" in p.stdout
    # Every write phase ran shorter than the 300 s the rules ask for.
    for name in ["ior-easy-write", "mdtest-easy-write", "ior-hard-write", "mdtest-hard-write"]:
        section = text.split(f"[{name}]")[1].split("\n\n")[0]
        assert "Runtime is smaller than expected minimum runtime" in section


def test_result_txt_sections(io500_run):
    tmp, _, _ = io500_run
    text = (tmp / "results" / "result.txt").read_text()
    assert text.startswith("[run]\nprocs           = 2\n")
    sections = re.findall(r"^\[([^\]]+)\]$", text, re.M)
    assert sections == ["run"] + ORDER + ["SCORE"]
    find = text.split("[find]")[1].split("\n\n")[0]
    found = int(re.search(r"^found += (\d+)$", find, re.M).group(1))
    total = int(re.search(r"^total-files += (\d+)$", find, re.M).group(1))
    # Every file of both mdtest trees and the ior files is examined; the matches are
    # mdtest-hard's 3901-byte files made after the timestamp with 01 in their name.
    assert total == 2 * 1500 + 2 * 800 + 2 + 1
    assert 0 < found < 2 * 800
    for name in ORDER:
        sec = text.split(f"[{name}]")[1]
        assert re.search(r"^t_delta += [0-9.]+$", sec, re.M), name
    assert re.search(r"^throughput-stonewall = [0-9.]+$", text, re.M)
    assert re.search(r"^rate-stonewall  = [0-9.]+$", text, re.M)


def test_rows_name_their_io500_phase(io500_run):
    tmp, out, _ = io500_run
    with h5py.File(out, "r") as f:
        run = latest_run(f)
        steps = [run["steps"][str(i)].attrs["name"] for i in range(len(run["steps"]))]
        summary = run["summary"][:]
    assert steps == ORDER
    assert sorted(set(summary["step"].tolist())) == list(range(len(ORDER)))
    # The find row: files examined as its operations, the files counted as its matches.
    find = summary[summary["step"] == ORDER.index("find")][0]
    assert find["ops"] == 2 * 1500 + 2 * 800 + 3 and find["matches"] > 0
    # The data and metadata files are gone, the folders the application makes are left.
    assert not any((tmp / "data").rglob("*.*"))


def phase_lines(path):
    """result_phases.txt: {(phase, repetition): {column: value}}, numbers as floats."""
    lines = [ln for ln in path.read_text().splitlines() if not ln.startswith("#")]
    head = lines[0].split("\t")
    rows = {}
    for ln in lines[1:]:
        cells = dict(zip(head, ln.split("\t")))
        for k, v in cells.items():
            if k.endswith(("_s", "_us", "_share")):
                cells[k] = float(v)
        rows[(cells["phase"], int(cells["repetition"]))] = cells
    return head, rows


def test_result_phases_give_every_phase_its_latency(io500_run):
    """iosweep's own file: a line per phase, the window and latency percentiles of every phase
    (find's per file examined, timestamp's one create) as its row in the HDF5 file has them; no
    phase reached the stonewall of 30 s, so each tail is the wait for the slowest rank."""
    tmp, out, _ = io500_run
    head, rows = phase_lines(tmp / "results" / "result_phases.txt")
    assert head[:6] == ["phase", "repetition", "window_s", "first_done_s", "tail_from", "tail_s"]
    assert head[-3:] == ["cache", "provenance", "notes"]
    assert [name for name, _ in rows] == ORDER
    results, _ = summary_lines(tmp / "results" / "result_summary.txt")
    with h5py.File(out, "r") as f:
        summary = latest_run(f)["summary"][:]
    for i, name in enumerate(ORDER):
        r = rows[(name, 1)]
        row = summary[summary["step"] == i][0]
        assert r["tail_from"] == "first-rank", name
        assert r["window_s"] == pytest.approx(row["wall_s"], abs=1e-6)
        assert r["tail_s"] == pytest.approx(r["window_s"] - r["first_done_s"], abs=2e-6)
        assert r["wearout_s"] == 0 and r["wearout_share"] == 0, name
        assert results[name][1] == pytest.approx(r["window_s"], abs=1e-3)
        assert 0 < r["lat_p50_us"] <= r["lat_p99_us"] <= r["lat_max_us"], name
        assert r["lat_p99_us"] == pytest.approx(row["lat_p99_ns"] / 1e3, abs=1e-3)
        # The cache verdict is a part of where the bytes came from, said whole (never cut).
        assert r["cache"] == "-" or all(m in r["provenance"] for m in r["cache"].split(", "))
    # The caches are kept (the application's default): the easy read right after its write
    # is served by the page cache, and says so.
    assert "cached" in rows[("ior-easy-read", 1)]["cache"]
    # find and timestamp: one latency per file examined, per file made: each histogram holds
    # as many as the row has operations.
    with h5py.File(out, "r") as f:
        counts = latest_run(f)["latency"]["counts"][:]
    for name in ["find", "timestamp"]:
        row = summary[summary["step"] == ORDER.index(name)][0]
        assert int(counts[row["point"]].sum()) == row["ops"] > 0, name


@pytest.fixture(scope="module")
def stonewalled_run(tmp_path_factory):
    """Writes larger than a 1 s stonewall lets them finish: the ior writes (8 GiB and 4.7 GB
    per rank: more than a second even on tmpfs) are stopped there and then worn out to the
    slowest rank's count; the mdtest writes are when the storage is slow enough. The stonewall
    bounds what is written, whatever the sizes."""
    tmp = tmp_path_factory.mktemp("io500sw")
    ini = small_ini(tmp, stonewall=1)
    text = ini.read_text()
    for old, new in [("16m", "8g"), ("400", "100000"), ("1500", "60000"), ("800", "60000")]:
        text = text.replace(f"= {old}\n", f"= {new}\n")
    ini.write_text(text)
    out = tmp / "r.h5"
    p = run_iosweep(2, ["io500", ini, "--output", out, "--quiet"], timeout=600, check=0)
    return tmp, out, p


def test_straggler_tail_reported_apart_from_the_wearout(stonewalled_run):
    """A stonewalled write phase: its window runs on after the stonewall (requests in flight,
    the close and its fsync) for tail_s, then the wear-out; the application's time is their
    sum, and the wear-out's share is what it added to the phase's operations or bytes."""
    tmp, out, _ = stonewalled_run
    _, rows = phase_lines(tmp / "results" / "result_phases.txt")
    results, _ = summary_lines(tmp / "results" / "result_summary.txt")
    with h5py.File(out, "r") as f:
        run = latest_run(f)
        summary, ranks = run["summary"][:], run["ranks"][:]
    for name in ["ior-easy-write", "mdtest-easy-write", "ior-hard-write", "mdtest-hard-write"]:
        r = rows[(name, 1)]
        row = summary[summary["step"] == ORDER.index(name)][0]
        if not row["stonewalled"]:
            assert name.startswith("mdtest"), f"{name} was meant to reach the 1 s stonewall"
            assert r["tail_from"] == "first-rank", name
            continue
        assert r["tail_from"] == "stonewall", name
        assert r["tail_s"] == pytest.approx(max(0.0, row["wall_s"] - 1.0), abs=2e-6)
        assert r["wearout_s"] == pytest.approx(row["wearout_max_s"], abs=1e-6)
        # The application's time: window and wear-out, never the tail twice.
        assert results[name][1] == pytest.approx(r["window_s"] + r["wearout_s"], abs=1e-3)
        mine = ranks[ranks["point"] == row["point"]]
        done = row["ops"] if name.startswith("mdtest") else row["bytes"]
        worn = mine["wearout_ops"].sum() if name.startswith("mdtest") else row["wearout_bytes"]
        assert r["wearout_share"] == pytest.approx(worn / (done + worn), abs=1e-6)


def test_unknown_key_refused_as_the_application_refuses_it(tmp_path):
    ini = small_ini(tmp_path, extra="[find]\nbogus = 1\n")
    before = snapshot(tmp_path)
    p = run_iosweep(2, ["io500", ini], check=2)
    assert 'unknown option "bogus"' in p.stderr and "[find]" in p.stderr
    assert len([ln for ln in p.stderr.splitlines() if ln.startswith("iosweep:")]) == 1
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(
    "extra, words",
    [
        ("[nosuch]\n", "unknown section [nosuch]"),
        ("[ior-easy]\nfilePerProc = maybe\n", "expects bool"),
        ("[ior-easy]\nuniqueDir = TRUE\n", "uniqueDir"),
        ("[global]\napi = HDF5\n", "POSIX"),
        ("[debug]\nstonewall-time = 0\n", "stonewall-time = 0"),
        ("[global]\ndatadir = ./da\0ta\n", "holds a NUL character"),
        ("[find]\nnproc = 1\x00\n", "holds a NUL character"),
    ],
)
def test_bad_ini_refused_with_nothing_made(tmp_path, extra, words):
    ini = small_ini(tmp_path, extra=extra)
    before = snapshot(tmp_path)
    p = run_iosweep(1, ["io500", ini], check=2)
    assert words in p.stderr
    assert snapshot(tmp_path) == before


def test_run_options_refused_on_the_command_line(tmp_path):
    ini = small_ini(tmp_path)
    before = snapshot(tmp_path)
    p = run_iosweep(1, ["io500", ini, "--dir", tmp_path], check=2)
    assert "--dir: iosweep io500 takes its folders" in p.stderr
    assert snapshot(tmp_path) == before


def test_dry_run_leaves_nothing(tmp_path):
    ini = small_ini(tmp_path)
    before = snapshot(tmp_path)
    p = run_iosweep(2, ["io500", ini, "--dry-run"], check=0)
    assert "ior-hard-write" in p.stdout and "mdtest-hard-delete" in p.stdout
    assert snapshot(tmp_path) == before


def test_a_result_folder_holding_an_earlier_run_is_refused(tmp_path):
    ini = small_ini(tmp_path, stonewall=1)
    run_iosweep(1, ["io500", ini, "--quiet"], timeout=300, check=0)
    summary = (tmp_path / "results" / "result_summary.txt").read_bytes()
    before = snapshot(tmp_path)
    p = run_iosweep(1, ["io500", ini, "--quiet"], check=2)
    assert "holds an earlier run's result_summary.txt" in p.stderr, p.stderr
    assert snapshot(tmp_path) == before
    assert (tmp_path / "results" / "result_summary.txt").read_bytes() == summary


@pytest.mark.parametrize("cmd", [True, False])
def test_a_drop_caches_cmd_is_said_not_to_run(tmp_path, cmd):
    extra = "[global]\ndrop-caches = TRUE\n" + ("drop-caches-cmd = /sbin/my-drop\n" if cmd else "")
    p = run_iosweep(1, ["io500", small_ini(tmp_path, extra=extra), "--dry-run"], check=0)
    assert ("drop-caches-cmd is not run" in p.stderr) == cmd, p.stderr


def test_repetitions_give_each_score_and_intervals(tmp_path):
    ini = small_ini(tmp_path, stonewall=1)
    out = tmp_path / "r.h5"
    p = run_iosweep(
        2, ["io500", ini, "--repetitions", "3", "--output", out, "--quiet"], timeout=600, check=0
    )
    reps = (tmp_path / "results" / "result_repetitions.txt").read_text().splitlines()
    scores = [ln for ln in reps if ln.startswith("[SCORE ] r")]
    assert [ln.split()[2] for ln in scores] == ["r1", "r2", "r3"]
    totals = [float(re.search(r"TOTAL ([0-9.]+)", ln).group(1)) for ln in scores]
    medians = {
        m.group(1): tuple(float(m.group(i)) for i in (2, 3, 4))
        for ln in reps
        if (m := re.match(r"^\[MEDIAN\] +(\S+) +([0-9.]+) \S* *\[([0-9.]+), ([0-9.]+)\]", ln))
    }
    assert set(medians) == set(ORDER) | {"BW", "MD", "TOTAL"}
    med, low, high = medians["TOTAL"]
    assert med == pytest.approx(sorted(totals)[1], abs=2e-6)
    assert low <= med <= high
    assert min(totals) - 1e-6 <= low and high <= max(totals) + 1e-6
    # The application's two files hold the first repetition, as its one run.
    results, score = summary_lines(tmp_path / "results" / "result_summary.txt")
    assert list(results) == ORDER and score[2] == pytest.approx(totals[0], abs=2e-6)
    assert "[MEDIAN]" in p.stdout
    with h5py.File(out, "r") as f:
        run = latest_run(f)
        names = [run["steps"][str(i)].attrs["name"] for i in range(len(run["steps"]))]
    assert names == [f"r{r}/{n}" for r in (1, 2, 3) for n in ORDER]


def test_repetitions_refused_out_of_bounds(tmp_path):
    ini = small_ini(tmp_path)
    before = snapshot(tmp_path)
    p = run_iosweep(1, ["io500", ini, "--repetitions", "0"], check=2)
    assert "--repetitions: '0' is not a whole number from 1 to 100" in p.stderr
    assert snapshot(tmp_path) == before


def test_help_of_io500_says_what_it_takes(tmp_path):
    before = snapshot(tmp_path)
    p = run_iosweep(1, ["io500", "--help"], check=0)
    assert p.stdout.startswith("Usage: iosweep io500 FILE.ini")
    assert "--repetitions N" in p.stdout and "stonewall-time" in p.stdout
    assert "result_phases.txt" in p.stdout
    assert snapshot(tmp_path) == before
