"""scale-check, isolation-check and filter-efficiency check all their own arguments, the ones they
pass to iosweep included (sizes through `iosweep units`, --bin an executable), before any folder
or job is made: one line naming the argument, status 2, nothing created. No row starts a job:
every row is refused before, and the arguments the rows do not change are the smallest a real
run would take."""
import os

import pytest

from iosweep_tools.core import files
from conftest import BIN
from refusals import MiB, beyond_free, expand, refused, traps

# What every row of a script starts with; a row's own arguments come after and override them.
BASE = {
    "scale-check": ["--dir", "{d}", "--bin", BIN, "--ranks", "2", "--size", "1m"],
    "isolation-check": [
        "--dir",
        "{d}",
        "--bin",
        BIN,
        "--ranks",
        "2",
        "--emulated-ranks",
        "2",
        "--emulated-nodes",
        "1",
        "--pairs",
        "1",
        "--size",
        "16m",
    ],
    "filter-efficiency": ["--dir", "{d}", "--bin", BIN, "--np", "1", "--repetitions", "1"]
    + ["--size", "16m"],
}

# Arguments every wrapper takes, refused alike: (id, arguments, the start of the message).
COMMON = [
    ("dir-missing", ["--dir", "{tmp}/none"], "--dir: "),
    ("dir-in-proc", ["--dir", "/proc"], "--dir: '/proc' is on proc"),
    ("dir-in-sys", ["--dir", "/sys/kernel"], "--dir: '/sys/kernel' is on sysfs"),
    ("dir-a-file", ["--dir", "{tmp}/notes.txt"], "--dir: "),
    ("dir-with-newline", ["--dir", "{tmp}/a\nb"], "--dir: '"),
    ("bin-missing", ["--bin", "{tmp}/no-iosweep"], "--bin: "),
    ("bin-a-folder", ["--bin", "{tmp}"], "--bin: "),
    ("bin-not-executable", ["--bin", "{tmp}/notes.txt"], "--bin: "),
    ("bin-not-iosweep", ["--bin", "/bin/true"], "--bin: /bin/true units: expected"),
    ("bin-prints-without-end", ["--bin", "/usr/bin/yes"], "--bin: /usr/bin/yes units: printed"),
    ("size-not-a-size", ["--size", "abc"], "--size: 'abc' is not a size"),
    ("size-nan", ["--size", "nan"], "--size: 'nan' is not a size"),
    ("size-zero", ["--size", "0"], "--size: must "),
    ("size-negative", ["--size", "-4m"], "--size: "),
    ("size-overflow", ["--size", "99999999999TiB"], "--size: "),
    ("size-absurd", ["--size", "100t"], "--size: must be at most"),
    ("size-with-newline", ["--size", "16m\n--fsync"], "--size: '16m\\n--fsync' contains white"),
    ("unknown-option", ["--bogus"], "--bogus: "),
]

MD = ["--config", "pixstor-md-empty"]  # a metadata preset
CASES = [
    # scale-check
    ("scale-check", "ranks-absurd", ["--ranks", "1000000"], "--ranks: must be at most 16384"),
    ("scale-check", "ranks-power", ["--ranks", "2^40"], "--ranks: '2^40' is not a whole number"),
    ("scale-check", "ranks-float", ["--ranks", "2.5"], "--ranks: '2.5' is not a whole number"),
    ("scale-check", "nodes-absurd", ["--nodes", "5000"], "--nodes: must be at most 1024"),
    ("scale-check", "nodes-beyond-ranks", ["--nodes", "4"], "--nodes: 4 nodes for 2 ranks"),
    ("scale-check", "slots-without-nodes", ["--slots", "4"], "--slots: only with --nodes"),
    ("scale-check", "size-not-whole-records", ["--size", "1536k"], "--size: 1536k is not a mul"),
    ("scale-check", "output-folder-missing", ["--output", "{tmp}/none/r.h5"], "--output: "),
    ("scale-check", "output-in-proc", ["--output", "/proc/r.h5"], "--output: '/proc/r.h5' is on"),
    (
        "scale-check",
        "config-missing",
        ["--config", "no-such"],
        "--config: 'no-such' is not a preset",
    ),
    ("scale-check", "config-empty", ["--config", ""], "--config: is empty; expected a preset"),
    ("scale-check", "config-not-toml", ["--config", "{tmp}/notes.txt"], "--config: '"),
    ("scale-check", "config-a-folder", ["--config", "{tmp}"], "--config: '"),
    ("scale-check", "config-a-fifo", ["--config", "{tmp}/fifo.h5"], "--config: '"),
    ("scale-check", "config-with-newline", ["--config", "smoke\n--fsync"], "--config: 'smoke\\n"),
    ("scale-check", "md-items-without-config", ["--md-items", "8"], "--md-items: only with --con"),
    ("scale-check", "md-items-zero", MD + ["--md-items", "0"], "--md-items: must be at least 1"),
    ("scale-check", "md-items-absurd", MD + ["--md-items", "2000000"], "--md-items: must be at mo"),
    ("scale-check", "md-items-nan", MD + ["--md-items", "nan"], "--md-items: 'nan' is not a whole"),
    (
        "scale-check",
        "md-items-data-preset",
        ["--config", "smoke", "--md-items", "8"],
        "--md-items: --config smoke runs no metadata phase",
    ),
    # isolation-check
    ("isolation-check", "pairs-zero", ["--pairs", "0"], "--pairs: must be at least 1 (found 0)"),
    ("isolation-check", "pairs-absurd", ["--pairs", "1000"], "--pairs: must be at most 100"),
    ("isolation-check", "pairs-nan", ["--pairs", "nan"], "--pairs: 'nan' is not a whole number"),
    ("isolation-check", "ranks-absurd", ["--ranks", "100000"], "--ranks: must be at most 4096"),
    ("isolation-check", "emulated-ranks-absurd", ["--emulated-ranks", "1e9"], "--emulated-ranks"),
    ("isolation-check", "size-not-whole-records", ["--size", "20m"], "--size: 20m is not a mul"),
    # filter-efficiency
    ("filter-efficiency", "np-zero", ["--np", "0"], "--np: must be at least 1 (found 0)"),
    ("filter-efficiency", "np-absurd", ["--np", "100000"], "--np: must be at most 256"),
    ("filter-efficiency", "np-negative", ["--np", "-2"], "--np: '-2' is not a whole number"),
    ("filter-efficiency", "repetitions-zero", ["--repetitions", "0"], "--repetitions: must be"),
    ("filter-efficiency", "repetitions-absurd", ["--repetitions", "1000000"], "--repetitions: "),
    ("filter-efficiency", "repetitions-inf", ["--repetitions", "inf"], "--repetitions: 'inf'"),
    ("filter-efficiency", "size-below-a-record", ["--size", "4m"], "--size: must hold at least"),
    ("filter-efficiency", "size-not-whole-records", ["--size", "24m"], "--size: 24m is not"),
]
# Refused in one line with status 2 already before these checks (test_scale_scripts.py and
# test_common.py hold what they say): not rows here, where every row needs the new checks.
_OLD = {"dir-missing", "dir-a-file", "bin-missing", "bin-not-executable"}
_OLD_SIZES = {"bin-a-folder", "bin-not-iosweep", "size-not-a-size", "size-nan", "size-zero"}
BEFORE = {
    "scale-check": _OLD | _OLD_SIZES | {"size-overflow", "size-with-newline"},
    "isolation-check": _OLD | _OLD_SIZES | {"size-overflow", "size-with-newline"},
    "filter-efficiency": _OLD,
}
CASES += [
    (script, case, args, name)
    for script in BASE
    for case, args, name in COMMON
    if case not in BEFORE[script]
]


