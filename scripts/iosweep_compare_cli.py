"""iosweep-compare: an iosweep run beside IOzone and IOR results, in one table; or one iosweep
run against another.

    scripts/iosweep-compare results/iosweep.h5 iozone-t*.txt ior-sweep.txt [--run ID]
        [--csv out.csv] [--loose]
    scripts/iosweep-compare A.h5[:RUN_ID] B.h5[:RUN_ID] [--fail-below R] [--csv out.csv]
        [--loose] [--resamples N] [--seed S]

Run against run (both arguments iosweep results files; a `:RUN_ID` suffix shaped
YYYYMMDDTHHMMSS.mmmZ-xxxxxxxx names the run, the latest otherwise): every (phase, point) both
runs measured with the same settings, B / A of the mean headline figure with a bootstrap 95%
interval over repetitions, and a verdict (faster, slower, within noise). Settings that differ
are listed and their rows not compared unless --loose. --fail-below R exits with 1 when a
compared row's whole interval lies below R (0 otherwise): a regression gate
(scripts/iosweep_runcompare.py says how the interval is made).

Rows are matched by (phase, threads, record size): every source's figure for a phase and a
thread count is shown beside iosweep's with its record size, file size (the file one thread or
task works on) and O_DIRECT, and counts as the same measurement only when all three agree with
iosweep's (see below). iosweep's threads are its active ranks, or its streams (ranks x depth)
when the run used --streams; the header says which. IOzone's initial writers,
readers, random readers and random writers map to seq-write, seq-read, rand-read and rand-write;
IOR's access (write/read) and its ordering (random with -z) or, failing that, its transfer size
(64 KiB or less counts as random) decide the phase. Sequential figures are MiB/s (2^20 bytes/s;
IOzone's kB is 1024 bytes), random ones ops/s.

iosweep has three figures, each with the definition it shares with another tool:
  wall             all bytes / the slowest rank's time: IOR's bandwidth (bandwidth_Bps, iops)
  children         sum over ranks of each rank's bytes / its own time (children_Bps): IOzone's
                   "Children see" only when IOzone ran with -x (stonewalling off)
  iozone_children  sum over ranks of what each had moved when the first rank finished / that
                   time (iozone_children_Bps): IOzone's default, stonewalled "Children see"
An IOzone figure is set beside iosweep's iozone_children (or children, for an IOzone run with
-x), an IOR figure beside iosweep's wall. The ratio iosweep / source is given only when record
size, file size and O_DIRECT are the same on both sides (match "="); otherwise the row says
which differ (≠ record, file, O_DIRECT; a size a source does not state is "?" and counts as
different) and gives no ratio, unless --loose. Results of one source (same tool and settings)
that occur several times for one row (repetitions, several files) are averaged. Control phases
(scan_only) have no counterpart in other tools and are not compared.
"""
import csv
import io
import sys

from iosweep_tools.core import cmdline, command, files
from iosweep_tools.results import reader
from iosweep_tools.core.errors import Stop
from iosweep_tools.core.text import size_text
from iosweep_tools.results.file import NoSuchRun, ResultsError, is_results
from iosweep_tools.results.names import sweep_axis
import iosweep_compare as ic
import iosweep_runcompare_cli

SETTINGS = ("record_bytes", "file_bytes", "direct", "stonewall", "shared")
CSV_KEYS = [
    "phase",
    "threads",
    "unit",
    "iosweep_wall",
    "iosweep_children",
    "iosweep_iozone_children",
    "iosweep_record_bytes",
    "iosweep_file_bytes",
    "iosweep_direct",
    "source",
    "source_files",
    "source_figure",
    "source_value",
    "source_record_bytes",
    "source_file_bytes",
    "source_direct",
    "compared_with",
    "match",
    "ratio",
]


def fmt(v, digits=1):
    return "-" if v is None else f"{v:.{digits}f}"


def yes_no(v):
    return "?" if v is None else ("yes" if v else "no")


RUN_ONLY = ("--fail-below", "--resamples", "--seed")


def parser():
    ap = cmdline.doc_parser(__doc__, skip=1, prog="iosweep-compare")
    ap.add_argument("results", help="iosweep HDF5 results file (A.h5[:RUN_ID] against B)")
    ap.add_argument(
        "outputs",
        nargs="*",
        help="IOzone or IOR output files (recognised by content), or B.h5[:RUN_ID]",
    )
    ap.add_argument("--run", help="run id (default: the run appended last)")
    ap.add_argument("--csv", help="also write the table to this CSV file (.csv)")
    ap.add_argument(
        "--loose",
        action="store_true",
        help=(
            "give the ratio even where record size, file size or O_DIRECT differ or are not"
            " stated (run against run: compare rows whose settings differ)"
        ),
    )
    ap.add_argument(
        "--fail-below",
        metavar="R",
        help="run against run: exit with 1 when a compared row's 95%% interval lies below R",
    )
    ap.add_argument(
        "--resamples",
        metavar="N",
        help="run against run: bootstrap resamples (default 2000, 100 to 100000)",
    )
    ap.add_argument("--seed", metavar="S", help="run against run: the bootstrap's seed")
    return ap


