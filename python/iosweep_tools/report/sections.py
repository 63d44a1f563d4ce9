"""The per-run sections of iosweep-report about who and what: stragglers (the ranks and nodes
that set wall_s), where the bytes came from (in words), and filter-count's final math as the
console prints it.

Each function takes one run (iosweep_run.Run) and returns HTML.
"""
import math
from html import escape

import numpy as np

import iosweep_report_html as h
from iosweep_report_latency import MIB, head_cells, point_label, problem_note

# ------------------------------------------------------------------------------ stragglers


def stragglers(run):
    s, ranks, nodes = run.summary, run.table("ranks"), run.table("nodes")
    if ranks is None:
        return h.p("ranks: not recorded in this file" + problem_note(run, "ranks"))
    body = h.p(
        "Who set each point's wall_s: the slowest rank (its elapsed_s is the wall figure), where"
        " its time went (open, I/O, fsync, close), and how much slower than the median rank it"
        " was; the slowest node (nodes.seconds: the max elapsed over the node's ranks) and every"
        " node's seconds."
    )
    by_point = {}
    for j in range(len(ranks)):
        by_point.setdefault(int(ranks["point"][j]), []).append(j)
    nodes_of = {}
    if nodes is not None:
        for j in range(len(nodes)):
            nodes_of.setdefault(int(nodes["point"][j]), []).append(j)
    rows = []
    shown, total = h.capped(range(len(s)))
    for i in shown:
        pt = int(s["point"][i])
        rj = by_point.get(pt, [])
        cells = head_cells(run, i) + [h.td(run, "summary", i, "wall_s")]
        if not rj:
            rows.append(cells + [h.text_td("no ranks rows")])
            continue
        el = np.array([float(ranks["elapsed_s"][j]) for j in rj])
        slow = rj[int(np.argmax(el))]
        med = float(np.median(el))
        cells += [
            h.td(run, "ranks", slow, "rank"),
            h.text_td(f"{int(ranks['node'][slow])} {run.host(ranks['node'][slow])}"),
            h.td(run, "ranks", slow, "elapsed_s"),
        ]
        cells += [h.td(run, "ranks", slow, f) for f in ("open_s", "io_s", "sync_s", "close_s")]
        cells += [
            h.derived(med, "median of ranks.elapsed_s over the point's ranks"),
            h.derived(
                el.max() / med if med > 0 else math.nan, "slowest / median elapsed_s", digits=3
            ),
        ]
        nj = nodes_of.get(pt, [])
        if nj:
            sec = np.array([float(nodes["seconds"][j]) for j in nj])
            sn = nj[int(np.argmax(sec))]
            cells.append(
                h.html_td(f"{int(nodes['node'][sn])} {escape(run.host(nodes['node'][sn]))}")
            )
            cells.append(h.td(run, "nodes", sn, "seconds"))
            spans = " ".join(
                f'<span data-run="{escape(run.id)}" data-table="nodes" data-row="{j}"'
                f' data-field="seconds" data-value="{h.exact(nodes["seconds"][j])}">'
                f"{int(nodes['node'][j])}: {h.num(nodes['seconds'][j])}</span>"
                for j in nj[:32]
            )
            cells.append(h.html_td(spans + (" …" if len(nj) > 32 else "")))
        else:
            cells += [h.text_td("not recorded")] * 3
        rows.append(cells)
    head = ["phase", run.axis(), "rep", "wall_s (s)", "slowest rank", "its node", "elapsed_s (s)"]
    head += ["open_s", "io_s", "sync_s", "close_s", "median elapsed (s)", "slowest / median"]
    head += ["slowest node", "its seconds (s)", "every node's seconds (s)"]
    return body + h.table(head, rows, total)


# ------------------------------------------------------------------------------ provenance

WIRE = ("wire_fraction", "wire_rx_bytes", "wire_tx_bytes")


def _pct(v):
    return f"{100 * v:.0f}%"


