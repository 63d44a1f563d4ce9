"""IOzone, IOR and mdtest figures beside an iosweep run's, in one table: each set beside the
iosweep figure of the same definition, their ratio given only where they measured the same thing.

    rows, srcs = compare(summary, run_attrs, results, phases("r.h5"), loose=False)

`results` are the Results of compare.parsers; `summary` a run's summary DataFrame (Run.frame)
and `run_attrs` its attributes.
"""
from iosweep_tools.compare.iozone import IOZONE_PHASES
from iosweep_tools.compare.mdtest import MDTEST_PHASES
from iosweep_tools.compare.record import TOOL_NAMES
from iosweep_tools.core.text import size_text
from iosweep_tools.results.names import (
    in_ops,
    is_control,
    is_metadata,
    is_random,
    record_bytes,
    sweep_axis,
)

TOOL_PHASES = set(IOZONE_PHASES.values()) | set(MDTEST_PHASES.values())
TREE_PHASES = ("md-mkdir", "md-rmdir")

# iosweep's figures, each with the definition it shares with the other tools.
FIGURES = {
    "wall": (
        "all bytes (or operations) / the slowest rank's time (IOR's bandwidth, mdtest's rate;"
        " bandwidth_Bps, iops)"
    ),
    "children": (
        "sum over ranks of each rank's bytes / its own time (IOzone's \"Children see\" "
        "only with -x, stonewalling off; children_Bps)"
    ),
    "iozone_children": (
        "sum over ranks of the bytes each had moved when the first rank finished / "
        'that time (IOzone\'s default, stonewalled "Children see"; iozone_children_Bps)'
    ),
    "one_tree": (
        "md-mkdir, md-rmdir: one tree's folders / the slowest rank's time, iops / trees"
        " (mdtest's Tree creation and removal count one tree's folders even when every task"
        " made its own)"
    ),
}
# The settings of a source (compare.record.Result) that decide whether it measured what iosweep
# did: the data tools' and mdtest's.
SETTINGS = ("record_bytes", "file_bytes", "direct", "stonewall", "shared")
SETTINGS += ("items", "item_bytes", "read_bytes", "fsync", "tree", "cache_drop")
LOOKUPS = ("md-stat", "md-read")  # the phases iosweep drops the caches before (--cache drop)


def _data_figures(d, phase, record):
    if is_random(phase):
        per_op = record or float("nan")
        return {
            "wall": d["iops"].mean(),
            "children": (d["children_Bps"] / per_op).mean(),
            "iozone_children": (d["iozone_children_Bps"] / per_op).mean(),
        }
    return {
        "wall": d["bandwidth_Bps"].mean(),
        "children": d["children_Bps"].mean(),
        "iozone_children": d["iozone_children_Bps"].mean(),
    }


def _md_figures(d, phase, run):
    """A metadata point's figures (ops/s) and settings: items per task (md_items / streams; not
    a whole number with --md-items-total when the streams do not divide it), bytes per item,
    fsync, layout and tree."""
    streams = d["streams"] if "streams" in d else d["ranks"]
    shared = str(run.get("md_layout") or "private") == "shared"
    trees = 1 if shared else streams
    per_task = (d["md_items"] / streams).mean() if "md_items" in d else None
    depth = _int_or_none(run.get("md_depth"))
    dropped = d["md_cache_drop"] == 1 if "md_cache_drop" in d else None
    branch = _int_or_none(d["md_branch"].iloc[0]) if "md_branch" in d else None
    return {
        "wall": d["iops"].mean(),
        "children": (d["rank_iops_mean"] * d["ranks"]).mean() if "rank_iops_mean" in d else None,
        "iozone_children": None,
        "one_tree": (d["iops"] / trees).mean() if phase in TREE_PHASES else None,
        "items": None if per_task is None else float(per_task),
        "item_bytes": _int_or_none(run.get("md_write_bytes")),
        "read_bytes": _int_or_none(run.get("md_read_bytes")),
        "fsync": None if run.get("md_fsync") is None else bool(int(run["md_fsync"])),
        "tree": None if depth is None else (depth, branch if depth else None),
        "cache_drop": None if dropped is None else bool(dropped.any()),
        "shared": shared,
    }


def _data_settings(run, k, record):
    # A shared file is the k ranks' regions, as IOR counts its shared file.
    shared = str(run.get("file_layout") or "per-rank") == "shared"
    size = _int_or_none(run.get("file_size_bytes"))
    return dict(
        record_bytes=record,
        file_bytes=None if size is None else size * (int(k) if shared else 1),
        direct=None if run.get("direct") is None else bool(int(run["direct"])),
        shared=shared,
    )


def threads_axis(phase, run, summary):
    """The summary column that counts a phase's threads: streams (ranks x depth) for a metadata
    phase, mdtest's tasks; else the run's axis (names.sweep_axis)."""
    if is_metadata(phase, run) and "streams" in summary:
        return "streams"
    return sweep_axis(run)


