"""scripts/bench-vs-fio and scripts/filter-efficiency: the statistics bench-vs-fio reports for
every workload (the bootstrap interval of the median pair ratio and the verdict) on fixed ratio
lists, its device-truth fraction, and filter-efficiency's table from real runs."""
import math
import os
import re
import statistics
import subprocess

import pytest

from iosweep_tools.bench import harness
from iosweep_tools.bench.filter_efficiency import table as efficiency
from iosweep_tools.bench.vs_fio import workloads
from iosweep_tools.results import frames
from conftest import BIN, SOURCE_DIR, mpi_env, run_iosweep

SCRIPTS = SOURCE_DIR / "scripts"


# ------------------------------------------------------------------- bench-vs-fio statistics


def test_equal_ratios_have_a_point_interval():
    assert harness.ratio_stats([1.02] * 12) == pytest.approx((1.02, 1.02, 1.02))
    assert harness.verdict(*harness.ratio_stats([1.02] * 12)) == "ok"
    assert harness.verdict(*harness.ratio_stats([0.95] * 12)) == "below"


def test_two_ratios_give_the_interval_from_the_lower_to_the_higher():
    # A resample of [1, 2] has the median 1, 1.5 or 2 (probabilities 1/4, 1/2, 1/4): its 2.5th
    # and 97.5th percentiles are the two ratios themselves.
    median, low, high = harness.ratio_stats([1.0, 2.0])
    assert (median, low, high) == (1.5, 1.0, 2.0)
    assert harness.verdict(median, low, high) == "unstable"


def test_a_tight_set_of_ratios_is_stable_and_judged_by_its_median():
    ratios = [0.99, 1.00, 1.01, 1.02, 0.98, 1.00, 0.97, 1.03, 1.00, 0.99, 1.01, 1.00]
    median, low, high = harness.ratio_stats(ratios)
    assert median == 1.00
    assert min(ratios) <= low <= median <= high <= max(ratios) and high - low < 0.05
    assert harness.verdict(median, low, high) == "ok"
    assert harness.verdict(median, low, high, target=1.01) == "below"


def test_a_wide_set_of_ratios_is_unstable_whatever_its_median():
    # The depth-1 random-read row of docs/performance.md spread from 0.68 to 1.06.
    ratios = [0.676, 0.953, 1.064, 0.71, 0.98, 1.01, 0.93, 0.96, 1.05, 0.72, 0.95, 1.02]
    median, low, high = harness.ratio_stats(ratios)
    assert low < median * 0.9 or high > median * 1.1
    assert harness.verdict(median, low, high) == "unstable"


def test_the_interval_is_reproducible_and_its_seed_fixed():
    ratios = [0.91, 1.07, 0.99, 1.12, 0.95, 1.03, 0.88, 1.01]
    first = harness.ratio_stats(ratios)
    assert harness.ratio_stats(ratios) == first
    assert harness.ratio_stats(ratios, seed=harness.SEED) == first
    assert harness.ratio_stats(ratios, resamples=harness.RESAMPLES, level=0.95) == first


def test_the_verdict_bounds():
    assert harness.verdict(1.0, 0.9, 1.1) == "ok"  # exactly ±10%: not beyond
    assert harness.verdict(1.0, 0.899, 1.0) == "unstable"
    assert harness.verdict(1.0, 1.0, 1.101) == "unstable"
    assert harness.verdict(0.97, 0.96, 0.98) == "ok"  # the target itself is reached
    assert harness.verdict(0.969, 0.96, 0.98) == "below"
    with pytest.raises(ValueError):
        harness.ratio_stats([])


def test_fio_cpu_per_operation_is_its_usr_and_sys_percent_of_its_runtime_over_its_ios():
    # fio 3.33's JSON of a 3 s QD1 random read on this VM (docs/performance.md: usr 1.4%, sys
    # 41.2% at 18.1k IOPS): 23.4 µs of CPU per request, nearly all of it the kernel's.
    job = {"job_runtime": 3000, "usr_cpu": 1.4, "sys_cpu": 41.2, "read": {"total_ios": 54300}}
    usr, sys_ = workloads.fio_cpu_per_op(job, job["read"])
    assert usr == pytest.approx(0.014 * 3e9 / 54300) and sys_ == pytest.approx(0.412 * 3e9 / 54300)
    assert usr + sys_ == pytest.approx(23536, rel=1e-3)
    for broken in ({}, {**job, "usr_cpu": "x"}, {**job, "read": {"total_ios": 0}}):
        assert all(math.isnan(v) for v in workloads.fio_cpu_per_op(broken, broken.get("read", {})))
    row = ("w", "IOPS", 1.0, 1.0, 1.0, 0.9, 1.1, "ok", 1.0, 1.0, 77.4, 1200.0, 60.2, math.nan)
    args = type("Args", (), {"markdown": True})()
    assert workloads._rows_text(args, [row])[-1].endswith("| 77 | 1200 | 60 | n/a |")


