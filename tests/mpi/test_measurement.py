"""Latency histograms, time series, first/last done, stonewall with wear-out, live progress."""
import math
import os
import re
import subprocess

import h5py
import numpy as np
import pytest

from conftest import iosweep_argv, latest_run, mpi_env, mpiexec_argv, run_sweep
from iosweep_tools.results.names import phases


def check_bin_latency(per_rank, merged):
    """Per-bin latency: p50 <= p99 <= max in every bin with operations (NaN in an empty one); a
    merged bin's max is the largest of its ranks', and its median lies between theirs (the median
    of a union lies between the medians of its parts), up to half a bucket (1/32) above, where a
    part's figure was its maximum inside a bucket whose midpoint is higher."""
    for rows in (per_rank, merged):
        busy, idle = rows[rows["ops"] > 0], rows[rows["ops"] == 0]
        assert np.all(busy["lat_p50_ns"] <= busy["lat_p99_ns"])
        assert np.all(busy["lat_p99_ns"] <= busy["lat_max_ns"])
        assert np.all(np.isnan(idle["lat_p50_ns"]))
    for m in merged[merged["ops"] > 0]:
        parts = per_rank[(per_rank["bin"] == m["bin"]) & (per_rank["ops"] > 0)]
        assert m["lat_max_ns"] == parts["lat_max_ns"].max()
        low, high = parts["lat_p50_ns"].min(), parts["lat_p50_ns"].max()
        assert low <= m["lat_p50_ns"] <= high * (1 + 1 / 32)


def p_from_counts(lower, upper, counts, q, max_ns):
    """The percentile rule of results/README.md: midpoint of the bucket holding the q-quantile."""
    total = counts.sum()
    rank = min(max(math.ceil(q * total), 1), total)
    i = int(np.searchsorted(np.cumsum(counts), rank))
    mid = float(lower[i]) if i < 64 else (float(lower[i]) + float(upper[i])) / 2
    return min(mid, max_ns)


def test_histograms_and_time_series_recompute_the_summary(tmp_path, workdir):
    out = tmp_path / "r.h5"
    p = run_sweep(4, dir=workdir, file_size="8MiB", timeseries_bin="2ms", output=out, check=0)
    assert "p50_us" in p.stdout and "p99_us" in p.stdout
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        s = g["summary"][()]
        lower, upper = g["latency/bucket_lower_ns"][()], g["latency/bucket_upper_ns"][()]
        counts = g["latency/counts"][()]
        ts, ranks = g["timeseries"][()], g["ranks"][()]
        assert counts.shape == (len(s), len(lower))
        for row in s:
            c = counts[row["point"]]
            assert c.sum() == row["ops"]  # every operation is in the histogram once
            for q, field in ((0.5, "lat_p50_ns"), (0.99, "lat_p99_ns"), (0.999, "lat_p999_ns")):
                assert p_from_counts(lower, upper, c, q, row["lat_max_ns"]) == pytest.approx(
                    row[field]
                )
            assert row["lat_p50_ns"] <= row["lat_p99_ns"] <= row["lat_max_ns"]
            # The time-series bins of every rank sum to what the rank moved in the phase, and so
            # do the merged bins (rank -1).
            t = ts[(ts["point"] == row["point"]) & (ts["rank"] >= 0)]
            merged = ts[(ts["point"] == row["point"]) & (ts["rank"] == -1)]
            assert t["bytes"].sum() == row["bytes"] and t["ops"].sum() == row["ops"]
            assert merged["bytes"].sum() == row["bytes"] and merged["ops"].sum() == row["ops"]
            check_bin_latency(t, merged)
            r = ranks[ranks["point"] == row["point"]]
            for rank in r["rank"]:
                assert t["bytes"][t["rank"] == rank].sum() == r["bytes"][r["rank"] == rank][0]
            # first-done recomputed from the bins: what every rank had moved when the first
            # finished.
            first = r["elapsed_s"].min()
            moved = 0.0
            for rr in r:
                b = t[t["rank"] == rr["rank"]]
                if rr["elapsed_s"] <= first:
                    moved += rr["bytes"]
                    continue
                for bin_row in b:
                    lo = bin_row["t_start_s"]
                    hi = min(lo + 0.002, max(rr["elapsed_s"], lo))
                    if first >= hi:
                        moved += bin_row["bytes"]
                    elif first > lo:
                        moved += bin_row["bytes"] * (first - lo) / (hi - lo)
            assert row["first_done_s"] == pytest.approx(first)
            assert row["first_done_Bps"] == pytest.approx(moved / first, rel=1e-6)
            assert row["last_done_Bps"] == pytest.approx(row["bytes"] / row["last_done_s"])


