"""filter-count's final math in iosweep-report: the run's final_math and final_math_drives
tables as iosweep stored them. The binary made them once at the end of the run
(src/model/final_math.cpp) and its console printed the same rows (src/output/final_math.cpp);
here they are only put in the console's words: nothing is worked out again.

    final_math(run)          # the section's HTML for one run (results.reader.Run)
    final_math_text(run)     # the console's lines; None when the run stored no final math
"""
from html import escape

from iosweep_tools.core.text import printable
from iosweep_tools.report import html as h
from iosweep_tools.report.html import problem_note
from iosweep_tools.report.latency import point_label

GB = 1e9
TABLE, DRIVES = "final_math", "final_math_drives"
# The final_math fields the section's table shows, as stored.
SHOWN = ("step", "point", "bytes", "rows", "wall_s", "bandwidth_Bps", "per_node_Bps")
SHOWN += ("per_rank_Bps", "drives", "per_drive_Bps", "matches", "expected_matches", "count_check")
SHOWN += ("rated_bw_Bps", "rated_bw2_Bps", "rated_per_Bps", "rated_fraction", "rated2_fraction")
SHOWN += ("rated_iops", "rated_per_iops", "rated_iops_fraction")
DRIVE_SHOWN = ("drive", "device", "nodes", "read_bytes", "window_s", "device_Bps", "ranks")
DRIVE_SHOWN += ("claimed_bytes", "drive_Bps")
DRIVE_LINKS = ("drive", "link", "link_Bps", "link_fraction")  # newer files


def _text(v):
    return bytes(v).decode(errors="replace") if isinstance(v, bytes) else str(v)


def _s(n):
    return "" if int(n) == 1 else "s"


def _head_lines(run, r):
    """The point, its data, runtime and aggregate, and every node's share (the nodes table's
    rows of the point)."""
    if int(r["by_streams"]):
        head = (
            f"filter-count at {r['streams']} streams ({r['ranks']} ranks x depth {r['iodepth']})"
            f" on {r['nodes']} node(s) (the largest point):"
        )
    else:
        head = f"filter-count at {r['ranks']} ranks on {r['nodes']} node(s) (the largest point):"
    bw = float(r["bandwidth_Bps"])
    lines = [
        head,
        f"  data       {r['bytes']} bytes ({int(r['bytes']) / GB:.3f} GB), {r['rows']} rows of 8"
        " bytes",
        f"  runtime    {float(r['wall_s']):.3f} s",
        f"  aggregate  {bw / GB:.3f} GB/s ({bw / h.MIB:.1f} MiB/s)",
    ]
    nodes = run.table("nodes")
    for n in nodes[nodes["point"] == r["point"]] if nodes is not None else ():
        lines.append(
            f"  node {int(n['node']):<3d}   {float(n['bandwidth_Bps']) / GB:.3f} GB/s"
            f"  ({n['ranks']} ranks, {run.host(n['node'])})"
        )
    lines.append(f"  per node   {float(r['per_node_Bps']) / GB:.3f} GB/s (aggregate / nodes)")
    lines.append(f"  per rank   {float(r['per_rank_Bps']) / GB:.3f} GB/s (aggregate / ranks)")
    return lines


def _drive_lines(run, r):
    """`per drive` and every drive used, from the step's final_math_drives rows."""
    n = int(r["drives"])
    if n == 0:
        return [f"  per drive  not known: {printable(_text(r['drive_note']))}"]
    lines = [
        f"  per drive  {float(r['per_drive_Bps']) / GB:.3f} GB/s (aggregate / {n} drive{_s(n)}"
        " used)"
    ]
    t = run.table(DRIVES)
    for d in t[t["step"] == r["step"]] if t is not None else ():
        nodes = _text(d["nodes"])
        lines.append(
            f"  drive {int(d['drive']):<4d} {printable(_text(d['device']))} on"
            f" node{'s' if ',' in nodes else ''} {nodes} ({printable(_text(d['folders']))}):"
            f" device read {d['read_bytes']} bytes = {float(d['device_Bps']) / GB:.3f} GB/s over"
            f" the {float(d['window_s']):.3f} s window; {d['ranks']} rank{_s(d['ranks'])} claimed"
            f" {d['claimed_bytes']} bytes, {float(d['drive_Bps']) / GB:.3f} GB/s"
        )
        lines += _link_lines(d)
    return lines


def _link_lines(d):
    """A drive's link line: its device's bytes over the window against its PCIe link, or why
    the link is unknown; none in files from before the links."""
    if "link" not in (d.dtype.names or ()):
        return []
    link = printable(_text(d["link"]))
    if not float(d["link_Bps"]) > 0:
        return [f"             link unknown: {link}"]
    return [
        f"             link {link}: the device read {100.0 * float(d['link_fraction']):.1f}%"
        " of it over its ranks' window"
    ]


