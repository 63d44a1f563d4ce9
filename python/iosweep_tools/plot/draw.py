"""The charts of iosweep-plot, drawn with Debian's matplotlib on the Agg backend.

    fig = draw(run_attrs, summary, others, baselines, names)   # bandwidth and IOPS panels
    fig = draw_latency_over_time(run)                          # None without latency over time

`summary` is a run's summary DataFrame (Run.frame), `others` IOzone/IOR/mdtest Results
(compare.parsers), `baselines` the published figures (plot.baselines), `names` the phase names
of the file's enum in order. A run with metadata rows gets a third panel, their ops/s on a log10
axis; a Peak & Sustained table (results.peaks) is set under the panels when given.
"""
import itertools

from iosweep_tools.compare import tools
from iosweep_tools.core.text import size_text
from iosweep_tools.plot.baselines import baseline_differences
from iosweep_tools.results.names import (
    SCAN_PHASES,
    in_ops,
    is_control,
    is_metadata,
    is_random,
    record_bytes,
    sweep_axis,
)
from iosweep_tools.results.timeseries import latency_series

# The usual colour of each phase in the published charts; any other phase takes the next
# colour of OTHER_COLORS, in the order of the phase enum.
COLORS = {
    "seq-write": "tab:red",
    "seq-read": "tab:blue",
    "filter-count": "tab:green",
    "rand-write": "tab:orange",
    "rand-read": "tab:purple",
    "scan-only": "tab:olive",
    "md-mkdir": "tab:brown",
    "md-create": "tab:red",
    "md-stat": "tab:blue",
    "md-read": "tab:purple",
    "md-remove": "tab:orange",
    "md-rmdir": "tab:gray",
}
OTHER_COLORS = ["tab:brown", "tab:pink", "tab:cyan", "tab:gray", "black"]
MARKERS = {"iozone": "o", "ior": "s", "mdtest": "D", "baseline": "X"}


def pyplot():
    """matplotlib's pyplot on the Agg backend, imported when a figure is drawn (arguments are
    checked before: a refusal does not wait for matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"  # -o x.svg keeps its text as text
    import matplotlib.pyplot as plt

    return plt


def colours(names):
    """Phase name -> colour for every phase of the file."""
    spare = itertools.cycle(OTHER_COLORS)
    return {name: COLORS.get(name) or next(spare) for name in names}


def panel_titles(run, present):
    """(left, right) titles naming the record sizes the run's phases `present` used."""

    def sizes(shown):
        found = sorted({record_bytes(run, p) for p in shown}, key=lambda x: (x is None, x or 0))
        return " / ".join(size_text(x) for x in found) + " records"

    seq = [p for p in present if not in_ops(p, run) and p not in SCAN_PHASES]
    scan = [p for p in present if p in SCAN_PHASES]
    rnd = [p for p in present if is_random(p, run)]
    if seq and scan and sizes(seq) == sizes(scan):
        left = f"sequential and filter-count scan ({sizes(seq)})"
    else:
        left = (
            " and ".join(
                f"{label} ({sizes(x)})"
                for label, x in (("sequential", seq), ("filter-count scan", scan))
                if x
            )
            or "sequential (none in this run)"
        )
    return left, f"random ({sizes(rnd)})" if rnd else "random (none in this run)"


def records_text(n):
    return f"{size_text(n)} records" if n else "record size not stated"


def _settings(run):
    """The run's settings a tool's figure is matched against (its record size per phase)."""
    return {
        "record_bytes": None,
        "file_bytes": int(run.get("file_size_bytes") or 0) or None,
        "direct": None if run.get("direct") is None else bool(int(run["direct"])),
        "shared": str(run.get("file_layout")) == "shared",
    }


def _iosweep_line(ax, s, phase, axis, colour, run):
    """The phase's wall figure against threads, the mean of its repetitions."""
    d = s[s["phase_name"] == phase].groupby(axis).mean(numeric_only=True).reset_index()
    if len(d):
        y = d["iops"] if in_ops(phase, run) else d["bandwidth_Bps"] / 1048576.0
        ax.plot(d[axis], y, "-", marker=".", color=colour, label=f"iosweep {phase} (wall)")


