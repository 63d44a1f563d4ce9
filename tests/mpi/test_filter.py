"""filter-count: the count check fails loudly when kept data is altered, the per-node table,
the efficiency field, the I/O-wait / compute split and the compute-adjacent report."""
import re

import h5py
import numpy as np
import pytest

from conftest import dir_listing, latest_run, run_ids, run_sweep
from iosweep_tools.results.names import by_value, phases


def test_altered_kept_file_fails_the_count_loudly(tmp_path, workdir):
    out = tmp_path / "r.h5"
    every = 1000
    run_sweep(
        2,
        dir=workdir,
        file_size="4MiB",
        phases="seq-write",
        keep=True,
        filter_every=every,
        ranks=2,
        output=out,
        check=0,
    )
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
    p = run_sweep(
        2,
        dir=workdir,
        file_size="4MiB",
        phases="filter-count",
        reuse=rid,
        filter_every=every,
        ranks=2,
        output=out,
    )
    assert p.returncode == 1, p.stderr
    expected = 4 * 2**20 // 8 // every
    assert re.search(
        rf"rank \d \(host [^)]+\) counted {expected - 1} in {re.escape(str(victim))}, "
        rf"expected {expected}",
        p.stderr,
    ), p.stderr
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        assert g.attrs["status"] == 2 and "filter-count" in g.attrs["status_message"]
    # --reuse never removes the files it read.
    assert len(dir_listing(workdir)) == 2


def test_reuse_refuses_files_of_another_seed(tmp_path, workdir):
    out = tmp_path / "r.h5"
    run_sweep(1, dir=workdir, file_size="1MiB", phases="seq-write", keep=True, output=out, check=0)
    with h5py.File(out, "r") as f:
        rid = run_ids(f)[-1]
    p = run_sweep(
        1, dir=workdir, file_size="1MiB", phases="filter-count", reuse=rid, seed=7, output=out
    )
    # Found before the run (status 2, one line naming --reuse), not half way through it.
    assert p.returncode == 2 and "does not hold this run's data" in p.stderr
    assert [ln for ln in p.stderr.splitlines() if ln.startswith("iosweep:")][0].startswith(
        "iosweep: --reuse:"
    )


