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
import datetime
import sys

from iosweep_tools.core import cmdline, command, files
from iosweep_tools.results import reader
from iosweep_tools.core.errors import Stop
from iosweep_tools.results.file import NoSuchRun, ResultsError
from iosweep_tools.compare import parsers, tools
from iosweep_tools.compare import runs as rc
from iosweep_tools.compare.record import ParseError
import iosweep_report_compare as rcmp
import iosweep_report_html as h
import iosweep_report_latency as lat
import iosweep_report_overview as ov
import iosweep_report_sections as sec

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
        help="an IOzone or IOR output to draw on the sweep curves (repeatable)",
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
    return rc.bootstrap_options(args.resamples, args.seed)


def read_baselines(paths):
    """[(source, [Result])] in order of first appearance (iosweep_compare.sources)."""
    results = []
    for path in paths:
        try:
            results += [r for r in parsers.parse_any(path) if r.kind != "parent"]
        except ParseError as e:
            raise Stop(f"--baseline: {e}")
    out = []
    for src in tools.sources(results):
        key = (src["tool"], src["record_bytes"], src["file_bytes"], src["direct"])
        key += (src["stonewall"], src["shared"])
        out.append((src, [r for r in results if tools.source_key(r) == key]))
    return out


def definitions():
    return h.section(
        "definitions",
        "What the figures mean",
        "<ul>"
        "<li><b>Window.</b> Each rank times open, I/O, fsync (for the phases --fsync names) and"
        " close from its exit of the active ranks' barrier. wall_s is the slowest rank's time;"
        " bandwidth_Bps = all bytes / wall_s, iops = all operations / wall_s (IOR's figures)."
        "</li><li><b>Units.</b> Stored figures are bytes, bytes/s, ops/s, s and ns; a column"
        " header names the unit shown: MiB/s = bytes/s / 2^20, µs = ns / 1000, GB = 10^9"
        " bytes in the final math as the console prints it.</li>"
        "<li><b>Derived figures</b> (means over repetitions, medians over ranks, sums over time"
        " bins, ratios) are marked data-derived in the page with how they were made.</li>"
        "<li><b>Where bytes came from.</b> device_fraction: the block device's own counters"
        " around the phase over the phase's bytes; cached_fraction: page-cache residency before"
        " a read; unflushed_fraction: dirty pages after a write without fsync or O_DIRECT; NaN:"
        " not measured.</li>"
        "<li><b>Run against run.</b> B / A of the mean headline figure, with a bootstrap 95%"
        " interval over repetitions; rows whose settings differ are not compared.</li></ul>"
        "<p class=note>Schema: results/README.md. Every table can be exported with"
        " scripts/iosweep-load FILE --csv DIR or --json FILE.</p>",
    )


def per_run(sid, title, runs, fn, *extra):
    body = ""
    for r in runs:
        if len(runs) > 1:
            body += f"<h3>{h.escape(ov.run_name(r))}</h3>"
        body += fn(r, *extra)
    return h.section(sid, title, body)


def build(runs, baselines, cmps):
    names = []
    for r in runs:
        names += [n for n in r.phase_names.values() if n not in names]
    title = "iosweep report: " + ", ".join(ov.run_name(r) for r in runs)
    parts = [
        ("runs", "Runs", ov.glance(runs)),
        ("sweep", "Sweep curves", ov.sweep(runs, baselines, names)),
        ("comparison", "Run against run", rcmp.comparison(cmps)),
        ("what-ran", "What ran", ov.what_ran(runs)),
        ("placement", "Placement", ov.placement(runs)),
        ("filesystem", "File system", ov.filesystem(runs)),
        ("latency", "Latency", per_run("latency", "Latency", runs, lat.latency, names)),
        (
            "over-time",
            "Over time",
            per_run("over-time", "Throughput and latency over time", runs, lat.over_time, names),
        ),
        (
            "stragglers",
            "Stragglers",
            per_run("stragglers", "Stragglers: who set wall_s", runs, sec.stragglers),
        ),
        (
            "provenance",
            "Where the bytes came from",
            per_run("provenance", "Where the bytes came from", runs, sec.provenance),
        ),
        (
            "final-math",
            "Final math",
            per_run("final-math", "filter-count's final math", runs, sec.final_math),
        ),
        ("baselines", "Baselines", rcmp.baselines_section(runs, baselines)),
        ("definitions", "Definitions", definitions()),
    ]
    parts = [p for p in parts if p[2]]
    made = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    head = h.p(
        f"From {h.escape(runs[0].path)}, made {made} by scripts/iosweep-report. Runs: "
        + ", ".join(f"{h.escape(r.id)} ({h.escape(r.status_name)})" for r in runs)
        + "."
    )
    return h.page(title, [(sid, name) for sid, name, _ in parts], [head] + [p[2] for p in parts])


def main(argv=None):
    """The command; its status (see iosweep_checks.guard)."""
    return command.guard(_main, argv)


def _main(argv):
    args = parser().parse_intermixed_args(argv)
    resamples, seed = check(args)
    baselines = read_baselines(args.baseline)
    runs = []
    try:
        for rid in args.run_ids or [None]:
            runs.append(reader.read(args.results, rid))
    except NoSuchRun as e:
        raise Stop(f"RUN_ID: {e}")
    except ResultsError as e:
        raise Stop(str(e))
    cmps = []
    try:
        for b in runs[1:]:
            cmps.append(rc.compare(runs[0], b, loose=args.loose, resamples=resamples, seed=seed))
    except ResultsError as e:
        raise Stop(str(e))
    page = build(runs, baselines, cmps)
    files.write_output("--output", args.output, page)
    print(f"written: {args.output} ({len(page)} bytes, {len(runs)} run(s))")
    return 0


if __name__ == "__main__":
    sys.exit(main())
