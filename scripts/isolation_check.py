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
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import iosweep_common as common

HERE = Path(__file__).resolve().parent
WORKLOADS = [  # name, phase, extra options, column of the summary, unit
    ("rand-read 4 KiB QD1 O_DIRECT", "rand-read", ["--stonewall", "3s"], "iops", "IOPS"),
    ("seq-read 16 MiB O_DIRECT", "seq-read", [], "bandwidth_Bps", "MiB/s"),
    # The same with buffers in 2 MiB huge pages: equally contiguous in both jobs, so the device
    # sees the same request sizes and the ratio is the idle ranks' effect alone.
    ("seq-read 16 MiB O_DIRECT --hugepages", "seq-read", ["--hugepages"], "bandwidth_Bps", "MiB/s"),
]


def run(args, n, extra_env=None, hostfile=None):
    """One job; returns the figure of its last summary row (or fails with iosweep's message)."""
    env = common.launch_env()
    cmd = ["mpirun", "--bind-to", "none", "-np", str(n)]
    if hostfile:
        cmd += ["--hostfile", hostfile, "--map-by", "node"]
        env = common.emulated_env(env)
    else:
        cmd += ["--oversubscribe"]
    p = subprocess.run(cmd + [args.bin] + args.iosweep, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        common.fail(f"iosweep failed ({' '.join(cmd)}): {p.stderr.strip()[:400]}", 1)


def figure(out, column, unit):
    """(the figure of the last run's last summary row, the mean size of the read requests the
    device completed in that phase, bytes; NaN without device counters)."""
    with common.open_results(out) as f:
        run = common.pick_run(f)[1]
        row = run["summary"][-1]
        v = float(row[column])
        dev = (
            [d for d in run["device"][()] if d["counted"] and int(d["point"]) == int(row["point"])]
            if "device" in run
            else []
        )
    ops = sum(int(d["read_ops"]) for d in dev)
    request = sum(int(d["read_bytes"]) for d in dev) / ops if ops else float("nan")
    return (v / 1048576.0 if unit == "MiB/s" else v), request


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--dir",
        help=(
            "folder on the disk to measure, where a folder of its own is made and removed "
            "at the end (default /var/tmp)"
        ),
    )
    ap.add_argument("--size", default="1g", help="the kept file's size (default 1g)")
    ap.add_argument(
        "--pairs", type=int, default=5, help="alternating pairs per comparison (default 5)"
    )
    ap.add_argument(
        "--ranks", type=int, default=64, help="ranks of the one-machine job (default 64)"
    )
    ap.add_argument(
        "--emulated-ranks", type=int, default=128, help="ranks over emulated nodes (default 128)"
    )
    ap.add_argument("--emulated-nodes", type=int, default=16, help="emulated nodes (default 16)")
    ap.add_argument(
        "--bin", default=str(HERE.parent / "build" / "iosweep"), help="the iosweep binary"
    )
    args = ap.parse_args()
    if args.pairs < 1:
        common.fail("--pairs: must be at least 1")
    for option, n in (("--ranks", args.ranks), ("--emulated-ranks", args.emulated_ranks)):
        if n < 2:
            common.fail(f"{option}: the large job needs at least 2 ranks (found {n})")
    if args.emulated_nodes < 1 or args.emulated_nodes > args.emulated_ranks:
        common.fail(
            f"--emulated-nodes: must be from 1 to --emulated-ranks ({args.emulated_ranks}); "
            f"found {args.emulated_nodes}"
        )
    if not os.access(args.bin, os.X_OK):
        common.fail(f"--bin: {args.bin} is not an executable (cmake --build build)")
    try:  # iosweep's own parser and message
        (size_bytes,) = common.units(args.bin, args.size)
    except common.UnitsError as e:
        common.fail(f"--size: {e}" if e.status == 2 else f"--bin: {e}")
    if size_bytes < 16 << 20:
        common.fail(f"--size: must hold at least one 16 MiB sequential record (found {args.size})")
    if args.dir is not None and not os.path.isdir(args.dir):
        common.fail(f"--dir: {args.dir} is not a folder")
    # A folder of its own, in --dir or /var/tmp, removed at the end with the file and results.
    work = Path(tempfile.mkdtemp(prefix="iosweep-iso.", dir=args.dir or "/var/tmp"))
    out = work / "iso.h5"
    hostfile = None
    why_not = common.can_emulate()
    if why_not is None:
        hostfile = work / "nodes"
        per_node = -(-args.emulated_ranks // args.emulated_nodes)
        hostfile.write_text(
            "".join(f"node{i + 1:02d} slots={per_node}\n" for i in range(args.emulated_nodes))
        )
    try:
        base = [
            "run",
            "--dir",
            str(work),
            "--file-size",
            args.size,
            "--output",
            str(out),
            "--quiet",
        ]
        args.iosweep = base + [
            "--phases",
            "seq-write",
            "--direct",
            "--keep",
            "--label",
            "isolation-check: layout",
        ]
        run(args, 1)
        with common.open_results(out) as f:
            kept = common.pick_run(f)[0]
        print(
            f"isolation-check: {args.pairs} alternating pairs per comparison, file {args.size} "
            f"({work}), device {common.block_device(str(work)).name or 'none'}"
        )
        kinds = [(f"1 of {args.ranks} ranks, one machine", args.ranks, None)]
        if hostfile:
            kinds.append(
                (
                    f"1 of {args.emulated_ranks} ranks, {args.emulated_nodes} emulated nodes",
                    args.emulated_ranks,
                    str(hostfile),
                )
            )
        else:
            print(f"isolation-check: no emulated nodes here: {why_not}")
        print(
            "| workload | job | median ratio | pairs (point in the job / 1-rank job) "
            "| device KiB per read request (job / alone, medians) |"
        )
        print("| --- | --- | --- | --- | --- |")
        for name, phase, extra, column, unit in WORKLOADS:
            for label, n, hosts in kinds:
                ratios = []
                requests = {"alone": [], "big": []}
                for i in range(args.pairs):
                    figures = {}
                    for which in ("alone", "big") if i % 2 == 0 else ("big", "alone"):
                        args.iosweep = (
                            base
                            + [
                                "--phases",
                                phase,
                                "--direct",
                                "--reuse",
                                kept,
                                "--ranks",
                                "1",
                                "--order-seed",
                                "7",
                            ]
                            + extra
                        )
                        if which == "alone":
                            run(args, 1)
                        else:
                            run(args, n, hostfile=hosts)
                        figures[which], request = figure(out, column, unit)
                        requests[which].append(request / 1024.0)
                    ratios.append(figures["big"] / figures["alone"])
                pairs = " ".join(f"{r:.3f}" for r in ratios)
                sizes = (
                    f"{statistics.median(requests['big']):.0f} /"
                    f" {statistics.median(requests['alone']):.0f}"
                )
                print(
                    (
                        f"| {name} ({unit}) | {label} | {statistics.median(ratios):.3f} | {pairs} |"
                        f" {sizes} |"
                    ),
                    flush=True,
                )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
