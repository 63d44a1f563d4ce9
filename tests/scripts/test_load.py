"""scripts/iosweep-load: prints the runs of a results file (where a run over several folders put
its files) and returns DataFrames on import, the drive view among them."""
import math
import shutil
import subprocess

import h5py
import pytest

from iosweep_tools.results import drive_view, frames, hdf5, names
from iosweep_tools.results.file import NoSuchRun, ResultsError
from conftest import SOURCE_DIR, make_results, run_ids


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("load")
    work, other = tmp / "w", tmp / "w2"
    work.mkdir()
    other.mkdir()
    out = tmp / "r.h5"
    for label, folders in (("first", work), ("second", f"{work},{other}")):
        make_results(
            2, folders, out, "2MiB", "1MiB", "--phases", "seq-write,rand-read", "--label", label
        )
    return out


def test_import_returns_one_row_per_summary_point_with_run_attributes(results):
    runs, summary = frames.load(results)
    # One row per run, in the order they ran; one row per summary point, run by run, in point
    # order, each carrying its own run's attributes.
    assert list(runs["label"]) == ["first", "second"]
    with h5py.File(results, "r") as f:
        assert list(runs["run_id"]) == run_ids(f)
    assert len(summary) == 2 * 2 * 2  # runs x phases x points
    assert list(summary["run_id"]) == [r for r in runs["run_id"] for _ in range(4)]
    assert list(summary["label"]) == ["first"] * 4 + ["second"] * 4
    assert list(summary["point"]) == [0, 1, 2, 3] * 2
    # Each phase by its name, as --phases takes it (the file's enum stores seq_write).
    assert list(summary["phase_name"]) == ["seq-write", "rand-read"] * 4
    assert list(summary["ranks"]) == [1, 1, 2, 2] * 2
    assert (summary["file_size_bytes"] == 2 * 2**20).all()
    assert (summary["bytes"] == summary["ranks"] * 2 * 2**20).all()
    # The record size each row's phase used: 1 MiB sequential, 4 KiB random (and the bytes per
    # operation iosweep counted agree).
    assert list(summary["record_bytes"]) == [2**20, 4096] * 4
    assert (summary["bytes"] == summary["ops"] * summary["record_bytes"]).all()
    assert (summary["scan_record_bytes"] == runs["scan_record_bytes"].iloc[0]).all()
    ranks = frames.table(results, "ranks")
    assert len(ranks) == 2 * (1 + 2)
    lower, upper, counts = frames.latency(results)
    assert counts.shape == (4, len(lower)) and (upper > lower).all()


