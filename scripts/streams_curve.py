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
was asked for (iosweep_checks.job_timeout); Ctrl-C stops both and removes the run's folder.
"""
import argparse
import math
import os
import shutil
import sys
import tempfile
from pathlib import Path
from iosweep_tools.core import children, cmdline, command, files, units
from iosweep_tools.bench import harness
from iosweep_tools.results import fields, frames
from iosweep_tools.core.errors import Stop
from iosweep_tools.results.file import ResultsError


HERE = Path(__file__).resolve().parent
CURVES = ("ranks alone", "2 ranks x depth")
ENGINES = ("uring", "mpiio", "null")  # the engines that keep requests in flight (--streams)
MAX_STREAMS = 8192  # 2 ranks x iosweep's deepest depth, 4096
MAX_RANKS = 4096
MAX_SIZE = 1 << 40
MAX_SECONDS = 3600.0
MAX_REPETITIONS = 100
# What the results file holds of each point that the table shows, each value checked.
SUMMARY = {
    "streams": fields.POSITIVE,
    "ranks": fields.POSITIVE,
    "iodepth": fields.POSITIVE,
    "ops": fields.ID,
    "iops": fields.FIGURE,
    "cpu_s": fields.FIGURE,
    "wall_s": fields.FIGURE,
}


def ranks_max(args):
    """--ranks-max, or the largest power of two up to --max whose ranks fit half of MemAvailable
    at --rank-mib each."""
    if args.ranks_max:
        return min(args.ranks_max, args.max)
    fit = files.mem_available() // 2 // (args.rank_mib << 20)
    r = 1
    while r * 2 <= min(fit, args.max, MAX_RANKS):
        r *= 2
    return r


def run_curve(args, np_, most, label, work, out, size):
    """One curve: `np_` ranks, streams 1 .. `most` (depth 1 up to np_ streams), `size` per rank."""
    cmd = ["run", "--dir", work, "--engine", args.engine, "--streams", f"1:{most}"]
    cmd += ["--phases", "rand-read", "--rand-record", "4KiB", "--file-size", size]
    cmd += ["--stonewall", f"{args.seconds:.6g}", "--repetitions", str(args.repetitions)]
    cmd += ["--label", label, "--output", out, "--quiet"] + (["--direct"] if args.direct else [])
    n = len(children.sweep_points(most)) * args.repetitions
    timeout = children.job_timeout(np_ * args.bytes[size], n * args.seconds, np_)
    children.iosweep(args.bin, np_, cmd, timeout, label)
    print(f"  done: {label} ({np_} ranks)", file=sys.stderr)


def curves(summary):
    """{curve label: {streams: {ranks, depth, iops, cpu_s, cpu_us_per_op}}}, medians over the
    repetitions (rand_read rows only)."""
    out = {}
    for label in CURVES:
        d = summary[(summary["label"] == label) & (summary["phase_name"] == "rand_read")]
        points = {}
        for s in sorted(d["streams"].unique()):
            at = d[d["streams"] == s]
            per_op = at["cpu_s"] / at["ops"].clip(lower=1) * 1e6
            points[int(s)] = {
                "ranks": int(at["ranks"].iloc[0]),
                "depth": int(at["iodepth"].iloc[0]),
                "iops": float(at["iops"].median()),
                "cpu_s": float(at["cpu_s"].median()),
                "wall_s": float(at["wall_s"].median()),
                "cpu_us_per_op": float(per_op.median()),
            }
        out[label] = points
    return out


def num(x, decimals, digits=2):
    """x with `decimals` decimals, more where it needs them for `digits` significant digits:
    16482, 0.99, 0.0040 (a short window never prints as 0.00)."""
    if x and math.isfinite(x):
        decimals = max(decimals, digits - 1 - math.floor(math.log10(abs(x))))
    return f"{x:.{decimals}f}"


def markdown(c):
    rows = [
        (
            "| streams | ranks alone: ranks | window s | IOPS | CPU s | CPU µs/op "
            "| 2 ranks x depth: ranks x depth | window s | IOPS | CPU s | CPU µs/op |"
        ),
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    a, b = c[CURVES[0]], c[CURVES[1]]
    for s in sorted(set(a) | set(b)):
        cells = [str(s)]
        x = a.get(s)
        cells += (
            [
                str(x["ranks"]),
                num(x["wall_s"], 2),
                num(x["iops"], 0),
                num(x["cpu_s"], 3),
                num(x["cpu_us_per_op"], 1),
            ]
            if x
            else ["-"] * 5
        )
        y = b.get(s)
        cells += (
            [
                f"{y['ranks']} x {y['depth']}",
                num(y["wall_s"], 2),
                num(y["iops"], 0),
                num(y["cpu_s"], 3),
                num(y["cpu_us_per_op"], 1),
            ]
            if y
            else ["-"] * 5
        )
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def draw(c, title):
    """The figure of both curves: IOPS and CPU per operation against streams."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 5), dpi=100)
    for label, style in zip(CURVES, ("o-", "s-")):
        pts = sorted(c[label].items())
        if not pts:
            continue
        xs = [s for s, _ in pts]
        left.plot(xs, [p["iops"] for _, p in pts], style, label=label)
        right.plot(xs, [p["cpu_us_per_op"] for _, p in pts], style, label=label)
    for ax, ylabel in (
        (left, "IOPS (4 KiB random reads/s)"),
        (right, "CPU time per operation (µs, all ranks)"),
    ):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("streams (log2)")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    left.set_title("random read")
    right.set_title("CPU per operation (getrusage per rank)")
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def parse_args(argv):
    ap = cmdline.doc_parser(__doc__)
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
    ap.add_argument("--bin", default=str(HERE.parent / "build" / "iosweep"), help=cmdline.BIN_HELP)
    args = ap.parse_args(argv)
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
                raise Stop(f"--output: {e}")
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
    """The script; its status (one line and status 130 on Ctrl-C, see iosweep_checks.guard)."""
    return command.guard(_main, argv)


