"""One run of a results file, read and checked: how every script reads a results file.

    import iosweep_run
    run = iosweep_run.read("r.h5", run_id=None)               # the latest run, every table
    run.summary["bandwidth_Bps"], run.phase_of_row(0), run.table("ranks"), run.attrs["argv"]
    run = iosweep_run.read("r.h5", summary={"cpu_s": iosweep_run.FIGURE}, tables={})
    run.frame(), iosweep_run.summaries(runs)                  # pandas, as iosweep_load's
    iosweep_run.ids("r.h5"), iosweep_run.read_all("r.h5")

The file is opened with iosweep_common.open_results and the run picked with pick_run, the one
place each is done. Then everything a script reads is checked first: the attributes of
BASE_ATTRS and `attrs` each of its kind (counts, finite figures, 0 or 1, text, lists), the
phase table iosweep's; the summary a one-dimensional table of at most MAX_TABLE_BYTES whose
fields of SUMMARY and `summary` are there and of their kind (enum values members of their
enum), every other field a number, an enum or text. With `tables` None every other table the
run has is read, one that cannot be used set aside with the reason in `run.problems` (a report
still shows the rest); with `tables` {name: {field: kind}} only those, checked as the summary.
Tables are numpy structured arrays, values as stored; a table only newer files have (`mounts`,
`wire`) is absent, never an error. Every problem raises iosweep_iosweep_run.ResultsError (NoSuchRun
for a run the file does not list), one line naming the file, the run, the table or attribute,
the row and the value; nothing else escapes.
"""
import warnings

import numpy as np

import iosweep_common as common
from iosweep_common import NoSuchRun, ResultsError  # noqa: F401 (what the scripts catch)

MAX_TABLE_BYTES = 256 << 20  # far above any run's table (a summary row is 472 bytes)
MAX_LIST = 1 << 20  # entries of a list attribute (points) or of the hosts

# Kinds of fields and attributes; one given as (kind, False) is checked when it is there.
ID = "a count (an integer of at least 0)"
POSITIVE = "a positive integer"
FLAG = "0 or 1"
FIGURE = "a finite number of at least 0"
MAYBE = "a number of at least 0 or NaN"
NUMBER = "a number"
ENUM = "a member of its enum"
TEXT = "text"
COUNTS = "a list of positive integers"

# The summary fields every reader checks: those every run has, then those of newer runs.
SUMMARY = {
    "point": ID,
    "phase": ENUM,
    "engine": ENUM,
    "ranks": POSITIVE,
    "repetition": ID,
    "bytes": ID,
    "ops": ID,
    "wall_s": FIGURE,
    "bandwidth_Bps": FIGURE,
    "iops": FIGURE,
    "nodes": (POSITIVE, False),
    "iodepth": (POSITIVE, False),
    "streams": (POSITIVE, False),  # runs before --streams have no streams field
}
# What the other tables must have, as numbers, to be used at all.
REQUIRED = {
    "ranks": ("point", "rank", "node", "elapsed_s"),
    "nodes": ("point", "node", "seconds"),
    "timeseries": ("point", "rank", "bin", "t_start_s", "bytes", "ops"),
    "rank_map": ("rank", "node"),
    "device": ("point", "node"),
    "rank_usage": ("rank",),
}
# The tables a run may hold besides its summary; the last two only in newer files.
TABLES = ("rank_map", "ranks", "nodes", "timeseries", "device", "rank_usage", "mounts", "wire")
# Attributes every reader checks: those a run's description and its record sizes need. Required
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
    "repetitions": (POSITIVE, False),
    "fs_type": (TEXT, False),
    "file_layout": (TEXT, False),
    "sweep_axis": (TEXT, False),
    "phase_table": (TEXT, False),
    "config": (TEXT, False),
    "timeseries_bin_s": (FIGURE, False),
}
# The run attributes joined onto every row of a summary DataFrame (iosweep_load's summary).
JOINED = ("label", "file_size_bytes", "seq_record_bytes", "rand_record_bytes")
JOINED += ("scan_record_bytes", "direct", "iodepth", "fs_type", "world_size", "n_nodes")


