"""Every table of a results file out as CSV files or one JSON file (iosweep-load --csv, --json).

    from iosweep_tools.results import export, frames
    runs = frames.read_all("results/iosweep.h5")
    export.write_csv(runs, "out/")                          # out/summary.csv, out/ranks.csv, ...
    export.write_json(runs, "out.json", "results/iosweep.h5")

The CSV files are one set, written whole or not at all (core.files.OutputSet: every table into
a file of its own in the folder first, then all renamed into place), with a manifest,
`.iosweep-export`, naming each table with the identity it was written with (device, inode,
size, modification time). An earlier export in the folder is replaced whole: its tables are
replaced, and those the new export does not have are removed, when the manifest shows them
unchanged since. A file there with a table's name that no export wrote, or that was changed
since, stops the export before anything is written (Stop, status 2); other files in the folder
are left as they are.

Tables: runs (run_index figures and every run attribute), rank_map, summary, ranks, nodes,
device, latency, timeseries, rank_usage, and wire, mounts, final_math and final_math_drives when
the file has them. Every row starts with its run_id, so one file holds the rows of every run
exported.

- Column names carry units: a field whose name already ends in its unit (wall_s, lat_p99_ns,
  bandwidth_Bps, bytes, ops, iops, ranks, ...) keeps its name; any other gets ` (unit)` from the
  table's `<field>.unit` attribute: `matches (rows)`, `iodepth (requests)`. Dimensionless fields
  (unit 1, bool, enum, text) keep their names. Attributes of runs keep their names (they carry
  their units: file_size_bytes, t_start_unix_ns, timeseries_bin_s).
- Enum fields (phase, engine) are written as their names, from the enum stored in the file; a
  phase as --phases names it and the console prints it (`rand-write`: the name of its row of the
  run's phase table, where the enum stores the identifier `rand_write`).
- latency has one row per (point, bucket) that holds operations: point, bucket (its index),
  bucket_lower_ns, bucket_upper_ns, count (ops); every bucket not listed holds 0. The
  percentiles of each point are in summary (lat_p50_ns ... lat_max_ns).
- timeseries is exported as stored: in files that have them, rows with rank -1 are the merge of
  all ranks of the bin (see results.timeseries): sum bytes over rank >= 0 or rank == -1, not
  both.
- CSV: a text cell that begins with =, +, -, @, a tab, a carriage return or a single quote gets a
  single quote before it, so that a spreadsheet shows it as text and never runs it as a formula
  (OWASP's advice on CSV injection): remove one leading quote from a text cell to get the
  stored text back. Numbers are written as numbers (a negative one stays a number).
- CSV: floats are written so that they read back exactly (Python's repr): NaN (not measured) as
  `nan` (a figure is never infinite or negative: the reader refuses such a file, naming the
  value); an empty cell is a field the row's run does not have; lists (run attributes such as
  points) as JSON text.
- JSON: {"format": "iosweep-export", "version": 1, "source": FILE, "runs": [{"run_id",
  "attributes", "hosts", "tables": {NAME: {"columns": [...], "rows": [[...], ...]}}}]}. JSON has
  no NaN: NaN is null. Integers are exact (uint64 above 2^53 too, which JavaScript readers
  would round).
"""
import csv
import io
import json
import math
import os

import numpy as np

from iosweep_tools.core.errors import Stop
from iosweep_tools.core.files import OutputSet, write_whole
from iosweep_tools.core.text import csv_text_cell, shown
from iosweep_tools.results.names import name_of, stored_table

TABLES = ("rank_map", "summary", "ranks", "nodes", "device", "timeseries", "rank_usage")
TABLES += ("wire", "mounts", "final_math", "final_math_drives")
UNITLESS = {"1", "bool", "enum", "text", ""}
SUFFIX = {"bytes/s": "_Bps", "ops/s": "iops", "s": "_s", "ns": "_ns"}


