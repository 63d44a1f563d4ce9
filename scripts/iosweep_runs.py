"""One run of a results file, read with everything a script uses checked first.

    import iosweep_runs as runs
    run = runs.read("r.h5", run_id=None, summary={"ranks": runs.POSITIVE, "iops": runs.FIGURE})
    run.id, run.attrs["world_size"], run.phases, run.summary   # a DataFrame, as iosweep_load's
    run.tables["rank_usage"]                                   # with tables={name: fields}
    runs.ids("r.h5")                                           # run ids in the order appended

The file is opened with iosweep_common.open_results and the run picked with pick_run (a regular
file, HDF5's signature, iosweep's schema; the run_index a table of run ids). Then only the fields
and attributes a script names are read, each checked against its kind: integer counts, finite
non-negative figures, enum values that are members of their enum, text. A table larger than
MAX_TABLE_BYTES is not read (a corrupted dataset may claim any shape). Every problem raises
iosweep_common.ResultsError (NoSuchRun for a run the file does not list) with one line naming the
file, the run, the table or attribute, the row and the value; nothing else escapes.
"""
import warnings

import numpy as np

import iosweep_common as common
from iosweep_common import NoSuchRun, ResultsError

MAX_TABLE_BYTES = 256 << 20  # far above any run's table (a summary row is 448 bytes)
MAX_LIST = 1 << 20  # entries of a list attribute (points)

# Kinds of fields and attributes; a field given as (kind, False) is read when the table has it.
ID = "a count (an integer of at least 0)"
POSITIVE = "a positive integer"
FLAG = "0 or 1"
FIGURE = "a finite number of at least 0"
MAYBE = "a number of at least 0 or NaN"
ENUM = "a member of its enum"
TEXT = "text"
COUNTS = "a list of positive integers"

# The summary fields iosweep_load joins from the run's attributes onto every summary row.
JOINED = {
    "label": TEXT,
    "file_size_bytes": ID,
    "seq_record_bytes": ID,
    "rand_record_bytes": ID,
    "scan_record_bytes": ID,
    "direct": FLAG,
    "iodepth": POSITIVE,
    "fs_type": TEXT,
    "world_size": POSITIVE,
    "n_nodes": POSITIVE,
}
# Attributes every reader takes: those a run's description and its record sizes need. Required
# ones (True) are in every results file iosweep has written.
BASE_ATTRS = {
    "world_size": (POSITIVE, True),
    "n_nodes": (POSITIVE, True),
    "engine_name": (TEXT, True),
    "label": (TEXT, False),
    "file_size_bytes": (ID, False),
    "seq_record_bytes": (ID, False),
    "rand_record_bytes": (ID, False),
    "scan_record_bytes": (ID, False),
    "direct": (FLAG, False),
    "iodepth": (POSITIVE, False),
    "fs_type": (TEXT, False),
    "file_layout": (TEXT, False),
    "sweep_axis": (TEXT, False),
    "phase_table": (TEXT, False),
}


class Run:
    """A checked run: `id`, `attrs` {name: value} (the attributes asked for that the run has,
    plus run_id), `phases` and `engines` ({name: value} of its summary's enums), `summary` (a
    pandas DataFrame of the fields asked for, phase_name and engine_name decoded, the JOINED
    attributes and record_bytes added, as iosweep_load's summary) and `tables` {name: numpy
    array of the fields asked for}."""

    def __init__(self, run_id, attrs, phases, engines, summary, tables):
        self.id, self.attrs, self.phases, self.engines = run_id, attrs, phases, engines
        self.summary, self.tables = summary, tables


def open_file(path):
    """open_results, with any failure of h5py reading the file's first attributes as a
    ResultsError (a truncated or corrupted file)."""
    try:
        with warnings.catch_warnings():  # numpy on a schema attribute that is an array
            warnings.simplefilter("ignore")
            return common.open_results(path)
    except ResultsError:
        raise
    except Exception as e:
        raise ResultsError(f"'{path}' cannot be read as a results file ({e})") from None


