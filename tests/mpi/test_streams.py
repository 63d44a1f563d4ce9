"""--streams: each point runs s streams as k = min(s, world) ranks x depth s/k. Every summary row
says streams = ranks x iodepth, every record of every phase is read or written exactly once
(bytes, ops, --verify, the exact filter count), sequential phases stream their regions side by
side, and bad input is refused before the run in one line with status 2."""
import re

import h5py
import pytest

from conftest import dir_listing, latest_run, run_sweep
from iosweep_tools.results.names import by_value, phases

FILE = 2 << 20  # per rank
SEQ = 32 << 10  # 64 sequential records: up to 32 regions of 2 records at depth 32
RAND = 4 << 10  # 512 random records
EVERY = 1000  # a planted key every 1000 words: the exact count is checked at every point


def records(phase):
    return FILE // (RAND if phase.startswith("rand_") else SEQ)


@pytest.fixture(scope="module")
def streams_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("streams")
    (tmp / "w").mkdir()
    out = tmp / "r.h5"
    p = run_sweep(
        2,
        dir=tmp / "w",
        engine="uring",
        streams="2:64",
        file_size=FILE,
        seq_record=SEQ,
        scan_record=SEQ,
        rand_record=RAND,
        filter_every=EVERY,
        verify=True,
        show_controls=True,
        output=out,
    )
    if p.returncode == 2 and "--engine" in p.stderr:
        pytest.skip(f"io_uring refused here: {p.stderr.strip()}")
    assert p.returncode == 0, p.stdout + p.stderr
    assert dir_listing(tmp / "w") == []
    return p, out


def test_every_row_has_streams_ranks_times_depth(streams_run):
    p, out = streams_run
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        s = g["summary"][()]
        assert g.attrs["sweep_axis"] == "streams"
        assert list(g.attrs["points"]) == [2] * 6  # 2, 4, ..., 64 streams all on both ranks
        assert list(g.attrs["point_iodepths"]) == [1, 2, 4, 8, 16, 32]
        assert g.attrs["iodepth"] == 1
    assert all(s["streams"] == s["ranks"] * s["iodepth"])
    n_phases = len(set(s["phase"]))
    assert list(s["streams"]) == [x for x in (2, 4, 8, 16, 32, 64) for _ in range(n_phases)]
    assert all(s["ranks"] == 2)
    # The console table has the streams column; the final math names ranks and depth.
    head = next(ln for ln in p.stdout.splitlines() if ln.startswith("phase "))
    assert head.split()[:3] == ["phase", "streams", "ranks"]
    rows = [ln.split() for ln in p.stdout.splitlines() if re.match(r"(seq|rand)-(write|read) ", ln)]
    assert [int(r[1]) for r in rows] == [x for x in (2, 4, 8, 16, 32, 64) for _ in range(4)]
    assert "filter-count at 64 streams (2 ranks x depth 32)" in p.stdout


