"""A run as a sequence of steps (a preset's [[step]] tables), with the real binary: one launch,
one run in the results file with its steps and its plan, every row naming its step; steps that
share a dataset share their files; what the command line overrides is said; the refusals of a
preset's steps; --rerun and show of a stepped run."""
import textwrap

import h5py
import pytest

from conftest import dir_listing, latest_run, run_iosweep, run_sweep
from iosweep_tools.results import frames
from iosweep_tools.results.names import phases

TWO_STEPS = """\
    file-size = "2MiB"
    seq-record = "1MiB"
    quiet = true

    [[step]]
    name = "write"
    dataset = "d"
    phases = ["seq-write"]
    ranks = [1, 2]

    [[step]]
    name = "read back"
    dataset = "d"
    phases = ["seq-read"]
    verify = true
    ranks = [2]

    [[step]]
    name = "metadata"
    phases = ["md-create", "md-stat", "md-remove"]
    md-items = "16"
    ranks = [2]
    """


def preset(tmp_path, text, name="steps.toml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


@pytest.fixture(scope="module")
def stepped(tmp_path_factory):
    """One stepped run of three steps on two ranks, its files kept: (results file, data folder,
    the process)."""
    tmp = tmp_path_factory.mktemp("steps")
    work = tmp / "data"
    work.mkdir()
    out = tmp / "r.h5"
    p = run_sweep(
        2, config=preset(tmp, TWO_STEPS), dir=work, output=out, keep=True, quiet=False, check=0
    )
    return out, work, p


def test_a_stepped_run_is_one_run_whose_rows_name_their_steps(stepped):
    out, _, p = stepped
    with h5py.File(out, "r") as f:
        assert len(f["runs"]) == 1
        g = latest_run(f)
        names = [g["steps"][str(i)].attrs["name"] for i in range(len(g["steps"]))]
        assert [n.decode() if isinstance(n, bytes) else n for n in names] == [
            "write",
            "read back",
            "metadata",
        ]
        s = g["summary"][()]
        plan = g["plan"][()]
        by = {v: k for k, v in phases(g).items()}
        got = [(int(r["step"]), by[int(r["phase"])], int(r["ranks"])) for r in s]
        assert got == [
            (0, "seq_write", 1),
            (0, "seq_write", 2),
            (1, "seq_read", 2),
            (2, "md_create", 2),
            (2, "md_stat", 2),
            (2, "md_remove", 2),
        ]
        # Every row names the plan row that decided it, and the plan has one row per phase run.
        assert len(plan) == len(s)
        for r in s:
            row = plan[int(r["plan_row"])]
            assert (row["step"], row["phase"], row["ranks"]) == (r["step"], r["phase"], r["ranks"])
        assert g["steps"]["2"].attrs["md_items"] == 16
    assert "step 2 of 3: read back" in p.stdout and "step 3 of 3: metadata" in p.stdout


def test_steps_of_one_dataset_share_their_files(stepped):
    """The read-back step reads (and verifies) what the write step wrote: with --keep, the run
    leaves one set of files, the dataset's, and the metadata step none."""
    out, work, _ = stepped
    with h5py.File(out, "r") as f:
        rid = latest_run(f).attrs["run_id"]
        rid = rid.decode() if isinstance(rid, bytes) else rid
    assert dir_listing(work) == [f"iosweep.{rid}.d0.0", f"iosweep.{rid}.d0.1"]
    _, summary = frames.load(out)
    read = summary[summary["step_name"] == "read back"]
    assert len(read) == 1 and read.iloc[0]["bytes"] == 2 * (2 << 20)


def test_the_command_line_overrides_top_level_keys_and_says_what_a_step_keeps(tmp_path, workdir):
    out = tmp_path / "r.h5"
    p = run_sweep(
        2,
        "--dry-run",
        config=preset(tmp_path, TWO_STEPS),
        dir=workdir,
        output=out,
        ranks="1",
        file_size="4MiB",
        check=0,
    )
    # --ranks 1 is every step's default, but each step names its own ranks.
    assert "the step's own keys stand over the command line: --ranks 1,2" in p.stdout, p.stdout
    assert "4 MiB per rank" in p.stdout and dir_listing(workdir) == []


def test_a_command_line_sweep_over_a_presets_streams_is_said(tmp_path, workdir):
    p = run_sweep(
        2,
        "--dry-run",
        config=preset(tmp_path, 'streams = "1:2"\nphases = ["rand-read"]\n'),
        dir=workdir,
        output=tmp_path / "r.h5",
        sweep="1:2",
        file_size="4MiB",
        check=0,
    )
    assert "the command line overrides: --sweep 1:2 (the preset gives streams = 1:2)" in p.stdout


@pytest.mark.parametrize(
    "text, why",
    [
        ('[[step]]\nname = "a"\noutput = "x.h5"\n', "'output' is an option of the whole run"),
        ('[[step]]\nphases = ["seq-write"]\n', "has no name"),
        ('[[step]]\nname = "a"\n[[step]]\nname = "a"\n', "two steps are named 'a'"),
        ('[[stage]]\nname = "a"\n', "[[stage]] is not taken"),
        ('[[step]]\nname = ""\n', "a step's name is one non-empty string"),
        ('[[step]]\nname = "a"\nmd-depth = "x"\n', "step 'a': --md-depth"),
        (
            '[[step]]\nname = "a"\ndataset = "d"\n[[step]]\nname = "b"\ndataset = "d"\n'
            'file-size = "8MiB"\n',
            "step 'b': --file-size: differs from step 'a'",
        ),
        ('[[step]]\nname = "a"\nbogus = 1\n', "step 'a' has option 'bogus'"),
    ],
)
def test_a_presets_bad_steps_are_refused_in_one_line(tmp_path, workdir, text, why):
    out = tmp_path / "r.h5"
    p = run_sweep(
        1, config=preset(tmp_path, text), dir=workdir, output=out, file_size="4MiB", check=2
    )
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("iosweep:")]
    assert len(lines) == 1 and why in lines[0], p.stderr
    assert dir_listing(workdir) == [] and not out.exists()


