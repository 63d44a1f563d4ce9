"""scripts/iosweep-compare A.h5[:RUN] B.h5[:RUN]: two real runs of 3 repetitions compared point by
point with bootstrap intervals (reproducible), the gate's exit statuses, settings that differ
listed and their rows left uncompared unless --loose, a one-repetition side said to be
degenerate, and the CSV; the settings compared are exactly those the file declares (its
`settings`, which iosweep makes from its option table), and a run recorded before runs declared
them is compared through `iosweep settings`."""
import csv
import os
import re
import shutil
import subprocess
import tomllib

import h5py
import numpy as np
import pytest

from iosweep_tools.compare import runs as rc
from iosweep_tools.results import hdf5, reader
from iosweep_tools.results import settings as rs
from conftest import SOURCE_DIR, run_ids, run_iosweep

COMPARE = SOURCE_DIR / "scripts" / "iosweep-compare"
INTERVAL = re.compile(
    r"^([\w-]+) +(\d+) +(\d+) +3/3 .* (\d+\.\d{3}) +\[(\d+\.\d{3}), (\d+\.\d{3})\] +(.+)$"
)


def sweep(work, out, *extra, reps="3"):
    run_iosweep(
        2,
        ["run", "--dir", work, "--file-size", "4m", "--seq-record", "1m", "--repetitions", reps]
        + ["--phases", "seq-write,seq-read,rand-read", "--output", out, "--quiet", *extra],
        check=0,
    )


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A and B: the same settings, 3 repetitions each, in two files; C: 8 MiB files (3
    repetitions); D: one repetition of seq-write."""
    tmp = tmp_path_factory.mktemp("runcompare")
    work = tmp / "w"
    work.mkdir()
    a, b, c, d = (tmp / f"{x}.h5" for x in "abcd")
    sweep(work, a)
    sweep(work, b)
    run_iosweep(
        2,
        ["run", "--dir", work, "--file-size", "8m", "--seq-record", "1m", "--repetitions", "3"]
        + ["--phases", "seq-write,seq-read,rand-read", "--output", c, "--quiet"],
        check=0,
    )
    run_iosweep(
        2,
        ["run", "--dir", work, "--file-size", "4m", "--seq-record", "1m", "--phases", "seq-write"]
        + ["--output", d, "--quiet"],
        check=0,
    )
    return tmp, a, b, c, d


def compare(*args):
    return subprocess.run([str(COMPARE), *map(str, args)], capture_output=True, text=True)


def headline(path):
    """{(phase name, ranks): [bandwidth or iops per repetition]} read with h5py."""
    with h5py.File(path, "r") as f:
        g = f["runs"][run_ids(f)[-1]]
        s = g["summary"][()]
        name = {v: k for k, v in h5py.check_enum_dtype(s.dtype["phase"]).items()}
    out = {}
    for row in s:
        phase = name[int(row["phase"])].replace("_", "-")  # the phase's name
        fld = "iops" if phase.startswith("rand") else "bandwidth_Bps"
        out.setdefault((phase, int(row["ranks"])), []).append(float(row[fld]))
    return out


def test_two_runs_compare_with_intervals_reproducibly(runs, tmp_path):
    _, a, b, _, _ = runs
    p = compare(a, b, "--csv", tmp_path / "t.csv")
    assert p.returncode == 0, p.stderr
    assert "settings that differ: none" in p.stdout
    rows = [m.groups() for m in map(INTERVAL.match, p.stdout.splitlines()) if m]
    assert len(rows) == 3 * 2  # 3 phases x (1, 2 ranks)
    table = list(csv.DictReader(open(tmp_path / "t.csv")))
    assert len(table) == 6 and all(r["compared"] == "1" for r in table)
    exact = {(r["phase"], r["ranks"], r["iodepth"]): r for r in table}
    ha, hb = headline(a), headline(b)
    for phase, k, depth, ratio, lo, hi, verdict in rows:
        assert depth == "1"
        want = np.mean(hb[(phase, int(k))]) / np.mean(ha[(phase, int(k))])
        assert float(ratio) == pytest.approx(want, abs=5e-4)
        assert float(lo) <= float(ratio) <= float(hi)
        # The verdict follows the interval as computed (the CSV's exact values), which the
        # table rounds to 3 decimals: [1.0004, 1.2] prints as [1.000, 1.200] and is "faster".
        # Figures close to each other (any two runs on a quiet machine) make such intervals.
        row = exact[(phase, k, depth)]
        ratio_x, lo_x, hi_x = (float(row[c]) for c in ("ratio", "ci_low", "ci_high"))
        assert (f"{ratio_x:.3f}", f"{lo_x:.3f}", f"{hi_x:.3f}") == (ratio, lo, hi)
        assert ratio_x == pytest.approx(want, rel=1e-9)
        expected = "faster" if lo_x > 1 else "slower" if hi_x < 1 else "within noise"
        assert verdict == row["verdict"] == expected
    r0 = table[0]
    assert float(r0["mean_a"]) == np.mean(ha[(r0["phase"], int(r0["ranks"]))])
    assert float(r0["ci_low"]) <= float(r0["ratio"]) <= float(r0["ci_high"])
    # The same files give the same intervals; another seed gives others.
    assert compare(a, b).stdout == p.stdout.replace(f"written: {tmp_path / 't.csv'}\n", "")
    seven = compare(a, b, "--seed", "7").stdout
    assert seven != compare(a, b).stdout
    # The seed is the one said and draws the intervals only: the rows, their ratios and means
    # are the same whatever it is (and with every repetition equal, so are the intervals).
    assert f"seed {rc.DEFAULT_SEED})" in p.stdout and "seed 7)" in seven
    assert compare(a, b, "--seed", "7").stdout == seven

    def points(out):
        return [m.groups()[:4] for m in map(INTERVAL.match, out.splitlines()) if m]

    assert points(seven) == points(p.stdout)


def test_the_gate_fails_an_impossible_speed_up_and_passes_a_tiny_one(runs):
    _, a, b, _, _ = runs
    p = compare(a, b, "--fail-below", "1000")
    assert p.returncode == 1, p.stdout + p.stderr
    assert re.search(r"gate: 6 of 6 compared row\(s\) lie wholly below 1000", p.stdout)
    p = compare(a, b, "--fail-below", "0.001")
    assert p.returncode == 0 and "gate: no compared row (6) lies wholly below 0.001" in p.stdout


def test_runs_named_by_suffix_in_one_file(runs, tmp_path):
    _, a, b, _, _ = runs
    both = tmp_path / "both.h5"
    sweep(tmp_path, both)
    sweep(tmp_path, both)
    with h5py.File(both, "r") as f:
        first, second = run_ids(f)
    p = compare(f"{both}:{first}", f"{both}:{second}")
    assert p.returncode == 0, p.stderr
    assert f"A: '{both}' run {first}" in p.stdout and f"B: '{both}' run {second}" in p.stdout


def test_differing_settings_are_listed_and_not_compared_unless_loose(runs):
    _, a, _, c, _ = runs
    p = compare(a, c)
    assert p.returncode == 0, p.stdout
    assert "file size: A 4 MiB, B 8 MiB (every row)" in p.stdout
    table = [ln for ln in p.stdout.splitlines() if ln.startswith(("seq-", "rand-"))]
    assert len(table) == 6 and all("not compared: file size differs" in ln for ln in table)
    p = compare(a, c, "--loose")
    assert p.returncode == 0
    assert len([m for m in map(INTERVAL.match, p.stdout.splitlines()) if m]) == 6


def _copy_changed(src, dst, change):
    shutil.copy(src, dst)
    with h5py.File(dst, "r+") as f:
        change(f, f["runs"][run_ids(f)[-1]])
    return dst


def _aborted(f, g):
    """The run's status made `aborted`, in its attribute and in the run_index."""
    members = h5py.check_enum_dtype(g.attrs.get_id("status").dtype)
    g.attrs.modify("status", members["aborted"])
    idx = f["run_index"][()]
    idx["status"][-1] = h5py.check_enum_dtype(idx.dtype["status"])["aborted"]
    f["run_index"][...] = idx