def column_name(field, unit):
    """`field`, or `field (unit)` when the name does not already end in its unit."""
    if unit is None or str(unit) in UNITLESS:
        return field
    token = SUFFIX.get(unit, unit)
    return field if field.endswith(token) else f"{field} ({unit})"


def _py(v):
    if isinstance(v, (bytes, np.bytes_)):
        return bytes(v).decode(errors="replace")
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        return [_py(x) for x in v.tolist()]
    return v


def _enums(dtype):
    import h5py

    out = {}
    for f in dtype.names:
        members = h5py.check_enum_dtype(dtype[f])
        if members is not None:
            out[f] = {v: k for k, v in members.items()}
    return out


def table(runs, name):
    """(columns, rows) of table `name` over `runs`: columns with units, rows of Python values,
    run_id first; None when no run has the table."""
    fields, units, parts = [], {}, []
    for r in runs:
        t = r.tables.get(name)
        if t is None:
            continue
        for f in t.dtype.names:
            if f not in fields:
                fields.append(f)
                units[f] = r.units.get(name, {}).get(f)
        parts.append((r, t))
    if not parts:
        return None
    rows = []
    for r, t in parts:
        enums = _enums(t.dtype)
        if "phase" in enums:  # a phase by its name, as --phases takes it (rand-write)
            enums["phase"] = {
                v: name_of(k, stored_table(r.attrs)) for v, k in enums["phase"].items()
            }
        cols = [(f, f in t.dtype.names) for f in fields]
        data = {f: t[f] for f in t.dtype.names}
        for i in range(len(t)):
            row = [r.id]
            for f, present in cols:
                if not present:
                    row.append(None)
                    continue
                v = _py(data[f][i])
                if f in enums:
                    v = enums[f].get(v, v)
                row.append(v)
            rows.append(row)
    return ["run_id"] + [column_name(f, units[f]) for f in fields], rows


def latency_table(runs):
    cols = ["run_id", "point", "bucket", "bucket_lower_ns", "bucket_upper_ns", "count (ops)"]
    rows = []
    for r in runs:
        if r.latency is None:
            continue
        lower, upper, counts = r.latency
        for p, b in zip(*np.nonzero(counts)):
            rows.append([r.id, int(p), int(b), int(lower[b]), int(upper[b]), int(counts[p][b])])
    return cols, rows


def runs_table(runs):
    names = []
    for r in runs:
        names += [k for k in r.attrs if k not in names]
    cols = ["run_id", "status_name", "hosts"] + [k for k in names if k != "run_id"]
    rows = [[r.id, r.status_name, list(r.hosts)] + [r.attrs.get(k) for k in cols[3:]] for r in runs]
    return cols, rows


def tables(runs):
    """[(name, columns, rows)] of every table the runs have, runs first."""
    out = [("runs", *runs_table(runs))]
    for name in TABLES:
        t = table(runs, name)
        if t is not None:
            out.append((name, *t))
        if name == "device":
            out.append(("latency", *latency_table(runs)))
    return out


