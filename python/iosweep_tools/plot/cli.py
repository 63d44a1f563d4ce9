"""iosweep-plot: charts of a run in the style of the published studies.

    scripts/iosweep-plot results/iosweep.h5 [iozone.txt ior.txt mdtest.txt ...] [--run ID]
                         [-o run.png] [--baselines] [--controls]

Left: bandwidth (MiB/s, 2^20 bytes/s) of seq-write, seq-read, filter-count and any other phase
that is neither random nor metadata, against active ranks; middle: IOPS of the random phases,
rand-write and rand-read; right, for a run with metadata rows: the metadata phases (md-mkdir ..
md-rmdir) in operations per second on a log10 axis, against streams (active ranks x depth,
mdtest's tasks). The phases are those of the results file's phase enum. The x axis is log2 (1,
2, 4 ... ranks or threads); for a run of --streams it is the streams (active ranks x depth), set
beside the other tools' threads, and the axis says so. Each panel's title gives the record sizes
the run used. Under the panels, and printed, the Peak & Sustained table of the run: per phase
the best point and the largest point, each the mean of its repetitions (the console's table).

One line per iosweep phase: its wall figure (all bytes or operations / the slowest rank's time,
IOR's bandwidth, mdtest's rate). IOzone's "Children see" (stonewalled unless IOzone ran with
-x), IOR's mean and mdtest's mean rate are drawn over it as markers, one series per source and
setting, labelled ≠ where the settings differ from the run's (see iosweep-compare). Control
phases (scan_only, filter-count's baseline) are drawn only with --controls.

The published figures in results/baselines/*.csv (source, system, phase, threads, value, unit;
optionally record_bytes and file_bytes, the record size and the file per thread of the
published run) are drawn only where they were measured like the run: the record size the run
used for that phase, and the file per thread where the CSV states it. A figure whose record
size the CSV does not state is drawn only with --baselines, which draws every published figure
(labelled ≠ where it differs). Uses Debian's matplotlib.
"""
import os

from iosweep_tools.compare.parsers import parse_any
from iosweep_tools.compare.record import ParseError
from iosweep_tools.core import cmdline, command, files, install
from iosweep_tools.core.errors import Stop
from iosweep_tools.core.text import shown
from iosweep_tools.plot.baselines import MAX_CSV_BYTES, load_baselines
from iosweep_tools.plot.draw import draw, draw_latency_over_time
from iosweep_tools.results import reader
from iosweep_tools.results.file import NoSuchRun, ResultsError
from iosweep_tools.results.names import sweep_axis
from iosweep_tools.results.peaks import peak_sustained, peaks_text

MAX_OUTPUT_BYTES = 64 << 20  # an IOzone, IOR or mdtest output; IOzone's largest are a few MiB
WIDTH = (2.0, 40.0)  # inches, at 100 dpi: 200 to 4000 pixels
HEIGHT = (2.0, 40.0)


def parse_args(argv=None):
    ap = cmdline.doc_parser(__doc__, skip=1)
    ap.add_argument(
        "results", help="iosweep HDF5 results file (a regular file; the run is read and checked)"
    )
    ap.add_argument(
        "outputs",
        nargs="*",
        help=f"IOzone, IOR or mdtest outputs to draw beside the run (regular files of at most"
        f" {MAX_OUTPUT_BYTES >> 20} MiB each)",
    )
    ap.add_argument("--run", help="run id (default: the run appended last)")
    ap.add_argument(
        "-o",
        "--output",
        default="iosweep.png",
        help="image to write (default iosweep.png), its format from its extension: .png, .svg,"
        " .pdf, .eps, .ps, .svgz (.jpg, .tif, .webp with Pillow); its folder must exist and be"
        " writable; written whole or not at all",
    )
    ap.add_argument(
        "--baselines",
        action="store_true",
        help="draw every published figure, also those measured with other record or file sizes",
    )
    ap.add_argument(
        "--baselines-dir",
        default=str(install.baselines_dir()),
        help="an existing folder of published figures as CSV (*.csv, at most"
        f" {MAX_CSV_BYTES >> 20} MiB each; default results/baselines; '' for none)",
    )
    ap.add_argument("--controls", action="store_true", help="also draw control phases (scan_only)")
    ap.add_argument(
        "--latency-over-time",
        metavar="IMAGE",
        help="also draw latency p50/p99/max over time, all ranks merged, into IMAGE (written"
        " with --output's image, both or neither)",
    )
    ap.add_argument(
        "--width",
        type=cmdline.number(*WIDTH, "inches"),
        default=12.0,
        help=f"inches at 100 dpi, from {WIDTH[0]:g} to {WIDTH[1]:g} (default 12)",
    )
    ap.add_argument(
        "--height",
        type=cmdline.number(*HEIGHT, "inches"),
        default=5.0,
        help=f"inches at 100 dpi, from {HEIGHT[0]:g} to {HEIGHT[1]:g} (default 5)",
    )
    return _checked(ap.parse_args(argv))


