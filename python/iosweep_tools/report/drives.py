"""The per-run section of iosweep-report about drives: per point, the drives the point's files
were on, the slowest and fastest and the lowest fraction (the summary's drive figures), the
lagging drives the console's notes name; per phase at its largest point, and for every point in
a table to open, each drive: its device, nodes and folders, its ranks and the bytes they
claimed, the bytes its own counters saw, the fraction, its bandwidth (results.drive_view).

drive_section(run) takes one run (results.reader.Run) and returns HTML.
"""
from html import escape

from iosweep_tools.report import html as h
from iosweep_tools.report.html import MIB, problem_note
from iosweep_tools.report.latency import head_cells, point_label
from iosweep_tools.report.overview import ranks_text
from iosweep_tools.results import drive_view
from iosweep_tools.results import timeseries as its

POINT_FIELDS = ("drives", "drive_bw_min_Bps", "drive_slowest", "drive_bw_max_Bps")
POINT_FIELDS += ("drive_fastest", "drive_fraction_min")
SCALED = {"drive_bw_min_Bps", "drive_bw_max_Bps"}
DRIVE_HEAD = ["drive", "device", "nodes", "folders", "ranks", "claimed (MiB)", "seen (MiB)"]
DRIVE_HEAD += ["fraction", "seconds", "MiB/s", "seen / wall_s", "mark", "note"]
WHERE = ("nodes", "folders")  # columns of a drive's place, left out of the every-point table


def _rows_cell(run, d, field, how, scale=None):
    """A drive's `field` (ranks, claimed_bytes, seconds) over its rows that had ranks, `how`
    (sum, max): the stored cell when one row had them, else a derived one naming the rows."""
    t = run.table("device")
    mine = [j for j in d.rows if int(t["ranks"][j]) > 0]
    if len(mine) > 1:
        rows = ", ".join(map(str, mine))
        v = getattr(d, field)
        how = f"{how} of device.{field} over rows {rows}" + (" (shown / 2^20)" if scale else "")
        return h.derived(v, how, text=h.num(v / scale if scale else v))
    return h.td(run, "device", mine[0] if mine else d.rows[0], field, scale=scale)


def _counted_cell(run, d, field, scale=None, cls=None):
    if d.counted is None:
        return h.text_td("no counted row")
    return h.td(run, "device", d.counted, field, scale=scale, cls=cls)


def drive_cells(run, i, d, lagging, where=True):
    """The cells of one drive at summary row i (DRIVE_HEAD; without its nodes and folders unless
    `where`)."""
    s = run.summary
    wall = float(s["wall_s"][i])
    seen = "write_bytes" if run.writes(run.phase_of_row(i)) else "read_bytes"
    nodes = ranks_text(d.nodes) if d.nodes else "no ranks"
    index = {f: k for k, f in enumerate(drive_view.folders(run))}
    folders = ", ".join(
        str(index.get(f.decode(errors="replace"), f.decode(errors="replace"))) for f in d.folders
    )
    low = [j for j in lagging if j in d.rows]
    mark = {(True, True): "the only drive used", (True, False): "slowest"}.get(
        (d.slowest, d.fastest), "fastest" if d.fastest else ""
    )
    place = [h.text_td(nodes), h.text_td(folders or "-")] if where else []
    return [
        _counted_cell(run, d, "drive") if d.counted is not None else h.text_td(d.drive, cls=""),
        _counted_cell(run, d, "device") if d.counted is not None else h.text_td(d.name),
        *place,
        _rows_cell(run, d, "ranks", "sum"),
        _rows_cell(run, d, "claimed_bytes", "sum", scale=MIB),
        _counted_cell(run, d, seen, scale=MIB),
        _counted_cell(run, d, "drive_fraction", cls="warn" if low else None),
        _rows_cell(run, d, "seconds", "max"),
        _counted_cell(run, d, "drive_Bps", scale=MIB),
        h.derived(
            d.seen_bytes / wall / MIB if d.seen_bytes is not None and wall > 0 else float("nan"),
            f"device.{seen} of the counted row / summary.wall_s / 2^20 (MiB/s)",
        ),
        h.text_td(mark, cls={"slowest": "t warn", "fastest": "t good"}.get(mark, "t")),
        _note_cell(run, low),
    ]


def _has_links(run):
    return all(f in run.table("device").dtype.names for f in drive_view.LINK_FIELDS)


def link_lines(run):
    """Each drive's PCIe link as the device table recorded it, or why it is unknown: one line
    per drive, under the tables (its text is too long for a column)."""
    if not _has_links(run):
        return ""
    t, seen, lines = run.table("device"), set(), []
    for j in range(len(t)):
        key = (int(t["drive"][j]), int(t["node"][j]))
        if key in seen:
            continue
        seen.add(key)
        lines.append(
            f"drive {key[0]} {escape(bytes(t['device'][j]).decode(errors='replace'))} (node"
            f" {key[1]}): {escape(bytes(t['link'][j]).decode(errors='replace'))}"
        )
    return (
        "<p>Links (the device table's link):</p><ul>"
        + "".join(f"<li>{x}</li>" for x in lines)
        + "</ul>"
    )


