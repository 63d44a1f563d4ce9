"""Side-by-side efficiency check: fio and iosweep, back to back, same folder, same parameters.

For every workload, fio and iosweep run alternately (fio, iosweep, fio, iosweep, ..., fio), one
job / one rank, identical file size, record size, engine, queue depth and direct flag. Every
iosweep run is paired with the fio run before it and the fio run after it, so that neither tool
always runs second (on a virtualised disk the run after a write-heavy one pays for the host's
write-back); the reported ratio is the median of these per-pair ratios iosweep / fio, so drift
of the machine cancels. Figures are IOPS for 4 KiB random workloads and MiB/s (2^20 bytes/s)
for 16 MiB sequential ones.

    scripts/bench-vs-fio --dir /var/tmp/bench --size 1g --runtime 3 --pairs 3

How sure the ratio is: a bootstrap 95% interval of the median of the per-pair ratios (the
ratios resampled with replacement, 2000 times, with a fixed seed so that a rerun on the same
ratios prints the same interval). The verdict is "ok" when the median is at least --target
(0.97) and "below" when it is not, or "unstable" when the interval reaches beyond ±10% of the
median: then the runs disagree too much for a verdict, and more --pairs are needed.

What the device saw: for every run, the bytes the block device holding --dir read or wrote (the
workload's direction) over the bytes the tool says it moved. iosweep's are its summary's
device_read_bytes / device_write_bytes over its bytes (sampled around the phase); fio's are the
same /sys/dev/block/MAJ:MIN/stat counters sampled before and after the fio process (its whole
run, pre_read included) over its io_bytes. 1.00 means every byte reached the device; a page-
cache row shows about 0. The table gives the median over each tool's runs, "n/a" where --dir has
no block device. The machine, the date and the device head the output.

What each operation cost the CPU: both tools' user and system CPU nanoseconds per operation,
the median over each tool's runs. fio's come from its JSON (usr_cpu and sys_cpu, percent of its
job_runtime, from getrusage of the job process around its I/O loop, over the direction's
total_ios); iosweep's are its summary's cpu_user_ns_per_op and cpu_sys_ns_per_op (getrusage of
its rank just outside the timed window, over its operations). Both count every thread of the
process, io_uring's kernel-side workers included; neither counts interrupts served on another
CPU. Unlike the rates they hardly depend on the device's speed, only on the work each tool does
per operation (a loaded machine still moves them through cache misses and interrupts).

Both tools stop at --runtime seconds or when every record of the file was touched once: fio
with `runtime=` and its random map, iosweep with `--stonewall`. Both use the same file, laid
out once by iosweep (16 MiB O_DIRECT writes, kept): iosweep through `--reuse`, fio through
`filename=` with `offset=` one record, so that fio never overwrites the block iosweep checks
before reusing the file. The sequential-write rows write a fresh, preallocated file each time. The
page-cache row first reads the whole file into the cache (fio `pre_read=1 invalidate=0`).
iosweep runs under `mpirun --bind-to none`, unbound like fio.

Every argument is checked before anything is made (one line, status 2): --size by iosweep's own
parser (whole 16 MiB records, at least two, at most 1 TiB, twice its size free in --dir),
--runtime from 1 to 3600 s (given to both tools in milliseconds), --pairs 1 to 100, --target
above 0 and at most 10, every --only entry selecting a workload. Each fio and iosweep run is
stopped when it runs far past --runtime and its bytes (core.children.job_timeout); a tool that
fails or prints no figures is status 1; Ctrl-C stops it and removes the folders.
"""
import datetime
import os
import shutil
import sys
import tempfile

from iosweep_tools.bench.harness import machine_text
from iosweep_tools.bench.vs_fio.workloads import (
    MAX_PAIRS,
    MAX_SIZE,
    MAX_TARGET,
    RECORD,
    RUNTIME,
    WORKLOADS,
    layout,
    measure_workload,
    table_text,
)
from iosweep_tools.core import cmdline, command, files, install, units
from iosweep_tools.core.devices import block_device, fs_type
from iosweep_tools.core.errors import Stop
from iosweep_tools.core.text import shown