def _seq_read_zero(f, g):
    s = g["summary"][()]
    seq_read = h5py.check_enum_dtype(s.dtype["phase"])["seq_read"]
    s["bandwidth_Bps"][s["phase"] == seq_read] = 0.0
    g["summary"][...] = s


# The gate on comparisons that left something out: (id, A, B, options, exit status, lines that
# must be printed). A regression gate that compared fewer rows than the runs hold is not a pass
# unless --allow-partial says so, and one that compared nothing never is.
GATE = [
    ("every-row-differs", "a", "c", [], 1, [
        "gate: no row was compared (of 6 the runs hold): nothing to pass",
        "  left out (6; 0 of 6 rows compared):",
        "    seq-write at 1 ranks x depth 1: not compared: file size differs"]),
    ("every-row-differs-allowed", "a", "c", ["--allow-partial"], 1, [
        "gate: no row was compared (of 6 the runs hold): nothing to pass"]),
    ("b-stopped-after-its-first-phase", "a", "d-aborted", [], 1, [
        "gate: no compared row (2) lies wholly below 0.001, but the comparison is partial: not a"
        " pass (--allow-partial passes on the compared rows alone)",
        "  left out (5; 2 of 6 rows compared):",
        "    seq-read at 1 ranks x depth 1: only in A",
        "    rand-read at 2 ranks x depth 1: only in A",
        "    B's run {B} is aborted, not complete"]),
    ("b-stopped-allowed", "a", "d-aborted", ["--allow-partial"], 0, [
        "gate: no compared row (2) lies wholly below 0.001 (--allow-partial: the rest left out)",
        "    seq-read at 2 ranks x depth 1: only in A"]),
    ("a-figures-zero", "a-zero", "b", [], 1, [
        "  left out (2; 4 of 6 rows compared):",
        "    seq-read at 1 ranks x depth 1: not comparable (a figure is NaN, or A's mean is not"
        " above 0)"]),
]  # fmt: skip


