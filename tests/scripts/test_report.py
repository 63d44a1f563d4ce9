"""scripts/iosweep-report: the page of real runs rendered by a real headless Chromium, with no
console error and no request but the file itself; every figure its tables show is the HDF5
file's (read back from the DOM and compared with h5py); the final math is the console's, byte
for byte (ranks and streams, one or two rated figures, ship-count); two runs side by side carry
the run-against-run comparison; files with the newer schema's fields (real runs with the fields
added: timeseries latency and merged rows, a mounts table, wire counters) get latency over time
drawn from the merged rows, in the report and in iosweep-plot, the file system per node and the
wire's share of the bytes; a run over two drives (loop devices as root) gets its drive table,
every figure of it h5py's, its lagging drive noted as the console notes it, and its final math's
per-drive lines the console's. The final math and the lag notes are the file's: changed in the
file, the report shows them changed; a file from before the final_math table says so."""
import json
from html import unescape
import math
import os
import re
import shutil
import subprocess
import tempfile

import h5py
import numpy as np
import pytest

from iosweep_tools.core import launch
from iosweep_tools.core.devices import fs_type
from iosweep_tools.core.launch import can_emulate, emulated_nodes
from iosweep_tools.results import hdf5
from iosweep_tools.results import names
from iosweep_tools.results import reader
from iosweep_tools.results import timeseries as its
from chromium import Chromium
from conftest import BIN, SOURCE_DIR, iosweep_argv, latest_run, mpi_env, run_ids, run_iosweep
from conftest import run_sweep
from loopdrives import make_drives, missing_loop_tools, sh
from newer_files import with_mounts_and_wire, with_timeseries_latency

SCRIPTS = SOURCE_DIR / "scripts"
FIX = SOURCE_DIR / "tests" / "fixtures"
BASELINES = [FIX / "iozone/01-seq-write-read-t2.txt", FIX / "ior/02-posix-rand4k.txt"]
SECTIONS = ("runs", "sweep", "what-ran", "placement", "filesystem", "latency", "over-time")
SECTIONS += ("stragglers", "provenance", "drives", "final-math", "baselines")


def final_math_printed(stdout):
    """The console's final math: from its first line to the run's last lines (where the results
    went, what was kept), which follow it."""
    math = stdout[stdout.index("filter-count at ") :]
    return math[: math.index("results: run ")] if "results: run " in math else math


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
    for t in ("summary", "ranks", "nodes", "latency", "attrs", "hosts", "rank_map", "final_math"):
        assert checked.get(t, 0) > 0, (t, checked)
    # The final math's cells are the stored table's; none is the report's own.
    fm = [c for c in cells if c["section"] == "final-math"]
    tables = ("final_math", "final_math_drives")
    assert fm and all(c["table"] in tables and not c["derived"] for c in fm), fm
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
    # The final math is the console's, byte for byte; so is Peak & Sustained, whose notes carry
    # the cache verdict of the rows (a write left in the page cache is never the storage's).
    pre = browser.evaluate("document.querySelector('pre.final-math').textContent")
    console = final_math_printed(printed[1])
    assert pre == console
    peaks = browser.evaluate("document.querySelector('pre.peaks').textContent")
    at = printed[1].index("Peak & Sustained")
    assert peaks == printed[1][at : printed[1].index("filter-count at ")]
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        s = g["summary"][()]
        enum = names.by_value(names.phases(g))
    for phase in ("seq_write", "rand_write"):
        rows = [n.decode() for n, p in zip(s["notes"], s["phase"]) if enum[int(p)] == phase]
        line = next(
            ln for ln in peaks.splitlines() if ln.startswith(f"  {phase.replace('_', '-')} ")
        )
        for mark in ("unflushed", "device"):
            if all(f"{mark} " in n for n in rows):
                assert mark in line, (line, rows)
            if not any(f"{mark} " in n for n in rows):
                assert mark not in line, (line, rows)
    # Provenance in words (a list to open): this machine's disk has counters.
    prov = browser.evaluate("document.querySelector('#provenance').textContent")
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
    # A chart per phase, or, for a phase whose window held one bin, a line saying so (a line
    # of one point would be drawn on an axis from -1 s to 1 s).
    charts = text.count("latency over time, all ranks merged")
    assert charts + text.count("latency over time is one bin long") == len(its.largest_points(run))
    assert charts > 0
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


