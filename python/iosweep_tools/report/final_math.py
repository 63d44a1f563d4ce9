"""filter-count's final math in iosweep-report, as the console prints it after the run
(ConsoleWriter::print_final_math, src/output/final_math.cpp), from the stored figures.

    final_math(run)          # the section's HTML for one run (results.reader.Run)
    final_math_text(run)     # the console's lines; None without filter-count
"""
from html import escape

from iosweep_tools.core.text import printable
from iosweep_tools.report import html as h
from iosweep_tools.report.latency import point_label
from iosweep_tools.results import drive_view

GB = 1e9


def final_math_rows(run):
    """(filter-count row, ship-count row or None) that the console's final math prints: the
    last of each appended."""
    f = [i for i in range(len(run.summary)) if run.phase_of_row(i) == "filter-count"]
    sh = [i for i in range(len(run.summary)) if run.phase_of_row(i) == "ship-count"]
    return (f[-1] if f else None), (sh[-1] if sh else None)


def _point_lines(run, i):
    """The point, its data, runtime and aggregate, and every node's share."""
    s = run.summary
    v = lambda f: s[f][i]  # noqa: E731
    if run.axis() == "streams":
        head = (
            f"filter-count at {v('streams')} streams ({v('ranks')} ranks x depth {v('iodepth')}) on"
            f" {v('nodes')} node(s) (the largest point):"
        )
    else:
        head = f"filter-count at {v('ranks')} ranks on {v('nodes')} node(s) (the largest point):"
    bw = float(v("bandwidth_Bps"))
    lines = [
        head,
        f"  data       {v('bytes')} bytes ({int(v('bytes')) / GB:.3f} GB),"
        f" {v('rows')} rows of 8 bytes",
        f"  runtime    {float(v('wall_s')):.3f} s",
        f"  aggregate  {bw / GB:.3f} GB/s ({bw / h.MIB:.1f} MiB/s)",
    ]
    nodes = run.table("nodes")
    for k in range(len(nodes)) if nodes is not None else ():
        if int(nodes["point"][k]) == int(v("point")):
            lines.append(
                f"  node {int(nodes['node'][k]):<3d}  "
                f" {float(nodes['bandwidth_Bps'][k]) / GB:.3f} GB/s"
                f"  ({nodes['ranks'][k]} ranks, {run.host(nodes['node'][k])})"
            )
    return lines


def _matches_line(run, i):
    s = run.summary
    engine = run.engine_names.get(int(s["engine"][i]), "") if "engine" in s.dtype.names else ""
    m, e = int(s["matches"][i]), int(s["expected_matches"][i])
    verdict = (
        " (not checked: no data moved)"
        if engine == "null"
        else " (exact)"
        if m == e
        else " (MISMATCH)"
    )
    return f"  matches    {m} found, {e} expected{verdict}"


def _drives_used(run, i):
    """The summary's drives of row i; None for a file from before the drive view (whose console
    printed no per drive line)."""
    s = run.summary
    return int(s["drives"][i]) if "drives" in s.dtype.names else None


def _drive_lines(run, i):
    """`per drive` (aggregate / drives used) and every drive used: its device's bytes over the
    point's window and what its ranks claimed (ConsoleWriter::print_drives)."""
    n = _drives_used(run, i)
    if n is None:
        return []
    if n == 0:
        why = str(run.attrs.get("device_note") or "")
        why = f"no device counters ({printable(why)})" if why else "no drive was counted"
        return [f"  per drive  not known: {why}"]
    s = run.summary
    bw, wall = float(s["bandwidth_Bps"][i]), float(s["wall_s"][i])
    lines = [
        f"  per drive  {bw / n / GB:.3f} GB/s (aggregate / {n} drive{'' if n == 1 else 's'} used)"
    ]
    for d in drive_view.drives(run, i):
        if not d.used:
            continue
        nodes = ",".join(str(x) for x in d.nodes)
        folders = ",".join(printable(f) for f in d.folders)
        seen = d.read_bytes / wall / GB if wall > 0 else 0.0
        lines.append(
            f"  drive {d.drive:<4d} {printable(d.device)} on node{'' if len(d.nodes) == 1 else 's'}"
            f" {nodes} ({folders}): device read {d.read_bytes} bytes = {seen:.3f} GB/s over the"
            f" {wall:.3f} s window; {d.ranks} rank{'' if d.ranks == 1 else 's'} claimed"
            f" {d.claimed_bytes} bytes, {d.drive_Bps / GB:.3f} GB/s"
        )
    return lines


