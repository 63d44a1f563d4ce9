"""ship-count: the same scan as filter-count, with every record shipped over MPI to a collector
that counts; exact counts, the bytes moved against filter-count's 8 per rank, the ratio of the
two, on one node (collectors are other ranks of it, and the run says so). The emulated-node
version is in tests/cluster/test_emulated_nodes.py."""
import numpy as np
import h5py
import pytest

from conftest import dir_listing, latest_run, run_sweep
from iosweep_tools.results.names import by_value, phases


def ship_run(workdir, out, n, **options):
    p = run_sweep(
        n,
        dir=workdir,
        file_size="8MiB",
        scan_record="1MiB",
        filter_every=5000,
        phases="filter-count,ship-count",
        output=out,
        seq_record=None,
        check=0,
        **options,
    )
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        return p, g["summary"][()], phases(g)


@pytest.mark.parametrize("collector", ["next-node", "rank0"])
def test_ship_count_is_exact_and_says_what_moved(tmp_path, workdir, collector):
    p, s, ph = ship_run(workdir, tmp_path / "r.h5", 4, collector=collector, verify=True)
    fc, sc = s[s["phase"] == ph["filter_count"]], s[s["phase"] == ph["ship_count"]]
    assert list(sc["ranks"]) == list(fc["ranks"]) == [1, 2, 4]
    assert all(sc["matches"] == sc["expected_matches"]) and all(sc["matches"] > 0)
    assert list(sc["expected_matches"]) == list(
        fc["expected_matches"]
    )  # the same data, counted elsewhere
    assert all(sc["bad_blocks"] == 0)
    # Everything read travels (plus each rank's 8-byte count); filter-count sends 8 bytes a rank.
    assert all(sc["mpi_bytes"] == sc["bytes"] + 8 * sc["ranks"])
    assert all(fc["mpi_bytes"] == 8 * fc["ranks"])
    assert all(sc["mpi_remote_bytes"] == 0)  # one node: the collectors are other ranks of it
    assert np.allclose(sc["filter_vs_ship"], fc["bandwidth_Bps"] / sc["bandwidth_Bps"])
    assert "collectors on the same node" in p.stdout
    assert "ship-count at 4 ranks" in p.stdout and "8 per rank" in p.stdout
    assert dir_listing(workdir) == []


def test_ship_count_is_not_in_the_default_phases(tmp_path, workdir):
    out = tmp_path / "r.h5"
    run_sweep(1, dir=workdir, file_size="2MiB", output=out, check=0)
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        names = {by_value(phases(g))[v] for v in g["summary"]["phase"]}
        assert "ship_count" not in names and "filter_count" in names


def test_collector_must_be_known(tmp_path, workdir):
    p = run_sweep(
        2,
        dir=workdir,
        file_size="2MiB",
        phases="ship-count",
        collector="node7",
        output=tmp_path / "r.h5",
        quiet=False,
    )
    assert p.returncode == 2 and "--collector" in p.stderr
