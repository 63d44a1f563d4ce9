"""The sweep curves of iosweep-report: every phase's headline figure against its points, every
repetition, where the bytes came from, and the IOzone/IOR/mdtest baselines drawn on them.
Metadata phases are drawn in ops/s on a log10 axis (their rates span decades: a create that
waits for the journal, a stat the kernel answers), with the items, folders and what the storage
counted per operation beside them.

    sweep(runs, baselines, names)     # the section's body; `names` the phase names of the file

`runs` are results.reader.Run, `baselines` [(source, [Result])] of compare.tools.sources.
"""
import os
from html import escape

import numpy as np

from iosweep_tools.compare import tools
from iosweep_tools.core.text import size_text
from iosweep_tools.report import html as h
from iosweep_tools.report import svg
from iosweep_tools.report.html import MIB
from iosweep_tools.report.overview import run_name
from iosweep_tools.results.names import record_bytes


def headline_scale(run, phase):
    fld, _ = run.headline(phase)
    if run.is_metadata(phase):
        return fld, 1.0, "operations per second (ops/s)"
    return (fld, 1.0, "IOPS (ops/s)") if fld == "iops" else (fld, MIB, "MiB/s (bytes/s / 2^20)")


def sweep(runs, baselines, names):
    first = runs[0]
    phases = []  # phase labels: `md-4k/md-create` in a run of several steps
    for r in runs:
        phases += [p for p in r.labels_present() if p not in phases]
    body = h.p(
        "The headline figure of every point: all bytes (or operations) over the slowest rank's"
        " time, open to close (wall_s), IOR's definition: bandwidth for sequential and scan"
        " phases, IOPS for random ones (from the run's phase table); for metadata phases"
        " operations per second, every rank's operations over the slowest rank's window from the"
        " barrier to its last completion (mdtest's and IO500's rate), on a log10 axis. The line"
        " joins the mean of the repetitions; each repetition is a ring, the band spans min to"
        " max. Baselines are the other tools' outputs given with --baseline, drawn where they"
        " measured the same phase."
    )
    if not phases:
        body += h.p(
            "No point was recorded: " + ", ".join(f"{escape(r.id)} {r.status_name}" for r in runs)
        )
    cards = []
    for label in phases:
        phase = label.rsplit("/", 1)[-1]
        fld, scale, ylabel = headline_scale(first, phase)
        axis = first.axis()
        series, tables = [], ""
        for k, r in enumerate(runs):
            s = r.summary
            idx = [i for i in range(len(s)) if r.phase_label(i) == label]
            if not idx:
                continue
            colour = svg.phase_colour(phase, names)
            xs = sorted({int(s[axis][i]) for i in idx})
            by = {x: [float(s[fld][i]) / scale for i in idx if int(s[axis][i]) == x] for x in xs}
            series.append(
                {
                    "label": f"{run_name(r)}: {label}" if len(runs) > 1 else f"iosweep {label}",
                    "color": colour,
                    "dash": svg.DASHES[k % len(svg.DASHES)],
                    "points": [(x, float(np.mean(v))) for x, v in by.items()],
                    "dots": [(x, y) for x, v in by.items() for y in v],
                    "ranges": [(x, min(v), max(v)) for x, v in by.items()],
                }
            )
            tables += stats_table(r, fld, scale, axis, by, len(runs) > 1)
        series += baseline_series(first, phase, baselines, scale)
        kind = "streams (active ranks x depth)" if axis == "streams" else "active ranks"
        md = first.is_metadata(phase)
        caption = f"{escape(label)}: {escape(ylabel)} against {kind}, log2 axis" + (
            ", log10 rate axis. Window: each rank's barrier to its last completion; the figure"
            " divides every rank's operations by the slowest rank's window."
            if md
            else ". Window: each rank's open to close; the figure divides all bytes by the"
            " slowest rank's time."
        )
        caption += f" {escape(records_note(first, phase))}"
        caption += "".join(f" {escape(bytes_note(r, phase))}" for r in runs)
        chart = svg.chart(
            series,
            f"{label}: {ylabel}",
            f"{kind} (log2)",
            ylabel + (" (log10)" if md else ""),
            "log2",
            "log10" if md else "linear",
            caption=caption,
        )
        cards.append(h.card(escape(label), chart + tables))
    return body + h.cards(cards) + every_row(runs)


def records_note(run, phase):
    if run.is_metadata(phase):
        return md_note(run.attrs)
    rec = record_bytes(run.attrs, phase)
    size = size_text(run.attrs.get("file_size_bytes"))
    return f"Records of {size_text(rec)}; files of {size} per rank."


def _span(values):
    lo, hi = min(values), max(values)
    return (
        f"{100 * lo:.0f}%"
        if round(100 * lo) == round(100 * hi)
        else f"{100 * lo:.0f}-{100 * hi:.0f}%"
    )