def _changed_final_math(f, g):
    """The stored final math made other figures than the summary's, and a lag note put on a
    drive that did not lag: what the report shows of them is the file's."""
    t = g["final_math"][()]
    assert len(t) == 1 and int(t["step"][0]) == 0
    t["bandwidth_Bps"] *= 2
    t["per_rank_Bps"] = 12.5e9
    t["count_check"] = b"MISMATCH"
    t["rated_fraction"] = 0.25
    g["final_math"][...] = t
    dev = g["device"][()]
    j = int(np.flatnonzero(dev["counted"] == 1)[-1])
    dev["lag_note"][j] = b"drive made-up (node 0) 7%"
    g["device"][...] = dev


def test_the_report_shows_the_stored_final_math_and_lag_notes(results, tmp_path):
    """iosweep-report prints the final_math table and the lag notes iosweep stored, whatever
    they hold (nothing is worked out again from the summary or the device counters), and says
    in one line that a file from before the table has none."""
    _, out, printed = results
    changed, older = tmp_path / "changed.h5", tmp_path / "older.h5"
    shutil.copy(out, changed)
    shutil.copy(out, older)
    with h5py.File(changed, "r+") as f:
        g = latest_run(f)
        bw = float(g["final_math"]["bandwidth_Bps"][0])
        _changed_final_math(f, g)
    with h5py.File(older, "r+") as f:
        for g in f["runs"].values():
            del g["final_math"], g["final_math_drives"]
    page = tmp_path / "changed.html"
    assert report(changed, "-o", page).returncode == 0
    html = page.read_text()
    pre = unescape(re.search(r'<pre class="final-math"[^>]*>(.*?)</pre>', html, re.S).group(1))
    assert pre != printed[1][printed[1].index("filter-count at ") :]
    assert f"  aggregate  {2 * bw / 1e9:.3f} GB/s" in pre
    assert "  per rank   12.500 GB/s (aggregate / ranks)" in pre
    assert " expected (MISMATCH)\n" in pre and "(25.0% of 5.200 GB/s" in pre
    assert "drive made-up (node 0) 7%" in html
    page = tmp_path / "older.html"
    p = report(older, "-o", page)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    html = page.read_text()
    assert '<pre class="final-math"' not in html
    assert "Final math: not recorded in this file (it predates the final_math table" in html


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
    console = final_math_printed(p.stdout)
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
    prov = browser.evaluate("document.querySelector('#provenance').textContent")
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
    md_charts = [t for t in json.loads(titles) if t.startswith("md-")]
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
    order = ["seq-write", "md-mkdir", "md-create", "md-stat", "md-read", "md-remove", "md-rmdir"]
    assert len(peaks) == 2 * len(order)  # a peak and a sustained cell per phase, in run order
    for j, phase in enumerate(order):
        rows = s[[enum[int(v)] == phase.replace("-", "_") for v in s["phase"]]]
        fld, scale = ("iops", 1.0) if phase.startswith("md-") else ("bandwidth_Bps", 2**20)
        means = {k: (rows[rows["ranks"] == k][fld] / scale).mean() for k in set(rows["ranks"])}
        peak, sustained = peaks[2 * j], peaks[2 * j + 1]
        assert float(peak["value"]) == pytest.approx(max(means.values()), rel=1e-12), phase
        assert float(sustained["value"]) == pytest.approx(means[max(means)], rel=1e-12), phase
        assert peak["derived"].startswith("max over ranks of the mean over repetitions of " + fld)
    pre = browser.evaluate("document.querySelector('pre.peaks').textContent")
    console = p.stdout[p.stdout.index("Peak & Sustained") :]
    assert console.startswith(pre) and pre.count("\n") == 2 + 7
    prov = browser.evaluate("document.querySelector('#provenance').textContent")
    assert "bytes per operation" in prov


