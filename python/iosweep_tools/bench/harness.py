"""What the benchmark harnesses share: the results their jobs wrote, and how a ratio of two
tools' figures is judged.

    run = written_run("r.h5", tables={})               # what a job wrote, read and checked
    median, low, high = ratio_stats(ratios)            # bootstrap interval of the median ratio
    verdict(median, low, high, target=0.97)            # "ok", "below" or "unstable"
"""
from iosweep_tools.core.errors import Stop
from iosweep_tools.results.file import ResultsError
from iosweep_tools.results.frames import list_runs
from iosweep_tools.results.reader import read


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
