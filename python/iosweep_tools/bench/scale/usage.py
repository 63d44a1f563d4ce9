"""scale-check's job (the whole 1..N sweep in one launch, memory sampled while it runs) and what
its results file says of its ranks.

    cmd = sweep_command(args, data, out)
    wall_s, before, low, p = run_job(args, cmd, hosts)     # p: mpirun's CompletedProcess
    print(report_text(args, read_usage(out), wall_s, before, low), end="")
    run, line = job_failure(out, p)                         # when mpirun did not exit with 0
"""
import statistics
import threading
import time

from iosweep_tools.bench.harness import written_run
from iosweep_tools.core.children import job_timeout, launched, said_lines, sweep_points
from iosweep_tools.core.errors import Stop
from iosweep_tools.core.files import mem_available
from iosweep_tools.core.launch import mpirun
from iosweep_tools.core.text import shown
from iosweep_tools.results import fields
from iosweep_tools.results.file import ResultsError
from iosweep_tools.results.reader import read

MAX_RANKS = 16384
MAX_NODES = 1024
MAX_SIZE = 64 << 30
MAX_MD_ITEMS = 1 << 20  # items per rank: scale-check is about ranks, not items
DEFAULT_MD_ITEMS = 8
RANK_BYTES = 16 << 20  # what one rank of the sweep takes (docs/scaling.md: 6.1 GiB for 512)
# The phases of a run without --config, in order (iosweep's default --phases).
PHASES = ["seq-write", "seq-read", "rand-write", "rand-read", "scan-only", "filter-count"]
MD_FLOOR_OPS = 100  # metadata operations per second any storage being measured exceeds
SUMMARY = {
    "ranks": fields.POSITIVE,
    "nodes": fields.POSITIVE,
    "overhead_s": fields.FIGURE,
    "ops": fields.ID,
    "iops": fields.FIGURE,
    "stonewalled": fields.FLAG,
    "md_items": fields.ID,
    "md_folders": fields.ID,
}
ATTRS = {
    "points": (fields.COUNTS, True),
    "repetitions": (fields.POSITIVE, True),
    "md_items": (fields.ID, True),
    "md_items_total": (fields.ID, True),
}
RANKS = {"point": fields.ID, "node": fields.ID, "ops": fields.ID}
RANK_MAP = {"rank": fields.ID, "node": fields.ID}
USAGE = {
    "rss_peak_bytes": fields.ID,
    "private_peak_bytes": fields.ID,
    "private_idle_peak_bytes": fields.ID,
    "cpu_user_s": fields.FIGURE,
    "cpu_sys_s": fields.FIGURE,
}


class MemSampler(threading.Thread):
    """The lowest MemAvailable seen while the job runs."""

    def __init__(self, period_s=0.2):
        super().__init__(daemon=True)
        self.period_s = period_s
        self.low = mem_available()
        self.stop = threading.Event()

    def run(self):
        while not self.stop.wait(self.period_s):
            self.low = min(self.low, mem_available() or self.low)


def mib(b):
    return b / 1048576.0


def sweep_command(args, data, out):
    """The options of `iosweep run`: the sweep 1:--ranks of every phase (of --config's phases
    with it, the metadata phases at --md-items per rank), 1 MiB sequential records, files of
    --size in `data`, the results appended to `out`."""
    cmd = ["run", "--dir", str(data)]
    if args.config:
        cmd += ["--config", args.config, "--md-items", str(args.md_items)]
    cmd += ["--file-size", args.size, "--seq-record", "1MiB"]
    cmd += ["--sweep", f"1:{args.ranks}", "--output", str(out), "--quiet"]
    return cmd + (["--direct"] if args.direct else [])


def job_seconds(args):
    """The job's timeout (core.children.job_timeout): its data files' bytes and its metadata
    operations at MD_FLOOR_OPS, over every point of the sweep and repetition."""
    ranks_over_points = sum(sweep_points(args.ranks)) * args.plan.repetitions
    moved = ranks_over_points * args.size_bytes * len(args.plan.data_phases())
    md_ops = ranks_over_points * args.plan.md_inodes_per_rank * len(args.plan.md_phases())
    return job_timeout(moved, md_ops / MD_FLOOR_OPS, args.ranks)


def run_job(args, cmd, hosts):
    """Runs the job (mpirun's own binding; over the emulated nodes of `hosts`); returns (its wall
    time in s, MemAvailable before it, the lowest MemAvailable while it ran, mpirun's
    CompletedProcess, whatever its exit status: job_failure says what a non-zero one means)."""
    sampler = MemSampler()
    before = sampler.low
    sampler.start()
    t0 = time.monotonic()
    try:
        timeout = job_seconds(args)
        launch, env = mpirun(args.ranks, hosts, bind=True)
        p = launched(launch + [str(args.bin)] + cmd, timeout, "the job", env)
    finally:
        wall_s = time.monotonic() - t0
        sampler.stop.set()
        sampler.join()
    return wall_s, before, sampler.low, p


