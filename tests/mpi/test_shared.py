"""--file-layout shared (N-to-1, IOR without -F): every pattern with every engine that writes
data reads back what it wrote (--verify); the kept file is cut apart here, by the documented
layout, into one file per rank that the per-rank path (no layout arithmetic) verifies again, so a
wrong offset map cannot verify itself; bad combinations exit 2 having made nothing."""
import subprocess

import h5py
import pytest

from conftest import BIN, dir_listing, latest_run, run_ids, run_sweep
from iosweep_tools.results.hdf5 import text
from iosweep_tools.results.names import phases

MIB = 1 << 20
FILE = 4 * MIB
SEQ = MIB
ALL = "seq-write,seq-read,rand-write,rand-read,filter-count"

ENGINES = {
    "posix": ["--engine", "posix"],
    "uring": ["--engine", "uring", "--iodepth", "4"],
    "mpiio": ["--engine", "mpiio", "--iodepth", "2"],
    "mpiio-collective": ["--engine", "mpiio", "--mpiio-collective"],
}


def engine_available(name):
    p = subprocess.run([BIN, "--version"], capture_output=True, text=True)
    line = next(ln for ln in p.stdout.splitlines() if ln.startswith("engines compiled in:"))
    return name.split("-")[0] in line.split(":")[1].split()


def shared_run(workdir, out, pattern, engine, n=4, **options):
    """A run of one shared file of `pattern` with `engine` (a key of ENGINES), and `options`."""
    return run_sweep(
        n,
        *ENGINES[engine],
        dir=workdir,
        file_size="4MiB",
        rand_record="64KiB",
        scan_record="1MiB",
        filter_every=3000,
        file_layout="shared",
        shared_pattern=pattern,
        output=out,
        **options,
    )


@pytest.mark.parametrize("engine", list(ENGINES))
@pytest.mark.parametrize("pattern", ["segmented", "strided"])
def test_shared_file_reads_back_what_it_wrote(tmp_path, workdir, pattern, engine):
    if not engine_available(engine):
        pytest.skip(f"{engine} is not compiled into this build")
    out = tmp_path / "r.h5"
    p = shared_run(workdir, out, pattern, engine, phases=ALL, verify=True, read_shift=1)
    if p.returncode != 0 and "io_uring" in p.stderr and engine == "uring":
        pytest.skip("io_uring is not available here: " + p.stderr.strip())
    assert p.returncode == 0, p.stdout + p.stderr
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        assert text(g.attrs["file_layout"]) == "shared"
        assert text(g.attrs["shared_pattern"]) == pattern
        assert g.attrs["mpiio_collective"] == (1 if engine == "mpiio-collective" else 0)
        s, ph = g["summary"][()], phases(g)
        assert list(s["ranks"][s["phase"] == ph["seq_write"]]) == [1, 2, 4]
        assert all(s["bad_blocks"] == 0)
        # Each rank moves its own region: k regions of --file-size per point.
        for row in s[(s["phase"] == ph["seq_read"]) | (s["phase"] == ph["seq_write"])]:
            assert row["bytes"] == row["ranks"] * FILE
        fc = s[s["phase"] == ph["filter_count"]]
        assert all(fc["matches"] == fc["expected_matches"]) and all(fc["matches"] > 0)
    assert dir_listing(workdir) == []  # the shared file is removed by its creator


