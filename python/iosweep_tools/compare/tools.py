"""IOzone and IOR figures beside an iosweep run's, in one table: each set beside the iosweep figure
of the same definition, their ratio given only where they measured the same thing.

    rows, srcs = compare(summary, run_attrs, results, phases("r.h5"), loose=False)

`results` are the Results of compare.parsers; `summary` a run's summary DataFrame (Run.frame)
and `run_attrs` its attributes.
"""
from iosweep_tools.compare.iozone import IOZONE_PHASES
from iosweep_tools.core.text import size_text
from iosweep_tools.results.names import is_control, is_random, record_bytes, sweep_axis

TOOL_PHASES = set(IOZONE_PHASES.values())

# iosweep's three figures, each with the definition it shares with the other tools.
FIGURES = {
    "wall": "all bytes / the slowest rank's time (IOR's bandwidth; bandwidth_Bps, iops)",
    "children": (
        "sum over ranks of each rank's bytes / its own time (IOzone's \"Children see\" "
        "only with -x, stonewalling off; children_Bps)"
    ),
    "iozone_children": (
        "sum over ranks of the bytes each had moved when the first rank finished / "
        'that time (IOzone\'s default, stonewalled "Children see"; iozone_children_Bps)'
    ),
}


def iosweep_rows(summary, run):
    """(phase, threads) -> {wall, children, iozone_children, record_bytes, file_bytes, direct} in
    iosweep's units (bytes/s, or ops/s for random phases), for the run's phases that IOzone and
    IOR also measure; repetitions are averaged. `run` maps the run's attributes (a row of
    frames.load's runs). Threads are the run's active ranks, or its streams (ranks x depth) for
    a run of --streams (sweep_axis). Control phases (scan_only) have no counterpart and are left
    out."""
    rows = {}
    s = summary[summary["run_id"] == run["run_id"]]
    axis = sweep_axis(run)
    for phase in s["phase_name"].unique():
        if phase not in TOOL_PHASES or is_control(phase):
            continue
        record = record_bytes(run, phase)
        for k in sorted(s[s["phase_name"] == phase][axis].unique()):
            d = s[(s["phase_name"] == phase) & (s[axis] == k)]
            if is_random(phase):
                per_op = record or float("nan")
                figs = {
                    "wall": d["iops"].mean(),
                    "children": (d["children_Bps"] / per_op).mean(),
                    "iozone_children": (d["iozone_children_Bps"] / per_op).mean(),
                }
            else:
                figs = {
                    "wall": d["bandwidth_Bps"].mean(),
                    "children": d["children_Bps"].mean(),
                    "iozone_children": d["iozone_children_Bps"].mean(),
                }
            # A shared file is the k ranks' regions, as IOR counts its shared file.
            shared = str(run.get("file_layout") or "per-rank") == "shared"
            size = _int_or_none(run.get("file_size_bytes"))
            figs.update(
                record_bytes=record,
                file_bytes=None if size is None else size * (int(k) if shared else 1),
                direct=None if run.get("direct") is None else bool(int(run["direct"])),
                shared=shared,
            )
            rows[(phase, int(k))] = figs
    return rows


def _int_or_none(v):
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


def differences(mine, r):
    """What differs between an iosweep row and a Result: "record", "file", "O_DIRECT", "layout"
    (one shared file against one file per thread); a setting the other side does not state counts
    as different."""
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
    """The distinct sources among `results`: one per (tool, record size, file size, O_DIRECT,
    stonewalling), in order of first appearance, each {id, tool, files, record_bytes, file_bytes,
    direct, stonewall}. Results of one source for one (phase, threads) are averaged."""
    out = {}
    for r in results:
        src = out.setdefault(
            source_key(r),
            {
                "id": len(out) + 1,
                "tool": r.tool,
                "files": [],
                "record_bytes": r.record_bytes,
                "file_bytes": r.file_bytes,
                "direct": r.direct,
                "stonewall": r.stonewall,
                "shared": r.shared,
            },
        )
        if r.file not in src["files"]:
            src["files"].append(r.file)
    return list(out.values())


