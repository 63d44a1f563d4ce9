"""The collectives after every phase, many times over, on emulated nodes whose network is slow:
no rank may sleep while what its last collective sent is still queued in its own transport.

After a phase every active rank gathers its figures to rank 0 (gather.cpp: MPI_Reduce of the
time series' histograms among them) and then waits in the point's gate (mpi/waiting.cpp), where
the ranks of a node other than its leader sleep on a futex. Open MPI's TCP transport writes a
fragment the socket did not take at once only when its process next enters MPI, so a rank that
returned from MPI_Reduce and slept for good held back a message its peers were waiting for: one
node's ranks waited in MPI_Reduce while the other node's non-leader slept in Gate::max (issue
34). The emulated nodes here share one private network namespace whose loopback is rate-limited
(a token bucket), so sockets fill and fragments queue: on the code before the fix, a run of 40
short points hung in the first few repetitions in most attempts; with it every run completes.
"""
import os
import shutil
import signal
import subprocess

import h5py
import pytest

from conftest import BIN, iosweep_argv, latest_run, mpi_env
from iosweep_tools.core.launch import can_emulate, emulated_env, emulated_nodes

RATE = ["tbf", "rate", "50mbit", "burst", "32kb", "latency", "200ms"]
REPETITIONS = 40


def slow_network_missing():
    """None when a private network namespace with a rate-limited loopback can be made here."""
    why = can_emulate()
    if why:
        return why
    if shutil.which("tc") is None or shutil.which("ip") is None:
        return "tc and ip (iproute2) are not installed"
    p = subprocess.run(
        ["unshare", "--net", "sh", "-c", "ip link set lo up && tc qdisc add dev lo root " + " ".join(RATE)],
        capture_output=True,
        text=True,
    )
    if p.returncode != 0:
        return f"no rate-limited network namespace here: {p.stderr.strip()}"
    return None


def test_many_short_points_on_two_nodes_never_hang_in_the_gather(tmp_path):
    why = slow_network_missing()
    if why:
        pytest.skip(why)
    hosts = emulated_nodes(tmp_path / "hosts", 2, 2)
    work = tmp_path / "w"
    work.mkdir()
    out = tmp_path / "r.h5"
    # Every phase is short and its time series fine-grained (1 ms bins): each repetition's
    # gather moves tens of kilobytes per rank across the slow loopback.
    args = iosweep_argv(
        dir=work,
        file_size="1MiB",
        seq_record="4KiB",
        phases="seq-write",
        ranks=4,
        repetitions=REPETITIONS,
        timeseries_bin="1ms",
        output=out,
    )
    mpirun = ["mpirun", "-np", "4", "--hostfile", str(hosts), "--map-by", "node", BIN] + args
    setup = f'ip link set lo up && tc qdisc add dev lo root {" ".join(RATE)} && exec "$@"'
    p = subprocess.Popen(
        ["unshare", "--net", "sh", "-c", setup, "sh"] + mpirun,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=emulated_env(mpi_env()),
        start_new_session=True,
    )
    try:
        # About 20 s on the 2-core VM under load; a run that hangs never ends by itself.
        stdout, stderr = p.communicate(timeout=240)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        stdout, stderr = p.communicate()
        raise AssertionError(f"the run hung (killed after 240 s):\n{stdout[-2000:]}\n{stderr[-2000:]}")
    assert p.returncode == 0, stdout + stderr
    with h5py.File(out, "r") as f:
        s = latest_run(f)["summary"][()]
    assert len(s) == REPETITIONS
    assert sorted(s["repetition"]) == list(range(REPETITIONS))
    assert all(s["ranks"] == 4) and all(s["nodes"] == 2)
    assert all(s["bytes"] == 4 * (1 << 20))
    assert list(work.iterdir()) == []
