"""bench-vs-mdtest's pairs judged: per operation both tools' mean rates, the ratio iosweep /
mdtest (the median over pairs with its bootstrap interval, bench.harness), the verdict, and each
tool's cost per operation per rank; the table as text, Markdown or CSV, and every run's rate.

    rows = judged(pairs, args)                   # one row per operation both tools ran
    print(table_text(rows, args, version), end="")
    csv_text(rows); runs_csv_text(pairs, out)
"""
import csv
import io
import math
import statistics

from iosweep_tools.bench.harness import RESAMPLES, SEED, SPREAD, ratio_stats, verdict
from iosweep_tools.bench.vs_mdtest.runs import OPERATIONS
from iosweep_tools.core.text import csv_text_cell

CSV_KEYS = ("operation", "unit", "pairs", "mdtest_ops_s", "iosweep_ops_s", "ratio")
CSV_KEYS += ("ratio_low", "ratio_high", "verdict", "accept", "mdtest_us_per_op")
CSV_KEYS += ("iosweep_us_per_op", "figure", "target", "ranks", "items_per_rank")
RUN_KEYS = ("pair", "position", "tool", "operation", "rate_ops_s", "source")


def cost_us(rate, figure, ranks):
    """Microseconds per operation per rank at `rate` ops/s: ranks / rate for every rank's
    operations over the slowest rank's window; 1 / rate for mkdir and rmdir, whose figure
    counts one tree's folders (each rank makes its own tree, or the first rank the shared
    one)."""
    if not rate > 0:
        return float("nan")
    return (1 if figure == "one_tree" else ranks) / rate * 1e6


def judged(pairs, args):
    """The rows of the table, in mdtest's order of operations: those every pair has."""
    ops = [op for op in OPERATIONS.values() if all(op in p.rates for p in pairs)]
    rows = []
    for op in ops:
        mine = [p.rates[op][0] for p in pairs]
        theirs = [p.rates[op][1] for p in pairs]
        figure = pairs[0].rates[op][2]
        ratios = [m / t for m, t in zip(mine, theirs) if m > 0 and t > 0]
        if ratios:
            median, low, high = ratio_stats(ratios)
            said = verdict(median, low, high, target=args.accept)
        else:
            median = low = high = float("nan")
            said = "n/a"
        mean_m, mean_t = statistics.fmean(mine), statistics.fmean(theirs)
        rows.append(
            {
                "operation": op,
                "unit": "ops/s",
                "pairs": len(ratios),
                "mdtest_ops_s": mean_t,
                "iosweep_ops_s": mean_m,
                "ratio": median,
                "ratio_low": low,
                "ratio_high": high,
                "verdict": said,
                "accept": args.accept,
                "mdtest_us_per_op": cost_us(mean_t, figure, args.ranks),
                "iosweep_us_per_op": cost_us(mean_m, figure, args.ranks),
                "figure": figure,
                "target": args.target,
                "ranks": args.ranks,
                "items_per_rank": args.items,
            }
        )
    return rows


def _num(v, spec):
    return "n/a" if isinstance(v, float) and math.isnan(v) else format(v, spec)


def _cells(r, costs):
    cells = [
        r["operation"],
        _num(r["mdtest_ops_s"], ".0f"),
        _num(r["iosweep_ops_s"], ".0f"),
        _num(r["ratio"], ".3f"),
        f"{_num(r['ratio_low'], '.3f')}-{_num(r['ratio_high'], '.3f')}",
        r["verdict"],
    ]
    if costs:
        cells += [_num(r["mdtest_us_per_op"], ".2f"), _num(r["iosweep_us_per_op"], ".2f")]
    return cells


HEAD = ["operation", "mdtest ops/s", "iosweep ops/s", "ratio", "95% interval", "verdict"]
COST_HEAD = ["mdtest us/op", "iosweep us/op"]


def table_text(rows, args, version):
    """The table (Markdown with --markdown; the cost columns on tmpfs) and the lines saying how
    it was made."""
    costs = args.target == "tmpfs"
    head = HEAD + (COST_HEAD if costs else [])
    cells = [_cells(r, costs) for r in rows]
    if args.markdown:
        align = ["---", "---:", "---:", "---:", "---", "---"] + (["---:"] * 2 if costs else [])
        lines = ["| " + " | ".join(line) + " |" for line in [head, align] + cells]
    else:
        widths = [max(len(x) for x in col) for col in zip(head, *cells)]
        lines = [
            "  ".join(x.ljust(w) if i in (0, 5) else x.rjust(w) for i, (x, w) in enumerate(
                zip(line, widths))).rstrip()
            for line in [head] + cells
        ]  # fmt: skip
    lines.append(
        f"({version}; {args.pairs} pair(s) of one mdtest and one iosweep run, alternating which "
        "runs first; ops/s = every rank's operations / the slowest rank's window, mdtest's "
        "SUMMARY mean rate and iosweep's iops, mkdir and rmdir one tree's folders as mdtest "
        "counts them; ratio = iosweep / mdtest of each pair, their median with a bootstrap 95% "
        f"interval ({RESAMPLES} resamples, seed {SEED}); verdict ok at {args.accept:g} or "
        f"more, below under it, unstable when the interval reaches beyond ±{SPREAD:.0%})"
    )
    if costs:
        lines.append(
            "(us/op = microseconds per operation per rank from the mean rate: ranks / rate, "
            "1 / rate for mkdir and rmdir; on tmpfs the tools' own cost and the kernel's)"
        )
    return "".join(line + "\n" for line in lines)


def _csv(keys, rows):
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=keys, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: r[k] for k in keys})
    return buf.getvalue()


def csv_text(rows):
    """The table as CSV (CSV_KEYS), every figure as computed (NaN where there is none)."""
    return _csv(CSV_KEYS, rows)


def runs_csv_text(pairs, out):
    """Every run's rate of every operation (RUN_KEYS): the pair, its position in the pair (1
    ran first), the tool, and where it was read (mdtest's output, or `out`:RUN_ID)."""
    rows = []
    for p in pairs:
        for op, (mine, theirs, _) in p.rates.items():
            for tool, rate, source in (
                ("mdtest", theirs, p.mdtest_file),
                ("iosweep", mine, f"{out}:{p.run_id}"),
            ):
                position = p.order.index(tool) + 1
                source = csv_text_cell(source)
                rows.append(dict(zip(RUN_KEYS, (p.k, position, tool, op, rate, source))))
    return _csv(RUN_KEYS, rows)
