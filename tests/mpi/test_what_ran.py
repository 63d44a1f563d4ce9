"""Rows say what ran, in their fields and in their notes (the console's notes column, the
summary's `notes`): a depth a phase could not keep, a phase that moved nothing (no latency, and
the phases after it reading files that hold nothing), a count of nothing scanned, a window too
short for its figure. One real run per row of the table."""
import math

import h5py
import pytest

from conftest import latest_run, run_sweep
from iosweep_tools.results.hdf5 import text
from iosweep_tools.results.names import by_value, phases


def rows_of(out):
    """{phase name: [summary rows]} of the latest run, and its point_iodepths."""
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        names = by_value(phases(g))
        by = {}
        for r in g["summary"][()]:
            by.setdefault(names[int(r["phase"])], []).append(r)
        return by, list(g.attrs["point_iodepths"])


def capped(by, iodepths, stdout):
    # 16 streams on 2 ranks ask depth 8 of files of 4 records: 4 ran, 8 streams.
    assert iodepths == [1, 8]
    for name in ("seq_write", "seq_read"):
        low, high = by[name]
        assert (low["iodepth"], low["streams"]) == (1, 2)
        assert (high["iodepth"], high["streams"]) == (4, 8), name
        assert "depth 4, not 8: the phase had no more records" in text(high["notes"])
        assert "depth" not in text(low["notes"])
    table = [ln.split() for ln in stdout.splitlines() if ln.startswith("seq-")]
    assert [int(r[1]) for r in table] == [2, 2, 8, 8]  # the streams column says what ran


def nothing_moved(by, iodepths, stdout):
    for name, rows in by.items():
        (r,) = rows
        assert r["bytes"] == 0 and r["ops"] == 0, name
        assert math.isnan(r["lat_p50_ns"]) and math.isnan(r["lat_max_ns"]), name  # never 0 ns
        assert "no operation completed" in text(r["notes"]), name
        if name != "seq_write":  # every later phase found files that hold nothing
            assert "the files held no data" in text(r["notes"]), name
    assert "(nothing scanned)" in text(by["filter_count"][0]["notes"])
    assert "(nothing scanned)" in stdout and "(exact)" not in stdout


def short(by, iodepths, stdout):
    for name, rows in by.items():
        assert "short window: " in text(rows[0]["notes"]), name


CASES = [
    # (id, options beside --dir and --output, what the rows must say)
    (
        "depth-capped-at-the-records",
        dict(engine="uring", streams="2,16", file_size="4MiB", phases="seq-write,seq-read"),
        capped,
    ),
    (
        "stonewalled-before-the-first-record",
        dict(stonewall="1us", ranks=2, file_size="4MiB"),
        nothing_moved,
    ),
    (
        "windows-of-a-few-milliseconds",
        dict(ranks=1, file_size="1MiB", phases="seq-write,seq-read"),
        short,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_rows_say_what_ran(tmp_path, workdir, case):
    _, args, check = case
    out = tmp_path / "r.h5"
    p = run_sweep(2, dir=workdir, output=out, **args)
    if p.returncode == 2 and "--engine" in p.stderr:
        pytest.skip(f"io_uring refused here: {p.stderr.strip()}")
    assert p.returncode == 0, p.stdout + p.stderr
    by, iodepths = rows_of(out)
    check(by, iodepths, p.stdout)
