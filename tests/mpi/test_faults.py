"""Faults during a run: the job ends non-zero with a message naming rank, host, file, offset and
errno, the run's files are removed, earlier runs in the results file stay intact, and this run
is marked aborted."""
import os
import re
import socket
import subprocess

import h5py
import pytest

from conftest import run_ids, run_iosweep


@pytest.fixture
def small_tmpfs(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs for ENOSPC needs root")
    d = tmp_path / "small"
    d.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", str(d)]).returncode != 0:
        pytest.skip("cannot mount tmpfs here")
    yield d
    subprocess.run(["umount", "-l", str(d)])


def test_enospc_in_the_middle_of_seq_write(small_tmpfs, tmp_path):
    out = tmp_path / "r.h5"
    # An earlier, complete run in the same results file.
    run_iosweep(2, ["run", "--dir", small_tmpfs, "--file-size", "4MiB", "--seq-record", "1MiB",
                    "--output", out, "--quiet"], check=0)
    with h5py.File(out, "r") as f:
        (first,) = f["runs"].keys()
        first_summary = f["runs"][first]["summary"][()]
    # 2 ranks x 16 MiB do not fit in 24 MiB: one rank meets ENOSPC part way through its file.
    p = run_iosweep(2, ["run", "--dir", small_tmpfs, "--file-size", "16MiB", "--seq-record", "1MiB",
                        "--output", out, "--quiet", "--force"])
    assert p.returncode == 1
    m = re.search(r"iosweep: rank (\d) \(host ([^)]+)\): write of (\S+) at offset (\d+) failed: .*errno 28, ENOSPC",
                  p.stderr)
    assert m, p.stderr
    assert m.group(2) == socket.gethostname() or m.group(2)
    assert m.group(3).startswith(str(small_tmpfs) + "/iosweep.")
    assert 0 < int(m.group(4)) < 16 * 2**20
    assert os.listdir(small_tmpfs) == [], "the run's files must be removed"
    with h5py.File(out, "r") as f:
        runs = run_ids(f)
        assert len(runs) == 2 and runs[0] == first
        assert (f["runs"][first]["summary"][()] == first_summary).all()
        assert f["runs"][first].attrs["status"] == 1
        g = f["runs"][runs[1]]
        assert g.attrs["status"] == 2  # aborted
        assert "ENOSPC" in g.attrs["status_message"]
        assert f["run_index"][-1]["status"] == 2
