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
    for v in (2, 0, None):  # newer than these scripts, none iosweep writes, missing
        out[f"schema-v{v}"] = _copy(good, tmp / f"schema-v{v}.h5", _version(v))
    out["locked"] = tmp / "locked.h5"
    shutil.copy(good, out["locked"])
    hold_write_lock(out["locked"])
    return out
