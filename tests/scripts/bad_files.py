"""Results files broken in the ways the scripts must refuse in one line, built from a real one.

    files = bad_files.make(tmp, good)   # {name: path}
"""
import fcntl
import os
import shutil
import struct

import h5py
import numpy as np

from conftest import latest_run


def _copy(good, path, change):
    shutil.copy(good, path)
    with h5py.File(path, "r+") as f:
        change(f, latest_run(f))
    return path


def _rewrite(g, name, data, dtype):
    attrs = dict(g[name].attrs)
    del g[name]
    ds = g.create_dataset(name, data=np.array(data, dtype=dtype), maxshape=(None,), chunks=True)
    for k, v in attrs.items():
        ds.attrs[k] = v


def _bad_phase(f, g):
    s = g["summary"][()]
    s["phase"][0] = 99  # no such member: the enum types are the same, so it is stored as is
    _rewrite(g, "summary", s, s.dtype)


def _text_ranks(f, g):
    s = g["summary"][()]
    names = list(s.dtype.names)
    dt = np.dtype([(n, "S8" if n == "ranks" else s.dtype[n]) for n in names])
    out = np.zeros(len(s), dtype=dt)
    for n in names:
        out[n] = s[n].astype("S8") if n == "ranks" else s[n]
    _rewrite(g, "summary", out, dt)


def _figure(field, value, table="summary", attr=None):
    """A figure of the latest run set to `value`: row 0 of `table`'s `field`, or attribute
    `attr`."""

    def change(f, g):
        if attr:
            g.attrs[attr] = np.float64(value)
            return
        a = g[table][()]
        a[field][0] = value
        g[table][...] = a

    return change


# Figures set to what iosweep never stores (inf, a negative number): refused in one line naming
# the value, as a figure NaN (not measured) is shown; and a table an export cannot hold whole.
FIGURES = {
    "figure-inf": _figure("cached_fraction_mean", np.inf),
    "figure-negative": _figure("lat_p99_ns", -5.0),
    "attribute-inf": _figure(None, np.inf, attr="rated_bw_Bps"),
    "nodes-inf": _figure("seconds", np.inf, table="nodes"),
    # Enumerations out of their range: refused as inf is, whether a command names them or not.
    "cache-drop-9": _figure("md_cache_drop", 9),
    "stonewalled-7": _figure("stonewalled", 7),
    "ranks-stonewalled-7": _figure("stonewalled", 7, table="ranks"),
    "status-9": lambda f, g: g.attrs.modify(
        "status", np.array(9, dtype=g.attrs.get_id("status").dtype)
    ),
}


def tool_outputs(tmp):
    """An IOR output whose mean bandwidth is inf, nan or negative ({name: path})."""
    from conftest import SOURCE_DIR

    ior = (SOURCE_DIR / "tests" / "fixtures" / "ior" / "01-posix-seq16m.txt").read_text()
    out = {}
    for name, v in (("ior-inf", "inf"), ("ior-nan", "nan"), ("ior-negative", "-540.04")):
        out[name] = tmp / f"{name}.txt"
        out[name].write_text(ior.replace("540.04     540.04     540.04", f"1 1 {v}", 1))
    return out


def _float_index(f, g):
    del f["run_index"]
    f.create_dataset("run_index", data=np.array([1.5, 2.5]))


def _empty_index(f, g):
    idx = f["run_index"]
    dt = idx.dtype
    del f["run_index"]
    f.create_dataset("run_index", shape=(0,), dtype=dt, maxshape=(None,), chunks=True)


def _version(v):
    def change(f, g):
        if v is None:
            del f.attrs["schema_version"]
        else:
            f.attrs["schema_version"] = np.int64(v)

    return change


HELD = []  # descriptors of files locked for the test process's lifetime


def hold_write_lock(path):
    """Takes iosweep's writer lock (an exclusive OFD lock, src/output/file_lock.hpp) on `path`
    and keeps it while the tests run: as a run stopped half way through an append holds it."""
    fd = os.open(path, os.O_RDWR)
    fcntl.fcntl(fd, fcntl.F_OFD_SETLK, struct.pack("hhxxxxqqixxxx", fcntl.F_WRLCK, 0, 0, 0, 0))
    HELD.append(fd)
    return path


def make(tmp, good):
    """Files under `tmp` that are not usable results, each a different way."""
    out = {}
    out["text"] = tmp / "notes.txt"
    out["text"].write_text("a text file, not HDF5\n")
    out["missing"] = tmp / "missing.h5"
    out["folder"] = tmp / "folder.h5"
    out["folder"].mkdir()
    out["fifo"] = tmp / "fifo.h5"
    os.mkfifo(out["fifo"])
    out["dev-zero"] = "/dev/zero"
    with h5py.File(tmp / "other.h5", "w") as f:
        f.attrs["schema"] = "someone.else"
    out["other-schema"] = tmp / "other.h5"
    out["float-index"] = _copy(good, tmp / "float-index.h5", _float_index)
    out["empty-index"] = _copy(good, tmp / "empty-index.h5", _empty_index)
    out["bad-phase"] = _copy(good, tmp / "bad-phase.h5", _bad_phase)
    out["text-ranks"] = _copy(good, tmp / "text-ranks.h5", _text_ranks)
    out["no-summary"] = _copy(good, tmp / "no-summary.h5", lambda f, g: g.__delitem__("summary"))
    out["no-runs"] = _copy(good, tmp / "no-runs.h5", lambda f, g: f.__delitem__("runs"))
    for name, change in FIGURES.items():
        out[name] = _copy(good, tmp / f"{name}.h5", lambda f, g, c=change: c(f, g))
    out.update(tool_outputs(tmp))
    for v in (2, 0, None):  # newer than these scripts, none iosweep writes, missing
        out[f"schema-v{v}"] = _copy(good, tmp / f"schema-v{v}.h5", _version(v))
    out["locked"] = tmp / "locked.h5"
    shutil.copy(good, out["locked"])
    hold_write_lock(out["locked"])
    return out