# Every row of the drive-by-drive table of every point: its cells' values, texts and sources.
DRIVE_ROWS = """JSON.stringify(Array.from(
  document.querySelectorAll('#drives details table tbody tr')).map(tr =>
    Array.from(tr.cells).map(td => ({value: td.dataset.value ?? null,
      row: td.dataset.row ?? null, table: td.dataset.table || null, text: td.textContent}))))"""


@pytest.fixture(scope="module")
def two_drives(tmp_path_factory):
    """A real run over two folders, each its own drive (ext4 on a loop device, as root): the
    first mounted sync, so that seq-write's bytes reach its device inside the window while the
    second's stay in the page cache, and at 2 ranks the second drive lags where the first does
    not. Returns the results file, what the run printed and the drives' device names."""
    why = missing_loop_tools()
    if why:
        pytest.skip(why)
    tmp = tmp_path_factory.mktemp("drives")
    drives = make_drives(tmp, ["local"], 2)
    try:
        sh("mount", "-o", "remount,sync", drives.folder("local", 0))
        out = tmp / "d.h5"
        folders = f"{drives.folder('local', 0)},{drives.folder('local', 1)}"
        p = run_sweep(
            2,
            dir=folders,
            file_size="4MiB",
            phases="seq-write,seq-read,filter-count",
            rated_bw="5.2GB/s",
            output=out,
            check=0,
        )
        return out, p.stdout, [drives.device("local", i) for i in range(2)]
    finally:
        drives.close()


def same(shown, stored):
    """A cell's data-value and the stored float: equal, NaN as NaN."""
    return (math.isnan(stored) and shown == "nan") or float(shown) == stored


def expected_drives(path):
    """{(summary row, drive): what the drive table must show}, from h5py alone."""
    with h5py.File(path, "r") as f:
        g = latest_run(f)
        s, dev = g["summary"][()], g["device"][()]
        writes = {v for k, v in names.phases(g).items() if k in ("seq_write", "rand_write")}
    out = {}
    for i, pt in enumerate(s["point"]):
        rows = dev[dev["point"] == pt]
        for d in sorted({int(x) for x in rows["drive"]}):
            mine = rows[rows["drive"] == d]
            counted = mine[mine["counted"] == 1][0]
            seen = counted["write_bytes" if s["phase"][i] in writes else "read_bytes"]
            used = mine[mine["ranks"] > 0] if (mine["ranks"] > 0).any() else mine[:1]
            out[(i, d)] = {
                "ranks": int(used["ranks"].sum()),
                "claimed": int(used["claimed_bytes"].sum()),
                "seen": int(seen),
                "fraction": float(counted["drive_fraction"]),
                "seconds": float(used["seconds"].max()),
                "Bps": float(counted["drive_Bps"]),
                "window_MiBps": int(seen) / float(s["wall_s"][i]) / 2**20,
                "mark": ("the only drive used" if s["drives"][i] == 1 else "slowest")
                if d == s["drive_slowest"][i]
                else "fastest"
                if d == s["drive_fastest"][i]
                else "",
            }
    return out


