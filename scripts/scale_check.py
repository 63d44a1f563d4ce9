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
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import iosweep_common as common

HERE = Path(__file__).resolve().parent


def mem_available_bytes():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("/proc/meminfo has no MemAvailable")


class MemSampler(threading.Thread):
    """The lowest MemAvailable seen while the job runs."""

    def __init__(self, period_s=0.2):
        super().__init__(daemon=True)
        self.period_s = period_s
        self.low = mem_available_bytes()
        self.stop = threading.Event()

    def run(self):
        while not self.stop.wait(self.period_s):
            self.low = min(self.low, mem_available_bytes())


def mib(b):
    return b / 1048576.0


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--ranks", type=int, default=64, help="ranks of the job (default 64)")
    ap.add_argument(
        "--nodes",
        type=int,
        default=0,
        help="emulated nodes to spread them over (default 0: this machine, --oversubscribe)",
    )
    ap.add_argument(
        "--slots",
        type=int,
        default=0,
        help="slots per emulated node (default ranks / nodes, rounded up)",
    )
    ap.add_argument("--size", default="4m", help="file size per rank (default 4m)")
    ap.add_argument(
        "--direct",
        action="store_true",
        help="O_DIRECT: no page cache, so no kernel write-back sharing the cores with the ranks",
    )
    ap.add_argument(
        "--dir", help="folder to make the run's folder in (default /var/tmp); removed at the end"
    )
    ap.add_argument(
        "--output", help="keep the results file here, a new file (default: removed at the end)"
    )
    ap.add_argument(
        "--bin", default=str(HERE.parent / "build" / "iosweep"), help="the iosweep binary"
    )
    args = ap.parse_args()

    if args.ranks < 1:
        common.fail(f"--ranks: must be at least 1 (found {args.ranks})")
    if args.nodes < 0:
        common.fail(f"--nodes: must be 0 or more (found {args.nodes})")
    if not os.access(args.bin, os.X_OK):
        common.fail(f"--bin: {args.bin} is not an executable (cmake --build build)")
    try:  # iosweep's own parser and message
        (size_bytes,) = common.units(args.bin, args.size)
    except common.UnitsError as e:
        common.fail(f"--size: {e}" if e.status == 2 else f"--bin: {e}")
    if size_bytes == 0:
        common.fail("--size: must be more than 0 bytes")
    if args.dir and not os.path.isdir(args.dir):
        common.fail(f"--dir: {args.dir} is not a folder")
    if args.output and os.path.lexists(args.output):
        common.fail(f"--output: {args.output} exists; scale-check writes a new results file")
    if args.nodes:
        why_not = common.can_emulate()
        if why_not:
            common.fail(f"--nodes: {why_not}")
    slots = args.slots or -(-args.ranks // max(args.nodes, 1))
    if args.nodes and slots * args.nodes < args.ranks:
        common.fail(
            f"--slots: {args.nodes} nodes x {slots} slots hold fewer than {args.ranks} ranks"
        )

    with tempfile.TemporaryDirectory(prefix="iosweep-scale.", dir="/var/tmp") as work:
        work = Path(work)
        data = (
            Path(tempfile.mkdtemp(prefix="iosweep-scale.", dir=args.dir))
            if args.dir
            else work / "data"
        )
        data.mkdir(exist_ok=True)
        out = Path(args.output) if args.output else work / "r.h5"
        env = common.launch_env()
        cmd = ["mpirun", "-np", str(args.ranks)]
        if args.nodes:
            hosts = work / "nodes"
            hosts.write_text("".join(f"node{i + 1:02d} slots={slots}\n" for i in range(args.nodes)))
            cmd += ["--hostfile", str(hosts), "--map-by", "node"]
            env = common.emulated_env(env)
        else:
            cmd += ["--oversubscribe"]
        cmd += [
            args.bin,
            "run",
            "--dir",
            str(data),
            "--file-size",
            args.size,
            "--seq-record",
            "1MiB",
            "--sweep",
            f"1:{args.ranks}",
            "--output",
            str(out),
            "--quiet",
        ] + (["--direct"] if args.direct else [])
        print("scale-check:", " ".join(cmd), flush=True)
        sampler = MemSampler()
        before = sampler.low
        sampler.start()
        t0 = time.monotonic()
        p = subprocess.run(cmd, env=env, capture_output=True, text=True)
        wall_s = time.monotonic() - t0
        sampler.stop.set()
        sampler.join()
        if args.dir:
            shutil.rmtree(data, ignore_errors=True)
        if p.returncode != 0:
            said = [ln for ln in p.stderr.splitlines() if ln.startswith("iosweep:")] or [
                ln.strip() for ln in p.stderr.splitlines() if ln.strip().strip("-")
            ]
            common.fail(
                f"the job failed (status {p.returncode}): {said[0] if said else 'no message'}", 1
            )

        with common.open_results(out) as f:
            run = common.pick_run(f)[1]
            usage = run["rank_usage"][()]
            summary = run["summary"][()]
            npoints = len(run.attrs["points"])
        rss = sorted(int(v) for v in usage["rss_peak_bytes"])
        idle = sorted(int(v) for v in usage["private_idle_peak_bytes"] if v > 0)
        cpu = [float(u) + float(s) for u, s in zip(usage["cpu_user_s"], usage["cpu_sys_s"])]
        over = summary["overhead_s"]
        per_point = {}  # sweep point (active ranks) -> overhead of all its phase rows
        for row in summary:
            key = int(row["ranks"])
            per_point[key] = per_point.get(key, 0.0) + float(row["overhead_s"])

        where = (
            f"{args.nodes} emulated nodes x {slots} slots, round-robin"
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
