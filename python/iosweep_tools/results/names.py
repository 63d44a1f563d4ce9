"""Names of phases, engines and statuses, as the results file stores them, and what a run's phase
table says of each phase.

    phases("results/iosweep.h5")             # {"seq_write": 0, ...}: the stored identifiers
    phase_names(run_attrs, {"rand_write": 2})  # {2: "rand-write"}: the phases' names
    enum_members(ds.dtype, "phase"), by_value({"a": 0})   # {name: value}; {0: "a"}
    record_bytes(run_attrs, "rand-read")     # the record size a run's phase used
    is_metadata("md-stat", run_attrs)        # a metadata phase (ops/s, no records)
    sweep_axis(run_attrs)                    # "streams" for a run of --streams

Phase, engine and status names come from the HDF5 enum types stored in the results file, so a
phase or an engine added to iosweep shows up here without any list to edit. A phase has two:
its enum name (`rand_write`), the identifier the file stores, and its name (`rand-write`), the
one `--phases` takes and the console prints, which every command shows and the import API
(Run, frames) uses: phase_names maps one to the other through the run's phase table (the `name`
of its row; `_` made `-` for a file without one). `run_attrs` is a mapping of run attributes:
an h5py group's attrs, Run.attrs, or a row of frames.load's runs.
"""
import os
import tomllib

from iosweep_tools.results.file import open_results
from iosweep_tools.results.hdf5 import text


def enum_members(dtype, field=None):
    """{name: value}, by value, of an HDF5 enum type (or of the enum `field` of a compound type),
    as h5py stores it with the dtype of a dataset or an attribute."""
    import h5py

    if field is not None:
        dtype = dtype[field]
    members = h5py.check_enum_dtype(dtype)
    if members is None:
        raise ValueError(f"{field or dtype} is not an HDF5 enum")
    return dict(sorted(members.items(), key=lambda kv: kv[1]))


def by_value(members):
    """{value: name} from {name: value}."""
    return {v: k for k, v in members.items()}


def _summary_enum(where, field):
    """The members of `field` of the summary tables in `where`: a results file (path or open),
    whose runs' enums are merged, or one run group."""
    if isinstance(where, (str, os.PathLike)):
        with open_results(where) as f:
            return _summary_enum(f, field)
    if "summary" in where:
        return enum_members(where["summary"].dtype, field)
    merged = {}
    for g in where["runs"].values() if "runs" in where else []:
        merged.update(enum_members(g["summary"].dtype, field))
    return dict(sorted(merged.items(), key=lambda kv: kv[1]))


def phases(where):
    """{phase name: value}, by value, from the phase enum of a results file or a run group."""
    return _summary_enum(where, "phase")


def engines(where):
    """{engine name: value}, by value, from the engine enum of a results file or a run group."""
    return _summary_enum(where, "engine")


def status_of(group):
    """The name of a run group's status (running, complete, aborted), from its attribute's enum."""
    return by_value(enum_members(group.attrs.get_id("status").dtype))[int(group.attrs["status"])]


def stored_table(run):
    """The phase table a run recorded (its `phase_table` attribute, TOML) as stored: {enum name:
    {id, name, record, flags, control_for}}; {} for files written before iosweep recorded it."""
    table = run.get("phase_table") if run is not None and hasattr(run, "get") else None
    if isinstance(table, bytes):
        table = table.decode()
    if not isinstance(table, str) or not table:
        return {}
    try:
        return tomllib.loads(table)
    except tomllib.TOMLDecodeError:
        return {}


def name_of(enum_name, table=None):
    """A phase's name from its enum name: the `name` of its row of a stored phase table, else
    the enum name with `_` made `-` (iosweep's names are its enum names so spelled)."""
    row = (table or {}).get(enum_name)
    if isinstance(row, dict) and isinstance(row.get("name"), str) and row["name"]:
        return row["name"]
    return str(enum_name).replace("_", "-")


def phase_table(run):
    """The phase table a run recorded, by the phases' names: {name: {id, name, enum_name, record,
    flags, control_for (a name)}}; {} for files written before iosweep recorded it."""
    table = stored_table(run)
    out = {}
    for key, row in table.items():
        if isinstance(row, dict):
            row = dict(row, enum_name=key)
            if isinstance(row.get("control_for"), str):
                row["control_for"] = name_of(row["control_for"], table)
        out[name_of(key, table)] = row
    return out


def phase_names(run, members):
    """{value: the phase's name} of a phase enum's members {enum name: value}, through the phase
    table of `run` (run attributes)."""
    table = stored_table(run)
    return {v: name_of(k, table) for k, v in members.items()}


def _flags(phase, run):
    row = phase_table(run).get(phase)
    return None if row is None else set(filter(None, row.get("flags", "").split(",")))


def _named(phase, prefix):
    """Whether a phase's name (or enum name) starts with `prefix` and a separator."""
    return phase.startswith((prefix + "-", prefix + "_"))


def is_random(phase, run=None):
    """Random phases are measured in IOPS, the others in bandwidth (the run's phase table when
    it recorded one; rand-* otherwise)."""
    flags = _flags(phase, run)
    return "random" in flags if flags is not None else _named(phase, "rand")


def is_metadata(phase, run=None):
    """Metadata phases (md-mkdir .. md-rmdir) count operations on folders and items, in ops/s:
    the flag `metadata` of the run's phase table when it recorded one; md-* otherwise."""
    flags = _flags(phase, run)
    return "metadata" in flags if flags is not None else _named(phase, "md")


def in_ops(phase, run=None):
    """A phase whose headline is operations per second (iops): random and metadata phases;
    the others are measured in bandwidth."""
    return is_random(phase, run) or is_metadata(phase, run)


# What older results files do not record (newer ones carry their phase table): the phases that
# read in scan records (--scan-record), and the control phases with the phase each is the
# baseline of. A phase not named here reads or writes in sequential records (--seq-record)
# unless it is random (--rand-record).
SCAN_PHASES = ("filter-count", "scan-only")
CONTROL_OF = {"scan-only": "filter-count"}


def is_control(phase, run=None):
    """A control phase (scan-only) measures another phase's baseline: it has no counterpart in
    other tools and is not drawn or compared unless asked."""
    flags = _flags(phase, run)
    return "control" in flags if flags is not None else name_of(phase) in CONTROL_OF


RECORD_ATTRS = {"seq": "seq_record_bytes", "rand": "rand_record_bytes", "scan": "scan_record_bytes"}


def record_attr(phase, run=None):
    """The run attribute holding the record size `phase` used; None for a phase without records
    (record kind `none`: the metadata phases, whose bytes per item are md_write_bytes and
    md_read_bytes)."""
    row = phase_table(run).get(phase)
    if row is not None:
        return RECORD_ATTRS.get(row.get("record"))
    if is_metadata(phase):
        return None
    if is_random(phase):
        return "rand_record_bytes"
    return "scan_record_bytes" if name_of(phase) in SCAN_PHASES else "seq_record_bytes"


def record_bytes(run, phase):
    """The record size, in bytes, that `phase` used in a run (a mapping of run attributes); None
    when the run does not say."""
    attr = record_attr(phase, run)
    v = run.get(attr) if attr is not None and hasattr(run, "get") else None
    try:
        v = int(v)
    except (TypeError, ValueError):
        return None
    return v if v > 0 else None


def sweep_axis(run):
    """The summary column that counts a run's points as other tools count threads: "streams" for
    a run of --streams (each point s streams = active ranks x depth), else "ranks"."""
    v = run.get("sweep_axis") if run is not None and hasattr(run, "get") else None
    return "streams" if text(v) == "streams" else "ranks"
