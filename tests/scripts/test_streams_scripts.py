"""iosweep-compare and iosweep-plot on a run of --streams: IOzone's threads are set beside
iosweep's streams (ranks x depth), the header and the axis say so, and a run of ranks keeps
matching threads to ranks."""
import csv
import re
import subprocess

import pytest

from iosweep_tools.results import frames
from iosweep_tools.results import names
from iosweep_tools.compare import parsers, tools
from iosweep_tools.bench.streams import curves as curve
from conftest import SOURCE_DIR, run_iosweep

FIX = SOURCE_DIR / "tests" / "fixtures"
# IOzone -t 2, 4 KiB records, 32 MiB files, random read and write in ops/s.
IOZONE = FIX / "iozone/11-per-child-C-rand-t2.txt"


def iozone_at(threads, tmp_path):
    """The fixture as IOzone prints it for `threads` threads (only the count changes)."""
    text = re.sub(r"(sees? throughput for) +2 ", rf"\g<1> {threads:2d} ", IOZONE.read_text())
    text = text.replace("-t 2 ", f"-t {threads} ").replace(
        "with 2 processes", f"with {threads} processes"
    )
    path = tmp_path / f"iozone-t{threads}.txt"
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """One file, two runs with IOzone fixture 11's settings: --streams 1:8 on 2 ranks (streams 1,
    2, 4, 8 = ranks 1, 2, 2, 2 x depth 1, 1, 2, 4), then --sweep 1:2 at --iodepth 4."""
    tmp = tmp_path_factory.mktemp("streams")
    (tmp / "w").mkdir()
    out = tmp / "r.h5"
    common_args = [
        "--dir",
        tmp / "w",
        "--engine",
        "null",
        "--file-size",
        "32MiB",
        "--seq-record",
        "4KiB",
        "--rand-record",
        "4KiB",
        "--phases",
        "rand-write,rand-read",
        "--output",
        out,
        "--quiet",
    ]
    run_iosweep(2, ["run", "--streams", "1:8", "--label", "streams"] + common_args, check=0)
    run_iosweep(2, ["run", "--iodepth", "4", "--label", "ranks"] + common_args, check=0)
    return out


def run_of(results, label):
    runs, summary = frames.load(results)
    run = runs[runs["label"] == label].iloc[0]
    return run, summary[summary["run_id"] == run["run_id"]]


def test_the_run_says_its_axis(results):
    run, s = run_of(results, "streams")
    assert names.sweep_axis(run) == "streams"
    assert list(s[s["phase_name"] == "rand-read"]["streams"]) == [1, 2, 4, 8]
    assert list(s[s["phase_name"] == "rand-read"]["ranks"]) == [1, 2, 2, 2]
    run, s = run_of(results, "ranks")
    assert names.sweep_axis(run) == "ranks"
    assert list(s[s["phase_name"] == "rand-read"]["streams"]) == [4, 8]  # ranks x --iodepth 4
    assert names.sweep_axis({}) == "ranks"  # files written before --streams existed


def test_iosweep_rows_count_threads_as_streams(results):
    run, s = run_of(results, "streams")
    rows = tools.iosweep_rows(s, run)
    assert sorted(k for k in rows if k[0] == "rand-read") == [
        ("rand-read", t) for t in (1, 2, 4, 8)
    ]
    at8 = s[(s["phase_name"] == "rand-read") & (s["streams"] == 8)]
    assert rows[("rand-read", 8)]["wall"] == pytest.approx(at8["iops"].mean())
    run, s = run_of(results, "ranks")
    assert sorted(k[1] for k in tools.iosweep_rows(s, run) if k[0] == "rand-read") == [1, 2]


