"""The sections of iosweep-report that set runs side by side: what ran, where ranks ran, the file
system, the sweep curves (with IOzone/IOR baselines drawn on them) and run against run.

Each function takes the runs (results.reader.Run) and returns the HTML of its section.
"""
import datetime
import os
import tomllib
from html import escape

import numpy as np

from iosweep_tools.core.text import size_text
from iosweep_tools.results.names import record_bytes
from iosweep_tools.compare import tools
import iosweep_report_html as h
import iosweep_report_svg as svg

MIB = 1048576.0
SOURCE_SETTINGS = ("record_bytes", "file_bytes", "direct", "stonewall", "shared")


def run_name(run):
    label = run.attrs.get("label")
    return f"{run.id}" + (f" ({label})" if label else "")


def utc(ns):
    try:
        t = datetime.datetime.fromtimestamp(int(ns) / 1e9, tz=datetime.timezone.utc)
    except (OverflowError, ValueError, OSError, TypeError):
        return "?"
    return t.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + " UTC" if int(ns) else "not ended"


SIZE = lambda v: f"{size_text(v)} ({v} bytes)"  # noqa: E731
YESNO = lambda v: {0: "no", 1: "yes"}.get(v, str(v))  # noqa: E731
LIST = lambda v: ", ".join(map(str, v)) if isinstance(v, list) else str(v)  # noqa: E731
WHAT_RAN = [
    ("run id", "run_id", None),
    ("label", "label", None),
    ("started", "t_start_unix_ns", utc),
    ("ended", "t_end_unix_ns", utc),
    ("MPI world", "world_size", lambda v: f"{v} ranks"),
    ("nodes", "n_nodes", None),
    ("results written by", "writer_host", None),
    ("Slurm job", "slurm_job_id", None),
    ("Slurm nodes", "slurm_nodelist", None),
    ("--dir", "dir", None),
    ("file system (rank 0's node)", "fs_type", None),
    ("engine", "engine_name", None),
    ("engine set-up", "engine_detail", None),
    ("phases", "phases", None),
    ("file per rank", "file_size_bytes", SIZE),
    ("sequential record", "seq_record_bytes", SIZE),
    ("random record", "rand_record_bytes", SIZE),
    ("scan record", "scan_record_bytes", SIZE),
    ("points", "points", LIST),
    ("sweep axis", "sweep_axis", None),
    ("depth per point", "point_iodepths", LIST),
    ("placement", "placement", None),
    ("repetitions", "repetitions", None),
    ("O_DIRECT", "direct", YESNO),
    ("cache before reads", "cache", None),
    ("fsync phases", "fsync_phases", lambda v: v or "none"),
    ("preallocate", "preallocate", YESNO),
    ("file layout", "file_layout", None),
    ("time-series bin", "timeseries_bin_s", lambda v: f"{v} s"),
    ("stonewall", "stonewall_s", lambda v: f"{v} s" if v else "off"),
    ("verify", "verify", YESNO),
    ("device counters", "device_note", lambda v: v or "measured around every phase"),
    ("page-cache probe", "page_cache_probe", None),
    ("rerun of", "rerun_of", lambda v: v or "-"),
]


def what_ran(runs):
    head = ["", *[escape(run_name(r)) for r in runs]]
    rows = [[h.text_td("status"), *[status_cell(r) for r in runs]]]
    for label, name, how in WHAT_RAN:
        cells = []
        for r in runs:
            v = r.attrs.get(name)
            cells.append(h.attr_td(r, name, None if how is None or v is None else how(v)))
        rows.append([h.text_td(label), *cells])
    rows.append([h.text_td("duration"), *[duration_cell(r) for r in runs]])
    rows.append([h.text_td("hosts (node id: name)"), *[hosts_cell(r) for r in runs]])
    body = h.table(head, rows)
    for r in runs:
        body += f"<h3>{escape(run_name(r))}</h3><h4>command line (argv)</h4>"
        body += pre(r, "argv")
        body += "<h4>versions</h4>" + versions(r)
        body += "<details><summary>configuration (config, TOML: a preset for --config)</summary>"
        body += pre(r, "config") + "</details>"
    return h.section("what-ran", "What ran", body)


