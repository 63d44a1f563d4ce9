"""streams-curve: the 4 KiB random-read curve from 1 to MAX streams made two ways on this
machine, side by side, with the CPU time each point needed.

  ranks alone      one stream per rank, as IOzone's threads: mpirun -np R (R as far as memory
                   allows, --ranks-max), iosweep --streams 1:R, every point at depth 1
  2 ranks x depth  mpirun -np 2, iosweep --streams 1:MAX: 1 and 2 streams as ranks, then the two
                   ranks at depth 2, 4 ... MAX/2

Both runs use the same engine (--engine, io_uring by default), 4 KiB records, O_DIRECT (unless
--no-direct) and rand-read only, each rank reading its own file (written untimed first); every
point runs --seconds (iosweep's --stonewall) so that points of any size take the same time, unless
its ranks read every record of their files first (the table's `window s` says how long it ran).
CPU time is getrusage per rank over each timed window (user + system, all threads), summed over
the ranks of the point (the summary's cpu_s): per point and per operation.

    scripts/streams-curve --dir /var/tmp/curve --size 1g --max 1024 --seconds 5 -o curve.png

The table is Markdown (for docs/performance.md); -o also draws IOPS and CPU per operation
against streams (log2). The results are appended to --output (default: a file in a temporary
folder, removed with the run's files at the end).
"""
import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import iosweep_load
from iosweep_common import fail, launch_env

HERE = Path(__file__).resolve().parent
CURVES = ("ranks alone", "2 ranks x depth")


def mem_available():
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    return 0


def ranks_max(args):
    """--ranks-max, or the largest power of two up to --max whose ranks fit half of MemAvailable
    at --rank-mib each."""
    if args.ranks_max:
        return min(args.ranks_max, args.max)
    fit = mem_available() // 2 // (args.rank_mib << 20)
    r = 1
    while r * 2 <= min(fit, args.max):
        r *= 2
    return r


def run_curve(args, np_, most, label, work, out, size):
    """One curve: `np_` ranks, streams 1 .. `most` (depth 1 up to np_ streams), `size` per rank."""
    cmd = [
        "mpirun",
        "--bind-to",
        "none",
        "--oversubscribe",
        "-np",
        str(np_),
        args.bin,
        "run",
        "--dir",
        work,
        "--engine",
        args.engine,
        "--streams",
        f"1:{most}",
        "--phases",
        "rand-read",
        "--rand-record",
        "4KiB",
        "--file-size",
        size,
        "--stonewall",
        str(args.seconds),
        "--repetitions",
        str(args.repetitions),
        "--label",
        label,
        "--output",
        out,
        "--quiet",
    ] + (["--direct"] if args.direct else [])
    p = subprocess.run(cmd, capture_output=True, text=True, env=launch_env())
    if p.returncode != 0:
        said = [ln for ln in p.stderr.splitlines() if ln.startswith("iosweep:")] or [
            ln.strip() for ln in p.stderr.splitlines() if ln.strip().strip("-")
        ]  # not Open MPI's rules
        fail(
            f"{label}: iosweep exited {p.returncode}: {said[0] if said else 'no message'}",
            status=2 if p.returncode == 2 else 1,
        )
    print(f"  done: {label} ({np_} ranks)", file=sys.stderr)


def curves(summary):
    """{curve label: {streams: {ranks, depth, iops, cpu_s, cpu_us_per_op}}}, medians over the
    repetitions (rand_read rows only)."""
    out = {}
    for label in CURVES:
        d = summary[(summary["label"] == label) & (summary["phase_name"] == "rand_read")]
        points = {}
        for s in sorted(d["streams"].unique()):
            at = d[d["streams"] == s]
            per_op = at["cpu_s"] / at["ops"].clip(lower=1) * 1e6
            points[int(s)] = {
                "ranks": int(at["ranks"].iloc[0]),
                "depth": int(at["iodepth"].iloc[0]),
                "iops": float(at["iops"].median()),
                "cpu_s": float(at["cpu_s"].median()),
                "wall_s": float(at["wall_s"].median()),
                "cpu_us_per_op": float(per_op.median()),
            }
        out[label] = points
    return out