def ids(path):
    """The run ids of the results file at `path`, in the order they were appended."""
    with open_file(path) as f:
        return _guarded(f"'{path}'", common.run_ids, f)


def read(path, run_id=None, summary=None, attrs=None, tables=None):
    """The Run `run_id` (the run appended last when None) of the results file at `path`, with the
    summary fields {name: kind} of `summary`, the attributes {name: (kind, required)} of
    BASE_ATTRS and `attrs`, and the tables {table: {field: kind}} of `tables`."""
    with open_file(path) as f:
        return read_open(f, run_id, summary, attrs, tables)


def read_open(f, run_id=None, summary=None, attrs=None, tables=None):
    """read() on an open results file."""
    rid, g = _guarded(f"'{f.filename}'", common.pick_run, f, run_id)
    where = f"'{f.filename}': run {rid}"
    return _guarded(where, _read_run, g, rid, where, summary or {}, attrs or {}, tables or {})


def _guarded(where, fn, *args):
    try:
        return fn(*args)
    except ResultsError:  # NoSuchRun included
        raise
    except Exception as e:  # h5py's reading of a corrupted structure
        raise ResultsError(f"{where} cannot be read ({type(e).__name__}: {e})") from None


def _read_run(g, rid, where, summary, attrs, tables):
    import h5py

    if not isinstance(g, h5py.Group):
        raise ResultsError(f"{where}: /runs/{rid} is not a group")
    a = {"run_id": rid}
    for name, (kind, required) in {**BASE_ATTRS, **attrs}.items():
        v = _attr(g, name, kind, required, where)
        if v is not None:
            a[name] = v
    _check_phase_table(a, where)
    fields = {"phase": ENUM, "engine": ENUM, **summary}
    arr, enums = _table(g, "summary", fields, where)
    phases, engines = enums["phase"], enums["engine"]
    out = {}
    for name, flds in tables.items():  # {field: kind}, or ({field: kind}, False): if present
        flds, required = flds if isinstance(flds, tuple) else (flds, True)
        if required or name in g:
            out[name] = _table(g, name, flds, where)[0]
    import pandas as pd  # once everything is checked: a refusal does not wait for it

    s = pd.DataFrame({k: arr[k] for k in arr.dtype.names if k in fields})
    phase_of, engine_of = common.by_value(phases), common.by_value(engines)
    s.insert(0, "run_id", rid)
    s.insert(2, "phase_name", [phase_of[int(p)] for p in s["phase"]])
    s["engine_name"] = [engine_of[int(e)] for e in s["engine"]]
    for k in JOINED:
        if k not in s.columns:
            s[k] = a.get(k)
    s["record_bytes"] = [common.record_bytes(a, p) for p in s["phase_name"]]
    return Run(rid, a, phases, engines, s, out)


def _attr(g, name, kind, required, where):
    if name not in g.attrs:
        if required:
            raise ResultsError(f"{where} has no attribute {name}")
        return None
    v = g.attrs[name]
    bad = ResultsError(f"{where}: attribute {name} is not {kind} (found {_short(v)})")
    if kind == TEXT:
        if isinstance(v, bytes):
            v = v.decode()
        if not isinstance(v, str):
            raise bad
        return v
    if kind == COUNTS:
        if (
            not isinstance(v, np.ndarray)
            or v.ndim != 1
            or v.dtype.kind not in "iu"
            or v.size > MAX_LIST
            or (v < 1).any()
        ):
            raise bad
        return [int(x) for x in v]
    if kind == FIGURE:
        if isinstance(v, (bool, np.bool_)) or not isinstance(
            v, (int, float, np.integer, np.floating)
        ):
            raise bad
        if not np.isfinite(v) or v < 0:
            raise bad
        return float(v)
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise bad
    v = int(v)
    if v < (1 if kind == POSITIVE else 0) or (kind == FLAG and v > 1):
        raise bad
    return v