def parse_args(argv):
    ap = cmdline.doc_parser(__doc__)
    ap.add_argument(
        "--dir",
        help="an existing folder on the storage to measure, where a folder of its own is made"
        " and removed (default: a new folder in /var/tmp)",
    )
    ap.add_argument(
        "--size",
        default="1g",
        help="file size, as fio's size= (default 1g; whole 16 MiB records, 32 MiB to 1 TiB)",
    )
    ap.add_argument(
        "--runtime",
        type=cmdline.number(*RUNTIME, "s"),
        default=3.0,
        help=f"seconds per run, {RUNTIME[0]:g} to {RUNTIME[1]:g} (default 3)",
    )
    ap.add_argument(
        "--pairs",
        type=cmdline.count(1, MAX_PAIRS),
        default=3,
        help=f"iosweep runs per workload, each between two fio runs, 1 to {MAX_PAIRS} (default 3)",
    )
    ap.add_argument(
        "--only",
        default="",
        help="comma-separated substrings selecting workloads, each selecting at least one"
        " (default: all)",
    )
    ap.add_argument("--bin", default=install.find_binary(), help=cmdline.BIN_HELP)
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    ap.add_argument(
        "--target",
        type=cmdline.number(0, MAX_TARGET),
        default=0.97,
        help="the ratio iosweep / fio a workload must reach for 'ok', above 0 and at most"
        f" {MAX_TARGET:g} (default 0.97)",
    )
    return _checked(ap.parse_args(argv))


def _checked(args):
    """Every argument checked and made what the workloads take (byte counts, milliseconds, the
    selected workloads), before anything is made."""
    if shutil.which("fio") is None:
        raise Stop("fio is not installed (scripts/install-deps installs it)")
    args.bin = cmdline.binary("--bin", args.bin)
    args.selected = WORKLOADS
    if args.only:
        for part in args.only.split(","):
            if not part or not any(part in w[0] for w in WORKLOADS):
                raise Stop(
                    f"--only: {shown(part)} selects no workload (the workloads: "
                    + "; ".join(w[0] for w in WORKLOADS)
                    + ")"
                )
        args.selected = [w for w in WORKLOADS if any(p in w[0] for p in args.only.split(","))]
    args.base = files.work_folder("--dir", args.dir or "/var/tmp")
    args.runtime_ms = int(round(args.runtime * 1000))
    # Byte counts from iosweep's own parser: --size, then the record sizes of the workloads.
    records = sorted({w[2] for w in WORKLOADS})
    whole = {
        "lo": 2 * RECORD,
        "hi": MAX_SIZE,
        "multiple": RECORD,
        "lo_why": "must hold at least two 16 MiB records (fio reads all but the first)",
        "multiple_why": "whole 16 MiB records",
    }
    items = [("--size", args.size, whole)] + [("a workload's record", r, {}) for r in records]
    args.bytes = dict(zip([args.size] + records, units.sizes(args.bin, *items)))
    # The kept file and one fresh sequential write beside it.
    files.check_space("--size", args.base, 2, args.bytes[args.size])
    return args


def main(argv=None):
    """The command; its status (see core.command.guard)."""
    return command.guard(_main, argv)


def _main(argv):
    args = parse_args(argv)
    own_dir = None if args.dir else tempfile.mkdtemp(prefix="iosweep-vs-fio.", dir=args.base)
    try:
        work = tempfile.mkdtemp(prefix="bench.", dir=own_dir or args.base)
        rows = _measure(args, work)
    finally:
        if own_dir:
            shutil.rmtree(own_dir, ignore_errors=True)
    print(table_text(args, rows), end="")
    return 0


def _measure(args, work):
    """The rows of the table, measured in `work`, which is removed at the end; the machine, the
    date and the device first."""
    try:
        args.out = os.path.join(work, "iosweep.h5")
        args.dir = work
        args.device = block_device(work)
        print(f"machine: {machine_text()}")
        now = datetime.datetime.now(datetime.timezone.utc)
        print(f"date:    {now.strftime('%Y-%m-%dT%H:%M:%SZ')}")
        print(
            f"device:  {args.device.name if args.device else 'none: ' + args.device.why} "
            f"(holding {work}, {fs_type(work)})"
        )
        print(flush=True)
        rows = []
        layout(args)
        for w in args.selected:
            rows.append(measure_workload(args, w))
            print(f"  done: {w[0]}", file=sys.stderr)
        return rows
    finally:
        shutil.rmtree(work, ignore_errors=True)