# ------------------------------------------------------------------------------ reading


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


def is_results(path):
    """True when `path` is a regular file that open_results accepts."""
    try:
        open_file(path).close()
        return True
    except ResultsError:
        return False


def ids(path):
    """The run ids of the results file at `path`, in the order they were appended."""
    with open_file(path) as f:
        return _guarded(f"'{path}'", common.run_ids, f)


def read(path, run_id=None, summary=None, attrs=None, tables=None):
    """The Run `run_id` (the run appended last when None) of the results file at `path`, with
    the summary fields {name: kind} of SUMMARY and `summary`, the attributes {name: (kind,
    required)} of BASE_ATTRS and `attrs`, and every table (`tables` None) or the tables {table:
    {field: kind}} of `tables`."""
    with open_file(path) as f:
        rid, g = _guarded(f"'{path}'", common.pick_run, f, run_id)
        where = f"'{path}' run {rid}"
        run = _guarded(where, Run, path, rid, g, summary or {}, attrs or {}, tables)
        run.n_points = _guarded(where, _n_points, f, rid)
        return run


def read_all(path, run_ids=None, **what):
    """Every run of the file (or those of `run_ids`), in the order of its run_index."""
    every = ids(path)
    if not every:
        raise ResultsError(f"'{path}' holds no runs")
    return [read(path, r, **what) for r in (every if run_ids is None else run_ids)]


