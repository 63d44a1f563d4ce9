"""iosweep-load: print the runs of an iosweep results file, or export its tables.

    scripts/iosweep-load FILE                    # every run: its description and summary rows
    scripts/iosweep-load FILE --run ID           # one
    scripts/iosweep-load FILE --csv DIR --json FILE   # every table (results.export)
    scripts/iosweep-load FILE --run ID --json -       # the same JSON on standard output

The same from Python, as DataFrames: results.frames.
"""
import sys

from iosweep_tools.core import cmdline, command, files
from iosweep_tools.core.errors import Stop
from iosweep_tools.core.text import one_line
from iosweep_tools.results import drive_view, export, frames
from iosweep_tools.results.file import NoSuchRun, ResultsError

# pandas is imported where DataFrames are made: the command's checks and exports start without
# it.

STDOUT = "-"  # --json -: the document on standard output


def parser():
    ap = cmdline.Parser(
        prog="iosweep-load",
        description=(
            "Print the runs of an iosweep results file, or export every table as CSV files"
            " (--csv DIR) or one JSON file (--json FILE); python/iosweep_tools/results/export.py"
            " describes the formats (units in column names, NaN as nan in CSV and null in JSON,"
            " text a spreadsheet would take for a formula after a single quote); --json - writes"
            " the JSON document to standard output (for a dashboard). Every file is"
            " written, or none. DIR holds the tables and a manifest, .iosweep-export; an earlier"
            " export there is replaced whole (its tables the new one lacks removed), and a file"
            " with a table's name that no export wrote, or that changed since, stops the export"
            " before anything is written; other files in DIR are left alone."
        ),
    )
    ap.add_argument("results", help="iosweep HDF5 results file")
    ap.add_argument("--run", help="only this run (default: every run)")
    ap.add_argument("--csv", metavar="DIR", help="write one CSV file per table into DIR")
    ap.add_argument(
        "--json",
        metavar="FILE",
        help="write every table into FILE (.json), or to standard output with -",
    )
    return ap


def main(argv=None):
    """The command; its status (see core.command.guard)."""
    return command.guard(_main, argv)


def _main(argv):
    args = parser().parse_args(argv)
    if args.csv is not None:
        files.output_folder("--csv", args.csv)
        export.earlier_export("--csv", args.csv)  # nothing there that is not an export's
    if args.json is not None and args.json != STDOUT:
        files.output_file("--json", args.json, suffixes={"json"}, inputs=[args.results])
    if args.run is not None:
        cmdline.run_id("--run", args.run)
    try:  # every run read and checked whole before anything is printed or written
        checked = frames.read_all(args.results, None if args.run is None else [args.run])
    except NoSuchRun as e:
        raise Stop(f"--run: {e}") from None
    except ResultsError as e:
        raise Stop(str(e)) from None
    if args.csv is not None or args.json is not None:
        for run in checked:  # an export holds every table whole, or is not written
            for name, why in run.problems.items():
                raise Stop(f"'{args.results}' run {run.id}: {name} {why}; nothing exported")
        _export(args, checked)
    else:
        _print_runs(checked)
    return 0


def _export(args, checked):
    """The CSV files and the JSON file as one set: every file written, or none. With --json -
    the document goes to standard output once the files are in place, and the lines naming
    the files to standard error, so that standard output holds the JSON alone."""
    written = []
    to_stdout = args.json == STDOUT
    with files.OutputSet() as out:
        if args.csv is not None:
            written += export.write_csv(checked, args.csv, out, args.results)
        if args.json is not None and not to_stdout:
            out.stage("--json", args.json, export.json_text(checked, args.results))
            written.append(args.json)
    for path in written:
        print(f"written: {path}", file=sys.stderr if to_stdout else sys.stdout)
    if to_stdout:
        sys.stdout.write(export.json_text(checked, args.results))
        sys.stdout.flush()


def _print_runs(checked):
    """Each run's line, where it put its files when it had several folders or drives, and its
    summary rows (MiB/s, IOPS, p99 in µs; with several drives the slowest drive's MiB/s; in
    newer files the ranks' CPU per operation, user + system, and their mean busy fraction)."""
    import pandas as pd

    runs, summary = frames.frames(checked)
    pd.set_option("display.width", 200)
    pd.set_option("display.max_columns", 20)
    for run, (_, r) in zip(checked, runs.iterrows()):
        print(
            f"run {r['run_id']}  {r.get('status_name')}  {r.get('world_size')} ranks on "
            f"{r.get('n_nodes')} node(s)  engine {r.get('engine_name')}  label {r.get('label')!r}"
        )
        layout = drive_view.layout_text(run)
        if layout:
            print(f"  {one_line(layout)}")
        s = summary[summary["run_id"] == r["run_id"]] if len(summary) else summary
        if len(s):
            columns = ["phase_name", "ranks", "nodes", "repetition", "wall_s"]
            if len(run.steps) > 1:  # a stepped run: every row names its step
                columns.insert(0, "step_name")
            view = s[columns].copy()
            view["MiB/s"] = s["bandwidth_Bps"] / 2**20
            view["IOPS"] = s["iops"]
            view["p99_us"] = s["lat_p99_ns"] / 1e3
            if "drives" in s and s["drives"].max() > 1:
                view["drives"] = s["drives"]
                view["slowest_drive_MiB/s"] = s["drive_bw_min_Bps"] / 2**20
            if "busy_fraction_mean" in s:  # newer files: the CPU the ranks spent in the window
                view["cpu_ns/op"] = s["cpu_user_ns_per_op"] + s["cpu_sys_ns_per_op"]
                view["busy"] = s["busy_fraction_mean"]
            print(view.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
        print()