def test_the_drive_table_of_a_run_over_two_drives_is_the_files(two_drives, browser, tmp_path):
    out, printed, devices = two_drives
    page = tmp_path / "drives.html"
    assert report(out, "-o", page).returncode == 0
    cells = render(browser, page)
    checked = check_against_file(cells, out)
    fields = {c["field"] for c in cells if c["section"] == "drives" and c["table"] == "device"}
    assert {"drive", "device", "claimed_bytes", "drive_fraction", "drive_Bps"} <= fields
    assert {"read_bytes", "write_bytes", "ranks", "seconds"} <= fields and checked["device"]
    # Every drive of every point, each figure h5py's; the slowest and fastest marked.
    want = expected_drives(out)
    shown = {}
    for row in json.loads(browser.evaluate(DRIVE_ROWS)):
        i, drive = int(row[1]["row"]), int(row[3]["text"])
        shown[(i, drive)] = row
        w = want[(i, drive)]
        assert row[4]["text"] in devices
        assert int(row[5]["value"]) == w["ranks"] and int(row[6]["value"]) == w["claimed"]
        assert int(row[7]["value"]) == w["seen"] and same(row[8]["value"], w["fraction"])
        assert float(row[9]["value"]) == w["seconds"] and same(row[10]["value"], w["Bps"])
        assert float(row[11]["value"]) == pytest.approx(w["window_MiBps"], rel=1e-12)
        assert row[12]["text"] == w["mark"]
    assert set(shown) == set(want)
    assert {"slowest", "fastest", "the only drive used"} <= {w["mark"] for w in want.values()}
    # The lagging drive is noted as the console's notes column notes it: the second drive's
    # seq-write at 2 ranks, its bytes still in the page cache while the first's reached it.
    notes = {i: row[13]["text"] for (i, _), row in shown.items() if row[13]["text"]}
    assert any(f"drive {devices[1]} (node 0) " in n for n in notes.values()), notes
    # Each is the note iosweep stored on the drive's device row (checked against h5py above).
    noted = [row[13] for row in shown.values() if row[13]["text"]]
    assert all(c["table"] == "device" and c["value"] == c["text"] for c in noted), noted
    with h5py.File(out, "r") as f:
        s = latest_run(f)["summary"][()]
        label = {v: k.replace("_", "-") for k, v in names.phases(latest_run(f)).items()}
    for i, note in notes.items():
        line = rf"^{label[s['phase'][i]]} +{s['ranks'][i]} +1 +{s['repetition'][i]} .*"
        assert re.search(line + re.escape(note) + "$", printed, re.M), (note, printed)
    # The final math's per-drive lines are the console's, byte for byte.
    pre = browser.evaluate("document.querySelector('pre.final-math').textContent")
    console = final_math_printed(printed)
    assert pre == console
    assert "per drive  " in pre and "(aggregate / 2 drives used)" in pre
    assert len(re.findall(r"^  drive \d+ +loop\d+ on node 0 ", pre, re.M)) == 2
    assert "rated      5.200 GB/s per drive:" in pre


def test_final_math_without_a_drive_is_the_consoles(tmp_path):
    """Folders on tmpfs, which has no block device: per drive is not known, said as the console
    says it (the device note, escaped as the binary escapes it), --rated-bw is per rank's
    device, and the Drives section says why no drive was counted."""
    if not os.path.isdir("/dev/shm") or fs_type("/dev/shm") != "tmpfs":
        pytest.skip("no tmpfs at /dev/shm to put folders without a block device on")
    work = tempfile.mkdtemp(prefix="iosweep-report-", dir="/dev/shm")
    out = tmp_path / "shm.h5"
    try:
        folders = [os.path.join(work, x) for x in "ab"]
        for f in folders:
            os.mkdir(f)
        p = run_sweep(
            2,
            dir=",".join(folders),
            file_size="2MiB",
            phases="seq-write,filter-count",
            rated_bw="1GB/s",
            output=out,
        )
    finally:
        shutil.rmtree(work)
    assert p.returncode == 0, p.stderr
    console = final_math_printed(p.stdout)
    assert "  per drive  not known: no device counters (node 0, folder " in console
    assert "GB/s per rank's device: " in console
    page = tmp_path / "shm.html"
    assert report(out, "-o", page).returncode == 0
    html = page.read_text()
    pre = re.search(r'<pre class="final-math"[^>]*>(.*?)</pre>', html, re.S).group(1)
    assert unescape(pre) == console
    assert "No drive was counted at any point" in html


# ------------------------------------------------------------------ the page at 1400 px

