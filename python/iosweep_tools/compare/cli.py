"""iosweep-compare: an iosweep run beside IOzone, IOR and mdtest results, in one table; or one
iosweep run against another.

    scripts/iosweep-compare results/iosweep.h5 iozone-t*.txt ior-sweep.txt [--run ID]
        [--csv out.csv] [--loose]
    scripts/iosweep-compare A.h5[:RUN_ID] B.h5[:RUN_ID] [--fail-below R [--allow-partial]]
        [--csv out.csv] [--loose] [--resamples N] [--seed S]

Run against run (both arguments iosweep results files; a `:RUN_ID` suffix shaped
YYYYMMDDTHHMMSS.mmmZ-xxxxxxxx names the run, the latest otherwise): every (phase, point) both
runs measured with the same settings, B / A of the mean headline figure with a bootstrap 95%
interval over repetitions, and a verdict (faster, slower, within noise). Settings that differ
are listed and their rows not compared unless --loose. --fail-below R is a regression gate
(python/iosweep_tools/compare/runs.py says how the interval is made): it exits with 1 when a
compared row's whole interval lies below R, when no row was compared, and when the comparison
left out anything the runs hold (a row not compared, and why; a point only one run measured; a
run that is not complete), each named; --allow-partial passes on the rows compared alone.

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

mdtest (the mdtest of IOR's repository): its SUMMARY rate tables, with or without
--showRankStatistics, -P's time table left out, any number of iterations (their Mean), one table
per task count; a phase that did not run (0.000) gives no figure and "Directory ..." rows have
no iosweep phase. Tree creation, File creation, File stat, File read, File removal and Tree
removal are md-mkdir, md-create, md-stat, md-read, md-remove and md-rmdir; mdtest's tasks are
iosweep's streams (active ranks x depth), its items per task iosweep's md_items / streams. A
figure is set beside iosweep's wall (every rank's operations / the slowest rank's window, iops,
mdtest's rate), except Tree creation and removal, which count one tree's folders even when every
task made its own (-u): beside one_tree = iops / trees. The ratio is given only when the items
per task, the bytes written into each file (-w; and read, -e, for md-read), fsync (-y), the
layout (-u: a folder per task, iosweep's private; else one shared folder), the tree (-z, -b: for
md-mkdir and md-rmdir) and, for md-stat and md-read, the caches (mdtest never drops them; iosweep
does with --cache drop) agree, unless --loose. The metadata rows follow the data rows under a
head of their own.

IO500 (python/iosweep_tools/compare/io500.py): two IO500 results, each the io500
application's result folder, its result_summary.txt alone, or the results file of `iosweep
io500` (A.h5[:RUN_ID]: the run's result folder), phase by phase and score by score, B / A of
the figures each printed (GiB/s, kIOPS), [INVALID] marks named:

    scripts/iosweep-compare io500-app/results/2026.12.02-10.00.00 results.h5
"""
import math

from iosweep_tools.compare import io500, runs, runs_text, tools, tools_text
from iosweep_tools.compare.parsers import parse_any
from iosweep_tools.compare.record import ParseError
from iosweep_tools.core import command
from iosweep_tools.core.cmdline import doc_parser, number, split_run, value
from iosweep_tools.core.errors import Stop
from iosweep_tools.core.files import output_file, write_output
from iosweep_tools.results.file import NoSuchRun, ResultsError, looks_like_results
from iosweep_tools.results.reader import read

RUN_ONLY = ("--fail-below", "--allow-partial", "--resamples", "--seed")


def parser():
    ap = doc_parser(__doc__, skip=1, prog="iosweep-compare")
    ap.add_argument("results", help="iosweep HDF5 results file (A.h5[:RUN_ID] against B)")
    ap.add_argument(
        "outputs",
        nargs="*",
        help="IOzone, IOR or mdtest output files (recognised by content), or B.h5[:RUN_ID]",
    )
    ap.add_argument("--run", help="run id (default: the run appended last)")
    ap.add_argument(
        "--csv",
        help="also write the table to this CSV file (.csv; a text cell beginning with =, +, -, @"
        " or a quote gets a single quote before it, so that a spreadsheet keeps it text: the"
        " match column's = is written '=)",
    )
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
        "--allow-partial",
        action="store_const",
        const=True,
        help="with --fail-below: pass when no compared row lies below R although some rows, points"
        " or a whole run's end were left out (named all the same)",
    )
    ap.add_argument(
        "--resamples",
        metavar="N",
        help="run against run: bootstrap resamples (default 2000, 100 to 100000)",
    )
    ap.add_argument("--seed", metavar="S", help="run against run: the bootstrap's seed")
    return ap


def run_against_run(args):
    """True when both positional arguments are HDF5 files (with or without a :RUN_ID suffix),
    told by their first bytes alone: each is then read once, under one bounded wait for its
    lock, and refused in one line if it is not an iosweep results file (a file held by a stopped
    run is never taken for another tool's output)."""
    if len(args.outputs) != 1:
        return False
    return all(looks_like_results(split_run(a)[0]) for a in (args.results, args.outputs[0]))


