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
ANY, DATA, MD = "any", "data", "metadata"  # the runs a row of WHAT_RAN applies to
# (label, attribute, how its value reads, the runs it applies to: any, those with data phases,
# those with metadata phases).
WHAT_RAN = [
    ("run id", "run_id", None, ANY),
    ("label", "label", None, ANY),
    ("started", "t_start_unix_ns", utc, ANY),
    ("ended", "t_end_unix_ns", utc, ANY),
    ("MPI world", "world_size", lambda v: f"{v} ranks", ANY),
    ("nodes", "n_nodes", None, ANY),
    ("results written by", "writer_host", None, ANY),
    ("Slurm job", "slurm_job_id", None, ANY),
    ("Slurm nodes", "slurm_nodelist", None, ANY),
    ("--dir", "dir", None, ANY),
    ("file system (rank 0's node)", "fs_type", None, ANY),
    ("engine", "engine_name", None, ANY),
    ("engine set-up", "engine_detail", None, ANY),
    ("phases", "phases", None, ANY),
    ("file per rank", "file_size_bytes", SIZE, DATA),
    ("sequential record", "seq_record_bytes", SIZE, DATA),
    ("random record", "rand_record_bytes", SIZE, DATA),
    ("scan record", "scan_record_bytes", SIZE, DATA),
    ("metadata items per rank", "md_items", lambda v: str(v) if v else "-", MD),
    ("metadata items per point", "md_items_total", lambda v: str(v) if v else "-", MD),
    ("items per folder (at most)", "md_items_per_folder", lambda v: str(v) if v else "-", MD),
    ("tree depth", "md_depth", None, MD),
    ("tree branch", "md_branch", lambda v: str(v) if v else "auto", MD),
    ("items in", "md_files", lambda v: "the leaves" if v == "leaf" else "every folder", MD),
    ("metadata layout", "md_layout", None, MD),
    ("bytes written per item", "md_write_bytes", SIZE, MD),
    ("bytes read per item", "md_read_bytes", SIZE, MD),
    ("fsync per item (--md-fsync)", "md_fsync", YESNO, MD),
    ("points", "points", LIST, ANY),
    ("sweep axis", "sweep_axis", None, ANY),
    ("depth per point", "point_iodepths", LIST, ANY),
    ("placement", "placement", None, ANY),
    ("repetitions", "repetitions", None, ANY),
    ("O_DIRECT", "direct", YESNO, DATA),
    ("cache before reads", "cache", None, DATA),
    ("cache before md-stat and md-read", "cache", None, MD),
    ("fsync phases", "fsync_phases", lambda v: v or "none", DATA),
    ("preallocate", "preallocate", YESNO, DATA),
    ("file layout", "file_layout", None, DATA),
    ("time-series bin", "timeseries_bin_s", lambda v: f"{v} s", ANY),
    ("stonewall", "stonewall_s", lambda v: f"{v} s" if v else "off", ANY),
    ("verify", "verify", YESNO, DATA),
    ("device counters", "device_note", lambda v: v or "measured around every phase", ANY),
    ("page-cache probe", "page_cache_probe", None, DATA),
    ("rerun of", "rerun_of", lambda v: v or "-", ANY),
]


def kinds(run):
    """The kinds of phases a run ran: {"data", "metadata"} or one of them (from its summary, or
    its phases attribute when it has no row)."""
    phases = run.phases_present() or [
        p.strip() for p in str(run.attrs.get("phases") or "").split(",") if p.strip()
    ]
    return {MD if run.is_metadata(p) else DATA for p in phases} or {DATA}


def what_ran(runs):
    """The settings of every run side by side: those that apply to the phases it ran (a
    metadata run's items and trees, a data run's files and records)."""
    of = [kinds(r) for r in runs]
    rows = [("status", [status_value(r) for r in runs])]
    rows.append(("tables set aside", [set_aside_value(r) for r in runs]))
    for label, name, how, applies in WHAT_RAN:
        if applies != ANY and not any(applies in k for k in of):
            continue
        values = []
        for r, k in zip(runs, of):
            v = r.attrs.get(name)
            if applies != ANY and applies not in k:
                values.append(f'<span class="note">no {applies} phases</span>')
                continue
            values.append(h.attr_value(r, name, None if how is None or v is None else how(v)))
        rows.append((label, values))
    rows.append(("duration", [duration_value(r) for r in runs]))
    rows.append(("hosts (node id: name)", [hosts_value(r) for r in runs]))
    body = h.kv([escape(run_name(r)) for r in runs] if len(runs) > 1 else None, rows)
    for r in runs:
        body += f"<h3>{escape(run_name(r))}</h3><h4>command line (argv)</h4>"
        body += pre(r, "argv")
        body += "<h4>versions</h4>" + versions(r)
        body += "<details><summary>configuration (config, TOML: a preset for --config)</summary>"
        body += pre(r, "config") + "</details>"
    return body


