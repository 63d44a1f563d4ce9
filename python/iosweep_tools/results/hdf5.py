"""Values as h5py hands them over, made plain Python: text, enum members, attribute values.

    text(b"seq_write")                          # "seq_write"
    value(group.attrs["points"])                # [1, 2, 4]
    column(table["host"]), units_of(dataset)    # text decoded; {field: unit}
"""
import numpy as np


def text(v):
    """An HDF5 string as str: h5py gives bytes for fixed-length and many variable-length ones."""
    return v.decode() if isinstance(v, bytes) else v


def value(v):
    """An attribute or a table's value as plain Python: str (decoded), int, float, lists."""
    if isinstance(v, bytes):
        return v.decode(errors="replace")
    if isinstance(v, np.ndarray):
        return [value(x) for x in v.tolist()]
    if isinstance(v, np.generic):
        return v.item()
    return v


def column(col):
    """A table's field as stored, text fields decoded to str."""
    return [value(x) for x in col] if col.dtype.kind in "SO" else col


def units_of(ds):
    """{field: unit} from a table's `<field>.unit` attributes."""
    return {k[: -len(".unit")]: value(v) for k, v in ds.attrs.items() if k.endswith(".unit")}