def csv_cell(v):
    """A value as a CSV cell: numbers as they read back, text as a spreadsheet keeps it text
    (core.text.csv_text_cell)."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return str(int(v))
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, (list, dict)):
        return csv_text_cell(json.dumps(v, allow_nan=False, default=str))
    return csv_text_cell(v)


MANIFEST = ".iosweep-export"  # in a folder of CSV files: the tables an export wrote there
MANIFEST_FORMAT = "iosweep-export-csv"
NAMES = ("runs",) + TABLES + ("latency",)  # every table an export may write


def _identity(path):
    st = os.lstat(path)
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns]


def earlier_export(option, folder):
    """{file name: identity} of the export in `folder` (its manifest; {} when the folder or the
    manifest is missing). Raises Stop (status 2) when anything there with a table's name was
    not written by an export or was changed since, or the manifest is not one: nothing of such a
    folder is replaced."""
    if not os.path.isdir(folder):
        return {}
    where = os.path.join(folder, MANIFEST)
    listed = {}
    if os.path.lexists(where):
        listed = _manifest(option, where)
    for name in sorted(set(listed) | {f"{t}.csv" for t in NAMES}):
        path = os.path.join(folder, name)
        if not os.path.lexists(path):
            continue
        if os.path.islink(path) or not os.path.isfile(path):
            why = "is not a regular file, so not a table an export wrote"
        elif name not in listed:
            why = "is not a table an earlier export wrote (its manifest does not list it)"
        elif _identity(path) != listed[name]:
            why = "was changed since the export that wrote it"
        else:
            continue
        raise Stop(f"{option}: {shown(path)} {why}: not replaced; nothing written")
    return listed


def _manifest(option, where):
    """The tables a manifest lists, {name: identity}; Stop unless it is one."""
    bad = Stop(f"{option}: {shown(where)} is not the manifest of an export; nothing written")
    if os.path.islink(where) or not os.path.isfile(where) or os.path.getsize(where) > 1 << 20:
        raise bad
    try:
        with open(where) as f:
            doc = json.load(f)
        files = doc["tables"] if doc.get("format") == MANIFEST_FORMAT else None
        listed = {n: list(v) for n, v in files.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        raise bad from None
    for n, v in listed.items():
        if os.path.basename(n) != n or not n.endswith(".csv") or len(v) != 4:
            raise bad
    return listed


def write_csv(runs, folder, out=None, source=None):
    """One CSV file per table in `folder` (made when missing; its parent must exist) and the
    manifest, as one set (see above) staged in `out` (a core.files.OutputSet; one of its own
    when None), replacing an earlier export whole. Returns the paths of the tables."""
    if out is None:
        with OutputSet() as own:
            return write_csv(runs, folder, own, source)
    earlier = earlier_export("--csv", folder)
    out.folder("--csv", folder)
    written, manifest = [], {}
    for name, cols, rows in tables(runs):
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow([csv_text_cell(c) for c in cols])
        for row in rows:
            w.writerow([csv_cell(v) for v in row])
        path = os.path.join(folder, f"{name}.csv")
        manifest[f"{name}.csv"] = _identity(out.stage("--csv", path, buf.getvalue()))
        written.append(path)
    doc = {"format": MANIFEST_FORMAT, "version": 1, "source": str(source), "tables": manifest}
    out.stage("--csv", os.path.join(folder, MANIFEST), json.dumps(doc, indent=1) + "\n")
    out.then(lambda: _remove_earlier(folder, earlier, manifest))
    return written


def _remove_earlier(folder, earlier, now):
    """The tables of the earlier export that this one does not have, each while it is still
    the file that export wrote."""
    for name, identity in earlier.items():
        path = os.path.join(folder, name)
        if name not in now and os.path.lexists(path) and _identity(path) == identity:
            os.unlink(path)


def json_value(v):
    if isinstance(v, float):
        if math.isnan(v):
            return None
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
    if isinstance(v, list):
        return [json_value(x) for x in v]
    return v


def document(runs, source):
    out = {"format": "iosweep-export", "version": 1, "source": str(source), "runs": []}
    all_tables = tables(runs)
    for r in runs:
        entry = {
            "run_id": r.id,
            "status_name": r.status_name,
            "attributes": {k: json_value(v) for k, v in r.attrs.items()},
            "hosts": list(r.hosts),
            "tables": {},
        }
        for name, cols, rows in all_tables:
            if name == "runs":
                continue
            mine = [[json_value(v) for v in row[1:]] for row in rows if row[0] == r.id]
            entry["tables"][name] = {"columns": cols[1:], "rows": mine}
        out["runs"].append(entry)
    return out


def json_text(runs, source):
    """The JSON document of `runs` (read from `source`) as text."""
    return json.dumps(document(runs, source), allow_nan=False, ensure_ascii=False, indent=1) + "\n"


def write_json(runs, path, source):
    write_whole(path, json_text(runs, source))
    return path