def markdown(c):
    rows = [
        (
            "| streams | ranks alone: ranks | window s | IOPS | CPU s | CPU µs/op "
            "| 2 ranks x depth: ranks x depth | window s | IOPS | CPU s | CPU µs/op |"
        ),
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    a, b = c[CURVES[0]], c[CURVES[1]]
    for s in sorted(set(a) | set(b)):
        cells = [str(s)]
        x = a.get(s)
        cells += (
            [
                str(x["ranks"]),
                f"{x['wall_s']:.2f}",
                f"{x['iops']:.0f}",
                f"{x['cpu_s']:.3f}",
                f"{x['cpu_us_per_op']:.1f}",
            ]
            if x
            else ["-"] * 5
        )
        y = b.get(s)
        cells += (
            [
                f"{y['ranks']} x {y['depth']}",
                f"{y['wall_s']:.2f}",
                f"{y['iops']:.0f}",
                f"{y['cpu_s']:.3f}",
                f"{y['cpu_us_per_op']:.1f}",
            ]
            if y
            else ["-"] * 5
        )
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def draw(c, path, title):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 5), dpi=100)
    for label, style in zip(CURVES, ("o-", "s-")):
        pts = sorted(c[label].items())
        if not pts:
            continue
        xs = [s for s, _ in pts]
        left.plot(xs, [p["iops"] for _, p in pts], style, label=label)
        right.plot(xs, [p["cpu_us_per_op"] for _, p in pts], style, label=label)
    for ax, ylabel in (
        (left, "IOPS (4 KiB random reads/s)"),
        (right, "CPU time per operation (µs, all ranks)"),
    ):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("streams (log2)")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    left.set_title("random read")
    right.set_title("CPU per operation (getrusage per rank)")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument(
        "--dir", help="folder on the storage to measure (default: a new folder in /var/tmp)"
    )
    ap.add_argument("--size", default="256m", help="file per rank (default 256m)")
    ap.add_argument(
        "--alone-size",
        help=(
            "file per rank of the ranks-alone curve (default --size): many ranks "
            "need smaller files, few ranks at a high depth larger ones to fill --seconds"
        ),
    )
    ap.add_argument(
        "--max", type=int, default=1024, help="most streams, a power of two >= 2 (default 1024)"
    )
    ap.add_argument(
        "--ranks-max",
        type=int,
        default=0,
        help=(
            "most ranks of the ranks-alone curve (default: what half of MemAvailable holds at "
            "--rank-mib per rank, as a power of two up to --max)"
        ),
    )
    ap.add_argument(
        "--rank-mib", type=int, default=32, help="memory one rank takes, MiB (default 32)"
    )
    ap.add_argument(
        "--seconds", type=float, default=5.0, help="time per point (--stonewall; default 5)"
    )
    ap.add_argument("--repetitions", type=int, default=1, help="repetitions per point (default 1)")
    ap.add_argument("--engine", default="uring", help="engine of both curves (default uring)")
    ap.add_argument(
        "--direct",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="O_DIRECT (default on; --no-direct for a file system without it)",
    )
    ap.add_argument("--output", help="results file to append both runs to (default: temporary)")
    ap.add_argument("-o", "--png", help="also draw the curves into this image (.png, .svg, .pdf)")
    ap.add_argument("--bin", default=str(HERE.parent / "build" / "iosweep"), help="iosweep binary")
    args = ap.parse_args()
    if not os.access(args.bin, os.X_OK):
        fail(f"--bin: {args.bin} is not an executable")
    if args.max < 2 or args.max & (args.max - 1):
        fail(f"--max: {args.max} is not a power of two of at least 2")
    if not args.seconds > 0 or args.repetitions < 1 or args.rank_mib < 1 or args.ranks_max < 0:
        fail("--seconds, --repetitions and --rank-mib must be positive, --ranks-max at least 0")
    base = args.dir or "/var/tmp"
    if not os.path.isdir(base):
        fail(f"--dir: {base} is not a folder")
    work = tempfile.mkdtemp(prefix="iosweep-streams.", dir=base)
    out = args.output or os.path.join(work, "streams.h5")
    r_max = ranks_max(args)
    try:
        run_curve(args, r_max, r_max, CURVES[0], work, out, args.alone_size or args.size)
        run_curve(args, 2, args.max, CURVES[1], work, out, args.size)
        runs, summary = iosweep_load.load(out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    c = curves(summary[summary["run_id"].isin(runs["run_id"].tail(2))])
    print(markdown(c))
    print()
    print(
        f"4 KiB random reads, engine {args.engine},"
        f" {'O_DIRECT' if args.direct else 'page cache dropped'},"
        f" {args.alone_size or args.size} per rank alone and {args.size} per rank of 2,"
        f" {args.seconds:g} s per point at most (--stonewall; window s: the median window, shorter"
        " when a rank read every record of its file first), median of"
        f" {args.repetitions} repetition(s). ranks alone: 1 .. {r_max} ranks at depth 1; 2 ranks x"
        f" depth: 1 and 2 ranks, then 2 ranks at depth 2 .. {args.max // 2}. CPU s: user + system"
        " time of all ranks in the timed window (getrusage; the summary's cpu_s); CPU µs/op: that"
        " over the operations completed."
    )
    if args.png:
        draw(
            c,
            args.png,
            (
                "iosweep: 4 KiB random read by streams, ranks alone vs 2 ranks x depth"
                f" ({args.engine})"
            ),
        )
        print(f"written: {args.png}")
    return 0 if all(not math.isnan(p["iops"]) for v in c.values() for p in v.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