def test_every_record_is_read_or_written_exactly_once_per_phase(streams_run):
    _, out = streams_run
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        s, r = g["summary"][()], g["ranks"][()]
        name = by_value(phases(g))
    for row in s:
        phase = name[row["phase"]]
        mine = r[r["point"] == row["point"]]
        assert sorted(mine["position"]) == [0, 1]
        assert all(mine["bytes"] == FILE), (phase, row["streams"])
        assert all(
            mine["ops"] == records(phase)
            if phase not in ("filter_count", "scan_only")
            else mine["ops"] == FILE // SEQ
        ), (phase, row["streams"])
        assert row["bad_blocks"] == 0 and row["stonewalled"] == 0
    fc = s[s["phase"] == phases(out)["filter_count"]]
    assert all(fc["matches"] == fc["expected_matches"])
    # The whole file is scanned at every depth: the sum over regions is the whole file's count.
    assert len(set(fc["expected_matches"])) == 1 and fc["expected_matches"][0] > 0
    assert all(fc["rows"] == 2 * FILE // 8)


def test_random_orders_differ_between_points_that_share_their_ranks(streams_run):
    _, out = streams_run
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        s = g["summary"][()]
        rr = s[s["phase"] == phases(g)["rand_read"]]
    assert len(set(int(x) for x in rr["order_seed"])) == len(rr)


def stonewalled_run(out, workdir, phase_list):
    p = run_sweep(
        1,
        dir=workdir,
        engine="uring",
        streams=8,
        file_size="64MiB",
        seq_record="4KiB",
        scan_record="4KiB",
        phases=phase_list,
        stonewall="20ms",
        filter_every=100,
        verify=True,
        output=out,
    )
    if p.returncode == 2 and "--engine" in p.stderr:
        pytest.skip(f"io_uring refused here: {p.stderr.strip()}")
    assert p.returncode == 0, p.stdout + p.stderr  # a count that is not exact fails the run
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        s = g["summary"][()]
        ids = phases(g)
    assert all(s["bad_blocks"] == 0) and all(s["iodepth"] == 8) and all(s["streams"] == 8)
    return s, ids


def test_stonewalled_striped_phases_stay_exact(tmp_path, workdir):
    """A write stopped early over 8 regions holds data up to its first gap: the readers read that
    prefix, verified. A scan stopped early over 8 regions counts exactly what each region
    scanned (its file written whole, untimed, first)."""
    s, ids = stonewalled_run(tmp_path / "a.h5", workdir, "seq-write,seq-read,filter-count")
    write, read = s[s["phase"] == ids["seq_write"]][0], s[s["phase"] == ids["seq_read"]][0]
    if write["stonewalled"]:
        assert read["bytes"] <= write["bytes"] < 64 << 20
    s, ids = stonewalled_run(tmp_path / "b.h5", workdir, "filter-count")
    fc = s[s["phase"] == ids["filter_count"]][0]
    assert fc["matches"] == fc["expected_matches"] > 0
    if fc["stonewalled"]:
        assert fc["bytes"] < 64 << 20


def test_dry_run_prints_streams_and_depth(tmp_path, workdir):
    p = run_sweep(
        2,
        dir=workdir,
        engine="null",
        streams="1,2,8,1024",
        file_size="1MiB",
        output=tmp_path / "r.h5",
        dry_run=True,
        quiet=False,
        check=0,
    )
    table = [ln.split() for ln in p.stdout.splitlines() if re.match(r"\s+\d+\s+\d+\s+\d+\s", ln)]
    assert [(int(t[0]), int(t[1]), int(t[2])) for t in table] == [
        (1, 1, 1),
        (2, 1, 2),
        (8, 4, 2),
        (1024, 512, 2),
    ]
    assert not (tmp_path / "r.h5").exists()


@pytest.mark.parametrize(
    "args,said",
    [
        (
            ["--engine", "uring", "--streams", "2,3"],
            "--streams: 3 streams do not split evenly over the 2 ranks",
        ),
        (
            ["--engine", "uring", "--streams", "16384"],
            "--streams: 16384 streams over 2 ranks need depth 8192",
        ),
        (
            ["--streams", "1:8"],
            "--streams: the posix engine keeps one request in flight; use --engine ",
        ),
        (
            ["--engine", "uring", "--streams", "2", "--ranks", "1,2"],
            "--streams and --ranks: give one or the other",
        ),
        (
            ["--engine", "uring", "--streams", "2", "--sweep", "1:2"],
            "--streams and --sweep: give one or the other",
        ),
        (
            ["--engine", "uring", "--streams", "2", "--iodepth", "4"],
            "--streams and --iodepth: give one or the other",
        ),
        (["--engine", "uring", "--streams", "1, 2"], "--streams: '1, 2' contains white space"),
        (
            ["--engine", "uring", "--streams", "4,2"],
            "--streams: counts must be strictly increasing",
        ),
    ],
    ids=[
        "uneven",
        "too-deep",
        "posix",
        "with-ranks",
        "with-sweep",
        "with-iodepth",
        "spaces",
        "decreasing",
    ],
)
def test_bad_streams_are_one_line_and_status_2(tmp_path, workdir, args, said):
    out = tmp_path / "r.h5"
    p = run_sweep(2, *args, dir=workdir, file_size="1MiB", output=out, quiet=False)
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("iosweep:")]
    assert p.returncode == 2 and len(lines) == 1, p.stderr
    assert lines[0].startswith("iosweep: " + said), lines[0]
    assert dir_listing(workdir) == [] and not out.exists()
