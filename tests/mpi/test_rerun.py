"""`iosweep show` and `iosweep run --rerun` through the real binary: a run, its configuration
printed as a preset, a rerun under overridden options that records rerun_of, a rerun on another
world size, and refusals that create nothing."""
import shutil
import tomllib

import h5py
import pytest

from conftest import dir_listing, run_ids, run_iosweep, run_sweep, snapshot, this_host

SOURCE = [
    "--file-size",
    "1MiB",
    "--seq-record",
    "1MiB",
    "--phases",
    "seq-write,seq-read",
    "--ranks",
    "1,2",
    "--label",
    "source run",
    "--quiet",
]


def runs(path):
    """(run id, config, attributes) of every run of a results file, in order."""
    with h5py.File(path, "r") as f:
        return [(i, f["runs"][i].attrs["config"], dict(f["runs"][i].attrs)) for i in run_ids(f)]


def iosweep_lines(stderr):
    return [ln for ln in stderr.splitlines() if ln.startswith("iosweep:")]


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    """One run of 2 ranks (--ranks 1,2) in its own results file."""
    tmp = tmp_path_factory.mktemp("rerun")
    work = tmp / "d1"
    work.mkdir()
    out = tmp / "source.h5"
    run_sweep(2, *SOURCE, dir=work, output=out, seq_record=None, quiet=False, check=0)
    ((run_id, config, attrs),) = runs(out)
    return tmp, work, out, run_id, config


def test_an_ordinary_run_is_no_rerun(source):
    _, _, out, _, _ = source
    ((_, _, attrs),) = runs(out)
    assert attrs["rerun_of"] == ""


def test_show_prints_the_configuration_as_a_preset(source, tmp_path):
    tmp, work, out, run_id, config = source
    p = run_iosweep(1, ["show", out], check=0)
    assert tomllib.loads(p.stdout) == tomllib.loads(config)
    assert p.stdout.endswith(config)
    head = p.stdout[: -len(config)].splitlines()
    assert head and all(ln.startswith("# ") for ln in head), head
    assert head[0] == f"# iosweep run {run_id} of {out}"
    assert head[1].startswith("# started ") and "; 2 ranks on 1 node; complete" in head[1]
    assert "# label: source run" in head
    assert f"# placement: node 0 host {this_host()} ranks 0,1" in head
    # The run named either way gives the same text.
    assert run_iosweep(1, ["show", f"{out}:{run_id}"], check=0).stdout == p.stdout
    assert run_iosweep(1, ["show", out, run_id], check=0).stdout == p.stdout
    # And it is a preset: --config accepts it as it is.
    preset = tmp_path / "shown.toml"
    preset.write_text(p.stdout)
    d = run_sweep(2, config=preset, dry_run=True, check=0)
    assert "1 MiB per rank" in d.stdout and str(out) in d.stdout


def test_rerun_with_overridden_dir_and_output_records_what_it_ran(source, tmp_path):
    tmp, work, out, run_id, config = source
    before = snapshot(tmp)
    d2 = tmp_path / "d2"
    d2.mkdir()
    out2 = tmp_path / "rerun.h5"
    p = run_sweep(2, rerun=f"{out}:{run_id}", dir=d2, output=out2, check=0)
    assert iosweep_lines(p.stderr) == [], p.stderr  # same world: nothing to say
    assert snapshot(tmp) == before, "the source file and folder stay as they were"
    assert dir_listing(d2) == []
    ((rerun_id, rerun_config, attrs),) = runs(out2)
    assert attrs["rerun_of"] == run_id
    assert attrs["dir"] == str(d2) and attrs["label"] == "source run"
    assert list(attrs["points"]) == [1, 2]
    mine, theirs = tomllib.loads(rerun_config), tomllib.loads(config)
    assert mine["dir"] == [str(d2)] and mine["output"] == str(out2)
    assert {k: v for k, v in mine.items() if k not in ("dir", "output")} == {
        k: v for k, v in theirs.items() if k not in ("dir", "output")
    }

    # A rerun of the rerun (its latest run, its stored dir and output): same configuration.
    p = run_sweep(2, rerun=out2, check=0)
    assert iosweep_lines(p.stderr) == [], p.stderr
    (_, first, _), (_, second, attrs2) = runs(out2)
    assert attrs2["rerun_of"] == rerun_id
    assert tomllib.loads(second) == tomllib.loads(first)


@pytest.mark.parametrize(
    "n,points,note",
    [
        (1, [1], "the sweep follows this job; its --ranks 1,2 becomes 1"),
        (3, [1, 2], "the sweep follows this job"),
    ],
)
def test_rerun_on_another_world_size_says_so_in_one_line(source, tmp_path, n, points, note):
    tmp, work, out, run_id, config = source
    out2 = tmp_path / "other-world.h5"
    p = run_sweep(n, rerun=out, dir=tmp_path, output=out2, check=0)
    ranks = f"{n} rank" + ("s" if n > 1 else "")
    assert iosweep_lines(p.stderr) == [
        f"iosweep: --rerun: run {run_id} had 2 ranks on 1 node; this job has {ranks} on 1 node: "
        + note
    ], p.stderr
    ((_, rerun_config, attrs),) = runs(out2)
    assert list(attrs["points"]) == points and attrs["world_size"] == n
    assert attrs["rerun_of"] == run_id
    # The configuration keeps the stored sweep; `points` says what ran.
    assert tomllib.loads(rerun_config)["ranks"] == tomllib.loads(config)["ranks"]