def test_one_bin_holding_the_whole_phase_gives_the_phase_percentiles_within_the_stated_error(
    tmp_path, workdir
):
    """With a bin longer than the phase, the merged bin holds every operation of the point: its
    maximum is the phase's exactly, and its percentiles differ from the phase's by at most half
    a coarse bucket (1/32 of the value, results/README.md), never more."""
    out = tmp_path / "r.h5"
    run_sweep(2, dir=workdir, file_size="8MiB", timeseries_bin="1h", output=out, check=0)
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        s, ts = g["summary"][()], g["timeseries"][()]
    for row in s:
        merged = ts[(ts["point"] == row["point"]) & (ts["rank"] == -1)]
        assert len(merged) == 1 and merged["ops"][0] == row["ops"]
        m = merged[0]
        assert m["lat_max_ns"] == row["lat_max_ns"]
        for field in ("lat_p50_ns", "lat_p99_ns"):
            assert abs(m[field] - row[field]) <= row[field] / 32 + 1, (field, m[field], row[field])


def test_single_rank_iozone_rate_equals_wall_rate(tmp_path, workdir):
    out = tmp_path / "r.h5"
    run_sweep(1, dir=workdir, file_size="8MiB", output=out, check=0)
    with h5py.File(out, "r") as f:
        s = latest_run(f)["summary"][()]
        assert np.allclose(s["iozone_children_Bps"], s["bandwidth_Bps"], rtol=1e-9)


def test_stonewall_marks_rows_and_wearout_leaves_equal_files(tmp_path, workdir):
    out = tmp_path / "r.h5"
    size = 1024 * 2**20
    p = run_sweep(
        2,
        dir=workdir,
        file_size="1GiB",
        phases="seq-write,seq-read",
        ranks=2,
        stonewall="30ms",
        stonewall_wearout=True,
        keep=True,
        fsync=True,
        output=out,
        check=0,
        timeout=600,
    )
    assert "stonewalled" in p.stdout
    with h5py.File(out, "r") as f:
        g = latest_run(f)
        s, r = g["summary"][()], g["ranks"][()]
        w = s[s["phase"] == phases(g)["seq_write"]][0]
        assert w["stonewalled"] == 1 and w["bytes"] < 2 * size
        wr = r[r["point"] == w["point"]]
        total = wr["bytes"] + wr["wearout_bytes"]
        assert total[0] == total[1], "wear-out brings every rank to the furthest rank's count"
        assert w["wearout_bytes"] == wr["wearout_bytes"].sum()
        furthest = total[0]
        # The reading phase (stonewalled too, and worn out to its own furthest reader) only
        # reads data that is there: nothing short, nothing missing.
        rd = s[s["phase"] == phases(g)["seq_read"]][0]
        rr = r[r["point"] == rd["point"]]
        read_total = rr["bytes"] + rr["wearout_bytes"]
        assert read_total[0] == read_total[1] <= furthest
    files = sorted(workdir.iterdir())
    assert len(files) == 2 and all(os.path.getsize(f) == furthest for f in files)


def _progress_cmd(workdir, out, quiet=False, **options):
    args = iosweep_argv(
        **(
            options
            or dict(
                dir=workdir,
                file_size="256MiB",
                rand_record="4k",
                phases="rand-read",
                direct=True,
                ranks=2,
                stonewall="1.5s",
            )
        ),
        output=out,
        seq_record=None,
        quiet=quiet,
    )
    return mpiexec_argv(2, args)


# A drawn progress line: its phase, percent, rate and unit, who it counts, and the remaining time.
DRAWN = re.compile(
    r"point 1/1 \(2 ranks\) (\S+) +([\d.]+)%  ([\d.]+)([KM]?) (IOPS|MiB/s) \((all 2 ranks)\)"
    r"  elapsed \d+:\d\d:\d\d  remaining ~(\d+:\d\d:\d\d)"
)