def test_command_prints_every_run(results):
    p = subprocess.run(
        [str(SOURCE_DIR / "scripts" / "iosweep-load"), str(results)], capture_output=True, text=True
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.count("complete") == 2
    assert "seq-write" in p.stdout and "rand-read" in p.stdout
    assert "seq_write" not in p.stdout and "rand_read" not in p.stdout
    # The run over two folders says where its files went: its folders and the drives its
    # device table names (one run, one line).
    work = results.parent / "w"
    with h5py.File(results, "r") as f:
        dev = f["runs"][run_ids(f)[1]]["device"][()]
    drives = sorted({(int(d), n.decode()) for d, n in zip(dev["drive"], dev["device"])})
    line = f"  2 folders of --dir: {work}, {work}2; {len(drives)} drive"
    assert p.stdout.count(" folders of --dir: ") == 1 and line in p.stdout, p.stdout
    assert all(f"{d} {name} (node 0)" in p.stdout for d, name in drives)


def test_command_refuses_a_file_that_is_not_results(tmp_path):
    bad = tmp_path / "x.h5"
    bad.write_text("hello")
    p = subprocess.run(
        [str(SOURCE_DIR / "scripts" / "iosweep-load"), str(bad)], capture_output=True, text=True
    )
    assert p.returncode == 2 and "not an HDF5 file" in p.stderr and "Traceback" not in p.stderr


def test_the_api_lists_runs_and_gives_each_table_of_a_run_as_a_dataframe(results):
    ids = frames.list_runs(results)
    with h5py.File(results, "r") as f:
        assert ids == run_ids(f)
        first = f["runs"][ids[0]]
        # Every table of the run: its groups (latency, steps) and its host list are not tables.
        stored = {
            name for name in first if isinstance(first[name], h5py.Dataset) and name != "hosts"
        }
        rows = {name: len(first[name]) for name in stored}
    tables = frames.tables(results, ids[0])
    assert set(tables) == stored and list(tables)[0] == "summary"
    assert {name: len(t) for name, t in tables.items()} == rows
    # The summary as load() gives it, decoded and joined; any other table as stored.
    runs, summary = frames.load(results)
    assert tables["summary"].equals(summary[summary["run_id"] == ids[0]].reset_index(drop=True))
    assert list(tables["ranks"].columns) == list(first_fields(results, ids[0], "ranks"))
    assert frames.table(results, "ranks", ids[0]).equals(tables["ranks"])
    assert frames.tables(results)["summary"]["run_id"].eq(ids[-1]).all()  # the latest by default
    with pytest.raises(ResultsError, match="bogus is not a table of a run"):
        frames.table(results, "bogus")
    with pytest.raises(NoSuchRun, match="20990101T000000.000Z-00000000 is not in"):
        frames.tables(results, "20990101T000000.000Z-00000000")


def first_fields(path, run_id, name):
    with h5py.File(path, "r") as f:
        return f["runs"][run_id][name].dtype.names


def test_every_run_lists_every_phase_the_metadata_phases_included(results):
    with h5py.File(results, "r") as f:
        run = f["runs"][run_ids(f)[-1]]
        table = names.phase_table(run.attrs)
    # A run of data phases alone lists the metadata phases too, without records.
    assert table["md-stat"]["record"] == "none" and "metadata" in table["md-stat"]["flags"]
    assert table["md-stat"]["enum_name"] == "md_stat"
    assert names.record_attr("md-stat", {"phase_table": table_text(results)}) is None


def table_text(path):
    with h5py.File(path, "r") as f:
        return hdf5.text(f["runs"][run_ids(f)[-1]].attrs["phase_table"])


def test_a_run_with_metadata_rows_is_read_and_printed(tmp_path):
    work = tmp_path / "w"
    work.mkdir()
    out = tmp_path / "md.h5"
    make_results(2, work, out, "1MiB", "1MiB", "--phases", "seq-write,md", "--md-items", "20")
    runs, summary = frames.load(out)
    md = summary[summary["phase_name"].str.startswith("md-")]
    assert sorted(set(md["phase_name"])) == sorted(
        ["md-mkdir", "md-create", "md-stat", "md-read", "md-remove", "md-rmdir"]
    )
    # No record size applies to a metadata row; its headline is operations per second.
    assert md["record_bytes"].isna().all()
    assert (md["iops"] == md["ops"] / md["wall_s"]).all()
    files = md[md["phase_name"] == "md-create"]
    assert list(files["ops"]) == [20 * k for k in files["ranks"]]
    p = subprocess.run(
        [str(SOURCE_DIR / "scripts" / "iosweep-load"), str(out)], capture_output=True, text=True
    )
    assert p.returncode == 0, p.stderr
    assert "md-create" in p.stdout and "md-rmdir" in p.stdout and "md_" not in p.stdout


def test_the_drive_view_is_the_device_tables_drives(results, tmp_path):
    """frames.drives: one row per (point, drive), its figures the device table's, grouped over
    the drive's rows as h5py finds them."""
    with h5py.File(results, "r") as f:
        g = f["runs"][run_ids(f)[1]]
        s, dev = g["summary"][()], g["device"][()]
    d = frames.drives(results)
    assert list(d.columns) == list(frames.DRIVE_COLUMNS) and len(d) > 0
    want = {(int(r["point"]), int(r["drive"])) for r in dev}
    assert {(int(p), int(k)) for p, k in zip(d["point"], d["drive"])} == want
    for _, r in d.iterrows():
        mine = dev[(dev["point"] == r["point"]) & (dev["drive"] == r["drive"])]
        counted = mine[mine["counted"] == 1][0]
        used = mine[mine["ranks"] > 0]
        assert (
            r["ranks"] == used["ranks"].sum() and r["claimed_bytes"] == used["claimed_bytes"].sum()
        )
        assert (
            r["read_bytes"] == counted["read_bytes"] and r["write_bytes"] == counted["write_bytes"]
        )
        for fld in ("drive_Bps", "drive_fraction"):
            assert (math.isnan(r[fld]) and math.isnan(counted[fld])) or r[fld] == counted[fld]
        row = s[s["point"] == r["point"]][0]
        seen = counted["write_bytes" if r["phase_name"] == "seq_write" else "read_bytes"]
        assert r["device_bytes"] == seen and r["wall_s"] == row["wall_s"]
        assert r["slowest"] == (row["drives"] > 0 and r["drive"] == row["drive_slowest"])
    # A file from before the drive view has none: the API says so in one line.
    older = without_drive_view(results, tmp_path / "older.h5")
    with pytest.raises(ResultsError, match="no drive view"):
        frames.drives(older)
    assert len(frames.table(older, "device")) == len(dev)


def without_drive_view(src, dst):
    """A copy of `src` whose device tables lack the drive view's fields, as files before it."""
    shutil.copy(src, dst)
    with h5py.File(dst, "r+") as f:
        for g in f["runs"].values():
            old = g["device"]
            rows, attrs = old[()], dict(old.attrs)
            keep = [n for n in rows.dtype.names if n not in drive_view.FIELDS]
            del g["device"]
            new = g.create_dataset("device", data=rows[keep], chunks=True, maxshape=(None,))
            for k, v in attrs.items():
                new.attrs[k] = v
    return dst
