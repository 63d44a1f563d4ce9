"""scripts/iosweep-report: the page of real runs rendered by a real headless Chromium, with no
console error and no request but the file itself; every figure its tables show is the HDF5
file's (read back from the DOM and compared with h5py); the final math is the console's, byte
for byte (ranks and streams, one or two rated figures, ship-count); two runs side by side carry
the run-against-run comparison; files with the newer schema's fields (real runs with the fields
added: timeseries latency and merged rows, a mounts table, wire counters) get latency over time
drawn from the merged rows, in the report and in iosweep-plot, the file system per node and the
wire's share of the bytes."""
import json
from html import unescape
import math
import os
import re
import shutil
import subprocess

import h5py
import numpy as np
import pytest

from iosweep_tools.results import hdf5
from iosweep_tools.results import names
from iosweep_tools.results import reader
from iosweep_tools.results import timeseries as its
from chromium import Chromium
from conftest import SOURCE_DIR, run_ids, run_iosweep
from newer_files import with_mounts_and_wire, with_timeseries_latency

SCRIPTS = SOURCE_DIR / "scripts"
FIX = SOURCE_DIR / "tests" / "fixtures"
BASELINES = [FIX / "iozone/01-seq-write-read-t2.txt", FIX / "ior/02-posix-rand4k.txt"]
SECTIONS = ("runs", "sweep", "what-ran", "placement", "filesystem", "latency", "over-time")
SECTIONS += ("stragglers", "provenance", "final-math", "baselines")

CELLS = """JSON.stringify(Array.from(document.querySelectorAll('[data-value]')).map(e => ({
  run: e.dataset.run || null, table: e.dataset.table || null, row: e.dataset.row ?? null,
  field: e.dataset.field || null, value: e.dataset.value, scale: e.dataset.scale || null,
  bucket: e.dataset.bucket ?? null, point: e.dataset.point ?? null,
  derived: e.dataset.derived || null, source: e.dataset.source || null,
  text: e.textContent, section: (e.closest('section') || {id: null}).id})))"""


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """Two real runs of 2 ranks, 3 repetitions each, in one file, and what each printed."""
    tmp = tmp_path_factory.mktemp("report")
    work = tmp / "w"
    work.mkdir()
    out = tmp / "r.h5"
    printed = []
    for label in ("before", "after"):
        p = run_iosweep(
            2,
            ["run", "--dir", work, "--file-size", "8m", "--seq-record", "1m", "--repetitions", "3"]
            + ["--output", out, "--timeseries-bin", "2ms", "--rated-bw", "5.2GB/s,3.4GB/s"]
            + ["--label", label, "--quiet"],
            check=0,
        )
        printed.append(p.stdout)
    return tmp, out, printed


@pytest.fixture(scope="module")
def browser():
    with Chromium() as b:
        yield b


def report(*args):
    return subprocess.run(
        [str(SCRIPTS / "iosweep-report"), *map(str, args)], capture_output=True, text=True
    )


def render(browser, page):
    browser.open(page.resolve().as_uri())
    assert browser.problems() == [], browser.problems()
    assert browser.requests() == [page.resolve().as_uri()]
    return json.loads(browser.evaluate(CELLS))


def number(text):
    t = text.strip().replace(",", "").split(" ")[0]
    try:
        return float(t)
    except ValueError:
        return None


def check_against_file(cells, path):
    """Every cell naming a stored figure holds it exactly; its text reads as it (to the digits
    shown). Returns the cells checked, by table."""
    checked = {}
    with h5py.File(path, "r") as f:
        tables = {}
        for c in cells:
            if c["table"] is None:
                continue
            g = f["runs"][c["run"]]
            t, fld, value = c["table"], c["field"], c["value"]
            if t == "attrs":
                v = g.attrs[fld]
                if isinstance(v, np.ndarray):
                    assert value == ",".join(str(x) for x in v.tolist()), c
                elif isinstance(v, (str, bytes)):
                    assert value == hdf5.text(v), c
                else:
                    assert float(value) == float(v), c
            elif t == "hosts":
                assert value == hdf5.text(g["hosts"][int(c["row"])]), c
            elif t == "latency":
                b = int(c["bucket"])
                v = (
                    g["latency/counts"][int(c["point"]), b]
                    if fld == "counts"
                    else g["latency"][fld][b]
                )
                assert int(value) == int(v), c
            else:
                key = (c["run"], t)
                if key not in tables:
                    tables[key] = g[t][()]
                row = tables[key][int(c["row"])]
                v = row[fld]
                if isinstance(v, bytes):
                    assert value == v.decode(), c
                elif isinstance(v, (float, np.floating)):
                    assert (math.isnan(v) and value == "nan") or float(value) == float(v), c
                else:
                    assert int(value) == int(v), c
                if t == "summary":
                    assert int(c["point"]) == int(row["point"]), c
                shown = number(c["text"])
                if shown is not None and not isinstance(v, bytes):
                    want = float(v) / float(c["scale"] or 1)
                    if math.isnan(want):
                        assert c["text"].strip() == "NaN", c
                    else:
                        assert shown == pytest.approx(want, rel=2e-3, abs=1e-9), c
            checked[t] = checked.get(t, 0) + 1
    return checked


