"""Does filter-count keep up with the storage? Runs seq-read and filter-count (and with it its
control, scan-only) over the same kept files under several cache settings and prints, per
setting and point, the median bandwidth of each phase and two ratios of the same point and
repetition.

Each ratio has its own definition and its own columns:

  filter_efficiency    filter-count / scan-only: the identical read path (engine, threads,
                       depth, records, buffers) with the counting switched off, run by iosweep
                       itself right before or after filter-count, in turn each repetition. 1.0
                       means counting costs nothing; this is iosweep's efficiency figure.
  filter_vs_seq_read   filter-count / seq-read: against the plain sequential read, which reads
                       through another path (seq-read's records and engine set-up), so it mixes
                       the cost of counting with the difference between the two read paths.

Both are given as median, min and max over the repetitions, with the share of the scan's I/O
loop spent counting.

    scripts/filter-efficiency --dir /var/tmp/eff --size 1g --np 2 --repetitions 3

The files are written once (seq-write, O_DIRECT, kept) and read by every setting through
--reuse, so all settings read the same data; they are removed at the end. Bandwidth is MiB/s
(2^20 bytes/s).

Every argument is checked before anything is made (one line, status 2): --size by iosweep's own
parser (whole 16 MiB sequential records, at most 1 TiB, --np files of it within --dir's free
space), --np from 1 to 256 within MemAvailable (about 96 MiB per rank: buffers at depth 4),
--repetitions from 1 to 100. Each job is stopped when it runs far past what it was asked for
(iosweep_checks.job_timeout); a failed job is status 1; Ctrl-C stops it and removes the folder.
"""
import math
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from iosweep_tools.core import children, cmdline, command, files, units
from iosweep_tools.bench import harness
from iosweep_tools.results import fields, frames
from iosweep_tools.core.errors import Stop


HERE = Path(__file__).resolve().parent

MAX_NP = 256
MAX_REPETITIONS = 100
RANK_BYTES = 96 << 20  # one rank: 4 x 16 MiB buffers at depth 4 and the process itself
READ_PHASES = 3  # seq-read, scan-only, filter-count
SUMMARY = {
    "ranks": fields.POSITIVE,
    "repetition": fields.ID,
    "bandwidth_Bps": fields.FIGURE,
    "compute_mean_s": fields.FIGURE,
    "io_wait_mean_s": fields.FIGURE,
    "filter_efficiency": fields.MAYBE,
    "filter_vs_seq_read": fields.MAYBE,
}

SETTINGS = [
    ("--direct", ["--direct"]),
    ("--direct --hugepages", ["--direct", "--hugepages"]),
    (
        "--direct uring qd4 --hugepages",
        ["--direct", "--engine", "uring", "--iodepth", "4", "--hugepages"],
    ),
    ("--cache drop", ["--cache", "drop"]),
]


def job(args, iosweep_args, moved):
    """One job of --np ranks; `moved` the bytes it reads or writes (its timeout follows them)."""
    children.iosweep(args.bin, args.np, iosweep_args, children.job_timeout(moved, 0, args.np))


def spread(values):
    """(median, min, max) of the values that are numbers; NaNs where none is."""
    v = [x for x in values if not math.isnan(x)]
    if not v:
        return float("nan"), float("nan"), float("nan")
    return statistics.median(v), min(v), max(v)


def table(s, names):
    """One row per (setting, ranks) of the summary rows `s` (iosweep_load), settings in the
    order of `names` (the runs' labels): bandwidths and both ratios."""
    rows = []
    for name in names:
        d = s[s["label"] == name]
        for k in sorted(d["ranks"].unique()):
            at = d[d["ranks"] == k]
            bw = {
                p: (
                    statistics.median(at[at["phase_name"] == p]["bandwidth_Bps"]) / 2**20
                    if (at["phase_name"] == p).any()
                    else float("nan")
                )
                for p in ("seq_read", "scan_only", "filter_count")
            }
            fc = at[at["phase_name"] == "filter_count"]
            share = [
                c / (c + w) if c + w > 0 else 0.0
                for c, w in zip(fc["compute_mean_s"], fc["io_wait_mean_s"])
            ]
            rows.append(
                {
                    "setting": name,
                    "ranks": int(k),
                    **bw,
                    "efficiency": spread(list(fc["filter_efficiency"])),
                    "vs_seq_read": spread(list(fc["filter_vs_seq_read"])),
                    "counting_share": statistics.median(share) if share else float("nan"),
                    "repetitions": len(fc),
                }
            )
    return rows