def run_against_run(args):
    """True when both positional arguments are iosweep results files (with or without a
    :RUN_ID suffix)."""
    if len(args.outputs) != 1:
        return False
    return all(is_results(cmdline.split_run(a)[0]) for a in (args.results, args.outputs[0]))


def main(argv=None):
    """The command; its status (see iosweep_checks.guard)."""
    return command.guard(_main, argv)


def _main(argv):
    args = parser().parse_intermixed_args(argv)
    if run_against_run(args):
        return iosweep_runcompare_cli.main(args)
    for opt in RUN_ONLY:
        if getattr(args, opt[2:].replace("-", "_")) is not None:
            raise Stop(f"{opt}: only when comparing two iosweep runs (A.h5[:RUN] B.h5[:RUN])")
    if args.csv:
        files.output_file("--csv", args.csv, suffixes={"csv"}, inputs=[args.results, *args.outputs])
    try:
        read = reader.read(args.results, args.run)
    except NoSuchRun as e:
        raise Stop(f"--run: {e}")
    except ResultsError as e:
        raise Stop(str(e))
    run, summary = read.attrs, read.frame()
    run_id = read.id
    results = []
    for path in args.outputs:
        try:
            results += ic.parse_any(path)
        except ic.ParseError as e:
            raise Stop(str(e))
    phases = {name: v for v, name in read.phase_names.items()}
    table, sources = ic.compare(summary, run, results, phases, loose=args.loose)

    shared = str(run.get("file_layout")) == "shared"
    layout = "region of one shared file" if shared else "file"
    print(
        f"iosweep run {run_id} ({run.get('label') or 'no label'}): {run['world_size']} ranks,"
        f" engine {run['engine_name']}; per rank a"
        f" {size_text(run.get('file_size_bytes'))} {layout};"
        f" records: seq {size_text(run.get('seq_record_bytes'))}, rand"
        f" {size_text(run.get('rand_record_bytes'))}; O_DIRECT"
        f" {yes_no(None if run.get('direct') is None else bool(int(run['direct'])))}"
    )
    if sweep_axis(run) == "streams":
        print(
            "threads: iosweep's streams (active ranks x depth per rank, --streams) beside IOzone's"
            " threads and IOR's tasks"
        )
    else:
        print("threads: iosweep's active ranks beside IOzone's threads and IOR's tasks")
    for s in sources:
        tool = "IOzone" if s["tool"] == "iozone" else "IOR"
        print(
            f"[{s['id']}] {tool}:"
            f" {ic.settings_text(*(s[k] for k in SETTINGS))}:"
            f" {', '.join(s['files'])}"
        )
    print("iosweep figures:")
    for k, v in ic.FIGURES.items():
        print(f"  {k:15} {v}")
    where = (
        " (--loose: also where the settings differ)"
        if args.loose
        else ", only where the settings match (=)"
    )
    print(f"ratio = iosweep's figure of the same definition / the source's{where}")
    print()
    head = (
        f"{'phase':12} {'threads':>7} {'unit':6} {'wall':>10} {'children':>10} {'iozone_ch':>10} "
        f"{'record':>8} {'file':>8} {'direct':>6}   {'source':9} {'figure':28} {'value':>10} "
        f"{'record':>8} {'file':>8} {'direct':>6}  {'vs':15} {'match':22} {'ratio':>6}"
    )
    print(head)
    for r in table:
        line = (
            f"{r['phase']:12} {r['threads']:7d} {r['unit']:6} {fmt(r['iosweep_wall']):>10} "
            f"{fmt(r['iosweep_children']):>10} {fmt(r['iosweep_iozone_children']):>10} "
        )
        if r["iosweep_wall"] is None and r["iosweep_record_bytes"] is None:
            line += f"{'':>8} {'':>8} {'':>6}   "
        else:
            line += (
                f"{size_text(r['iosweep_record_bytes']):>8} "
                f"{size_text(r['iosweep_file_bytes']):>8} "
                f"{yes_no(r['iosweep_direct']):>6}   "
            )
        if r["source"] is not None:
            figure = r["source_figure"].removeprefix("IOzone ").removeprefix("IOR ")
            line += (
                f"{r['source']:9} {figure:28} {fmt(r['source_value']):>10} "
                f"{size_text(r['source_record_bytes']):>8} {size_text(r['source_file_bytes']):>8} "
                f"{yes_no(r['source_direct']):>6}  {r['compared_with']:15} {r['match'] or '-':22} "
                f"{fmt(r['ratio'], 3):>6}"
            )
        print(line.rstrip())
    if args.csv:
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=CSV_KEYS, extrasaction="ignore")
        w.writeheader()
        for r in table:
            w.writerow({k: "" if r[k] is None else r[k] for k in CSV_KEYS})
        files.write_output("--csv", args.csv, buf.getvalue())
        print(f"written: {args.csv}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
