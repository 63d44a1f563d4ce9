"""filter-efficiency's settings, its jobs (the files laid out once, every setting reading them
through --reuse) and its table.

    s = measure(args, work, say)          # the summary rows of every setting, as a DataFrame
    rows = table(s, [name for name, _ in SETTINGS])
    print(table_text(args, rows), end="")
"""
import math
import os
import statistics

from iosweep_tools.bench.harness import written_ids, written_run
from iosweep_tools.core import children
from iosweep_tools.results import fields, frames

MAX_NP = 256
MAX_REPETITIONS = 100
RANK_BYTES = 96 << 20  # one rank: 4 x 16 MiB buffers at depth 4 and the process itself
READ_PHASES = 3  # seq-read, scan-only, filter-count
SUMMARY = {
    "ranks": fields.POSITIVE,
    "repetition": fields.ID,
    "bandwidth_Bps": fields.FIGURE,
    "compute_mean_s": fields.FIGURE,
    "io_wait_mean_s": fields.FIGURE,
    "filter_efficiency": fields.MAYBE,
    "filter_vs_seq_read": fields.MAYBE,
}

SETTINGS = [
    ("--direct", ["--direct"]),
    ("--direct --hugepages", ["--direct", "--hugepages"]),
    (
        "--direct uring qd4 --hugepages",
        ["--direct", "--engine", "uring", "--iodepth", "4", "--hugepages"],
    ),
    ("--cache drop", ["--cache", "drop"]),
]


def job(args, iosweep_args, moved):
    """One job of --np ranks; `moved` the bytes it reads or writes (its timeout follows them)."""
    children.iosweep(args.bin, args.np, iosweep_args, children.job_timeout(moved, 0, args.np))


def spread(values):
    """(median, min, max) of the values that are numbers; NaNs where none is."""
    v = [x for x in values if not math.isnan(x)]
    if not v:
        return float("nan"), float("nan"), float("nan")
    return statistics.median(v), min(v), max(v)


def table(s, names):
    """One row per (setting, ranks) of the summary rows `s` (results.frames), settings in the
    order of `names` (the runs' labels): bandwidths and both ratios."""
    rows = []
    for name in names:
        d = s[s["label"] == name]
        for k in sorted(d["ranks"].unique()):
            at = d[d["ranks"] == k]
            bw = {
                p.replace("-", "_"): (
                    statistics.median(at[at["phase_name"] == p]["bandwidth_Bps"]) / 2**20
                    if (at["phase_name"] == p).any()
                    else float("nan")
                )
                for p in ("seq-read", "scan-only", "filter-count")
            }
            fc = at[at["phase_name"] == "filter-count"]
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


def measure(args, work, done):
    """The summary rows (a DataFrame) of every setting of SETTINGS, read in `work` from the files
    its layout job wrote; `done(name)` is called after each setting."""
    out = os.path.join(work, "eff.h5")
    base = ["run", "--dir", work, "--file-size", args.size, "--quiet", "--output", out]
    layout = ["--phases", "seq-write", "--ranks", str(args.np), "--direct", "--keep"]
    job(args, base + layout, args.np * args.size_bytes)
    reuse = written_ids(out)[-1]
    moved = sum(children.sweep_points(args.np)) * args.size_bytes * READ_PHASES * args.repetitions
    for name, extra in SETTINGS:
        # filter-count brings its control, scan-only, which iosweep runs before it on even
        # repetitions and after it on odd ones.
        reads = ["--phases", "seq-read,filter-count", "--reuse", reuse, "--label", name]
        job(args, base + reads + ["--repetitions", str(args.repetitions)] + extra, moved)
        done(name)
    mine = written_ids(out)[1:]  # the layout run first
    return frames.summaries([written_run(out, r, summary=SUMMARY, tables={}) for r in mine])


def table_text(args, rows):
    """The Markdown table and the paragraph saying what its figures are."""
    lines = [
        "| setting | ranks | seq-read MiB/s | scan-only MiB/s | filter-count MiB/s "
        "| filter_efficiency: filter-count / scan-only (median) | min | max "
        "| filter_vs_seq_read: filter-count / seq-read (median) | min | max | counting share |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        eff, vs = r["efficiency"], r["vs_seq_read"]
        lines.append(
            f"| {r['setting']} | {r['ranks']} | {num(r['seq_read'], '.0f')} |"
            f" {num(r['scan_only'], '.0f')} | {num(r['filter_count'], '.0f')} |"
            f" {num(eff[0], '.3f')} | {num(eff[1], '.3f')} | {num(eff[2], '.3f')} |"
            f" {num(vs[0], '.3f')} | {num(vs[1], '.3f')} | {num(vs[2], '.3f')} |"
            f" {num(r['counting_share'], '.1%')} |"
        )
    lines.append("")
    lines.append(
        f"{args.np} rank(s) at most, {args.size} per rank, {args.repetitions} repetition(s) per"
        " point; medians, min and max over the repetitions. filter_efficiency = filter-count"
        " bandwidth / scan-only bandwidth of the same point and repetition (the same read path"
        " with the counting switched off; iosweep alternates their order every repetition)."
        " filter_vs_seq_read = filter-count bandwidth / seq-read bandwidth of the same point and"
        " repetition (another read path). Counting share: the part of filter-count's I/O loop"
        " spent counting."
    )
    return "".join(line + "\n" for line in lines)