def num(v, fmt):
    return "n/a" if math.isnan(v) else format(v, fmt)


def parse_args(argv):
    ap = cmdline.doc_parser(__doc__)
    ap.add_argument(
        "--dir",
        help="an existing folder on the storage to measure, where a folder of its own is made"
        " and removed (default /var/tmp)",
    )
    ap.add_argument(
        "--size",
        default="1g",
        help="file size per rank (default 1g; whole 16 MiB records, at most 1 TiB)",
    )
    ap.add_argument(
        "--np",
        type=cmdline.count(1, MAX_NP),
        default=2,
        help=f"ranks, 1 to {MAX_NP}; points 1, 2, 4 ... up to it (default 2)",
    )
    ap.add_argument(
        "--repetitions",
        type=cmdline.count(1, MAX_REPETITIONS),
        default=3,
        help=f"repetitions per point, 1 to {MAX_REPETITIONS} (default 3)",
    )
    ap.add_argument("--bin", default=str(HERE.parent / "build" / "iosweep"), help=cmdline.BIN_HELP)
    args = ap.parse_args(argv)
    args.bin = cmdline.binary("--bin", args.bin)
    args.dir = files.work_folder("--dir", args.dir or "/var/tmp")
    (args.size_bytes,) = units.sizes(args.bin, ("--size", args.size, units.WHOLE_RECORDS))
    files.check_memory("--np", args.np, RANK_BYTES)
    files.check_space("--size", args.dir, args.np, args.size_bytes)
    return args


def main(argv=None):
    """The script; its status (one line and status 130 on Ctrl-C, see iosweep_checks.guard)."""
    return command.guard(_main, argv)


def _main(argv):
    args = parse_args(argv)
    work = tempfile.mkdtemp(prefix="iosweep-eff.", dir=args.dir)
    out = os.path.join(work, "eff.h5")
    base = ["run", "--dir", work, "--file-size", args.size, "--quiet", "--output", out]
    try:
        layout = ["--phases", "seq-write", "--ranks", str(args.np), "--direct", "--keep"]
        job(args, base + layout, args.np * args.size_bytes)
        reuse = harness.written_ids(out)[-1]
        moved = (
            sum(children.sweep_points(args.np)) * args.size_bytes * READ_PHASES * args.repetitions
        )
        for name, extra in SETTINGS:
            # filter-count brings its control, scan-only, which iosweep runs before it on even
            # repetitions and after it on odd ones.
            reads = ["--phases", "seq-read,filter-count", "--reuse", reuse, "--label", name]
            job(args, base + reads + ["--repetitions", str(args.repetitions)] + extra, moved)
            print(f"  done: {name}", file=sys.stderr)
        mine = harness.written_ids(out)[1:]  # the layout run first
        s = frames.summaries(
            [harness.written_run(out, r, summary=SUMMARY, tables={}) for r in mine]
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if not len(s):
        raise Stop("iosweep wrote no summary rows for the settings", 1)
    rows = table(s, [name for name, _ in SETTINGS])
    print(
        "| setting | ranks | seq-read MiB/s | scan-only MiB/s | filter-count MiB/s "
        "| filter_efficiency: filter-count / scan-only (median) | min | max "
        "| filter_vs_seq_read: filter-count / seq-read (median) | min | max | counting share |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        eff, vs = r["efficiency"], r["vs_seq_read"]
        print(
            f"| {r['setting']} | {r['ranks']} | {num(r['seq_read'], '.0f')} |"
            f" {num(r['scan_only'], '.0f')} | {num(r['filter_count'], '.0f')} |"
            f" {num(eff[0], '.3f')} | {num(eff[1], '.3f')} | {num(eff[2], '.3f')} |"
            f" {num(vs[0], '.3f')} | {num(vs[1], '.3f')} | {num(vs[2], '.3f')} |"
            f" {num(r['counting_share'], '.1%')} |"
        )
    print()
    print(
        f"{args.np} rank(s) at most, {args.size} per rank, {args.repetitions} repetition(s) per"
        " point; medians, min and max over the repetitions. filter_efficiency = filter-count"
        " bandwidth / scan-only bandwidth of the same point and repetition (the same read path"
        " with the counting switched off; iosweep alternates their order every repetition)."
        " filter_vs_seq_read = filter-count bandwidth / seq-read bandwidth of the same point and"
        " repetition (another read path). Counting share: the part of filter-count's I/O loop"
        " spent counting."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
