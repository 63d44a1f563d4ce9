"""The kinds of values a results file holds and their checks: every attribute and table field a
command reads is checked to be of its kind before it is used.

    check_attr(group, "world_size", POSITIVE, True, where)   # the value, or ResultsError
    check_table(group, "summary", {"iops": FIGURE}, where)  # (numpy array, {field: members})

Every problem raises ResultsError, one line naming the table or attribute, the row and the
value. A floating-point field or attribute no command names is a figure all the same: NaN (what
iosweep could not measure) or a finite number of at least 0 (iosweep never stores infinities
or negative figures); every formatter downstream relies on it. Likewise every enumerated field,
named or not, holds one of its values: a field of an HDF5 enum type (phase, engine, status) a
member of the file's own enum, a field whose unit is `bool` 0 or 1, and a field of ENUMERATED
(enumerations the file stores as plain integers) one of the values results/README.md gives it.
"""
import numpy as np

from iosweep_tools.results.file import ResultsError
from iosweep_tools.results.names import phase_table
from iosweep_tools.core.text import size_text

MAX_TABLE_BYTES = 256 << 20  # far above any run's table (a summary row is 472 bytes)
MAX_LIST = 1 << 20  # entries of a list attribute (points) or of the hosts

# Kinds of fields and attributes; one given as (kind, False) is checked when it is there.
ID = "a count (an integer of at least 0)"
POSITIVE = "a positive integer"
FLAG = "0 or 1"
FIGURE = "a finite number of at least 0"
MAYBE = "a finite number of at least 0, or NaN"
NUMBER = "a number"  # a floating-point one is checked as MAYBE
ENUM = "a member of its enum"
TEXT = "text"
COUNTS = "a list of positive integers"

# Enumerated fields the file stores as plain integers, with their values ({meaning: value}, as
# results/README.md's field table states them): a value outside them is refused as inf is.
ENUMERATED = {"md_cache_drop": {"kept": 0, "dropped": 1, "refused": 2}}
BOOL = {"no": 0, "yes": 1}  # a field whose unit is `bool`


def _short(v):
    s = repr(v.item() if isinstance(v, np.generic) else v)
    return s if len(s) <= 60 else s[:57] + "..."


# ---------------------------------------------------------------------------- attributes


def _text_attr(v, bad):
    if isinstance(v, bytes):
        v = v.decode(errors="replace")
    if not isinstance(v, str):
        raise bad
    return v


def _counts_attr(v, bad):
    if (
        not isinstance(v, np.ndarray)
        or v.ndim != 1
        or v.dtype.kind not in "iu"
        or v.size > MAX_LIST
        or (v < 1).any()
    ):
        raise bad
    return [int(x) for x in v]


def _figure_attr(v, bad):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise bad
    if not np.isfinite(v) or v < 0:
        raise bad
    return float(v)


def _integer_attr(v, bad, kind):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise bad
    v = int(v)
    if v < (1 if kind == POSITIVE else 0) or (kind == FLAG and v > 1):
        raise bad
    return v


def check_attr(g, name, kind, required, where):
    """The attribute `name` of group `g` as plain Python when it is of `kind`; None when it is
    missing and not `required`."""
    if name not in g.attrs:
        if required:
            raise ResultsError(f"{where} has no attribute {name}")
        return None
    v = g.attrs[name]
    bad = ResultsError(f"{where}: attribute {name} is not {kind} (found {_short(v)})")
    if kind == TEXT:
        return _text_attr(v, bad)
    if kind == COUNTS:
        return _counts_attr(v, bad)
    if kind == FIGURE:
        return _figure_attr(v, bad)
    return _integer_attr(v, bad, kind)


def check_figure_attrs(g, where):
    """Raises unless every attribute of `g` that is a floating-point number (a figure: rated
    bandwidths, stonewall_s, ...) is NaN or a finite number of at least 0, as iosweep writes
    them: a reader formats them all."""
    for name, v in g.attrs.items():
        if isinstance(v, (float, np.floating)) and (np.isinf(v) or v < 0):
            raise ResultsError(f"{where}: attribute {name} is not {MAYBE} (found {_short(v)})")


def check_phase_table(a, where):
    """The phase table a run recorded (names.phase_table); when it parses it must be iosweep's:
    every row a table with a record kind of seq, rand, scan or none (a phase without records:
    the metadata phases) and flags as text."""
    table = phase_table(a)
    for phase, row in table.items():
        if (
            not isinstance(row, dict)
            or row.get("record") not in ("seq", "rand", "scan", "none")
            or not isinstance(row.get("flags", ""), str)
        ):
            raise ResultsError(
                f"{where}: attribute phase_table is not iosweep's phase table (row {phase})"
            )
    return table


