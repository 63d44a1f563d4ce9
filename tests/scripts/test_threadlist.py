"""scripts/make-threadlist: Slurm node-list syntax, $SLURM_JOB_NODELIST, both output formats."""
import os
import subprocess

from conftest import SOURCE_DIR

TOOL = str(SOURCE_DIR / "scripts" / "make-threadlist")


def run(*args, env=None):
    e = dict(os.environ)
    e.pop("SLURM_JOB_NODELIST", None)
    e.pop("SLURM_NODELIST", None)
    e.update(env or {})
    return subprocess.run([TOOL, *args], capture_output=True, text=True, env=e)


def test_slurm_compressed_syntax_and_slots():
    p = run("--slots", "3", "n[1-3,7],gpu[01-02]", "login")
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == [
        "n1 slots=3",
        "n2 slots=3",
        "n3 slots=3",
        "n7 slots=3",
        "gpu01 slots=3",
        "gpu02 slots=3",
        "login slots=3",
    ]


def test_nodes_from_the_slurm_allocation():
    p = run(env={"SLURM_JOB_NODELIST": "c[08-10]"})
    assert p.stdout.splitlines() == ["c08 slots=1", "c09 slots=1", "c10 slots=1"]


def test_iozone_format_is_round_robin_like_the_fixture():
    p = run(
        "--slots",
        "2",
        "127.0.0.[1-4]",
        "--format",
        "iozone",
        "--workdir",
        "/scratch/iozwork/{node}",
        "--binary",
        "/opt/iozone/bin/iozone",
    )
    lines = p.stdout.splitlines()
    assert len(lines) == 8
    assert lines[0] == "127.0.0.1 /scratch/iozwork/127.0.0.1 /opt/iozone/bin/iozone"
    assert [ln.split()[0] for ln in lines] == [f"127.0.0.{i % 4 + 1}" for i in range(8)]
    # Same shape as the real IOzone threadlist of the fixtures: host, work folder, binary.
    fixture = (
        (SOURCE_DIR / "tests" / "fixtures" / "iozone" / "threadlist-rr4.txt")
        .read_text()
        .splitlines()
    )
    assert all(len(ln.split()) == 3 for ln in fixture if not ln.startswith("#"))


def test_bad_input_is_one_line_and_exit_2():
    for args in (
        ["n[4-1]"],
        ["n[1-2"],
        ["n1", "n1"],
        ["--slots", "0", "n1"],
        ["n1", "--format", "iozone"],
        [],
    ):
        p = run(*args)
        assert p.returncode == 2, args
        assert len(p.stderr.strip().splitlines()) == 1 and "make-threadlist:" in p.stderr, (
            args,
            p.stderr,
        )
