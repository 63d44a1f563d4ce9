"""Does filter-count keep up with the storage? Runs seq-read and filter-count (and with it its
control, scan-only) over the same kept files under several cache settings and prints, per
setting and point, the median bandwidth of each phase and two ratios of the same point and
repetition.

Each ratio has its own definition and its own columns:

  filter_efficiency    filter-count / scan-only: the identical read path (engine, threads,
                       depth, records, buffers) with the counting switched off, run by iosweep
                       itself right before or after filter-count, in turn each repetition. 1.0
                       means counting costs nothing; this is iosweep's efficiency figure.
  filter_vs_seq_read   filter-count / seq-read: against the plain sequential read, which reads
                       through another path (seq-read's records and engine set-up), so it mixes
                       the cost of counting with the difference between the two read paths.

Both are given as median, min and max over the repetitions, with the share of the scan's I/O
loop spent counting.

    scripts/filter-efficiency --dir /var/tmp/eff --size 1g --np 2 --repetitions 3

The files are written once (seq-write, O_DIRECT, kept) and read by every setting through
--reuse, so all settings read the same data; they are removed at the end. Bandwidth is MiB/s
(2^20 bytes/s). --size must hold at least one sequential record (16 MiB).
"""
import argparse
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import iosweep_load
from iosweep_common import fail, launch_env

HERE = Path(__file__).resolve().parent

SETTINGS = [
    ("--direct", ["--direct"]),
    ("--direct --hugepages", ["--direct", "--hugepages"]),
    (
        "--direct uring qd4 --hugepages",
        ["--direct", "--engine", "uring", "--iodepth", "4", "--hugepages"],
    ),
    ("--cache drop", ["--cache", "drop"]),
]


def mpirun(args, np_, iosweep_args):
    cmd = [
        "mpirun",
        "--bind-to",
        "none",
        "--oversubscribe",
        "-np",
        str(np_),
        args.bin,
    ] + iosweep_args
    p = subprocess.run(cmd, capture_output=True, text=True, env=launch_env())
    if p.returncode != 0:
        fail(f"iosweep failed: {p.stderr.strip()[:400]}", status=1)


def spread(values):
    """(median, min, max) of the values that are numbers; NaNs where none is."""
    v = [x for x in values if not math.isnan(x)]
    if not v:
        return float("nan"), float("nan"), float("nan")
    return statistics.median(v), min(v), max(v)


def table(s, names):
    """One row per (setting, ranks) of the summary rows `s` (iosweep_load), settings in the
    order of `names` (the runs' labels): bandwidths and both ratios."""
    rows = []
    for name in names:
        d = s[s["label"] == name]
        for k in sorted(d["ranks"].unique()):
            at = d[d["ranks"] == k]
            bw = {
                p: (
                    statistics.median(at[at["phase_name"] == p]["bandwidth_Bps"]) / 2**20
                    if (at["phase_name"] == p).any()
                    else float("nan")
                )
                for p in ("seq_read", "scan_only", "filter_count")
            }
            fc = at[at["phase_name"] == "filter_count"]
            share = [
                c / (c + w) if c + w > 0 else 0.0
                for c, w in zip(fc["compute_mean_s"], fc["io_wait_mean_s"])
            ]
            rows.append(
                {
                    "setting": name,
                    "ranks": int(k),
                    **bw,
                    "efficiency": spread(list(fc["filter_efficiency"])),
                    "vs_seq_read": spread(list(fc["filter_vs_seq_read"])),
                    "counting_share": statistics.median(share) if share else float("nan"),
                    "repetitions": len(fc),
                }
            )
    return rows


def num(v, fmt):
    return "n/a" if math.isnan(v) else format(v, fmt)


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument(
        "--dir", help="folder on the storage to measure (default: a new folder in /var/tmp)"
    )
    ap.add_argument("--size", default="1g", help="file size per rank (default 1g)")
    ap.add_argument(
        "--np", type=int, default=2, help="ranks; points 1, 2, 4 ... up to it (default 2)"
    )
    ap.add_argument("--repetitions", type=int, default=3, help="repetitions per point (default 3)")
    ap.add_argument("--bin", default=str(HERE.parent / "build" / "iosweep"), help="iosweep binary")
    args = ap.parse_args()
    if not os.access(args.bin, os.X_OK):
        fail(f"--bin: {args.bin} is not an executable")
    base = args.dir or "/var/tmp"
    if not os.path.isdir(base):
        fail(f"--dir: {base} is not a folder")
    work = tempfile.mkdtemp(prefix="iosweep-eff.", dir=base)
    out = os.path.join(work, "eff.h5")
    try:
        mpirun(
            args,
            args.np,
            [
                "run",
                "--dir",
                work,
                "--file-size",
                args.size,
                "--phases",
                "seq-write",
                "--ranks",
                str(args.np),
                "--direct",
                "--keep",
                "--quiet",
                "--output",
                out,
            ],
        )
        runs, _ = iosweep_load.load(out)
        reuse = runs.iloc[-1]["run_id"]
        for name, extra in SETTINGS:
            # filter-count brings its control, scan-only, which iosweep runs before it on even
            # repetitions and after it on odd ones.
            mpirun(
                args,
                args.np,
                [
                    "run",
                    "--dir",
                    work,
                    "--file-size",
                    args.size,
                    "--phases",
                    "seq-read,filter-count",
                    "--reuse",
                    reuse,
                    "--repetitions",
                    str(args.repetitions),
                    "--quiet",
                    "--label",
                    name,
                    "--output",
                    out,
                ]
                + extra,
            )
            print(f"  done: {name}", file=sys.stderr)
        _, s = iosweep_load.load(out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    rows = table(s, [name for name, _ in SETTINGS])
    print(
        "| setting | ranks | seq-read MiB/s | scan-only MiB/s | filter-count MiB/s "
        "| filter_efficiency: filter-count / scan-only (median) | min | max "
        "| filter_vs_seq_read: filter-count / seq-read (median) | min | max | counting share |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        eff, vs = r["efficiency"], r["vs_seq_read"]
        print(
            f"| {r['setting']} | {r['ranks']} | {num(r['seq_read'], '.0f')} |"
            f" {num(r['scan_only'], '.0f')} | {num(r['filter_count'], '.0f')} |"
            f" {num(eff[0], '.3f')} | {num(eff[1], '.3f')} | {num(eff[2], '.3f')} |"
            f" {num(vs[0], '.3f')} | {num(vs[1], '.3f')} | {num(vs[2], '.3f')} |"
            f" {num(r['counting_share'], '.1%')} |"
        )
    print()
    print(
        f"{args.np} rank(s) at most, {args.size} per rank, {args.repetitions} repetition(s) per"
        " point; medians, min and max over the repetitions. filter_efficiency = filter-count"
        " bandwidth / scan-only bandwidth of the same point and repetition (the same read path"
        " with the counting switched off; iosweep alternates their order every repetition)."
        " filter_vs_seq_read = filter-count bandwidth / seq-read bandwidth of the same point and"
        " repetition (another read path). Counting share: the part of filter-count's I/O loop"
        " spent counting."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