def iosweep_rows(summary, run):
    """(phase, threads) -> {wall, children, iozone_children, one_tree and the settings} in
    iosweep's units (bytes/s, or ops/s for random and metadata phases), for the run's phases
    that IOzone, IOR and mdtest also measure; repetitions are averaged. `run` maps the run's
    attributes (a row of frames.load's runs). Threads are the run's active ranks, or its streams
    (ranks x depth) for a run of --streams (sweep_axis) and for every metadata phase (mdtest's
    tasks). Control phases (scan_only) have no counterpart and are left out."""
    rows = {}
    s = summary[summary["run_id"] == run["run_id"]]
    for phase in s["phase_name"].unique():
        if phase not in TOOL_PHASES or is_control(phase):
            continue
        record = record_bytes(run, phase)
        axis = threads_axis(phase, run, s)
        for k in sorted(s[s["phase_name"] == phase][axis].unique()):
            d = s[(s["phase_name"] == phase) & (s[axis] == k)]
            if is_metadata(phase, run):
                figs = _md_figures(d, phase, run)
            else:
                figs = _data_figures(d, phase, record)
                figs.update(_data_settings(run, k, record))
            rows[(phase, int(k))] = figs
    return rows


def _int_or_none(v):
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


def _md_differences(mine, r):
    """What differs between an iosweep metadata row and an mdtest Result: "items" (per task),
    "bytes" (written into each file), "read" (bytes md-read reads), "fsync", "layout" (a folder
    per task or one shared folder), "tree" (md-mkdir, md-rmdir: depth and branch), "cache"
    (md-stat, md-read: iosweep dropped the caches before them, --cache drop, mdtest never
    does)."""
    out = []
    items = mine.get("items")
    if r.items is None or items is None or abs(r.items - items) > 1e-9 * max(1.0, items):
        out.append("items")
    if r.item_bytes is None or r.item_bytes != mine.get("item_bytes"):
        out.append("bytes")
    if r.phase == "md-read" and (r.read_bytes is None or r.read_bytes != mine.get("read_bytes")):
        out.append("read")
    if r.fsync is None or r.fsync != mine.get("fsync"):
        out.append("fsync")
    if r.shared is None or r.shared != mine.get("shared", False):
        out.append("layout")
    if r.phase in TREE_PHASES and not _same_tree(r.tree, mine.get("tree")):
        out.append("tree")
    if r.phase in LOOKUPS and (r.cache_drop is None or r.cache_drop != mine.get("cache_drop")):
        out.append("cache")
    return out


def _same_tree(a, b):
    """Trees of (depth, branch): the same when the depths agree and, below a top folder, the
    branches too."""
    if a is None or b is None or a[0] != b[0]:
        return False
    return a[0] == 0 or a[1] == b[1]


def differences(mine, r):
    """What differs between an iosweep row and a Result: "record", "file", "O_DIRECT", "layout"
    (one shared file against one file per thread) for data; for metadata those of
    _md_differences. A setting the other side does not state counts as different."""
    if is_metadata(r.phase):
        return _md_differences(mine, r)
    out = []
    if r.record_bytes is None or r.record_bytes != mine["record_bytes"]:
        out.append("record")
    if r.file_bytes is None or r.file_bytes != mine["file_bytes"]:
        out.append("file")
    if r.direct is None or mine["direct"] is None or r.direct != mine["direct"]:
        out.append("O_DIRECT")
    if r.shared is None or r.shared != mine.get("shared", False):
        out.append("layout")
    return out


def sources(results):
    """The distinct sources among `results`: one per tool and settings (SETTINGS), in order of
    first appearance, each {id, tool, files, key (source_key), and every setting}. Results of
    one source for one (phase, threads) are averaged."""
    out = {}
    for r in results:
        key = source_key(r)
        src = out.setdefault(
            key,
            {"id": len(out) + 1, "tool": r.tool, "files": [], "key": key}
            | {k: getattr(r, k) for k in SETTINGS},
        )
        if r.file not in src["files"]:
            src["files"].append(r.file)
    return list(out.values())


def source_key(r):
    """What makes a Result's source: its tool and settings."""
    return (r.tool,) + tuple(getattr(r, k) for k in SETTINGS)


def source_name(src):
    """ "IOzone[1]", "IOR[2]", "mdtest[3]"."""
    return f"{TOOL_NAMES.get(src['tool'], src['tool'])}[{src['id']}]"


NO_SOURCE = {
    k: None
    for k in (
        "source",
        "source_id",
        "source_files",
        "source_figure",
        "source_value",
        "source_record_bytes",
        "source_file_bytes",
        "source_direct",
        "source_items",
        "source_item_bytes",
        "source_fsync",
        "source_shared",
        "compared_with",
        "match",
        "ratio",
    )
}