@pytest.mark.parametrize("case", GATE, ids=[g[0] for g in GATE])
def test_a_gate_that_left_rows_out_is_not_a_pass(runs, case):
    tmp, a, b, c, d = runs
    files = {
        "a": a,
        "b": b,
        "c": c,
        "d-aborted": _copy_changed(d, tmp / "d-aborted.h5", _aborted),
        "a-zero": _copy_changed(a, tmp / "a-zero.h5", _seq_read_zero),
    }
    _, first, second, options, status, lines = case
    p = compare(files[first], files[second], "--fail-below", "0.001", *options)
    assert p.returncode == status, p.stdout + p.stderr
    with h5py.File(files[second], "r") as f:
        rid = run_ids(f)[-1]
    out = p.stdout.splitlines()
    for line in lines:
        assert line.format(B=rid) in out, (line, p.stdout)


def test_the_csv_keeps_text_a_spreadsheet_would_run_text(runs, tmp_path):
    """A setting that differs only in the configuration is listed as its option
    (--wire-interface), which a spreadsheet would take for a formula: the CSV holds it after a
    single quote, the numbers as they are."""
    _, a, b, _, _ = runs

    def wire(f, g):
        config = str(g.attrs["config"])
        assert 'wire-interface=["auto"]' in config
        g.attrs["config"] = config.replace('wire-interface=["auto"]', 'wire-interface=["lo"]')
        assert hdf5.text(g.attrs["wire_interface"]) == "auto"
        g.attrs["wire_interface"] = "lo"

    other = _copy_changed(b, tmp_path / "b.h5", wire)
    p = compare(a, other, "--csv", tmp_path / "t.csv")
    assert p.returncode == 0, p.stderr
    rows = list(csv.DictReader(open(tmp_path / "t.csv")))
    assert rows and all(r["differs"] == "'--wire-interface" for r in rows)
    assert all(float(r["mean_a"]) > 0 for r in rows)


def test_one_repetition_makes_the_interval_degenerate_and_says_so(runs):
    _, a, _, _, d = runs
    p = compare(a, d)
    assert p.returncode == 0, p.stderr
    line = next(ln for ln in p.stdout.splitlines() if ln.startswith("seq-write") and " 1 " in ln)
    assert "degenerate on B's side: 1 repetition" in line
    assert "only in A: seq-read at 1 ranks x depth 1" in p.stdout


def test_bootstrap_of_equal_figures_and_of_shifted_ones():
    rng = np.random.default_rng(1)
    assert rc.bootstrap([5.0, 5.0, 5.0], [5.0, 5.0, 5.0], 500, rng) == (1.0, 1.0, 1.0)
    ratio, lo, hi = rc.bootstrap([1.0, 1.1, 0.9], [2.0, 2.2, 1.8], 2000, rng)
    assert ratio == pytest.approx(2.0) and 1.6 < lo <= ratio <= hi < 2.5
    assert rc.bootstrap([3.0], [6.0], 2000, rng) == (2.0, 2.0, 2.0)
    # Another seed draws other resamples: the same ratio, another interval, where the
    # repetitions spread.
    a, b = [1.0, 1.3, 0.8, 1.1, 0.95], [2.1, 1.7, 2.4, 2.0, 2.6]
    one = rc.bootstrap(a, b, 2000, np.random.default_rng(1))
    two = rc.bootstrap(a, b, 2000, np.random.default_rng(2))
    assert one[0] == two[0] and one[1:] != two[1:]
    assert one == rc.bootstrap(a, b, 2000, np.random.default_rng(1))


