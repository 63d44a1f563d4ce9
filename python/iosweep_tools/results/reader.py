"""One run of a results file, read and checked: how every command reads a results file.

    run = read("r.h5", run_id=None)                  # the latest run, every table
    run.summary["bandwidth_Bps"], run.phase_of_row(0), run.table("ranks"), run.attrs["argv"]
    run = read("r.h5", summary={"cpu_s": fields.FIGURE}, tables={})
    run.frame()                                      # the summary as a pandas DataFrame

The file is opened with file.open_results and the run picked with file.pick_run, the one place each
is done. Then everything a command reads is checked first (results.fields): the attributes of
BASE_ATTRS and `attrs` each of its kind (counts, finite figures, 0 or 1, text, lists), the phase
table iosweep's, every other floating-point attribute NaN or finite and at least 0; the summary a
one-dimensional table of at most MAX_TABLE_BYTES whose fields of SUMMARY and `summary` are there
and of their kind (enum values members of their enum), every other field a number (NaN or finite
and at least 0 when it is floating-point), an enum or text. With `tables` None every other table
the run has is read, one that cannot be used set aside with the reason in `run.problems` (a report
shows the rest and says why; an export refuses); with `tables` {name: {field: kind}} only those,
checked as the summary. Tables are numpy structured arrays, values as stored; a table only newer
files have (`mounts`, `wire`, `final_math`, `final_math_drives`) is absent, never an error.
Every problem raises ResultsError (NoSuchRun for a run the file does not list), one line naming
the file, the run, the table or attribute, the row and the value; nothing else escapes.
"""
import tomllib

from iosweep_tools.results import fields
from iosweep_tools.results.fields import ENUM, FIGURE, FLAG, ID, NUMBER, POSITIVE, TEXT
from iosweep_tools.results.file import ResultsError, open_results, pick_run, run_ids
from iosweep_tools.results.hdf5 import column, units_of, value
from iosweep_tools.results.names import (
    by_value,
    enum_members,
    is_control,
    is_metadata,
    is_random,
    phase_names,
    record_bytes,
    status_of,
    sweep_axis,
)

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
    "step": (ID, False),  # runs before steps have none: every row is step 0
}
# What the other tables must have, as numbers, to be used at all.
REQUIRED = {
    "ranks": ("point", "rank", "node", "elapsed_s"),
    "nodes": ("point", "node", "seconds"),
    "timeseries": ("point", "rank", "bin", "t_start_s", "bytes", "ops"),
    "rank_map": ("rank", "node"),
    "device": ("point", "node"),
    "rank_usage": ("rank",),
    "final_math": ("step", "point"),
    "final_math_drives": ("step", "point", "drive"),
}
# The tables a run may hold besides its summary; the last five only in newer files.
TABLES = ("rank_map", "ranks", "nodes", "timeseries", "device", "rank_usage", "mounts", "wire")
TABLES += ("plan", "final_math", "final_math_drives")
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
# The run attributes joined onto every row of a summary DataFrame (frames.load's summary).
JOINED = ("label", "file_size_bytes", "seq_record_bytes", "rand_record_bytes")
JOINED += ("scan_record_bytes", "direct", "iodepth", "fs_type", "world_size", "n_nodes")


# ------------------------------------------------------------------------------ reading


def read(path, run_id=None, summary=None, attrs=None, tables=None):
    """The Run `run_id` (the run appended last when None) of the results file at `path`, with
    the summary fields {name: kind} of SUMMARY and `summary`, the attributes {name: (kind,
    required)} of BASE_ATTRS and `attrs`, and every table (`tables` None) or the tables {table:
    {field: kind}} of `tables`."""
    with open_results(path) as f:
        rid, g = guarded(f"'{path}'", pick_run, f, run_id)
        where = f"'{path}' run {rid}"
        run = guarded(where, Run, path, rid, g, summary or {}, attrs or {}, tables)
        run.n_points = guarded(where, _n_points, f, rid)
        return run


def _n_points(f, rid):
    """The run_index's n_points of run `rid` (its summary rows written so far), or None."""
    idx = f["run_index"]
    if "n_points" not in (idx.dtype.names or ()) or idx.dtype["n_points"].kind not in "iu":
        return None
    return int(idx["n_points"][run_ids(f).index(rid)])


def guarded(where, fn, *args):
    """fn(*args), whatever h5py raises on a corrupted structure made a ResultsError naming
    `where`."""
    try:
        return fn(*args)
    except ResultsError:  # NoSuchRun included
        raise
    except Exception as e:  # h5py's reading of a corrupted structure
        raise ResultsError(f"{where} cannot be read ({type(e).__name__}: {e})") from None