def test_nodes_table_efficiency_and_time_split(tmp_path, workdir):
    out = tmp_path / "r.h5"
    p = run_sweep(
        2,
        dir=workdir,
        file_size="8MiB",
        phases="seq-read,filter-count",
        rated_bw="2GB/s",
        output=out,
        check=0,
    )
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
        scan_only = phases(g)["scan_only"]
        for row in s[s["phase"] == filter_count]:
            same = (s["ranks"] == row["ranks"]) & (s["repetition"] == row["repetition"])
            seq = s[(s["phase"] == seq_read) & same]
            control = s[(s["phase"] == scan_only) & same]
            assert row["filter_efficiency"] == pytest.approx(
                row["bandwidth_Bps"] / control["bandwidth_Bps"][0]
            )
            assert row["filter_vs_seq_read"] == pytest.approx(
                row["bandwidth_Bps"] / seq["bandwidth_Bps"][0]
            )
            assert 0 < row["filter_efficiency"] < 100
            assert row["compute_mean_s"] > 0 and row["io_wait_mean_s"] >= 0
        # The control reads exactly what filter-count reads, and counts nothing.
        control = s[s["phase"] == scan_only]
        assert list(control["bytes"]) == list(s[s["phase"] == filter_count]["bytes"])
        assert all(control["matches"] == 0) and all(control["expected_matches"] == 0)
        fr = r[np.isin(r["point"], s["point"][s["phase"] == filter_count])]
        assert all(fr["compute_s"] > 0)
        assert all(fr["compute_s"] + fr["io_wait_s"] <= fr["io_s"] + 1e-6)
        assert all(fr["rows"] == fr["bytes"] // 8)
        assert all(np.isnan(s[s["phase"] == seq_read]["filter_efficiency"]))


def test_filter_alone_runs_its_control_but_has_no_seq_read_ratio(tmp_path, workdir):
    out = tmp_path / "r.h5"
    p = run_sweep(1, dir=workdir, file_size="2MiB", phases="filter-count", output=out, check=0)
    assert "scan-only" not in p.stdout  # a control's rows are printed with --show-controls only
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        s = g["summary"][()]
        name = by_value(phases(g))
        assert [name[v] for v in s["phase"]] == ["scan_only", "filter_count"]
        assert np.isfinite(s["filter_efficiency"][1]) and s["filter_efficiency"][1] > 0
        assert np.isnan(s["filter_vs_seq_read"][1])


def test_control_runs_after_filter_count_on_odd_repetitions(tmp_path, workdir):
    out = tmp_path / "r.h5"
    p = run_sweep(
        1,
        dir=workdir,
        file_size="2MiB",
        phases="filter-count",
        repetitions=2,
        show_controls=True,
        output=out,
        check=0,
    )
    assert "scan-only" in p.stdout
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        s = g["summary"][()]
        # Written in the order that gives every filter-count row its control's figure; the
        # time series of each row shows when it ran: the control of repetition 1 ran last.
        name = by_value(phases(g))
        assert [name[v] for v in s["phase"]] == ["scan_only", "filter_count"] * 2
        assert all(np.isfinite(s[s["phase"] == phases(g)["filter_count"]]["filter_efficiency"]))
        # When each window started: the control first in repetition 0, last in repetition 1.
        t = s["t_start_unix_ns"]
        assert t[0] < t[1] < t[3] < t[2]


@pytest.mark.parametrize("kernel", ["scalar", "avx2", "avx512"])
def test_kernel_choice_is_recorded(tmp_path, workdir, kernel):
    out = tmp_path / "r.h5"
    p = run_sweep(
        1,
        dir=workdir,
        file_size="2MiB",
        phases="filter-count",
        filter_kernel=kernel,
        filter_every=999,
        output=out,
    )
    if p.returncode == 2 and "this CPU has no" in p.stderr:
        pytest.skip(f"this CPU has no {kernel}")
    assert p.returncode == 0, p.stderr
    assert f"filter kernel {kernel}" in p.stdout
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        assert g.attrs["filter_kernel"] == kernel
        s = g["summary"][()]
        fc = s[s["phase"] == phases(g)["filter_count"]]
        assert fc["matches"][0] == fc["expected_matches"][0] > 0


def test_two_rated_figures_give_the_percent_of_each_as_a_range(tmp_path, workdir):
    """--rated-bw 5.2GB/s,3.4GB/s: the compute-adjacent study's two ceilings (sequential, and
    random from the rated IOPS), reported as "between 29% and 44%"."""
    out = tmp_path / "r.h5"
    p = run_sweep(
        2,
        dir=workdir,
        file_size="4MiB",
        phases="filter-count",
        rated_bw="5.2GB/s,3.4GB/s",
        output=out,
        check=0,
    )
    m = re.search(
        r"^  rated +5\.200 GB/s and 3\.400 GB/s (per drive|per rank's device): between "
        r"([\d.]+)% and ([\d.]+)% of rated maximum \(([\d.]+)% of 5\.200 GB/s, ([\d.]+)% of "
        r"3\.400 GB/s\)$",
        p.stdout,
        re.M,
    )
    assert m, p.stdout
    unit, (low, high, of_seq, of_rand) = m.group(1), (float(x) for x in m.groups()[1:])
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        assert g.attrs["rated_bw_Bps"] == 5.2e9 and g.attrs["rated_bw2_Bps"] == 3.4e9
        s = g["summary"][()]
        fc = s[s["phase"] == phases(g)["filter_count"]][-1]  # the largest point
    # Of each drive's rated bandwidth: aggregate / the drives the point used (the one device
    # under the folder); of each rank's device where no block device tells drives apart.
    if unit == "per drive":
        assert fc["drives"] == 1
        per = fc["bandwidth_Bps"] / fc["drives"]
    else:
        assert fc["drives"] == 0 and np.isnan(fc["device_fraction"])
        per = fc["bandwidth_Bps"] / fc["ranks"]
    assert of_seq == pytest.approx(100 * per / 5.2e9, abs=0.051)
    assert of_rand == pytest.approx(100 * per / 3.4e9, abs=0.051)
    assert (low, high) == (of_seq, of_rand)  # the higher ceiling gives the lower percent
    # Three are refused in one line.
    p = run_sweep(
        1,
        dir=workdir,
        file_size="1MiB",
        phases="filter-count",
        rated_bw="5.2GB/s,3.4GB/s,1GB/s",
        output=out,
    )
    said = [ln for ln in p.stderr.splitlines() if ln.startswith("iosweep:")]
    assert (
        p.returncode == 2 and len(said) == 1 and said[0].startswith("iosweep: --rated-bw:")
    ), p.stderr
    assert "more than two rates" in said[0]
