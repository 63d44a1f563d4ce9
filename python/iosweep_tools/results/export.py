"""Every table of a results file out as CSV files or one JSON file (iosweep-load --csv, --json).

    from iosweep_tools.results import export, frames
    runs = frames.read_all("results/iosweep.h5")
    export.write_csv(runs, "out/")                          # out/summary.csv, out/ranks.csv, ...
    export.write_json(runs, "out.json", "results/iosweep.h5")

Tables: runs (run_index figures and every run attribute), rank_map, summary, ranks, nodes,
device, latency, timeseries, rank_usage, and wire and mounts when the file has them. Every row
starts with its run_id, so one file holds the rows of every run exported.

- Column names carry units: a field whose name already ends in its unit (wall_s, lat_p99_ns,
  bandwidth_Bps, bytes, ops, iops, ranks, ...) keeps its name; any other gets ` (unit)` from the
  table's `<field>.unit` attribute: `matches (rows)`, `iodepth (requests)`. Dimensionless fields
  (unit 1, bool, enum, text) keep their names. Attributes of runs keep their names (they carry
  their units: file_size_bytes, t_start_unix_ns, timeseries_bin_s).
- Enum fields (phase, engine) are written as their names, from the enum stored in the file.
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

from iosweep_tools.core.files import write_whole
from iosweep_tools.core.text import csv_text_cell

TABLES = ("rank_map", "summary", "ranks", "nodes", "device", "timeseries", "rank_usage")
TABLES += ("wire", "mounts")
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


def write_csv(runs, folder):
    """One CSV file per table in `folder` (made when missing; its parent must exist). Returns
    the paths written."""
    os.makedirs(folder, exist_ok=True)
    written = []
    for name, cols, rows in tables(runs):
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow([csv_text_cell(c) for c in cols])
        for row in rows:
            w.writerow([csv_cell(v) for v in row])
        path = os.path.join(folder, f"{name}.csv")
        write_whole(path, buf.getvalue())
        written.append(path)
    return written


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
