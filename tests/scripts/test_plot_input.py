"""scripts/iosweep-plot refuses bad input in one line, status 2, before it draws or writes: bad
results files (wrong dtypes, empty tables, values outside an enum, missing groups and
attributes, truncated or garbage files, FIFOs, /dev/zero, folders), inputs that never end, output
paths it cannot write, and numbers that are not finite or out of bounds. Results files are a
real run of the binary and copies of it corrupted with h5py."""
import os

import pytest

from conftest import SOURCE_DIR
from refusals import corrupted, real_results, refused

SCRIPT = "iosweep-plot"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("plot-input")
    good = real_results(tmp)
    bad = corrupted(good, tmp / "bad")
    (tmp / "a-folder").mkdir()
    os.mkfifo(tmp / "fifo.txt")
    for name, text in {
        "nan": "source,system,phase,threads,value,unit\nx,s,rand-read,1,nan,ops/s\n",
        "zero-threads": "source,system,phase,threads,value,unit\nx,s,rand-read,0,5,ops/s\n",
        "not-utf8": "source,system,phase,threads,value,unit\nx,s,rand-read,1,5,\xff\n",
    }.items():
        (tmp / f"b-{name}").mkdir()
        (tmp / f"b-{name}" / "b.csv").write_bytes(text.encode("latin-1"))
    ior = (SOURCE_DIR / "tests" / "fixtures" / "ior" / "01-posix-seq16m.txt").read_text()
    (tmp / "ior-inf.txt").write_text(ior.replace("540.04     540.04     540.04", "1 1 inf", 1))
    (tmp / "b-fifo").mkdir()
    os.mkfifo(tmp / "b-fifo" / "b.csv")
    return tmp, good, bad


# (id, the results file: a name of refusals.CORRUPT or a path, extra arguments, the argument
# the message names)
CASES = [
    # results files with the right groups but wrong types or values
    ("run-index-of-floats", "run-index-of-floats", [], "results: "),
    ("run-index-empty", "run-index-empty", [], "results: "),
    ("run-id-of-floats", "run-id-of-floats", [], "results: "),
    ("phase-outside-enum", "phase-outside-enum", [], "results: "),
    ("ranks-of-floats", "ranks-of-floats", [], "results: "),
    ("iops-infinite", "iops-infinite", [], "results: "),
    ("optional-figure-inf", "optional-figure-inf", [], "results: "),
    ("summary-empty", "summary-empty", [], "results: "),
    ("summary-claims-2^40-rows", "summary-claims-2^40-rows", [], "results: "),
    ("world-size-text", "world-size-text", [], "results: "),
    ("phase-table-garbled", "phase-table-garbled", [], "results: "),
    ("schema-an-array", "schema-an-array", [], "results: "),
    ("schema-version-2", "schema-version-2", [], "results: "),
    # missing groups and attributes
    ("summary-missing", "summary-missing", [], "results: "),
    ("world-size-missing", "world-size-missing", [], "results: "),
    ("run-a-dataset", "run-a-dataset", [], "results: "),
    # files that are not results files, and inputs that never end
    ("truncated", "truncated", [], "results: "),
    ("garbage", "garbage", [], "results: "),
    ("empty-file", "empty", [], "results: "),
    ("results-fifo", "fifo", [], "results: "),
    ("results-folder", "folder", [], "results: "),
    ("results-dev-zero", "/dev/zero", [], "results: "),
    ("results-missing", "{tmp}/none.h5", [], "results: "),
    ("output-dev-zero", "good", ["/dev/zero"], "outputs: "),
    ("output-fifo", "good", ["{tmp}/fifo.txt"], "outputs: "),
    ("output-folder", "good", ["{tmp}/a-folder"], "outputs: "),
    ("output-figure-inf", "good", ["{tmp}/ior-inf.txt"], "{tmp}/ior-inf.txt: line 40: expected a"),
    ("baselines-csv-fifo", "good", ["--baselines-dir", "{tmp}/b-fifo"], "--baselines-dir: "),
    # output paths
    ("image-folder-missing", "good", ["-o", "{tmp}/none/p.png"], "--output: "),
    ("image-in-proc", "good", ["-o", "/proc/p.png"], "--output: "),
    ("image-in-sys", "good", ["-o", "/sys/p.svg"], "--output: "),
    ("image-extension-unknown", "good", ["-o", "{tmp}/p.xyz"], "--output: "),
    ("image-extension-pgf", "good", ["-o", "{tmp}/p.pgf"], "--output: "),
    ("image-no-extension", "good", ["-o", "{tmp}/p"], "--output: "),
    ("image-is-a-folder", "good", ["-o", "{tmp}/a-folder"], "--output: "),
    (
        "images-one-file",
        "good",
        ["-o", "{tmp}/out/p.png", "--latency-over-time", "{tmp}/out/p.png"],
        "--latency-over-time: the same file as --output",
    ),
    # numbers
    ("width-nan", "good", ["--width", "nan"], "--width: 'nan' is not a positive number"),
    ("width-inf", "good", ["--width", "inf"], "--width: 'inf' is not a positive number"),
    ("width-negative", "good", ["--width", "-3"], "--width: '-3' is not a positive number"),
    ("height-zero", "good", ["--height", "0"], "--height: '0' is not a positive number"),
    ("width-absurd", "good", ["--width", "1e9"], "--width: must be at most 40"),
    ("height-tiny", "good", ["--height", "0.01"], "--height: must be at least 2"),
    ("width-not-a-number", "good", ["--width", "wide"], "--width: 'wide'"),
    # baselines
    ("baselines-dir-missing", "good", ["--baselines-dir", "{tmp}/none"], "--baselines-dir: "),
    ("baselines-value-nan", "good", ["--baselines-dir", "{tmp}/b-nan"], "--baselines-dir: "),
    ("baselines-threads-zero", "good", ["--baselines-dir", "{tmp}/b-zero-threads"], "--baselines"),
    ("baselines-not-utf8", "good", ["--baselines-dir", "{tmp}/b-not-utf8"], "--baselines-dir: "),
    # the run and unknown arguments
    ("run-unknown-with-newline", "good", ["--run", "nope\nnext line"], "--run: nope\\nnext"),
    ("run-empty", "good", ["--run="], "--run: is empty"),
    ("unknown-option", "good", ["--bogus"], "--bogus: "),
]


@pytest.mark.parametrize("case,results,extra,name", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_and_status_2_with_nothing_written(files, case, results, extra, name):
    tmp, good, bad = files
    path = good if results == "good" else bad.get(results, results.replace("{tmp}", str(tmp)))
    args = [a.replace("{tmp}", str(tmp)) for a in extra]
    name = name.replace("{tmp}", str(tmp))
    if "-o" not in args:
        args += ["-o", str(tmp / "out" / "p.png")]
    (tmp / "out").mkdir(exist_ok=True)
    refused(SCRIPT, [path, *args], name, [tmp], cwd=tmp / "out")


def test_a_good_file_draws(files):
    """The same arguments with the real file: the image is written (the rows above are refused
    for what they change, not for something else)."""
    import subprocess

    tmp, good, _ = files
    out = tmp / "good.svg"
    p = subprocess.run(
        [str(SOURCE_DIR / "scripts" / SCRIPT), str(good), "-o", str(out), "--width", "8"],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0 and p.stderr == "", p.stderr
    assert out.stat().st_size > 1000 and sorted(x.name for x in tmp.glob(".good*")) == []
    out.unlink()