def compare(results, label, *outputs, tmp_path):
    run, _ = run_of(results, label)
    table = tmp_path / f"{label}.csv"
    p = subprocess.run(
        [
            str(SOURCE_DIR / "scripts" / "iosweep-compare"),
            str(results),
            *map(str, outputs),
            "--run",
            run["run_id"],
            "--csv",
            str(table),
        ],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    rows = {
        (r["phase"], int(r["threads"]), r["source"].split("[")[0]): r
        for r in csv.DictReader(open(table))
    }
    return p.stdout, rows


def test_compare_sets_iozone_threads_beside_streams(results, tmp_path):
    ioz8 = iozone_at(8, tmp_path)
    out, rows = compare(results, "streams", ioz8, IOZONE, tmp_path=tmp_path)
    head = out.split("\n\n")[0]
    assert "threads: iosweep's streams (active ranks x depth per rank, --streams)" in head
    run, s = run_of(results, "streams")
    for threads in (2, 8):
        row = rows[("rand-read", threads, "IOzone")]
        mine = s[(s["phase_name"] == "rand-read") & (s["streams"] == threads)]
        assert float(row["iosweep_wall"]) == pytest.approx(mine["iops"].mean(), rel=1e-6)
        assert row["match"] == "'=" and row["compared_with"] == "iozone_children", row
        assert float(row["ratio"]) == pytest.approx(
            (mine["iozone_children_Bps"] / 4096).mean() / float(row["source_value"]), rel=1e-6
        )
    # The same 8-thread output beside a run of ranks: no iosweep row has 8 threads.
    out, rows = compare(results, "ranks", ioz8, tmp_path=tmp_path)
    assert "threads: iosweep's active ranks" in out.split("\n\n")[0]
    assert rows[("rand-read", 8, "IOzone")]["iosweep_wall"] == ""
    assert ("rand-read", 2, "") in rows  # iosweep's own 2-rank row, alone


def test_plot_draws_streams_on_the_thread_axis(results, tmp_path):
    from iosweep_tools.plot.draw import draw

    others = [r for r in parsers.parse_any(str(iozone_at(8, tmp_path))) if r.kind != "parent"]
    for label, xs, axis in (
        ("streams", [1, 2, 4, 8], "streams (active ranks x depth)"),
        ("ranks", [1, 2], "active ranks"),
    ):
        run, s = run_of(results, label)
        fig = draw(run, s, others, [], [p.replace("_", "-") for p in names.phases(results)])
        right = fig.axes[1]
        mine = next(line for line in right.lines if line.get_label() == "iosweep rand-read (wall)")
        assert list(mine.get_xdata()) == xs
        assert right.get_xlabel().startswith(axis)
        ioz = next(
            line for line in right.lines if line.get_label().startswith("IOzone[1] rand-read")
        )
        assert list(ioz.get_xdata()) == [8]


def test_streams_curve_measures_both_curves_with_their_cpu_time(tmp_path):
    """scripts/streams-curve at its smallest: both curves in one Markdown table, CPU per point."""
    (tmp_path / "d").mkdir()
    png = tmp_path / "curve.png"
    p = subprocess.run(
        [
            str(SOURCE_DIR / "scripts" / "streams-curve"),
            "--dir",
            str(tmp_path / "d"),
            "--size",
            "1m",
            "--max",
            "8",
            "--ranks-max",
            "2",
            "--seconds",
            "0.1",
            "--no-direct",
            "--output",
            str(tmp_path / "c.h5"),
            "-o",
            str(png),
        ],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    rows = [ln.split("|")[1:-1] for ln in p.stdout.splitlines() if re.match(r"\| \d+ \|", ln)]
    got = {int(r[0]): (r[1].strip(), r[6].strip()) for r in rows}
    assert got == {1: ("1", "1 x 1"), 2: ("2", "2 x 1"), 4: ("-", "2 x 2"), 8: ("-", "2 x 4")}
    for r in rows:
        for cell in (r[3], r[4], r[8], r[9]):  # IOPS and CPU seconds of each curve
            assert cell.strip() == "-" or float(cell) > 0, r
        for cell in (r[2], r[7]):  # the window: never longer than --seconds allows
            assert cell.strip() == "-" or 0 < float(cell) < 1.0, r
    assert png.stat().st_size > 10000
    assert list((tmp_path / "d").iterdir()) == []  # the run's files and folder are removed
    runs, s = frames.load(tmp_path / "c.h5")
    assert list(runs["label"]) == ["ranks alone", "2 ranks x depth"]
    assert all(s["cpu_s"] > 0)
    # The table printed is the one computed from the results file, whatever the speed: a
    # window of a few milliseconds keeps its significant digits.
    c = curve.curves(s)
    assert curve.markdown(c) in p.stdout
    for label, points in c.items():
        for streams, x in points.items():
            assert 0 < x["wall_s"] < 1.0 and x["cpu_s"] > 0 and x["iops"] > 0, (label, streams, x)
            assert float(curve.num(x["wall_s"], 2)) == pytest.approx(x["wall_s"], rel=0.05)


def test_streams_curve_refuses_bad_input_in_one_line(tmp_path):
    p = subprocess.run(
        [str(SOURCE_DIR / "scripts" / "streams-curve"), "--dir", str(tmp_path), "--max", "6"],
        capture_output=True,
        text=True,
    )
    assert (
        p.returncode == 2
        and p.stderr.strip() == "streams-curve: --max: 6 is not a power of two of at least 2"
    )
