"""One run against another as text: the lines iosweep-compare A.h5[:RUN] B.h5[:RUN] prints and
its CSV (the arithmetic is compare.runs').

    print(comparison_text(cmp), end="")        # the header, the table, the points only one ran
    csv_text(cmp)                              # the rows, every figure exact
    gate_text(cmp, 0.95)                       # (the gate's lines, whether any row lies below)
"""
import csv
import io

from iosweep_tools.compare.runs import below, display_value
from iosweep_tools.core.text import csv_text_cell, size_text

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
        w.writerow({k: csv_text_cell(v) if isinstance(v, str) else v for k, v in row.items()})
    return buf.getvalue()


def _settings_lines(cmp):
    if not cmp.differences:
        return ["settings that differ: none"]
    how = (
        "compared anyway (--loose)"
        if cmp.loose
        else "the rows they apply to are not compared; --loose compares them anyway"
    )
    out = [f"settings that differ ({how}):"]
    every = set(cmp.a.phases_present()) | set(cmp.b.phases_present())
    for d in cmp.differences:
        rows = "every row" if d.phases >= every else "rows of " + ", ".join(sorted(d.phases))
        out.append(f"  {d.what}: A {d.a}, B {d.b} ({rows})")
    return out


def _row_line(r):
    ma, unit = display_value(r, r.mean_a)
    mb, _ = display_value(r, r.mean_b)
    ci = f"[{r.lo:.3f}, {r.hi:.3f}]" if r.compared else "-"
    ratio = f"{r.ratio:.3f}" if r.compared else "-"
    note = f" ({r.interval_note})" if r.interval_note else ""
    return (
        f"{r.phase:13} {r.ranks:5d} {r.iodepth:5d} {len(r.a):>2}/{len(r.b):<2} {fmt(ma):>12}"
        f" {fmt(mb):>12} {unit:6} {ratio:>7}  {ci:17}  {r.verdict}{note}"
    )


def comparison_text(cmp):
    """The comparison as iosweep-compare prints it: both runs, the settings that differ, how
    the figures are made, one line per (phase, point), the points only one run measured."""
    lines = [describe("A", cmp.a), describe("B", cmp.b)] + _settings_lines(cmp)
    lines.append(
        "B / A = mean of B's repetitions / mean of A's, of the headline figure (bandwidth_Bps for"
        " sequential and scan phases, shown in MiB/s = 2^20 bytes/s; iops for random and metadata"
        " ones);"
        f" 95% bootstrap interval over repetitions ({cmp.resamples} resamples, seed {cmp.seed})"
    )
    lines.append("")
    lines.append(
        f"{'phase':13} {'ranks':>5} {'depth':>5} {'reps':>5} {'mean A':>12} {'mean B':>12}"
        f" {'unit':6} {'B/A':>7}  {'95% interval':17}  verdict"
    )
    lines += [_row_line(r) for r in cmp.rows]
    for label, keys in (("only in A", cmp.only_a), ("only in B", cmp.only_b)):
        if keys:
            lines.append(f"{label}: " + "; ".join(point_text(k) for k in keys))
    if not cmp.rows:
        lines.append("no (phase, point) was measured by both runs")
    return "".join(line + "\n" for line in lines)


def left_out(cmp):
    """What of the two runs the comparison did not compare, one line each: rows not compared
    (and why), points only one run measured, a run that did not complete."""
    out = [f"{point_text((r.phase, r.ranks, r.iodepth))}: {r.verdict}" for r in cmp.rows]
    out = [line for line, r in zip(out, cmp.rows) if not r.compared]
    out += [f"{point_text(k)}: only in A" for k in cmp.only_a]
    out += [f"{point_text(k)}: only in B" for k in cmp.only_b]
    for label, run in (("A", cmp.a), ("B", cmp.b)):
        if run.status_name != "complete":
            out.append(f"{label}'s run {run.id} is {run.status_name}, not complete")
    return out


def gate_text(cmp, gate, allow_partial=False):
    """(the lines of the regression gate --fail-below `gate`, True when it fails): it fails when
    a compared row's whole interval lies below `gate`, when nothing was compared, and, unless
    `allow_partial`, when anything the runs hold was left out (left_out)."""
    bad = below(cmp, gate)
    compared = sum(r.compared for r in cmp.rows)
    held = len(cmp.rows) + len(cmp.only_a) + len(cmp.only_b)
    missing = left_out(cmp)
    if bad:
        lines = [f"gate: {len(bad)} of {compared} compared row(s) lie wholly below {gate:g}:"]
        lines += [
            f"  {point_text((r.phase, r.ranks, r.iodepth))}: [{r.lo:.3f}, {r.hi:.3f}]" for r in bad
        ]
    elif not compared:
        lines = [f"gate: no row was compared (of {held} the runs hold): nothing to pass"]
    elif missing and not allow_partial:
        lines = [
            f"gate: no compared row ({compared}) lies wholly below {gate:g}, but the comparison"
            " is partial: not a pass (--allow-partial passes on the compared rows alone)"
        ]
    else:
        lines = [f"gate: no compared row ({compared}) lies wholly below {gate:g}"]
        if missing:
            lines[0] += " (--allow-partial: the rest left out)"
    if missing:
        lines.append(f"  left out ({len(missing)}; {compared} of {held} rows compared):")
        lines += [f"    {m}" for m in missing]
    failed = bool(bad) or not compared or bool(missing and not allow_partial)
    return "".join(line + "\n" for line in lines), failed
