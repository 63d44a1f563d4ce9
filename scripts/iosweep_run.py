"""One run of a results file read whole into memory, checked, for the report, the run-against-run
comparison and the exports (iosweep_report, iosweep_runcompare, iosweep_export).

    import iosweep_run
    run = iosweep_run.read("results/iosweep.h5", run_id=None)   # the latest run
    run.summary["bandwidth_Bps"], run.phase_of_row(0), run.table("ranks"), run.attrs["argv"]

Tables are the numpy structured arrays h5py returns, values exactly as stored: a script that
shows a figure shows one of these. What a file does not have (a table written by a newer
iosweep only, such as `mounts` or `wire`; timeseries latency) is None or absent, never an
error; what a file has in a shape this reader cannot use raises ResultsError (one line naming
the file, the run and the field) for the summary, and is set aside with the reason in
`run.problems` for the other tables, so that a report still shows the rest.

Bounded work: a table larger than MAX_TABLE_BYTES in memory is refused before it is read.
"""
import numpy as np

import iosweep_common as common
from iosweep_common import ResultsError

MAX_TABLE_BYTES = 1 << 30

# Fields each table must have, as numbers, for the scripts to use it.
REQUIRED = {
    "summary": ("point", "phase", "ranks", "repetition", "bytes", "ops", "wall_s"),
    "ranks": ("point", "rank", "node", "elapsed_s"),
    "nodes": ("point", "node", "seconds"),
    "timeseries": ("point", "rank", "bin", "t_start_s", "bytes", "ops"),
    "rank_map": ("rank", "node"),
    "device": ("point", "node"),
    "rank_usage": ("rank",),
}
# Tables a run may hold; the last two only in files of newer iosweep versions.
TABLES = ("rank_map", "summary", "ranks", "nodes", "timeseries", "device", "rank_usage")
OPTIONAL_TABLES = ("mounts", "wire")


def _value(v):
    if isinstance(v, bytes):
        return v.decode(errors="replace")
    if isinstance(v, np.ndarray):
        return [_value(x) for x in v.tolist()]
    if isinstance(v, np.generic):
        return v.item()
    return v


def _read_table(g, name, problems):
    """The structured array of table `name`, or None (absent, or set aside in `problems`)."""
    if name not in g:
        return None
    ds = g[name]
    import h5py

    if not isinstance(ds, h5py.Dataset) or ds.dtype.names is None or ds.ndim != 1:
        problems[name] = "not a one-dimensional table of named fields"
        return None
    if ds.shape[0] * ds.dtype.itemsize > MAX_TABLE_BYTES:
        problems[name] = f"{ds.shape[0]} rows: larger than this script reads"
        return None
    for field in REQUIRED.get(name, ()):
        if field not in ds.dtype.names:
            problems[name] = f"has no field '{field}'"
            return None
        kind = ds.dtype[field].kind
        if kind not in "iuf" and h5py.check_enum_dtype(ds.dtype[field]) is None:
            problems[name] = f"field '{field}' is not a number ({ds.dtype[field]})"
            return None
    try:
        return ds[()]
    except (OSError, ValueError, TypeError) as e:
        problems[name] = f"cannot be read ({e})"
        return None


def units_of(ds):
    """{field: unit} from a table's `<field>.unit` attributes."""
    out = {}
    for k, v in ds.attrs.items():
        if k.endswith(".unit"):
            out[k[: -len(".unit")]] = _value(v)
    return out