def _tool_lines(ax, run, phase, others, mine, colour):
    """One line per IOzone/IOR source of the phase (repeated results averaged), labelled with
    what differs from the run."""
    srcs = tools.sources(others)
    src_id = {x["key"]: x["id"] for x in srcs}
    scale = 1.0 if in_ops(phase, run) else 1.0 / 1048576.0
    series = {}  # (source id) -> {threads: [values]}
    for r in others:
        if r.phase == phase:
            series.setdefault(src_id[tools.source_key(r)], {}).setdefault(r.threads, []).append(
                r.value * scale
            )
    for sid, acc in sorted(series.items()):
        src = srcs[sid - 1]
        first = next(r for r in others if r.phase == phase and src_id[tools.source_key(r)] == sid)
        diff = tools.differences(_mine_for(run, phase, first, mine), first)
        pts = sorted((t, sum(v) / len(v)) for t, v in acc.items())
        ax.plot(
            [p[0] for p in pts],
            [p[1] for p in pts],
            "--",
            marker=MARKERS[src["tool"]],
            color=colour,
            alpha=0.7,
            label=f"{tools.source_name(src)} {phase} {_source_figure(src, first)}"
            + (f" ≠ {','.join(diff)}" if diff else ""),
        )


def _source_figure(src, r):
    """What a source's line shows, with the setting that tells it apart."""
    if src["tool"] == "iozone":
        figure = "Children see" + (" -x" if src["stonewall"] is False else "")
        return f"{figure}, {records_text(src['record_bytes'])}"
    if src["tool"] == "mdtest":
        return r.figure.removeprefix("mdtest ") + f", {src['items']:g} items per task"
    return f"mean, {records_text(src['record_bytes'])}"


def _mine_for(run, phase, r, mine):
    """The run's settings beside Result r (compare.tools.differences): a metadata phase's those
    of the point of r's tasks (or the phase's first point); data: the run's with the phase's
    record size, a shared file holding the regions of all the threads, as IOR counts it."""
    if is_metadata(phase, run):
        rows = mine["md_rows"]
        at = {k: v for (p, k), v in rows.items() if p == phase}
        return at.get(r.threads) or next(iter(at.values()), {})
    file_bytes = (
        mine["file_bytes"] * r.threads
        if mine["shared"] and mine["file_bytes"]
        else mine["file_bytes"]
    )
    return dict(mine, record_bytes=record_bytes(run, phase), file_bytes=file_bytes)


def _published_lines(ax, run, phase, baselines, all_baselines, colour):
    """One line per source of published figures of the phase measured like the run (or every
    one with `all_baselines`, labelled with what differs)."""
    pub = [b for b in baselines if b["phase"] == phase]
    shown_pub = [b for b in pub if all_baselines or not baseline_differences(b, run)]
    for source, group in itertools.groupby(
        sorted(shown_pub, key=lambda b: (b["source"], b["threads"])),
        key=lambda b: b["source"],
    ):
        group = list(group)
        diff = baseline_differences(group[0], run)
        ax.plot(
            [b["threads"] for b in group],
            [b["value"] for b in group],
            ":",
            marker=MARKERS["baseline"],
            markersize=9,
            color=colour,
            label=f"published {phase}, {records_text(group[0]['record_bytes'])}"
            + (f" ≠ {','.join(diff)}" if diff else ""),
        )


def _finish_axes(ax, axis, ylabel):
    ax.set_xscale("log", base=2)
    ax.set_xlabel(
        "streams (active ranks x depth) / threads (log2)"
        if axis == "streams"
        else "active ranks / threads (log2)"
    )
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both", alpha=0.3)
    if ax.lines:
        ax.legend(fontsize=7)


def _title(run, mine):
    label = f" - {run['label']}" if run.get("label") else ""
    direct = (
        "O_DIRECT" if mine["direct"] else "page cache" if mine["direct"] is False else "O_DIRECT ?"
    )
    return (
        f"iosweep run {run['run_id']}{label}: {run['world_size']} ranks on"
        f" {run['n_nodes']} node(s), engine {run['engine_name']},"
        f" {size_text(run.get('file_size_bytes'))} per rank, {direct}"
    )


