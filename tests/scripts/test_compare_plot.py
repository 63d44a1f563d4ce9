"""iosweep-compare and iosweep-plot: the IOzone and IOR parsers against real outputs (values,
record and file sizes, O_DIRECT, stonewalling), clean refusal of garbled input, the comparison
table and CSV (a ratio only between figures of one definition and equal settings), the PNG, and
the --format iozone round trip."""
import csv
import re
import struct
import subprocess
import zlib

import h5py
import pytest

from iosweep_tools.results.names import by_value, is_random, phases
from iosweep_tools.compare import ior, iozone, parsers
from iosweep_tools.compare.record import TOO_LARGE, ParseError
from conftest import SOURCE_DIR, latest_run, make_results, run_iosweep

FIX = SOURCE_DIR / "tests" / "fixtures"
MIB = 1048576.0

# fixture -> {(phase, threads): (children or mean value, unit scale)} for one value per row
EXPECTED = {
    "iozone/01-seq-write-read-t2.txt": {
        ("seq-write", 2): 598723.97 * 1024,
        ("seq-read", 2): 9897484.00 * 1024,
    },
    "iozone/02-rand-t2-with-i0.txt": {
        ("seq-write", 2): 264697.53 * 4096,
        ("rand-read", 2): 1925921.19,
        ("rand-write", 2): 176014.69,
    },
    "iozone/03-whitepaper-seqwrite-i0-t2.txt": {("seq-write", 2): 707136.50 * 1024},
    "iozone/04-whitepaper-seqread-i1-t2.txt": {("seq-read", 2): 9076104.00 * 1024},
    "iozone/05-whitepaper-random-i2-t2.txt": {
        ("rand-read", 2): 1634722.12,
        ("rand-write", 2): 94988.54,
    },
    "iozone/07-excel-report-t1-t2.txt": (
        {  # kB/sec throughout: random phases become ops/s (1 MiB records)
            ("seq-write", 1): 231547.34 * 1024,
            ("seq-read", 1): 2038959.88 * 1024,
            ("rand-read", 1): 5226232.50 / 1024,
            ("rand-write", 1): 439475.72 / 1024,
            ("seq-write", 2): 426647.17 * 1024,
            ("seq-read", 2): 3187748.00 * 1024,
            ("rand-read", 2): 10329179.00 / 1024,
            ("rand-write", 2): 638612.31 / 1024,
        }
    ),
    "iozone/11-per-child-C-rand-t2.txt": {
        ("seq-write", 2): 203302.38 * 4096,
        ("rand-read", 2): 1511882.56,
        ("rand-write", 2): 190747.58,
    },
    "iozone/13-cluster-seq-t2.txt": {
        ("seq-write", 2): 846025.47 * 1024,
        ("seq-read", 2): 2663484.25 * 1024,
    },
    "iozone/14-cluster-rand-t2.txt": {("rand-read", 2): 1148325.62, ("rand-write", 2): 113286.13},
    "ior/01-posix-seq16m.txt": {("seq-write", 2): 540.04 * MIB, ("seq-read", 2): 6366.23 * MIB},
    "ior/02-posix-rand4k.txt": {("rand-write", 2): 244931.59, ("rand-read", 2): 1872873.56},
    "ior/03-posix-seq16m-json.txt": {
        ("seq-write", 2): 1611.1512 * MIB,
        ("seq-read", 2): 10402.6808 * MIB,
    },
    "ior/05-posix-odirect-rand4k.txt": {("rand-write", 2): 34022.78, ("rand-read", 2): 40070.88},
    "ior/08-posix-stonewall.txt": {("rand-write", 2): 143629.23, ("rand-read", 2): 1286279.40},
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_parses_to_the_right_phases_threads_and_values(name):
    results = parsers.parse_any(str(FIX / name))
    got = {}
    for r in results:
        if r.kind != "parent":
            got.setdefault((r.phase, r.threads), r.value)
    assert set(got) == set(EXPECTED[name])
    for key, want in EXPECTED[name].items():
        assert got[key] == pytest.approx(want, rel=1e-6), key


KIB, MIB_B = 1024, 1 << 20
# fixture -> (record size, size of one thread's file, O_DIRECT, IOzone stonewalling) as the
# output states them (IOzone: "Record Size N kB", "File size set to N kB"; IOR: xsize, blksiz x
# segcnt of file-per-process runs, --posix.odirect on the command line).
SETTINGS = {
    "iozone/01-seq-write-read-t2.txt": (16 * MIB_B, 256 * MIB_B, False, True),
    "iozone/02-rand-t2-with-i0.txt": (4 * KIB, 64 * MIB_B, False, True),
    "iozone/03-whitepaper-seqwrite-i0-t2.txt": (16 * MIB_B, 256 * MIB_B, False, True),
    "iozone/04-whitepaper-seqread-i1-t2.txt": (16 * MIB_B, 256 * MIB_B, False, True),
    "iozone/05-whitepaper-random-i2-t2.txt": (4 * KIB, 256 * MIB_B, False, True),
    "iozone/07-excel-report-t1-t2.txt": (1 * MIB_B, 64 * MIB_B, False, True),
    "iozone/11-per-child-C-rand-t2.txt": (4 * KIB, 32 * MIB_B, False, True),
    "iozone/13-cluster-seq-t2.txt": (16 * MIB_B, 128 * MIB_B, False, True),
    "iozone/14-cluster-rand-t2.txt": (4 * KIB, 128 * MIB_B, False, True),
    "ior/01-posix-seq16m.txt": (16 * MIB_B, 64 * MIB_B, False, None),
    "ior/02-posix-rand4k.txt": (4 * KIB, 16 * MIB_B, False, None),
    "ior/03-posix-seq16m-json.txt": (16 * MIB_B, 64 * MIB_B, False, None),
    "ior/05-posix-odirect-rand4k.txt": (4 * KIB, 8 * MIB_B, True, None),
    "ior/08-posix-stonewall.txt": (4 * KIB, 64 * MIB_B, False, None),
    "ior/18-script-sweep.txt": (1 * MIB_B, 16 * MIB_B, False, None),
}


def test_every_fixture_that_produces_results_has_its_settings_listed():
    outputs = {str(p.relative_to(FIX)) for p in FIX.glob("i*/*.txt")} - {
        "iozone/threadlist-rr4.txt"
    }
    assert outputs - set(SETTINGS) == {"iozone/06-random-i2-no-files-error.txt"}


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_record_file_size_and_o_direct_come_from_every_fixture(name):
    results = parsers.parse_any(str(FIX / name))
    assert results
    for r in results:
        assert (r.record_bytes, r.file_bytes, r.direct, r.stonewall) == SETTINGS[name], (
            r.phase,
            r.threads,
            r.line,
        )


def test_a_failed_iozone_run_still_states_its_settings():
    got = iozone.iozone_settings((FIX / "iozone/06-random-i2-no-files-error.txt").read_text())
    assert got == {
        "record_bytes": 4 * KIB,
        "file_bytes": 64 * MIB_B,
        "direct": False,
        "stonewall": True,
    }


def test_iozone_settings_in_older_wording_and_from_the_command_line_alone():
    text = (FIX / "iozone/01-seq-write-read-t2.txt").read_text()
    older = text.replace("Record Size 16384 kB", "Record Size 16384 KB").replace(
        "File size set to 262144 kB", "File size set to 262144 KB"
    )
    assert "16384 KB" in older and "262144 KB" in older
    assert iozone.iozone_settings(older) == iozone.iozone_settings(text)
    # No header lines at all: the command line says -r 16M -s 256M, and neither -I nor -x.
    bare = "\n".join(
        ln
        for ln in text.splitlines()
        if "Record Size" not in ln and "File size set" not in ln and "Each process writes" not in ln
    )
    assert iozone.iozone_settings(bare) == iozone.iozone_settings(text)
    assert iozone.iozone_settings("Children see throughput for  2 readers = 1.00 kB/sec\n") == {
        "record_bytes": None,
        "file_bytes": None,
        "direct": None,
        "stonewall": None,
    }


def with_header_line(name, line):
    """A real IOzone output with one more header line, as IOzone prints it for a flag."""
    text = (FIX / name).read_text()
    return text.replace(
        "\tNo retest option selected\n", f"\tNo retest option selected\n\t{line}\n", 1
    )


def test_iozone_o_direct_and_stonewall_off_are_read_and_name_the_figure():
    plain = iozone.parse_iozone("x", (FIX / "iozone/01-seq-write-read-t2.txt").read_text())[0]
    assert (plain.direct, plain.stonewall) == (False, True)
    assert (
        plain.figure == "IOzone Children see (stonewalled)"
        and plain.counterpart == "iozone_children"
    )
    direct = iozone.parse_iozone(
        "x", with_header_line("iozone/01-seq-write-read-t2.txt", "O_DIRECT feature enabled")
    )[0]
    assert direct.direct is True
    no_wall = iozone.parse_iozone(
        "x", with_header_line("iozone/01-seq-write-read-t2.txt", "Stonewall disabled")
    )[0]
    assert no_wall.stonewall is False and no_wall.counterpart == "children"
    assert "not stonewalled" in no_wall.figure


@pytest.mark.parametrize("flags", ["-B", "-O useO_DIRECT=1", "--posix.odirect"])
def test_ior_o_direct_on_its_command_line(flags):
    text = (FIX / "ior/01-posix-seq16m.txt").read_text().replace("-k -e", f"-k -e {flags}")
    assert ior.ior_direct(text) is True
    assert {r.direct for r in ior.parse_ior("x", text)} == {True}


def test_ior_o_direct_in_json_parameters_and_unknown_without_a_command_line():
    text = (FIX / "ior/03-posix-seq16m-json.txt").read_text()
    assert ior.ior_direct(text) is False
    assert ior.ior_direct(text.replace('"fsync": 1,', '"fsync": 1, "useO_DIRECT": 1,', 1)) is True
    # CSV rows alone: IOR prints no command line with them.
    lines = (FIX / "ior/18-script-sweep.txt").read_text().splitlines()
    csv_only = "\n".join(lines[lines.index("--- same, CSV:") + 1 :])
    assert ior.ior_direct(csv_only) is None
    assert {(r.record_bytes, r.file_bytes, r.direct) for r in ior.parse_ior("x", csv_only)} == {
        (MIB_B, None, None)
    }


def test_ior_script_sweep_has_both_task_counts():
    results = parsers.parse_any(str(FIX / "ior/18-script-sweep.txt"))
    keys = {(r.phase, r.threads) for r in results}
    assert keys == {("seq-write", 1), ("seq-read", 1), ("seq-write", 2), ("seq-read", 2)}
    first = [r for r in results if (r.phase, r.threads) == ("seq-write", 1)][0]
    assert first.value == pytest.approx(939.85 * MIB)


def test_iozone_parent_figures_are_kept_apart():
    results = parsers.parse_any(str(FIX / "iozone/01-seq-write-read-t2.txt"))
    parent = [r for r in results if r.kind == "parent" and r.phase == "seq-write"]
    assert parent and parent[0].value == pytest.approx(385859.55 * 1024)


def test_failed_iozone_run_is_reported_with_its_line():
    with pytest.raises(ParseError) as e:
        parsers.parse_any(str(FIX / "iozone/06-random-i2-no-files-error.txt"))
    assert e.value.line > 0 and "Children see throughput" in str(e.value)


def compare_cmd(*args):
    return subprocess.run(
        [str(SOURCE_DIR / "scripts" / "iosweep-compare")] + [str(a) for a in args],
        capture_output=True,
        text=True,
    )


@pytest.fixture(scope="module")
def run_file(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cmp")
    work = tmp / "w"
    work.mkdir()
    out = tmp / "r.h5"
    p = make_results(2, work, out, "4MiB", "1MiB", "--format", "iozone", "--label", "cmp")
    (tmp / "iosweep-as-iozone.txt").write_text(p.stdout)
    return out, tmp / "iosweep-as-iozone.txt"


@pytest.mark.parametrize(
    "garble,where,what",
    [
        ("iozone", 36, "IOzone test name"),
        ("ior-table", 40, "Summary of all tests"),
        ("ior-json", None, "valid IOR JSON"),
        ("unknown", 1, "IOzone, IOR or mdtest output"),
        # A number too large for any figure (400 digits; 5000, more than Python converts), on
        # every parser's lines: the line that holds it, never an OverflowError.
        ("ior/01-posix-seq16m.txt:blocksize           : 64 MiB", 28, TOO_LARGE),
        ('ior/03-posix-seq16m-json.txt:"numTasks": 2,', 2, TOO_LARGE),
        ("ior/18-script-sweep.txt:,16384.0000,", None, TOO_LARGE),
        ("iozone/02-rand-t2-with-i0.txt:Record Size 4 kB", 23, TOO_LARGE),
        ("iozone/07-excel-report-t1-t2.txt:Record Size 1024 kB", None, TOO_LARGE),
        ("iozone/01-seq-write-read-t2.txt:Children see throughput for  2 initial", 36, TOO_LARGE),
    ],
)
def test_garbled_input_gives_exit_2_and_the_line(run_file, tmp_path, garble, where, what):
    if ":" in garble:  # fixture:text, its first number made 400 digits long (5000 in IOR's CSV)
        name, old = garble.split(":", 1)
        digits = "9" * (5000 if "18-script" in name else 400)
        text = (FIX / name).read_text()
        assert old in text, old
        text = text.replace(old, re.sub(r"\d+", digits, old, count=1), 1)
        garble = name.replace("/", "-")
    elif garble == "iozone":
        text = (
            (FIX / "iozone/01-seq-write-read-t2.txt")
            .read_text()
            .replace("initial writers", "sideways writers", 1)
        )
    elif garble == "ior-table":
        text = (FIX / "ior/01-posix-seq16m.txt").read_text()
        lines = text.splitlines()
        idx = next(i for i, ln in enumerate(lines) if ln.startswith("Operation   Max(MiB)")) + 1
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


def csv_rows(path):
    """The comparison CSV as {(phase, threads, source tool or ''): row}."""
    rows = list(csv.DictReader(open(path)))
    return {(r["phase"], int(r["threads"]), r["source"].split("[")[0]): r for r in rows}


def summary_row(out, phase, ranks):
    with h5py.File(out, "r") as f:
        s = latest_run(f)["summary"][()]
        value = phases(f)[phase.replace("-", "_")]  # the enum's identifier of the name
    rows = s[(s["phase"] == value) & (s["ranks"] == ranks)]
    assert len(rows) == 1
    return rows[0]


def test_compare_prints_every_sources_settings_and_writes_csv(run_file, tmp_path):
    out, _ = run_file  # 4 MiB per rank, 1 MiB sequential and 4 KiB random records
    p = compare_cmd(
        out,
        FIX / "iozone/01-seq-write-read-t2.txt",
        FIX / "iozone/05-whitepaper-random-i2-t2.txt",
        FIX / "ior/18-script-sweep.txt",
        "--csv",
        tmp_path / "t.csv",
    )
    assert p.returncode == 0, p.stderr
    head = p.stdout.split("\n\n")[0]
    assert "per rank a 4 MiB file; records: seq 1 MiB, rand 4 KiB; O_DIRECT no" in head
    assert (
        "[1] IOzone: record 16 MiB, file 256 MiB (file per thread), O_DIRECT no, stonewalled: "
        + str(FIX / "iozone/01-seq-write-read-t2.txt")
    ) in head
    assert (
        "[3] IOR: record 1 MiB, file 16 MiB (file per thread), O_DIRECT no: "
        + str(FIX / "ior/18-script-sweep.txt")
        in head
    )
    for name in ("wall ", "children ", "iozone_children "):
        assert f"\n  {name}" in head
    assert 'IOzone\'s default, stonewalled "Children see"' in head and "only with -x" in head
    by = csv_rows(tmp_path / "t.csv")
    assert csv.DictReader(open(tmp_path / "t.csv")).fieldnames == [
        "phase",
        "threads",
        "unit",
        "iosweep_wall",
        "iosweep_children",
        "iosweep_iozone_children",
        "iosweep_record_bytes",
        "iosweep_file_bytes",
        "iosweep_direct",
        "source",
        "source_files",
        "source_figure",
        "source_value",
        "source_record_bytes",
        "source_file_bytes",
        "source_direct",
        "compared_with",
        "match",
        "ratio",
        # a metadata row's columns (mdtest), after those of every row
        "iosweep_one_tree",
        "iosweep_items",
        "iosweep_item_bytes",
        "iosweep_fsync",
        "iosweep_shared",
        "source_items",
        "source_item_bytes",
        "source_fsync",
        "source_shared",
    ]
    w2 = summary_row(out, "seq-write", 2)
    ioz = by[("seq-write", 2, "IOzone")]
    assert float(ioz["source_value"]) == pytest.approx(598723.97 / 1024, rel=1e-6)
    assert float(ioz["iosweep_wall"]) == pytest.approx(w2["bandwidth_Bps"] / MIB)
    assert float(ioz["iosweep_children"]) == pytest.approx(w2["children_Bps"] / MIB)
    assert float(ioz["iosweep_iozone_children"]) == pytest.approx(w2["iozone_children_Bps"] / MIB)
    assert (ioz["source_record_bytes"], ioz["source_file_bytes"], ioz["source_direct"]) == (
        str(16 << 20),
        str(256 << 20),
        "False",
    )
    assert (ioz["iosweep_record_bytes"], ioz["iosweep_file_bytes"], ioz["iosweep_direct"]) == (
        str(1 << 20),
        str(4 << 20),
        "False",
    )
    assert (
        ioz["compared_with"] == "iozone_children"
        and ioz["match"] == "≠ record,file"
        and ioz["ratio"] == ""
    )
    ior = by[("seq-write", 2, "IOR")]
    assert float(ior["source_value"]) == pytest.approx(
        (1114.60 + 371.7737 + 1048.7972) / 3, rel=1e-6
    )
    assert ior["compared_with"] == "wall" and ior["match"] == "≠ file" and ior["ratio"] == ""
    assert by[("rand-read", 2, "IOzone")]["unit"] == "ops/s"
    assert by[("rand-read", 2, "IOzone")]["match"] == "≠ file"
    # iosweep's 1-rank random rows have no source: shown alone, without a match.
    alone = by[("rand-read", 1, "")]
    assert alone["source_value"] == "" and alone["match"] == "" and float(alone["iosweep_wall"]) > 0
    # Control phases (and filter-count) have no counterpart in other tools.
    assert not {k for k in by if k[0] in ("scan-only", "filter-count")}


def test_a_different_record_size_gives_no_ratio_unless_loose(tmp_path_factory, tmp_path):
    # The case of the issue: IOzone -i0 -i2 -r 4K beside a run with 16 MiB sequential records
    # used to print seq-write / "initial writers" as if they measured the same thing.
    tmp = tmp_path_factory.mktemp("rec16")
    (tmp / "w").mkdir()
    out = tmp / "r.h5"
    make_results(2, tmp / "w", out, "16MiB", "16MiB", "--phases", "seq-write,rand-write,rand-read")
    iozone = FIX / "iozone/02-rand-t2-with-i0.txt"
    p = compare_cmd(out, iozone, "--csv", tmp_path / "strict.csv")
    assert p.returncode == 0, p.stderr
    row = next(
        ln for ln in p.stdout.splitlines() if ln.startswith("seq-write") and "IOzone[1]" in ln
    )
    assert "≠ record,file" in row and row.split()[-1] == "-", row
    assert re.search(r" 16 MiB +16 MiB +no +IOzone\[1\] .* 4 KiB +64 MiB +no ", row), row
    strict = csv_rows(tmp_path / "strict.csv")[("seq-write", 2, "IOzone")]
    assert strict["ratio"] == "" and strict["match"] == "≠ record,file"
    p = compare_cmd(out, iozone, "--loose", "--csv", tmp_path / "loose.csv")
    assert p.returncode == 0, p.stderr
    loose = csv_rows(tmp_path / "loose.csv")[("seq-write", 2, "IOzone")]
    assert loose["match"] == "≠ record,file"
    w2 = summary_row(out, "seq-write", 2)
    assert float(loose["ratio"]) == pytest.approx(
        w2["iozone_children_Bps"] / (264697.53 * 4096), rel=1e-6
    )
    row = next(
        ln for ln in p.stdout.splitlines() if ln.startswith("seq-write") and "IOzone[1]" in ln
    )
    assert float(row.split()[-1]) == pytest.approx(float(loose["ratio"]), abs=1e-3)


def test_a_record_size_a_source_does_not_state_is_a_question_mark_and_a_mismatch(
    run_file, tmp_path
):
    # IOR's CSV rows alone (no command line, no options block): record from the row, file unknown.
    lines = (FIX / "ior/18-script-sweep.txt").read_text().splitlines()
    csv_only = tmp_path / "ior-csv-only.txt"
    csv_only.write_text("\n".join(lines[lines.index("--- same, CSV:") + 1 :]) + "\n")
    p = compare_cmd(run_file[0], csv_only, "--csv", tmp_path / "t.csv")
    assert p.returncode == 0, p.stderr
    assert "[1] IOR: record 1 MiB, file ? (layout ?), O_DIRECT ?" in p.stdout
    row = csv_rows(tmp_path / "t.csv")[("seq-write", 2, "IOR")]
    assert (
        row["source_file_bytes"] == ""
        and row["match"] == "≠ file,O_DIRECT,layout"
        and row["ratio"] == ""
    )
    line = next(ln for ln in p.stdout.splitlines() if re.match(r"seq-write +2 ", ln))
    assert re.search(r"IOR\[1\] .* 1 MiB +\? +\? ", line), line
    # IOzone's throughput lines without its header or command line: nothing is known.
    bare = tmp_path / "iozone-bare.txt"
    bare.write_text(
        "".join(
            ln + "\n"
            for ln in (FIX / "iozone/01-seq-write-read-t2.txt").read_text().splitlines()
            if "Children see" in ln
        )
    )
    p = compare_cmd(run_file[0], bare, "--csv", tmp_path / "b.csv")
    assert p.returncode == 0, p.stderr
    assert "[1] IOzone: record ?, file ? (file per thread), O_DIRECT ?" in p.stdout
    row = csv_rows(tmp_path / "b.csv")[("seq-write", 2, "IOzone")]
    assert row["match"] == "≠ record,file,O_DIRECT" and row["ratio"] == ""
    p = compare_cmd(run_file[0], bare, "--loose", "--csv", tmp_path / "l.csv")
    assert csv_rows(tmp_path / "l.csv")[("seq-write", 2, "IOzone")]["ratio"] != ""


@pytest.fixture(scope="module")
def iozone11_run(tmp_path_factory):
    """A run with IOzone fixture 11's settings: 2 threads, 32 MiB files, 4 KiB records, no -I."""
    tmp = tmp_path_factory.mktemp("ioz11")
    (tmp / "w").mkdir()
    out = tmp / "r.h5"
    phases = ["--phases", "seq-write,rand-write,rand-read"]
    make_results(2, tmp / "w", out, "32MiB", "4KiB", "--rand-record", "4KiB", *phases)
    return out


def test_equal_settings_give_the_ratio_of_figures_of_one_definition(iozone11_run, tmp_path):
    out = iozone11_run
    p = compare_cmd(out, FIX / "iozone/11-per-child-C-rand-t2.txt", "--csv", tmp_path / "t.csv")
    assert p.returncode == 0, p.stderr
    by = csv_rows(tmp_path / "t.csv")
    want = {"seq-write": 203302.38 * 4096, "rand-write": 190747.58, "rand-read": 1511882.56}
    for phase, value in want.items():
        row = by[(phase, 2, "IOzone")]
        assert row["match"] == "'=" and row["compared_with"] == "iozone_children", row
        s = summary_row(out, phase, 2)
        mine = s["iozone_children_Bps"] / (4096 if is_random(phase) else 1)
        assert float(row["ratio"]) == pytest.approx(mine / value, rel=1e-6), phase
    # The same output from IOzone -x: its "Children see" is iosweep's children figure.
    no_wall = tmp_path / "ioz-x.txt"
    no_wall.write_text(with_header_line("iozone/11-per-child-C-rand-t2.txt", "Stonewall disabled"))
    p = compare_cmd(out, no_wall, "--csv", tmp_path / "x.csv")
    assert p.returncode == 0, p.stderr
    assert "not stonewalled (-x)" in p.stdout
    row = csv_rows(tmp_path / "x.csv")[("rand-read", 2, "IOzone")]
    s = summary_row(out, "rand-read", 2)
    assert row["compared_with"] == "children" and row["match"] == "'="
    assert float(row["ratio"]) == pytest.approx(s["children_Bps"] / 4096 / 1511882.56, rel=1e-6)


def test_o_direct_on_one_side_only_is_a_mismatch(iozone11_run, diskdir, tmp_path):
    # IOR fixture 05: 2 tasks, 4 KiB random, 8 MiB each, --posix.odirect.
    out = tmp_path / "d.h5"
    run_iosweep(
        2,
        [
            "run",
            "--dir",
            diskdir,
            "--file-size",
            "8MiB",
            "--rand-record",
            "4KiB",
            "--direct",
            "--phases",
            "rand-write,rand-read",
            "--output",
            out,
            "--quiet",
        ],
        check=0,
    )
    p = compare_cmd(out, FIX / "ior/05-posix-odirect-rand4k.txt", "--csv", tmp_path / "t.csv")
    assert p.returncode == 0, p.stderr
    row = csv_rows(tmp_path / "t.csv")[("rand-read", 2, "IOR")]
    s = summary_row(out, "rand-read", 2)
    assert row["match"] == "'=" and float(row["ratio"]) == pytest.approx(
        s["iops"] / 40070.88, rel=1e-6
    )
    p = compare_cmd(
        iozone11_run, FIX / "ior/05-posix-odirect-rand4k.txt", "--csv", tmp_path / "u.csv"
    )
    row = csv_rows(tmp_path / "u.csv")[("rand-read", 2, "IOR")]
    assert row["match"] == "≠ file,O_DIRECT" and row["ratio"] == ""


def test_format_iozone_round_trip(run_file):
    out, text = run_file
    parsed = parsers.parse_any(str(text))
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        s = g["summary"][()]
        names = by_value(phases(g))
    checked = 0
    for row in s:
        phase = names[row["phase"]].replace("_", "-")  # the phase's name, as parsers give it
        if phase in ("filter-count", "scan-only"):  # no IOzone counterpart
            continue
        for kind, field in (("children", "iozone_children_Bps"), ("parent", "bandwidth_Bps")):
            r = [
                x
                for x in parsed
                if x.phase == phase and x.threads == row["ranks"] and x.kind == kind
            ]
            assert len(r) == 1, (phase, kind)
            want = row[field] / (4096 if is_random(phase) else 1)  # random: 4 KiB records
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
        n = struct.unpack(">I", data[pos : pos + 4])[0]
        kind = data[pos + 4 : pos + 8]
        if kind == b"IDAT":
            idat += data[pos + 8 : pos + 8 + n]
        pos += 12 + n
    raw = zlib.decompress(idat)
    return w, h, len(set(raw)), raw.count(b"\xff") / len(raw)


def test_plot_writes_a_png_that_is_not_blank(run_file, tmp_path):
    out, _ = run_file
    png = tmp_path / "p.png"
    p = subprocess.run(
        [
            str(SOURCE_DIR / "scripts" / "iosweep-plot"),
            str(out),
            str(FIX / "iozone/05-whitepaper-random-i2-t2.txt"),
            str(FIX / "ior/01-posix-seq16m.txt"),
            "-o",
            str(png),
        ],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    w, h, colours, white = png_size_and_colours(png)
    assert (w, h) == (1200, 500)
    assert colours > 50 and white < 0.97


def test_schema_readme_matches_what_the_writer_produces(run_file):
    out, _ = run_file
    doc = (SOURCE_DIR / "results" / "README.md").read_text()
    sections = re.split(r"^### `(\w+)`", doc, flags=re.M)
    documented = {
        sections[i]: re.findall(r"^\| `(\w+)` \|", sections[i + 1], flags=re.M)
        for i in range(1, len(sections), 2)
    }
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        produced = {
            "run_index": f["run_index"],
            "rank_map": g["rank_map"],
            "summary": g["summary"],
            "ranks": g["ranks"],
            "nodes": g["nodes"],
            "timeseries": g["timeseries"],
            "device": g["device"],
        }
        for name, ds in produced.items():
            assert list(ds.dtype.names) == documented[name], name
            for field in ds.dtype.names:
                assert ds.attrs[f"{field}.unit"] and ds.attrs[f"{field}.reduction"]


def test_iozone_report_table_alone_is_enough(tmp_path):
    # Keep the command line (-t 1 -t 2), the record size and the -R report, drop the
    # throughput blocks.
    lines = (FIX / "iozone/07-excel-report-t1-t2.txt").read_text().splitlines()
    kept = [
        ln
        for ln in lines
        if ln.startswith("# command:")
        or "Record Size" in ln
        or "Output is in" in ln
        or ln.startswith('"')
    ]
    f = tmp_path / "report-only.txt"
    f.write_text("\tIozone: Performance Test of File I/O\n" + "\n".join(kept) + "\n")
    got = {(r.phase, r.threads): r.value for r in parsers.parse_any(str(f))}
    want = EXPECTED["iozone/07-excel-report-t1-t2.txt"]
    assert set(got) == set(want)
    for k, v in want.items():
        assert got[k] == pytest.approx(v, rel=1e-6)


def ior_shared_fixture(tmp_path):
    """IOR's 01 fixture as IOR prints the same job without -F (one shared file): the access line,
    the command line and the fPP column of its summary table."""
    lines = (FIX / "ior/01-posix-seq16m.txt").read_text().splitlines()
    out, cols = [], None
    for line in lines:
        line = line.replace(" -F ", " ").replace("file-per-process", "single-shared-file")
        if line.startswith("Operation"):
            cols = line.split()
        elif cols and line.split() and line.split()[0] in ("write", "read"):
            cells = line.split()
            cells[cols.index("fPP")] = "0"
            line = " ".join(cells)
        out.append(line)
    path = tmp_path / "ior-shared.txt"
    path.write_text("\n".join(out) + "\n")
    return path


@pytest.mark.parametrize("layout", ["shared", "per-rank"])
def test_a_shared_file_run_matches_ior_without_F_only(tmp_path, workdir, layout):
    # IOR -t 16m -b 64m on 2 tasks; iosweep's 64 MiB per rank, as a region of one file or a file.
    out = tmp_path / "r.h5"
    phases = ["--ranks", "2", "--phases", "seq-write,seq-read", "--file-layout", layout]
    make_results(2, workdir, out, "64MiB", "16MiB", *phases)
    shared, per_file = ior_shared_fixture(tmp_path), FIX / "ior/01-posix-seq16m.txt"
    p = compare_cmd(out, shared, per_file, "--csv", tmp_path / "t.csv")
    assert p.returncode == 0, p.stderr
    assert (
        "file 128 MiB (one shared file)" in p.stdout and "file 64 MiB (file per thread)" in p.stdout
    )
    rows = [
        r
        for r in csv.DictReader(open(tmp_path / "t.csv"))
        if r["phase"] == "seq-write" and r["source"]
    ]
    match = {r["source_file_bytes"]: r["match"] for r in rows}
    if layout == "shared":
        assert match[str(128 << 20)] == "'=" and "layout" in match[str(64 << 20)]
    else:
        assert match[str(64 << 20)] == "'=" and "layout" in match[str(128 << 20)]
