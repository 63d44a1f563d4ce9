"""The per-run sections of iosweep-report about who and what: stragglers (the ranks and nodes
that set wall_s), where the bytes came from (in words) and each phase's peak and sustained
figures; filter-count's final math is final_math's.

Each function takes one run (results.reader.Run) and returns HTML.
"""
import math
from html import escape

import numpy as np

from iosweep_tools.report import html as h
from iosweep_tools.report.html import problem_note
from iosweep_tools.report.latency import head_cells, point_label
from iosweep_tools.results.peaks import cache_verdict, figure_text, peak_sustained, peaks_text

# ------------------------------------------------------------------------------ stragglers


def stragglers(run):
    """Who set each point's wall_s: the slowest rank and where its time went, and the slowest
    node, from the ranks and nodes tables; every node's seconds in a table to open."""
    s, ranks, nodes = run.summary, run.table("ranks"), run.table("nodes")
    if ranks is None:
        return h.p("ranks: not recorded in this file" + problem_note(run, "ranks"))
    body = h.p(
        "Who set each point's wall_s: the slowest rank (its elapsed_s is the wall figure), where"
        " its time went (open, I/O, fsync, close), and how much slower than the median rank it"
        " was; the slowest node (nodes.seconds: the max elapsed over the node's ranks); every"
        " node's seconds in the table under it. Times in seconds; ÷ median: the slowest rank's"
        " elapsed_s over the median rank's."
    )
    by_point = {}
    for j in range(len(ranks)):
        by_point.setdefault(int(ranks["point"][j]), []).append(j)
    nodes_of = {}
    if nodes is not None:
        for j in range(len(nodes)):
            nodes_of.setdefault(int(nodes["point"][j]), []).append(j)
    rows, every = [], []
    shown, total = h.capped(range(len(s)))
    for i in shown:
        pt = int(s["point"][i])
        cells = head_cells(run, i) + [h.td(run, "summary", i, "wall_s")]
        cells += _slowest_rank(run, by_point.get(pt, []))
        nj = nodes_of.get(pt, [])
        if nj:
            sn = max(nj, key=lambda j: float(nodes["seconds"][j]))
            cells.append(h.td(run, "nodes", sn, "node"))
            cells.append(h.td(run, "nodes", sn, "seconds"))
            every += [head_cells(run, i) + _node_cells(run, j) for j in nj]
        else:
            cells += [h.text_td("not recorded")] * 2
        rows.append(cells)
    head = ["phase", run.axis(), "rep", "wall_s", "slowest rank", "node", "elapsed_s"]
    head += ["open_s", "io_s", "sync_s", "close_s", "median", "÷ median", "slowest node"]
    head += ["seconds"]
    body += h.table(head, rows, total)
    if every:
        every, n = every[: h.MAX_ROWS], len(every)
        body += "<details><summary>every node's seconds at every point (nodes)</summary>"
        body += h.table(["phase", run.axis(), "rep", "node", "host", "seconds (s)"], every, n)
        body += "</details>"
    return body


def _slowest_rank(run, rj):
    """The cells of a point's slowest rank: who, where, its elapsed and its parts, the median
    rank's elapsed and how much slower it was."""
    ranks = run.table("ranks")
    if not rj:
        return [h.text_td("no ranks rows")] + [h.text_td("")] * 9
    el = np.array([float(ranks["elapsed_s"][j]) for j in rj])
    slow = rj[int(np.argmax(el))]
    med = float(np.median(el))
    cells = [
        h.td(run, "ranks", slow, "rank"),
        h.td(run, "ranks", slow, "node"),
        h.td(run, "ranks", slow, "elapsed_s"),
    ]
    cells += [h.td(run, "ranks", slow, f) for f in ("open_s", "io_s", "sync_s", "close_s")]
    return cells + [
        h.derived(med, "median of ranks.elapsed_s over the point's ranks"),
        h.derived(el.max() / med if med > 0 else math.nan, "slowest / median elapsed_s", digits=3),
    ]