def _checked(args):
    """Every argument, before anything is read at length or written."""
    if args.run is not None and not args.run:
        raise Stop("--run: is empty; expected a run id")
    if args.baselines_dir:
        if not os.path.isdir(args.baselines_dir):
            raise Stop(f"--baselines-dir: {shown(args.baselines_dir)} is not a folder")
    files.input_file("results", args.results, 1 << 40)
    for path in args.outputs:
        files.input_file("outputs", path, MAX_OUTPUT_BYTES)
    args.output = files.output_file(
        "--output", args.output, suffixes=files.plot_suffixes(), what="image"
    )
    if args.latency_over_time is not None:
        args.latency_over_time = files.output_file(
            "--latency-over-time",
            args.latency_over_time,
            suffixes=files.plot_suffixes(),
            what="image",
        )
        if args.latency_over_time == args.output:
            raise Stop("--latency-over-time: the same file as --output; name another")
    return args


def main(argv=None):
    """The command; its status (see core.command.guard)."""
    return command.guard(_main, argv)


def _read_run(args):
    """The run, checked: what the plot reads of the summary (ranks, streams, bandwidth_Bps,
    iops) every reader checks; the other tables only for --latency-over-time."""
    try:
        tables = None if args.latency_over_time else {}
        run = reader.read(args.results, args.run, tables=tables)
    except NoSuchRun as e:
        raise Stop(f"--run: {e}") from None
    except ResultsError as e:
        raise Stop(f"results: {e}") from None
    if not len(run.summary):
        raise Stop(f"results: '{args.results}': run {run.id} has no summary rows to draw")
    if sweep_axis(run.attrs) == "streams" and "streams" not in run.summary.dtype.names:
        raise Stop(f"results: {args.results}: run {run.id} swept streams but has no streams field")
    return run


def _others(paths):
    """The IOzone, IOR and mdtest Results of `paths`, without IOzone's parent figures."""
    others = []
    for path in paths:
        try:
            others += [r for r in parse_any(path) if r.kind != "parent"]
        except ParseError as e:
            raise Stop(str(e)) from None
        except (OSError, UnicodeError) as e:
            raise Stop(f"outputs: {shown(path)}: {e}") from None
    return others


def _main(argv=None):
    args = parse_args(argv)
    run = _read_run(args)
    others = _others(args.outputs)
    baselines = load_baselines(args.baselines_dir) if args.baselines_dir else []
    table = peaks_text(peak_sustained(run), run.axis())
    fig = draw(
        run.attrs,
        run.frame(),
        others,
        baselines,
        list(run.phase_names.values()),
        all_baselines=args.baselines,
        controls=args.controls,
        width=args.width,
        height=args.height,
        peaks=table,
    )
    lat = None
    if args.latency_over_time:
        lat = draw_latency_over_time(run, width=args.width)
        if lat is None:
            raise Stop("--latency-over-time: not recorded in this file (no timeseries latency)")
    with files.OutputSet() as out:  # both images, or neither
        out.stage("--output", args.output, files.figure_data(fig, args.output))
        if lat is not None:
            where = args.latency_over_time
            out.stage("--latency-over-time", where, files.figure_data(lat, where))
    print(table, end="")
    print(f"written: {args.output}")
    if lat is not None:
        print(f"written: {args.latency_over_time}")
    return 0
