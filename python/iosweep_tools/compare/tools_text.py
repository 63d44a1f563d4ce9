"""IOzone, IOR and mdtest figures beside an iosweep run as text: what iosweep-compare RESULTS
OUTPUTS... prints and writes with --csv (the table is compare.tools'). Metadata rows (mdtest's
phases) follow the data rows under a head of their own: their settings are items per task,
bytes per file, fsync and the layout.

    print(header_text(run_attrs, run_id, sources, loose), end="")
    print(table_text(rows), end="")
    csv_text(rows)
"""
import csv
import io

from iosweep_tools.compare.record import TOOL_NAMES
from iosweep_tools.compare.tools import FIGURES, settings_text
from iosweep_tools.core.text import csv_text_cell, size_text
from iosweep_tools.results.names import is_metadata, sweep_axis

CSV_KEYS = [
    "phase",
    "threads",
    "unit",
    "iosweep_wall",
    "iosweep_children",
    "iosweep_iozone_children",
    "iosweep_record_bytes",
    "iosweep_file_bytes",
    "iosweep_direct",
    "source",
    "source_files",
    "source_figure",
    "source_value",
    "source_record_bytes",
    "source_file_bytes",
    "source_direct",
    "compared_with",
    "match",
    "ratio",
]
# The metadata rows' own columns, after the columns every row has (threads are mdtest's tasks).
CSV_KEYS += ["iosweep_one_tree", "iosweep_items", "iosweep_item_bytes", "iosweep_fsync"]
CSV_KEYS += ["iosweep_shared", "source_items", "source_item_bytes", "source_fsync", "source_shared"]


def fmt(v, digits=1):
    return "-" if v is None else f"{v:.{digits}f}"


def yes_no(v):
    return "?" if v is None else ("yes" if v else "no")


def _run_line(run, run_id):
    shared = str(run.get("file_layout")) == "shared"
    layout = "region of one shared file" if shared else "file"
    head = (
        f"iosweep run {run_id} ({run.get('label') or 'no label'}): {run['world_size']} ranks,"
        f" engine {run['engine_name']}"
    )
    ran = [p.strip() for p in str(run.get("phases") or "").split(",") if p.strip()]
    if ran and all(is_metadata(p, run) for p in ran):
        return head + "; metadata phases alone (no file, no records)"
    return (
        head + "; per rank a"
        f" {size_text(run.get('file_size_bytes'))} {layout};"
        f" records: seq {size_text(run.get('seq_record_bytes'))}, rand"
        f" {size_text(run.get('rand_record_bytes'))}; O_DIRECT"
        f" {yes_no(None if run.get('direct') is None else bool(int(run['direct'])))}"
    )


def _md_line(run):
    """The metadata settings of a run that recorded them (md_layout), else None."""
    if run.get("md_layout") is None:
        return None
    layout = "a tree per stream" if str(run["md_layout"]) == "private" else "one shared tree"
    fsync = yes_no(None if run.get("md_fsync") is None else bool(int(run["md_fsync"])))
    per_folder = run.get("md_items_per_folder")
    folders = f"at most {per_folder} items per folder" if per_folder else "items spread evenly"
    caches = "dropped (--cache drop, where the kernel let iosweep)"
    caches = caches if str(run.get("cache")) == "drop" else "kept"
    return (
        f"metadata: {layout} of depth {run.get('md_depth')}, {folders},"
        f" {size_text(run.get('md_write_bytes'))} written and"
        f" {size_text(run.get('md_read_bytes'))} read per item, fsync {fsync}, caches {caches}"
        " before md-stat and md-read (md_cache_drop); items per task = md_items / streams;"
        " threads of metadata rows: streams (ranks x depth), mdtest's tasks"
    )


def header_text(run, run_id, sources, loose):
    """The lines before the table: the run, what its threads are, every source with its settings
    and files, iosweep's figures and what the ratio is, and a blank line."""
    lines = [_run_line(run, run_id)]
    if sweep_axis(run) == "streams":
        lines.append(
            "threads: iosweep's streams (active ranks x depth per rank, --streams) beside IOzone's"
            " threads and IOR's tasks"
        )
    else:
        lines.append("threads: iosweep's active ranks beside IOzone's threads and IOR's tasks")
    md = _md_line(run)
    if md and any(s["tool"] == "mdtest" for s in sources):
        lines.append(md)
    for s in sources:
        tool = TOOL_NAMES.get(s["tool"], s["tool"])
        lines.append(f"[{s['id']}] {tool}: {settings_text(s)}: {', '.join(s['files'])}")
    lines.append("iosweep figures:")
    lines += [f"  {k:15} {v}" for k, v in FIGURES.items()]
    where = (
        " (--loose: also where the settings differ)"
        if loose
        else ", only where the settings match (=)"
    )
    lines.append(f"ratio = iosweep's figure of the same definition / the source's{where}")
    lines.append("")
    return "".join(line + "\n" for line in lines)