# ------------------------------------------------------------------------------ the run


def _status(group, where):
    """The name of the run's status; ResultsError when its enum attribute holds a value that is
    not one of its members (a file written before the status was an enum: "status N")."""
    try:
        return status_of(group)
    except KeyError:
        if "status" not in group.attrs:
            return "status ?"
        members = enum_members(group.attrs.get_id("status").dtype)
        listed = ", ".join(f"{n}={v}" for n, v in members.items())
        raise ResultsError(
            f"{where}: attribute status holds {group.attrs['status']!r}, not a member of its"
            f" enum ({listed})"
        ) from None
    except (ValueError, TypeError):
        return f"status {value(group.attrs.get('status', '?'))}"


class Run:
    """One run: `id`, `path`, `attrs` (decoded: str, int, float, lists; those of BASE_ATTRS and
    the reader's `attrs` checked), `hosts`, `summary` and `tables` ({name: structured array} of
    the tables read), `units` ({table: {field: unit}}), `latency` ((lower, upper, counts) or
    None), `problems` ({table: why it was set aside}), `phase_names` ({value of the summary's
    phase enum: the phase's name, `rand-write`}, names.phase_names), `engine_names` ({value:
    name}), `status_name`, `phase_table` (by the phases' names) and `n_points`. Every phase is
    named by its name, as --phases takes it; the file's enum names are its stored identifiers."""

    def __init__(self, path, run_id, group, summary, attrs, tables):
        import h5py

        self.path, self.id = str(path), run_id
        where = f"'{path}' run {run_id}"
        if not isinstance(group, h5py.Group):
            raise ResultsError(f"'{path}': /runs/{run_id} is not a group")
        self.attrs = {k: value(v) for k, v in group.attrs.items()}
        self.attrs["run_id"] = run_id
        for name, (kind, required) in {**BASE_ATTRS, **attrs}.items():
            v = fields.check_attr(group, name, kind, required, where)
            if v is not None:
                self.attrs[name] = v
        fields.check_figure_attrs(group, where)
        self.phase_table = fields.check_phase_table(self.attrs, where)
        self.problems, self.tables, self.units = {}, {}, {}
        s, enums = fields.check_table(group, "summary", {**SUMMARY, **summary}, where)
        self.tables["summary"], self.units["summary"] = s, units_of(group["summary"])
        self.phase_names = phase_names(self.attrs, enums["phase"])
        self.engine_names = by_value(enums["engine"])
        every = tables is None
        self._read_tables(group, tables, where)
        self.status_name = _status(group, where)
        self.hosts = self._hosts(group) if every else []
        self.steps = self._steps(group, where)
        self.latency = self._latency(group) if every else None
        self.n_points = None  # read() sets it from the run_index

    def _read_tables(self, group, tables, where):
        """Every table the run has (`tables` None; one that cannot be used is set aside in
        `problems`), or those of `tables`, each checked."""
        every = tables is None
        for name, wanted in ({t: {} for t in TABLES} if every else tables).items():
            wanted, required = wanted if isinstance(wanted, tuple) else (wanted, True)
            if name not in group and (every or not required):
                continue
            if every:
                wanted = {f: NUMBER for f in REQUIRED.get(name, ())}
            try:
                self.tables[name] = fields.check_table(group, name, wanted, where)[0]
                self.units[name] = units_of(group[name])
            except (ResultsError, OSError, ValueError, TypeError, KeyError) as e:
                if not every:
                    raise
                why = str(e) if isinstance(e, ResultsError) else f"cannot be read ({e})"
                self.problems[name] = why.removeprefix(f"{where}: {name} ")

    def _steps(self, group, where):
        """The run's steps, in order: {name, attrs} per step (the steps group's, each step's
        attributes decoded; the run's own attributes for a run without the group, which is one
        unnamed step)."""
        import h5py

        g = group.get("steps")
        if g is None:
            return [{"name": "", "attrs": self.attrs}]
        if not isinstance(g, h5py.Group) or len(g) > fields.MAX_LIST:
            raise ResultsError(f"{where}: steps is not a group of steps")
        out = []
        for i in range(len(g)):
            s = g.get(str(i))
            if not isinstance(s, h5py.Group):
                raise ResultsError(f"{where}: steps/{i} is not a step")
            attrs = {k: value(v) for k, v in s.attrs.items()}
            fields.check_figure_attrs(s, f"{where} step {i}")
            name = fields.check_attr(s, "name", TEXT, True, f"{where} step {i}")
            out.append({"name": name, "attrs": {**self.attrs, **attrs}})
        return out

    def step_of_row(self, i):
        """The step of summary row i (0 in files without steps)."""
        s = self.summary
        return int(s["step"][i]) if "step" in s.dtype.names else 0

    def phase_label(self, i):
        """Summary row i's phase as a reader tells the rows apart: `md-create`, or in a run of
        several steps `md-4k/md-create` (its step's name before it), so that a phase two steps
        ran is never read as one series."""
        phase = self.phase_of_row(i)
        step = self.step_name(self.step_of_row(i)) if len(self.steps) > 1 else ""
        return f"{step}/{phase}" if step else phase

    def labels_present(self):
        """Every phase_label of the summary, in the order the rows have them."""
        out = []
        for i in range(len(self.summary)):
            if (label := self.phase_label(i)) not in out:
                out.append(label)
        return out

    def step_name(self, step):
        """The name of step `step` ("" for a run of one shape)."""
        step = int(step)
        return self.steps[step]["name"] if 0 <= step < len(self.steps) else f"step {step}"

    def _hosts(self, group):
        import h5py

        ds = group.get("hosts")
        if ds is None:
            return []
        if not isinstance(ds, h5py.Dataset) or ds.ndim != 1 or ds.size > fields.MAX_LIST:
            self.problems["hosts"] = "not a list of host names"
            return []
        try:
            return [str(value(h)) for h in ds[()]]
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
        elif counts.size * counts.dtype.itemsize > fields.MAX_TABLE_BYTES:
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
        """ "streams" or "ranks": what the run's points count (names.sweep_axis)."""
        a = sweep_axis(self.attrs)
        return a if a in self.summary.dtype.names else "ranks"

    def flags(self, phase):
        row = self.phase_table.get(phase)
        if isinstance(row, dict):
            return set(filter(None, str(row.get("flags", "")).split(",")))
        out = set()
        if is_random(phase):
            out.add("random")
        if phase in ("seq-write", "rand-write"):
            out.add("writes")
        if is_control(phase):
            out.add("control")
        if is_metadata(phase):
            out.add("metadata")
        return out

    def is_random(self, phase):
        return "random" in self.flags(phase)

    def is_metadata(self, phase):
        return "metadata" in self.flags(phase)

    def in_ops(self, phase):
        """Whether a phase's headline is operations per second (random and metadata phases)."""
        return bool({"random", "metadata"} & self.flags(phase))

    def writes(self, phase):
        return "writes" in self.flags(phase)

    def headline(self, phase):
        """(summary field, unit text) of a phase's headline figure: IOPS for random phases,
        operations per second for metadata phases (every rank's operations over the slowest
        rank's window), bandwidth for the others."""
        return ("iops", "ops/s") if self.in_ops(phase) else ("bandwidth_Bps", "bytes/s")

    def config(self):
        """The run's configuration (`config`, TOML) as a dict; {} when absent or unreadable."""
        try:
            return tomllib.loads(str(self.attrs.get("config") or ""))
        except tomllib.TOMLDecodeError:
            return {}

    def frame(self):
        """The summary as a pandas DataFrame, as frames.load's summary: run_id, the stored fields
        with phase_name and engine_name decoded, the JOINED attributes and status_name where a
        row has no field of that name, and record_bytes, the record size of the row's phase."""
        import pandas as pd  # only once everything is checked: a refusal does not wait for it

        s = self.summary
        df = pd.DataFrame({k: column(s[k]) for k in s.dtype.names})
        df.insert(0, "run_id", self.id)
        df.insert(2, "phase_name", [self.phase_names[int(v)] for v in s["phase"]])
        df["engine_name"] = [self.engine_names[int(e)] for e in s["engine"]]
        if "step" not in df.columns:
            df["step"] = 0
        steps = [int(v) for v in df["step"]]
        df.insert(3, "step_name", [self.step_name(v) for v in steps])
        # A row's settings are its step's (each step records its own options).
        attrs = [self.steps[v]["attrs"] if v < len(self.steps) else self.attrs for v in steps]
        for k in JOINED:
            if k not in df.columns:  # a row's own figure (iodepth per point) stays
                df[k] = [a.get(k) for a in attrs]
        df["status_name"] = self.status_name
        df["record_bytes"] = [record_bytes(a, p) for a, p in zip(attrs, df["phase_name"])]
        return df