def _main(argv):
    args = parse_args(argv)
    work = tempfile.mkdtemp(prefix="iosweep-streams.", dir=args.dir)
    try:
        out = args.output or os.path.join(work, "streams.h5")
        before = set(frames.list_runs(out)) if os.path.exists(out) else set()
        run_curve(args, args.r_max, args.r_max, CURVES[0], work, out, args.alone_size or args.size)
        run_curve(args, 2, args.max, CURVES[1], work, out, args.size)
        mine = [r for r in harness.written_ids(out) if r not in before]
        read = [harness.written_run(out, r, summary=SUMMARY, tables={}) for r in mine]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if sorted(r.attrs.get("label") for r in read) != sorted(CURVES):
        raise Stop(f"expected the runs {', '.join(CURVES)} in {out}; found {len(read)}", 1)
    c = curves(frames.summaries(read))
    print(markdown(c))
    print()
    print(
        f"4 KiB random reads, engine {args.engine},"
        f" {'O_DIRECT' if args.direct else 'page cache dropped'},"
        f" {args.alone_size or args.size} per rank alone and {args.size} per rank of 2,"
        f" {args.seconds:g} s per point at most (--stonewall; window s: the median window, shorter"
        " when a rank read every record of its file first), median of"
        f" {args.repetitions} repetition(s). ranks alone: 1 .. {args.r_max} ranks at depth 1; 2"
        f" ranks x depth: 1 and 2 ranks, then 2 ranks at depth 2 .. {args.max // 2}. CPU s: user"
        " + system time of all ranks in the timed window (getrusage; the summary's cpu_s); CPU"
        " µs/op: that over the operations completed."
    )
    if args.png:
        title = (
            f"iosweep: 4 KiB random read by streams, ranks alone vs 2 ranks x depth ({args.engine})"
        )
        files.save_figure(draw(c, title), args.png, "-o")
        print(f"written: {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
