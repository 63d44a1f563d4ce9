"""scripts/iosweep-load --csv DIR and --json FILE: every table of real runs round-trips with h5py
value for value (NaN as nan in CSV, null in JSON), units in the column names where the names
lack them, the latency histogram rebuilt exactly from its rows, one run or all; a run over two
folders carries its folders and its drive view, a run of metadata phases its rows and fields."""
import csv
import json
import math
import os
import resource
import shutil
import stat
import subprocess

import h5py
import numpy as np
import pytest

from iosweep_tools.results import hdf5
from iosweep_tools.results import export
from conftest import SOURCE_DIR, latest_run, make_results, run_ids, snapshot

LOAD = SOURCE_DIR / "scripts" / "iosweep-load"
TABLES = (
    "rank_map",
    "summary",
    "ranks",
    "nodes",
    "device",
    "timeseries",
    "rank_usage",
    "wire",
    "mounts",
    "final_math",
    "final_math_drives",
)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("export")
    work, other = tmp / "w", tmp / "w2"
    work.mkdir()
    other.mkdir()
    out = tmp / "r.h5"
    for label, folders in (("one", work), ("two", f"{work},{other}")):
        make_results(2, folders, out, "2m", "1m", "--timeseries-bin", "1ms", "--label", label)
    make_results(2, work, out, "1m", "1m", "--phases", "seq-write,md", "--md-items", "10")
    return tmp, out


def load(*args):
    return subprocess.run([str(LOAD), *map(str, args)], capture_output=True, text=True)


def field_of(column):
    return column.split(" (")[0]


def same(stored, exported, nan):
    """A stored value and what the export holds for it (`nan`: how NaN is written)."""
    if isinstance(stored, bytes):
        return exported == stored.decode()
    if isinstance(stored, (float, np.floating)):
        if math.isnan(stored):
            return exported == nan
        return float(exported) == float(stored)
    return int(exported) == int(stored)


def enum_names(ds):
    """{field: {value: name}} of a table's enum fields: a phase by its name as --phases takes it
    (the enum's rand_write is exported rand-write), an engine by its enum name."""
    return {
        f: {v: k.replace("_", "-") if f == "phase" else k for k, v in m.items()}
        for f in ds.dtype.names
        if (m := h5py.check_enum_dtype(ds.dtype[f])) is not None
    }


def check_table(f, name, columns, rows, nan, run_col=True):
    """Every row of every run's table `name` is in `rows` in order, every value equal."""
    at = 0
    for rid in run_ids(f):
        ds = f["runs"][rid][name]
        data, enums = ds[()], enum_names(ds)
        for i in range(len(data)):
            row = rows[at]
            at += 1
            cells = row[1:] if run_col else row
            if run_col:
                assert row[0] == rid
            for col, v in zip(columns[1:] if run_col else columns, cells):
                fld = field_of(col)
                stored = data[fld][i]
                if fld in enums:
                    assert v == enums[fld][int(stored)], (name, fld)
                else:
                    assert same(stored, v, nan), (name, i, fld, stored, v)
    assert at == len(rows)


