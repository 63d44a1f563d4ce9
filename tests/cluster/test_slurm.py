"""A real four-node Slurm (munge, slurmctld, four slurmd in their own UTS namespaces) runs the
shipped batch script with sbatch, with srun (PMIx) and with mpirun inside the allocation; the
job completes and the results hold the job id, the node list and four hosts."""
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
    assert state == "COMPLETED" and code == "0:0", log
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