GLANCE = [
    ("started", "t_start_unix_ns", utc),
    ("ranks", "world_size", None),
    ("nodes", "n_nodes", None),
    ("engine", "engine_name", None),
    ("file per rank", "file_size_bytes", size_text),
    ("seq record", "seq_record_bytes", size_text),
    ("rand record", "rand_record_bytes", size_text),
    ("O_DIRECT", "direct", YESNO),
    ("fs_type", "fs_type", None),
    ("reps", "repetitions", None),
]


def glance(runs):
    """One row per run: what a reader needs before the curves."""
    rows = []
    for r in runs:
        cells = [h.attr_td(r, "run_id", run_name(r)), status_cell(r)]
        for _, name, how in GLANCE:
            v = r.attrs.get(name)
            cells.append(h.attr_td(r, name, None if how is None or v is None else how(v)))
        cells.append(hosts_cell(r))
        rows.append(cells)
    head = ["run", "status"] + [label for label, _, _ in GLANCE] + ["hosts"]
    return h.section("runs", "Runs", h.table(head, rows))


def status_cell(r):
    msg = r.attrs.get("status_message") or ""
    text = r.status_name + (f": {msg}" if msg else "")
    cls = "good t" if r.status_name == "complete" else "bad t"
    return h.attr_td(r, "status", text, cls=cls)


def duration_cell(r):
    a, b = r.attrs.get("t_start_unix_ns"), r.attrs.get("t_end_unix_ns")
    if not isinstance(a, int) or not isinstance(b, int) or not b:
        return h.text_td("not ended")
    return h.derived(
        (b - a) / 1e9, "(t_end_unix_ns - t_start_unix_ns) / 1e9, s", text=f"{(b - a) / 1e9:.3f} s"
    )


def hosts_cell(r):
    spans = [
        f'<span data-run="{escape(r.id)}" data-table="hosts" data-row="{i}"'
        f' data-value="{escape(name)}">{i}: {escape(name)}</span>'
        for i, name in enumerate(r.hosts)
    ]
    return h.html_td("<br>".join(spans) or "not recorded in this file")


def pre(r, name):
    if name not in r.attrs:
        return h.p(f"{name}: not recorded in this file")
    v = str(r.attrs[name])
    return (
        f'<pre data-run="{escape(r.id)}" data-table="attrs" data-field="{name}"'
        f' data-value="{escape(v)}">{escape(v)}</pre>'
    )


def versions(r):
    try:
        v = tomllib.loads(str(r.attrs.get("versions") or ""))
    except tomllib.TOMLDecodeError:
        v = {}
    if not v:
        return pre(r, "versions")
    rows = [[h.text_td(k), h.text_td(val)] for k, val in v.items()]
    return h.table(["component", "version"], rows)


def placement(runs):
    body = h.p(
        "Which world ranks ran on which node (the rank_map table and the hosts list). Points"
        " activate ranks in placement order: position 0 first."
    )
    for r in runs:
        m = r.table("rank_map")
        how = escape(str(r.attrs.get("placement", "?")))
        body += f"<h3>{escape(run_name(r))}: placement {how}</h3>"
        if m is None:
            body += h.p("rank_map: not recorded in this file" + problem(r, "rank_map"))
            continue
        rows = []
        for node in sorted({int(n) for n in m["node"]}):
            idx = [i for i in range(len(m)) if int(m["node"][i]) == node]
            ranks = " ".join(
                f'<span data-run="{escape(r.id)}" data-table="rank_map" data-row="{i}"'
                f' data-field="rank" data-value="{int(m["rank"][i])}">{int(m["rank"][i])}</span>'
                + (f"<sub>p{int(m['position'][i])}</sub>" if "position" in m.dtype.names else "")
                for i in idx[: h.MAX_ROWS]
            )
            rows.append(
                [
                    h.text_td(node),
                    h.text_td(r.host(node)),
                    h.text_td(len(idx), cls=""),
                    h.html_td(ranks),
                ]
            )
        body += h.table(["node", "host", "ranks", "world ranks (<sub>p</sub>: position)"], rows)
    return h.section("placement", "Placement of ranks on nodes", body)


