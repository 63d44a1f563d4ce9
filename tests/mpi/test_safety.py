"""Safety: symbolic links are never followed, a run removes only the files it created, two runs
in one folder leave each other alone, two runs appending to one results file at once keep it
whole; --verify catches a corrupted block."""
import os
import re
import subprocess

import h5py
import pytest

from conftest import iosweep_argv, latest_run, mpi_env, mpiexec_argv, run_ids, run_sweep


def kept_run(workdir, out, n=2, size="4MiB"):
    run_sweep(
        n,
        dir=workdir,
        file_size=size,
        phases="seq-write",
        keep=True,
        ranks=str(n),
        output=out,
        check=0,
    )
    with h5py.File(out, "r") as f:
        return run_ids(f)[-1]


@pytest.mark.parametrize("phase", ["seq-read", "rand-write"])
def test_a_symlink_at_a_file_name_is_never_followed(tmp_path, workdir, phase):
    out = tmp_path / "r.h5"
    rid = kept_run(workdir, out)
    victim = tmp_path / "victim.dat"
    victim.write_bytes(b"precious" * 1024)
    before = victim.read_bytes()
    name = workdir / f"iosweep.{rid}.1"
    name.unlink()
    name.symlink_to(victim)
    with h5py.File(out, "r") as f:
        runs_before = len(run_ids(f))
    p = run_sweep(2, dir=workdir, file_size="4MiB", phases=phase, reuse=rid, ranks=2, output=out)
    # Found before the run: bad input, one line, nothing appended.
    assert p.returncode == 2
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("iosweep:")]
    assert len(lines) == 1 and "--reuse" in lines[0] and "symbolic link" in lines[0], p.stderr
    assert re.search(r"iosweep\." + re.escape(rid) + r"\.1", lines[0])
    with h5py.File(out, "r") as f:
        assert len(run_ids(f)) == runs_before
    assert victim.read_bytes() == before
    assert name.is_symlink() and (workdir / f"iosweep.{rid}.0").exists()  # --reuse removes nothing


def test_a_run_never_removes_what_it_did_not_create(tmp_path, workdir):
    out = tmp_path / "r.h5"
    foreign = {
        "iosweep.20200101T000000.000Z-deadbeef.0": b"another run",
        "notes.txt": b"mine",
        "iosweep.h5": b"not results",
    }
    for name, data in foreign.items():
        (workdir / name).write_bytes(data)
    run_sweep(2, dir=workdir, file_size="2MiB", output=out, check=0)
    assert sorted(os.listdir(workdir)) == sorted(foreign)
    for name, data in foreign.items():
        assert (workdir / name).read_bytes() == data


def test_two_runs_in_one_folder_and_one_results_file_at_once(tmp_path, workdir):
    out = tmp_path / "shared.h5"
    (workdir / "bystander").write_text("untouched")
    args = dict(dir=workdir, file_size="8MiB", repetitions=3, output=out)
    procs = [
        subprocess.Popen(
            mpiexec_argv(2, iosweep_argv(**args, label=f"run{i}")),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=mpi_env(),
        )
        for i in range(2)
    ]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    assert os.listdir(workdir) == ["bystander"]
    with h5py.File(out, "r") as f:
        ids = run_ids(f)
        assert len(ids) == 2 and len(set(ids)) == 2
        assert {f["runs"][i].attrs["label"] for i in ids} == {"run0", "run1"}
        for i, row in zip(ids, f["run_index"][()]):
            g = f["runs"][i]
            assert g.attrs["status"] == 1 and row["status"] == 1
            assert len(g["summary"]) == row["n_points"] == 6 * 2 * 3
            assert all(g["summary"]["bytes"] > 0)
    h = subprocess.run(["h5dump", "-H", str(out)], capture_output=True, text=True)
    assert h.returncode == 0


def test_verify_reports_a_corrupted_block(tmp_path, workdir):
    out = tmp_path / "r.h5"
    rid = kept_run(workdir, out, size="8MiB")
    victim = workdir / f"iosweep.{rid}.1"
    offset = 5 * 2**20 + 3 * 4096 + 8 * 17  # a word inside the block at 5 MiB + 12 KiB
    with open(victim, "r+b") as fh:
        fh.seek(offset)
        word = fh.read(8)
        fh.seek(offset)
        fh.write(bytes(b ^ 0xFF for b in word))
    p = run_sweep(
        2,
        dir=workdir,
        file_size="8MiB",
        phases="seq-read,rand-read,filter-count",
        reuse=rid,
        verify=True,
        ranks=2,
        output=out,
    )
    assert p.returncode == 1
    m = re.search(
        r"rank (\d) \(host [^)]+\): 1 bad block\(s\) in (\S+); first mismatch at offset (\d+): "
        r"expected 0x([0-9a-f]{16}), found 0x([0-9a-f]{16})",
        p.stderr,
    )
    assert m, p.stderr
    assert m.group(2) == str(victim) and int(m.group(3)) == offset
    assert int(m.group(4), 16) ^ int(m.group(5), 16) == 0xFFFFFFFFFFFFFFFF
    assert int.from_bytes(word, "little") == int(m.group(4), 16)
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        s = g["summary"][()]
        assert (
            s["bad_blocks"][0] == 1 and s["verify_max_s"][0] > 0
        )  # seq-read found it and stopped the run
        assert g.attrs["status"] == 2 and "--verify" in g.attrs["status_message"]
