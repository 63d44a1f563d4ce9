"""Many ranks in one launch: the whole 1..N sweep, its wall time, memory and overhead.

    scripts/scale-check --ranks 64                          # one machine, --oversubscribe
    scripts/scale-check --ranks 512 --nodes 16 --size 1m    # the published layout, emulated

Runs `iosweep run --sweep 1:N` over all five phases with small files (--size, 1 MiB sequential
records) and reports, from the job itself and from the results file it wrote:
- the wall time of the whole job (mpirun start to exit);
- the machine's memory: the largest drop of MemAvailable (/proc/meminfo, sampled every 0.2 s)
  below its value before the launch, which counts every process of the job once (ranks, orteds,
  mpirun) and shared pages once;
- each rank's own figures from the run's `rank_usage` table: peak resident memory (getrusage,
  shared library pages included), the largest memory it held alone while idle, and CPU time;
- the time each point spent outside its timed windows (the summary's `overhead_s`).

With --nodes, the ranks are spread over that many emulated nodes (scripts/cluster/emu-rsh, root
only), --slots per node, placed round-robin (`--map-by node`), as a threadlist of nodes would
place IOzone's threads. Not a CI test (tests/cluster runs a smaller one); docs/scaling.md
records its figures.

Every argument is checked before anything is made (one line, status 2): the bounds --help
gives, --size by iosweep's own parser (a multiple of the 1 MiB record), the files of the
largest point within --dir's free space, the ranks within MemAvailable (about 16 MiB each), and
--output a new file in an existing folder. The job is stopped when it runs far past what it was
asked for (iosweep_checks.job_timeout); Ctrl-C stops it and removes the run's folder.
"""
import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from iosweep_tools.core import children, cmdline, command, files, launch, units
from iosweep_tools.bench import harness
from iosweep_tools.results import fields
from iosweep_tools.core.errors import Stop


HERE = Path(__file__).resolve().parent
MAX_RANKS = 16384
MAX_NODES = 1024
MAX_SIZE = 64 << 30
RANK_BYTES = 16 << 20  # what one rank of the sweep takes (docs/scaling.md: 6.1 GiB for 512)
PHASES = 6  # seq-write, seq-read, rand-write, rand-read, scan-only, filter-count
SUMMARY = {"ranks": fields.POSITIVE, "overhead_s": fields.FIGURE}
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
        self.low = files.mem_available()
        self.stop = threading.Event()

    def run(self):
        while not self.stop.wait(self.period_s):
            self.low = min(self.low, files.mem_available() or self.low)


def mib(b):
    return b / 1048576.0


