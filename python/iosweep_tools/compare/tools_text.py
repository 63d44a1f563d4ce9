"""IOzone and IOR figures beside an iosweep run as text: what iosweep-compare RESULTS OUTPUTS...
prints and writes with --csv (the table is compare.tools').

    print(header_text(run_attrs, run_id, sources, loose), end="")
    print(table_text(rows), end="")
    csv_text(rows)
"""
import csv
import io

from iosweep_tools.compare.tools import FIGURES, settings_text
from iosweep_tools.core.text import csv_text_cell, size_text
from iosweep_tools.results.names import sweep_axis

SETTINGS = ("record_bytes", "file_bytes", "direct", "stonewall", "shared")
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


def fmt(v, digits=1):
    return "-" if v is None else f"{v:.{digits}f}"


def yes_no(v):
    return "?" if v is None else ("yes" if v else "no")


def _run_line(run, run_id):
    shared = str(run.get("file_layout")) == "shared"
    layout = "region of one shared file" if shared else "file"
    return (
        f"iosweep run {run_id} ({run.get('label') or 'no label'}): {run['world_size']} ranks,"
        f" engine {run['engine_name']}; per rank a"
        f" {size_text(run.get('file_size_bytes'))} {layout};"
        f" records: seq {size_text(run.get('seq_record_bytes'))}, rand"
        f" {size_text(run.get('rand_record_bytes'))}; O_DIRECT"
        f" {yes_no(None if run.get('direct') is None else bool(int(run['direct'])))}"
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
    for s in sources:
        tool = "IOzone" if s["tool"] == "iozone" else "IOR"
        settings = settings_text(*(s[k] for k in SETTINGS))
        lines.append(f"[{s['id']}] {tool}: {settings}: {', '.join(s['files'])}")
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


def table_text(table):
    """The table's head and one line per row."""
    head = (
        f"{'phase':12} {'threads':>7} {'unit':6} {'wall':>10} {'children':>10} {'iozone_ch':>10} "
        f"{'record':>8} {'file':>8} {'direct':>6}   {'source':9} {'figure':28} {'value':>10} "
        f"{'record':>8} {'file':>8} {'direct':>6}  {'vs':15} {'match':22} {'ratio':>6}"
    )
    return "".join(line + "\n" for line in [head] + [_row_line(r) for r in table])


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
