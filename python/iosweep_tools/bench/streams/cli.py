"""streams-curve: the 4 KiB random-read curve from 1 to MAX streams made two ways on this
machine, side by side, with the CPU time each point needed.

  ranks alone      one stream per rank, as IOzone's threads: mpirun -np R (R as far as memory
                   allows, --ranks-max), iosweep --streams 1:R, every point at depth 1
  2 ranks x depth  mpirun -np 2, iosweep --streams 1:MAX: 1 and 2 streams as ranks, then the two
                   ranks at depth 2, 4 ... MAX/2

Both runs use the same engine (--engine, io_uring by default), 4 KiB records, O_DIRECT (unless
--no-direct) and rand-read only, each rank reading its own file (written untimed first); every
point runs --seconds (iosweep's --stonewall) so that points of any size take the same time, unless
its ranks read every record of their files first (the table's `window s` says how long it ran).
CPU time is getrusage per rank over each timed window (user + system, all threads), summed over
the ranks of the point (the summary's cpu_s): per point and per operation.

    scripts/streams-curve --dir /var/tmp/curve --size 1g --max 1024 --seconds 5 -o curve.png

The table is Markdown (for docs/performance.md); -o also draws IOPS and CPU per operation
against streams (log2). The results are appended to --output (default: a file in a temporary
folder, removed with the run's files at the end). Figures are printed with at least two
significant digits (a window of 4 ms is 0.0040, never 0.00).

Every argument is checked before anything is made (one line, status 2): sizes by iosweep's own
parser (multiples of 4 KiB, at most 1 TiB per rank, the files within --dir's free space), the
bounds --help gives, --output (an iosweep results file or a new one) and -o (a folder that
exists, an image format matplotlib writes). Each job is stopped when it runs far past what it
was asked for (core.children.job_timeout); Ctrl-C stops both and removes the run's folder.
"""
import argparse
import os
import shutil
import sys
import tempfile

from iosweep_tools.bench.harness import written_ids, written_run
from iosweep_tools.bench.streams.curves import (
    CURVES,
    ENGINES,
    MAX_RANKS,
    MAX_REPETITIONS,
    MAX_SECONDS,
    MAX_SIZE,
    MAX_STREAMS,
    SUMMARY,
    curves,
    draw,
    markdown,
    ranks_max,
    run_curve,
    summary_text,
)
from iosweep_tools.core import cmdline, command, files, install, units
from iosweep_tools.core.errors import Stop
from iosweep_tools.results import frames
from iosweep_tools.results.file import ResultsError


def parse_args(argv):
    ap = cmdline.doc_parser(__doc__)
    _where_and_how_many(ap)
    _how(ap)
    return _checked(ap.parse_args(argv))


def _where_and_how_many(ap):
    """The options of the files and the points: --dir, the sizes, --max, the ranks."""
    ap.add_argument(
        "--dir",
        help="folder on the storage to measure, where a folder of the run's own is made and"
        " removed at the end (default /var/tmp)",
    )
    ap.add_argument(
        "--size",
        default="256m",
        help="file per rank (default 256m; a multiple of 4 KiB, at most 1 TiB)",
    )
    ap.add_argument(
        "--alone-size",
        help=(
            "file per rank of the ranks-alone curve (default --size): many ranks "
            "need smaller files, few ranks at a high depth larger ones to fill --seconds"
        ),
    )
    ap.add_argument(
        "--max",
        type=cmdline.count(2, MAX_STREAMS),
        default=1024,
        help=f"most streams, a power of two from 2 to {MAX_STREAMS} (default 1024)",
    )
    ap.add_argument(
        "--ranks-max",
        type=cmdline.count(0, MAX_RANKS),
        default=0,
        help=(
            f"most ranks of the ranks-alone curve, at most {MAX_RANKS} and what MemAvailable"
            " holds at --rank-mib each (default 0: what half of MemAvailable holds, as a power"
            " of two up to --max)"
        ),
    )
    ap.add_argument(
        "--rank-mib",
        type=cmdline.count(1, 4096),
        default=32,
        help="memory one rank takes, MiB, 1 to 4096 (default 32)",
    )


