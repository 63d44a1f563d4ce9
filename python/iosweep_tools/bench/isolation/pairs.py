"""isolation-check's jobs: the file laid out once, and pairs of a 1-rank job and the same point
inside a large job (on this machine, or over emulated nodes), in alternating order.

    base, kept = layout(args, work, out)
    print(pairs_row(args, base, kept, out, WORKLOADS[0], kinds(args, hostfile)[0]))
"""
import math
import statistics

from iosweep_tools.bench.harness import written_ids, written_run
from iosweep_tools.core.children import iosweep, job_timeout
from iosweep_tools.results import fields

MAX_PAIRS = 100
MAX_RANKS = 4096
RANK_BYTES = 16 << 20  # what one rank takes, with its buffers (docs/scaling.md)
STONEWALL_S = 3
WORKLOADS = [  # name, phase, extra options, column of the summary, unit
    ("rand-read 4 KiB QD1 O_DIRECT", "rand-read", ["--stonewall", "3s"], "iops", "IOPS"),
    ("seq-read 16 MiB O_DIRECT", "seq-read", [], "bandwidth_Bps", "MiB/s"),
    # The same with buffers in 2 MiB huge pages: equally contiguous in both jobs, so the device
    # sees the same request sizes and the ratio is the idle ranks' effect alone.
    ("seq-read 16 MiB O_DIRECT --hugepages", "seq-read", ["--hugepages"], "bandwidth_Bps", "MiB/s"),
]


def run(args, n, hostfile=None):
    """One job of `n` ranks running args.iosweep; stops in one line when it fails."""
    timeout = job_timeout(args.size_bytes, STONEWALL_S, n)
    iosweep(args.bin, n, args.iosweep, timeout, hostfile=hostfile)


def figure(out, column, unit):
    """(the figure of the last run's last summary row, the mean size of the read requests the
    device completed in that phase, bytes; NaN without device counters)."""
    device = {
        "point": fields.ID,
        "counted": fields.FLAG,
        "read_ops": fields.ID,
        "read_bytes": fields.ID,
    }
    summary = {"point": fields.ID, column: fields.FIGURE}
    run = written_run(out, summary=summary, tables={"device": (device, False)})
    row = run.frame().iloc[-1]
    v = float(row[column])
    dev = [
        d
        for d in run.tables.get("device", [])
        if d["counted"] and int(d["point"]) == int(row["point"])
    ]
    ops = sum(int(d["read_ops"]) for d in dev)
    request = sum(int(d["read_bytes"]) for d in dev) / ops if ops else float("nan")
    return (v / 1048576.0 if unit == "MiB/s" else v), request


def ratio(a, b):
    return a / b if b > 0 else math.nan


def layout(args, work, out):
    """(the options every job shares, the run id of the kept file): the file laid out once, with
    O_DIRECT, and kept."""
    base = ["run", "--dir", str(work), "--file-size", args.size, "--output", str(out)]
    base += ["--quiet", "--direct"]
    layout = ["--phases", "seq-write", "--keep", "--label", "isolation-check: layout"]
    args.iosweep = base + layout
    run(args, 1)
    return base, written_ids(out)[-1]


def kinds(args, hostfile):
    """[(what the large job is, its ranks, its host file or None)]: one machine, and emulated
    nodes when `hostfile` names them."""
    out = [(f"1 of {args.ranks} ranks, one machine", args.ranks, None)]
    if hostfile:
        out.append(
            (
                f"1 of {args.emulated_ranks} ranks, {args.emulated_nodes} emulated nodes",
                args.emulated_ranks,
                str(hostfile),
            )
        )
    return out


def pairs_row(args, base, kept, out, workload, kind):
    """The table's row of one workload and one kind of large job: --pairs pairs, the order inside
    a pair alternating, each pair's ratio (point in the large job / 1-rank job), their median
    and the median read request size the device saw in each."""
    name, phase, extra, column, unit = workload
    label, n, hosts = kind
    ratios = []
    requests = {"alone": [], "big": []}
    for i in range(args.pairs):
        figures = {}
        for which in ("alone", "big") if i % 2 == 0 else ("big", "alone"):
            point = ["--phases", phase, "--reuse", kept, "--ranks", "1"]
            args.iosweep = base + point + ["--order-seed", "7"] + extra
            if which == "alone":
                run(args, 1)
            else:
                run(args, n, hostfile=hosts)
            figures[which], request = figure(out, column, unit)
            requests[which].append(request / 1024.0)
        ratios.append(ratio(figures["big"], figures["alone"]))
    pairs = " ".join(f"{r:.3f}" for r in ratios)
    sizes = (
        f"{statistics.median(requests['big']):.0f} /" f" {statistics.median(requests['alone']):.0f}"
    )
    return f"| {name} ({unit}) | {label} | {statistics.median(ratios):.3f} | {pairs} | {sizes} |"