def region_of(blob, p, k, pattern):
    """Region p of a shared file of k regions, cut out by the layout results/README.md states."""
    if pattern == "segmented":
        return blob[p * FILE : (p + 1) * FILE]
    return b"".join(blob[(j * k + p) * SEQ : (j * k + p + 1) * SEQ] for j in range(FILE // SEQ))


@pytest.mark.parametrize("pattern", ["segmented", "strided"])
def test_kept_shared_file_has_the_documented_layout(tmp_path, workdir, pattern):
    out = tmp_path / "r.h5"
    p = shared_run(workdir, out, pattern, "posix", phases="seq-write", ranks=3, keep=True)
    assert p.returncode == 0, p.stdout + p.stderr
    with h5py.File(out, "r") as f:
        run_id = run_ids(f)[-1]
    shared = workdir / f"iosweep.{run_id}.shared"
    blob = shared.read_bytes()
    assert len(blob) == 3 * FILE
    # One file per rank, made here from the regions; a per-rank run verifies every block of them.
    split, out2 = tmp_path / "split", tmp_path / "v.h5"
    split.mkdir()

    def verify_cut(cut):
        for r in range(3):
            (split / f"iosweep.{run_id}.{r}").write_bytes(region_of(blob, r, 3, cut))
        return run_sweep(
            3,
            dir=split,
            file_size="4MiB",
            filter_every=3000,
            reuse=run_id,
            phases="seq-read",
            ranks=3,
            verify=True,
            output=out2,
        )

    q = verify_cut(pattern)
    assert q.returncode == 0, q.stdout + q.stderr
    with h5py.File(out2, "r") as f:
        s = latest_run(f)["summary"][()]
        assert all(s["bad_blocks"] == 0) and s["bytes"][0] == 3 * FILE
    # The other pattern's cut does not verify: the test tells the layouts apart.
    q = verify_cut("strided" if pattern == "segmented" else "segmented")
    bad = q.returncode != 0
    if not bad:
        with h5py.File(out2, "r") as f:
            bad = latest_run(f)["summary"]["bad_blocks"][0] > 0
    assert bad, "a strided file cut as segmented (or the reverse) should not verify"
    # Read back in place through the shared layout, by a later run.
    q = shared_run(
        workdir,
        tmp_path / "w.h5",
        pattern,
        "posix",
        reuse=run_id,
        phases="seq-read,rand-read",
        ranks=3,
        verify=True,
    )
    assert q.returncode == 0, q.stdout + q.stderr
    shared.unlink()


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--file-layout", "one"], "--file-layout"),
        (["--file-layout", "shared", "--shared-pattern", "diagonal"], "--shared-pattern"),
        (
            ["--shared-pattern", "strided"],
            "--shared-pattern",
        ),  # one file per rank: nothing to arrange
        (["--file-layout", "per-rank", "--shared-pattern", "strided"], "--shared-pattern"),
        (["--engine", "mpiio", "--mpiio-collective"], "--mpiio-collective"),  # not shared
        (
            ["--engine", "posix", "--file-layout", "shared", "--mpiio-collective"],
            "--mpiio-collective",
        ),
        (
            [
                "--engine",
                "mpiio",
                "--file-layout",
                "shared",
                "--mpiio-collective",
                "--stonewall",
                "1s",
            ],
            "--mpiio-collective",
        ),
        (
            [
                "--engine",
                "mpiio",
                "--file-layout",
                "shared",
                "--mpiio-collective",
                "--phases",
                "ship-count",
            ],
            "--mpiio-collective",
        ),
        (
            [
                "--file-layout",
                "shared",
                "--shared-pattern",
                "strided",
                "--rand-record",
                "2MiB",
                "--phases",
                "rand-read",
            ],
            "--shared-pattern",
        ),
    ],
)
def test_bad_shared_options_exit_2_and_make_nothing(tmp_path, workdir, args, needle):
    out = tmp_path / "r.h5"
    p = run_sweep(2, *args, dir=workdir, file_size="4MiB", output=out, quiet=False)
    assert p.returncode == 2, p.stdout + p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("iosweep:")]
    assert len(lines) == 1 and needle in lines[0], p.stderr
    assert dir_listing(workdir) == [] and not out.exists()


def test_reuse_refuses_the_other_layout(tmp_path, workdir):
    out = tmp_path / "r.h5"
    p = run_sweep(
        2, dir=workdir, file_size="2MiB", phases="seq-write", keep=True, output=out, check=0
    )
    with h5py.File(out, "r") as f:
        run_id = run_ids(f)[-1]
    before = dir_listing(workdir)
    p = run_sweep(
        2,
        dir=workdir,
        file_size="2MiB",
        phases="seq-read",
        reuse=run_id,
        file_layout="shared",
        output=tmp_path / "x.h5",
        quiet=False,
    )
    assert p.returncode == 2 and "--reuse" in p.stderr and "per rank" in p.stderr, p.stderr
    assert dir_listing(workdir) == before and not (tmp_path / "x.h5").exists()