def md_note(a):
    """The items of a run's metadata phases, in a sentence (its run attributes)."""
    items = a.get("md_items_total") or a.get("md_items")
    per = "divided over each point's ranks" if a.get("md_items_total") else "per rank"
    layout = "a tree per stream" if str(a.get("md_layout")) == "private" else "one shared tree"
    most = a.get("md_items_per_folder")
    folders = f", at most {most} per folder" if most else ""
    fsync = ", fsync per item" if a.get("md_fsync") else ""
    return (
        f"{items} items {per}, {layout} of depth {a.get('md_depth')}{folders};"
        f" {size_text(a.get('md_write_bytes'))} written into and"
        f" {size_text(a.get('md_read_bytes'))} read from each item{fsync}."
    )


def _values(run, idx, f):
    """The measured values of summary field `f` over rows `idx` (NaN: not measured)."""
    s = run.summary
    return [float(s[f][i]) for i in idx if f in s.dtype.names and s[f][i] == s[f][i]]


def md_bytes_note(run, idx):
    """What the storage counted per operation of a metadata phase's points, in a sentence."""
    dev = _values(run, idx, "md_device_bytes_per_op")
    wire = _values(run, idx, "md_wire_bytes_per_op")
    out = []
    if dev:
        out.append(f"the block device counted {min(dev):.0f}-{max(dev):.0f} bytes per operation")
    if wire:
        out.append(f"the wire carried {min(wire):.0f}-{max(wire):.0f} bytes per operation")
    drops = {int(v) for v in _values(run, idx, "md_cache_drop")}
    if drops & {1}:
        out.append("caches dropped before the phase")
    elif drops & {2}:
        out.append("the kernel refused to drop the caches")
    return "; ".join(out or ["nothing counted what reached the storage (unverified)"])


def bytes_note(run, phase):
    """Where the bytes of a phase's points came from, in a sentence (the summary's device,
    page-cache and unflushed fractions over its rows; NaN is not measured); for a metadata
    phase, what the device and the wire counted per operation and the cache drop."""
    s = run.summary
    idx = [i for i in range(len(s)) if run.phase_of_row(i) == phase]
    if run.is_metadata(phase):
        return f"{run_name(run)}: {md_bytes_note(run, idx)}."

    def get(f):  # the measured values of a fraction (NaN: not measured)
        return _values(run, idx, f)

    dev = get("device_fraction")
    who = f"{run_name(run)}: "
    out = [
        f"the block device saw {_span(dev)} of the bytes" if dev else "device bytes not measured"
    ]
    if run.writes(phase):
        u = get("unflushed_fraction")
        if u and max(u) >= 0.05:
            out.append(f"{_span(u)} left unflushed in the page cache")
    else:
        c = get("cached_fraction_max")
        if c and max(c) >= 0.05:
            out.append(f"up to {_span(c)} already cached before the read")
    return who + "; ".join(out) + "."


# The summary rows of every phase, in two tables: data phases and metadata phases. Each column
# (header, field, scale); the headline's column is the phase's own (bandwidth or iops).
DATA_COLUMNS = [("wall_s (s)", "wall_s", None), ("bytes", "bytes", None), ("ops", "ops", None)]
DATA_COLUMNS += [("children (MiB/s)", "children_Bps", MIB)]
DATA_COLUMNS += [("IOzone children (MiB/s)", "iozone_children_Bps", MIB)]
DATA_COLUMNS += [("cpu_s (s)", "cpu_s", None)]
MD_COLUMNS = [("wall_s (s)", "wall_s", None), ("ops", "ops", None)]
MD_COLUMNS += [("rank min (ops/s)", "rank_iops_min", None)]
MD_COLUMNS += [("rank max (ops/s)", "rank_iops_max", None)]
MD_COLUMNS += [("items", "md_items", None), ("folders", "md_folders", None)]
MD_COLUMNS += [("device (B/op)", "md_device_bytes_per_op", None)]
MD_COLUMNS += [("wire (B/op)", "md_wire_bytes_per_op", None)]
# How close every row came to the CPU and the hardware (results/README.md): the ranks' CPU per
# operation and share of their windows; the data rows' links and rated figures.
CPU_COLUMNS = [("user (ns/op)", "cpu_user_ns_per_op", None)]
CPU_COLUMNS += [("sys (ns/op)", "cpu_sys_ns_per_op", None)]
CPU_COLUMNS += [("busy mean", "busy_fraction_mean", None), ("busy max", "busy_fraction_max", None)]
CPU_COLUMNS += [("queued mean", "queued_fraction_mean", None)]
HEADROOM_COLUMNS = CPU_COLUMNS + [("link max", "link_fraction_max", None)]
HEADROOM_COLUMNS += [("of rated bw", "rated_bw_fraction", None)]
HEADROOM_COLUMNS += [("of rated IOPS", "rated_iops_fraction", None)]
HEAD_COLUMNS = ("ranks", "iodepth", "nodes", "repetition")