def words(run, i):
    """Where the bytes of summary row i came from, in words."""
    s = run.summary
    names = s.dtype.names
    get = lambda f: float(s[f][i]) if f in names else math.nan  # noqa: E731
    phase = run.phase_of_row(i)
    dev, wire = get("device_fraction"), get("wire_fraction")
    out = []
    if not math.isnan(dev):
        out.append(f"the block device saw {_pct(dev)} of the bytes")
        if dev < 0.9:
            out.append("under 90%: the rest stayed in or came from the page cache")
    if not math.isnan(wire):
        out.append(f"the network wire carried {_pct(wire)} of the bytes")
    if math.isnan(dev) and math.isnan(wire):
        has_wire = any(f in names for f in WIRE)
        note = str(run.attrs.get("device_note") or "no block device")
        out.append(
            "unverified: no block device and no wire counters"
            + (f" ({note})" if note else "")
            + ("" if has_wire else "; this file records no wire counters")
        )
    if run.writes(phase):
        u = get("unflushed_fraction")
        if math.isnan(u):
            out.append("unflushed: not measured (fsync or O_DIRECT: written through)")
        elif u >= 0.05:
            out.append(
                f"{_pct(u)} still dirty in the page cache after close: not on the device yet"
            )
        else:
            out.append(f"{_pct(u)} left unflushed")
    else:
        cm, cx = get("cached_fraction_mean"), get("cached_fraction_max")
        if math.isnan(cm):
            out.append("page cache before the read: not measured")
        elif cx >= 0.05:
            out.append(
                f"{_pct(cm)} (mean; max {_pct(cx)}) already in the page cache before the read"
            )
        else:
            out.append("read from outside the page cache (under 5% resident)")
    return "; ".join(out)


def provenance(run):
    s = run.summary
    fields = [
        "device_fraction",
        "cached_fraction_mean",
        "cached_fraction_max",
        "unflushed_fraction",
    ]
    fields += [f for f in WIRE if f in s.dtype.names]
    fields = [f for f in fields if f in s.dtype.names]
    shown, total = h.capped(range(len(s)))
    rows = [
        head_cells(run, i)
        + [h.td(run, "summary", i, f) for f in fields]
        + [h.text_td(words(run, i))]
        for i in shown
    ]
    body = h.p(
        'Measured outside the timed windows (results/README.md, "Where the bytes came from");'
        " NaN means not measured, said in words."
        + (
            ""
            if any(f in s.dtype.names for f in WIRE)
            else " Wire counters: not recorded in this file."
        )
    )
    return body + h.table(["phase", run.axis(), "rep", *fields, "in words"], rows, total)


# ------------------------------------------------------------------------------ final math


def final_math_rows(run):
    """(filter-count row, ship-count row or None) that the console's final math prints: the
    last of each appended."""
    f = [i for i in range(len(run.summary)) if run.phase_of_row(i) == "filter_count"]
    sh = [i for i in range(len(run.summary)) if run.phase_of_row(i) == "ship_count"]
    return (f[-1] if f else None), (sh[-1] if sh else None)


