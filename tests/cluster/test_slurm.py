"""A real four-node Slurm (munge, slurmctld, four slurmd in their own UTS namespaces) runs the
shipped batch script with sbatch, with srun (PMIx) and with mpirun inside the allocation; the
job completes and the results hold the job id, the node list and four hosts. The script passes
iosweep's options as the user gives them (--ranks, --streams, a preset with streams, a list of
folders) and adds none that changes the run; `scancel --signal=USR1 --batch` stops a run
through iosweep's own cleanup under both launchers."""
import subprocess
import time

import h5py
import pytest

from conftest import BIN, SOURCE_DIR, latest_run, mpi_env
from minicluster import MiniSlurm


@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    why = MiniSlurm.missing()
    if why:
        pytest.skip(why)
    cluster = MiniSlurm(tmp_path_factory.mktemp("slurm"), nodes=4, cpus=4)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


@pytest.mark.parametrize("launcher", ["srun", "mpirun"])
def test_batch_script_runs_across_four_nodes(slurm, tmp_path, launcher):
    work, out = tmp_path / "work", tmp_path / "r.h5"
    work.mkdir()  # the script makes no folder: iosweep checks it on every node
    env = mpi_env(
        {
            "IOSWEEP_BIN": BIN,
            "IOSWEEP_DIR": str(work),
            "IOSWEEP_OUTPUT": str(out),
            "IOSWEEP_LAUNCHER": launcher,
            "OMPI_MCA_btl_tcp_if_include": "lo",
            "OMPI_MCA_oob_tcp_if_include": "lo",
        }
    )
    job = slurm.sbatch(
        [
            "-N",
            "4",
            "--ntasks-per-node",
            "2",
            "-o",
            str(tmp_path / "job-%j.out"),
            SOURCE_DIR / "scripts" / "slurm" / "iosweep.sbatch",
            "--file-size",
            "2MiB",
            "--seq-record",
            "1MiB",
            "--phases",
            "seq-write,seq-read",
            "--quiet",
        ],
        env,
    )
    state, code = slurm.wait_job(job)
    log = (tmp_path / f"job-{job}.out").read_text()
    assert state == "COMPLETED" and code == "0:0", log + slurm.daemon_logs()
    assert f"job {job} on n[1-4]" in log
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        assert g.attrs["slurm_job_id"] == job
        assert g.attrs["slurm_nodelist"] == "n[1-4]"
        assert sorted(g["hosts"].asstr()[()]) == ["n1", "n2", "n3", "n4"]
        s = g["summary"][()]
        assert list(s["ranks"][s["phase"] == 0]) == [1, 2, 4, 8]
        assert list(s["nodes"][s["phase"] == 0]) == [1, 2, 4, 4]
        assert g.attrs["status"] == 1
    assert list(work.iterdir()) == []


def test_failing_job_is_reported_failed(slurm, tmp_path):
    env = mpi_env(
        {
            "IOSWEEP_BIN": BIN,
            "IOSWEEP_DIR": str(tmp_path / "w"),
            "IOSWEEP_OUTPUT": str(tmp_path / "r.h5"),
        }
    )
    job = slurm.sbatch(
        [
            "-N",
            "2",
            "--ntasks-per-node",
            "1",
            "-o",
            str(tmp_path / "job-%j.out"),
            SOURCE_DIR / "scripts" / "slurm" / "iosweep.sbatch",
            "--file-size",
            "0",
        ],
        env,
    )
    state, code = slurm.wait_job(job)
    assert state == "FAILED" and code.startswith("2:"), (state, code)
    assert "--file-size" in (tmp_path / f"job-{job}.out").read_text()


SCRIPT = SOURCE_DIR / "scripts" / "slurm" / "iosweep.sbatch"


def submit(slurm, tmp_path, nodes, per_node, args, env=None, chdir=None):
    """sbatch of the shipped script on `nodes` x `per_node` tasks with iosweep's `args` after
    it; returns the job id and the path of its log."""
    log = tmp_path / "job.out"
    extra = ["-D", str(chdir)] if chdir is not None else []
    job = slurm.sbatch(
        ["-N", str(nodes), "--ntasks-per-node", str(per_node), "-o", str(log), *extra, SCRIPT]
        + [str(a) for a in args],
        mpi_env({"IOSWEEP_BIN": BIN, **(env or {})}),
    )
    return job, log


