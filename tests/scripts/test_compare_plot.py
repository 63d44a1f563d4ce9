"""iosweep-compare and iosweep-plot: the IOzone and IOR parsers against real outputs, clean
refusal of garbled input, the comparison table and CSV, the PNG, and the --format iozone round
trip."""
import csv
import re
import struct
import subprocess
import zlib

import h5py
import pytest

import iosweep_common as common
import iosweep_compare as ic
from conftest import SOURCE_DIR, latest_run, run_iosweep

FIX = SOURCE_DIR / "tests" / "fixtures"
MIB = 1048576.0

# fixture -> {(phase, threads): (children or mean value, unit scale)} for one value per row
EXPECTED = {
    "iozone/01-seq-write-read-t2.txt": {("seq_write", 2): 598723.97 * 1024, ("seq_read", 2): 9897484.00 * 1024},
    "iozone/02-rand-t2-with-i0.txt": {("seq_write", 2): 264697.53 * 4096, ("rand_read", 2): 1925921.19,
                                      ("rand_write", 2): 176014.69},
    "iozone/03-whitepaper-seqwrite-i0-t2.txt": {("seq_write", 2): 707136.50 * 1024},
    "iozone/04-whitepaper-seqread-i1-t2.txt": {("seq_read", 2): 9076104.00 * 1024},
    "iozone/05-whitepaper-random-i2-t2.txt": {("rand_read", 2): 1634722.12, ("rand_write", 2): 94988.54},
    "iozone/07-excel-report-t1-t2.txt": {  # kB/sec throughout: random phases become ops/s (1 MiB records)
        ("seq_write", 1): 231547.34 * 1024, ("seq_read", 1): 2038959.88 * 1024,
        ("rand_read", 1): 5226232.50 / 1024, ("rand_write", 1): 439475.72 / 1024,
        ("seq_write", 2): 426647.17 * 1024, ("seq_read", 2): 3187748.00 * 1024,
        ("rand_read", 2): 10329179.00 / 1024, ("rand_write", 2): 638612.31 / 1024},
    "iozone/11-per-child-C-rand-t2.txt": {("seq_write", 2): 203302.38 * 4096, ("rand_read", 2): 1511882.56,
                                          ("rand_write", 2): 190747.58},
    "iozone/13-cluster-seq-t2.txt": {("seq_write", 2): 846025.47 * 1024, ("seq_read", 2): 2663484.25 * 1024},
    "iozone/14-cluster-rand-t2.txt": {("rand_read", 2): 1148325.62, ("rand_write", 2): 113286.13},
    "ior/01-posix-seq16m.txt": {("seq_write", 2): 540.04 * MIB, ("seq_read", 2): 6366.23 * MIB},
    "ior/02-posix-rand4k.txt": {("rand_write", 2): 244931.59, ("rand_read", 2): 1872873.56},
    "ior/03-posix-seq16m-json.txt": {("seq_write", 2): 1611.1512 * MIB, ("seq_read", 2): 10402.6808 * MIB},
    "ior/05-posix-odirect-rand4k.txt": {("rand_write", 2): 34022.78, ("rand_read", 2): 40070.88},
    "ior/08-posix-stonewall.txt": {("rand_write", 2): 143629.23, ("rand_read", 2): 1286279.40},
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_parses_to_the_right_phases_threads_and_values(name):
    results = ic.parse_any(str(FIX / name))
    got = {}
    for r in results:
        if r.kind != "parent":
            got.setdefault((r.phase, r.threads), r.value)
    assert set(got) == set(EXPECTED[name])
    for key, want in EXPECTED[name].items():
        assert got[key] == pytest.approx(want, rel=1e-6), key


def test_ior_script_sweep_has_both_task_counts():
    results = ic.parse_any(str(FIX / "ior/18-script-sweep.txt"))
    keys = {(r.phase, r.threads) for r in results}
    assert keys == {("seq_write", 1), ("seq_read", 1), ("seq_write", 2), ("seq_read", 2)}
    first = [r for r in results if (r.phase, r.threads) == ("seq_write", 1)][0]
    assert first.value == pytest.approx(939.85 * MIB)


def test_iozone_parent_figures_are_kept_apart():
    results = ic.parse_any(str(FIX / "iozone/01-seq-write-read-t2.txt"))
    parent = [r for r in results if r.kind == "parent" and r.phase == "seq_write"]
    assert parent and parent[0].value == pytest.approx(385859.55 * 1024)


def test_failed_iozone_run_is_reported_with_its_line():
    with pytest.raises(ic.ParseError) as e:
        ic.parse_any(str(FIX / "iozone/06-random-i2-no-files-error.txt"))
    assert e.value.line > 0 and "Children see throughput" in str(e.value)


def compare_cmd(*args):
    return subprocess.run([str(SOURCE_DIR / "scripts" / "iosweep-compare")] + [str(a) for a in args],
                          capture_output=True, text=True)


@pytest.fixture(scope="module")
def run_file(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cmp")
    work = tmp / "w"
    work.mkdir()
    out = tmp / "r.h5"
    p = run_iosweep(2, ["run", "--dir", work, "--file-size", "4MiB", "--seq-record", "1MiB",
                        "--output", out, "--quiet", "--format", "iozone", "--label", "cmp"], check=0)
    (tmp / "iosweep-as-iozone.txt").write_text(p.stdout)
    return out, tmp / "iosweep-as-iozone.txt"


@pytest.mark.parametrize("garble,where,what", [
    ("iozone", 36, "IOzone test name"),
    ("ior-table", 40, "Summary of all tests"),
    ("ior-json", None, "valid IOR JSON"),
    ("unknown", 1, "IOzone or IOR output"),
])
def test_garbled_input_gives_exit_2_and_the_line(run_file, tmp_path, garble, where, what):
    if garble == "iozone":
        text = (FIX / "iozone/01-seq-write-read-t2.txt").read_text().replace("initial writers", "sideways writers", 1)
    elif garble == "ior-table":
        text = (FIX / "ior/01-posix-seq16m.txt").read_text()
        lines = text.splitlines()
        idx = next(i for i, l in enumerate(lines) if l.startswith("Operation   Max(MiB)")) + 1
        lines[idx] = lines[idx].replace("540.04", "five-forty", 1)
        where = idx + 1
        text = "\n".join(lines)
    elif garble == "ior-json":
        text = (FIX / "ior/03-posix-seq16m-json.txt").read_text()
        text = text[: text.index('"summary"')] + '"summary": [ {"operation": "write", '
    else:
        text = "just some notes\nnothing to see\n"
    bad = tmp_path / f"{garble}.txt"
    bad.write_text(text)
    p = compare_cmd(run_file[0], bad)
    assert p.returncode == 2
    assert "Traceback" not in p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and str(bad) in lines[0] and what in lines[0], p.stderr
    m = re.search(r": line (\d+):", lines[0])
    assert m and (where is None or int(m.group(1)) == where), lines[0]


def test_compare_prints_the_table_and_writes_csv(run_file, tmp_path):
    out, _ = run_file
    p = compare_cmd(out, FIX / "iozone/01-seq-write-read-t2.txt", FIX / "iozone/05-whitepaper-random-i2-t2.txt",
                    FIX / "ior/18-script-sweep.txt", "--csv", tmp_path / "t.csv")
    assert p.returncode == 0, p.stderr
    assert "iosweep wall" in p.stdout and "iosweep children" in p.stdout and "IOzone children" in p.stdout
    rows = list(csv.DictReader(open(tmp_path / "t.csv")))
    by = {(r["phase"], int(r["threads"])): r for r in rows}
    assert float(by[("seq_write", 2)]["iozone_children"]) == pytest.approx(598723.97 / 1024, rel=1e-6)
    assert float(by[("seq_write", 2)]["ior"]) == pytest.approx((1114.60 + 371.7737 + 1048.7972) / 3, rel=1e-6)
    assert by[("rand_read", 2)]["unit"] == "ops/s"
    with h5py.File(out, "r") as f:
        s = latest_run(f)["summary"][()]
        seq_write = common.phases(f)["seq_write"]
    w2 = s[(s["phase"] == seq_write) & (s["ranks"] == 2)][0]
    assert float(by[("seq_write", 2)]["iosweep_wall"]) == pytest.approx(w2["bandwidth_Bps"] / MIB)
    assert float(by[("seq_write", 2)]["ratio_vs_iozone"]) == pytest.approx(
        w2["iozone_children_Bps"] / (598723.97 * 1024), rel=1e-6)


def test_format_iozone_round_trip(run_file):
    out, text = run_file
    parsed = ic.parse_any(str(text))
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        s = g["summary"][()]
        names = common.by_value(common.phases(g))
    checked = 0
    for row in s:
        phase = names[row["phase"]]
        if phase in ("filter_count", "scan_only"):  # no IOzone counterpart
            continue
        for kind, field in (("children", "iozone_children_Bps"), ("parent", "bandwidth_Bps")):
            r = [x for x in parsed if x.phase == phase and x.threads == row["ranks"] and x.kind == kind]
            assert len(r) == 1, (phase, kind)
            want = row[field] / (4096 if common.is_random(phase) else 1)  # random: 4 KiB records
            assert r[0].value == pytest.approx(want, rel=1e-5), (phase, kind)
            checked += 1
    assert checked == 16


def png_size_and_colours(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    w, h = struct.unpack(">II", data[16:24])
    # Decompress the image data and count distinct byte values: a blank image has very few.
    pos, idat = 8, b""
    while pos < len(data):
        n = struct.unpack(">I", data[pos:pos + 4])[0]
        kind = data[pos + 4:pos + 8]
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + n]
        pos += 12 + n
    raw = zlib.decompress(idat)
    return w, h, len(set(raw)), raw.count(b"\xff") / len(raw)


def test_plot_writes_a_png_that_is_not_blank(run_file, tmp_path):
    out, _ = run_file
    png = tmp_path / "p.png"
    p = subprocess.run([str(SOURCE_DIR / "scripts" / "iosweep-plot"), str(out),
                        str(FIX / "iozone/05-whitepaper-random-i2-t2.txt"), str(FIX / "ior/01-posix-seq16m.txt"),
                        "-o", str(png)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    w, h, colours, white = png_size_and_colours(png)
    assert (w, h) == (1200, 500)
    assert colours > 50 and white < 0.97


def test_schema_readme_matches_what_the_writer_produces(run_file):
    out, _ = run_file
    doc = (SOURCE_DIR / "results" / "README.md").read_text()
    sections = re.split(r"^### `(\w+)`", doc, flags=re.M)
    documented = {sections[i]: re.findall(r"^\| `(\w+)` \|", sections[i + 1], flags=re.M)
                  for i in range(1, len(sections), 2)}
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        produced = {"run_index": f["run_index"], "rank_map": g["rank_map"], "summary": g["summary"],
                    "ranks": g["ranks"], "nodes": g["nodes"], "timeseries": g["timeseries"]}
        for name, ds in produced.items():
            assert list(ds.dtype.names) == documented[name], name
            for field in ds.dtype.names:
                assert ds.attrs[f"{field}.unit"] and ds.attrs[f"{field}.reduction"]


def test_iozone_report_table_alone_is_enough(tmp_path):
    # Keep the command line (-t 1 -t 2), the record size and the -R report, drop the throughput blocks.
    lines = (FIX / "iozone/07-excel-report-t1-t2.txt").read_text().splitlines()
    kept = [l for l in lines if l.startswith("# command:") or "Record Size" in l or "Output is in" in l
            or l.startswith('"')]
    f = tmp_path / "report-only.txt"
    f.write_text("\tIozone: Performance Test of File I/O\n" + "\n".join(kept) + "\n")
    got = {(r.phase, r.threads): r.value for r in ic.parse_any(str(f))}
    want = EXPECTED["iozone/07-excel-report-t1-t2.txt"]
    assert set(got) == set(want)
    for k, v in want.items():
        assert got[k] == pytest.approx(v, rel=1e-6)
