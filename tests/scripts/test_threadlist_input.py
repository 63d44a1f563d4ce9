"""scripts/make-threadlist refuses, in one line with status 2 and printing nothing, what would make
a host file other than the one asked for: an empty node list, names that are not host names
(spaces, newlines, '=' could inject `n2 slots=999`), absurd counts, and IOzone fields with
whitespace."""
import subprocess

import pytest

from conftest import SOURCE_DIR
from refusals import refused

SCRIPT = "make-threadlist"
NO_SLURM = {"SLURM_JOB_NODELIST": None, "SLURM_NODELIST": None}
IOZ = ["--format", "iozone", "--workdir", "/w"]

CASES = [
    # (id, arguments, environment, the argument the message names)
    ("empty-name", [""], {}, "nodes: '' names no node"),
    ("only-commas", [",,"], {}, "nodes: ',,' names no node"),
    ("nothing-and-no-slurm", [], {}, "nodes: none given"),
    ("slurm-list-empty", [], {"SLURM_JOB_NODELIST": ""}, "$SLURM_JOB_NODELIST: '' names no"),
    ("name-with-space", ["n1", "n2 slots=999"], {}, "nodes: 'n2 slots=999' is not a host"),
    ("name-with-newline", ["n1\nn2 slots=999"], {}, "nodes: 'n1\\nn2 slots=999' is not a host"),
    ("name-with-equals", ["slots=999"], {}, "nodes: 'slots=999' is not a host name"),
    ("name-with-hash", ["n1#x"], {}, "nodes: 'n1#x' is not a host name"),
    ("name-with-tab-in-list", ["n[1-2],m\t3"], {}, "nodes: 'm\\t3' is not a host name"),
    ("name-with-escape", ["n\x1b[2J"], {}, "nodes: "),
    ("name-too-long", ["n" * 300], {}, "nodes: "),
    (
        "slurm-list-injects",
        [],
        {"SLURM_JOB_NODELIST": "n1 slots=64"},
        "$SLURM_JOB_NODELIST: 'n1 slots=64' is not a host name",
    ),
    ("absurd-expansion", ["n[1-999999999]"], {}, "nodes: more than 65536 nodes"),
    ("absurd-product", ["n[1-1000]x[1-1000]"], {}, "nodes: more than 65536 nodes"),
    ("range-digits-absurd", ["n[1-9999999999999]"], {}, "nodes: '1-9999999999999' in"),
    ("slots-absurd", ["--slots", "100000", "n1"], {}, "--slots: must be at most 4096"),
    ("slots-power", ["--slots", "2^40", "n1"], {}, "--slots: '2^40' is not a whole number"),
    ("slots-negative", ["--slots", "-1", "n1"], {}, "--slots: '-1' is not a whole number"),
    ("slots-fraction", ["--slots", "1.5", "n1"], {}, "--slots: '1.5' is not a whole number"),
    ("slots-nan", ["--slots", "nan", "n1"], {}, "--slots: 'nan' is not a whole number"),
    (
        "iozone-threads-absurd",
        ["--slots", "4096", "n[1-100]"] + IOZ,
        {},
        "--slots: 100 nodes x 4096 slots is more than 65536 threads",
    ),
    ("workdir-with-space", ["n1", "--format", "iozone", "--workdir", "/a b"], {}, "--workdir: "),
    ("workdir-with-newline", ["n1", "--format", "iozone", "--workdir", "/a\nn9"], {}, "--workdir"),
    ("workdir-empty", ["n1", "--format", "iozone", "--workdir="], {}, "--workdir: is empty"),
    ("binary-with-space", ["n1", *IOZ, "--binary", "/bin/ioz one"], {}, "--binary: "),
    ("workdir-without-iozone", ["n1", "--workdir", "/w"], {}, "--workdir: only with --format"),
    ("format-unknown", ["n1", "--format", "mpich"], {}, "--format: invalid choice"),
    ("unknown-option", ["n1", "--bogus"], {}, "--bogus: "),
]


@pytest.mark.parametrize("case,args,env,name", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_and_status_2_and_prints_nothing(tmp_path, case, args, env, name):
    refused(SCRIPT, args, name, [tmp_path], env={**NO_SLURM, **env}, cwd=tmp_path)
    p = subprocess.run(
        [str(SOURCE_DIR / "scripts" / SCRIPT), *args],
        capture_output=True,
        text=True,
        env={k: v for k, v in {"PATH": "/usr/bin:/bin", **env}.items() if v is not None},
    )
    assert p.stdout == "", p.stdout  # no host line, not even the good ones before the bad one


def test_the_longest_host_name_and_all_its_characters_are_taken():
    name = "a" * 200 + "-b.c_d9"
    p = subprocess.run(
        [str(SOURCE_DIR / "scripts" / SCRIPT), "--slots", "4096", name, "_x"],
        capture_output=True,
        text=True,
    )
    assert (p.returncode, p.stdout) == (0, f"{name} slots=4096\n_x slots=4096\n"), p.stderr