def work_cell(r):
    """What each rank worked on: its file and records (data phases), its items (metadata)."""
    parts = []
    if DATA in kinds(r):
        parts.append(
            h.attr_value(r, "file_size_bytes", size_text(r.attrs.get("file_size_bytes")))
            + ", records "
            + h.attr_value(r, "seq_record_bytes", size_text(r.attrs.get("seq_record_bytes")))
            + " / "
            + h.attr_value(r, "rand_record_bytes", size_text(r.attrs.get("rand_record_bytes")))
        )
    if MD in kinds(r):
        total = r.attrs.get("md_items_total")
        name = "md_items_total" if total else "md_items"
        parts.append(h.attr_value(r, name) + (" items per point" if total else " items per rank"))
    return h.html_td("; ".join(parts))


def utc_second(ns):
    """A start time to the second, as the runs' table shows it (What ran has it to the ms)."""
    return utc(ns)[:19] + " UTC" if utc(ns) not in ("?", "not ended") else utc(ns)


GLANCE = [
    ("started", "t_start_unix_ns", utc_second),
    ("ranks", "world_size", None),
    ("nodes", "n_nodes", None),
    ("engine", "engine_name", None),
    ("O_DIRECT", "direct", YESNO),
    ("fs_type", "fs_type", None),
    ("reps", "repetitions", None),
]


def glance(runs):
    """One row per run: what a reader needs before the curves (its hosts: Placement; a status
    message under the table)."""
    rows, said = [], []
    for r in runs:
        cells = [h.attr_td(r, "run_id", run_name(r)), status_cell(r)]
        for _, name, how in GLANCE:
            v = r.attrs.get(name)
            cells.append(h.attr_td(r, name, None if how is None or v is None else how(v)))
        cells.append(work_cell(r))
        rows.append(cells)
        if r.attrs.get("status_message"):
            said.append(f"{escape(run_name(r))}: {h.attr_value(r, 'status_message')}")
    head = ["run", "status"] + [label for label, _, _ in GLANCE] + ["work per rank"]
    return h.table(head, rows) + "".join(h.p(x) for x in said)


def status_cell(r):
    cls = "good t" if r.status_name == "complete" else "bad t"
    return h.attr_td(r, "status", r.status_name, cls=cls)


def status_value(r):
    msg = r.attrs.get("status_message") or ""
    return h.attr_value(r, "status", r.status_name + (f": {msg}" if msg else ""))


def set_aside_value(r):
    """The tables of the file the report could not use, and why (the sections that need them say
    they are not recorded); "none" when it used every one."""
    if not r.problems:
        return "none"
    lines = [f"{name}: {why}" for name, why in r.problems.items()]
    return '<span class="bad">' + "<br>".join(escape(line) for line in lines) + "</span>"


def duration_value(r):
    a, b = r.attrs.get("t_start_unix_ns"), r.attrs.get("t_end_unix_ns")
    if not isinstance(a, int) or not isinstance(b, int) or not b:
        return "not ended"
    return (
        f'<span data-derived="(t_end_unix_ns - t_start_unix_ns) / 1e9, s"'
        f' data-value="{h.exact((b - a) / 1e9)}">{(b - a) / 1e9:.3f} s</span>'
    )


def hosts_value(r):
    spans = [
        f'<span data-run="{escape(r.id)}" data-table="hosts" data-row="{i}"'
        f' data-value="{escape(name)}">{i}: {escape(name)}</span>'
        for i, name in enumerate(r.hosts)
    ]
    return ", ".join(spans) or "not recorded in this file"


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


