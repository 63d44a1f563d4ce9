"""scripts/bench-vs-fio and scripts/filter-efficiency: the statistics bench-vs-fio reports for
every workload (the bootstrap interval of the median pair ratio and the verdict) on fixed ratio
lists, its device-truth fraction, and filter-efficiency's table from real runs."""
import importlib.machinery
import importlib.util
import math
import re
import subprocess

import pytest

from conftest import BIN, SOURCE_DIR

SCRIPTS = SOURCE_DIR / "scripts"


def load_script(name):
    module_name = name.replace("-", "_")
    loader = importlib.machinery.SourceFileLoader(module_name, str(SCRIPTS / name))
    spec = importlib.util.spec_from_loader(module_name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


bench = load_script("bench-vs-fio")


# ------------------------------------------------------------------- bench-vs-fio statistics

def test_equal_ratios_have_a_point_interval():
    assert bench.ratio_stats([1.02] * 12) == pytest.approx((1.02, 1.02, 1.02))
    assert bench.verdict(*bench.ratio_stats([1.02] * 12)) == "ok"
    assert bench.verdict(*bench.ratio_stats([0.95] * 12)) == "below"


def test_two_ratios_give_the_interval_from_the_lower_to_the_higher():
    # A resample of [1, 2] has the median 1, 1.5 or 2 (probabilities 1/4, 1/2, 1/4): its 2.5th
    # and 97.5th percentiles are the two ratios themselves.
    median, low, high = bench.ratio_stats([1.0, 2.0])
    assert (median, low, high) == (1.5, 1.0, 2.0)
    assert bench.verdict(median, low, high) == "unstable"


def test_a_tight_set_of_ratios_is_stable_and_judged_by_its_median():
    ratios = [0.99, 1.00, 1.01, 1.02, 0.98, 1.00, 0.97, 1.03, 1.00, 0.99, 1.01, 1.00]
    median, low, high = bench.ratio_stats(ratios)
    assert median == 1.00
    assert min(ratios) <= low <= median <= high <= max(ratios) and high - low < 0.05
    assert bench.verdict(median, low, high) == "ok"
    assert bench.verdict(median, low, high, target=1.01) == "below"


def test_a_wide_set_of_ratios_is_unstable_whatever_its_median():
    # The depth-1 random-read row of docs/performance.md spread from 0.68 to 1.06.
    ratios = [0.676, 0.953, 1.064, 0.71, 0.98, 1.01, 0.93, 0.96, 1.05, 0.72, 0.95, 1.02]
    median, low, high = bench.ratio_stats(ratios)
    assert low < median * 0.9 or high > median * 1.1
    assert bench.verdict(median, low, high) == "unstable"


def test_the_interval_is_reproducible_and_its_seed_fixed():
    ratios = [0.91, 1.07, 0.99, 1.12, 0.95, 1.03, 0.88, 1.01]
    first = bench.ratio_stats(ratios)
    assert bench.ratio_stats(ratios) == first
    assert bench.ratio_stats(ratios, seed=bench.SEED) == first
    assert bench.ratio_stats(ratios, resamples=bench.RESAMPLES, level=0.95) == first


def test_the_verdict_bounds():
    assert bench.verdict(1.0, 0.9, 1.1) == "ok"            # exactly ±10%: not beyond
    assert bench.verdict(1.0, 0.899, 1.0) == "unstable"
    assert bench.verdict(1.0, 1.0, 1.101) == "unstable"
    assert bench.verdict(0.97, 0.96, 0.98) == "ok"         # the target itself is reached
    assert bench.verdict(0.969, 0.96, 0.98) == "below"
    with pytest.raises(ValueError):
        bench.ratio_stats([])


def test_device_fraction_is_the_device_bytes_of_the_direction_over_the_claimed_bytes():
    before = {"read_bytes": 1000, "write_bytes": 5000, "read_ops": 1, "write_ops": 1}
    after = {"read_bytes": 1000 + 4096 * 10, "write_bytes": 5000 + 512, "read_ops": 11, "write_ops": 2}
    assert bench.device_fraction(before, after, "read", 4096 * 20) == 0.5
    assert bench.device_fraction(before, after, "write", 1024) == 0.5
    assert math.isnan(bench.device_fraction(None, None, "read", 4096))
    assert math.isnan(bench.device_fraction(before, after, "read", 0))
    assert bench.direction_of("randread") == "read" and bench.direction_of("write") == "write"
