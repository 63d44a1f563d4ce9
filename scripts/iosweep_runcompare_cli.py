"""iosweep-compare A.h5[:RUN] B.h5[:RUN]: one iosweep run against another (the text, the CSV and
the gate; the arithmetic is iosweep_runcompare's). Called by iosweep_compare_cli when both
positional arguments are iosweep results files.

Exit status: 0, or 1 when --fail-below R is given and a compared row's whole interval lies
below R (a regression gate); 2 for bad input.
"""
import csv
import io
import math
import sys

from iosweep_tools.core import cmdline, files
from iosweep_tools.results import reader
from iosweep_tools.core.errors import Stop
from iosweep_tools.core.text import size_text
from iosweep_tools.results.file import ResultsError
import iosweep_runcompare as rc

CSV_KEYS = [
    "phase",
    "ranks",
    "iodepth",
    "streams",
    "figure",
    "unit",
    "reps_a",
    "reps_b",
    "mean_a",
    "mean_b",
    "ratio",
    "ci_low",
    "ci_high",
    "interval",
    "verdict",
    "compared",
    "differs",
    "nodes_a",
    "nodes_b",
]


def describe(label, run):
    a = run.attrs
    direct = {0: "no", 1: "yes"}.get(a.get("direct"), "?")
    return (
        f"{label}: '{run.path}' run {run.id} ({a.get('label') or 'no label'}, {run.status_name}):"
        f" {a.get('world_size', '?')} ranks on {a.get('n_nodes', '?')} node(s), engine"
        f" {a.get('engine_name', '?')}, {size_text(a.get('file_size_bytes'))} per rank, records"
        f" seq {size_text(a.get('seq_record_bytes'))} /"
        f" rand {size_text(a.get('rand_record_bytes'))}"
        f" / scan {size_text(a.get('scan_record_bytes'))}, O_DIRECT {direct},"
        f" {a.get('repetitions', '?')} repetition(s), on {a.get('fs_type', '?')}"
    )


def fmt(v):
    if v != v:
        return "-"
    return f"{v:,.1f}" if abs(v) >= 100 else f"{v:.3f}"


def point_text(key):
    phase, k, depth = key
    return f"{phase} at {k} ranks x depth {depth}"


def csv_rows(cmp):
    for r in cmp.rows:
        yield {
            "phase": r.phase,
            "ranks": r.ranks,
            "iodepth": r.iodepth,
            "streams": r.streams,
            "figure": r.field,
            "unit": r.unit,
            "reps_a": len(r.a),
            "reps_b": len(r.b),
            "mean_a": repr(r.mean_a),
            "mean_b": repr(r.mean_b),
            "ratio": repr(r.ratio) if r.compared else "",
            "ci_low": repr(r.lo) if r.compared else "",
            "ci_high": repr(r.hi) if r.compared else "",
            "interval": r.interval_note,
            "verdict": r.verdict,
            "compared": int(r.compared),
            "differs": ",".join(r.differs),
            "nodes_a": ",".join(map(str, r.nodes_a)),
            "nodes_b": ",".join(map(str, r.nodes_b)),
        }


def csv_text(cmp):
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=CSV_KEYS, lineterminator="\n")
    w.writeheader()
    for row in csv_rows(cmp):
        w.writerow(row)
    return buf.getvalue()