def test_one_run_renders_every_section_from_the_file(results, browser, tmp_path):
    tmp, out, printed = results
    page = tmp_path / "report.html"
    p = report(out, "-o", page, *[a for b in BASELINES for a in ("--baseline", b)])
    assert p.returncode == 0 and p.stderr == "", p.stderr
    cells = render(browser, page)
    checked = check_against_file(cells, out)
    for t in ("summary", "ranks", "nodes", "latency", "attrs", "hosts", "rank_map"):
        assert checked.get(t, 0) > 0, (t, checked)
    for sid in SECTIONS:
        assert any(c["section"] == sid for c in cells), f"section {sid} shows no figure"
    with h5py.File(out, "r") as f:
        g = f["runs"][run_ids(f)[-1]]
        phases = {names.by_value(names.phases(g))[v] for v in g["summary"]["phase"]}
        has_lat = "lat_p50_ns" in g["timeseries"].dtype.names
        latest, n_rows = run_ids(f)[-1], len(g["summary"])
    assert browser.evaluate("document.querySelectorAll('#sweep svg[role=img]').length") == len(
        phases
    )
    # Every summary row of the latest run is in the latency table, every percentile with it.
    lat = {
        (int(c["row"]), c["field"])
        for c in cells
        if c["section"] == "latency" and c["table"] == "summary" and c["run"] == latest
    }
    for row in range(n_rows):
        for fld in ("lat_p50_ns", "lat_p90_ns", "lat_p99_ns", "lat_p9999_ns", "lat_max_ns"):
            assert (row, fld) in lat, (row, fld)
    # The baselines are drawn on the sweep curves, each labelled with its source file.
    legend = browser.evaluate("document.querySelector('#sweep').innerText")
    assert "IOzone[1]" in legend and "01-seq-write-read-t2.txt" in legend
    assert "IOR[2]" in legend and "02-posix-rand4k.txt" in legend
    # The final math is the console's, byte for byte.
    pre = browser.evaluate("document.querySelector('pre.final-math').textContent")
    console = printed[1][printed[1].index("filter-count at ") :]
    assert pre == console
    # Provenance in words: this machine's disk has counters, so no "unverified" row.
    prov = browser.evaluate("document.querySelector('#provenance').innerText")
    assert "the block device saw" in prov and "page cache" in prov
    # Latency over time: this binary's file either has it (drawn) or says it has not.
    over = browser.evaluate("document.querySelector('#over-time').innerText")
    if has_lat:
        assert "latency over time, all ranks merged" in over
    else:
        assert "Latency over time: not recorded in this file" in over
    png = tmp_path / "report.png"
    data = browser.screenshot(png)
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 50_000
    if os.environ.get("IOSWEEP_REPORT_PNG"):  # how docs/report.png is made
        browser.screenshot(
            os.environ["IOSWEEP_REPORT_PNG"], clip={"x": 0, "y": 0, "width": 1280, "height": 1500}
        )


def test_two_runs_side_by_side_carry_the_comparison(results, browser, tmp_path):
    tmp, out, _ = results
    with h5py.File(out, "r") as f:
        a, b = run_ids(f)
        sa, sb = f["runs"][a]["summary"][()], f["runs"][b]["summary"][()]
    page = tmp_path / "two.html"
    p = report(out, a, b, "-o", page)
    assert p.returncode == 0, p.stderr
    cells = render(browser, page)
    check_against_file(cells, out)
    assert {c["run"] for c in cells if c["table"] == "summary"} == {a, b}
    text = browser.evaluate("document.querySelector('#comparison').innerText")
    assert re.search(r"\[\d+\.\d{3}, \d+\.\d{3}\]", text)
    assert any(v in text for v in ("faster", "slower", "within noise"))
    # The means beside each ratio are the repetitions' means of the stored figures.
    means = [c for c in cells if c["section"] == "comparison" and c["derived"]]
    assert means
    seq = [c for c in means if c["derived"].startswith("A: mean over repetitions of bandwidth")]
    one = sa[(sa["ranks"] == 1) & (sa["phase"] == 0)]["bandwidth_Bps"]
    assert any(float(c["value"]) == pytest.approx(one.mean() / 2**20, rel=1e-12) for c in seq)
    assert len(sb) == len(sa)