def _how(ap):
    """The options of every point and of the outputs: time, repetitions, engine, O_DIRECT, the
    results file, the image, the binary."""
    ap.add_argument(
        "--seconds",
        type=cmdline.number(0.01, MAX_SECONDS, "s"),
        default=5.0,
        help=f"time per point (--stonewall), 0.01 to {MAX_SECONDS:g} s (default 5)",
    )
    ap.add_argument(
        "--repetitions",
        type=cmdline.count(1, MAX_REPETITIONS),
        default=1,
        help=f"repetitions per point, 1 to {MAX_REPETITIONS} (default 1)",
    )
    ap.add_argument(
        "--engine",
        choices=ENGINES,
        default="uring",
        help="engine of both curves, one that keeps requests in flight (default uring)",
    )
    ap.add_argument(
        "--direct",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="O_DIRECT (default on; --no-direct for a file system without it)",
    )
    ap.add_argument(
        "--output",
        help="results file to append both runs to: an iosweep results file or a new file in an"
        " existing folder (default: a file in the run's folder, removed)",
    )
    ap.add_argument(
        "-o",
        "--png",
        help="also draw the curves into this image (.png, .svg, .pdf, ...: a format matplotlib"
        " writes; its folder must exist)",
    )
    ap.add_argument("--bin", default=install.find_binary(), help=cmdline.BIN_HELP)


def _checked(args):
    """Every argument checked, sizes made byte counts and the ranks of the ranks-alone curve
    chosen, before anything is made."""
    args.bin = cmdline.binary("--bin", args.bin)
    if args.max & (args.max - 1):
        raise Stop(f"--max: {args.max} is not a power of two of at least 2")
    args.dir = files.work_folder("--dir", args.dir or "/var/tmp")
    if args.output:
        args.output = files.output_file("--output", args.output, what="results file")
        if os.path.exists(args.output):
            try:
                frames.list_runs(args.output)
            except ResultsError as e:
                raise Stop(f"--output: {e}") from None
    if args.png:
        args.png = files.output_file("-o", args.png, suffixes=files.plot_suffixes(), what="image")
    four_k = {"lo": 4096, "multiple": 4096, "hi": MAX_SIZE, "multiple_why": "4 KiB records"}
    items = [("--size", args.size, four_k)]
    if args.alone_size is not None:
        items.append(("--alone-size", args.alone_size, four_k))
    args.bytes = dict(zip([t for _, t, _ in items], units.sizes(args.bin, *items)))
    args.r_max = ranks_max(args)
    if args.ranks_max:
        files.check_memory("--ranks-max", args.r_max, args.rank_mib << 20)
    # The curves run one after the other: the larger of their files must fit.
    alone = (args.r_max, args.bytes[args.alone_size or args.size])
    option = "--alone-size" if args.alone_size else "--size"
    if alone[0] * alone[1] >= 2 * args.bytes[args.size]:
        files.check_space(option, args.dir, *alone)
    else:
        files.check_space("--size", args.dir, 2, args.bytes[args.size])
    return args


def main(argv=None):
    """The command; its status (see core.command.guard)."""
    return command.guard(_main, argv)


def _curve(args, np_, most, label, work, out, size):
    run_curve(args, np_, most, label, work, out, size)
    print(f"  done: {label} ({np_} ranks)", file=sys.stderr)


def _main(argv):
    args = parse_args(argv)
    work = tempfile.mkdtemp(prefix="iosweep-streams.", dir=args.dir)
    try:
        out = args.output or os.path.join(work, "streams.h5")
        before = set(frames.list_runs(out)) if os.path.exists(out) else set()
        _curve(args, args.r_max, args.r_max, CURVES[0], work, out, args.alone_size or args.size)
        _curve(args, 2, args.max, CURVES[1], work, out, args.size)
        mine = [r for r in written_ids(out) if r not in before]
        read = [written_run(out, r, summary=SUMMARY, tables={}) for r in mine]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if sorted(r.attrs.get("label") for r in read) != sorted(CURVES):
        raise Stop(f"expected the runs {', '.join(CURVES)} in {out}; found {len(read)}", 1)
    c = curves(frames.summaries(read))
    print(markdown(c))
    print()
    print(summary_text(args))
    if args.png:
        title = (
            f"iosweep: 4 KiB random read by streams, ranks alone vs 2 ranks x depth ({args.engine})"
        )
        files.save_figure(draw(c, title), args.png, "-o")
        print(f"written: {args.png}")
    return 0