def print_comparison(cmp, out=sys.stdout):
    p = lambda *x: print(*x, file=out)  # noqa: E731
    p(describe("A", cmp.a))
    p(describe("B", cmp.b))
    if cmp.differences:
        how = (
            "compared anyway (--loose)"
            if cmp.loose
            else "the rows they apply to are not compared; --loose compares them anyway"
        )
        p(f"settings that differ ({how}):")
        every = set(cmp.a.phases_present()) | set(cmp.b.phases_present())
        for d in cmp.differences:
            rows = "every row" if d.phases >= every else "rows of " + ", ".join(sorted(d.phases))
            p(f"  {d.what}: A {d.a}, B {d.b} ({rows})")
    else:
        p("settings that differ: none")
    p(
        "B / A = mean of B's repetitions / mean of A's, of the headline figure (bandwidth_Bps for"
        " sequential and scan phases, shown in MiB/s = 2^20 bytes/s; iops for random ones);"
        f" 95% bootstrap interval over repetitions ({cmp.resamples} resamples, seed {cmp.seed})"
    )
    p("")
    p(
        f"{'phase':13} {'ranks':>5} {'depth':>5} {'reps':>5} {'mean A':>12} {'mean B':>12}"
        f" {'unit':6} {'B/A':>7}  {'95% interval':17}  verdict"
    )
    for r in cmp.rows:
        ma, unit = rc.display_value(r, r.mean_a)
        mb, _ = rc.display_value(r, r.mean_b)
        ci = f"[{r.lo:.3f}, {r.hi:.3f}]" if r.compared else "-"
        ratio = f"{r.ratio:.3f}" if r.compared else "-"
        note = f" ({r.interval_note})" if r.interval_note else ""
        p(
            f"{r.phase:13} {r.ranks:5d} {r.iodepth:5d} {len(r.a):>2}/{len(r.b):<2} {fmt(ma):>12}"
            f" {fmt(mb):>12} {unit:6} {ratio:>7}  {ci:17}  {r.verdict}{note}"
        )
    for label, keys in (("only in A", cmp.only_a), ("only in B", cmp.only_b)):
        if keys:
            p(f"{label}: " + "; ".join(point_text(k) for k in keys))
    if not cmp.rows:
        p("no (phase, point) was measured by both runs")


def bootstrap_options(args):
    """(resamples, seed) of --resamples and --seed, checked (iosweep-compare, iosweep-report)."""
    resamples, seed = rc.DEFAULT_RESAMPLES, rc.DEFAULT_SEED
    if args.resamples is not None:
        resamples = cmdline.value(
            "--resamples", args.resamples, cmdline.count(100, rc.MAX_RESAMPLES)
        )
    if args.seed is not None:
        seed = cmdline.value("--seed", args.seed, cmdline.count(0, 2**63 - 1))
    return resamples, seed


def main(args):
    """The run-against-run command, from the parsed arguments of iosweep_compare_cli."""
    if args.run is not None:
        raise Stop("--run: with two results files, name each run as FILE:RUN_ID")
    resamples, seed = bootstrap_options(args)
    gate = None
    if args.fail_below is not None:
        gate = cmdline.value(
            "--fail-below", args.fail_below, cmdline.number(0, math.inf, above=True)
        )
    (pa, ra), (pb, rb) = cmdline.split_run(args.results), cmdline.split_run(args.outputs[0])
    if args.csv:
        files.output_file("--csv", args.csv, suffixes={"csv"}, inputs=(pa, pb))
    runs = []
    for label, path, rid in (("A", pa, ra), ("B", pb, rb)):
        try:
            runs.append(reader.read(path, rid))
        except ResultsError as e:
            raise Stop(f"{label}: {e}")
    try:
        cmp = rc.compare(runs[0], runs[1], loose=args.loose, resamples=resamples, seed=seed)
    except ResultsError as e:
        raise Stop(str(e))
    print_comparison(cmp)
    if args.csv:
        files.write_output("--csv", args.csv, csv_text(cmp))
        print(f"written: {args.csv}")
    if gate is not None:
        bad = rc.below(cmp, gate)
        compared = sum(r.compared for r in cmp.rows)
        if bad:
            print(f"gate: {len(bad)} of {compared} compared row(s) lie wholly below {gate:g}:")
            for r in bad:
                print(f"  {point_text((r.phase, r.ranks, r.iodepth))}: [{r.lo:.3f}, {r.hi:.3f}]")
            return 1
        print(f"gate: no compared row ({compared}) lies wholly below {gate:g}")
    return 0