def _by_source(results, srcs):
    """{(phase, threads): {source id: [Result]}} of the figures compared (no parent figure, no
    control phase)."""
    src_id = {s["key"]: s["id"] for s in srcs}
    by = {}
    for r in results:
        if r.kind == "parent" or is_control(r.phase):
            continue
        by.setdefault((r.phase, r.threads), {}).setdefault(src_id[source_key(r)], []).append(r)
    return by


def _base(phase, k, m, scale):
    """The iosweep side of a row: its figures in the unit shown and its settings."""
    base = {"phase": phase, "threads": k, "unit": "ops/s" if in_ops(phase) else "MiB/s"}
    for fig in FIGURES:
        v = None if m is None else m.get(fig)
        base[f"iosweep_{fig}"] = None if v is None or v != v else v * scale
    for x in ("record_bytes", "file_bytes", "direct", "items", "item_bytes", "fsync", "shared"):
        base[f"iosweep_{x}"] = None if m is None else m.get(x)
    return base


def _source_row(base, rs, src, m, loose, scale):
    """A row of one source's figure (the mean of its Results `rs`) beside iosweep's, with the
    match and, where the settings match (or `loose`), the ratio."""
    r = rs[0]
    value = sum(x.value for x in rs) / len(rs)
    row = dict(
        base,
        source=source_name(src),
        source_id=src["id"],
        source_files="; ".join(src["files"]),
        source_figure=r.figure,
        source_value=value * scale,
        source_record_bytes=r.record_bytes,
        source_file_bytes=r.file_bytes,
        source_direct=r.direct,
        source_items=r.items,
        source_item_bytes=r.item_bytes,
        source_fsync=r.fsync,
        source_shared=r.shared,
        compared_with=r.counterpart,
        match=None,
        ratio=None,
    )
    if m is not None:
        diff = differences(m, r)
        row["match"] = "=" if not diff else "≠ " + ",".join(diff)
        ours = m.get(r.counterpart)
        if (not diff or loose) and ours is not None and ours == ours and ours and value:
            row["ratio"] = ours / value
    return row


def compare(summary, run, results, phases, loose=False):
    """The comparison table: one row per (phase, threads, source), and one per (phase, threads)
    of the run that no source measured. A source's figure sits beside the iosweep figure of the
    same definition (Result.counterpart); their ratio iosweep / source is given only when the
    settings of `differences` are the same on both sides (`match` "="), or with `loose`.
    `phases` is {name: value} of the results file's phase enum (results.names.phases): rows
    follow its order. Returns (rows, sources)."""
    mine = iosweep_rows(summary, run)
    srcs = sources([r for r in results if r.kind != "parent"])
    by = _by_source(results, srcs)
    order = lambda key: (phases.get(key[0], len(phases)), key[1])  # noqa: E731
    table = []
    for phase, k in sorted(set(mine) | set(by), key=order):
        scale = 1.0 if in_ops(phase) else 1.0 / 1048576.0
        m = mine.get((phase, k))
        base = _base(phase, k, m, scale)
        groups = by.get((phase, k), {})
        if not groups:
            table.append(dict(base, **NO_SOURCE))
        for sid in sorted(groups):
            table.append(_source_row(base, groups[sid], srcs[sid - 1], m, loose, scale))
    return table, srcs


def settings_text(src):
    """A source's settings (a dict of SETTINGS: a source of `sources`): 'record 4 KiB, file 64
    MiB (file per thread), O_DIRECT no' for data, 'items 5000 per task, 0 B written, 0 B read,
    fsync no, a folder per task, tree depth 0' for mdtest ('?' for what is not stated)."""
    if src.get("tool") == "mdtest":
        return md_settings_text(src)
    d = _yes_no(src["direct"])
    shared = src["shared"]
    layout = "layout ?" if shared is None else ("one shared file" if shared else "file per thread")
    out = (
        f"record {size_text(src['record_bytes'])}, file {size_text(src['file_bytes'])}"
        f" ({layout}), O_DIRECT {d}"
    )
    if src["stonewall"] is not None:
        out += ", stonewalled" if src["stonewall"] else ", not stonewalled (-x)"
    return out


def md_settings_text(src):
    """'items 5000 per task, 4 KiB written, 4 KiB read, fsync yes, a folder per task, tree depth
    1 x 2, caches kept' of an mdtest source."""
    shared, tree, items = src["shared"], src["tree"], src["items"]
    layout = (
        "layout ?" if shared is None else ("one shared folder" if shared else "a folder per task")
    )
    trees = (
        "tree ?" if tree is None else f"tree depth {tree[0]}" + (f" x {tree[1]}" if tree[0] else "")
    )
    caches = {None: "caches ?", False: "caches kept", True: "caches dropped"}[src["cache_drop"]]
    return (
        f"items {'?' if items is None else f'{items:g}'} per task,"
        f" {size_text(src['item_bytes'])} written, {size_text(src['read_bytes'])} read,"
        f" fsync {_yes_no(src['fsync'])}, {layout}, {trees}, {caches}"
    )


def _yes_no(v):
    return "?" if v is None else ("yes" if v else "no")