# Each row is a launch line a user gave: the script passes it on whole, so iosweep runs exactly
# those points; a list of folders in IOSWEEP_DIR or after the script reaches every node.
@pytest.mark.parametrize(
    "case",
    ["ranks-and-a-list-of-folders", "streams-and-a-list-of-folders", "preset-with-streams"],
)
def test_the_batch_script_passes_what_the_user_gives(slurm, tmp_path, case):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    size = ["--file-size", "1MiB"]
    env, chdir, out = {}, None, tmp_path / "made" / "r.h5"
    if case == "ranks-and-a-list-of-folders":
        # A results folder that does not exist is made at the start, not found missing at the end.
        env = {"IOSWEEP_DIR": f"{a},{b}", "IOSWEEP_OUTPUT": str(out)}
        args = ["--ranks", "1,8", "--seq-record", "256KiB", "--phases", "seq-write,seq-read"]
        nodes, per_node, want = 4, 2, ("ranks", [1, 8])
    elif case == "streams-and-a-list-of-folders":
        env = {"IOSWEEP_OUTPUT": str(out)}
        args = ["--dir", f"{a},{b}", "--engine", "uring", "--streams", "8,16"]
        args += ["--phases", "rand-write,rand-read"]
        nodes, per_node, want = 4, 2, ("streams", [8, 16])
    else:
        # The preset's streams and keep = true run as in the preset; the results go to iosweep's
        # default, results/iosweep.h5 of the job's working folder, whose folder iosweep makes.
        chdir = tmp_path / "submit"
        chdir.mkdir()
        out = chdir / "results" / "iosweep.h5"
        args = ["--config", "pixstor-random-streams", "--dir", a]
        size = ["--file-size", "4MiB"]  # a record for each of 1024 requests in flight
        nodes, per_node, want = 2, 1, ("streams", [2**i for i in range(12)])
    job, log = submit(slurm, tmp_path, nodes, per_node, args + size + ["--quiet"], env, chdir)
    state, code = slurm.wait_job(job)
    text = log.read_text()
    assert state == "COMPLETED" and code == "0:0", text + slurm.daemon_logs()
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        s = g["summary"][()]
        first = s[s["phase"] == s["phase"][0]]
        assert list(first[want[0]]) == want[1], text
        assert "--sweep" not in g.attrs["argv"]
        folders = set(g["rank_map"]["folder"])
        run_id = g.name.split("/")[-1]
    assert f"results: run {run_id} appended to {out}" in text
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(("a", "b"))) == [
        "a",
        "b",
    ]
    if case == "preset-with-streams":
        assert "preset: " + str(SOURCE_DIR / "modes" / "pixstor-random-streams.toml") in text
        assert "kept (keep = true in --config" in text and f"in {a}" in text, text
        assert len(list(a.iterdir())) == 2  # kept, as the preset says
    else:
        assert folders == {0, 1}  # both folders of the list, on every node
        assert list(a.iterdir()) == [] and list(b.iterdir()) == []


def _wait_for_row(log, job, slurm, timeout_s=120.0):
    """Until the job's log shows a first row of the table (the run is under way)."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if log.exists() and "seq-write " in log.read_text().split("placement", 1)[-1]:
            return
        q = subprocess.run(["squeue", "-h", "-j", job], capture_output=True, env=slurm.env)
        assert q.stdout.strip(), f"the job ended before its first row:\n{log.read_text()}"
        time.sleep(0.25)
    raise AssertionError(f"no row after {timeout_s} s:\n{log.read_text()}")


# README, "Stopping a large run cleanly": `scancel --signal=USR1 --batch` reaches the launcher
# the script execs, which passes SIGUSR1 on to every rank at once, and the run ends through
# iosweep's cleanup: marked aborted by SIGUSR1 (not by the SIGTERM mpirun sends only after its
# odls_base_sigkill_timeout, here 3 s, nor by srun's SIGKILL), every file removed, the job over.
@pytest.mark.parametrize("launcher", ["mpirun", "srun"])
def test_scancel_usr1_batch_stops_the_run_through_its_cleanup(slurm, tmp_path, launcher):
    work = tmp_path / "w"
    work.mkdir()
    out = tmp_path / "r.h5"
    env = {
        "IOSWEEP_DIR": str(work),
        "IOSWEEP_OUTPUT": str(out),
        "IOSWEEP_LAUNCHER": launcher,
        "OMPI_MCA_odls_base_sigkill_timeout": "3",
        "OMPI_MCA_btl_tcp_if_include": "lo",
        "OMPI_MCA_oob_tcp_if_include": "lo",
    }
    args = ["--ranks", "4", "--file-size", "1MiB", "--seq-record", "256KiB"]
    args += ["--phases", "seq-write,seq-read", "--repetitions", "100000", "--quiet"]
    job, log = submit(slurm, tmp_path, 2, 2, args, env)
    _wait_for_row(log, job, slurm)
    subprocess.run(
        ["scancel", "--signal=USR1", "--batch", job], check=True, capture_output=True, env=slurm.env
    )
    state, code = slurm.wait_job(job, timeout=120)
    text = log.read_text()
    assert state == "FAILED", (state, code, text)  # the ranks' status, 138, or mpirun's
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        assert g.attrs["status"] == 2, text  # aborted
        assert "SIGUSR1" in g.attrs["status_message"], g.attrs["status_message"]
    assert "stop it cleanly with: scancel --signal=USR1 --batch" in text
    assert list(work.iterdir()) == [], text
