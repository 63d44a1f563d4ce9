"""iosweep and IOR side by side on the GlusterFS bed: same volume, layout and sizes, alternately.

    scripts/dfs-vs-ior --ior /path/to/ior --pairs 5 --size 64m
    scripts/dfs-vs-ior --ior /path/to/ior --pairs 1 --size 16m --only seq   # a smoke run

Both tools run 4 ranks (--ranks) over the bed's 2 emulated nodes (scripts/dfs-bed: each node its
own GlusterFS client, page cache and eth0), placed in blocks (--map-by slot: ranks 0,1 on node1,
2,3 on node2, which IOR's -C needs to read another node's file), on the same volume, for four
workloads: 16 MiB sequential and 4 KiB random, each N-to-N (IOR -F; iosweep's default) and on one
shared file (IOR without -F, one segment; iosweep --file-layout shared, segmented). Every phase
is its own launch of its tool, so the node counters read around it belong to that phase alone:

    phase       iosweep                                   IOR
    seq-write   --phases seq-write --keep                 -w -k -t 16m
    seq-read    --phases seq-read --reuse RUN             -r -k -C -t 16m
                --read-shift auto
    (prepare)   seq-write --keep, not measured            -w -k -t 16m, not measured
    rand-write  --phases rand-write --reuse RUN           -w -k -E -z -t 4k
    rand-read   --phases rand-read --reuse RUN            -r -k -C -z -t 4k
                --read-shift auto

with the same file size per rank (-b = --file-size = --size), fsync at the end of every writing
phase inside its timing (IOR -e, iosweep --fsync; off with --no-fsync), O_DIRECT or not (--direct:
IOR --posix.odirect, iosweep --direct), random phases touching every record of the file once in a
shuffled order (IOR -z, iosweep's rand phases), and reads served by another node than the
writer's (IOR -C, iosweep --read-shift auto; IOR refuses -C with -z on one shared file, so
there both read their own region). Before every reading phase of either tool the
script drops the files' pages on both nodes (fsync + posix_fadvise(DONTNEED), which this FUSE
client honours), as iosweep's --cache drop does: a node that read the file in an earlier phase
must not serve it from its page cache.

Runs alternate IOR, iosweep, IOR, ..., IOR (--pairs iosweep runs, each between two IOR runs);
each iosweep phase is set against the IOR run before and after it, and the table gives per
phase the median of these ratios iosweep / IOR with a bootstrap 95% interval (as
scripts/bench-vs-fio), in MiB/s (2^20 bytes/s) for sequential phases and IOPS for random ones.
The wire columns: bytes that crossed the nodes' eth0 in the phase's direction (rx for reads, tx
for writes, /proc/PID/net/dev of each node's client, summed over nodes) / bytes the tool moved,
median over its runs; about 1.00 means the data went to or came from the servers, about 0 that a
cache answered. Both figures count MPI's own traffic between the nodes too (barriers, IOR's
collectives), a few kilobytes per phase.

The bed: an existing one with --name, or (by default, when bed iosweep-dfs is not up) one of its
own, brought up with 2 nodes and taken down at the end. Emulated nodes share 2 cores, one
kernel and the bricks' file system: the figures say whether the two tools measure the same
thing, not what a cluster would do.
"""
import datetime
import os
import subprocess
import sys
from pathlib import Path

from iosweep_tools.bench.beds import bed_for, dfs_bed
from iosweep_tools.bench.harness import machine_text
from iosweep_tools.bench.vs_ior.runner import (
    SEQ_RECORD,
    WORKLOADS,
    Failed,
    Runner,
    measure_workload,
    table_text,
)
from iosweep_tools.core import cmdline, command, install, units
from iosweep_tools.core.errors import Stop
from iosweep_tools.dfsbed.base import NAME_RE, Fail, can_run


def parse_args(argv):
    ap = cmdline.doc_parser(__doc__, cls=cmdline.PlainParser, prog="dfs-vs-ior")
    ap.add_argument("--ior", required=True, help="the IOR binary (built outside this repository)")
    ap.add_argument("--bin", default=install.find_binary(), help="iosweep binary")
    ap.add_argument("--size", default="32m", help="file size per rank (-b), a multiple of 16m")
    ap.add_argument("--pairs", default="3", help="iosweep runs per workload (default 3)")
    ap.add_argument("--ranks", default="4", help="ranks, half on each node (default 4)")
    ap.add_argument("--direct", action="store_true", help="O_DIRECT in both tools")
    ap.add_argument(
        "--no-fsync", dest="fsync", action="store_false", help="no fsync at the end of writes"
    )
    ap.add_argument("--only", default="", help="comma-separated substrings selecting workloads")
    ap.add_argument("--name", help="an existing bed to use (default: iosweep-dfs, or a new one)")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    return _checked(ap.parse_args(argv))