def main(argv=None):
    """The command; its status (see core.command.guard)."""
    return command.guard(_main, argv)


def _main(argv):
    args = parser().parse_intermixed_args(argv)
    if any(io500.is_io500(p) for p in [args.results, *args.outputs]):
        return _io500(args)
    if run_against_run(args):
        return _runs(args)
    return _tools(args)


def _io500_side(arg, run_id):
    """An IO500 result (folder or result_summary.txt) as given, or an iosweep results file's
    IO500 run (A.h5[:RUN_ID], or --run) by the result folder it names."""
    if io500.is_io500(arg):
        return io500.parse(arg)
    path, rid = split_run(arg)
    if not looks_like_results(path):
        raise Stop(
            f"'{arg}': neither an IO500 result folder or result_summary.txt nor an"
            " iosweep results file"
        )
    run = _read(path, rid or run_id)
    return io500.parse(io500.folder_of_run(run))


def _io500(args):
    """Two IO500 results, phase by phase and score by score (compare.io500)."""
    for opt in RUN_ONLY:
        if getattr(args, opt[2:].replace("-", "_")) is not None:
            raise Stop(f"{opt}: not for IO500 results (one result each, no repetitions)")
    if len(args.outputs) != 1:
        raise Stop(
            "IO500 results are compared two at a time: iosweep-compare A B, each an IO500"
            " result folder, its result_summary.txt, or the results file of iosweep io500"
        )
    if args.csv:
        output_file("--csv", args.csv, suffixes={"csv"}, inputs=[args.results, *args.outputs])
    a = _io500_side(args.results, args.run)
    b = _io500_side(args.outputs[0], args.run)
    print(io500.text(a, b), end="")
    if args.csv:
        write_output("--csv", args.csv, io500.csv_text(a, b))
        print(f"written: {args.csv}")
    return 0


def _read(path, run_id, label=None):
    """The run, or Stop in one line (`--run: ...` for a run the file does not list)."""
    try:
        return read(path, run_id)
    except NoSuchRun as e:
        raise Stop(f"{label}: {e}" if label else f"--run: {e}") from None
    except ResultsError as e:
        raise Stop(f"{label}: {e}" if label else str(e)) from None


def _tools(args):
    """IOzone, IOR and mdtest outputs beside one run: the table (compare.tools), printed and
    --csv."""
    for opt in RUN_ONLY:
        if getattr(args, opt[2:].replace("-", "_")) is not None:
            raise Stop(f"{opt}: only when comparing two iosweep runs (A.h5[:RUN] B.h5[:RUN])")
    if args.csv:
        output_file("--csv", args.csv, suffixes={"csv"}, inputs=[args.results, *args.outputs])
    run = _read(args.results, args.run)
    results = []
    for path in args.outputs:
        try:
            results += parse_any(path)
        except ParseError as e:
            raise Stop(str(e)) from None
    phases = {name: v for v, name in run.phase_names.items()}
    table, sources = tools.compare(run.frame(), run.attrs, results, phases, loose=args.loose)
    print(tools_text.header_text(run.attrs, run.id, sources, args.loose), end="")
    print(tools_text.table_text(table), end="")
    if args.csv:
        write_output("--csv", args.csv, tools_text.csv_text(table))
        print(f"written: {args.csv}")
    return 0


def _runs(args):
    """One run against another (compare.runs): the text, the CSV and the gate. Exit status 0,
    or 1 when --fail-below R is given and the gate fails (runs_text.gate_text)."""
    if args.run is not None:
        raise Stop("--run: with two results files, name each run as FILE:RUN_ID")
    resamples, seed = runs.bootstrap_options(args.resamples, args.seed)
    gate = None
    if args.fail_below is not None:
        gate = value("--fail-below", args.fail_below, number(0, math.inf, above=True))
    elif args.allow_partial:
        raise Stop("--allow-partial: only with --fail-below (it says what the gate may pass)")
    (pa, ra), (pb, rb) = split_run(args.results), split_run(args.outputs[0])
    if args.csv:
        output_file("--csv", args.csv, suffixes={"csv"}, inputs=(pa, pb))
    a, b = _read(pa, ra, "A"), _read(pb, rb, "B")
    try:
        cmp = runs.compare(a, b, loose=args.loose, resamples=resamples, seed=seed)
    except ResultsError as e:
        raise Stop(str(e)) from None
    print(runs_text.comparison_text(cmp), end="")
    if args.csv:
        write_output("--csv", args.csv, runs_text.csv_text(cmp))
        print(f"written: {args.csv}")
    if gate is None:
        return 0
    text, failed = runs_text.gate_text(cmp, gate, allow_partial=bool(args.allow_partial))
    print(text, end="")
    return 1 if failed else 0
