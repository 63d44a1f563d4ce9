"""scripts/iosweep-plot: panel titles from the record sizes the run used, published figures only
where they were measured like the run (or with --baselines), control phases only with
--controls. The figure is built by the script's own drawing function and read back through
matplotlib."""
import subprocess

import pytest

from iosweep_tools.plot.baselines import load_baselines
from iosweep_tools.plot.draw import draw
from iosweep_tools.results import frames
from iosweep_tools.results import names
from conftest import SOURCE_DIR, make_results

SCRIPT = SOURCE_DIR / "scripts" / "iosweep-plot"
FIX = SOURCE_DIR / "tests" / "fixtures"


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """Two runs in one file: 1 MiB records throughout (sequential, scan; 4 KiB random), then
    2 MiB sequential, 1 MiB scan and 8 KiB random records."""
    tmp = tmp_path_factory.mktemp("plot")
    (tmp / "w").mkdir()
    out = tmp / "r.h5"
    make_results(2, tmp / "w", out, "4MiB", "1MiB", "--label", "one")
    records = ["--scan-record", "1MiB", "--rand-record", "8KiB"]
    make_results(2, tmp / "w", out, "4MiB", "2MiB", *records, "--label", "two")
    return out


def figure(results, label, **kw):
    runs, summary = frames.load(results)
    run = runs[runs["label"] == label].iloc[0]
    fig = draw(
        run,
        summary[summary["run_id"] == run["run_id"]],
        kw.pop("others", []),
        kw.pop("baselines", []),
        [p.replace("_", "-") for p in names.phases(results)],
        **kw,
    )
    left, right = fig.axes[:2]
    return fig, left, right


def labels(ax):
    return [line.get_label() for line in ax.lines]


def test_panel_titles_give_the_record_sizes_the_run_used(results):
    fig, left, right = figure(results, "one")
    assert left.get_title() == "sequential and filter-count scan (1 MiB records)"
    assert right.get_title() == "random (4 KiB records)"
    assert "4 MiB per rank, page cache" in fig._suptitle.get_text()
    fig, left, right = figure(results, "two")
    assert left.get_title() == "sequential (2 MiB records) and filter-count scan (1 MiB records)"
    assert right.get_title() == "random (8 KiB records)"


def test_the_saved_figure_has_the_same_titles(results, tmp_path):
    # An SVG keeps its text: the titles the script saved for the last run, as written.
    svg = tmp_path / "p.svg"
    p = subprocess.run([str(SCRIPT), str(results), "-o", str(svg)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    text = svg.read_text()
    assert ">sequential (2 MiB records) and filter-count scan (1 MiB records)<" in text
    assert ">random (8 KiB records)<" in text and "16 MiB records" not in text


def test_published_figures_are_absent_by_default_and_present_with_baselines(results, tmp_path):
    # The published random figures are of 4 KiB records, and the filter-count study does not
    # state its record size: run "two" (8 KiB random records) gets none unless asked, run "one"
    # (4 KiB) gets the random ones, never the filter-count one.
    published = load_baselines(str(SOURCE_DIR / "results" / "baselines"))
    assert {b["record_bytes"] for b in published if b["phase"].startswith("rand-")} == {4096}
    assert all(b["record_bytes"] is None for b in published if b["phase"] == "filter-count")
    _, left, right = figure(results, "two", baselines=published)
    assert not [ln for ln in labels(left) + labels(right) if ln.startswith("published")]
    _, left, right = figure(results, "one", baselines=published)
    assert sorted(
        ln.split(",")[0] for ln in labels(left) + labels(right) if ln.startswith("published")
    ) == ["published rand-read", "published rand-write"]
    _, left, right = figure(results, "two", baselines=published, all_baselines=True)
    shown = [ln for ln in labels(left) + labels(right) if ln.startswith("published")]
    assert {ln.split(",")[0] for ln in shown} == {
        "published filter-count",
        "published rand-write",
        "published rand-read",
    }
    assert all("≠ record" in ln for ln in shown)
    for args, present in (([], False), (["--baselines"], True)):
        png = tmp_path / f"b{len(args)}.png"
        p = subprocess.run(
            [str(SCRIPT), str(results), "-o", str(png), *args], capture_output=True, text=True
        )
        assert p.returncode == 0, p.stderr


def write_baselines(folder, rows):
    folder.mkdir()
    (folder / "b.csv").write_text(
        "source,system,phase,threads,value,unit,record_bytes,file_bytes\n"
        + "".join(f"{r}\n" for r in rows)
    )
    return load_baselines(str(folder))


def test_published_figures_measured_like_the_run_are_drawn_without_asking(results, tmp_path):
    rows = [
        "same,s,rand-read,2,1000,ops/s,4096,",  # 4 KiB records, file not stated
        "same file,s,rand-write,2,900,ops/s,4096,4194304",  # and 4 MiB per thread, as the run
        "other file,s,rand-write,2,800,ops/s,4096,8388608",
        "other record,s,rand-read,1,700,ops/s,8192,",
        "no record,s,seq-write,1,600,MiB/s,,",
    ]
    _, left, right = figure(results, "one", baselines=write_baselines(tmp_path / "b", rows))
    shown = sorted(ln for ln in labels(left) + labels(right) if ln.startswith("published"))
    assert shown == ["published rand-read, 4 KiB records", "published rand-write, 4 KiB records"]
    pts = {line.get_label(): list(zip(line.get_xdata(), line.get_ydata())) for line in right.lines}
    assert pts["published rand-write, 4 KiB records"] == [(2, 900.0)]
    # The second run used 8 KiB random records: only the 8 KiB figure is its kind.
    _, left, right = figure(results, "two", baselines=write_baselines(tmp_path / "c", rows))
    assert [ln for ln in labels(right) if ln.startswith("published")] == [
        "published rand-read, 8 KiB records"
    ]


def test_a_malformed_record_size_in_a_baseline_is_refused(results, tmp_path):
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "b.csv").write_text(
        "source,system,phase,threads,value,unit,record_bytes\nx,s,rand-read,1,5,ops/s,4k\n"
    )
    p = subprocess.run(
        [str(SCRIPT), str(results), "--baselines-dir", str(folder), "-o", str(tmp_path / "p.png")],
        capture_output=True,
        text=True,
    )
    assert (
        p.returncode == 2 and "line 2: expected record_bytes as a positive byte count" in p.stderr
    ), p.stderr


def test_control_phases_only_with_controls(results):
    _, left, _ = figure(results, "one")
    assert "iosweep scan-only (wall)" not in labels(
        left
    ) and "iosweep filter-count (wall)" in labels(left)
    _, left, _ = figure(results, "one", controls=True)
    assert "iosweep scan-only (wall)" in labels(left)


def test_other_tools_are_labelled_with_their_record_size_and_what_differs(results):
    from iosweep_tools.compare import parsers

    others = [
        r
        for r in parsers.parse_any(str(FIX / "iozone/02-rand-t2-with-i0.txt"))
        if r.kind != "parent"
    ]
    _, left, right = figure(results, "one", others=others)
    assert "IOzone[1] seq-write Children see, 4 KiB records ≠ record,file" in labels(left)
    assert "IOzone[1] rand-read Children see, 4 KiB records ≠ file" in labels(right)
