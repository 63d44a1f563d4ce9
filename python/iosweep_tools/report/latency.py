"""The per-run sections of iosweep-report about time: latency (percentiles per point, merged
histograms) and throughput and latency over time (the timeseries table; see results.timeseries
for its merged rows).

Each function takes one run (results.reader.Run) and the phase names of its file, and returns HTML.
"""
import math
from html import escape

import numpy as np

from iosweep_tools.report import html as h
from iosweep_tools.report import svg
from iosweep_tools.report.html import MIB, problem_note
from iosweep_tools.results import timeseries as its

PERCENTILES = ("lat_mean_ns", "lat_p50_ns", "lat_p90_ns", "lat_p99_ns", "lat_p999_ns")
PERCENTILES += ("lat_p9999_ns", "lat_max_ns")


def _rows_of(run, phase):
    return [i for i in range(len(run.summary)) if run.phase_of_row(i) == phase]


def point_label(run, i):
    s = run.summary
    axis = run.axis()
    return (
        f"{run.phase_of_row(i)} at {int(s[axis][i])} {axis}, repetition {int(s['repetition'][i])}"
    )


def head_cells(run, i):
    """The cells that name a summary row: phase, axis value, repetition."""
    return [
        h.text_td(run.phase_of_row(i)),
        h.td(run, "summary", i, run.axis()),
        h.td(run, "summary", i, "repetition"),
    ]


# --------------------------------------------------------------------------------- latency


def latency(run, names):
    s = run.summary
    body = h.p(
        "Operation latency of every point, all ranks merged: percentiles from the merged"
        " histogram (bucket midpoints, at most 0.8% off), in µs (the stored ns / 1000)."
    )
    have = [f for f in PERCENTILES if f in s.dtype.names]
    cards = []
    for phase in run.phases_present():
        idx = _rows_of(run, phase)
        axis = run.axis()
        series = []
        for f, colour in zip(
            ("lat_p50_ns", "lat_p99_ns", "lat_p999_ns", "lat_max_ns"), svg.OTHER_COLOURS
        ):
            if f not in have:
                continue
            xs = sorted({int(s[axis][i]) for i in idx})
            by = {x: [float(s[f][i]) for i in idx if int(s[axis][i]) == x] for x in xs}
            series.append(
                {
                    "label": f"{f} (median over repetitions; rings: each)",
                    "color": colour,
                    "points": [(x, float(np.median(v))) for x, v in by.items()],
                    "dots": [(x, y) for x, v in by.items() for y in v],
                }
            )
        cards.append(
            h.card(
                escape(phase),
                svg.chart(
                    series,
                    f"{phase}: latency percentiles",
                    f"{axis} (log2)",
                    "latency (log10)",
                    "log2",
                    "log10",
                    yfmt=svg.duration_text,
                    caption="Every operation's latency inside the timed window, merged over ranks.",
                )
                + histogram(run, phase, names),
            )
        )
    body += h.cards(cards)
    shown, total = h.capped(range(len(s)))
    rows = [
        head_cells(run, i)
        + [h.td(run, "summary", i, "ops")]
        + [h.td(run, "summary", i, f, scale=1000.0) for f in have]
        for i in shown
    ]
    body += "<details open><summary>percentiles of every point (µs)</summary>"
    body += h.table(["phase", run.axis(), "rep", "ops"] + [f"{f} (µs)" for f in have], rows, total)
    body += "</details>"
    return body