def problem(r, name):
    why = r.problems.get(name)
    return f" (the file's {name} is not usable: {escape(why)})" if why else ""


def filesystem(runs):
    body = ""
    for r in runs:
        body += f"<h3>{escape(run_name(r))}</h3>"
        mounts = r.table("mounts")
        body += "<table><tbody><tr><th class='t'>--dir</th>" + h.attr_td(r, "dir") + "</tr>"
        body += "<tr><th class='t'>file system type (fs_type)</th>" + h.attr_td(r, "fs_type")
        body += "</tr></tbody></table>"
        if mounts is None:
            body += h.p(
                "Per node: not recorded in this file (no mounts table); fs_type is what rank 0"
                " found under --dir." + problem(r, "mounts")
            )
            continue
        names = list(mounts.dtype.names)
        idx, total = h.capped(range(len(mounts)))
        rows = []
        for i in idx:
            row = [
                h.td(
                    r,
                    "mounts",
                    i,
                    f,
                )
                for f in names
            ]
            if "node" in names:
                row.insert(names.index("node") + 1, h.text_td(r.host(mounts["node"][i])))
            rows.append(row)
        head = [escape(unit_head(r, "mounts", f)) for f in names]
        if "node" in names:
            head.insert(names.index("node") + 1, "host")
        body += h.p("Per node, from the run's mounts table:") + h.table(head, rows, total)
    return h.section("filesystem", "File system", body)


def unit_head(r, table, f):
    u = r.units.get(table, {}).get(f)
    return f if not u or u in ("1", "text", "enum", "bool") else f"{f} ({u})"


# ---------------------------------------------------------------------------- sweep curves


def headline_scale(run, phase):
    fld, _ = run.headline(phase)
    return (fld, 1.0, "IOPS (ops/s)") if fld == "iops" else (fld, MIB, "MiB/s (bytes/s / 2^20)")


def sweep(runs, baselines, names):
    first = runs[0]
    phases = []
    for r in runs:
        phases += [p for p in r.phases_present() if p not in phases]
    body = h.p(
        "The headline figure of every point: all bytes (or operations) over the slowest rank's"
        " time, open to close (wall_s), IOR's definition: bandwidth for sequential and scan"
        " phases, IOPS for random ones (from the run's phase table). The line joins the mean of"
        " the repetitions; each repetition is a ring, the band spans min to max. Baselines are the"
        " other tools' outputs given with --baseline, drawn where they measured the same phase."
    )
    if not phases:
        body += h.p(
            "No point was recorded: " + ", ".join(f"{escape(r.id)} {r.status_name}" for r in runs)
        )
    cards = []
    for phase in phases:
        fld, scale, ylabel = headline_scale(first, phase)
        axis = first.axis()
        series, tables = [], ""
        for k, r in enumerate(runs):
            s = r.summary
            idx = [i for i in range(len(s)) if r.phase_of_row(i) == phase]
            if not idx:
                continue
            colour = svg.phase_colour(phase, names)
            xs = sorted({int(s[axis][i]) for i in idx})
            by = {x: [float(s[fld][i]) / scale for i in idx if int(s[axis][i]) == x] for x in xs}
            series.append(
                {
                    "label": f"{run_name(r)}: {phase}" if len(runs) > 1 else f"iosweep {phase}",
                    "color": colour,
                    "dash": svg.DASHES[k % len(svg.DASHES)],
                    "points": [(x, float(np.mean(v))) for x, v in by.items()],
                    "dots": [(x, y) for x, v in by.items() for y in v],
                    "ranges": [(x, min(v), max(v)) for x, v in by.items()],
                }
            )
            tables += sweep_tables(r, phase, idx, fld, scale, axis, by, len(runs) > 1)
        series += baseline_series(first, phase, baselines, scale)
        kind = "streams (active ranks x depth)" if axis == "streams" else "active ranks"
        caption = (
            f"{escape(phase)}: {escape(ylabel)} against {kind}, log2 axis. Window: each rank's"
            " open to close; the figure divides all bytes by the slowest rank's time."
            f" {escape(records_note(first, phase))}"
            + "".join(f" {escape(bytes_note(r, phase))}" for r in runs)
        )
        chart = svg.chart(
            series, f"{phase}: {ylabel}", f"{kind} (log2)", ylabel, "log2", caption=caption
        )
        cards.append(h.card(escape(phase), chart + tables))
    return h.section("sweep", "Sweep curves", body + h.cards(cards))