def _rated_lines(run, per_unit, unit):
    """What --rated-bw makes of the figure per drive (per rank's device without drives): one or
    two rated maximums."""
    r1, r2 = float(run.attrs.get("rated_bw_Bps") or 0), float(run.attrs.get("rated_bw2_Bps") or 0)
    if r1 > 0 and r2 > 0:
        a, b = 100.0 * per_unit / r1, 100.0 * per_unit / r2
        return [
            f"  rated      {r1 / GB:.3f} GB/s and {r2 / GB:.3f} GB/s {unit}: between"
            f" {min(a, b):.1f}% and {max(a, b):.1f}% of rated maximum"
            f" ({a:.1f}% of {r1 / GB:.3f} GB/s,"
            f" {b:.1f}% of {r2 / GB:.3f} GB/s)"
        ]
    if r1 > 0:
        return [
            f"  rated      {r1 / GB:.3f} GB/s {unit}:"
            f" {100.0 * per_unit / r1:.1f}% of rated maximum"
        ]
    return []


def _ship_lines(run, i, j):
    """ship-count's lines, when its last point is filter-count's (ranks and repetition)."""
    s = run.summary
    if (
        j is None
        or int(s["ranks"][j]) != int(s["ranks"][i])
        or int(s["repetition"][j]) != int(s["repetition"][i])
    ):
        return []
    mb, rb = int(s["mpi_bytes"][j]), int(s["mpi_remote_bytes"][j])
    bw, sbw = float(s["bandwidth_Bps"][i]), float(s["bandwidth_Bps"][j])
    return [
        f"ship-count at {int(s['ranks'][j])} ranks (every record sent over MPI to a collector):",
        f"  moved      {mb} bytes over MPI"
        f" ({100.0 * rb / mb if mb else 0.0:.0f}% to another node),"
        f" against {int(s['mpi_bytes'][i])} bytes (8 per rank) for filter-count",
        f"  aggregate  {sbw / GB:.3f} GB/s; filter-count / ship-count"
        f" {bw / sbw if sbw > 0 else 0.0:.2f}",
    ]


def final_math_text(run):
    """The lines ConsoleWriter::print_final_math prints (src/output/console_writer.cpp), from
    the stored figures; None without filter-count."""
    i, j = final_math_rows(run)
    if i is None:
        return None
    s = run.summary
    bw = float(s["bandwidth_Bps"][i])
    n, k = int(s["nodes"][i]), int(s["ranks"][i])
    per_node, per_rank = (bw / n if n else 0.0), (bw / k if k else 0.0)
    lines = _point_lines(run, i)
    lines.append(f"  per node   {per_node / GB:.3f} GB/s (aggregate / nodes)")
    lines.append(f"  per rank   {per_rank / GB:.3f} GB/s (aggregate / ranks)")
    lines += _drive_lines(run, i)
    lines.append(_matches_line(run, i))
    used = _drives_used(run, i)
    if used:
        lines += _rated_lines(run, bw / used, "per drive")
    else:
        lines += _rated_lines(run, per_rank, "per rank's device")
    lines += _ship_lines(run, i, j)
    return "\n".join(lines) + "\n"


def final_math(run):
    text = final_math_text(run)
    if text is None:
        return h.p("No filter-count in this run: no final math.")
    i, _ = final_math_rows(run)
    fields = [
        "bytes",
        "rows",
        "wall_s",
        "bandwidth_Bps",
        "matches",
        "expected_matches",
        "ranks",
        "nodes",
    ]
    if "drives" in run.summary.dtype.names:
        fields.append("drives")
    body = h.p(
        "As the console prints it after the run (GB = 10^9 bytes; per node = aggregate / nodes,"
        " per rank = aggregate / ranks, per drive = aggregate / drives used; each drive: the"
        " bytes its device read over the point's window (wall_s) and what its ranks claimed"
        " (drive_Bps, the device table; see Drives); rated from --rated-bw: rated_bw_Bps,"
        " rated_bw2_Bps, per drive, or per rank's device when no drive was counted),"
        f" for the last filter-count point appended: {escape(point_label(run, i))}."
    )
    body += f'<pre class="final-math" data-run="{escape(run.id)}">{escape(text)}</pre>'
    row = [h.td(run, "summary", i, f) for f in fields]
    row += [h.attr_td(run, "rated_bw_Bps", cls=""), h.attr_td(run, "rated_bw2_Bps", cls="")]
    return body + h.table(fields + ["rated_bw_Bps", "rated_bw2_Bps"], [row])
