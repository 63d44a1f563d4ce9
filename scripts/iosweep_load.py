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

import numpy as np

import iosweep_cli as cli
import iosweep_common as common

# pandas is imported where DataFrames are made: the command's checks and exports start without
# it.

# The one way every script opens a results file and picks a run (iosweep_common).
NotAResultsFile = common.ResultsError


def _open(path):
    return common.open_results(path)


def _attrs(group):
    out = {}
    for k, v in group.attrs.items():
        if isinstance(v, bytes):
            v = common.text(v)
        elif isinstance(v, np.ndarray):
            v = v.tolist()
        elif isinstance(v, np.generic):
            v = v.item()
        out[k] = v
    return out


def _table(ds):
    import pandas as pd

    df = pd.DataFrame.from_records(ds[()])
    for col in df.columns:
        if df[col].dtype == object:
            df[col] = df[col].map(common.text)
    return df


def load(path):
    """Returns (runs, summary) DataFrames for every run in the file. Raises NotAResultsFile (one
    line naming the file) for a file whose runs cannot be read."""
    try:
        return _load(path)
    except (KeyError, ValueError, TypeError, IndexError, OSError, AttributeError) as e:
        raise NotAResultsFile(
            f"'{path}' cannot be read as iosweep results ({type(e).__name__}: {e})"
        ) from None


def _decode(members, values, what, path, run_id):
    out = []
    for i, v in enumerate(values):
        if int(v) not in members:
            raise NotAResultsFile(
                f"'{path}' run {run_id}: summary row {i}: {what} value {int(v)} is not in the"
                f" file's {what} enum"
            )
        out.append(members[int(v)])
    return out


def _load(path):
    import pandas as pd

    with _open(path) as f:
        index = _table(f["run_index"]) if "run_index" in f else pd.DataFrame()
        run_rows, frames = [], []
        for run_id, g in f["runs"].items():
            attrs = _attrs(g)
            attrs["run_id"] = run_id
            attrs["status_name"] = common.status_of(g)
            attrs["hosts"] = [common.text(h) for h in g["hosts"][()]]
            run_rows.append(attrs)
            s = _table(g["summary"])
            if len(s):
                s.insert(0, "run_id", run_id)
                phase_of = common.by_value(common.phases(g))
                engine_of = common.by_value(common.engines(g))
                s.insert(2, "phase_name", _decode(phase_of, s["phase"], "phase", path, run_id))
                s["engine_name"] = _decode(engine_of, s["engine"], "engine", path, run_id)
                for k in (
                    "label",
                    "file_size_bytes",
                    "seq_record_bytes",
                    "rand_record_bytes",
                    "scan_record_bytes",
                    "direct",
                    "iodepth",
                    "fs_type",
                    "world_size",
                    "n_nodes",
                    "status_name",
                ):
                    if k not in s.columns:  # a row's own figure (iodepth per point) stays
                        s[k] = attrs.get(k)
                # The record size each row's phase used (seq, rand or scan record).
                s["record_bytes"] = [common.record_bytes(attrs, p) for p in s["phase_name"]]
                frames.append(s)
        runs = pd.DataFrame(run_rows)
        if len(index) and len(runs):
            runs = runs.merge(index[["run_id", "n_points"]], on="run_id", how="left")
        summary = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
        return runs, summary


def load_run(path, run_id=None):
    """(run, summary): the run `run_id` (the run appended last when None) as a row of load()'s
    runs, and the summary of every run in the file. Raises NotAResultsFile naming the file and
    the run."""
    with _open(path) as f:
        run_id = common.pick_run(f, run_id)[0]
    runs, summary = load(path)
    return runs[runs["run_id"] == run_id].iloc[0], summary


def last_run_id(path):
    """The id of the run appended last to the file."""
    with _open(path) as f:
        return common.pick_run(f)[0]


def _run_group(f, run_id):
    return common.pick_run(f, run_id)[1]


def ranks(path, run_id=None):
    with _open(path) as f:
        return _table(_run_group(f, run_id)["ranks"])


def nodes(path, run_id=None):
    with _open(path) as f:
        return _table(_run_group(f, run_id)["nodes"])


def timeseries(path, run_id=None):
    """The timeseries table as stored. In files of newer iosweep versions, rows with rank == -1
    are the merge of all ranks of a bin: sum bytes over rank >= 0 or rank == -1, never both
    (iosweep_timeseries.cluster_bins does)."""
    with _open(path) as f:
        return _table(_run_group(f, run_id)["timeseries"])


def latency(path, run_id=None):
    """(bucket_lower_ns, bucket_upper_ns, counts[points, buckets]) as numpy arrays."""
    with _open(path) as f:
        g = _run_group(f, run_id)["latency"]
        return g["bucket_lower_ns"][()], g["bucket_upper_ns"][()], g["counts"][()]


def parser():
    ap = cli.one_line_parser(
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


def main(argv):
    args = parser().parse_args(argv[1:])
    import iosweep_export
    import iosweep_run

    if args.csv is not None:
        why = iosweep_export.check_folder(args.csv)
        if why:
            common.fail(f"--csv: {why}")
    if args.json is not None:
        why = cli.output_problem(args.json, exts=(".json",), inputs=[args.results])
        if why:
            common.fail(f"--json: {why}")
    if args.run is not None and not cli.RUN_ID_SHAPE.fullmatch(args.run):
        common.fail(
            f"--run: '{args.run}' is not shaped like a run id (YYYYMMDDTHHMMSS.mmmZ-xxxxxxxx)"
        )
    try:  # every run read and checked whole before anything is printed or written
        checked = iosweep_run.read_all(args.results, None if args.run is None else [args.run])
    except common.NoSuchRun as e:
        common.fail(f"--run: {e}")
    except common.ResultsError as e:
        common.fail(str(e))
    if args.csv is not None or args.json is not None:
        runs = checked
        try:
            if args.csv is not None:
                for path in iosweep_export.write_csv(runs, args.csv):
                    print(f"written: {path}")
            if args.json is not None:
                print(f"written: {iosweep_export.write_json(runs, args.json, args.results)}")
        except OSError as e:
            common.fail(f"{'--csv' if args.json is None else '--json'}: {e.strerror}")
        return 0
    try:
        runs, summary = load(args.results)
    except NotAResultsFile as e:
        common.fail(str(e))
    runs = runs[runs["run_id"].isin([r.id for r in checked])]
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
    sys.exit(main(sys.argv))