def test_rerun_and_show_reproduce_a_stepped_run(stepped, tmp_path, workdir):
    out, _, _ = stepped
    shown = run_iosweep(1, ["show", str(out)], check=0).stdout
    assert '[[step]]\nname = "read back"\ndataset = "d"' in shown
    again = tmp_path / "again.h5"
    run_sweep(2, "--keep=false", rerun=out, dir=workdir, output=again, check=0)
    with h5py.File(again, "r") as f:
        g = latest_run(f)
        assert len(g["steps"]) == 3
        assert sorted({int(v) for v in g["summary"]["step"]}) == [0, 1, 2]
    assert dir_listing(workdir) == []


def test_the_dry_run_in_docs_architecture_is_what_the_binary_prints(workdir, tmp_path):
    """docs/architecture.md shows the plan of a documented command; that command prints it."""
    from conftest import SOURCE_DIR

    doc = (SOURCE_DIR / "docs" / "architecture.md").read_text()
    block = doc.split("```text dry-run\n", 1)[1].split("```", 1)[0].splitlines()
    p = run_sweep(
        2,
        "--dry-run",
        dir=workdir,
        file_size="4MiB",
        seq_record="1MiB",
        phases="seq-write,rand-read",
        engine="uring",
        iodepth="8",
        output=tmp_path / "r.h5",
        check=0,
    )
    printed = p.stdout.splitlines()
    start = printed.index(block[0])
    assert printed[start : start + len(block)] == block, p.stdout


SERIES = """\
    phases = ["md-create", "md-remove"]
    md-items = "16"
    ranks = [1, 2]
    quiet = true

    [[step]]
    name = "empty"
    md-write-bytes = "0"

    [[step]]
    name = "4k"
    md-write-bytes = "4k"
    """


def test_compare_sets_a_step_beside_the_step_of_the_same_name(tmp_path, workdir):
    """Two runs of a study whose steps run the same phase (md-create of empty files, then of
    4 KiB files, as the PixStor study's MDtest series): iosweep-compare sets each step's rows
    beside the other run's rows of the step of the same name, never one series beside the
    other, and names the step in each row."""
    import subprocess

    from conftest import SOURCE_DIR

    out = tmp_path / "r.h5"
    for _ in range(2):
        run_sweep(2, config=preset(tmp_path, SERIES), dir=workdir, output=out, check=0)
    with h5py.File(out, "r") as f:
        a, b = list(f["runs"])[-2:]
    p = subprocess.run(
        [str(SOURCE_DIR / "scripts" / "iosweep-compare"), f"{out}:{a}", f"{out}:{b}"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    rows = [ln.split() for ln in p.stdout.splitlines() if "/md-" in ln.split(" ", 1)[0]]
    assert sorted((r[0], r[1]) for r in rows) == sorted(
        (f"{s}/{ph}", k)
        for s in ("empty", "4k")
        for ph in ("md-create", "md-remove")
        for k in ("1", "2")
    ), p.stdout
    # One repetition on each side: a row never holds both series.
    assert all(r[3] == "1/1" for r in rows), p.stdout
    # The steps in the run's order, then the phases in the table's.
    assert [r[0] for r in rows][:4] == ["empty/md-create"] * 2 + ["empty/md-remove"] * 2


def test_the_report_draws_a_curve_per_step_of_a_phase_two_steps_ran(tmp_path, workdir):
    """iosweep-report of a study whose steps run the same phase: one sweep card per step and
    phase (`empty/md-create`, `4k/md-create`), each holding only its step's rows."""
    import re
    import subprocess

    from conftest import SOURCE_DIR

    out = tmp_path / "r.h5"
    run_sweep(2, config=preset(tmp_path, SERIES), dir=workdir, output=out, check=0)
    page = tmp_path / "r.html"
    p = subprocess.run(
        [str(SOURCE_DIR / "scripts" / "iosweep-report"), str(out), "-o", str(page)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    html = page.read_text()
    for step in ("empty", "4k"):
        for phase in ("md-create", "md-remove"):
            assert f"{step}/{phase}: operations per second" in html, (step, phase)
    assert not re.search(r">md-create: operations per second", html)