def test_the_comparison_reads_the_file_not_a_copy(runs):
    _, a, b, _, _ = runs
    cmp = rc.compare(reader.read(a), reader.read(b))
    ha = headline(a)
    for r in cmp.rows:
        assert r.a == ha[(r.phase, r.ranks)]


def test_the_number_of_folders_is_a_setting_and_their_paths_are_not(runs, tmp_path):
    """Several folders spread the ranks over several drives: runs over another number of folders
    are not compared point by point (unless --loose). A rerun in another folder of the same file
    system measures the same thing, and the same folders with or without a trailing slash are
    the same setting."""
    tmp, a, _, _, _ = runs
    one, two = tmp_path / "d1", tmp_path / "d2"
    one.mkdir()
    two.mkdir()
    listed, repeated, elsewhere = tmp_path / "l.h5", tmp_path / "r.h5", tmp_path / "e.h5"
    sweep(f"{one},{two}", listed, reps="1")
    sweep(f"{one}/,{two}/", repeated, reps="1")
    p = compare(listed, repeated)
    assert p.returncode == 0 and "settings that differ: none" in p.stdout, p.stdout
    sweep(one, elsewhere, reps="1")
    p = compare(a, elsewhere)
    assert p.returncode == 0 and "--dir" not in p.stdout, p.stdout
    p = compare(a, listed)
    assert p.returncode == 0, p.stderr
    assert "--dir folders: A 1, B 2 (every row)" in p.stdout, p.stdout
    table = [ln for ln in p.stdout.splitlines() if ln.startswith(("seq-", "rand-"))]
    assert len(table) == 6 and all("not compared: --dir folders differs" in ln for ln in table)
    p = compare(a, listed, "--loose")
    assert len([ln for ln in p.stdout.splitlines() if "not compared" in ln]) == 0, p.stdout


def test_metadata_settings_keep_only_the_metadata_rows_from_comparison(tmp_path):
    """Runs whose metadata items differ: their metadata rows are not compared, their data rows
    are; a file size that differs keeps only the data rows out."""
    work = tmp_path / "w"
    work.mkdir()
    out = tmp_path / "md.h5"
    for items, size in (("20", "1m"), ("30", "1m"), ("30", "2m")):
        run_iosweep(
            1,
            ["run", "--dir", work, "--file-size", size, "--seq-record", "1m", "--md-items", items]
            + ["--phases", "seq-write,md-create", "--output", out, "--quiet"],
            check=0,
        )
    with h5py.File(out, "r") as f:
        a, b, c = run_ids(f)
    items = rc.compare(reader.read(out, a), reader.read(out, b))
    assert [(d.what, d.phases) for d in items.differences] == [
        ("metadata items per rank", {"md-create"})
    ]
    assert {r.phase: r.compared for r in items.rows} == {"seq-write": True, "md-create": False}
    size = rc.compare(reader.read(out, b), reader.read(out, c))
    assert [(d.what, d.phases) for d in size.differences] == [("file size", {"seq-write"})]
    assert {r.phase: r.compared for r in size.rows} == {"seq-write": False, "md-create": True}


def _latest(path):
    with h5py.File(path, "r") as f:
        rid = run_ids(f)[-1]
        return rid, hdf5.text(f["runs"][rid].attrs["settings"])