def _note_cell(run, low):
    """What iosweep noted of the drive when it lagged: the lag_note of its counted row (the one
    row of `low`, the point's noted rows that are the drive's)."""
    if not drive_view.has_lag_notes(run):
        return h.text_td("not recorded in this file", cls="t note")
    return h.td(run, "device", low[0], "lag_note") if low else h.text_td("")


def data_rows(run):
    """The summary rows of the data phases: the metadata phases claim no bytes for a drive."""
    return [i for i in range(len(run.summary)) if not run.is_metadata(run.phase_of_row(i))]


def point_table(run):
    """One row per data point: its drive figures and the lagging drives iosweep noted (the
    lag_note of their device rows, as the console's notes column ends with them)."""
    shown, total = h.capped(data_rows(run))
    rows = []
    for i in shown:
        cells = head_cells(run, i)
        cells += [
            h.td(run, "summary", i, f, scale=MIB if f in SCALED else None) for f in POINT_FIELDS
        ]
        lagging = drive_view.lagging(run, i) if drive_view.has_lag_notes(run) else []
        cells.append(h.text_td("; ".join(drive_view.note(run, j) for j in lagging)))
        rows.append(cells)
    head = ["phase", run.axis(), "rep", "drives", "slowest (MiB/s)", "drive"]
    head += ["fastest (MiB/s)", "drive", "drive_fraction_min", "notes"]
    return h.table(head, rows, total)


def point_drives(run, i):
    """The drive table of summary row i."""
    rows = drive_view.rows_of_point(run, i)
    lagging = drive_view.lagging(run, i, rows)
    drives = drive_view.drives(run, i, rows)
    if not drives:
        return h.p("No device rows at this point.")
    return h.table(DRIVE_HEAD, [drive_cells(run, i, d, lagging) for d in drives])


def every_point(run):
    """Every data point's drives in one table, a row per (point, drive)."""
    rows, total = [], 0
    for i in data_rows(run):
        points = drive_view.rows_of_point(run, i)
        lagging = drive_view.lagging(run, i, points)
        for d in drive_view.drives(run, i, points):
            total += 1
            if len(rows) < h.MAX_ROWS:
                rows.append(head_cells(run, i) + drive_cells(run, i, d, lagging, where=False))
    head = [x for x in DRIVE_HEAD if x not in WHERE]
    return h.table(["phase", run.axis(), "rep"] + head, rows, total)


def drive_section(run):
    if run.table("device") is None:
        return h.p("device: not recorded in this file" + problem_note(run, "device"))
    if not drive_view.has_drives(run):
        return h.p(
            "Per drive: not recorded in this file (its device table and summary have no drive"
            " view; iosweep records it since --dir takes several folders)."
        )
    if not data_rows(run):
        return h.p(
            "No drive figures: this run has no data phase, and the metadata phases claim no"
            " bytes for a drive (what each block device counted per operation is in Where the"
            " bytes came from)."
        )
    folders = drive_view.folders(run)
    body = h.p(
        "A drive is a block device of one kernel (the device table's drive id; emulated nodes"
        " sharing a machine share its drives). A rank's bytes are claimed for the drive holding"
        " the folder of the file it read or wrote: claimed (claimed_bytes) and ranks sum a"
        " drive's rows (claimed and seen in MiB = bytes / 2^20), seconds is the slowest of its"
        " ranks' windows, MiB/s is drive_Bps ="
        " claimed bytes / seconds; seen is the drive's own counters in the phase's direction over"
        " the phase (before its barrier to after the last close), fraction (drive_fraction) ="
        " seen / claimed, seen / wall_s in MiB/s; nodes and folders (by their index in --dir)"
        " are those of the drive's ranks. The note is iosweep's own (the device table's lag_note):"
        " it notes a drive that saw under 90% of its ranks' bytes while the point's other drives"
        " did not, as the console's notes column does. link: an NVMe drive's PCIe link as sysfs"
        " gives it (link_Bps per direction), or in words why the drive's limit is unknown (the"
        " Links below; link_fraction, seen / seconds / link_Bps, is in the summary's"
        " link_fraction_min and link_fraction_max and the final math). --dir: "
        + escape(", ".join(f"{k}: {f}" for k, f in enumerate(folders)) or "not recorded")
        + "."
    )
    s = run.summary
    if not any(int(s["drives"][i]) for i in data_rows(run)):
        note = str(run.attrs.get("device_note") or "")
        return body + h.p(
            "No drive was counted at any point (the summary's drives are 0, its drive figures"
            " NaN)" + (f": {escape(note)}" if note else "") + "."
        )
    body += "<h3>Every point</h3>" + point_table(run)
    for phase, i in its.largest_points(run).items():
        if run.is_metadata(phase):
            continue
        body += (
            f"<h4>{escape(point_label(run, i))}: each drive (wall_s"
            f" {h.num(s['wall_s'][i])} s)</h4>" + point_drives(run, i)
        )
    body += "<details><summary>every point, drive by drive</summary>" + every_point(run)
    return body + "</details>" + link_lines(run)
