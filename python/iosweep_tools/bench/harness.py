"""What the benchmark harnesses share: the results their jobs wrote, how a ratio of two tools'
figures is judged, and the machine the figures belong to.

    run = written_run("r.h5", tables={})               # what a job wrote, read and checked
    median, low, high = ratio_stats(ratios)            # bootstrap interval of the median ratio
    verdict(median, low, high, target=0.97)            # "ok", "below" or "unstable"
    machine_text()                                     # host, CPU, memory, kernel

iosweep's per-pair ratios (bench-vs-fio, dfs-vs-ior): each iosweep run is set against the other
tool's run before and after it, and the median of these ratios is the figure, with a bootstrap
95% interval of RESAMPLES resamples and the fixed SEED, "unstable" when it reaches beyond
±SPREAD of the median.
"""
import math
import os
import platform
import statistics

import numpy as np

from iosweep_tools.core.errors import Stop
from iosweep_tools.results.file import ResultsError
from iosweep_tools.results.frames import list_runs
from iosweep_tools.results.reader import read

RESAMPLES = 2000  # bootstrap resamples of the pair ratios
SEED = 20261130  # fixed: the same ratios always give the same interval
SPREAD = 0.10  # an interval reaching beyond ±10% of the median is "unstable"


def written_run(path, run_id=None, what="iosweep", **spec):
    """results.reader.read (`spec`: summary, attrs, tables) of a results file that a job of the
    harness wrote (the last run when `run_id` is None). Raises Stop with status 1 when it cannot
    be read or has no summary rows: the job's failure, not bad input."""
    try:
        run = read(path, run_id, **spec)
    except ResultsError as e:
        raise Stop(f"the results {what} wrote cannot be read: {e}", 1) from None
    if not len(run.summary):
        raise Stop(f"{what} wrote no summary rows in run {run.id} of {path}", 1)
    return run


def written_ids(path, what="iosweep"):
    """The run ids of a results file that a job of the harness wrote; Stop as written_run."""
    try:
        ids = list_runs(path)
    except ResultsError as e:
        raise Stop(f"the results {what} wrote cannot be read: {e}", 1) from None
    if not ids:
        raise Stop(f"{what} wrote no run to {path}", 1)
    return ids


def ratio_stats(ratios, resamples=RESAMPLES, seed=SEED, level=0.95):
    """(median, low, high): the median of the per-pair ratios and a bootstrap `level` interval
    of it (percentiles of the medians of `resamples` resamples drawn with replacement)."""
    r = np.asarray(ratios, dtype=float)
    if r.size == 0:
        raise ValueError("no ratios")
    rng = np.random.default_rng(seed)
    medians = np.median(r[rng.integers(0, r.size, size=(resamples, r.size))], axis=1)
    tail = (1.0 - level) / 2 * 100
    low, high = np.percentile(medians, [tail, 100 - tail])
    return float(np.median(r)), float(low), float(high)


def verdict(median, low, high, target=0.97, spread=SPREAD):
    """ "unstable" when the interval reaches beyond ±spread of the median; else "ok" when the
    median is at least `target`, "below" when it is not."""
    if low < median * (1 - spread) or high > median * (1 + spread):
        return "unstable"
    return "ok" if median >= target else "below"


def machine_text():
    """Host, CPU model and count, memory, kernel: the machine the figures belong to."""
    cpu = ""
    try:
        cpu = next(
            (
                ln.split(":", 1)[1].strip()
                for ln in open("/proc/cpuinfo")
                if ln.startswith("model name")
            ),
            "",
        )
    except OSError:
        pass
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError):
        mem = float("nan")
    return (
        f"{platform.node()}: {cpu or platform.machine()}, {os.cpu_count()} CPUs, {mem:.0f} GiB, "
        f"Linux {platform.release()}"
    )


def median_or_nan(values):
    values = [v for v in values if not math.isnan(v)]
    return statistics.median(values) if values else float("nan")


def fraction(v):
    return "n/a" if math.isnan(v) else f"{v:.2f}"