def _checked(a):
    """Every argument checked, the workloads selected, before anything is made."""
    cmdline.whole_numbers(a, ("pairs", 1, 100), ("ranks", 2, 64))
    if a.ranks % 2:
        raise Stop(f"--ranks: must be even, half on each of the 2 nodes (found {a.ranks})")
    if not (os.path.isfile(a.ior) and os.access(a.ior, os.X_OK)):
        raise Stop(f"--ior: {a.ior} is not an executable")
    if not (os.path.isfile(a.bin) and os.access(a.bin, os.X_OK)):
        raise Stop(f"--bin: {a.bin} is not an executable (build iosweep first)")
    try:
        size, seq = units.units(a.bin, a.size, SEQ_RECORD)
    except units.UnitsError as e:
        raise Stop(f"--size: {e}" if e.status == 2 else f"--bin: {e}") from None
    if size < seq or size % seq:
        raise Stop(f"--size: must be a multiple of 16m, the sequential transfer (found {a.size})")
    if size > 1 << 30:
        raise Stop(f"--size: at most 1g per rank on the bed's bricks (found {a.size})")
    a.workloads = [w for w in WORKLOADS if not a.only or any(s in w[0] for s in a.only.split(","))]
    if not a.workloads:
        raise Stop(f"--only: '{a.only}' selects none of: {', '.join(w[0] for w in WORKLOADS)}")
    if a.name is not None and not NAME_RE.fullmatch(a.name):
        raise Stop(f"--name: '{a.name}' is not a bed name")
    return a


def main(argv=None):
    """The command; its status (a Stop in one line, see core.command.plain)."""
    return command.plain(_main, sys.argv[1:] if argv is None else argv)


def _check_slots(a, bed, own):
    slots = {ln.split()[1] for ln in Path(bed.hostfile).read_text().splitlines() if ln.strip()}
    if slots != {f"slots={a.ranks // 2}"}:
        if own:
            dfs_bed("--name", own, "down")
        raise Stop(
            f"--ranks: bed {bed.name}'s host file {bed.hostfile} has {', '.join(sorted(slots))} "
            f"per node; IOR's -C needs {a.ranks // 2} per node (ranks in blocks, half per node)"
        )


def _header(a, runner):
    info = runner.info
    print(f"machine: {machine_text()}; load average {os.getloadavg()[0]:.2f}")
    print(f"date:    {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%dT%H:%M:%SZ}")
    print(
        f"bed:     {info['name']}: volume of {len(info['bricks'])} brick(s), nodes "
        f"{', '.join(runner.nodes)}; options {', '.join(info['options'])}"
    )
    print(
        f"runs:    {a.ranks} ranks, {a.size} per rank, fsync {'on' if a.fsync else 'off'}, "
        f"O_DIRECT {'on' if a.direct else 'off'}; IOR {a.ior}",
        flush=True,
    )


def _main(argv):
    a = parse_args(argv)
    why = can_run()
    if why:
        raise Stop(f"no GlusterFS bed here: {why}", 1)
    bed, own = bed_for(a.name, "dfs-vs-ior", a.ranks // 2)
    _check_slots(a, bed, own)
    runner = None
    rows = []
    try:
        runner = Runner(a, bed)
        runner.start()
        _header(a, runner)
        for wname, shared, kind in a.workloads:
            rows += measure_workload(runner, a, wname, shared, kind)
            print(f"  done: {wname}", file=sys.stderr, flush=True)
    except (Failed, subprocess.TimeoutExpired, Fail) as e:
        raise Stop(str(e).splitlines()[0] if str(e) else type(e).__name__, 1) from None
    finally:
        if runner is not None:
            runner.cleanup()
        if own:
            dfs_bed("--name", own, "down")
    print(table_text(rows, a, getattr(runner, "ior_version", "?")), end="")
    return 0
