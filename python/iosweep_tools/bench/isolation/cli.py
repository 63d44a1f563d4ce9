"""Do the ranks that sit out a point cost it anything? A 1-rank point inside a large job against a
1-rank job, alternated, on the same kept file.

    scripts/isolation-check --dir /var/tmp/iso --pairs 5

For each workload (4 KiB random reads at depth 1 with O_DIRECT, IOPS; 16 MiB sequential reads
with O_DIRECT, MiB/s, with plain buffers and with --hugepages) it runs pairs of jobs, one after
the other: a 1-rank job, then a job of --ranks ranks on this machine (--oversubscribe) whose
sweep is the single point of 1 active rank, and, when this machine can emulate nodes (root,
unshare), a job of --emulated-ranks ranks over --emulated-nodes emulated nodes
(scripts/cluster/emu-rsh) measuring the same point. The order inside a pair alternates from pair
to pair, so that neither kind always runs first on a disk whose host cache drifts. Every job
reads the same file, laid out once with O_DIRECT and kept (--reuse), with the same record order
(--order-seed). Reported: the median over pairs of (point inside the large job) / (1-rank job),
with every pair's ratio, and the mean size of the read requests the block device completed (its
own counters, the run's `device` table): on a virtual disk an O_DIRECT read's requests grow with
the physical contiguity of the rank's buffer, which changes its bandwidth without any change in
iosweep (docs/scaling.md). Goals (docs/scaling.md): >= 0.95 on one machine, >= 0.90 across
emulated nodes. Keep the machine quiet while it runs.

Every argument is checked before anything is made (one line, status 2): the bounds --help
gives, --size by iosweep's own parser (whole 16 MiB records, at most 1 TiB, within --dir's free
space) and the ranks within MemAvailable (about 16 MiB each). Each job is stopped when it runs
far past what it was asked for (core.children.job_timeout); Ctrl-C stops it and removes the
folder.
"""
import argparse
import shutil
import tempfile
from pathlib import Path

from iosweep_tools.bench.isolation.pairs import (
    MAX_PAIRS,
    MAX_RANKS,
    RANK_BYTES,
    WORKLOADS,
    kinds,
    layout,
    pairs_row,
)
from iosweep_tools.core import cmdline, command, devices, files, install, launch, units
from iosweep_tools.core.errors import Stop


def parse_args(argv):
    ap = cmdline.Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--dir",
        help=(
            "an existing folder on the disk to measure, where a folder of its own is made and "
            "removed at the end (default /var/tmp)"
        ),
    )
    ap.add_argument(
        "--size",
        default="1g",
        help="the kept file's size (default 1g; whole 16 MiB records, at most 1 TiB)",
    )
    ap.add_argument(
        "--pairs",
        type=cmdline.count(1, MAX_PAIRS),
        default=5,
        help=f"alternating pairs per comparison, 1 to {MAX_PAIRS} (default 5)",
    )
    large = "the large job needs at least 2 ranks"
    ap.add_argument(
        "--ranks",
        type=cmdline.count(2, MAX_RANKS, large),
        default=64,
        help=f"ranks of the one-machine job, 2 to {MAX_RANKS} (default 64)",
    )
    ap.add_argument(
        "--emulated-ranks",
        type=cmdline.count(2, MAX_RANKS, large),
        default=128,
        help=f"ranks over emulated nodes, 2 to {MAX_RANKS} (default 128)",
    )
    ap.add_argument(
        "--emulated-nodes",
        type=cmdline.count(0, MAX_RANKS),
        default=16,
        help="emulated nodes, 1 to --emulated-ranks (default 16)",
    )
    ap.add_argument("--bin", default=install.find_binary(), help=cmdline.BIN_HELP)
    args = ap.parse_args(argv)
    if args.emulated_nodes < 1 or args.emulated_nodes > args.emulated_ranks:
        raise Stop(
            f"--emulated-nodes: must be from 1 to --emulated-ranks ({args.emulated_ranks}); "
            f"found {args.emulated_nodes}"
        )
    args.bin = cmdline.binary("--bin", args.bin)
    args.dir = files.work_folder("--dir", args.dir or "/var/tmp")
    (args.size_bytes,) = units.sizes(args.bin, ("--size", args.size, units.WHOLE_RECORDS))
    args.why_not = launch.can_emulate()
    files.check_memory("--ranks", args.ranks, RANK_BYTES)
    if args.why_not is None:
        files.check_memory("--emulated-ranks", args.emulated_ranks, RANK_BYTES)
    files.check_space("--size", args.dir, 1, args.size_bytes)
    return args


def main(argv=None):
    """The command; its status (see core.command.guard)."""
    return command.guard(_main, argv)


def _main(argv):
    args = parse_args(argv)
    # A folder of its own, in --dir or /var/tmp, removed at the end with the file and results.
    work = Path(tempfile.mkdtemp(prefix="iosweep-iso.", dir=args.dir))
    out = work / "iso.h5"
    hostfile = None
    try:
        if args.why_not is None:
            per_node = -(-args.emulated_ranks // args.emulated_nodes)
            hostfile = launch.emulated_nodes(work / "nodes", args.emulated_nodes, per_node)
        base, kept = layout(args, work, out)
        print(
            f"isolation-check: {args.pairs} alternating pairs per comparison, file {args.size} "
            f"({work}), device {devices.block_device(str(work)).name or 'none'}"
        )
        if not hostfile:
            print(f"isolation-check: no emulated nodes here: {args.why_not}")
        print(
            "| workload | job | median ratio | pairs (point in the job / 1-rank job) "
            "| device KiB per read request (job / alone, medians) |"
        )
        print("| --- | --- | --- | --- | --- |")
        for workload in WORKLOADS:
            for kind in kinds(args, hostfile):
                print(pairs_row(args, base, kept, out, workload, kind), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0
