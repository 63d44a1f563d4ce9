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
(core.children.job_timeout); a failed job is status 1; Ctrl-C stops it and removes the folder.
"""
import shutil
import sys
import tempfile

from iosweep_tools.bench.filter_efficiency.table import (
    MAX_NP,
    MAX_REPETITIONS,
    RANK_BYTES,
    SETTINGS,
    measure,
    table,
    table_text,
)
from iosweep_tools.core import cmdline, command, files, install, units
from iosweep_tools.core.errors import Stop


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
    ap.add_argument("--bin", default=install.find_binary(), help=cmdline.BIN_HELP)
    args = ap.parse_args(argv)
    args.bin = cmdline.binary("--bin", args.bin)
    args.dir = files.work_folder("--dir", args.dir or "/var/tmp")
    (args.size_bytes,) = units.sizes(args.bin, ("--size", args.size, units.WHOLE_RECORDS))
    files.check_memory("--np", args.np, RANK_BYTES)
    files.check_space("--size", args.dir, args.np, args.size_bytes)
    return args


def main(argv=None):
    """The command; its status (see core.command.guard)."""
    return command.guard(_main, argv)


def _main(argv):
    args = parse_args(argv)
    work = tempfile.mkdtemp(prefix="iosweep-eff.", dir=args.dir)
    try:
        s = measure(args, work, lambda name: print(f"  done: {name}", file=sys.stderr))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if not len(s):
        raise Stop("iosweep wrote no summary rows for the settings", 1)
    print(table_text(args, table(s, [name for name, _ in SETTINGS])), end="")
    return 0
