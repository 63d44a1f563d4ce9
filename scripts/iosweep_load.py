"""Load iosweep HDF5 results into pandas DataFrames (Debian's python3-h5py and python3-pandas).

    import iosweep_load
    runs, summary = iosweep_load.load("results/iosweep.h5")

`runs` has one row per run (run_index joined with the run attributes); `summary` has one row per
summary point of every run, with the run's attributes joined, the record size the row's phase
used (`record_bytes`) and the phase and engine enums decoded to their names (read from the enum
types in the file, so new phases and engines appear as they are added). `ranks(path, run_id)`,
`latency(path, run_id)` and `nodes(path, run_id)` give the per-rank rows, the latency histograms
and the per-node rows of one run.

The command: `iosweep-load FILE` prints every run; `--run ID` one; `--csv DIR` and `--json FILE`
export every table (iosweep_export).
"""
import sys

import iosweep_checks as checks
import iosweep_run
from iosweep_checks import stop

# pandas is imported where DataFrames are made: the command's checks and exports start without
# it.

NotAResultsFile = iosweep_run.ResultsError


def frames(runs):
    """(runs, summary) DataFrames of Runs (iosweep_run.Run): one row per run (its attributes,
    status_name, hosts and the run_index's n_points), one row per summary point (Run.frame)."""
    import pandas as pd

    rows = [
        {**r.attrs, "status_name": r.status_name, "hosts": r.hosts, "n_points": r.n_points}
        for r in runs
    ]
    return pd.DataFrame(rows), iosweep_run.summaries(runs)


def load(path):
    """Returns (runs, summary) DataFrames for every run in the file, every run read and checked
    by iosweep_run. Raises NotAResultsFile (one line naming the file and the run)."""
    return frames(iosweep_run.read_all(path))


def load_run(path, run_id=None):
    """(run, summary): the run `run_id` (the run appended last when None) as a row of load()'s
    runs, and its summary. Raises NotAResultsFile naming the file and the run."""
    runs, summary = frames([iosweep_run.read(path, run_id)])
    return runs.iloc[0], summary


def last_run_id(path):
    """The id of the run appended last to the file."""
    return iosweep_run.read(path, tables={}).id


def _table(path, run_id, name):
    import pandas as pd

    t = iosweep_run.read(path, run_id, tables={name: {}}).table(name)
    return pd.DataFrame({k: iosweep_run.column(t[k]) for k in t.dtype.names})


def ranks(path, run_id=None):
    return _table(path, run_id, "ranks")


def nodes(path, run_id=None):
    return _table(path, run_id, "nodes")


def timeseries(path, run_id=None):
    """The timeseries table as stored. In files of newer iosweep versions, rows with rank == -1
    are the merge of all ranks of a bin: sum bytes over rank >= 0 or rank == -1, never both
    (iosweep_timeseries.cluster_bins does)."""
    return _table(path, run_id, "timeseries")


def latency(path, run_id=None):
    """(bucket_lower_ns, bucket_upper_ns, counts[points, buckets]) as numpy arrays; None when the
    run has no usable latency group."""
    return iosweep_run.read(path, run_id).latency


def parser():
    ap = checks.Parser(
        prog="iosweep-load",
        description=(
            "Print the runs of an iosweep results file, or export every table as CSV files"
            " (--csv DIR) or one JSON file (--json FILE); scripts/iosweep_export.py describes"
            " the formats (units in column names, NaN as nan in CSV and null in JSON)."
        ),
    )
    ap.add_argument("results", help="iosweep HDF5 results file")
    ap.add_argument("--run", help="only this run (default: every run)")
    ap.add_argument("--csv", metavar="DIR", help="write one CSV file per table into DIR")
    ap.add_argument("--json", metavar="FILE", help="write every table into FILE (.json)")
    return ap


def main(argv=None):
    """The command; its status (see iosweep_checks.guard)."""
    return checks.guard(_main, argv)


def _main(argv):
    args = parser().parse_args(argv)
    import iosweep_export

    if args.csv is not None:
        checks.output_folder("--csv", args.csv)
    if args.json is not None:
        checks.output_file("--json", args.json, suffixes={"json"}, inputs=[args.results])
    if args.run is not None:
        checks.run_id("--run", args.run)
    try:  # every run read and checked whole before anything is printed or written
        checked = iosweep_run.read_all(args.results, None if args.run is None else [args.run])
    except iosweep_run.NoSuchRun as e:
        stop(f"--run: {e}")
    except iosweep_run.ResultsError as e:
        stop(str(e))
    if args.csv is not None or args.json is not None:
        if args.csv is not None:
            try:
                for path in iosweep_export.write_csv(checked, args.csv):
                    print(f"written: {path}")
            except OSError as e:
                stop(f"--csv: cannot write into {checks.shown(args.csv)}: {e.strerror or e}", 1)
        if args.json is not None:
            checks.write_output(
                "--json", args.json, iosweep_export.json_text(checked, args.results)
            )
            print(f"written: {args.json}")
        return 0
    runs, summary = frames(checked)
    import pandas as pd

    pd.set_option("display.width", 200)
    pd.set_option("display.max_columns", 20)
    for _, r in runs.iterrows():
        print(
            f"run {r['run_id']}  {r.get('status_name')}  {r.get('world_size')} ranks on "
            f"{r.get('n_nodes')} node(s)  engine {r.get('engine_name')}  label {r.get('label')!r}"
        )
        s = summary[summary["run_id"] == r["run_id"]] if len(summary) else summary
        if len(s):
            view = s[["phase_name", "ranks", "nodes", "repetition", "wall_s"]].copy()
            view["MiB/s"] = s["bandwidth_Bps"] / 2**20
            view["IOPS"] = s["iops"]
            view["p99_us"] = s["lat_p99_ns"] / 1e3
            print(view.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