def source_key(r):
    return (r.tool, r.record_bytes, r.file_bytes, r.direct, r.stonewall, r.shared)


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
        "compared_with",
        "match",
        "ratio",
    )
}


def _by_source(results, srcs):
    """{(phase, threads): {source id: [Result]}} of the figures compared (no parent figure, no
    control phase)."""
    src_id = {
        (
            s["tool"],
            s["record_bytes"],
            s["file_bytes"],
            s["direct"],
            s["stonewall"],
            s["shared"],
        ): s["id"]
        for s in srcs
    }
    by = {}
    for r in results:
        if r.kind == "parent" or is_control(r.phase):
            continue
        by.setdefault((r.phase, r.threads), {}).setdefault(src_id[source_key(r)], []).append(r)
    return by


def _base(phase, k, m, scale):
    """The iosweep side of a row: its figures in the unit shown and its settings."""
    base = {"phase": phase, "threads": k, "unit": "ops/s" if is_random(phase) else "MiB/s"}
    for fig in FIGURES:
        base[f"iosweep_{fig}"] = None if m is None or m[fig] != m[fig] else m[fig] * scale
    for x in ("record_bytes", "file_bytes", "direct"):
        base[f"iosweep_{x}"] = None if m is None else m[x]
    return base


def _source_row(base, rs, src, m, loose, scale):
    """A row of one source's figure (the mean of its Results `rs`) beside iosweep's, with the
    match and, where the settings match (or `loose`), the ratio."""
    r = rs[0]
    value = sum(x.value for x in rs) / len(rs)
    row = dict(
        base,
        source=f"{'IOzone' if r.tool == 'iozone' else 'IOR'}[{src['id']}]",
        source_id=src["id"],
        source_files="; ".join(src["files"]),
        source_figure=r.figure,
        source_value=value * scale,
        source_record_bytes=r.record_bytes,
        source_file_bytes=r.file_bytes,
        source_direct=r.direct,
        compared_with=r.counterpart,
        match=None,
        ratio=None,
    )
    if m is not None:
        diff = differences(m, r)
        row["match"] = "=" if not diff else "≠ " + ",".join(diff)
        ours = m[r.counterpart]
        if (not diff or loose) and ours == ours and ours and value:
            row["ratio"] = ours / value
    return row


def compare(summary, run, results, phases, loose=False):
    """The comparison table: one row per (phase, threads, source), and one per (phase, threads)
    of the run that no source measured. A source's figure sits beside the iosweep figure of the
    same definition (Result.counterpart); their ratio iosweep / source is given only when record
    size, file size and O_DIRECT are the same on both sides (`match` "="), or with `loose`.
    `phases` is {name: value} of the results file's phase enum (results.names.phases): rows
    follow its order. Returns (rows, sources)."""
    mine = iosweep_rows(summary, run)
    srcs = sources([r for r in results if r.kind != "parent"])
    by = _by_source(results, srcs)
    order = lambda key: (phases.get(key[0], len(phases)), key[1])  # noqa: E731
    table = []
    for phase, k in sorted(set(mine) | set(by), key=order):
        scale = 1.0 if is_random(phase) else 1.0 / 1048576.0
        m = mine.get((phase, k))
        base = _base(phase, k, m, scale)
        groups = by.get((phase, k), {})
        if not groups:
            table.append(dict(base, **NO_SOURCE))
        for sid in sorted(groups):
            table.append(_source_row(base, groups[sid], srcs[sid - 1], m, loose, scale))
    return table, srcs


def settings_text(record_bytes, file_bytes, direct, stonewall=None, shared=False):
    """'record 4 KiB, file 64 MiB, O_DIRECT no' ('?' for what is not stated)."""
    d = "?" if direct is None else ("yes" if direct else "no")
    layout = "layout ?" if shared is None else ("one shared file" if shared else "file per thread")
    out = f"record {size_text(record_bytes)}, file {size_text(file_bytes)} ({layout}), O_DIRECT {d}"
    if stonewall is not None:
        out += ", stonewalled" if stonewall else ", not stonewalled (-x)"
    return out