def _rated_lines(r):
    """What --rated-bw makes of the figure it is compared with: one or two rated maximums."""
    r1, r2, unit = float(r["rated_bw_Bps"]), float(r["rated_bw2_Bps"]), _text(r["rated_per"])
    a, b = 100.0 * float(r["rated_fraction"]), 100.0 * float(r["rated2_fraction"])
    if r1 > 0 and r2 > 0:
        return [
            f"  rated      {r1 / GB:.3f} GB/s and {r2 / GB:.3f} GB/s {unit}: between"
            f" {min(a, b):.1f}% and {max(a, b):.1f}% of rated maximum ({a:.1f}% of"
            f" {r1 / GB:.3f} GB/s, {b:.1f}% of {r2 / GB:.3f} GB/s)"
        ]
    if r1 > 0:
        return [f"  rated      {r1 / GB:.3f} GB/s {unit}: {a:.1f}% of rated maximum"]
    return []


def _rated_iops_lines(r):
    """What --rated-iops makes of the operations per second per drive (per rank's device)."""
    names = r.dtype.names or ()
    if "rated_iops" not in names or not float(r["rated_iops"]) > 0:
        return []
    return [
        f"  rated      {float(r['rated_iops']):.0f} IOPS {_text(r['rated_per'])}:"
        f" {100.0 * float(r['rated_iops_fraction']):.1f}% of rated IOPS"
        f" ({float(r['rated_per_iops']):.0f} IOPS)"
    ]


def _ship_lines(r):
    if int(r["ship_point"]) < 0:
        return []
    return [
        f"ship-count at {r['ship_ranks']} ranks (every record sent over MPI to a collector):",
        f"  moved      {r['ship_mpi_bytes']} bytes over MPI"
        f" ({100.0 * float(r['ship_remote_fraction']):.0f}% to another node),"
        f" against {r['filter_mpi_bytes']} bytes (8 per rank) for filter-count",
        f"  aggregate  {float(r['ship_bandwidth_Bps']) / GB:.3f} GB/s; filter-count / ship-count"
        f" {float(r['filter_vs_ship']):.2f}",
    ]


def row_text(run, k):
    """The console's lines of final_math row k (one step's final math)."""
    r = run.table(TABLE)[k]
    lines = _head_lines(run, r) + _drive_lines(run, r)
    lines.append(
        f"  matches    {r['matches']} found, {r['expected_matches']} expected"
        f" ({_text(r['count_check'])})"
    )
    lines += _rated_lines(r) + _rated_iops_lines(r)
    return "\n".join(lines + _ship_lines(r)) + "\n"


def final_math_text(run):
    """Every stored final math in the console's lines; None when the run stored none (a file
    before the final_math table, a run without filter-count or that did not complete)."""
    t = run.table(TABLE)
    if t is None or len(t) == 0:
        return None
    return "".join(row_text(run, k) for k in range(len(t)))


def _missing(run):
    """Why the run shows no final math, in one paragraph."""
    if run.table(TABLE) is None:
        return h.p(
            "Final math: not recorded in this file (it predates the final_math table; the"
            " console printed it after the run)" + problem_note(run, TABLE) + "."
        )
    if "filter-count" not in run.phases_present():
        return h.p("No filter-count in this run: no final math.")
    return h.p(
        f"No final math stored: the run is {escape(run.status_name)} (iosweep stores it when a"
        " run completes)."
    )


def _value(run, k, f):
    """final_math[k][f] as the value of a labelled list: the cell `h.td` makes, as a span."""
    cell = h.td(run, TABLE, k, f)
    return "<span" + cell[len("<td") : -len("</td>")] + "</span>"


def _step(run, k):
    """One final math: the console's lines, then what was stored: the final_math row as a list
    (field, value) and the drives' rows in two narrow tables (counters; links)."""
    t = run.table(TABLE)
    body = f'<pre class="final-math" data-run="{escape(run.id)}">{escape(row_text(run, k))}</pre>'
    shown = [f for f in SHOWN if f in t.dtype.names]
    body += h.kv([], [(f, [_value(run, k, f)]) for f in shown])
    d = run.table(DRIVES)
    mine = [j for j in range(len(d)) if d["step"][j] == t["step"][k]] if d is not None else []
    for fields in (DRIVE_SHOWN, DRIVE_LINKS):
        have = [f for f in fields if d is not None and f in d.dtype.names]
        if mine and len(have) > 1:
            body += h.table(have, [[h.td(run, DRIVES, j, f) for f in have] for j in mine])
    return body


def final_math(run):
    t = run.table(TABLE)
    if t is None or len(t) == 0:
        return _missing(run)
    i = [j for j, pt in enumerate(run.summary["point"]) if pt == t["point"][0]]
    where = f": {escape(point_label(run, i[0]))}" if i else ""
    body = h.p(
        "As iosweep stored it (the final_math table, and final_math_drives for each drive used;"
        " the node lines are the nodes table's rows of the point) and its console printed it"
        " after the run. GB = 10^9 bytes; per node = aggregate / nodes, per rank = aggregate /"
        " ranks, per drive = aggregate / drives used; each drive: what its device read over the"
        " point's window and what its ranks claimed, and against its PCIe link (link_fraction)"
        " or why the link is unknown; rated from --rated-bw and --rated-iops, per drive or per"
        f" rank's device when no drive was counted. The largest filter-count point{where}."
    )
    return body + "".join(_step(run, k) for k in range(len(t)))
