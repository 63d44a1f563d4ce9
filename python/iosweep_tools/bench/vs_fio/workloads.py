"""The workloads of bench-vs-fio and one run of each tool on one of them (fio, then iosweep on the
same file), the pairs of runs judged, and the table.

    layout(args)                        # the file both tools use, written once by iosweep
    row = measure_workload(args, w)     # fio, iosweep, fio, ..., fio: one row of the table
    print(table_text(args, rows), end="")

`args` is the command's checked arguments (bench.vs_fio.cli.parse_args), with the work folder,
the results file and the device set by the command.
"""
import json
import math
import os
import statistics

from iosweep_tools.bench.harness import (
    RESAMPLES,
    SEED,
    SPREAD,
    fraction,
    median_or_nan,
    ratio_stats,
    verdict,
    written_ids,
    written_run,
)
from iosweep_tools.core import children
from iosweep_tools.core.errors import Stop
from iosweep_tools.core.text import one_line
from iosweep_tools.results import fields

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
    # Not in files of an iosweep before them (--bin of an older build): n/a in the table.
    "cpu_user_ns_per_op": (fields.MAYBE, False),
    "cpu_sys_ns_per_op": (fields.MAYBE, False),
}


def fio_cpu_per_op(job, side):
    """(user, system) CPU nanoseconds per operation of one fio job from its JSON: fio's usr_cpu
    and sys_cpu are percent of its job_runtime (ms) of the job process's getrusage (its io_uring
    threads included), so usr_cpu / 100 x job_runtime is its user CPU time; over the
    operations of the workload's direction (total_ios). NaN when fio gives none of them."""
    try:
        runtime_ns = float(job["job_runtime"]) * 1e6
        ios = float(side["total_ios"])
        usr, sys_ = float(job["usr_cpu"]), float(job["sys_cpu"])
    except (KeyError, TypeError, ValueError):
        return math.nan, math.nan
    if not (ios > 0 and math.isfinite(runtime_ns * usr * sys_)):
        return math.nan, math.nan
    return usr / 100 * runtime_ns / ios, sys_ / 100 * runtime_ns / ios


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
    args.reuse = written_ids(args.out)[-1]
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
    return (value, device_fraction(before, after, direction_of(rw), moved)) + fio_cpu_per_op(
        job, side
    )


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
    row = written_run(args.out, what=what, summary=SUMMARY, tables={}).frame().iloc[-1]
    value = row["iops"] if rw.startswith("rand") else row["bandwidth_Bps"] / 2**20
    dev = row.get(f"device_{direction_of(rw)}_bytes", float("nan"))
    cpu = tuple(float(row.get(f, math.nan)) for f in ("cpu_user_ns_per_op", "cpu_sys_ns_per_op"))
    return (value, (float(dev) / row["bytes"] if row["bytes"] else float("nan"))) + cpu


def measure_workload(args, w):
    """One row of the table: fio, iosweep, fio, iosweep, ..., fio on workload `w` (each iosweep
    run between two fio runs), the medians, the ratio with its interval and verdict, and what
    the device saw for each tool."""
    fio_runs, sweep_runs = [run_fio(args, w)], []
    for _ in range(args.pairs):
        sweep_runs.append(run_iosweep(args, w))
        fio_runs.append(run_fio(args, w))
    fio_v, sweep_v = [r[0] for r in fio_runs], [r[0] for r in sweep_runs]
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
    return (
        w[0],
        unit,
        statistics.median(fio_v),
        statistics.median(sweep_v),
        median,
        low,
        high,
        judged,
        median_or_nan([r[1] for r in fio_runs]),
        median_or_nan([r[1] for r in sweep_runs]),
    ) + tuple(
        median_or_nan([r[k] for r in runs]) for runs in (fio_runs, sweep_runs) for k in (2, 3)
    )


def ns(v):
    """CPU nanoseconds per operation as the table prints them; n/a for NaN."""
    return "n/a" if math.isnan(v) else f"{v:.0f}"


def _rows_text(args, rows):
    if args.markdown:
        lines = [
            "| workload | unit | fio | iosweep | ratio (median of pairs) | 95% interval | verdict "
            "| fio device/claimed | iosweep device/claimed | fio usr ns/op | fio sys ns/op "
            "| iosweep usr ns/op | iosweep sys ns/op |",
            "| --- | --- | ---: | ---: | ---: | --- | --- | ---: | ---: "
            "| ---: | ---: | ---: | ---: |",
        ]
        lines += [
            f"| {r[0]} | {r[1]} | {r[2]:.0f} | {r[3]:.0f} | {r[4]:.3f} |"
            f" {r[5]:.3f}-{r[6]:.3f} | {r[7]} | {fraction(r[8])} | {fraction(r[9])} |"
            f" {ns(r[10])} | {ns(r[11])} | {ns(r[12])} | {ns(r[13])} |"
            for r in rows
        ]
        return lines
    lines = [
        f"{'workload':34} {'unit':6} {'fio':>10} {'iosweep':>10} {'ratio':>7} "
        f"{'95% interval':>13} "
        f"{'verdict':8} {'fio dev':>8} {'iosweep dev':>11} {'fio usr':>8} {'fio sys':>8}"
        f" {'sweep usr':>9} {'sweep sys':>9}"
    ]
    lines += [
        f"{r[0]:34} {r[1]:6} {r[2]:10.0f} {r[3]:10.0f} {r[4]:7.3f} {r[5]:6.3f}-{r[6]:.3f} "
        f"{r[7]:8} {fraction(r[8]):>8} {fraction(r[9]):>11} {ns(r[10]):>8} {ns(r[11]):>8}"
        f" {ns(r[12]):>9} {ns(r[13]):>9}"
        for r in rows
    ]
    return lines


def table_text(args, rows):
    """The table (Markdown with --markdown) and the line saying how it was made, fio's version
    first."""
    try:
        version = children.run_child(["fio", "--version"], timeout=30, limit=4096).stdout.strip()
    except (children.ChildError, OSError):
        version = "(version unknown)"
    lines = _rows_text(args, rows)
    lines.append(
        "(fio"
        f" {one_line(version)},"
        f" {args.pairs} iosweep run(s) between {args.pairs + 1} fio runs per workload,"
        f" {args.size} file, {args.runtime:g} s per run; ratio = iosweep / fio, median over both"
        f" neighbours of every iosweep run, with a bootstrap 95% interval ({RESAMPLES} resamples,"
        f" seed {SEED}); verdict ok / below target {args.target:g}, unstable when the interval"
        f" reaches beyond ±{SPREAD:.0%} of the median; dev = bytes the device saw in the workload's"
        " direction / bytes the tool reports, median of its runs; usr and sys = each tool's user"
        " and system CPU nanoseconds per operation, median of its runs: fio's usr_cpu and sys_cpu"
        " of its job_runtime over its total_ios, iosweep's cpu_user_ns_per_op and"
        " cpu_sys_ns_per_op, its ranks' CPU inside the timed window)"
    )
    return "".join(line + "\n" for line in lines)
