"""Shared helpers for iosweep's Python test layers (mpi, scripts, cluster, dfs).

Tests run the real binary under the real mpiexec and read the real HDF5 file with h5py.
The binary comes from $IOSWEEP_BIN (set by CTest), else build/iosweep. Phase and engine names
come from the file (iosweep_tools.results.names: phases, engines), not from a list kept here.

A test builds its iosweep command line with iosweep_argv and runs it with run_sweep, stating
only the options it is about:

    p = run_sweep(2, dir=workdir, file_size="4MiB", phases="seq-write", output=out, check=0)
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


# What an `iosweep run` command line of the tests holds unless the test says otherwise: records
# of 1 MiB (iosweep's own 16 MiB would need files of 16 MiB at least) and no progress lines.
RUN_DEFAULTS = {"seq_record": "1MiB", "quiet": True}


def iosweep_argv(*extra, command="run", **options):
    """iosweep's arguments (no launcher): `command`, one option per keyword in the order given,
    the RUN_DEFAULTS the call does not set, then `extra` (raw arguments, as a parametrized list
    of them) as they are; every item a str.

    A keyword names an option with `-` for `_`: file_size="4MiB" gives --file-size 4MiB; True
    gives a bare flag (keep=True: --keep); None or False leaves the option out; a list or tuple
    gives the option once per item (dir=[a, b]: --dir A --dir B, which iosweep reads as --dir B,
    an option's last value; a list is one value: dir=f"{a},{b}"); any other value is str()'d.
    RUN_DEFAULTS (--seq-record 1MiB --quiet) apply to `run` only, and not when the configuration
    comes from a preset or a stored run (config=, rerun=), which they would override; neither a
    keyword nor an option in `extra` is given twice. seq_record=None or quiet=False leaves one
    out (iosweep's own default applies).

        iosweep_argv(dir=work, file_size="4MiB", keep=True, output=out)
        == ["run", "--dir", str(work), "--file-size", "4MiB", "--keep", "--output", str(out),
            "--seq-record", "1MiB", "--quiet"]
    """
    named = [a[2:].split("=")[0] for a in map(str, extra) if a.startswith("--")]
    given = set(options) | {a.replace("-", "_") for a in named}
    if command == "run" and not {"config", "rerun"} & given:
        options = options | {k: v for k, v in RUN_DEFAULTS.items() if k not in given}
    argv = [command]
    for key, value in options.items():
        option = "--" + key.replace("_", "-")
        for item in value if isinstance(value, (list, tuple)) else [value]:
            if item is True:
                argv.append(option)
            elif item is not None and item is not False:
                argv += [option, str(item)]
    return argv + [str(a) for a in extra]


def mpiexec_argv(n, args):
    """`mpiexec --oversubscribe -n N iosweep ARGS` as a list (for Popen, or a wrapper)."""
    return ["mpiexec", "--oversubscribe", "-n", str(n), BIN] + [str(a) for a in args]


def run_iosweep(n, args, timeout=300, env=None, check=None):
    """Runs `mpiexec --oversubscribe -n N iosweep ARGS` (ARGS as given: a `show` command, a
    list kept whole); returns the CompletedProcess. A run command line: run_sweep."""
    cmd = mpiexec_argv(n, args)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=mpi_env(env))
    if check is not None and p.returncode != check:
        sys.stderr.write(p.stdout + p.stderr)
        raise AssertionError(f"exit {p.returncode}, expected {check}: {' '.join(cmd)}")
    return p


def run_sweep(n, *extra, timeout=300, env=None, check=None, **options):
    """Runs `iosweep run` on `n` ranks under mpiexec with the test launch environment (mpi_env
    plus `env`), its command line built by iosweep_argv(*extra, **options); returns the
    CompletedProcess. check=0 (or another status) fails the test with the job's output when the
    exit status differs; timeout is in seconds.

        p = run_sweep(2, dir=workdir, file_size="4MiB", phases="seq-write", keep=True,
                      output=out, check=0)
        runs `mpiexec -n 2 iosweep run --dir WORKDIR --file-size 4MiB --phases seq-write
        --keep --output OUT --seq-record 1MiB --quiet`.
    """
    return run_iosweep(n, iosweep_argv(*extra, **options), timeout=timeout, env=env, check=check)


def make_results(n, work, out, size, record, *extra):
    """A real run of the binary on `n` ranks that must succeed: files of `size` in `work` read
    and written in sequential records of `record`, the run appended (quiet) to the results file
    `out`; `extra` more options of `iosweep run`. Returns the CompletedProcess."""
    return run_sweep(
        n, *extra, dir=work, file_size=size, seq_record=record, output=out, quiet=True, check=0
    )


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