def final_math_text(run):
    """The lines ConsoleWriter::print_final_math prints (src/output/console_writer.cpp), from
    the stored figures; None without filter-count."""
    i, j = final_math_rows(run)
    if i is None:
        return None
    s, g = run.summary, 1e9
    v = lambda f, k=i: s[f][k]  # noqa: E731
    streams = run.axis() == "streams"
    lines = []
    if streams:
        lines.append(
            f"filter-count at {v('streams')} streams ({v('ranks')} ranks x depth {v('iodepth')}) on"
            f" {v('nodes')} node(s) (the largest point):"
        )
    else:
        lines.append(
            f"filter-count at {v('ranks')} ranks on {v('nodes')} node(s) (the largest point):"
        )
    bw = float(v("bandwidth_Bps"))
    lines.append(
        f"  data       {v('bytes')} bytes ({int(v('bytes')) / g:.3f} GB),"
        f" {v('rows')} rows of 8 bytes"
    )
    lines.append(f"  runtime    {float(v('wall_s')):.3f} s")
    lines.append(f"  aggregate  {bw / g:.3f} GB/s ({bw / MIB:.1f} MiB/s)")
    nodes = run.table("nodes")
    if nodes is not None:
        for k in range(len(nodes)):
            if int(nodes["point"][k]) == int(v("point")):
                lines.append(
                    f"  node {int(nodes['node'][k]):<3d}  "
                    f" {float(nodes['bandwidth_Bps'][k]) / g:.3f} GB/s"
                    f"  ({nodes['ranks'][k]} ranks, {run.host(nodes['node'][k])})"
                )
    n, k = int(v("nodes")), int(v("ranks"))
    per_node, per_rank = (bw / n if n else 0.0), (bw / k if k else 0.0)
    lines.append(f"  per node   {per_node / g:.3f} GB/s (aggregate / nodes)")
    lines.append(f"  per rank   {per_rank / g:.3f} GB/s (aggregate / ranks)")
    engine = run.engine_names.get(int(v("engine")), "") if "engine" in s.dtype.names else ""
    m, e = int(v("matches")), int(v("expected_matches"))
    verdict = (
        " (not checked: no data moved)"
        if engine == "null"
        else " (exact)"
        if m == e
        else " (MISMATCH)"
    )
    lines.append(f"  matches    {m} found, {e} expected{verdict}")
    r1, r2 = float(run.attrs.get("rated_bw_Bps") or 0), float(run.attrs.get("rated_bw2_Bps") or 0)
    if r1 > 0 and r2 > 0:
        a, b = 100.0 * per_rank / r1, 100.0 * per_rank / r2
        lines.append(
            f"  rated      {r1 / g:.3f} GB/s and {r2 / g:.3f} GB/s per rank's device: between"
            f" {min(a, b):.1f}% and {max(a, b):.1f}% of rated maximum"
            f" ({a:.1f}% of {r1 / g:.3f} GB/s,"
            f" {b:.1f}% of {r2 / g:.3f} GB/s)"
        )
    elif r1 > 0:
        lines.append(
            f"  rated      {r1 / g:.3f} GB/s per rank's device:"
            f" {100.0 * per_rank / r1:.1f}% of rated maximum"
        )
    if (
        j is not None
        and int(s["ranks"][j]) == k
        and int(s["repetition"][j]) == int(v("repetition"))
    ):
        mb, rb = int(s["mpi_bytes"][j]), int(s["mpi_remote_bytes"][j])
        sbw = float(s["bandwidth_Bps"][j])
        lines.append(
            f"ship-count at {int(s['ranks'][j])} ranks (every record sent over MPI to a collector):"
        )
        lines.append(
            f"  moved      {mb} bytes over MPI"
            f" ({100.0 * rb / mb if mb else 0.0:.0f}% to another node),"
            f" against {int(v('mpi_bytes'))} bytes (8 per rank) for filter-count"
        )
        lines.append(
            f"  aggregate  {sbw / g:.3f} GB/s; filter-count / ship-count"
            f" {bw / sbw if sbw > 0 else 0.0:.2f}"
        )
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
    body = h.p(
        "As the console prints it after the run (GB = 10^9 bytes; per node = aggregate / nodes,"
        " per rank (per drive) = aggregate / ranks; rated from --rated-bw: rated_bw_Bps,"
        " rated_bw2_Bps),"
        f" for the last filter-count point appended: {escape(point_label(run, i))}."
    )
    body += f'<pre class="final-math" data-run="{escape(run.id)}">{escape(text)}</pre>'
    row = [h.td(run, "summary", i, f) for f in fields]
    row += [h.attr_td(run, "rated_bw_Bps", cls=""), h.attr_td(run, "rated_bw2_Bps", cls="")]
    return body + h.table(fields + ["rated_bw_Bps", "rated_bw2_Bps"], [row])
