"""Shared helpers for iosweep's Python test layers (mpi, scripts, cluster, dfs).

Tests run the real binary under the real mpiexec and read the real HDF5 file with h5py.
The binary comes from $IOSWEEP_BIN (set by CTest), else build/iosweep. Phase and engine names
come from the file (iosweep_tools.results.names: phases, engines), not from a list kept here.
"""
import hashlib
import ipaddress
import os
import socket
import subprocess
import sys
from pathlib import Path

import h5py
import pytest

from iosweep_tools.core import launch
from iosweep_tools.results import hdf5

SOURCE_DIR = Path(os.environ.get("IOSWEEP_SOURCE_DIR", Path(__file__).resolve().parents[1]))
BIN = os.environ.get("IOSWEEP_BIN", str(SOURCE_DIR / "build" / "iosweep"))

# Test-only settings on top of the launch environment of scripts/iosweep-env.sh.
TEST_ENV = {
    "OMPI_MCA_rmaps_base_oversubscribe": "1",
    # When a rank exits non-zero, mpirun waits this long before SIGKILL; the tests that send
    # signals set it back to mpirun's default of 1 s.
    "OMPI_MCA_odls_base_sigkill_timeout": "0",
}


def mpi_env(extra=None):
    env = launch.launch_env()
    env.update(TEST_ENV)
    if extra:
        env.update(extra)
    return env


def this_host():
    """The name MPI_Get_processor_name gives ranks on this machine: the host name, without its
    domain unless it is an IP address (Open MPI 4.1 drops it; orte_keep_fqdn_hostnames, which
    the tests leave unset, would keep it). The emulated nodes of tests/cluster have their own."""
    name = socket.gethostname()
    try:
        ipaddress.ip_address(name)
        return name
    except ValueError:
        return name.split(".")[0]


def run_iosweep(n, args, timeout=300, env=None, check=None):
    """Runs `mpiexec --oversubscribe -n N iosweep ARGS`; returns the CompletedProcess."""
    cmd = ["mpiexec", "--oversubscribe", "-n", str(n), BIN] + [str(a) for a in args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=mpi_env(env))
    if check is not None and p.returncode != check:
        sys.stderr.write(p.stdout + p.stderr)
        raise AssertionError(f"exit {p.returncode}, expected {check}: {' '.join(cmd)}")
    return p


def make_results(n, work, out, size, record, *extra):
    """A real run of the binary on `n` ranks that must succeed: files of `size` in `work` read
    and written in sequential records of `record`, the run appended (quiet) to the results file
    `out`; `extra` more options of `iosweep run`. Returns the CompletedProcess."""
    args = ["run", "--dir", work, "--file-size", size, "--seq-record", record]
    return run_iosweep(n, args + ["--output", out, "--quiet", *extra], check=0)


def runs_of(path):
    with h5py.File(path, "r") as f:
        return list(f["runs"].keys())


def run_ids(f):
    """Run ids of an open h5py file in the order the runs were appended."""
    return [hdf5.text(r) for r in f["run_index"]["run_id"]]


def latest_run(f):
    """The run group appended last to an open h5py file."""
    return f["runs"][run_ids(f)[-1]]


def snapshot(root):
    """Every path under root with its size, modification time and mode, and the content hash of
    every regular file: equal snapshots mean nothing was created, changed or removed."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            digest = ""
            if os.path.isfile(p) and not os.path.islink(p):
                with open(p, "rb") as fh:
                    digest = hashlib.sha256(fh.read()).hexdigest()
            out[p] = (st.st_size, st.st_mtime_ns, st.st_mode, digest)
    return out


def dir_listing(path):
    return sorted(os.listdir(path))


@pytest.fixture
def workdir(tmp_path):
    d = tmp_path / "data"
    d.mkdir()
    return d


def o_direct_ok(path):
    """True when the file system of `path` accepts O_DIRECT (probed with a file of our own)."""
    probe = os.path.join(path, ".iosweep-odirect-probe")
    try:
        fd = os.open(probe, os.O_CREAT | os.O_WRONLY | os.O_DIRECT)
        os.close(fd)
        return True
    except OSError:
        return False
    finally:
        if os.path.exists(probe):
            os.unlink(probe)


@pytest.fixture
def diskdir(workdir):
    """The work folder, when it is on a file system that accepts O_DIRECT; skips otherwise."""
    if not o_direct_ok(workdir):
        pytest.skip(f"{workdir} refuses O_DIRECT on this machine")
    return workdir
