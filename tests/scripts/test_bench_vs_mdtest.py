"""scripts/bench-vs-mdtest: every bad argument refused in one line naming it (status 2, nothing
made), a failing mdtest reported with what mpirun printed (status 1, its folders removed), and,
with a real mdtest ($IOSWEEP_MDTEST: mdtest is built from IOR's repository outside this one),
side-by-side runs whose figures are exactly those of the saved mdtest outputs (read by
iosweep-compare's parser) and of iosweep's results file (read with h5py), in alternating order,
with nothing left in --dir but what was there."""
import csv
import glob
import math
import os
import statistics
import subprocess

import h5py
import pytest

from iosweep_tools.compare.mdtest import parse_mdtest
from iosweep_tools.core.devices import fs_type
from iosweep_tools.results import names
from conftest import SOURCE_DIR, mpi_env, snapshot
from refusals import refused

SCRIPT = "bench-vs-mdtest"
MDTEST = os.environ.get("IOSWEEP_MDTEST")
OPS = ("mkdir", "create", "stat", "read", "remove", "rmdir")
TREE_OPS = ("mkdir", "rmdir")  # one tree's folders, as mdtest counts them


# (arguments, the start of the line after "bench-vs-mdtest: "); {w} is an existing folder, {t}
# the test's folder. Every row but the first two gives --mdtest /bin/true (executable; nothing
# runs before every argument is checked).
REFUSALS = [
    ([], "--mdtest: required: an mdtest binary, built from IOR's repository outside this one"),
    (["--mdtest", "{t}/none"], "--mdtest: '{t}/none' is not an executable"),
    (["--pairs", "0"], "--pairs: must be at least 1 (found 0)"),
    (["--bed", "--ranks", "3"], "--ranks: must be even on the bed, half on each of its 2 nodes"),
    (["--bed", "--dir", "{w}"], "--dir: not with --target bed"),
    (["--bed", "--target", "local"], "--target: not allowed with argument --bed"),
    (["--name", "b1", "--dir", "{w}"], "--name: only with --target bed"),
    (["--dir", "/proc"], "--dir: '/proc' is on proc, a pseudo file system"),
    (["--dir", "{w}", "--items", "10", "--depth", "1", "--branch", "3"],
     "--items: 10 files per rank do not fill the 3 leaf folders evenly (mdtest would drop 1)"),
    (["--dir", "{w}", "--items", "8", "--items-per-folder", "2"],
     "--items-per-folder: give --items or --items-per-folder, not both"),
    (["--dir", "{w}", "--read-bytes", "4k"], "--read-bytes: at most --write-bytes"),
    (["--dir", "{w}", "--write-bytes", "4q"], "--write-bytes: unknown unit"),
    (["--dir", "{w}", "--layout", "hard"], "--layout: invalid choice: 'hard'"),
    (["--dir", "{w}", "--csv", "{t}/table.txt"], "--csv: '{t}/table.txt': the file is written"),
    (["--dir", "{w}", "--csv", "{t}/ok.csv", "--save", "{w}"],
     "--save: '{w}' exists; expected a new folder"),
    # A shape the file system cannot hold is refused before any run, not part way through one.
    (["--dir", "{w}", "--ranks", "64", "--items", "100000000"],
     "--items: 64 ranks x 100000002 files and folders need 6400000128 inodes in '{w}'"),
    (["--dir", "{w}", "--items", "100000", "--write-bytes", "1g"],
     "--write-bytes: 200000 file(s) of 1 GiB need 195 TiB in '{w}' but only"),
]  # fmt: skip


@pytest.mark.parametrize("args, said", REFUSALS)
def test_a_bad_argument_is_refused_before_anything_is_made(tmp_path, args, said):
    w = tmp_path / "w"
    w.mkdir()
    fill = lambda s: s.replace("{w}", str(w)).replace("{t}", str(tmp_path))  # noqa: E731
    args = [fill(a) for a in args]
    if args and "--mdtest" not in args:
        args = ["--mdtest", "/bin/true"] + args
    line = refused(SCRIPT, args, fill(said).split(":")[0], [tmp_path], env={"IOSWEEP_MDTEST": None})
    assert line.startswith(f"{SCRIPT}: {fill(said)}"), line


def test_mdtest_from_the_environment_and_each_target_s_file_system(tmp_path):
    """$IOSWEEP_MDTEST stands for --mdtest; --target local refuses a tmpfs, tmpfs a disk."""
    w = tmp_path / "w"
    w.mkdir()
    line = refused(SCRIPT, ["--dir", w], "--mdtest", [tmp_path], env={"IOSWEEP_MDTEST": str(w)})
    assert line == f"{SCRIPT}: --mdtest: '{w}' is not an executable"
    wrong = "local" if fs_type(w) in ("tmpfs", "ramfs") else "tmpfs"
    line = refused(SCRIPT, ["--mdtest", "/bin/true", "--target", wrong, "--dir", w], "--dir",
                   [tmp_path])  # fmt: skip
    assert (" is on tmpfs, not a disk" in line) if wrong == "local" else ", not tmpfs" in line