class Run:
    """One run: `id`, `path`, `attrs` (decoded: str, int, float, lists), `hosts`, `tables`
    ({name: structured array} of the tables the run has and this reader can use), `units`
    ({table: {field: unit}}), `latency` ((lower, upper, counts) or None), `problems` ({table:
    why it was set aside}), the phase and engine enums ({value: name})."""

    def __init__(self, path, run_id, group):
        self.path, self.id = str(path), run_id
        shown = f"'{path}' run {run_id}"
        self.attrs = {k: _value(v) for k, v in group.attrs.items()}
        self.problems, self.tables, self.units = {}, {}, {}
        for name in TABLES + OPTIONAL_TABLES:
            t = _read_table(group, name, self.problems)
            if t is not None:
                self.tables[name] = t
                self.units[name] = units_of(group[name])
        if "summary" in self.problems:
            raise ResultsError(f"{shown}: summary {self.problems['summary']}")
        if "summary" not in self.tables:
            raise ResultsError(f"{shown} has no summary table")
        s = self.tables["summary"]
        try:
            self.phase_names = common.by_value(common.enum_members(s.dtype, "phase"))
        except ValueError:
            raise ResultsError(f"{shown}: summary field 'phase' is not an HDF5 enum") from None
        try:
            self.engine_names = common.by_value(common.enum_members(s.dtype, "engine"))
        except (ValueError, KeyError):
            self.engine_names = {}
        for i, v in enumerate(s["phase"]):
            if int(v) not in self.phase_names:
                raise ResultsError(
                    f"{shown}: summary row {i}: phase value {int(v)} is not in the file's phase"
                    f" enum ({', '.join(f'{n}={k}' for k, n in self.phase_names.items())})"
                )
        try:
            self.status_name = common.status_of(group)
        except (KeyError, ValueError, TypeError):
            self.status_name = f"status {self.attrs.get('status', '?')}"
        self.hosts = []
        if "hosts" in group:
            try:
                self.hosts = [str(_value(h)) for h in group["hosts"][()]]
            except (OSError, ValueError, TypeError):
                self.problems["hosts"] = "cannot be read"
        self.latency = self._latency(group)
        self.phase_table = common.phase_table(self.attrs)

    def _latency(self, group):
        import h5py

        g = group.get("latency")
        if g is None:
            return None
        if not isinstance(g, h5py.Group) or not all(
            k in g and isinstance(g[k], h5py.Dataset) and g[k].dtype.kind in "iuf"
            for k in ("bucket_lower_ns", "bucket_upper_ns", "counts")
        ):
            self.problems["latency"] = "not bucket_lower_ns, bucket_upper_ns and counts as numbers"
            return None
        lower, upper, counts = g["bucket_lower_ns"], g["bucket_upper_ns"], g["counts"]
        if (
            lower.ndim != 1
            or lower.shape != upper.shape
            or counts.ndim != 2
            or counts.shape[1] != lower.shape[0]
        ):
            self.problems["latency"] = "counts are not one row of every bucket per point"
            return None
        if counts.size * counts.dtype.itemsize > MAX_TABLE_BYTES:
            self.problems["latency"] = "larger than this script reads"
            return None
        return lower[()], upper[()], counts[()]

    # ------------------------------------------------------------------ helpers

    @property
    def summary(self):
        return self.tables["summary"]

    def table(self, name):
        return self.tables.get(name)

    def phase_of_row(self, i):
        return self.phase_names[int(self.summary["phase"][i])]

    def phase_names_in_rows(self):
        return [self.phase_names[int(v)] for v in self.summary["phase"]]

    def phases_present(self):
        """The phases of the summary, in the order of the phase enum's values."""
        seen = {int(v) for v in self.summary["phase"]}
        return [self.phase_names[v] for v in sorted(seen)]

    def field(self, i, name, table="summary"):
        t = self.tables.get(table)
        if t is None or name not in t.dtype.names:
            return None
        return t[name][i]

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

    def is_control(self, phase):
        return "control" in self.flags(phase)

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


def read(path, run_id=None):
    """The Run `run_id` (the latest when None) of the results file at `path`. Raises
    ResultsError (NoSuchRun for a run the file does not list)."""
    with common.open_results(path) as f:
        rid, group = common.pick_run(f, run_id)
        import h5py

        if not isinstance(group, h5py.Group):
            raise ResultsError(f"'{path}': /runs/{rid} is not a group")
        try:
            return Run(path, rid, group)
        except (KeyError, ValueError, TypeError, OSError, IndexError) as e:
            raise ResultsError(
                f"'{path}' run {rid} cannot be read ({type(e).__name__}: {e})"
            ) from None


def read_all(path, run_ids=None):
    """Every run of the file (or those of `run_ids`), in the order of its run_index."""
    with common.open_results(path) as f:
        ids = common.run_ids(f)
    if not ids:
        raise ResultsError(f"'{path}' holds no runs")
    return [read(path, r) for r in (ids if run_ids is None else run_ids)]