def _node_cells(run, j):
    nodes = run.table("nodes")
    return [
        h.td(run, "nodes", j, "node"),
        h.text_td(run.host(nodes["node"][j])),
        h.td(run, "nodes", j, "seconds"),
    ]


# ------------------------------------------------------------------------------ provenance

WIRE = ("wire_fraction", "wire_rx_bytes", "wire_tx_bytes")
# Below these bytes per operation the storage cannot have answered (results/README.md,
# "Metadata phases": a request and its reply on the wire, the smallest on-disk inode).
MD_WIRE_MIN, MD_DEVICE_MIN = 128.0, 128.0


def _pct(v):
    return f"{100 * v:.0f}%"


def md_words(run, i):
    """Where the answers of metadata row i came from, in words: the console's notes (the cache
    drop before a lookup, the wire's and the device's bytes per operation, judged against the
    least a real crossing costs)."""
    s = run.summary
    get = lambda f: float(s[f][i]) if f in s.dtype.names else math.nan  # noqa: E731
    lookup = "lookup" in run.flags(run.phase_of_row(i))
    drop, wire, dev = (
        get("md_cache_drop"),
        get("md_wire_bytes_per_op"),
        get("md_device_bytes_per_op"),
    )
    out = []
    if lookup:
        out.append(
            {1: "caches dropped before the phase", 2: "the kernel refused to drop the caches"}.get(
                int(drop) if drop == drop else 0, "caches kept"
            )
        )
    if not math.isnan(wire):
        out.append(f"the wire carried {wire:.0f} bytes per operation")
        if wire < MD_WIRE_MIN:
            out.append("too few to have crossed it: answered by the client's caches")
    if not math.isnan(dev):
        out.append(f"the block device counted {dev:.0f} bytes per operation")
        if dev < MD_DEVICE_MIN:
            out.append(
                "too few for a lookup: answered by the caches"
                if lookup
                else "too few for a change: not on the device yet"
            )
        elif lookup and drop != 1 and math.isnan(wire):
            out.append("unverified: some answers may have come from the caches")
    if math.isnan(dev) and math.isnan(wire):
        out.append("unverified: no block device and no wire counters")
    return "; ".join(out)


def words(run, i):
    """Where the bytes of summary row i came from, in words (a metadata row: md_words)."""
    s = run.summary
    names = s.dtype.names
    get = lambda f: float(s[f][i]) if f in names else math.nan  # noqa: E731
    phase = run.phase_of_row(i)
    if run.is_metadata(phase):
        return md_words(run, i)
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


# The stored figures a row's provenance shows when they were measured, with their labels: data
# rows (a write's unflushed fraction, a read's page-cache residency) and metadata rows.
DATA_FIGURES = (("device_fraction", "device"), ("wire_fraction", "wire"))
DATA_FIGURES += (("wire_rx_bytes", "wire rx bytes"), ("wire_tx_bytes", "wire tx bytes"))
WRITE_FIGURES = (("unflushed_fraction", "unflushed"),)
READ_FIGURES = (("cached_fraction_mean", "cached (mean)"), ("cached_fraction_max", "cached (max)"))
MD_FIGURES = (("md_device_bytes_per_op", "device B/op"), ("md_wire_bytes_per_op", "wire B/op"))
CACHES = {0: "kept", 1: "dropped", 2: "refused"}


def measured(run, i):
    """The figures of summary row i that were measured (NaN ones are left out), as spans."""
    s = run.summary
    phase = run.phase_of_row(i)
    if run.is_metadata(phase):
        figures = MD_FIGURES
    else:
        figures = DATA_FIGURES + (WRITE_FIGURES if run.writes(phase) else READ_FIGURES)
    out = []
    for f, label in figures:
        if f in s.dtype.names and not (s.dtype[f].kind == "f" and math.isnan(s[f][i])):
            out.append(h.span(run, "summary", i, f, label=label))
    if run.is_metadata(phase) and "lookup" in run.flags(phase) and "md_cache_drop" in s.dtype.names:
        caches = CACHES.get(int(s["md_cache_drop"][i]), "?")
        out.append(h.span(run, "summary", i, "md_cache_drop", label="caches " + caches + ":"))
    return " · ".join(x for x in out if x)