def _row_line(r):
    line = (
        f"{r['phase']:12} {r['threads']:7d} {r['unit']:6} {fmt(r['iosweep_wall']):>10} "
        f"{fmt(r['iosweep_children']):>10} {fmt(r['iosweep_iozone_children']):>10} "
    )
    if r["iosweep_wall"] is None and r["iosweep_record_bytes"] is None:
        line += f"{'':>8} {'':>8} {'':>6}   "
    else:
        line += (
            f"{size_text(r['iosweep_record_bytes']):>8} "
            f"{size_text(r['iosweep_file_bytes']):>8} "
            f"{yes_no(r['iosweep_direct']):>6}   "
        )
    if r["source"] is not None:
        figure = r["source_figure"].removeprefix("IOzone ").removeprefix("IOR ")
        line += (
            f"{r['source']:9} {figure:28} {fmt(r['source_value']):>10} "
            f"{size_text(r['source_record_bytes']):>8} {size_text(r['source_file_bytes']):>8} "
            f"{yes_no(r['source_direct']):>6}  {r['compared_with']:15} {r['match'] or '-':22} "
            f"{fmt(r['ratio'], 3):>6}"
        )
    return line.rstrip()


def _items(v):
    return "?" if v is None else f"{v:g}"


def _layout(shared):
    return "?" if shared is None else ("shared" if shared else "private")


def _md_row_line(r):
    line = (
        f"{r['phase']:12} {r['threads']:7d} {r['unit']:6} {fmt(r['iosweep_wall']):>10} "
        f"{fmt(r['iosweep_one_tree']):>10} "
    )
    if r["iosweep_wall"] is None:
        line += f"{'':>8} {'':>8} {'':>5} {'':>7}   "
    else:
        line += (
            f"{_items(r['iosweep_items']):>8} {size_text(r['iosweep_item_bytes']):>8} "
            f"{yes_no(r['iosweep_fsync']):>5} {_layout(r['iosweep_shared']):>7}   "
        )
    if r["source"] is not None:
        figure = r["source_figure"].removeprefix("mdtest ")
        line += (
            f"{r['source']:9} {figure:30} {fmt(r['source_value']):>10} "
            f"{_items(r['source_items']):>8} {size_text(r['source_item_bytes']):>8} "
            f"{yes_no(r['source_fsync']):>5} {_layout(r['source_shared']):>7}  "
            f"{r['compared_with']:9} {r['match'] or '-':22} {fmt(r['ratio'], 3):>6}"
        )
    return line.rstrip()


def table_text(table):
    """The table's head and one line per row: the data rows, then the metadata rows under their
    own head."""
    data = [r for r in table if not is_metadata(r["phase"])]
    md = [r for r in table if is_metadata(r["phase"])]
    out = []
    if data or not md:
        out.append(
            f"{'phase':12} {'threads':>7} {'unit':6} {'wall':>10} {'children':>10} "
            f"{'iozone_ch':>10} {'record':>8} {'file':>8} {'direct':>6}   {'source':9} "
            f"{'figure':28} {'value':>10} {'record':>8} {'file':>8} {'direct':>6}  {'vs':15} "
            f"{'match':22} {'ratio':>6}"
        )
        out += [_row_line(r) for r in data]
    if md:
        if data:
            out.append("")
        out.append(
            f"{'phase':12} {'tasks':>7} {'unit':6} {'wall':>10} {'one_tree':>10} "
            f"{'items':>8} {'bytes':>8} {'fsync':>5} {'layout':>7}   {'source':9} "
            f"{'figure':30} {'value':>10} {'items':>8} {'bytes':>8} {'fsync':>5} {'layout':>7}  "
            f"{'vs':9} {'match':22} {'ratio':>6}"
        )
        out += [_md_row_line(r) for r in md]
    return "".join(line + "\n" for line in out)


def _cell(v):
    """An empty cell for None, text kept text for a spreadsheet (core.text.csv_text_cell)."""
    if v is None:
        return ""
    return csv_text_cell(v) if isinstance(v, str) else v


def csv_text(table):
    """The table as CSV (CSV_KEYS; an empty cell where a row has no value; text that a
    spreadsheet would take for a formula kept text, core.text.csv_text_cell)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=CSV_KEYS, extrasaction="ignore")
    w.writeheader()
    for r in table:
        w.writerow({k: _cell(r[k]) for k in CSV_KEYS})
    return buf.getvalue()