def test_csv_round_trips_every_table(results, tmp_path):
    tmp, out = results
    d = tmp_path / "csv"
    p = load(out, "--csv", d)
    assert p.returncode == 0, p.stderr
    names = sorted(x.name for x in d.iterdir())
    assert names == sorted([".iosweep-export"] + [f"{t}.csv" for t in TABLES + ("latency", "runs")])
    with h5py.File(out, "r") as f:
        for t in TABLES:
            r = list(csv.reader(open(d / f"{t}.csv")))
            check_table(f, t, r[0], r[1:], "nan")
        # Units in names only where the name lacks them.
        head = next(csv.reader(open(d / "summary.csv")))
        assert {"wall_s", "bandwidth_Bps", "lat_p99_ns", "bytes", "ops", "iops"} <= set(head)
        assert {"matches (rows)", "iodepth (requests)", "expected_matches (rows)"} <= set(head)
        assert "point" in head and "phase" in head
        # The drive view, units in names as the others: every new field of every table.
        drive = {"drives", "drive_bw_min_Bps", "drive_bw_max_Bps", "drive_slowest"}
        assert drive | {"drive_fastest", "drive_fraction_min"} <= set(head)
        device = set(next(csv.reader(open(d / "device.csv"))))
        assert {"drive", "folders", "ranks", "claimed_bytes", "seconds (s)"} <= device
        assert {"drive_Bps", "drive_fraction"} <= device
        assert "folder" in next(csv.reader(open(d / "ranks.csv")))
        assert "folder" in next(csv.reader(open(d / "rank_map.csv")))
        assert {"folder", "dir"} <= set(next(csv.reader(open(d / "mounts.csv"))))
        nan_cells = [r for r in csv.DictReader(open(d / "summary.csv")) if r["device_fraction"]]
        assert any(r["cached_fraction_mean"] == "nan" for r in nan_cells)
        # The histogram: every nonzero bucket one row; rebuilt, the counts are the file's.
        for rid in run_ids(f):
            g = f["runs"][rid]["latency"]
            counts = np.zeros_like(g["counts"][()])
            for r in csv.DictReader(open(d / "latency.csv")):
                if r["run_id"] == rid:
                    b = int(r["bucket"])
                    assert int(r["bucket_lower_ns"]) == g["bucket_lower_ns"][b]
                    assert int(r["bucket_upper_ns"]) == g["bucket_upper_ns"][b]
                    counts[int(r["point"]), b] = int(r["count (ops)"])
            assert (counts == g["counts"][()]).all()
        runs = list(csv.DictReader(open(d / "runs.csv")))
        assert [r["run_id"] for r in runs] == run_ids(f)
        g = f["runs"][run_ids(f)[0]]
        assert runs[0]["config"] == g.attrs["config"]
        assert json.loads(runs[0]["points"]) == g.attrs["points"].tolist()
        assert int(runs[0]["file_size_bytes"]) == g.attrs["file_size_bytes"]
        # The second run's folders: both in its dir, each folder of its ranks one of them.
        g = f["runs"][run_ids(f)[1]]
        assert runs[1]["dir"] == g.attrs["dir"] == f"{tmp / 'w'},{tmp / 'w2'}"
        mine = [r for r in csv.DictReader(open(d / "ranks.csv")) if r["run_id"] == run_ids(f)[1]]
        assert {r["folder"] for r in mine} == {"0", "1"}
        # The third run's metadata rows: ops/s, their items and folders, what the storage counted
        # per operation (the data fractions NaN), operations per node.
        md = {"md_items", "md_folders", "md_branch", "md_cache_drop"}
        md |= {"md_device_bytes_per_op (bytes/op)", "md_wire_bytes_per_op (bytes/op)"}
        assert md | {"rank_iops_min (ops/s)", "rank_iops_mean (ops/s)"} <= set(head)
        third = run_ids(f)[2]
        rows = [r for r in csv.DictReader(open(d / "summary.csv")) if r["run_id"] == third]
        creates = [r for r in rows if r["phase"] == "md-create"]  # the phase's name
        assert [int(r["md_items"]) for r in creates] == [10 * int(r["ranks"]) for r in creates]
        assert all(r["device_fraction"] == "nan" and float(r["iops"]) > 0 for r in creates)
        assert {r["phase"] for r in rows} >= {"md-mkdir", "md-stat", "md-rmdir"}
        assert {"ops", "iops"} <= set(next(csv.reader(open(d / "nodes.csv"))))


def test_json_round_trips_every_table_with_null_for_nan(results, tmp_path):
    _, out = results
    path = tmp_path / "r.json"
    p = load(out, "--json", path)
    assert p.returncode == 0, p.stderr
    text = path.read_text()
    assert "NaN" not in text  # JSON has none: null stands for it
    doc = json.loads(text)
    assert doc["format"] == "iosweep-export" and doc["source"] == str(out)
    with h5py.File(out, "r") as f:
        assert [r["run_id"] for r in doc["runs"]] == run_ids(f)
        for t in TABLES:
            cols = doc["runs"][0]["tables"][t]["columns"]
            rows = [[r["run_id"]] + row for r in doc["runs"] for row in r["tables"][t]["rows"]]
            check_table(f, t, ["run_id"] + cols, rows, None)
        for r in doc["runs"]:
            g = f["runs"][r["run_id"]]
            assert r["hosts"] == [hdf5.text(h) for h in g["hosts"][()]]
            assert r["attributes"]["argv"] == g.attrs["argv"]
            assert r["attributes"]["filter_key"] == int(g.attrs["filter_key"])  # uint64, exact