def test_command_line_over_config_over_the_stored_run(source, tmp_path):
    tmp, work, out, run_id, config = source
    preset = tmp_path / "p.toml"
    preset.write_text('file-size = "2MiB"\nseq-record = "2MiB"\n')
    p = run_sweep(1, rerun=out, config=preset, dry_run=True, check=0)
    assert "2 MiB per rank" in p.stdout and "seq-write, seq-read" in p.stdout
    p = run_sweep(1, rerun=out, config=preset, file_size="4MiB", dry_run=True, check=0)
    assert "4 MiB per rank" in p.stdout


def test_a_run_recorded_with_fsync_all_for_no_fsync_is_shown_as_it_ran(source, tmp_path):
    """Runs recorded before fsync="none" was written stored --fsync's bare value, "all"."""
    tmp, work, out, run_id, config = source
    old = tmp_path / "old.h5"
    shutil.copy(out, old)
    with h5py.File(old, "r+") as f:
        g = f["runs"][run_id]
        assert 'fsync="none"\n' in g.attrs["config"] and g.attrs["fsync_phases"] == ""
        g.attrs["config"] = g.attrs["config"].replace('fsync="none"', 'fsync="all"')
    p = run_iosweep(1, ["show", old], check=0)
    assert tomllib.loads(p.stdout)["fsync"] == "none"


@pytest.fixture(scope="module")
def traps(source):
    tmp = source[0]
    (tmp / "notes.txt").write_text("a text file, not HDF5\n")
    with h5py.File(tmp / "other.h5", "w") as f:
        f.attrs["schema"] = "someone.else"
    (tmp / "empty.h5").write_bytes(b"")
    return tmp


BAD = [
    # (id, argument, what the line says)
    ("missing-file", "{tmp}/none.h5", "does not exist"),
    ("unknown-run-id", "{out}:20200101T000000.000Z-00000000", "has no run '20200101T000000.000Z"),
    ("not-a-run-id", "{out}:latest", "does not exist (a run id after ':'"),
    ("text-file", "{tmp}/notes.txt", "is not an iosweep results file"),
    ("other-schema", "{tmp}/other.h5", "is not an iosweep results file (schema 'someone.else')"),
    ("empty-file", "{tmp}/empty.h5", "is empty"),
    ("folder", "{tmp}/d1", "is a folder"),
]


@pytest.mark.parametrize("command", ["show", "rerun"])
@pytest.mark.parametrize("case", BAD, ids=[c[0] for c in BAD])
def test_bad_input_is_one_line_exit_2_and_creates_nothing(source, traps, tmp_path, command, case):
    tmp, work, out, run_id, config = source
    _, arg, says = case
    arg = arg.format(tmp=tmp, out=out)
    fresh = tmp_path / "fresh.h5"
    before, mine = snapshot(tmp), snapshot(tmp_path)
    if command == "show":
        p = run_iosweep(2, ["show", arg])
    else:
        p = run_sweep(2, rerun=arg, dir=tmp_path, output=fresh)
    assert p.returncode == 2, p.stdout + p.stderr
    lines = iosweep_lines(p.stderr)
    prefix = "iosweep: show: " if command == "show" else "iosweep: --rerun: "
    assert len(lines) == 1 and lines[0].startswith(prefix), p.stderr
    assert says in lines[0], lines[0]
    assert p.stdout == ""
    assert snapshot(tmp) == before and snapshot(tmp_path) == mine
    assert not fresh.exists()


def test_a_refused_rerun_with_the_stored_output_creates_nothing(source, tmp_path):
    """The stored configuration applies, but a bad override is refused before anything."""
    tmp, work, out, run_id, config = source
    before = snapshot(tmp)
    p = run_sweep(2, rerun=out, iodepth=8)
    assert p.returncode == 2
    lines = iosweep_lines(p.stderr)
    assert len(lines) == 1 and "--iodepth" in lines[0], p.stderr
    assert snapshot(tmp) == before
    assert len(runs(out)) == 1


def test_any_string_value_round_trips_through_the_file_show_and_rerun(tmp_path):
    """A label with lines that read as options, and a folder with quotes, backslashes and
    non-ASCII in its name: the results file stores them exactly, `show` prints valid TOML that
    holds them exactly, and --rerun runs with them exactly, pinning nothing the label spelled."""
    label = 'x\norder-seed=12345\n# "quoted" \\ tab\there caf\u00e9'
    work = tmp_path / 'd "q" \\b \u00e9'
    work.mkdir()
    out = tmp_path / "r.h5"
    run_sweep(
        1,
        dir=work,
        file_size="1MiB",
        phases="seq-write,rand-read",
        label=label,
        output=out,
        check=0,
    )
    p = run_iosweep(1, ["show", out], check=0)
    shown = tomllib.loads(p.stdout)
    assert shown["label"] == label and shown["dir"] == [str(work)]
    assert "order-seed" not in shown
    # The comment naming the run keeps the label on one line.
    assert "# label: x\\norder-seed=12345\\n# " in p.stdout
    run_sweep(1, rerun=out, quiet=True, check=0)
    (first, c1, a1), (second, c2, a2) = runs(out)
    assert a2["label"] == label and a2["dir"] == str(work) and a2["rerun_of"] == first
    assert a2["order_seed_pinned"] == 0 and a1["order_seed"] != a2["order_seed"]
    assert c2 == c1