def _panels(plt, width, height, metadata, table):
    """The figure (width x height inches) and its panels: bandwidth, IOPS and, for a run with
    metadata rows, metadata ops/s; under them, within the height, the Peak & Sustained table
    when there is one and the panels keep at least 2 inches."""
    n = 3 if metadata else 2
    extra = 0.13 * (table.count("\n") + 1) if table else 0.0  # inches of the table's lines
    if not extra or height - extra < 2.0:
        fig, axes = plt.subplots(1, n, figsize=(width, height), dpi=100)
        return fig, list(axes)
    fig = plt.figure(figsize=(width, height), dpi=100)
    grid = fig.add_gridspec(2, n, height_ratios=[height - extra, extra])
    axes = [fig.add_subplot(grid[0, k]) for k in range(n)]
    bottom = fig.add_subplot(grid[1, :])
    bottom.axis("off")
    bottom.text(0, 1, table, family="monospace", fontsize=7, va="top", ha="left")
    return fig, axes


def draw(
    run,
    s,
    others,
    baselines,
    names,
    all_baselines=False,
    controls=False,
    width=12.0,
    height=5.0,
    peaks=None,
):
    """The figure of one run: `run` its attributes, `s` its summary rows (Run.frame), `others`
    IOzone/IOR/mdtest Results, `baselines` the published figures (plot.baselines.load_baselines),
    `names` the phase names of the file's enum in order, `peaks` the Peak & Sustained table as
    text (results.peaks.peaks_text) to set under the panels."""
    colour = colours(names)
    shown = [p for p in names if controls or not is_control(p, run)]
    present = [p for p in shown if (s["phase_name"] == p).any()]
    mine = _settings(run)
    mine["md_rows"] = tools.iosweep_rows(s, run) if "run_id" in s else {}
    seq = [p for p in shown if not in_ops(p, run)]
    rnd = [p for p in shown if is_random(p, run)]
    md = [p for p in present if is_metadata(p, run)]
    axis = sweep_axis(run)  # threads are the run's ranks, or its streams (--streams)

    fig, axes = _panels(pyplot(), width, height, bool(md), peaks)
    panels = [
        (axes[0], seq, "bandwidth (MiB/s, 2^20 bytes/s)", axis),
        (axes[1], rnd, "IOPS (operations/s)", axis),
    ]
    if md:  # mdtest's tasks are iosweep's streams
        panels.append(
            (axes[2], md, "metadata operations/s (log10)", tools.threads_axis(md[0], run, s))
        )
    for ax, phases, ylabel, x in panels:
        for phase in phases:
            _iosweep_line(ax, s, phase, x, colour[phase], run)
            _tool_lines(ax, run, phase, others, mine, colour[phase])
            _published_lines(ax, run, phase, baselines, all_baselines, colour[phase])
        _finish_axes(ax, x, ylabel)
    titles = panel_titles(run, present)
    axes[0].set_title(titles[0])
    axes[1].set_title(titles[1])
    if md:
        axes[2].set_yscale("log", base=10)
        axes[2].set_title("metadata: every rank's operations / the slowest window", fontsize=9)
    fig.suptitle(_title(run, mine))
    fig.tight_layout()
    return fig


def draw_latency_over_time(run, width=12.0, height=4.0):
    """Latency p50, p99 and max over time, all ranks merged (the timeseries rows of rank -1), one
    panel per phase at its largest point (`run`: a results.reader.Run); None when the file does
    not record latency over time."""
    series = latency_series(run)
    if not series:
        return None
    fig, axes = pyplot().subplots(1, len(series), figsize=(width, height), dpi=100, squeeze=False)
    for ax, (phase, d) in zip(axes[0], series.items()):
        for key in ("p50", "p99", "max"):
            ax.plot(d["times"], [v / 1e3 for v in d[key]], drawstyle="steps-post", label=key)
        ax.set_yscale("log")
        ax.set_title(f"{phase}, point {d['point']}", fontsize=9)
        ax.set_xlabel("time from the barrier (s)")
        ax.legend(fontsize=7)
    axes[0][0].set_ylabel("latency per bin, all ranks merged (µs)")
    fig.suptitle(
        f"iosweep run {run.id}: latency over time ({run.attrs.get('timeseries_bin_s')} s bins)"
    )
    fig.tight_layout()
    return fig