def provenance(run):
    """Per summary row: the verdict the binary stored in its notes (where its figure came from
    when not the storage), the figures that were measured, and, on demand, the row in words."""
    s = run.summary
    shown, total = h.capped(range(len(s)))
    rows = []
    for i in shown:
        verdict = cache_verdict(h.exact(s["notes"][i])) if "notes" in s.dtype.names else None
        if verdict is None:
            cell = h.text_td("notes: not recorded in this file", cls="t note")
        else:
            cell = h.text_td(verdict or "the storage's (checked)", cls="t warn" if verdict else "t")
        rows.append(head_cells(run, i) + [cell, h.html_td(measured(run, i) or "nothing counted")])
    body = h.p(
        "Where each row's bytes (or operations) came from, measured outside the timed windows"
        ' (results/README.md, "Where the bytes came from"; metadata rows: "Metadata phases").'
        " The verdict is the row's, as the console's notes column and the Peak & Sustained table"
        " state it: cached N% (a read that found its bytes in the page cache), unflushed N% (a"
        " write that left them there), device N% or wire N% (the share the block device or the"
        " network counted, when under 90%), a metadata figure marked (cached) or (unflushed),"
        " unverified (nothing counted them); the storage's when the bytes were counted and"
        " nothing applies. Only the figures measured are shown; the rest were not (tmpfs has no"
        " block device, a write through fsync or O_DIRECT leaves nothing unflushed)."
        + (
            ""
            if any(f in s.dtype.names for f in WIRE)
            else " Wire counters: not recorded in this file."
        )
    )
    table = h.table(["phase", run.axis(), "rep", "verdict", "measured"], rows, total)
    said = "".join(
        f"<li>{escape(point_label(run, i))}: {escape(words(run, i))}</li>" for i in shown
    )
    return (
        body
        + table
        + "<details><summary>every row in words</summary>"
        + f'<ul class="words">{said}</ul></details>'
    )


# -------------------------------------------------------------------------- peak & sustained


def peaks(run):
    """Per phase, the best point and the largest point, as the PixStor study presents its series
    and the console prints at the end of a run (results.peaks: the same definitions and text),
    each with the cache verdict of its rows."""
    rows = peak_sustained(run)
    if not rows:
        return ""
    axis = run.axis()
    body = h.p(
        "Per phase, the headline figure's mean over the repetitions of each point (ops/s for"
        " random and metadata phases, MiB/s = bytes/s / 2^20 otherwise): peak is the best point,"
        f" sustained the point of the most {escape(axis)}, as the PixStor study presents its"
        " series; the console prints the same table at the end of the run. Notes: the cache"
        " verdict of the rows each figure is the mean of (see Where the bytes came from): a rate"
        " the page cache served is marked so, never shown as the storage's."
    )
    cells = []
    for p in rows:
        how = f"mean over repetitions of {p.field}" + (" / 2^20" if p.unit == "MiB/s" else "")
        cells.append(
            [
                h.text_td(p.phase),
                h.text_td(p.unit),
                h.derived(p.peak, f"max over {axis} of the {how}", text=figure_text(p, p.peak)),
                h.text_td(p.peak_at, cls=""),
                h.derived(
                    p.sustained,
                    f"{how} at the largest {axis}",
                    text=figure_text(p, p.sustained),
                ),
                h.text_td(p.sustained_at, cls=""),
                h.text_td(p.notes, cls="t warn" if p.notes else "t"),
            ]
        )
    table = h.table(["phase", "unit", "peak", axis, "sustained", axis, "notes"], cells)
    text = peaks_text(rows, axis)
    return body + table + f'<pre class="peaks">{escape(text)}</pre>'