def test_latency_over_time_from_the_merged_rows(results, browser, tmp_path):
    tmp, out, _ = results
    fixture = with_timeseries_latency(out, tmp_path / "newer.h5")
    run = reader.read(fixture)
    ts = run.table("timeseries")
    assert its.has_latency(ts) and its.has_merged(ts)
    # No byte counted twice: the bins of every point add up to the point's bytes, in the
    # newer file (merged rows) and in the real one (the ranks' rows).
    old = reader.read(out)
    for r in (run, old):
        for i, pt in enumerate(r.summary["point"]):
            bins = its.cluster_bins(r.table("timeseries"), int(pt))
            assert sum(b["bytes"] for b in bins) == int(r.summary["bytes"][i])
    page = tmp_path / "newer.html"
    assert report(fixture, "-o", page).returncode == 0
    cells = render(browser, page)
    check_against_file(cells, fixture)
    over = [c for c in cells if c["section"] == "over-time" and c["table"] == "timeseries"]
    assert {c["field"] for c in over} >= {"bytes", "lat_p50_ns", "lat_p99_ns", "lat_max_ns"}
    assert all(ts["rank"][int(c["row"])] == -1 for c in over)
    text = browser.evaluate("document.querySelector('#over-time').innerText")
    assert "not recorded in this file" not in text
    assert text.count("latency over time, all ranks merged") == len(its.largest_points(run))
    # iosweep-plot draws the same as its own figure; on a file without the fields it refuses
    # before writing anything.
    png, lat = tmp_path / "p.png", tmp_path / "lat.png"
    plot = [str(SCRIPTS / "iosweep-plot"), "-o", str(png), "--latency-over-time", str(lat)]
    p = subprocess.run(plot[:1] + [str(fixture)] + plot[1:], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert lat.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and lat.stat().st_size > 10_000
    if not its.has_latency(old.table("timeseries")):
        png.unlink()
        lat.unlink()
        p = subprocess.run(plot[:1] + [str(out)] + plot[1:], capture_output=True, text=True)
        assert p.returncode == 2 and "--latency-over-time: not recorded" in p.stderr
        assert not png.exists() and not lat.exists()


def test_the_page_needs_nothing_from_outside(results, tmp_path):
    _, out, _ = results
    page = tmp_path / "r.html"
    assert report(out, "-o", page).returncode == 0
    html = page.read_text()
    assert "<script" not in html and "http://" not in html.replace(
        'xmlns="http://www.w3.org/2000/svg"', ""
    )
    assert "https://" not in html and "Content-Security-Policy" in html
    shutil.copy(page, tmp_path / "copy.html")  # a plain file: attachable as it is


def test_final_math_of_a_streams_run_with_ship_count_is_the_consoles(tmp_path):
    """The other branches of the console's final math: streams, one rated figure, ship-count."""
    work = tmp_path / "w"
    work.mkdir()
    out = tmp_path / "s.h5"
    p = run_iosweep(
        2,
        ["run", "--dir", work, "--file-size", "4m", "--seq-record", "1m", "--engine", "uring"]
        + ["--streams", "1:4", "--phases", "seq-write,filter-count,ship-count", "--output", out]
        + ["--rated-bw", "1GB/s", "--quiet"],
    )
    if p.returncode == 2 and "--engine" in p.stderr:
        pytest.skip(f"io_uring is refused here: {p.stderr.strip()}")
    assert p.returncode == 0, p.stderr
    page = tmp_path / "s.html"
    assert report(out, "-o", page).returncode == 0
    html = page.read_text()
    pre = re.search(r'<pre class="final-math"[^>]*>(.*?)</pre>', html, re.S).group(1)
    console = p.stdout[p.stdout.index("filter-count at ") :]
    assert "streams (2 ranks x depth 2)" in console and "ship-count at 2 ranks" in console
    assert unescape(pre) == console
    assert "streams (active ranks x depth) (log2)" in html


def test_mounts_and_wire_counters_when_the_file_has_them(results, browser, tmp_path):
    """A real run with a mounts table and wire fields added (the shape newer files may have):
    the file system per node and the wire's share come from the file."""
    _, out, _ = results
    fixture = with_mounts_and_wire(out, tmp_path / "wire.h5")
    page = tmp_path / "wire.html"
    assert report(fixture, "-o", page).returncode == 0
    cells = render(browser, page)
    checked = check_against_file(cells, fixture)
    assert checked.get("mounts", 0) >= 3
    fs = browser.evaluate("document.querySelector('#filesystem').innerText")
    assert "fuse.glusterfs" in fs and "/mnt/gv0" in fs and "not recorded" not in fs
    prov = browser.evaluate("document.querySelector('#provenance').innerText")
    assert "the network wire carried 100% of the bytes" in prov
    wire = {c["field"] for c in cells if c["section"] == "provenance" and c["table"] == "summary"}
    assert {"wire_fraction", "wire_rx_bytes", "wire_tx_bytes"} <= wire


def test_a_metadata_run_shows_its_rates_on_a_log_axis_and_the_consoles_peaks(browser, tmp_path):
    """A real run of data and metadata phases: every metadata figure the page shows is the
    file's, the curves of ops/s are on a log10 axis, and the Peak & Sustained table holds the
    means of the file's figures and is the console's, byte for byte."""
    work = tmp_path / "w"
    work.mkdir()
    out = tmp_path / "md.h5"
    p = run_iosweep(
        2,
        ["run", "--dir", work, "--file-size", "1m", "--seq-record", "1m", "--repetitions", "2"]
        + ["--phases", "seq-write,md", "--md-items", "20", "--output", out],
        check=0,
    )
    page = tmp_path / "md.html"
    r = report(out, "-o", page, "--baseline", FIX / "mdtest/14-task-sweep-f1-l2-np2.txt")
    assert r.returncode == 0, r.stderr
    cells = render(browser, page)
    checked = check_against_file(cells, out)
    shown = {c["field"] for c in cells if c["table"] == "summary" and c["section"] == "sweep"}
    assert {"iops", "md_items", "md_folders", "md_device_bytes_per_op", "rank_iops_min"} <= shown
    assert checked["summary"] > 0
    titles = browser.evaluate(
        "JSON.stringify(Array.from(document.querySelectorAll('#sweep figcaption.title'))"
        ".map(e => e.textContent))"
    )
    md_charts = [t for t in json.loads(titles) if t.startswith("md_")]
    assert len(md_charts) == 6 and all("operations per second" in t for t in md_charts)
    assert browser.evaluate("document.querySelector('#sweep').innerText").count("(log10)") >= 6
    assert "mdtest[1] mdtest mean rate" in browser.evaluate(
        "document.querySelector('#sweep').innerText"
    )
    # Peak & Sustained: each figure the mean over repetitions of the file's, at the best point
    # and at the largest point, and the text the console printed.
    with h5py.File(out, "r") as f:
        g = f["runs"][run_ids(f)[-1]]
        s = g["summary"][()]
        enum = names.by_value(names.phases(g))
    peaks = [c for c in cells if c["section"] == "peaks" and c["derived"]]
    order = ["seq_write", "md_mkdir", "md_create", "md_stat", "md_read", "md_remove", "md_rmdir"]
    assert len(peaks) == 2 * len(order)  # a peak and a sustained cell per phase, in run order
    for j, phase in enumerate(order):
        rows = s[[enum[int(v)] == phase for v in s["phase"]]]
        fld, scale = ("iops", 1.0) if phase.startswith("md_") else ("bandwidth_Bps", 2**20)
        means = {k: (rows[rows["ranks"] == k][fld] / scale).mean() for k in set(rows["ranks"])}
        peak, sustained = peaks[2 * j], peaks[2 * j + 1]
        assert float(peak["value"]) == pytest.approx(max(means.values()), rel=1e-12), phase
        assert float(sustained["value"]) == pytest.approx(means[max(means)], rel=1e-12), phase
        assert peak["derived"].startswith("max over ranks of the mean over repetitions of " + fld)
    pre = browser.evaluate("document.querySelector('pre.peaks').textContent")
    console = p.stdout[p.stdout.index("Peak & Sustained") :]
    assert console.startswith(pre) and pre.count("\n") == 2 + 7
    prov = browser.evaluate("document.querySelector('#provenance').innerText")
    assert "bytes per operation" in prov
