"""The sections of iosweep-report that set runs side by side: the runs at a glance, what ran,
where ranks ran, the file system.

Each function takes the runs (results.reader.Run) and returns the body of its section; run_name
is how every section names a run.
"""
import datetime
import tomllib
from html import escape

from iosweep_tools.core.text import size_text
from iosweep_tools.report import html as h
from iosweep_tools.report.html import problem_note


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
    rows.append([h.text_td("tables set aside"), *[set_aside_cell(r) for r in runs]])
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
    return body


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
    return h.table(head, rows)


def status_cell(r):
    msg = r.attrs.get("status_message") or ""
    text = r.status_name + (f": {msg}" if msg else "")
    cls = "good t" if r.status_name == "complete" else "bad t"
    return h.attr_td(r, "status", text, cls=cls)


def set_aside_cell(r):
    """The tables of the file the report could not use, and why (the sections that need them say
    they are not recorded); "none" when it used every one."""
    if not r.problems:
        return h.text_td("none")
    lines = [f"{name}: {why}" for name, why in r.problems.items()]
    return h.html_td("<br>".join(escape(line) for line in lines), cls="bad t")


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
            body += h.p("rank_map: not recorded in this file" + problem_note(r, "rank_map"))
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
    return body


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
                " found under --dir." + problem_note(r, "mounts")
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
    return body


def unit_head(r, table, f):
    u = r.units.get(table, {}).get(f)
    return f if not u or u in ("1", "text", "enum", "bool") else f"{f} ({u})"