def parse_args(argv):
    ap = cmdline.Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--ranks",
        type=cmdline.count(1, MAX_RANKS),
        default=64,
        help=f"ranks of the job, 1 to {MAX_RANKS} (default 64)",
    )
    ap.add_argument(
        "--nodes",
        type=cmdline.count(0, MAX_NODES),
        default=0,
        help=f"emulated nodes to spread them over, at most {MAX_NODES} (default 0: this machine,"
        " --oversubscribe)",
    )
    ap.add_argument(
        "--slots",
        type=cmdline.count(0, MAX_RANKS),
        default=0,
        help=f"slots per emulated node, with --nodes, at most {MAX_RANKS} (default 0: ranks /"
        " nodes, rounded up)",
    )
    ap.add_argument(
        "--size",
        default="4m",
        help="file size per rank (default 4m; a multiple of 1 MiB, at most 64 GiB)",
    )
    ap.add_argument(
        "--direct",
        action="store_true",
        help="O_DIRECT: no page cache, so no kernel write-back sharing the cores with the ranks",
    )
    ap.add_argument(
        "--dir",
        help="an existing folder to make the run's folder in (default /var/tmp); removed at the"
        " end",
    )
    ap.add_argument(
        "--output",
        help="keep the results file here, a new file in an existing folder (default: removed at"
        " the end)",
    )
    ap.add_argument("--bin", default=str(HERE.parent / "build" / "iosweep"), help=cmdline.BIN_HELP)
    args = ap.parse_args(argv)
    if args.nodes > args.ranks:
        raise Stop(f"--nodes: {args.nodes} nodes for {args.ranks} ranks leave nodes empty")
    if args.slots and not args.nodes:
        raise Stop("--slots: only with --nodes (emulated nodes)")
    args.bin = cmdline.binary("--bin", args.bin)
    args.dir = files.work_folder("--dir", args.dir or "/var/tmp")
    if args.output:
        args.output = files.output_file("--output", args.output, new=True, what="results file")
    if args.nodes:
        why_not = launch.can_emulate()
        if why_not:
            raise Stop(f"--nodes: {why_not}")
    args.slots = args.slots or -(-args.ranks // max(args.nodes, 1))
    if args.nodes and args.slots * args.nodes < args.ranks:
        raise Stop(
            f"--slots: {args.nodes} nodes x {args.slots} slots hold fewer than {args.ranks} ranks"
        )
    (args.size_bytes,) = units.sizes(
        args.bin,
        (
            "--size",
            args.size,
            {"hi": MAX_SIZE, "multiple": 1 << 20, "multiple_why": "the 1 MiB sequential record"},
        ),
    )
    files.check_memory("--ranks", args.ranks, RANK_BYTES)
    files.check_space("--size", args.dir, args.ranks, args.size_bytes)
    return args


def main(argv=None):
    """The script; its status (one line and status 130 on Ctrl-C, see iosweep_checks.guard)."""
    return command.guard(_main, argv)


def _main(argv):
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="iosweep-scale.", dir=args.dir) as work:
        work = Path(work)
        data = work / "data"
        data.mkdir()
        out = Path(args.output) if args.output else work / "r.h5"
        hosts = (
            launch.emulated_nodes(work / "nodes", args.nodes, args.slots) if args.nodes else None
        )
        cmd = ["run", "--dir", str(data), "--file-size", args.size, "--seq-record", "1MiB"]
        cmd += ["--sweep", f"1:{args.ranks}", "--output", str(out), "--quiet"]
        cmd += ["--direct"] if args.direct else []
        mpirun = launch.mpirun(args.ranks, hosts, bind=True)[0]
        print("scale-check:", " ".join(mpirun + [args.bin] + cmd), flush=True)
        moved = sum(children.sweep_points(args.ranks)) * args.size_bytes * PHASES
        sampler = MemSampler()
        before = sampler.low
        sampler.start()
        t0 = time.monotonic()
        try:
            timeout = children.job_timeout(moved, 0, args.ranks)
            children.iosweep(args.bin, args.ranks, cmd, timeout, "the job", hosts, bind=True)
        finally:
            wall_s = time.monotonic() - t0
            sampler.stop.set()
            sampler.join()
        points = {"points": (fields.COUNTS, True)}
        run = harness.written_run(
            out, what="the job", summary=SUMMARY, attrs=points, tables={"rank_usage": USAGE}
        )
        usage, over = run.tables["rank_usage"], list(run.summary["overhead_s"])
        if not len(usage):
            raise Stop(f"the job wrote no rank_usage rows in run {run.id} of {out}", 1)
        npoints = len(run.attrs["points"])
        rss = sorted(int(v) for v in usage["rss_peak_bytes"])
        idle = sorted(int(v) for v in usage["private_idle_peak_bytes"] if v > 0)
        cpu = [float(u) + float(s) for u, s in zip(usage["cpu_user_s"], usage["cpu_sys_s"])]
        per_point = {}  # sweep point (active ranks) -> overhead of all its phase rows
        for k, o in zip(run.summary["ranks"], over):
            per_point[int(k)] = per_point.get(int(k), 0.0) + float(o)

        where = (
            f"{args.nodes} emulated nodes x {args.slots} slots, round-robin"
            if args.nodes
            else "one machine"
        )
        print(
            f"{args.ranks} ranks ({where}), sweep 1:{args.ranks}, {args.size} per rank,"
            f" {npoints} points"
        )
        print(f"wall time of the whole job: {wall_s:.1f} s")
        print(
            "machine memory: MemAvailable fell by at most"
            f" {mib(before - sampler.low) / 1024:.2f} GiB (from {mib(before) / 1024:.1f} GiB)"
        )
        print(
            f"peak RSS per rank: min {mib(rss[0]):.1f} MiB, median"
            f" {mib(rss[len(rss) // 2]):.1f} MiB, max {mib(rss[-1]):.1f} MiB (shared library pages"
            " included)"
        )
        private = sorted(int(v) for v in usage["private_peak_bytes"])
        print(
            "held alone at most (active or idle), per rank: median"
            f" {mib(private[len(private) // 2]):.1f} MiB, max {mib(private[-1]):.1f} MiB"
        )
        if idle:
            print(
                f"held alone while idle, per rank: median {mib(idle[len(idle) // 2]):.1f} MiB, "
                f"max {mib(idle[-1]):.1f} MiB"
            )
        print(f"CPU time per rank: median {statistics.median(cpu):.1f} s, max {max(cpu):.1f} s")
        print(
            "outside the timed windows, per phase row: median"
            f" {statistics.median(over) * 1e3:.1f} ms, max {max(over) * 1e3:.1f} ms; per point (all"
            f" phases): max {max(per_point.values()) * 1e3:.1f} ms"
        )


if __name__ == "__main__":
    sys.exit(main())