# Every <details> opened, then: any box whose content is wider than the box (the page, a
# section, a card, a chart, a table's container, a list of values, a paragraph), and any cell
# half a line or more taller than its own content (a row made tall by one long cell).
LAYOUT = """(() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const where = e => ((e.closest('section') || {id: 'page'}).id + ' ' + e.tagName.toLowerCase()
    + (e.className ? '.' + e.className : '') + ' "' + e.textContent.trim().slice(0, 50) + '"');
  const out = {wide: [], tall: [], cells: 0};
  const de = document.documentElement;
  if (de.scrollWidth > de.clientWidth) out.wide.push('the page: ' + de.scrollWidth + ' > '
    + de.clientWidth);
  for (const e of document.querySelectorAll(
      'section, .card, .kv, .kv > div, figure, details, pre, ul, p, h3, h4')) {
    if (e.scrollWidth > e.clientWidth + 1)
      out.wide.push(where(e) + ': ' + e.scrollWidth + ' > ' + e.clientWidth);
  }
  for (const c of document.querySelectorAll('td, th')) {
    out.cells += 1;
    const cs = getComputedStyle(c);
    const line = parseFloat(cs.lineHeight) || 1.2 * parseFloat(cs.fontSize);
    const range = document.createRange();
    range.selectNodeContents(c);
    const content = Math.max(range.getBoundingClientRect().height, line);
    const frame = ['paddingTop', 'paddingBottom', 'borderTopWidth', 'borderBottomWidth']
      .reduce((a, k) => a + parseFloat(cs[k]), 0);
    const height = c.getBoundingClientRect().height;
    if (height > content + frame + line / 2)
      out.tall.push(where(c) + ': ' + Math.round(height) + ' px for ' + Math.round(content));
  }
  return JSON.stringify(out);
})()"""
ENUM_NAMES = re.compile(
    r"\b(seq_write|seq_read|rand_write|rand_read|filter_count|scan_only|ship_count|md_mkdir"
    r"|md_create|md_stat|md_read|md_remove|md_rmdir)\b"
)


@pytest.fixture(scope="module")
def md_only(tmp_path_factory):
    """A real metadata-only run (fsync per item) on 1 and 2 ranks, and what it printed."""
    tmp = tmp_path_factory.mktemp("md")
    (tmp / "w").mkdir()
    out = tmp / "md.h5"
    p = run_sweep(
        2,
        dir=tmp / "w",
        phases="md",
        md_items=40,
        md_fsync=True,
        output=out,
        check=0,
    )
    return out, p.stdout


@pytest.fixture(scope="module")
def sixteen_nodes(tmp_path_factory):
    """A real run of 16 ranks on 16 emulated nodes (tests/cluster's rsh agent and UTS
    namespaces): a point on 8 nodes and one on all 16, data and metadata phases."""
    why = can_emulate()
    if why:
        pytest.skip(why)
    tmp = tmp_path_factory.mktemp("nodes")
    (tmp / "w").mkdir()
    out = tmp / "n.h5"
    cmd, env = launch.mpirun(16, emulated_nodes(tmp / "hosts", 16, 1))
    argv = iosweep_argv(
        dir=tmp / "w",
        file_size="1MiB",
        ranks="8,16",
        phases="seq-write,rand-read,md-create,md-stat",
        md_items=10,
        output=out,
    )
    p = subprocess.run(
        cmd + [str(BIN)] + argv, capture_output=True, text=True, env=mpi_env(env), timeout=600
    )
    assert p.returncode == 0, p.stdout + p.stderr
    return out, p.stdout


def layout(browser, page):
    """The page at 1400 px with every <details> open: (what runs off, cells too tall, cells)."""
    browser.resize(1400)
    try:
        render(browser, page)
        m = json.loads(browser.evaluate(LAYOUT))
    finally:
        browser.resize(1280)
    return m["wide"], m["tall"], m["cells"]