def ranks_text(ranks):
    """World ranks as a reader takes them in: runs of consecutive ranks as a-b ("0-7, 16-23"),
    an even stride as its first two and last ("0, 16, ..., 496 (step 16)"); at most 8 parts,
    then how many more."""
    ranks = sorted(ranks)
    if len(ranks) > 3:
        step = ranks[1] - ranks[0]
        if step > 1 and all(b - a == step for a, b in zip(ranks, ranks[1:])):
            return f"{ranks[0]}, {ranks[1]}, ..., {ranks[-1]} (step {step})"
    parts, start = [], None
    for k, r in enumerate(ranks):
        if start is None:
            start = r
        if k + 1 == len(ranks) or ranks[k + 1] != r + 1:
            parts.append(str(r) if start == r else f"{start}-{r}")
            start = None
    more = f", and {len(parts) - 8} more runs of ranks" if len(parts) > 8 else ""
    return ", ".join(parts[:8]) + more


def placement(runs):
    body = h.p(
        "Which world ranks ran on which node (the rank_map table and the hosts list). Points"
        " activate ranks in placement order: position 0 first; every rank's node, position and"
        " folder are in the table to open."
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
            rows.append(
                [
                    h.text_td(node),
                    h.text_td(r.host(node)),
                    h.text_td(len(idx), cls=""),
                    h.derived(
                        len(idx),
                        "the rank_map rows of this node",
                        text=ranks_text(int(m["rank"][i]) for i in idx),
                        cls="t",
                    ),
                ]
            )
        body += h.table(["node", "host", "ranks", "world ranks"], rows)
        body += rank_map_table(r, m)
    return body


def rank_map_table(r, m):
    """Every row of a run's rank_map, each figure the file's, in a table to open."""
    names = [f for f in ("rank", "node", "local_index", "position", "folder") if f in m.dtype.names]
    shown, total = h.capped(range(len(m)))
    rows = []
    for i in shown:
        cells = [h.td(r, "rank_map", i, f) for f in names]
        if "node" in names:
            cells.insert(names.index("node") + 1, h.text_td(r.host(m["node"][i])))
        rows.append(cells)
    head = list(names)
    if "node" in names:
        head.insert(names.index("node") + 1, "host")
    return (
        "<details><summary>every rank: its node, position and folder (rank_map)</summary>"
        + h.table(head, rows, total)
        + "</details>"
    )


MOUNT_COLUMNS = ("folder", "dir", "fs_type", "source", "mount_point")  # the table's columns
MOUNT_LONG = ("options", "wire")  # listed under it: long text a column would not hold


def filesystem(runs):
    body = ""
    for r in runs:
        body += f"<h3>{escape(run_name(r))}</h3>"
        mounts = r.table("mounts")
        body += h.kv(
            None,
            [
                ("--dir", [h.attr_value(r, "dir")]),
                ("file system type", [h.attr_value(r, "fs_type")]),
            ],
        )
        if mounts is None:
            body += h.p(
                "Per node: not recorded in this file (no mounts table); fs_type is what rank 0"
                " found under --dir." + problem_note(r, "mounts")
            )
            continue
        names = mounts.dtype.names
        cols = [f for f in ("node",) + MOUNT_COLUMNS if f in names]
        idx, total = h.capped(range(len(mounts)))
        rows, said = [], []
        for i in idx:
            row = [h.td(r, "mounts", i, f) for f in cols]
            if "node" in cols:
                row.insert(1, h.text_td(r.host(mounts["node"][i])))
            rows.append(row)
            long = [h.span(r, "mounts", i, f, label=f + ":") for f in MOUNT_LONG if f in names]
            if any(long):
                where = f"node {int(mounts['node'][i])}" if "node" in names else f"row {i}"
                where += f", folder {int(mounts['folder'][i])}" if "folder" in names else ""
                said.append(f"<li>{escape(where)}: {'; '.join(x for x in long if x)}</li>")
        head = [escape(unit_head(r, "mounts", f)) for f in cols]
        if "node" in cols:
            head.insert(1, "host")
        body += h.p("Per node and folder, from the run's mounts table:")
        body += h.table(head, rows, total)
        if said:
            body += "<details><summary>mount options and storage interfaces (wire)</summary>"
            body += f'<ul class="words">{"".join(said)}</ul></details>'
    return body


def unit_head(r, table, f):
    u = r.units.get(table, {}).get(f)
    return f if not u or u in ("1", "text", "enum", "bool") else f"{f} ({u})"