def test_one_run_only(results, tmp_path):
    _, out = results
    with h5py.File(out, "r") as f:
        second = run_ids(f)[1]
        n = len(f["runs"][second]["summary"])
    p = load(out, "--run", second, "--csv", tmp_path / "one", "--json", tmp_path / "one.json")
    assert p.returncode == 0, p.stderr
    rows = list(csv.DictReader(open(tmp_path / "one" / "summary.csv")))
    assert len(rows) == n and {r["run_id"] for r in rows} == {second}
    doc = json.loads((tmp_path / "one.json").read_text())
    assert [r["run_id"] for r in doc["runs"]] == [second]


# A dashboard reads the summary from a pipe: `--json -` writes the same document to standard
# output and nothing else there (the CSV files an export also wrote are named on stderr).
def test_json_to_standard_output_for_a_dashboard(results, tmp_path):
    _, out = results
    with h5py.File(out, "r") as f:
        second = run_ids(f)[1]
        n = len(f["runs"][second]["summary"])
    p = load(out, "--run", second, "--json", "-", "--csv", tmp_path / "t")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert [r["run_id"] for r in doc["runs"]] == [second]
    summary = doc["runs"][0]["tables"]["summary"]
    assert len(summary["rows"]) == n and "bandwidth_Bps" in summary["columns"]
    assert p.stderr.startswith("written: ") and (tmp_path / "t" / "summary.csv").exists()
    assert not (tmp_path / "-").exists()


def test_column_names_follow_the_documented_convention():
    c = export.column_name
    assert c("wall_s", "s") == "wall_s" and c("lat_p50_ns", "ns") == "lat_p50_ns"
    assert c("bandwidth_Bps", "bytes/s") == "bandwidth_Bps" and c("iops", "ops/s") == "iops"
    assert c("bytes", "bytes") == "bytes" and c("point", "1") == "point"
    assert c("matches", "rows") == "matches (rows)" and c("seconds", "s") == "seconds (s)"


# Labels a spreadsheet would take for a formula, and what the CSV holds for them (OWASP: a single
# quote before a cell that begins with =, +, -, @, a tab or a carriage return; a quote before one
# that begins with a quote, so that one leading quote removed always gives the text back).
FORMULAS = {
    '=HYPERLINK("http://x","y")': '\'=HYPERLINK("http://x","y")',
    "-2+3": "'-2+3",
    "@SUM(A1)": "'@SUM(A1)",
    "'quoted": "''quoted",
    "-5": "-5",  # a number as written: a spreadsheet makes it -5, never a formula
}


def test_text_a_spreadsheet_would_run_stays_text_and_numbers_stay_numbers(tmp_path):
    work = tmp_path / "w"
    work.mkdir()
    out = tmp_path / "r.h5"
    for label in FORMULAS:
        make_results(1, work, out, "1m", "1m", "--phases", "seq-write", f"--label={label}")
    p = load(out, "--csv", tmp_path / "csv", "--json", tmp_path / "r.json")
    assert p.returncode == 0, p.stderr
    runs = list(csv.DictReader(open(tmp_path / "csv" / "runs.csv")))
    assert [r["label"] for r in runs] == list(FORMULAS.values())
    assert [r["label"].removeprefix("'") if r["label"].startswith("'") else r["label"]
            for r in runs] == list(FORMULAS)  # fmt: skip
    doc = json.loads((tmp_path / "r.json").read_text())  # JSON holds the text as it is
    assert [r["attributes"]["label"] for r in doc["runs"]] == list(FORMULAS)
    # Negative numbers stay numbers: the merged rows of the time series (rank -1), where the
    # file has them.
    with h5py.File(out, "r") as f:
        merged = (latest_run(f)["timeseries"]["rank"] < 0).any()
    ranks = {r["rank"] for r in csv.DictReader(open(tmp_path / "csv" / "timeseries.csv"))}
    assert ("-1" in ranks) == bool(merged) and not any(r.startswith("'") for r in ranks)