# Fake mdtests (rank 0 acts; the last argument is -d's folder): one fails, one removes its own
# folder, one swaps it for a symbolic link to a folder of someone else's ({other}).
FAKES = {
    "fails": ("exit 1", "mdtest of pair 1: mpirun exited 1: "),
    "removes": ('rm -rf "$d"', "mdtest of pair 1: its folder '{w}/bench-vs-mdtest."),
    "swaps": ('mv "$d" "$d.moved" && ln -s {other} "$d"', "mdtest of pair 1: its folder '{w}/"),
}
SAID = {"removes": "' was removed while it ran"}
SAID["swaps"] = "' was replaced while it ran by a symbolic link to '{other}'; left as it is in '"


@pytest.mark.parametrize("fake", sorted(FAKES))
def test_a_failing_mdtest_is_said_in_one_line_and_its_folders_are_removed(tmp_path, fake):
    """mdtest exits 1 on both ranks, or removes or swaps its own folder: status 1, one line
    naming the run and what happened (what mpirun printed), nothing of someone else's touched,
    and neither the runs' folder in --dir nor the outputs' folder is left."""
    w, other = tmp_path / "w", tmp_path / "other"
    w.mkdir()
    other.mkdir()
    (w / "theirs").write_text("not the script's")
    (other / "kept").write_text("someone else's")
    script, said = (x.replace("{other}", str(other)).replace("{w}", str(w)) for x in FAKES[fake])
    fake_mdtest = tmp_path / "mdtest"
    fake_mdtest.write_text(
        '#!/bin/sh\nfor d; do :; done\n[ "${OMPI_COMM_WORLD_RANK:-0}" = 0 ] || exit 0\n'
        + script
        + "\n"
    )
    fake_mdtest.chmod(0o755)
    before, kept = snapshot(w), snapshot(other)
    scratch = set(glob.glob("/tmp/bench-vs-mdtest.*"))
    p = subprocess.run(
        [SOURCE_DIR / "scripts" / SCRIPT, "--mdtest", fake_mdtest, "--dir", w, "--items", "4",
         "--pairs", "1"],
        capture_output=True, text=True, env=mpi_env(), timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert p.returncode == 1, p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{SCRIPT}: {said}"), p.stderr
    if fake in SAID:
        assert SAID[fake].replace("{other}", str(other)) in lines[0], lines[0]
    else:
        assert len(lines[0]) > len(f"{SCRIPT}: {said}no message")
    assert snapshot(other) == kept
    if fake == "swaps":  # the link is not the script's: left, alone in the runs' folder
        (work,) = [x for x in os.listdir(w) if x != "theirs"]
        assert lines[0].endswith(f"left as it is in '{w / work}'")
        assert [(x.name, x.is_symlink()) for x in os.scandir(w / work)] == [("mdtest.1", True)]
        os.unlink(w / work / "mdtest.1")
        os.rmdir(w / work)
    assert snapshot(w) == before and os.listdir(w) == ["theirs"]
    assert set(glob.glob("/tmp/bench-vs-mdtest.*")) <= scratch


# ---------------------------------------------------------------- against a real mdtest


@pytest.fixture(scope="module")
def mdtest():
    if not MDTEST or not (os.path.isfile(MDTEST) and os.access(MDTEST, os.X_OK)):
        pytest.skip(
            "no mdtest binary: set IOSWEEP_MDTEST to one (built from IOR's repository, outside"
            " this one) to run iosweep and mdtest side by side"
        )
    return MDTEST


def side_by_side(tmp_path, mdtest, *args):
    """The script's run in a --dir holding a file of someone else's; (stdout, --save folder,
    the table's CSV rows, runs.csv's rows). Asserts status 0 and --dir as it was."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "theirs").write_text("not the script's")
    before = snapshot(data)
    save, table_csv = tmp_path / "save", tmp_path / "table.csv"
    p = subprocess.run(
        [SOURCE_DIR / "scripts" / SCRIPT, "--mdtest", mdtest, "--dir", data, "--save", save,
         "--csv", table_csv, "--ranks", "2", *map(str, args)],
        capture_output=True, text=True, env=mpi_env(), timeout=600, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert snapshot(data) == before and os.listdir(data) == ["theirs"]
    assert sorted(os.listdir(tmp_path)) == ["data", "save", "table.csv"]
    with open(table_csv) as f:
        table = list(csv.DictReader(f))
    with open(save / "runs.csv") as f:
        runs = list(csv.DictReader(f))
    return p.stdout, save, table, runs


def check_runs(runs, save, ranks, items, shared, pairs):
    """Every run's rate is the figure its tool's output gives: mdtest's SUMMARY mean as
    iosweep-compare's parser reads it, iosweep's summary iops (mkdir and rmdir: / trees, one per
    rank in the private layout); the order of the tools alternates pair by pair."""
    assert {(int(r["pair"]), r["tool"], r["operation"]) for r in runs} == {
        (k, tool, op) for k in range(1, pairs + 1) for tool in ("mdtest", "iosweep") for op in OPS
    }
    for r in runs:
        first = "mdtest" if int(r["pair"]) % 2 else "iosweep"
        assert int(r["position"]) == (1 if r["tool"] == first else 2), r
        phase, rate = "md-" + r["operation"], float(r["rate_ops_s"])
        if r["tool"] == "mdtest":
            (res,) = [x for x in parse_mdtest(r["source"]) if x.phase == phase]
            assert rate == res.value and res.threads == ranks and res.items == items, r
            assert res.shared == shared and res.cache_drop is False
            continue
        path, run_id = r["source"].rsplit(":", 1)
        assert path == str(save / "iosweep.h5")
        with h5py.File(path, "r") as f:
            g = f["runs"][run_id]
            s = g["summary"][()]
            (row,) = s[s["phase"] == names.phases(g)[phase.replace("-", "_")]]
        trees = ranks if r["operation"] in TREE_OPS and not shared else 1
        assert rate == pytest.approx(float(row["iops"]) / trees, rel=1e-12), r
        assert (row["ranks"], row["md_items"], row["md_cache_drop"]) == (ranks, items * ranks, 0)


def check_table(table, runs, ranks, pairs):
    """One row per operation, in mdtest's order: the mean rates of runs.csv, the median of the
    pairs' ratios inside its interval, finite and positive, and the cost per operation."""
    assert [t["operation"] for t in table] == list(OPS)
    for t in table:
        rates = {
            tool: [float(r["rate_ops_s"]) for r in runs if (r["tool"], r["operation"]) ==
                   (tool, t["operation"])]
            for tool in ("mdtest", "iosweep")
        }  # fmt: skip
        ratios = [m / d for m, d in zip(rates["iosweep"], rates["mdtest"])]
        low, ratio, high = (float(t[k]) for k in ("ratio_low", "ratio", "ratio_high"))
        assert all(math.isfinite(x) and x > 0 for x in ratios + [low, ratio, high]), t
        assert ratio == pytest.approx(statistics.median(ratios)) and low <= ratio <= high
        assert int(t["pairs"]) == pairs and t["verdict"] in ("ok", "below", "unstable")
        workers = 1 if t["operation"] in TREE_OPS else ranks
        for tool in ("mdtest", "iosweep"):
            mean = float(t[f"{tool}_ops_s"])
            assert mean == pytest.approx(statistics.fmean(rates[tool]))
            assert float(t[f"{tool}_us_per_op"]) == pytest.approx(workers / mean * 1e6)


def test_side_by_side_on_a_local_folder(tmp_path, mdtest):
    """2 pairs, 2 ranks, 50 empty files per rank, a folder per rank (mdtest -u)."""
    out, save, table, runs = side_by_side(tmp_path, mdtest, "--pairs", 2, "--items", 50)
    check_runs(runs, save, 2, 50, False, 2)
    check_table(table, runs, 2, 2)
    printed = [ln.split()[0] for ln in out.splitlines() if ln.split()[:1] in [[o] for o in OPS]]
    assert printed == list(OPS)
    assert sorted(os.listdir(save)) == ["iosweep.h5", "mdtest.1.txt", "mdtest.2.txt", "runs.csv"]


def test_side_by_side_one_shared_tree_with_bytes_and_fsync(tmp_path, mdtest):
    """One tree for both ranks (no -u) of depth 1 and branch 2, 5 files per leaf folder
    (mdtest -I 5: 10 per rank), 4 KiB written, 1 KiB read and fsynced per file: the same shape
    on both sides or the script would have refused the pair."""
    out, save, table, runs = side_by_side(
        tmp_path, mdtest, "--pairs", 1, "--layout", "shared", "--depth", 1, "--branch", 2,
        "--items-per-folder", 5, "--write-bytes", "4k", "--read-bytes", "1k", "--fsync",
    )  # fmt: skip
    check_runs(runs, save, 2, 10, True, 1)
    check_table(table, runs, 2, 1)
    (res,) = [x for x in parse_mdtest(str(save / "mdtest.1.txt")) if x.phase == "md-read"]
    assert (res.item_bytes, res.read_bytes, res.fsync, res.tree) == (4096, 1024, True, (1, 2))