def job_failure(out, p, most=6):
    """(the run the job wrote, when it is complete with every point of its sweep, else None; the
    line that says what happened) for a job whose mpirun exited with a status other than 0:
    mpirun's status, the run's status, points and message as the results file `out` holds
    them, and the lines mpirun and the ranks printed (at most `most`, Open MPI's NOISE left
    out). mpirun's status is not the run's: it also counts its daemons' and ranks' exits after
    the run was written."""
    said = said_lines(p.stderr) or said_lines(p.stdout)
    told = " | ".join(said[:most]) + (
        f" | ... ({len(said) - most} more)" if len(said) > most else ""
    )
    try:
        run = read(out, summary={"ranks": fields.POSITIVE}, attrs={"points": (fields.COUNTS, True)})
    except ResultsError as e:
        state = f"no run could be read from it ({e})"
        run = None
    else:
        swept = {int(k) for k in run.summary["ranks"]}
        points = run.attrs["points"]
        done = sum(k in swept for k in points)
        state = f"run {run.id} is {run.status_name}, {done} of {len(points)} points"
        if run.attrs.get("status_message"):
            state += f" ({run.attrs['status_message']})"
        if run.status_name != "complete" or done != len(points):
            run = None
    line = (
        f"the job: mpirun exited {p.returncode}; in {shown(str(out))} {state};"
        f" it said: {told or 'nothing'}"
    )
    return run, line


def read_usage(out):
    """The run the job wrote, with its points, its summary's overhead and counts, and its
    rank_usage, ranks and rank_map rows checked; Stop (status 1) when it has no rank_usage
    rows."""
    tables = {"rank_usage": USAGE, "ranks": RANKS, "rank_map": RANK_MAP}
    run = written_run(out, what="the job", summary=SUMMARY, attrs=ATTRS, tables=tables)
    if not len(run.tables["rank_usage"]):
        raise Stop(f"the job wrote no rank_usage rows in run {run.id} of {out}", 1)
    return run


def report_text(args, run, wall_s, before, low):
    """What the job took: wall time, the machine's memory, each rank's memory and CPU time, and
    the time outside the timed windows."""
    usage, over = run.tables["rank_usage"], list(run.summary["overhead_s"])
    rss = sorted(int(v) for v in usage["rss_peak_bytes"])
    idle = sorted(int(v) for v in usage["private_idle_peak_bytes"] if v > 0)
    private = sorted(int(v) for v in usage["private_peak_bytes"])
    cpu = [float(u) + float(s) for u, s in zip(usage["cpu_user_s"], usage["cpu_sys_s"])]
    per_point = {}  # sweep point (active ranks) -> overhead of all its phase rows
    for k, o in zip(run.summary["ranks"], over):
        per_point[int(k)] = per_point.get(int(k), 0.0) + float(o)
    where = (
        f"{args.nodes} emulated nodes x {args.slots} slots, round-robin"
        if args.nodes
        else "one machine"
    )
    what = f"{args.size} per rank"
    if getattr(args, "io500", False):
        what = f"iosweep io500: ior-easy {args.size} per rank, {args.md_items} items per rank"
    elif args.config:
        what = f"--config {args.config} ({', '.join(args.plan.phases)})"
        what += f", {args.md_items} items per rank" if args.plan.md_phases() else ""
        what += f", {args.size} per rank" if args.plan.data_phases() else ""
    io500 = getattr(args, "io500", False)
    points_text = "one point" if io500 else f"sweep 1:{args.ranks}"
    lines = [
        f"{args.ranks} ranks ({where}), {points_text}, {what},"
        f" {len(run.attrs['points'])} points",
        f"wall time of the whole job: {wall_s:.1f} s",
        "machine memory: MemAvailable fell by at most"
        f" {mib(before - low) / 1024:.2f} GiB (from {mib(before) / 1024:.1f} GiB)",
        f"peak RSS per rank: min {mib(rss[0]):.1f} MiB, median"
        f" {mib(rss[len(rss) // 2]):.1f} MiB, max {mib(rss[-1]):.1f} MiB (shared library pages"
        " included)",
        "held alone at most (active or idle), per rank: median"
        f" {mib(private[len(private) // 2]):.1f} MiB, max {mib(private[-1]):.1f} MiB",
    ]
    if idle:
        lines.append(
            f"held alone while idle, per rank: median {mib(idle[len(idle) // 2]):.1f} MiB, "
            f"max {mib(idle[-1]):.1f} MiB"
        )
    lines.append(f"CPU time per rank: median {statistics.median(cpu):.1f} s, max {max(cpu):.1f} s")
    lines.append(
        "outside the timed windows, per phase row: median"
        f" {statistics.median(over) * 1e3:.1f} ms, max {max(over) * 1e3:.1f} ms; per point (all"
        f" phases): max {max(per_point.values()) * 1e3:.1f} ms"
    )
    return "".join(line + "\n" for line in lines)