def histogram(run, phase, names):
    if run.latency is None:
        return h.p(
            "Merged latency histogram: not recorded in this file" + problem_note(run, "latency")
        )
    lower, upper, counts = run.latency
    i = its.largest_points(run).get(phase)
    if i is None:
        return ""
    s = run.summary
    axis = run.axis()
    same = [j for j in _rows_of(run, phase) if int(s[axis][j]) == int(s[axis][i])]
    series = []
    for k, j in enumerate(same):
        pt = int(s["point"][j])
        if pt >= len(counts):
            continue
        series.append(
            {
                "label": f"repetition {int(s['repetition'][j])}",
                "color": svg.phase_colour(phase, names),
                "dash": svg.DASHES[k % len(svg.DASHES)],
                "bars": grouped(lower, upper, counts[pt]),
            }
        )
    pt = int(s["point"][i])
    body = svg.chart(
        series,
        f"{phase}: merged latency histogram at {int(s[axis][i])} {axis}",
        "bucket lower bound (log10)",
        f"operations per {GROUP} buckets",
        "log10",
        xfmt=svg.duration_text,
        caption="latency/counts rows of this point's repetitions, all ranks merged: operations in"
        f" each run of {GROUP} adjacent buckets (the histogram has 64 buckets per power of two, so"
        f" a step is 1/{64 // GROUP} of an octave; below 64 ns, {GROUP} ns).",
    )
    if pt >= len(counts):
        return body + h.p(f"latency/counts has no row for point {pt}")
    nz = np.nonzero(counts[pt])[0]
    rows = [
        [
            _lat_cell(run, "bucket_lower_ns", b, lower[b]),
            _lat_cell(run, "bucket_upper_ns", b, upper[b]),
            _lat_cell(run, "counts", b, counts[pt][b], pt),
        ]
        for b in nz[: h.MAX_ROWS]
    ]
    body += f"<details><summary>the buckets of {escape(point_label(run, i))} that hold"
    body += " operations</summary>"
    body += h.table(["bucket_lower_ns (ns)", "bucket_upper_ns (ns)", "counts (ops)"], rows, len(nz))
    return body + "</details>"


GROUP = 8  # histogram buckets drawn as one step


def grouped(lower, upper, c):
    """[(lower_ns, upper_ns, operations)] of every run of GROUP adjacent buckets that holds
    operations."""
    out = []
    for g in range(0, len(c), GROUP):
        n = int(c[g : g + GROUP].sum())
        if n:
            out.append((float(lower[g]), float(upper[min(g + GROUP, len(c)) - 1]), float(n)))
    return out


def _lat_cell(run, field, bucket, v, point=None):
    where = f' data-point="{point}"' if point is not None else ""
    return (
        f'<td data-run="{escape(run.id)}" data-table="latency" data-field="{field}"'
        f' data-bucket="{int(bucket)}"{where} data-value="{int(v)}">{h.num(v)}</td>'
    )


# ------------------------------------------------------------------------------ over time


def over_time(run, names):
    t = run.table("timeseries")
    bin_s = run.attrs.get("timeseries_bin_s")
    if t is None:
        return h.p("timeseries: not recorded in this file" + problem_note(run, "timeseries"))
    merged, lat = its.has_merged(t), its.has_latency(t)
    body = h.p(
        f"Bins of {escape(str(bin_s))} s (timeseries_bin_s) from each rank's exit of the phase's"
        " barrier; the first repetition at each phase's largest point. Throughput = the bin's bytes"
        f" / {escape(str(bin_s))} s / 2^20 (MiB/s); a metadata phase's rate = the bin's operations"
        f" / {escape(str(bin_s))} s (ops/s), as it moves no bytes; the last bin is usually"
        " partial, so its rate reads low. "
        + (
            "Bytes, ops and latency come from the merged rows (rank -1) the file stores."
            if merged
            else "Bytes and ops are summed over the ranks' rows (rank >= 0)."
        )
    )
    if not lat:
        body += h.p(
            "<b>Latency over time: not recorded in this file</b> (its timeseries table has no"
            " lat_p50_ns, lat_p99_ns, lat_max_ns: written by an older iosweep).",
            "empty",
        )
    elif not merged:
        body += h.p(
            "Cluster-wide latency over time: not recorded in this file (no rank -1 rows).", "empty"
        )
    cards = []
    for phase, i in its.largest_points(run).items():
        pt = int(run.summary["point"][i])
        bins = its.cluster_bins(t, pt)
        if not bins:
            body += h.p(f"{escape(phase)}: no time bins for point {pt}")
            continue
        part = rate_chart(run, phase, bins, bin_s, svg.phase_colour(phase, names))
        if lat and merged:
            part += latency_chart(phase, bins)
        part += bins_table(run, phase, bins, bin_s, lat and merged)
        cards.append(h.card(escape(point_label(run, i)), part))
    return body + h.cards(cards)