@pytest.mark.parametrize("run", ["data", "metadata", "drives", "16 nodes"])
def test_the_page_fits_1400_px_and_no_cell_is_taller_than_its_content(
    request, browser, tmp_path, run
):
    """A reader's window of 1400 px: nothing of the report of a data run, a metadata run, a run
    over two drives and a run on 16 nodes runs off the page or off its box, with every table to
    open opened, no cell is made tall by another, and every phase is named as --phases names it."""
    fixture = {"data": "results", "metadata": "md_only", "drives": "two_drives"}
    got = request.getfixturevalue(fixture.get(run, "sixteen_nodes"))
    out = got[1] if run == "data" else got[0]
    page = tmp_path / "r.html"
    p = report(out, "-o", page, *(["--baseline", BASELINES[0]] if run == "data" else []))
    assert p.returncode == 0, p.stderr
    wide, tall, cells = layout(browser, page)
    assert wide == [] and tall == [] and cells > 100, (wide[:10], tall[:10], cells)
    text = browser.evaluate("document.body.innerText")
    assert not ENUM_NAMES.search(text), ENUM_NAMES.search(text).group(0)


def test_a_metadata_only_run_reads_as_metadata(md_only, browser, tmp_path):
    """Operations per second over time (a metadata phase moves no bytes), no chart of one point,
    its own settings in What ran (--md-fsync, not the data phases' fsync), Drives and the final
    math in a line, and each Peak & Sustained figure with its rows' cache verdict, the console's
    table byte for byte."""
    out, printed = md_only
    page = tmp_path / "md.html"
    assert report(out, "-o", page).returncode == 0
    cells = render(browser, page)
    check_against_file(cells, out)
    titles = json.loads(
        browser.evaluate(
            "JSON.stringify(Array.from(document.querySelectorAll('#over-time figure')).map(f =>"
            " ({title: f.querySelector('.title').textContent, text: f.textContent,"
            " lines: f.querySelectorAll('polyline').length})))"
        )
    )
    rates = [t for t in titles if "over time" in t["title"] and "latency" not in t["title"]]
    assert len(rates) == 6 and all(t["title"].endswith(": operations over time") for t in rates)
    assert all("ops/s" in t["text"] and "MiB/s" not in t["text"] for t in rates)
    # A latency chart is drawn only through two bins or more: never one point on -1 s .. 1 s.
    assert all(t["lines"] > 0 for t in titles if "latency over time" in t["title"])
    over = browser.evaluate("document.querySelector('#over-time').textContent")
    assert "ops/s" in over and "MiB/s" not in over.replace("(MiB/s)", "")
    ran = browser.evaluate("document.querySelector('#what-ran').innerText")
    assert re.search(r"fsync per item \(--md-fsync\)\s+yes", ran), ran
    assert "fsync phases" not in ran and "file per rank" not in ran and "random record" not in ran
    assert re.search(r"metadata items per rank\s+40", ran)
    drives = browser.evaluate("document.querySelector('#drives').innerText")
    assert drives.strip().splitlines()[-1].startswith("No drive figures: this run has no data")
    final = browser.evaluate("document.querySelector('#final-math').innerText")
    assert len([ln for ln in final.splitlines() if ln.strip()]) == 2  # the heading and a line
    pre = browser.evaluate("document.querySelector('pre.peaks').textContent")
    console = printed[printed.index("Peak & Sustained") :]
    console = console[: console.index("results: run ")]  # the run's last lines follow it
    assert console == pre and "  notes\n" in pre
    # Each figure is marked when a row it is made of carries a verdict in its stored notes (a
    # metadata figure the caches answered, or one not on the device yet), and only then.
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        s, enum = g["summary"][()], names.by_value(names.phases(g))
    for line in pre.splitlines()[2:]:
        phase, _, _, peak_at, _, last_at = line.split()[:6]
        rows = s[[enum[int(v)] == phase.replace("-", "_") for v in s["phase"]]]
        mine = [
            n.decode()
            for n, k in zip(rows["notes"], rows["ranks"])
            if k in (int(peak_at), int(last_at))
        ]
        marked = [n for n in mine if re.search(r"\((unflushed|cached)\)|unverified", n)]
        assert bool(marked) == bool(re.search(r"\((unflushed|cached)\)|unverified", line)), (
            line,
            mine,
        )