# -------------------------------------------------------------------------------- tables


def _dataset(g, name, where):
    import h5py

    ds = g.get(name)
    if not isinstance(ds, h5py.Dataset):
        raise ResultsError(f"{where} has no {name} table")
    if ds.dtype.names is None or ds.ndim != 1:
        raise ResultsError(f"{where}: {name} is not a table (a one-dimensional compound dataset)")
    claimed = ds.size * ds.dtype.itemsize
    if claimed > MAX_TABLE_BYTES:
        raise ResultsError(
            f"{where}: {name} claims {ds.size} rows ({size_text(claimed)}), more than a"
            f" results table holds ({size_text(MAX_TABLE_BYTES)})"
        )
    return ds


def check_table(g, name, fields, where):
    """(table `name` as a numpy array, {enum field: members}), every value of `fields` ({field:
    kind}) checked and every other field a number, an enum or text."""
    ds = _dataset(g, name, where)
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
        at = f"{where}: {name} field {k}"
        enums[k] = _check_field(arr[k], ds.dtype[k], kinds.get(k), at)
        values = ENUMERATED.get(k) or (BOOL if _unit(ds, k) == "bool" else None)
        if enums[k] is None and values is not None and ds.dtype[k].kind in "iu":
            _first_bad(arr[k], ~np.isin(arr[k], list(values.values())), at, _one_of(values))
    return arr, enums


def _unit(ds, field):
    v = ds.attrs.get(f"{field}.unit")
    return v.decode(errors="replace") if isinstance(v, bytes) else v


def _one_of(members):
    """'not one of its values (kept=0, dropped=1, refused=2)'."""
    return "not one of its values (" + ", ".join(f"{n}={v}" for n, v in members.items()) + ")"


def _first_bad(col, bad, where, why):
    if bad.any():
        i = int(np.argmax(bad))
        raise ResultsError(f"{where}: row {i} holds {_short(col[i])}, {why}")


def _bad_integers(col, dt, kind, where):
    if dt.kind not in "iu":
        raise ResultsError(f"{where} is not an integer field ({dt})")
    lo = 1 if kind == POSITIVE else 0
    return (col < lo) | (col > 1) if kind == FLAG else col < lo


def _bad_numbers(col, dt, kind, where):
    if dt.kind not in "iuf":
        raise ResultsError(f"{where} is not a number field ({dt})")
    v = col.astype(float)
    if kind == NUMBER and dt.kind == "f":  # a figure: NaN or finite and at least 0
        kind = MAYBE
    if kind == NUMBER:
        return np.zeros(len(v), bool)
    return np.isinf(v) | (v < 0) if kind == MAYBE else ~np.isfinite(v) | (v < 0)


def _check_enum(col, members, where):
    if members is None:
        raise ResultsError(f"{where} is not an HDF5 enum")
    bad = ~np.isin(col, list(members.values()))
    names = ", ".join(f"{n}={v}" for n, v in members.items())
    _first_bad(col, bad, where, f"not a member of its enum ({names})")
    return members


def _check_field(col, dt, kind, where):
    """Raises unless every value of `col` (of HDF5 type `dt`) is of `kind`; None for a field no
    command named: a number, an enum or text. Returns the members of an enum field."""
    import h5py

    if dt.shape:
        raise ResultsError(f"{where} is not {kind or 'one value'} (an array in every row)")
    members = h5py.check_enum_dtype(dt)
    if members is not None:
        members = dict(sorted(members.items(), key=lambda kv: kv[1]))
    if kind is None:
        if dt.kind not in "iufS" and h5py.check_string_dtype(dt) is None:
            raise ResultsError(f"{where} is not a number, an enum or text ({dt})")
        if dt.kind == "f":  # a figure: iosweep stores NaN for what it could not measure
            _first_bad(col, _bad_numbers(col, dt, MAYBE, where), where, f"not {MAYBE}")
        return members if members is None else _check_enum(col, members, where)
    if kind == ENUM:
        return _check_enum(col, members, where)
    if kind == TEXT:
        if dt.kind != "S" and h5py.check_string_dtype(dt) is None:
            raise ResultsError(f"{where} is not text")
        return None
    if kind in (ID, POSITIVE, FLAG):
        bad = _bad_integers(col, dt, kind, where)
    else:
        bad = _bad_numbers(col, dt, kind, where)
        if kind == NUMBER and dt.kind == "f":
            kind = MAYBE
    _first_bad(col, bad, where, f"not {kind}")
    return members