def stats_table(r, fld, scale, axis, by, many):
    """Per point of one phase: its repetitions and the mean, min and max of its headline."""
    unit = "MiB/s" if scale != 1.0 else "ops/s"
    stats = [
        [
            h.text_td(x, cls=""),
            h.text_td(len(v), cls=""),
            h.derived(float(np.mean(v)), f"mean over repetitions of {fld} / {scale:g}"),
            h.derived(min(v), f"min over repetitions of {fld} / {scale:g}"),
            h.derived(max(v), f"max over repetitions of {fld} / {scale:g}"),
        ]
        for x, v in by.items()
    ]
    title = f"<h4>{escape(run_name(r))}</h4>" if many else ""
    return title + h.table([axis, "repetitions", f"mean ({unit})", "min", "max"], stats)


def _row_cells(r, i, axis, columns):
    """The cells of summary row i: its phase, point and headline, then `columns`."""
    phase = r.phase_of_row(i)
    fld, scale, _ = headline_scale(r, phase)
    cells = [h.text_td(r.phase_label(i)), h.td(r, "summary", i, axis)]
    cells += [h.td(r, "summary", i, f) for f in HEAD_COLUMNS if f != axis]
    cells.append(h.td(r, "summary", i, fld, scale=scale if scale != 1.0 else None))
    cells.append(h.text_td("MiB/s" if scale != 1.0 else "ops/s"))
    return cells + [h.td(r, "summary", i, f, scale=sc) for _, f, sc in columns]


def every_row(runs):
    """Every summary row of every run, data phases and metadata phases in a table each, to
    open under the curves."""
    out = ""
    for r in runs:
        axis = r.axis()
        rows = {False: [], True: []}
        for i in range(len(r.summary)):
            rows[r.is_metadata(r.phase_of_row(i))].append(i)
        head = ["phase", axis] + [f for f in ("ranks", "depth", "nodes", "rep") if f != axis]
        head += ["headline", "unit"]
        for md, idx in rows.items():
            if not idx:
                continue
            columns = MD_COLUMNS if md else DATA_COLUMNS
            shown, total = h.capped(idx)
            table = h.table(
                head + [c for c, _, _ in columns],
                [_row_cells(r, i, axis, columns) for i in shown],
                total,
            )
            what = "metadata phases" if md else "data phases"
            name = f" of {escape(run_name(r))}" if len(runs) > 1 else ""
            out += f"<details><summary>every point of the {what}{name} (summary rows)</summary>"
            out += table + "</details>"
        out += _headroom_rows(r, axis, len(runs) > 1)
    return out


def _headroom_rows(r, axis, many):
    """Every row's CPU and headroom (results/README.md): the ranks' CPU per operation, how busy
    and how queued they were, and a data row's link and rated fractions; files before them have
    none."""
    have = [c for c in HEADROOM_COLUMNS if c[1] in r.summary.dtype.names]
    if not have:
        return ""
    shown, total = h.capped(range(len(r.summary)))
    rows = []
    for i in shown:
        cells = [h.text_td(r.phase_label(i)), h.td(r, "summary", i, axis)]
        cells.append(h.td(r, "summary", i, "repetition"))
        rows.append(cells + [h.td(r, "summary", i, f, scale=sc) for _, f, sc in have])
    head = ["phase", axis, "rep"] + [c for c, _, _ in have]
    name = f" of {escape(run_name(r))}" if many else ""
    return (
        f"<details><summary>every point's CPU and headroom{name} (user and system CPU per"
        " operation, busy and queued shares of the window, link and rated fractions)</summary>"
        + h.table(head, rows, total)
        + "</details>"
    )


def baseline_series(run, phase, baselines, scale):
    out = []
    for src, results in baselines:
        mine = [x for x in results if x.phase == phase]
        if not mine:
            continue
        pts = {}
        for x in mine:
            pts.setdefault(x.threads, []).append(x.value / scale)
        ours = baseline_mine(run, mine[0])
        diff = tools.differences(ours, mine[0]) if ours else []
        out.append(
            {
                "label": ("≠ " + ",".join(diff) + " " if diff else "")
                + f"{tools.source_name(src)} {mine[0].figure}:"
                f" {', '.join(os.path.basename(f) for f in src['files'])}"
                f" ({tools.settings_text(src)})",
                "color": "#555",
                "dash": "3 3",
                "marker": "cross" if src["tool"] == "iozone" else "square",
                "points": sorted((t, float(np.mean(v))) for t, v in pts.items()),
            }
        )
    return out


def baseline_mine(run, x):
    """The run's settings beside a baseline's Result `x` (compare.tools.differences); None when
    the run has no such phase. A metadata phase's are those of the point of x's tasks (or of
    the phase's first point when the run has none of that many streams)."""
    if x.phase not in run.phases_present():
        return None
    if run.is_metadata(x.phase):
        rows = tools.iosweep_rows(run.frame(), run.attrs)
        at = {k: v for (p, k), v in rows.items() if p == x.phase}
        return at.get(x.threads) or next(iter(at.values()), None)
    shared = str(run.attrs.get("file_layout") or "per-rank") == "shared"
    size = run.attrs.get("file_size_bytes")
    return {
        "record_bytes": record_bytes(run.attrs, x.phase),
        "file_bytes": None if size is None else int(size) * (x.threads if shared else 1),
        "direct": None if run.attrs.get("direct") is None else bool(run.attrs["direct"]),
        "shared": shared,
    }