def records_note(run, phase):
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


def bytes_note(run, phase):
    """Where the bytes of a phase's points came from, in a sentence (the summary's device,
    page-cache and unflushed fractions over its rows; NaN is not measured)."""
    s = run.summary
    idx = [i for i in range(len(s)) if run.phase_of_row(i) == phase]

    def get(f):  # the measured values of a fraction (NaN: not measured)
        return [float(s[f][i]) for i in idx if f in s.dtype.names and s[f][i] == s[f][i]]

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


def sweep_tables(r, phase, idx, fld, scale, axis, by, many):
    unit = "MiB/s" if scale != 1.0 else "IOPS"
    head = [
        axis,
        "ranks",
        "depth",
        "nodes",
        "rep",
        f"{fld} ({unit})",
        "wall_s (s)",
        "bytes",
        "ops",
        "children_Bps (MiB/s)",
        "iozone_children_Bps (MiB/s)",
        "cpu_s (s)",
    ]
    shown, total = h.capped(idx)
    rows = [
        [
            h.td(r, "summary", i, axis),
            h.td(r, "summary", i, "ranks"),
            h.td(r, "summary", i, "iodepth"),
            h.td(r, "summary", i, "nodes"),
            h.td(r, "summary", i, "repetition"),
            h.td(r, "summary", i, fld, scale=scale if scale != 1.0 else None),
            h.td(r, "summary", i, "wall_s"),
            h.td(r, "summary", i, "bytes"),
            h.td(r, "summary", i, "ops"),
            h.td(r, "summary", i, "children_Bps", scale=MIB),
            h.td(r, "summary", i, "iozone_children_Bps", scale=MIB),
            h.td(r, "summary", i, "cpu_s"),
        ]
        for i in shown
    ]
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
    return (
        title
        + h.table([axis, "repetitions", f"mean ({unit})", "min", "max"], stats)
        + f"<details><summary>every repetition of {escape(phase)} (summary rows)</summary>"
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
        tool = "IOzone" if src["tool"] == "iozone" else "IOR"
        ours = baseline_mine(run, mine[0])
        diff = tools.differences(ours, mine[0]) if ours else []
        out.append(
            {
                "label": ("≠ " + ",".join(diff) + " " if diff else "")
                + f"{tool}[{src['id']}] {mine[0].figure}:"
                f" {', '.join(os.path.basename(f) for f in src['files'])}"
                f" ({tools.settings_text(*(src[k] for k in SOURCE_SETTINGS))})",
                "color": "#555",
                "dash": "3 3",
                "marker": "square" if tool == "IOR" else "cross",
                "points": sorted((t, float(np.mean(v))) for t, v in pts.items()),
            }
        )
    return out


def baseline_mine(run, x):
    if x.phase not in run.phases_present():
        return None
    shared = str(run.attrs.get("file_layout") or "per-rank") == "shared"
    size = run.attrs.get("file_size_bytes")
    return {
        "record_bytes": record_bytes(run.attrs, x.phase),
        "file_bytes": None if size is None else int(size) * (x.threads if shared else 1),
        "direct": None if run.attrs.get("direct") is None else bool(run.attrs["direct"]),
        "shared": shared,
    }