def _check_phase_table(a, where):
    """The phase table a run recorded, when it parses, must be iosweep's: every row a table with
    a record kind of seq, rand or scan and flags as text."""
    for phase, row in common.phase_table(a).items():
        if (
            not isinstance(row, dict)
            or row.get("record") not in ("seq", "rand", "scan")
            or not isinstance(row.get("flags", ""), str)
        ):
            raise ResultsError(
                f"{where}: attribute phase_table is not iosweep's phase table (row {phase})"
            )


def _table(g, name, fields, where):
    """(the fields of table `name` as a numpy array, {enum field: members}), every value
    checked."""
    import h5py

    ds = g.get(name)
    if not isinstance(ds, h5py.Dataset):
        raise ResultsError(f"{where} has no {name} table")
    if ds.dtype.names is None or ds.ndim != 1:
        raise ResultsError(f"{where}: {name} is not a table (a one-dimensional compound dataset)")
    claimed = ds.size * ds.dtype.itemsize
    if claimed > MAX_TABLE_BYTES:
        raise ResultsError(
            f"{where}: {name} claims {ds.size} rows ({common.size_text(claimed)}), more than a"
            f" results table holds ({common.size_text(MAX_TABLE_BYTES)})"
        )
    kinds = {}
    for k, kind in fields.items():
        kind, required = kind if isinstance(kind, tuple) else (kind, True)
        if k in ds.dtype.names:
            kinds[k] = kind
        elif required:
            raise ResultsError(f"{where}: {name} has no field {k}")
    arr = ds.fields(list(kinds))[()] if len(ds) else np.zeros(0, ds.dtype)
    enums = {}
    for k, kind in kinds.items():
        enums[k] = _check_field(arr[k], ds.dtype[k], kind, f"{where}: {name} field {k}")
    return arr, enums


def _check_field(col, dt, kind, where):
    import h5py

    if dt.shape:
        raise ResultsError(f"{where} is not {kind} (an array in every row)")
    members = None
    if kind == ENUM:
        members = h5py.check_enum_dtype(dt)
        if members is None:
            raise ResultsError(f"{where} is not an HDF5 enum")
        members = dict(sorted(members.items(), key=lambda kv: kv[1]))
        bad = ~np.isin(col, list(members.values()))
        names = ", ".join(f"{n}={v}" for n, v in members.items())
        _first_bad(col, bad, where, f"not a member of its enum ({names})")
        return members
    if kind == TEXT:
        if dt.kind != "S" and h5py.check_string_dtype(dt) is None:
            raise ResultsError(f"{where} is not text")
        return None
    if kind in (ID, POSITIVE, FLAG):
        if dt.kind not in "iu":
            raise ResultsError(f"{where} is not an integer field ({dt})")
        lo = 1 if kind == POSITIVE else 0
        bad = (col < lo) | (col > 1) if kind == FLAG else col < lo
    else:
        if dt.kind not in "iuf":
            raise ResultsError(f"{where} is not a number field ({dt})")
        v = col.astype(float)
        bad = np.isinf(v) | (v < 0) if kind == MAYBE else ~np.isfinite(v) | (v < 0)
    _first_bad(col, bad, where, f"not {kind}")
    return members


def _first_bad(col, bad, where, why):
    if bad.any():
        i = int(np.argmax(bad))
        raise ResultsError(f"{where}: row {i} holds {_short(col[i])}, {why}")


def _short(v):
    s = repr(v.item() if isinstance(v, np.generic) else v)
    return s if len(s) <= 60 else s[:57] + "..."


def summaries(runs):
    """The summaries of several Runs in one DataFrame (iosweep_load's shape)."""
    import pandas as pd

    frames = [r.summary for r in runs if len(r.summary)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


__all__ = ["Run", "read", "read_open", "ids", "open_file", "summaries", "NoSuchRun", "ResultsError"]
