"""iosweep's results as pandas DataFrames: what iosweep-load prints and exports, callable from
Python and Jupyter (Debian's python3-h5py and python3-pandas).

    from iosweep_tools.results import frames
    frames.list_runs("results/iosweep.h5")             # the run ids, in the order appended
    runs, summary = frames.load("results/iosweep.h5")  # every run: two DataFrames
    tables = frames.tables("results/iosweep.h5")       # {table name: DataFrame} of the latest run
    frames.table("results/iosweep.h5", "ranks", run_id)
    frames.drives("results/iosweep.h5")                # the drive view: (point, drive) rows

`runs` has one row per run (its attributes, status_name, hosts and the run_index's n_points);
`summary` one row per summary point of every run, with the run's attributes joined, the record
size the row's phase used (`record_bytes`) and the phase and engine enums decoded to their names
(read from the enum types in the file, so new phases and engines appear as they are added).

Every call opens the file under iosweep's shared lock (results.file.open_results), reads what it
needs, checks it (results.reader) and closes it again, so a run can append between two calls and a
notebook never keeps a writer waiting. Every problem raises results.file.ResultsError (NoSuchRun
for a run the file does not list), one line naming the file, the run and the value.
"""
from iosweep_tools.results import drive_view
from iosweep_tools.results.file import ResultsError, open_results, run_ids
from iosweep_tools.results.hdf5 import column
from iosweep_tools.results.reader import TABLES, guarded, read

# pandas is imported where DataFrames are made: iosweep-load's checks and exports start
# without it.


def list_runs(path):
    """The run ids of the results file at `path`, in the order they were appended."""
    with open_results(path) as f:
        return guarded(f"'{path}'", run_ids, f)


def read_all(path, ids=None, **what):
    """Every Run of the file (or those of `ids`), in the order of its run_index; `what` as
    results.reader.read takes it."""
    every = list_runs(path)
    if not every:
        raise ResultsError(f"'{path}' holds no runs")
    return [read(path, r, **what) for r in (every if ids is None else ids)]


def summaries(runs):
    """The summaries of several Runs in one DataFrame (Run.frame, run after run)."""
    import pandas as pd

    parts = [r.frame() for r in runs if len(r.summary)]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def frames(runs):
    """(runs, summary) DataFrames of Runs: one row per run (its attributes, status_name, hosts
    and the run_index's n_points), one row per summary point (Run.frame)."""
    import pandas as pd

    rows = [
        {**r.attrs, "status_name": r.status_name, "hosts": r.hosts, "n_points": r.n_points}
        for r in runs
    ]
    return pd.DataFrame(rows), summaries(runs)


def load(path):
    """(runs, summary) DataFrames of every run in the file, every run read and checked."""
    return frames(read_all(path))


def _frame(run, name):
    import pandas as pd

    if name == "summary":
        return run.frame()
    t = run.table(name)
    return pd.DataFrame({k: column(t[k]) for k in t.dtype.names})


def table(path, name, run_id=None):
    """Table `name` (summary, rank_map, ranks, nodes, timeseries, device, rank_usage, mounts,
    wire, final_math, final_math_drives) of run `run_id` (the run appended last when None) as a
    DataFrame: the summary as load() gives it, any other table as stored, text decoded. In the
    timeseries of newer files, rows with rank == -1 are the merge of all ranks of a bin: sum
    bytes over rank >= 0 or rank == -1, never both (results.timeseries.cluster_bins does). Raises
    ResultsError when the run has no such table."""
    if name != "summary" and name not in TABLES:
        raise ResultsError(f"'{path}': {name} is not a table of a run ({', '.join(TABLES)})")
    run = read(path, run_id, tables={} if name == "summary" else {name: {}})
    return _frame(run, name)


def tables(path, run_id=None):
    """{name: DataFrame} of every table run `run_id` (the run appended last when None) holds,
    the summary first, as table() gives each; a table the run holds but that cannot be used is
    left out (Run.problems says why)."""
    run = read(path, run_id)
    return {name: _frame(run, name) for name in run.tables}


def latency(path, run_id=None):
    """(bucket_lower_ns, bucket_upper_ns, counts[points, buckets]) as numpy arrays; None when the
    run has no usable latency group."""
    return read(path, run_id).latency


# The columns of drives(): the point's, the device table's for the drive, the derived ones.
DRIVE_COLUMNS = ("run_id", "point", "phase_name", "repetition", "wall_s", "drive", "device")
DRIVE_COLUMNS += ("nodes", "hosts", "folders", "ranks", "claimed_bytes", "seconds", "drive_Bps")
DRIVE_COLUMNS += ("read_bytes", "write_bytes", "device_bytes", "drive_fraction", "device_Bps")
DRIVE_COLUMNS += ("slowest", "fastest", "note")
DRIVE_COLUMNS += ("link", "link_Bps", "link_fraction")


def _drive_row(run, i, d, lagging):
    s = run.summary
    wall = float(s["wall_s"][i])
    seen = d.seen_bytes
    return (
        run.id,
        int(s["point"][i]),
        run.phase_of_row(i),
        int(s["repetition"][i]),
        wall,
        d.drive,
        d.name,
        ",".join(map(str, d.nodes)),
        ",".join(run.host(n) for n in d.nodes),
        ",".join(f.decode(errors="replace") for f in d.folders),
        d.ranks,
        d.claimed_bytes,
        d.seconds,
        d.drive_Bps,
        d.read_bytes,
        d.write_bytes,
        seen,
        d.drive_fraction,
        seen / wall if seen is not None and wall > 0 else float("nan"),
        d.slowest,
        d.fastest,
        "; ".join(drive_view.note(run, j) for j in lagging if j in d.rows),
        d.link,
        d.link_Bps,
        d.link_fraction,
    )


def drives(path, run_id=None):
    """The drive view of run `run_id` (the run appended last when None) as a DataFrame, one row
    per (summary point, drive): the point (point, phase_name, repetition, wall_s), the drive's
    device table figures (drive, device, its ranks, claimed_bytes, seconds and drive_Bps over
    the rows that had ranks; read_bytes, write_bytes, drive_fraction of the row that counts
    it), where it is (nodes, hosts, folders: comma-separated), what its counters saw in the
    phase's direction (device_bytes) over the point's window (device_Bps = device_bytes /
    wall_s), whether it was the point's slowest or fastest, the console's note when it
    lagged, and its link (link: the PCIe link read, or why unknown; link_Bps; link_fraction =
    device bytes over the drive's seconds / link_Bps; None and NaN in files before them).
    Raises ResultsError when the run records no drive view (files before it)."""
    import pandas as pd

    run = read(path, run_id)
    if not drive_view.has_drives(run):
        raise ResultsError(
            f"'{path}' run {run.id}: no drive view (a device table with drive, folders, ranks,"
            " claimed_bytes, drive_Bps and drive_fraction, and drives in the summary)"
        )
    rows = []
    for i in range(len(run.summary)):
        mine = drive_view.rows_of_point(run, i)
        lagging = drive_view.lagging(run, i, mine)
        rows += [_drive_row(run, i, d, lagging) for d in drive_view.drives(run, i, mine)]
    return pd.DataFrame(rows, columns=list(DRIVE_COLUMNS))
