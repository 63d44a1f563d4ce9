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
from iosweep_tools.report.latency import head_cells
from iosweep_tools.results.peaks import console_names, figure_text, peak_sustained, peaks_text

# ------------------------------------------------------------------------------ stragglers


def stragglers(run):
    """Who set each point's wall_s: the slowest rank and where its time went, and the slowest
    node, from the ranks and nodes tables."""
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
MD = ("md_cache_drop", "md_device_bytes_per_op", "md_wire_bytes_per_op")
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


def provenance(run):
    s = run.summary
    fields = [
        "device_fraction",
        "cached_fraction_mean",
        "cached_fraction_max",
        "unflushed_fraction",
    ]
    fields += [f for f in WIRE if f in s.dtype.names]
    if any(run.is_metadata(p) for p in run.phases_present()):
        fields += list(MD)
    fields = [f for f in fields if f in s.dtype.names]
    shown, total = h.capped(range(len(s)))
    rows = [
        head_cells(run, i)
        + [h.td(run, "summary", i, f) for f in fields]
        + [h.text_td(words(run, i))]
        for i in shown
    ]
    body = h.p(
        'Measured outside the timed windows (results/README.md, "Where the bytes came from";'
        ' metadata rows: "Metadata phases", what the device and the wire counted per'
        " operation and whether the caches were dropped); NaN means not measured, said in"
        " words."
        + (
            ""
            if any(f in s.dtype.names for f in WIRE)
            else " Wire counters: not recorded in this file."
        )
    )
    return body + h.table(["phase", run.axis(), "rep", *fields, "in words"], rows, total)


# -------------------------------------------------------------------------- peak & sustained


def peaks(run):
    """Per phase, the best point and the largest point, as the PixStor study presents its series
    and the console prints at the end of a run (results.peaks: the same definitions and text)."""
    rows = peak_sustained(run)
    if not rows:
        return ""
    axis = run.axis()
    body = h.p(
        "Per phase, the headline figure's mean over the repetitions of each point (ops/s for"
        " random and metadata phases, MiB/s = bytes/s / 2^20 otherwise): peak is the best point,"
        f" sustained the point of the most {escape(axis)}, as the PixStor study presents its"
        " series; the console prints the same table at the end of the run."
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
            ]
        )
    table = h.table(["phase", "unit", "peak", axis, "sustained", axis], cells)
    text = peaks_text(rows, axis, console_names(run))
    return body + table + f'<pre class="peaks">{escape(text)}</pre>'
