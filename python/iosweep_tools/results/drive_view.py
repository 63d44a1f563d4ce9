"""The drive view of a run, read back from its device table: for a summary point, every drive
(a block device of one kernel: the device table's `drive`) with the ranks whose files were on
it, the bytes they claimed and what the device's own counters saw (results/README.md, "Per
drive"). iosweep reduced these figures itself (drive_Bps, drive_fraction on the row that counts
the drive) and decided which drive lagged (its `lag_note`, the console's note of it); this module
groups a drive's rows for display and decides nothing.

    has_drives(run)                     # the file records the drive view
    for d in drives(run, i): d.drive, d.name, d.nodes, d.folders, d.claimed_bytes, d.seen_bytes
    lagging(run, i), note(run, j)       # the device rows iosweep noted, and their notes
    folders(run)                        # --dir's folders, in the order of the folder fields

A drive's `nodes`, `folders`, `ranks` and `claimed_bytes` come from its rows that had ranks (the
final math's drive lines, stored as final_math_drives, gather its point's alike); its counters,
drive_Bps, drive_fraction and its link (link, link_Bps, link_fraction: newer files) from its
counted row.
"""
import math
from dataclasses import dataclass, field

import numpy as np

# The device table's and the summary's fields of the drive view: files before it have none.
FIELDS = ("drive", "folders", "ranks", "claimed_bytes", "seconds", "drive_Bps", "drive_fraction")
SUMMARY = ("drives", "drive_slowest", "drive_fastest")
# The device table's link fields (newer files): an NVMe drive's PCIe link, or why unknown.
LINK_FIELDS = ("link", "link_Bps", "link_fraction")


@dataclass
class Drive:
    """One drive at one point: `rows` its device table rows, `counted` the one in the sums
    (None when none is), `device` its name as stored (bytes)."""

    drive: int
    device: bytes
    rows: list = field(default_factory=list)
    counted: int = None
    nodes: list = field(default_factory=list)
    folders: list = field(default_factory=list)
    ranks: int = 0
    claimed_bytes: int = 0
    seconds: float = 0.0
    read_bytes: int = None
    write_bytes: int = None
    seen_bytes: int = None  # the counted row's bytes in the phase's direction
    drive_Bps: float = math.nan
    drive_fraction: float = math.nan
    slowest: bool = False
    fastest: bool = False
    link: str = None  # the counted row's link text; None in files before the links
    link_Bps: float = math.nan
    link_fraction: float = math.nan

    @property
    def name(self):
        return self.device.decode(errors="replace")

    @property
    def used(self):
        """In the point's drive figures: counted, with ranks (drive_Bps is a number)."""
        return self.counted is not None and not math.isnan(self.drive_Bps)


def has_drives(run):
    """Whether the run's device table holds the drive view (newer files) and its summary the
    drive figures."""
    t = run.table("device")
    if t is None or any(f not in t.dtype.names for f in FIELDS):
        return False
    return all(f in run.summary.dtype.names for f in SUMMARY)


def rows_of_point(run, i):
    """The device table's rows of summary row i, in the table's order."""
    t = run.table("device")
    if t is None:
        return []
    return np.flatnonzero(t["point"] == run.summary["point"][i]).tolist()


def _add_row(d, t, j):
    d.rows.append(j)
    if int(t["counted"][j]):
        d.counted = j
    ranks = int(t["ranks"][j])
    if ranks == 0:
        return
    node, folders = int(t["node"][j]), bytes(t["folders"][j])
    if node not in d.nodes:
        d.nodes.append(node)
    if folders not in d.folders:
        d.folders.append(folders)
    d.ranks += ranks
    d.claimed_bytes += int(t["claimed_bytes"][j])
    d.seconds = max(d.seconds, float(t["seconds"][j]))


def drives(run, i, rows=None):
    """[Drive] of summary row i, by drive id; [] when the file has no drive view. `rows`: the
    point's device rows when the caller has them (rows_of_point)."""
    if not has_drives(run):
        return []
    t, s = run.table("device"), run.summary
    out = {}
    for j in rows_of_point(run, i) if rows is None else rows:
        d = out.setdefault(int(t["drive"][j]), Drive(int(t["drive"][j]), bytes(t["device"][j])))
        _add_row(d, t, j)
    writes = run.writes(run.phase_of_row(i))
    for d in out.values():
        d.nodes.sort()
        d.folders.sort()
        if d.counted is None:
            continue
        c = d.counted
        d.device = bytes(t["device"][c])
        d.read_bytes, d.write_bytes = int(t["read_bytes"][c]), int(t["write_bytes"][c])
        d.seen_bytes = d.write_bytes if writes else d.read_bytes
        d.drive_Bps, d.drive_fraction = float(t["drive_Bps"][c]), float(t["drive_fraction"][c])
        if all(f in t.dtype.names for f in LINK_FIELDS):
            d.link = bytes(t["link"][c]).decode(errors="replace")
            d.link_Bps, d.link_fraction = float(t["link_Bps"][c]), float(t["link_fraction"][c])
        d.slowest = d.used and d.drive == int(s["drive_slowest"][i])
        d.fastest = d.used and d.drive == int(s["drive_fastest"][i])
    return [out[k] for k in sorted(out)]


def has_lag_notes(run):
    """Whether the device table stores the lagging drives' notes (`lag_note`: newer files)."""
    t = run.table("device")
    return t is not None and "lag_note" in t.dtype.names


def lagging(run, i, rows=None):
    """The device rows of summary row i that iosweep noted as a lagging drive (a non-empty
    `lag_note`, on the drive's counted row); [] for files without lag notes."""
    if not has_drives(run) or not has_lag_notes(run):
        return []
    t = run.table("device")
    rows = rows_of_point(run, i) if rows is None else rows
    return [j for j in rows if bytes(t["lag_note"][j])]


def note(run, j):
    """The note iosweep stored for device row j when its drive lagged (`drive NAME (node N)
    P%`, as the console's notes column gives it); '' otherwise."""
    t = run.table("device")
    return bytes(t["lag_note"][j]).decode(errors="replace") if has_lag_notes(run) else ""


def folders(run):
    """--dir's folders (the `dir` attribute split at its commas; index i is folder i of the
    folder fields); [] when not recorded."""
    d = run.attrs.get("dir")
    return str(d).split(",") if d else []


def run_drives(run):
    """[(drive id, device name, [nodes])] of every drive the run's device table names."""
    t = run.table("device")
    if t is None or "drive" not in t.dtype.names:
        return []
    out = {}
    for j in range(len(t)):
        name, nodes = out.setdefault(int(t["drive"][j]), (bytes(t["device"][j]), set()))
        nodes.add(int(t["node"][j]))
    return [(k, out[k][0].decode(errors="replace"), sorted(out[k][1])) for k in sorted(out)]


def layout_text(run):
    """A line saying where a run with several folders or drives put its files: its folders and
    its drives (id, device, nodes); None for one folder on at most one drive."""
    dirs, used = folders(run), run_drives(run)
    if len(dirs) < 2 and len(used) < 2:
        return None
    shown = "; ".join(
        f"{k} {name} (node{'' if len(nodes) == 1 else 's'} {','.join(map(str, nodes))})"
        for k, name, nodes in used
    )
    return (
        f"{len(dirs)} folder{'' if len(dirs) == 1 else 's'} of --dir: {', '.join(dirs)};"
        f" {len(used)} drive{'' if len(used) == 1 else 's'}: {shown or 'none counted'}"
    )