def test_the_binary_declares_the_settings_and_makes_them_again_from_a_configuration(runs):
    """Every run stores the settings compare must know, made from the option table; `iosweep
    settings` makes the same text of a stored run from its recorded configuration."""
    _, a, _, _, _ = runs
    rid, stored = _latest(a)
    p = run_iosweep(1, ["settings", f"{a}:{rid}"], check=0)
    assert p.stdout == stored
    table = tomllib.loads(stored)
    assert table["file_size_bytes"]["what"] == "file size" and table["dir"]["value"] == "1"
    assert (
        table["file_size_bytes"]["unit"] == "bytes"
        and "md_create" not in table["file_size_bytes"]["phases"]
    )
    assert table["fsync"]["phases"] == [] and table["fsync"]["shown"] == "fsync_phases"
    assert {"engine_detail", "fs_type", "pattern_bytes"} <= set(table)
    # What never keeps two runs from being compared is not declared.
    assert not {"seed", "label", "repetitions", "rated_bw_Bps", "timeseries_bin_s"} & set(table)
    p = run_iosweep(1, ["settings", str(a) + ".none"], check=2)
    said = p.stderr.splitlines()[0]
    assert said.startswith("iosweep: settings: '") and said.endswith(".none' does not exist")


def _every_setting_changed(f, g):
    """Every declared setting of the run made another value (its attribute, or the value the
    binary decided: --dir's folders), and one setting no iosweep knows added; a seed and a label
    changed too, which are no settings."""
    text = hdf5.text(g.attrs["settings"])
    for attr, e in tomllib.loads(text).items():
        if "value" not in e:
            v = g.attrs[attr]
            one = v.dtype.type(1) if isinstance(v, np.integer) else 1
            g.attrs[attr] = v + one if isinstance(v, (int, np.integer)) else f"{hdf5.text(v)}x"
    assert 'dir = {what = "--dir folders"' in text and 'value = "1"}' in text
    text = "\n".join(
        ln.replace('value = "1"}', 'value = "10"}') if ln.startswith("dir = ") else ln
        for ln in text.splitlines()
    )
    g.attrs["seed"] = int(g.attrs["seed"]) + 1
    g.attrs["label"] = "another"
    g.attrs["made_up_bytes"] = 3
    g.attrs["settings"] = (
        text + '\nmade_up_bytes = {what = "made up", option = "", phases = ["seq_read"],'
        ' unit = "bytes"}\n'
    )


def test_compare_names_exactly_the_settings_the_file_declares(runs, tmp_path):
    """Every setting B's file declares changed (and one made up, that no iosweep knows): the
    comparison lists each, with the phases the file says it changes, and nothing else (a seed
    and a label that differ are no settings)."""
    _, a, b, _, _ = runs
    other = _copy_changed(b, tmp_path / "b.h5", _every_setting_changed)
    _, declared = _latest(other)
    table = tomllib.loads(declared)
    cmp = rc.compare(reader.read(a), reader.read(other))
    present = {"seq-write", "seq-read", "rand-read"}  # the file declares enum names (seq_write)
    want = {e["what"]: {p.replace("_", "-") for p in e["phases"]} & present for e in table.values()}
    want = {k: v for k, v in want.items() if v}
    assert {d.what: d.phases for d in cmp.differences} == want
    made_up = next(d for d in cmp.differences if d.what == "made up")
    assert (made_up.a, made_up.b) == ("not recorded", "3 B")
    # Two copies with the same made-up setting and the same value: no difference at all.
    p = compare(other, other)
    assert "settings that differ: none" in p.stdout, p.stdout


def _older(f, g):
    """The run as iosweep wrote it before runs declared their settings."""
    del g.attrs["settings"]


def test_a_run_from_before_the_settings_is_compared_through_the_binary(runs, tmp_path):
    """A run without `settings` (recorded before iosweep stored them) is compared on what
    `iosweep settings` makes of its configuration: the same differences as the newer file."""
    _, a, _, c, _ = runs
    older = _copy_changed(c, tmp_path / "c-older.h5", _older)
    assert [s.attribute for s in rs.declared(reader.read(older))] == [
        s.attribute for s in rs.declared(reader.read(c))
    ]
    p, q = compare(a, c), compare(a, older)
    assert p.returncode == q.returncode == 0, q.stderr
    assert "file size: A 4 MiB, B 8 MiB (every row)" in q.stdout
    assert p.stdout.replace(str(c), "X") == q.stdout.replace(str(older), "X")
    # Without a binary to ask, the command says so in one line rather than guess.
    p = subprocess.run(
        [str(COMPARE), str(a), str(older)],
        capture_output=True,
        text=True,
        env={**os.environ, "IOSWEEP_BIN": str(tmp_path / "no-iosweep")},
    )
    assert p.returncode != 0 and p.stderr.count("\n") == 1, p.stderr
    assert "records no settings" in p.stderr
