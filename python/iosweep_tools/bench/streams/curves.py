"""streams-curve's two curves: the runs that make them, their points as medians over the
repetitions, the Markdown table, the figure and the paragraph under the table.

    run_curve(args, 2, args.max, CURVES[1], work, out, args.size)   # one curve, one job
    c = curves(summary)                                             # {curve: {streams: point}}
    print(markdown(c)); fig = draw(c, title)
"""
import math

from iosweep_tools.core.children import iosweep, job_timeout, sweep_points
from iosweep_tools.core.files import mem_available
from iosweep_tools.results import fields

CURVES = ("ranks alone", "2 ranks x depth")
ENGINES = ("uring", "mpiio", "null")  # the engines that keep requests in flight (--streams)
MAX_STREAMS = 8192  # 2 ranks x iosweep's deepest depth, 4096
MAX_RANKS = 4096
MAX_SIZE = 1 << 40
MAX_SECONDS = 3600.0
MAX_REPETITIONS = 100
# What the results file holds of each point that the table shows, each value checked.
SUMMARY = {
    "streams": fields.POSITIVE,
    "ranks": fields.POSITIVE,
    "iodepth": fields.POSITIVE,
    "ops": fields.ID,
    "iops": fields.FIGURE,
    "cpu_s": fields.FIGURE,
    "wall_s": fields.FIGURE,
}


def ranks_max(args):
    """--ranks-max, or the largest power of two up to --max whose ranks fit half of MemAvailable
    at --rank-mib each."""
    if args.ranks_max:
        return min(args.ranks_max, args.max)
    fit = mem_available() // 2 // (args.rank_mib << 20)
    r = 1
    while r * 2 <= min(fit, args.max, MAX_RANKS):
        r *= 2
    return r


def run_curve(args, np_, most, label, work, out, size):
    """One curve: `np_` ranks, streams 1 .. `most` (depth 1 up to np_ streams), `size` per rank."""
    cmd = ["run", "--dir", work, "--engine", args.engine, "--streams", f"1:{most}"]
    cmd += ["--phases", "rand-read", "--rand-record", "4KiB", "--file-size", size]
    cmd += ["--stonewall", f"{args.seconds:.6g}", "--repetitions", str(args.repetitions)]
    cmd += ["--label", label, "--output", out, "--quiet"] + (["--direct"] if args.direct else [])
    n = len(sweep_points(most)) * args.repetitions
    timeout = job_timeout(np_ * args.bytes[size], n * args.seconds, np_)
    iosweep(args.bin, np_, cmd, timeout, label)


def curves(summary):
    """{curve label: {streams: {ranks, depth, iops, cpu_s, cpu_us_per_op}}}, medians over the
    repetitions (rand_read rows only)."""
    out = {}
    for label in CURVES:
        d = summary[(summary["label"] == label) & (summary["phase_name"] == "rand-read")]
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


def num(x, decimals, digits=2):
    """x with `decimals` decimals, more where it needs them for `digits` significant digits:
    16482, 0.99, 0.0040 (a short window never prints as 0.00)."""
    if x and math.isfinite(x):
        decimals = max(decimals, digits - 1 - math.floor(math.log10(abs(x))))
    return f"{x:.{decimals}f}"


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
                num(x["wall_s"], 2),
                num(x["iops"], 0),
                num(x["cpu_s"], 3),
                num(x["cpu_us_per_op"], 1),
            ]
            if x
            else ["-"] * 5
        )
        y = b.get(s)
        cells += (
            [
                f"{y['ranks']} x {y['depth']}",
                num(y["wall_s"], 2),
                num(y["iops"], 0),
                num(y["cpu_s"], 3),
                num(y["cpu_us_per_op"], 1),
            ]
            if y
            else ["-"] * 5
        )
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def draw(c, title):
    """The figure of both curves: IOPS and CPU per operation against streams."""
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
    return fig


def summary_text(args):
    """The paragraph under the table: what ran and what each column is."""
    return (
        f"4 KiB random reads, engine {args.engine},"
        f" {'O_DIRECT' if args.direct else 'page cache dropped'},"
        f" {args.alone_size or args.size} per rank alone and {args.size} per rank of 2,"
        f" {args.seconds:g} s per point at most (--stonewall; window s: the median window, shorter"
        " when a rank read every record of its file first), median of"
        f" {args.repetitions} repetition(s). ranks alone: 1 .. {args.r_max} ranks at depth 1; 2"
        f" ranks x depth: 1 and 2 ranks, then 2 ranks at depth 2 .. {args.max // 2}. CPU s: user"
        " + system time of all ranks in the timed window (getrusage; the summary's cpu_s); CPU"
        " µs/op: that over the operations completed."
    )