@pytest.fixture(scope="module")
def where(tmp_path_factory):
    return traps(tmp_path_factory.mktemp("wrappers"))


def run_row(where, script, args, name):
    refused(
        script,
        expand(BASE[script] + args, where),
        name,
        [where["tmp"]],
        cwd=where["out"],
    )


@pytest.mark.parametrize("script,case,args,name", CASES, ids=[f"{c[0]}:{c[1]}" for c in CASES])
def test_bad_arguments_are_refused_before_anything_is_made(where, script, case, args, name):
    run_row(where, script, args, name)


# Rows whose bad value depends on the machine: the free space of the work folder and its memory.
# (script, files of --size per run, the size's multiple, its bound, the options that set files)
SPACE = [
    ("scale-check", 2, MiB, 64 << 30, []),
    ("isolation-check", 1, 16 * MiB, 1 << 40, []),
    ("filter-efficiency", 1, 16 * MiB, 1 << 40, []),
]


@pytest.mark.parametrize("script,files,multiple,hi,extra", SPACE, ids=[s[0] for s in SPACE])
def test_files_beyond_the_free_space_are_refused_before_anything_is_made(
    where, script, files, multiple, hi, extra
):
    size = beyond_free(where["d"], files, multiple, hi)
    if size is None:
        pytest.skip(f"{where['d']} has more room than {files} files of the largest --size")
    run_row(where, script, ["--size", size] + extra, "--size: ")


MEMORY = [
    ("scale-check", ["--ranks", "16384"], 16384 * (16 * MiB), "--ranks: 16384 ranks need"),
    ("isolation-check", ["--ranks", "4096"], 4096 * (16 * MiB), "--ranks: 4096 ranks need"),
]


@pytest.mark.parametrize("script,args,need,name", MEMORY, ids=[m[0] for m in MEMORY])
def test_ranks_beyond_the_memory_are_refused_before_anything_is_made(
    where, script, args, need, name
):
    avail = files.mem_available()
    if not avail or avail >= need:
        pytest.skip(f"this machine has {avail} bytes available, enough for {args}")
    run_row(where, script, args, name)


def test_metadata_items_beyond_the_free_inodes_are_refused_before_anything_is_made(where):
    # 1024 ranks of 2^20 items each and their folders (1025 with the preset's 1024 per folder).
    ranks, per_rank = 1024, (1 << 20) + 1025
    v = os.statvfs(where["d"])
    if files.mem_available() < ranks * 16 * MiB:
        pytest.skip(f"this machine has too little memory for {ranks} ranks: refused for that")
    if not v.f_files or v.f_favail >= ranks * per_rank:
        pytest.skip(f"{where['d']} has {v.f_favail} free inodes of {v.f_files}: enough")
    args = MD + ["--ranks", str(ranks), "--md-items", str(1 << 20)]
    run_row(where, "scale-check", args, f"--md-items: {ranks} ranks x {per_rank} files and folders")