def test_device_fraction_is_the_device_bytes_of_the_direction_over_the_claimed_bytes():
    before = {"read_bytes": 1000, "write_bytes": 5000, "read_ops": 1, "write_ops": 1}
    after = {
        "read_bytes": 1000 + 4096 * 10,
        "write_bytes": 5000 + 512,
        "read_ops": 11,
        "write_ops": 2,
    }
    assert workloads.device_fraction(before, after, "read", 4096 * 20) == 0.5
    assert workloads.device_fraction(before, after, "write", 1024) == 0.5
    assert math.isnan(workloads.device_fraction(None, None, "read", 4096))
    assert math.isnan(workloads.device_fraction(before, after, "read", 0))
    assert (
        workloads.direction_of("randread") == "read" and workloads.direction_of("write") == "write"
    )


# ------------------------------------------------------------------------ filter-efficiency


def test_filter_efficiency_reports_each_ratio_under_its_definition(tmp_path):
    out = tmp_path / "r.h5"
    (tmp_path / "w").mkdir()
    run_iosweep(
        2,
        [
            "run",
            "--dir",
            tmp_path / "w",
            "--file-size",
            "4MiB",
            "--seq-record",
            "1MiB",
            "--phases",
            "seq-read,filter-count",
            "--repetitions",
            "3",
            "--quiet",
            "--label",
            "x",
            "--output",
            out,
        ],
        check=0,
    )
    _, s = frames.load(out)
    rows = efficiency.table(s, ["x"])
    assert [(r["setting"], r["ranks"], r["repetitions"]) for r in rows] == [
        ("x", 1, 3),
        ("x", 2, 3),
    ]
    for r in rows:
        at = s[s["ranks"] == r["ranks"]]
        bw = {
            (p, rep): b
            for p, rep, b in zip(at["phase_name"], at["repetition"], at["bandwidth_Bps"])
        }
        fc = at[at["phase_name"] == "filter-count"]
        # filter_efficiency is filter-count / scan-only of the same point and repetition,
        # filter_vs_seq_read filter-count / seq-read.
        eff = [bw[("filter-count", k)] / bw[("scan-only", k)] for k in fc["repetition"]]
        vs = [bw[("filter-count", k)] / bw[("seq-read", k)] for k in fc["repetition"]]
        assert list(fc["filter_efficiency"]) == pytest.approx(eff, rel=1e-9)
        assert list(fc["filter_vs_seq_read"]) == pytest.approx(vs, rel=1e-9)
        assert r["efficiency"] == pytest.approx(
            (statistics.median(eff), min(eff), max(eff)), rel=1e-9
        )
        assert r["vs_seq_read"] == pytest.approx(
            (statistics.median(vs), min(vs), max(vs)), rel=1e-9
        )
        assert r["scan_only"] == pytest.approx(
            statistics.median(at[at["phase_name"] == "scan-only"]["bandwidth_Bps"]) / 2**20
        )


def test_filter_efficiency_runs_as_its_docstring_says(diskdir):
    p = subprocess.run(
        [
            str(SCRIPTS / "filter-efficiency"),
            "--bin",
            BIN,
            "--dir",
            str(diskdir),
            "--size",
            "16m",
            "--np",
            "1",
            "--repetitions",
            "2",
        ],
        capture_output=True,
        text=True,
        env=mpi_env(),
    )
    assert p.returncode == 0, p.stderr
    head, sep, *rows = [ln for ln in p.stdout.splitlines() if ln.startswith("|")]
    assert "filter_efficiency: filter-count / scan-only (median)" in head
    assert "filter_vs_seq_read: filter-count / seq-read (median)" in head
    assert [r.split("|")[1].strip() for r in rows] == [name for name, _ in efficiency.SETTINGS]
    for r in rows:
        cells = [c.strip() for c in r.split("|")[1:-1]]
        assert len(cells) == 12 and all(re.fullmatch(r"[\d.]+%?", c) for c in cells[2:]), r
        assert float(cells[6]) <= float(cells[5]) <= float(cells[7])  # min <= median <= max
    assert "alternates their order every repetition" in p.stdout
    assert sorted(os.listdir(diskdir)) == []  # its folder removed, nothing else left
