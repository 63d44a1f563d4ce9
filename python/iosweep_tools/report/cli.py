"""iosweep-report: one self-contained HTML page of one run, or of several runs side by side.

    scripts/iosweep-report results/iosweep.h5 [RUN_ID ...] -o report.html
        [--baseline iozone.txt --baseline ior.txt] [--loose] [--resamples N] [--seed S]

The page holds everything it shows: styles inline, charts as inline SVG, no script, nothing
fetched (a Content-Security-Policy forbids it), so it reads offline and can be attached to a
ticket. Without RUN_ID the file's latest run; with several, the first is A and every other one
is compared against it as `iosweep-compare A.h5:RUN B.h5:RUN` does. Sections: what ran
(command line, configuration, versions, date, hosts), placement of ranks on nodes, the file
system, run against run, sweep curves with every repetition and the baselines, latency
(percentiles per point, merged histograms), throughput and latency over time, stragglers, where
the bytes came from, filter-count's final math, the baselines, and what the figures mean.

Every number in a table is a stored figure: its cell carries data-run, data-table, data-row,
data-field and data-value (the exact stored value); a derived figure says how it was derived
(data-derived) and in which unit.
"""
from iosweep_tools.compare import runs
from iosweep_tools.core import cmdline, command, files
from iosweep_tools.core.errors import Stop
from iosweep_tools.report import page
from iosweep_tools.results import reader
from iosweep_tools.results.file import NoSuchRun, ResultsError

MAX_RUNS = 8
MAX_BASELINES = 32


def parser():
    ap = cmdline.doc_parser(__doc__, skip=1, prog="iosweep-report")
    ap.add_argument("results", help="iosweep HDF5 results file")
    ap.add_argument("run_ids", nargs="*", metavar="RUN_ID", help="runs (default: the latest)")
    ap.add_argument("-o", "--output", required=True, help="the page to write (.html)")
    ap.add_argument(
        "--baseline",
        action="append",
        default=[],
        metavar="FILE",
        help="an IOzone or IOR output to draw on the sweep curves, or the io500 application's"
        " result folder to set beside an iosweep io500 run (repeatable)",
    )
    ap.add_argument("--loose", action="store_true", help="compare runs whose settings differ")
    ap.add_argument("--resamples", help="bootstrap resamples for run against run (default 2000)")
    ap.add_argument("--seed", help="the bootstrap's seed")
    return ap


def check(args):
    """Every argument, before anything is read at length or written."""
    inputs = [args.results, *args.baseline]
    files.output_file("--output", args.output, suffixes={"html", "htm"}, inputs=inputs)
    if len(args.run_ids) > MAX_RUNS:
        raise Stop(f"RUN_ID: at most {MAX_RUNS} runs on one page (given {len(args.run_ids)})")
    if len(set(args.run_ids)) != len(args.run_ids):
        raise Stop("RUN_ID: a run is named twice")
    for r in args.run_ids:
        cmdline.run_id("RUN_ID", r)
    if len(args.baseline) > MAX_BASELINES:
        raise Stop(f"--baseline: at most {MAX_BASELINES} files")
    return runs.bootstrap_options(args.resamples, args.seed)


def main(argv=None):
    """The command; its status (see core.command.guard)."""
    return command.guard(_main, argv)


def _main(argv):
    args = parser().parse_intermixed_args(argv)
    resamples, seed = check(args)
    baselines = page.read_baselines(args.baseline)
    io500_baselines = page.read_io500_baselines(args.baseline)
    read = []
    try:
        for rid in args.run_ids or [None]:
            read.append(reader.read(args.results, rid))
    except NoSuchRun as e:
        raise Stop(f"RUN_ID: {e}") from None
    except ResultsError as e:
        raise Stop(str(e)) from None
    cmps = []
    try:
        for b in read[1:]:
            cmps.append(runs.compare(read[0], b, loose=args.loose, resamples=resamples, seed=seed))
    except ResultsError as e:
        raise Stop(str(e)) from None
    html = page.build(read, baselines, cmps, io500_baselines)
    files.write_output("--output", args.output, html)
    print(f"written: {args.output} ({len(html)} bytes, {len(read)} run(s))")
    return 0