def summaries(runs):
    """The summaries of several Runs in one DataFrame (Run.frame, run after run)."""
    import pandas as pd

    frames = [r.frame() for r in runs if len(r.summary)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _n_points(f, rid):
    """The run_index's n_points of run `rid` (its summary rows written so far), or None."""
    idx = f["run_index"]
    if "n_points" not in (idx.dtype.names or ()) or idx.dtype["n_points"].kind not in "iu":
        return None
    return int(idx["n_points"][common.run_ids(f).index(rid)])


def _guarded(where, fn, *args):
    try:
        return fn(*args)
    except ResultsError:  # NoSuchRun included
        raise
    except Exception as e:  # h5py's reading of a corrupted structure
        raise ResultsError(f"{where} cannot be read ({type(e).__name__}: {e})") from None


# ------------------------------------------------------------------------------ the run


class Run:
    """One run: `id`, `path`, `attrs` (decoded: str, int, float, lists; those of BASE_ATTRS and
    the reader's `attrs` checked), `hosts`, `summary` and `tables` ({name: structured array} of
    the tables read), `units` ({table: {field: unit}}), `latency` ((lower, upper, counts) or
    None), `problems` ({table: why it was set aside}), `phase_names` and `engine_names` ({value:
    name} of the summary's enums), `status_name`, `phase_table` and `n_points`."""

    def __init__(self, path, run_id, group, summary, attrs, tables):
        import h5py

        self.path, self.id = str(path), run_id
        where = f"'{path}' run {run_id}"
        if not isinstance(group, h5py.Group):
            raise ResultsError(f"'{path}': /runs/{run_id} is not a group")
        self.attrs = {k: _value(v) for k, v in group.attrs.items()}
        self.attrs["run_id"] = run_id
        for name, (kind, required) in {**BASE_ATTRS, **attrs}.items():
            v = _attr(group, name, kind, required, where)
            if v is not None:
                self.attrs[name] = v
        self.phase_table = _phase_table(self.attrs, where)
        self.problems, self.tables, self.units = {}, {}, {}
        s, enums = _table(group, "summary", {**SUMMARY, **summary}, where)
        self.tables["summary"], self.units["summary"] = s, _units(group["summary"])
        self.phase_names = common.by_value(enums["phase"])
        self.engine_names = common.by_value(enums["engine"])
        every = tables is None
        for name, fields in ({t: {} for t in TABLES} if every else tables).items():
            fields, required = fields if isinstance(fields, tuple) else (fields, True)
            if name not in group and (every or not required):
                continue
            if every:
                fields = {f: NUMBER for f in REQUIRED.get(name, ())}
            try:
                self.tables[name] = _table(group, name, fields, where)[0]
                self.units[name] = _units(group[name])
            except (ResultsError, OSError, ValueError, TypeError, KeyError) as e:
                if not every:
                    raise
                why = str(e) if isinstance(e, ResultsError) else f"cannot be read ({e})"
                self.problems[name] = why.removeprefix(f"{where}: {name} ")
        try:
            self.status_name = common.status_of(group)
        except (KeyError, ValueError, TypeError):
            self.status_name = f"status {self.attrs.get('status', '?')}"
        self.hosts = self._hosts(group) if every else []
        self.latency = self._latency(group) if every else None
        self.n_points = None  # read() sets it from the run_index

    def _hosts(self, group):
        import h5py

        ds = group.get("hosts")
        if ds is None:
            return []
        if not isinstance(ds, h5py.Dataset) or ds.ndim != 1 or ds.size > MAX_LIST:
            self.problems["hosts"] = "not a list of host names"
            return []
        try:
            return [str(_value(h)) for h in ds[()]]
        except (OSError, ValueError, TypeError):
            self.problems["hosts"] = "cannot be read"
            return []

    def _latency(self, group):
        import h5py

        g = group.get("latency")
        if g is None:
            return None
        names = ("bucket_lower_ns", "bucket_upper_ns", "counts")
        ds = [g.get(k) if isinstance(g, h5py.Group) else None for k in names]
        if not all(isinstance(d, h5py.Dataset) and d.dtype.kind in "iuf" for d in ds):
            self.problems["latency"] = "not bucket_lower_ns, bucket_upper_ns and counts as numbers"
            return None
        lower, upper, counts = ds
        shaped = (lower.ndim, counts.ndim) == (1, 2) and lower.shape == upper.shape
        if not shaped or counts.shape[1:] != lower.shape:
            self.problems["latency"] = "counts are not one row of every bucket per point"
        elif counts.size * counts.dtype.itemsize > MAX_TABLE_BYTES:
            self.problems["latency"] = "larger than this script reads"
        else:
            return lower[()], upper[()], counts[()]
        return None

    # --------------------------------------------------------------------- what it holds

    @property
    def summary(self):
        return self.tables["summary"]

    def table(self, name):
        return self.tables.get(name)

    def phase_of_row(self, i):
        return self.phase_names[int(self.summary["phase"][i])]

    def phases_present(self):
        """The phases of the summary, in the order of the phase enum's values."""
        seen = {int(v) for v in self.summary["phase"]}
        return [self.phase_names[v] for v in sorted(seen)]

    def host(self, node):
        node = int(node)
        return self.hosts[node] if 0 <= node < len(self.hosts) else f"node {node}"

    def axis(self):
        """ "streams" or "ranks": what the run's points count (iosweep_common.sweep_axis)."""
        a = common.sweep_axis(self.attrs)
        return a if a in self.summary.dtype.names else "ranks"

    def flags(self, phase):
        row = self.phase_table.get(phase)
        if isinstance(row, dict):
            return set(filter(None, str(row.get("flags", "")).split(",")))
        out = set()
        if common.is_random(phase):
            out.add("random")
        if phase in ("seq_write", "rand_write"):
            out.add("writes")
        if common.is_control(phase):
            out.add("control")
        return out

    def is_random(self, phase):
        return "random" in self.flags(phase)

    def writes(self, phase):
        return "writes" in self.flags(phase)

    def headline(self, phase):
        """(summary field, unit text) of a phase's headline figure: IOPS for random phases,
        bandwidth for the others."""
        return ("iops", "ops/s") if self.is_random(phase) else ("bandwidth_Bps", "bytes/s")

    def config(self):
        """The run's configuration (`config`, TOML) as a dict; {} when absent or unreadable."""
        import tomllib

        try:
            return tomllib.loads(str(self.attrs.get("config") or ""))
        except tomllib.TOMLDecodeError:
            return {}

    def frame(self):
        """The summary as a pandas DataFrame, as iosweep_load's summary: run_id, the stored
        fields with phase_name and engine_name decoded, the JOINED attributes and status_name
        where a row has no field of that name, and record_bytes, the record size of the row's
        phase."""
        import pandas as pd  # only once everything is checked: a refusal does not wait for it

        s = self.summary
        df = pd.DataFrame({k: column(s[k]) for k in s.dtype.names})
        df.insert(0, "run_id", self.id)
        df.insert(2, "phase_name", [self.phase_names[int(v)] for v in s["phase"]])
        df["engine_name"] = [self.engine_names[int(e)] for e in s["engine"]]
        for k in JOINED:
            if k not in df.columns:  # a row's own figure (iodepth per point) stays
                df[k] = self.attrs.get(k)
        df["status_name"] = self.status_name
        df["record_bytes"] = [common.record_bytes(self.attrs, p) for p in df["phase_name"]]
        return df


def _units(ds):
    """{field: unit} from a table's `<field>.unit` attributes."""
    return {k[: -len(".unit")]: _value(v) for k, v in ds.attrs.items() if k.endswith(".unit")}


def _value(v):
    if isinstance(v, bytes):
        return v.decode(errors="replace")
    if isinstance(v, np.ndarray):
        return [_value(x) for x in v.tolist()]
    if isinstance(v, np.generic):
        return v.item()
    return v


def column(col):
    """A table's field as stored, text fields decoded to str."""
    return [_value(x) for x in col] if col.dtype.kind in "SO" else col


# ------------------------------------------------------------------------------- checks


def _attr(g, name, kind, required, where):
    if name not in g.attrs:
        if required:
            raise ResultsError(f"{where} has no attribute {name}")
        return None
    v = g.attrs[name]
    bad = ResultsError(f"{where}: attribute {name} is not {kind} (found {_short(v)})")
    if kind == TEXT:
        if isinstance(v, bytes):
            v = v.decode(errors="replace")
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


def _phase_table(a, where):
    """The phase table a run recorded (iosweep_common.phase_table); when it parses it must be
    iosweep's: every row a table with a record kind of seq, rand or scan and flags as text."""
    table = common.phase_table(a)
    for phase, row in table.items():
        if (
            not isinstance(row, dict)
            or row.get("record") not in ("seq", "rand", "scan")
            or not isinstance(row.get("flags", ""), str)
        ):
            raise ResultsError(
                f"{where}: attribute phase_table is not iosweep's phase table (row {phase})"
            )
    return table


def _table(g, name, fields, where):
    """(table `name` as a numpy array, {enum field: members}), every value of `fields` ({field:
    kind}) checked and every other field a number, an enum or text."""
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
    arr = ds[()] if len(ds) else np.zeros(0, ds.dtype)
    enums = {}
    for k in ds.dtype.names:
        enums[k] = _check_field(arr[k], ds.dtype[k], kinds.get(k), f"{where}: {name} field {k}")
    return arr, enums


def _check_field(col, dt, kind, where):
    """Raises unless every value of `col` (of HDF5 type `dt`) is of `kind`; None for a field no
    script named: a number, an enum or text. Returns the members of an enum field."""
    import h5py

    if dt.shape:
        raise ResultsError(f"{where} is not {kind or 'one value'} (an array in every row)")
    members = h5py.check_enum_dtype(dt)
    if members is not None:
        members = dict(sorted(members.items(), key=lambda kv: kv[1]))
    if kind is None:
        if dt.kind not in "iufS" and h5py.check_string_dtype(dt) is None:
            raise ResultsError(f"{where} is not a number, an enum or text ({dt})")
        return members
    if kind == ENUM:
        if members is None:
            raise ResultsError(f"{where} is not an HDF5 enum")
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
        if kind == NUMBER:
            bad = np.zeros(len(v), bool)
        else:
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