def on_a_terminal(cmd):
    """The draws of a run under `script` (a terminal): [(phase, percent, rate, remaining)]."""
    p = subprocess.run(
        ["script", "-qfec", " ".join(cmd), "/dev/null"],
        capture_output=True,
        env=mpi_env(),
        timeout=300,
    )
    out = p.stdout.decode(errors="replace")  # bytes: keep the carriage returns as they are
    assert p.returncode == 0, out
    assert "\r\x1b[Kpoint 1/1 (2 ranks)" in out, out[-2000:]
    draws = []
    for m in DRAWN.finditer(out):
        scale = {"": 1, "K": 1e3, "M": 1e6}[m.group(4)]
        draws.append((m.group(1), float(m.group(2)), float(m.group(3)) * scale, m.group(7)))
    return out, draws


def test_progress_is_redrawn_on_a_terminal_with_every_ranks_rate(tmp_path, diskdir):
    """Redrawn in place, and the rate is every active rank's (counted in a page the machine's
    ranks share), not rank 0's alone: about the rate the results file's time series had over the
    same window, where rank 0's would be half. Each drawn rate is of the last ~250 ms and the
    disk's rate moves within the window (a host that caches it: 1.4K to 16.6K IOPS in one run),
    so the draws' median is held against the median of the time series' bins (every rank's
    operations per bin), the same process sampled the same way, not against the window's mean."""
    if subprocess.run(["which", "script"], capture_output=True).returncode != 0:
        pytest.skip("util-linux `script` is not installed")
    out, draws = on_a_terminal(_progress_cmd(diskdir, tmp_path / "r.h5"))
    assert out.count("\r\x1b[Kpoint 1/1 (2 ranks) rand-read") >= 2, out[-2000:]
    # A draw before the first rate is measured (the first 100 ms) says 0: not a rate.
    rates = [r for phase, percent, r, _ in draws if phase == "rand-read" and percent > 0 and r > 0]
    assert len(rates) >= 2, out[-2000:]
    with h5py.File(tmp_path / "r.h5", "r") as f:
        g = latest_run(f)
        ts, bin_s = g["timeseries"][()], float(g.attrs["timeseries_bin_s"])
    merged = ts[(ts["point"] == 0) & (ts["rank"] == -1)]
    bins = merged["ops"][np.argsort(merged["bin"])][:-1] / bin_s  # the last bin is partial
    assert len(bins) >= 2, merged
    want = float(np.median(bins))
    assert 0.65 * want <= float(np.median(rates)) <= 1.5 * want, (rates, bins.tolist())


def test_a_metadata_runs_progress_counts_operations_and_the_time_left(tmp_path, diskdir):
    """Metadata phases count operations: a percentage and a rate that move, and a remaining
    time that is not 0:00:00 while phases are left (it counted data bytes alone)."""
    if subprocess.run(["which", "script"], capture_output=True).returncode != 0:
        pytest.skip("util-linux `script` is not installed")
    cmd = _progress_cmd(
        diskdir,
        tmp_path / "r.h5",
        dir=diskdir,
        phases="md-create,md-stat,md-remove",
        ranks=2,
        md_items=1000,
        md_fsync=True,
    )
    out, draws = on_a_terminal(cmd)
    creates = [d for d in draws if d[0] == "md-create"]
    assert creates and any(percent > 0 and rate > 0 for _, percent, rate, _ in creates), out[-2000:]
    assert any(left != "0:00:00" for *_, left in creates), creates
    assert [d[1] for d in creates] == sorted(d[1] for d in creates)  # the share done only grows


def test_progress_is_plain_lines_when_piped_and_silent_with_quiet(tmp_path, diskdir):
    workdir = diskdir
    p = subprocess.run(
        _progress_cmd(workdir, tmp_path / "r.h5"),
        capture_output=True,
        text=True,
        env=mpi_env(),
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("point 1/1 (2 ranks) rand-read")]
    assert lines, p.stderr
    assert "\r" not in p.stderr and "\x1b[" not in p.stderr
    q = subprocess.run(
        _progress_cmd(workdir, tmp_path / "r.h5", quiet=True),
        capture_output=True,
        text=True,
        env=mpi_env(),
        timeout=300,
    )
    assert q.returncode == 0 and "point 1/1" not in q.stderr