# ------------------------------------------------------------------- the set, whole or nothing


def _moved_aside(path, then):
    """Does `then` with `path` renamed aside (inode and modification time kept), then puts it
    back: the export that wrote it still finds it as it wrote it."""

    def prepare(d):
        aside = path(d).with_name(path(d).name + ".aside")
        os.rename(path(d), aside)
        then(d)

        def undo():
            target = path(d)
            if target.is_dir():
                target.rmdir()
            elif target.exists():
                target.unlink()
            os.rename(aside, target)

        return undo

    return prepare


def _edited(d):
    p = d / "summary.csv"
    st = p.stat()
    with open(p, "a") as f:
        f.write("x\n")

    def undo():
        os.truncate(p, st.st_size)
        os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))

    return undo


def _fsize_limit(kib):
    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (kib << 10, kib << 10))

    return limit


# What is in the folder of an earlier export (and what the export then does): (id, the folder
# prepared (returns how to undo it), a limit the command runs under, exit status, the start of
# its line after "iosweep-load: --csv: "). Each leaves the folder, the JSON file beside it and
# the earlier export exactly as they were.
SETS = [
    ("a-table-name-taken-by-a-folder",
     _moved_aside(lambda d: d / "timeseries.csv", lambda d: (d / "timeseries.csv").mkdir()),
     None, 2, "'{d}/timeseries.csv' is not a regular file"),
    ("a-table-edited-since", _edited, None, 2, "'{d}/summary.csv' was changed since the export"),
    ("tables-no-export-wrote", _moved_aside(lambda d: d / ".iosweep-export", lambda d: None),
     None, 2, "'{d}/device.csv' is not a table an earlier export wrote"),
    ("a-manifest-that-is-not-one",
     _moved_aside(lambda d: d / ".iosweep-export",
                  lambda d: (d / ".iosweep-export").write_text("{}")),
     None, 2, "'{d}/.iosweep-export' is not the manifest of an export"),
    ("the-disk-full-half-way", lambda d: (lambda: None), _fsize_limit(24), 1, "cannot write '"),
]  # fmt: skip


def files_of(snap):
    """A snapshot without the folders' modification times (files made and removed again in a
    folder change its time, not its content)."""
    return {p: v[:1] + v[2:] if stat.S_ISDIR(v[2]) else v for p, v in snap.items()}


def test_an_export_is_written_whole_or_not_at_all(results, tmp_path):
    _, out = results
    d, js = tmp_path / "csv", tmp_path / "r.json"
    p = load(out, "--csv", d, "--json", js)
    assert p.returncode == 0, p.stderr
    (d / "notes.txt").write_text("the user's own\n")
    for case, prepare, limit, status, said in SETS:
        undo = prepare(d)
        before = snapshot(tmp_path)
        p = subprocess.run(
            [str(LOAD), str(out), "--csv", str(d), "--json", str(js)],
            capture_output=True,
            text=True,
            preexec_fn=limit,
        )
        lines = p.stderr.splitlines()
        assert p.returncode == status and len(lines) == 1, (case, p.stderr)
        assert lines[0].startswith("iosweep-load: --csv: " + said.format(d=d)), (case, lines)
        assert files_of(snapshot(tmp_path)) == files_of(before), f"{case}: the folder changed"
        if status == 2:  # refused before anything was written: the folder untouched too
            assert snapshot(tmp_path) == before, case
        undo()
    # An earlier export is replaced whole: a table the new export lacks (this file has no
    # mounts) is removed, the user's own file stays, the manifest lists what is there.
    no_mounts = tmp_path / "no-mounts.h5"
    shutil.copy(out, no_mounts)
    with h5py.File(no_mounts, "r+") as f:
        for g in f["runs"].values():
            del g["mounts"]
    p = load(no_mounts, "--csv", d)
    assert p.returncode == 0, p.stderr
    names = sorted(x.name for x in d.iterdir())
    tables = sorted(f"{t}.csv" for t in TABLES + ("latency", "runs") if t != "mounts")
    assert names == sorted([".iosweep-export", "notes.txt"] + tables)
    manifest = json.loads((d / ".iosweep-export").read_text())
    assert sorted(manifest["tables"]) == tables
