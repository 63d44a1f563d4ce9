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
stopped when it runs far past --runtime and its bytes (iosweep_checks.job_timeout); a tool that
fails or prints no figures is status 1; Ctrl-C stops it and removes the folders.
"""
import datetime
import json
import math
import os
import platform
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np
from iosweep_tools.core import children, cmdline, command, files, units
from iosweep_tools.bench import harness
from iosweep_tools.results import fields
from iosweep_tools.core.devices import block_device, fs_type
from iosweep_tools.core.errors import Stop
from iosweep_tools.core.text import one_line, shown


HERE = Path(__file__).resolve().parent

# name, rw, block, engine (fio / iosweep), depth, direct, cached
WORKLOADS = [
    ("randread 4k direct uring qd1", "randread", "4k", ("io_uring", "uring"), 1, True, False),
    ("randread 4k direct uring qd32", "randread", "4k", ("io_uring", "uring"), 32, True, False),
    ("randwrite 4k direct uring qd1", "randwrite", "4k", ("io_uring", "uring"), 1, True, False),
    ("randwrite 4k direct uring qd32", "randwrite", "4k", ("io_uring", "uring"), 32, True, False),
    ("randread 4k direct psync", "randread", "4k", ("psync", "posix"), 1, True, False),
    ("randread 4k page cache psync", "randread", "4k", ("psync", "posix"), 1, False, True),
    ("read 16m direct psync", "read", "16m", ("psync", "posix"), 1, True, False),
    ("write 16m direct psync", "write", "16m", ("psync", "posix"), 1, True, False),
]

PHASE = {
    "randread": "rand-read",
    "randwrite": "rand-write",
    "read": "seq-read",
    "write": "seq-write",
}

RECORD = 16 << 20  # the largest record of the workloads; the file holds it whole
MAX_SIZE = 1 << 40
RUNTIME = (1.0, 3600.0)  # seconds per run
MAX_PAIRS = 100
MAX_TARGET = 10.0
SUMMARY = {
    "bytes": fields.ID,
    "iops": fields.FIGURE,
    "bandwidth_Bps": fields.FIGURE,
    "device_read_bytes": fields.MAYBE,
    "device_write_bytes": fields.MAYBE,
}
RESAMPLES = 2000  # bootstrap resamples of the pair ratios
SEED = 20261130  # fixed: the same ratios always give the same interval
SPREAD = 0.10  # an interval reaching beyond ±10% of the median is "unstable"


def ratio_stats(ratios, resamples=RESAMPLES, seed=SEED, level=0.95):
    """(median, low, high): the median of the per-pair ratios and a bootstrap `level` interval
    of it (percentiles of the medians of `resamples` resamples drawn with replacement)."""
    r = np.asarray(ratios, dtype=float)
    if r.size == 0:
        raise ValueError("no ratios")
    rng = np.random.default_rng(seed)
    medians = np.median(r[rng.integers(0, r.size, size=(resamples, r.size))], axis=1)
    tail = (1.0 - level) / 2 * 100
    low, high = np.percentile(medians, [tail, 100 - tail])
    return float(np.median(r)), float(low), float(high)


def verdict(median, low, high, target=0.97, spread=SPREAD):
    """ "unstable" when the interval reaches beyond ±spread of the median; else "ok" when the
    median is at least `target`, "below" when it is not."""
    if low < median * (1 - spread) or high > median * (1 + spread):
        return "unstable"
    return "ok" if median >= target else "below"


def machine_text():
    """Host, CPU model and count, memory, kernel: the machine the figures belong to."""
    cpu = ""
    try:
        cpu = next(
            (
                ln.split(":", 1)[1].strip()
                for ln in open("/proc/cpuinfo")
                if ln.startswith("model name")
            ),
            "",
        )
    except OSError:
        pass
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError):
        mem = float("nan")
    return (
        f"{platform.node()}: {cpu or platform.machine()}, {os.cpu_count()} CPUs, {mem:.0f} GiB, "
        f"Linux {platform.release()}"
    )


def device_fraction(before, after, direction, claimed):
    """Device bytes in `direction` ("read" or "write") between two samples / `claimed` bytes;
    NaN without a device or without claimed bytes."""
    if before is None or after is None or not claimed:
        return float("nan")
    key = f"{direction}_bytes"
    return max(after[key] - before[key], 0) / claimed


def direction_of(rw):
    return "read" if rw in ("read", "randread") else "write"


def iosweep_run_args(args, phase, label):
    """`iosweep run` of one phase on --size in the work folder, appended to its results."""
    out = ["run", "--dir", args.dir, "--file-size", args.size, "--phases", phase]
    return out + ["--output", args.out, "--quiet", "--label", f"bench-vs-fio: {label}"]


def layout(args):
    """Writes the file both tools use, once, with iosweep (kept, reused)."""
    cmd = iosweep_run_args(args, "seq-write", "layout") + ["--direct", "--keep"]
    timeout = children.job_timeout(args.bytes[args.size])
    children.iosweep(args.bin, 1, cmd, timeout, "iosweep laying out its file")
    args.reuse = harness.written_ids(args.out)[-1]
    args.iosweep_file = os.path.join(args.dir, f"iosweep.{args.reuse}.0")
    args.fio_file = args.iosweep_file


def pre_read(path):
    with open(path, "rb", buffering=0) as f:
        while f.read(16 << 20):
            pass


def run_fio(args, w):
    name, rw, bs, (fio_engine, _), depth, direct, cached = w
    if rw == "write":  # a fresh file for every sequential write, as iosweep's seq-write
        fio_file, where = os.path.join(args.dir, "fio-write.dat"), [
            f"--size={args.bytes[args.size]}"
        ]
        if os.path.exists(fio_file):
            os.unlink(fio_file)
    else:  # iosweep's file, all but its first record (so its first block stays iosweep's)
        skip = args.bytes[bs]
        fio_file, where = args.fio_file, [
            f"--offset={skip}",
            f"--size={args.bytes[args.size] - skip}",
        ]
    cmd = [
        "fio",
        "--name=bench",
        f"--filename={fio_file}",
        f"--rw={rw}",
        f"--bs={bs}",
        f"--ioengine={fio_engine}",
        f"--iodepth={depth}",
        f"--direct={1 if direct else 0}",
        f"--runtime={args.runtime_ms}ms",
        "--numjobs=1",
        "--output-format=json",
        "--randrepeat=0",
    ] + where
    if cached:
        cmd += ["--pre_read=1", "--invalidate=0"]
    before = args.device.sample() if args.device else None
    timeout = children.job_timeout(args.bytes[args.size], args.runtime)
    p = children.job(cmd, timeout, f"fio for '{name}'")
    after = args.device.sample() if args.device else None
    try:
        job = json.loads(p.stdout[p.stdout.index("{") :])["jobs"][0]
        side = job[direction_of(rw)]
        value = float(side["iops"] if rw.startswith("rand") else side["bw_bytes"] / 2**20)
        moved = side.get("io_bytes")
        moved = int(moved) if isinstance(moved, (int, float)) and math.isfinite(moved) else 0
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as e:
        raise Stop(f"fio for '{name}' printed no figures fio's JSON gives ({e})", 1)
    if not math.isfinite(value) or value < 0:
        raise Stop(f"fio for '{name}' printed {value} as its figure", 1)
    return value, device_fraction(before, after, direction_of(rw), moved)


def run_iosweep(args, w):
    name, rw, bs, (_, engine), depth, direct, cached = w
    # Unbound, as fio runs: mpirun binds one or two ranks to a core by default, and on a VM whose
    # disk interrupt lands on another core that alone costs a quarter of the QD1 IOPS.
    cmd = iosweep_run_args(args, PHASE[rw], name)
    cmd += ["--engine", engine, "--stonewall", f"{args.runtime_ms}ms"]
    if rw != "write":
        cmd += ["--reuse", args.reuse]
    cmd += ["--seq-record", bs] if rw in ("read", "write") else ["--rand-record", bs]
    if engine != "posix":
        cmd += ["--iodepth", str(depth)]
    if direct:
        cmd.append("--direct")
    if cached:
        cmd += ["--cache", "keep"]
        pre_read(args.iosweep_file)
    timeout = children.job_timeout(args.bytes[args.size], args.runtime)
    what = f"iosweep for '{name}'"
    children.iosweep(args.bin, 1, cmd, timeout, what)
    row = harness.written_run(args.out, what=what, summary=SUMMARY, tables={}).frame().iloc[-1]
    value = row["iops"] if rw.startswith("rand") else row["bandwidth_Bps"] / 2**20
    dev = row.get(f"device_{direction_of(rw)}_bytes", float("nan"))
    return value, (float(dev) / row["bytes"] if row["bytes"] else float("nan"))


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
    ap.add_argument("--bin", default=str(HERE.parent / "build" / "iosweep"), help=cmdline.BIN_HELP)
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    ap.add_argument(
        "--target",
        type=cmdline.number(0, MAX_TARGET),
        default=0.97,
        help="the ratio iosweep / fio a workload must reach for 'ok', above 0 and at most"
        f" {MAX_TARGET:g} (default 0.97)",
    )
    args = ap.parse_args(argv)
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
    """The script; its status (one line and status 130 on Ctrl-C, see iosweep_checks.guard)."""
    return command.guard(_main, argv)


def _main(argv):
    args = parse_args(argv)
    own_dir = None if args.dir else tempfile.mkdtemp(prefix="iosweep-vs-fio.", dir=args.base)
    try:
        work = tempfile.mkdtemp(prefix="bench.", dir=own_dir or args.base)
        rows = measure(args, work)
    finally:
        if own_dir:
            shutil.rmtree(own_dir, ignore_errors=True)
    report(args, rows)
    return 0


def measure(args, work):
    """The rows of the table, measured in `work`, which is removed at the end."""
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
            # fio, iosweep, fio, iosweep, ..., fio: each iosweep run between two fio runs.
            fio_runs, sweep_runs = [run_fio(args, w)], []
            for _ in range(args.pairs):
                sweep_runs.append(run_iosweep(args, w))
                fio_runs.append(run_fio(args, w))
            fio_v, sweep_v = [v for v, _ in fio_runs], [v for v, _ in sweep_runs]
            ratios = []
            for k, s in enumerate(sweep_v):
                ratios += [s / f for f in (fio_v[k], fio_v[k + 1]) if f > 0]
            if ratios:
                median, low, high = ratio_stats(ratios)
                judged = verdict(median, low, high, args.target)
            else:  # fio moved nothing: no ratio
                median = low = high = float("nan")
                judged = "n/a"
            unit = "IOPS" if w[1].startswith("rand") else "MiB/s"
            rows.append(
                (
                    w[0],
                    unit,
                    statistics.median(fio_v),
                    statistics.median(sweep_v),
                    median,
                    low,
                    high,
                    judged,
                    median_or_nan([d for _, d in fio_runs]),
                    median_or_nan([d for _, d in sweep_runs]),
                )
            )
            print(f"  done: {w[0]}", file=sys.stderr)
        return rows
    finally:
        shutil.rmtree(work, ignore_errors=True)


def report(args, rows):
    if args.markdown:
        print(
            "| workload | unit | fio | iosweep | ratio (median of pairs) | 95% interval | verdict "
            "| fio device/claimed | iosweep device/claimed |"
        )
        print("| --- | --- | ---: | ---: | ---: | --- | --- | ---: | ---: |")
        for r in rows:
            print(
                f"| {r[0]} | {r[1]} | {r[2]:.0f} | {r[3]:.0f} | {r[4]:.3f} |"
                f" {r[5]:.3f}-{r[6]:.3f} | {r[7]} | {fraction(r[8])} | {fraction(r[9])} |"
            )
    else:
        print(
            f"{'workload':34} {'unit':6} {'fio':>10} {'iosweep':>10} {'ratio':>7} "
            f"{'95% interval':>13} "
            f"{'verdict':8} {'fio dev':>8} {'iosweep dev':>11}"
        )
        for r in rows:
            print(
                f"{r[0]:34} {r[1]:6} {r[2]:10.0f} {r[3]:10.0f} {r[4]:7.3f} {r[5]:6.3f}-{r[6]:.3f} "
                f"{r[7]:8} {fraction(r[8]):>8} {fraction(r[9]):>11}"
            )
    try:
        version = children.run_child(["fio", "--version"], timeout=30, limit=4096).stdout.strip()
    except (children.ChildError, OSError):
        version = "(version unknown)"
    print(
        "(fio"
        f" {one_line(version)},"
        f" {args.pairs} iosweep run(s) between {args.pairs + 1} fio runs per workload,"
        f" {args.size} file, {args.runtime:g} s per run; ratio = iosweep / fio, median over both"
        f" neighbours of every iosweep run, with a bootstrap 95% interval ({RESAMPLES} resamples,"
        f" seed {SEED}); verdict ok / below target {args.target:g}, unstable when the interval"
        f" reaches beyond ±{SPREAD:.0%} of the median; dev = bytes the device saw in the workload's"
        " direction / bytes the tool reports, median of its runs)"
    )


def median_or_nan(values):
    values = [v for v in values if not math.isnan(v)]
    return statistics.median(values) if values else float("nan")


def fraction(v):
    return "n/a" if math.isnan(v) else f"{v:.2f}"


if __name__ == "__main__":
    sys.exit(main())
