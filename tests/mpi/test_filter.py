"""filter-count: the count check fails loudly when kept data is altered, the per-node table,
the efficiency field, the I/O-wait / compute split and the compute-adjacent report."""
import re

import h5py
import numpy as np
import pytest

from conftest import dir_listing, latest_run, run_ids, run_iosweep
from iosweep_common import phases


def test_altered_kept_file_fails_the_count_loudly(tmp_path, workdir):
    out = tmp_path / "r.h5"
    every = 1000
    run_iosweep(2, ["run", "--dir", workdir, "--file-size", "4MiB", "--seq-record", "1MiB",
                    "--phases", "seq-write", "--keep", "--filter-every", every, "--ranks", "2",
                    "--output", out, "--quiet"], check=0)
    with h5py.File(out, "r") as f:
        rid = run_ids(f)[-1]
    victim = workdir / f"iosweep.{rid}.1"
    # The first planted key of the file sits at word every-1; overwrite it with another value.
    with open(victim, "r+b") as fh:
        fh.seek((every - 1) * 8)
        key = np.frombuffer(fh.read(8), dtype="<u8")[0]
        assert key == 0xFEEDFACECAFEBEEF
        fh.seek((every - 1) * 8)
        fh.write(np.array([key ^ np.uint64(1)], dtype="<u8").tobytes())
    p = run_iosweep(2, ["run", "--dir", workdir, "--file-size", "4MiB", "--seq-record", "1MiB",
                        "--phases", "filter-count", "--reuse", rid, "--filter-every", every,
                        "--ranks", "2", "--output", out, "--quiet"])
    assert p.returncode == 1, p.stderr
    expected = 4 * 2**20 // 8 // every
    assert re.search(rf"rank \d \(host [^)]+\) counted {expected - 1} in {re.escape(str(victim))}, "
                     rf"expected {expected}", p.stderr), p.stderr
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        assert g.attrs["status"] == 2 and "filter-count" in g.attrs["status_message"]
    # --reuse never removes the files it read.
    assert len(dir_listing(workdir)) == 2


def test_reuse_refuses_files_of_another_seed(tmp_path, workdir):
    out = tmp_path / "r.h5"
    run_iosweep(1, ["run", "--dir", workdir, "--file-size", "1MiB", "--seq-record", "1MiB",
                    "--phases", "seq-write", "--keep", "--output", out, "--quiet"], check=0)
    with h5py.File(out, "r") as f:
        rid = run_ids(f)[-1]
    p = run_iosweep(1, ["run", "--dir", workdir, "--file-size", "1MiB", "--seq-record", "1MiB",
                        "--phases", "filter-count", "--reuse", rid, "--seed", "7", "--output", out,
                        "--quiet"])
    assert p.returncode == 1 and "does not hold this run's data" in p.stderr


def test_nodes_table_efficiency_and_time_split(tmp_path, workdir):
    out = tmp_path / "r.h5"
    p = run_iosweep(2, ["run", "--dir", workdir, "--file-size", "8MiB", "--seq-record", "1MiB",
                        "--phases", "seq-read,filter-count", "--rated-bw", "2GB/s", "--output", out,
                        "--quiet"], check=0)
    assert "filter-count at 2 ranks on 1 node(s) (the largest point)" in p.stdout
    assert re.search(r"rated .* of rated maximum", p.stdout)
    assert "(exact)" in p.stdout
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        s, n, r = g["summary"][()], g["nodes"][()], g["ranks"][()]
        rm = g["rank_map"][()]
        filter_count, seq_read = phases(g)["filter_count"], phases(g)["seq_read"]
        for row in s:
            used = {rm["node"][rm["rank"] == rk][0] for rk in r["rank"][r["point"] == row["point"]]}
            rows = n[n["point"] == row["point"]]
            assert sorted(rows["node"]) == sorted(used)  # one row per node used at the point
            assert rows["bytes"].sum() == row["bytes"]
            assert rows["ranks"].sum() == row["ranks"]
        for row in s[s["phase"] == filter_count]:
            seq = s[(s["phase"] == seq_read) & (s["ranks"] == row["ranks"]) & (s["repetition"] == row["repetition"])]
            assert row["filter_efficiency"] == pytest.approx(row["bandwidth_Bps"] / seq["bandwidth_Bps"][0])
            assert 0 < row["filter_efficiency"] < 100
            assert row["compute_mean_s"] > 0 and row["io_wait_mean_s"] >= 0
        fr = r[np.isin(r["point"], s["point"][s["phase"] == filter_count])]
        assert all(fr["compute_s"] > 0)
        assert all(fr["compute_s"] + fr["io_wait_s"] <= fr["io_s"] + 1e-6)
        assert all(fr["rows"] == fr["bytes"] // 8)
        assert all(s[s["phase"] == seq_read]["filter_efficiency"] == 0)


def test_filter_alone_has_no_efficiency(tmp_path, workdir):
    out = tmp_path / "r.h5"
    run_iosweep(1, ["run", "--dir", workdir, "--file-size", "2MiB", "--seq-record", "1MiB",
                    "--phases", "filter-count", "--output", out, "--quiet"], check=0)
    with h5py.File(out, "r") as f:
        assert latest_run(f)["summary"]["filter_efficiency"][0] == 0


@pytest.mark.parametrize("kernel", ["scalar", "avx2", "avx512"])
def test_kernel_choice_is_recorded(tmp_path, workdir, kernel):
    out = tmp_path / "r.h5"
    p = run_iosweep(1, ["run", "--dir", workdir, "--file-size", "2MiB", "--seq-record", "1MiB",
                        "--phases", "filter-count", "--filter-kernel", kernel, "--filter-every", "999",
                        "--output", out, "--quiet"])
    if p.returncode == 2 and "this CPU has no" in p.stderr:
        pytest.skip(f"this CPU has no {kernel}")
    assert p.returncode == 0, p.stderr
    assert f"filter kernel {kernel}" in p.stdout
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        assert g.attrs["filter_kernel"] == kernel
        s = g["summary"][()]
        assert s["matches"][0] == s["expected_matches"][0] > 0