def rate(run, phase):
    """(the bin's field a phase's rate over time counts, its scale, its unit): operations for a
    metadata phase (it moves no bytes), bytes in MiB/s for the others."""
    if run.is_metadata(phase):
        return "ops", 1.0, "ops/s"
    return "bytes", MIB, "MiB/s"


def rate_chart(run, phase, bins, bin_s, colour):
    """All ranks' bytes (MiB/s) or operations (ops/s, a metadata phase) in each bin, as steps."""
    fld, scale, unit = rate(run, phase)
    ok = isinstance(bin_s, (int, float)) and bin_s > 0
    steps = [(b["t_start_s"], b["t_start_s"] + bin_s, b[fld] / bin_s / scale) for b in bins]
    what = "operations" if fld == "ops" else "bytes"
    how = f"{what} in bin / bin" + (" / 2^20" if scale != 1.0 else "")
    return svg.chart(
        [{"label": f"{phase}: all ranks", "color": colour, "bars": steps if ok else []}],
        f"{phase}: {'operations' if fld == 'ops' else 'throughput'} over time",
        "time from the barrier (s)",
        f"{unit} ({how})",
        caption=f"All ranks' {what} completed in each bin of {escape(str(bin_s))} s.",
    )


def latency_chart(phase, bins):
    """The merged percentiles of every bin against time; a phase whose window held one bin has
    no line to draw (its percentiles are in the table of the bins)."""
    if len({b["t_start_s"] for b in bins}) < 2:
        return h.p(
            f"{escape(phase)}: latency over time is one bin long (the window was shorter than"
            " two bins): its percentiles are in the table of the bins, and the phase's whole"
            " latency in the Latency section."
        )
    lines = [
        {"label": f, "color": c, "points": [(b["t_start_s"], b[f]) for b in bins]}
        for f, c in zip(its.LATENCY, svg.OTHER_COLOURS)
    ]
    return svg.chart(
        lines,
        f"{phase}: latency over time, all ranks merged",
        "time from the barrier (s)",
        "latency (log10)",
        yscale="log10",
        yfmt=svg.duration_text,
        caption="Per bin: percentiles of the exactly merged per-bin histograms of all ranks"
        " (rank -1 rows).",
    )


def bins_table(run, phase, bins, bin_s, lat):
    """The bins of a point: what each counted (bytes, or a metadata phase's operations), its
    rate, its ranks and, when recorded, its merged latency percentiles."""
    fld, scale, unit = rate(run, phase)
    ok = isinstance(bin_s, (int, float)) and bin_s > 0
    rows = []
    for b in bins[: h.MAX_ROWS]:
        if b["row"] is not None:
            cells = [h.td(run, "timeseries", b["row"], f) for f in ("bin", "t_start_s", fld)]
        else:
            how = b["derived"]
            cells = [
                h.text_td(b["bin"], cls=""),
                h.derived(b["t_start_s"], how),
                h.derived(b[fld], how),
            ]
        value = b[fld] / bin_s / scale if ok else math.nan
        cells.append(
            h.derived(value, f"{fld} / timeseries_bin_s" + (" / 2^20" if scale != 1.0 else ""))
        )
        cells.append(h.text_td(b["ranks"], cls=""))
        for f in its.LATENCY:
            if lat:
                cells.append(h.td(run, "timeseries", b["row"], f, scale=1000.0))
            else:
                cells.append(h.text_td("not recorded", cls="t note"))
        rows.append(cells)
    head = ["bin", "t_start_s", fld, unit, "ranks"] + [f"{f[4:-3]} (µs)" for f in its.LATENCY]
    return "<details><summary>the bins</summary>" + h.table(head, rows, len(bins)) + "</details>"
