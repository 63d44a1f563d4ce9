"""What every bad-input row of the scripts' tests asserts (tests/scripts/test_*_input.py): the
exit status, exactly one line on stderr that starts with `<script>: ` and names the argument, no
Python traceback anywhere, and nothing created, changed or removed in the folders involved
(conftest.snapshot). Also the corrupted copies of a real results file the rows read."""
import os
import shutil
import subprocess

import h5py
import numpy as np

from conftest import SOURCE_DIR, make_results, mpi_env, snapshot


def refused(script, args, name, roots, status=2, env=None, cwd=None, timeout=60):
    """Runs scripts/<script> ARGS and asserts the refusal; returns its line. `env` adds to the
    test environment (a value of None removes the variable)."""
    before = {str(r): snapshot(r) for r in roots}
    e = mpi_env()
    for k, v in (env or {}).items():
        if v is None:
            e.pop(k, None)
        else:
            e[k] = v
    p = subprocess.run(
        [str(SOURCE_DIR / "scripts" / script), *map(str, args)],
        capture_output=True,
        text=True,
        env=e,
        cwd=cwd,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    assert "Traceback" not in p.stdout + p.stderr, p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got {len(lines)}:\n{p.stderr}"
    assert lines[0].startswith(f"{script}: {name}"), lines[0]
    assert p.returncode == status, (p.returncode, lines[0])
    for r, snap in before.items():
        assert snapshot(r) == snap, f"{r} changed: {lines[0]}"
    return lines[0]


def real_results(folder):
    """A results file with one real run of the binary (1 rank, 1 MiB, two phases)."""
    work = folder / "w"
    work.mkdir()
    out = folder / "r.h5"
    make_results(1, work, out, "1MiB", "1MiB", "--phases", "seq-write,rand-read")
    work.rmdir()
    return out


def _last(f):
    return f["runs"][f["run_index"]["run_id"][-1].decode()]


def _retyped(g, name, field, dtype):
    a = g[name][()]
    b = np.zeros(a.shape, dtype=[(n, dtype if n == field else a.dtype[n]) for n in a.dtype.names])
    for n in a.dtype.names:
        b[n] = a[n]
    del g[name]
    g[name] = b


def _set(g, name, field, row, value):
    a = g[name][()]
    a[field][row] = value
    g[name][...] = a


# Corruptions of a real results file: what each does to a copy of it (h5py, opened r+).
CORRUPT = {
    "run-index-of-floats": lambda f: (
        f.__delitem__("run_index"),
        f.create_dataset("run_index", data=np.array([1.0, 2.0])),
    ),
    "run-index-empty": lambda f: f["run_index"].resize((0,)),
    "run-id-of-floats": lambda f: (
        f.__delitem__("run_index"),
        f.create_dataset(
            "run_index", data=np.array([(1.5, 3)], dtype=[("run_id", "f8"), ("n_points", "u4")])
        ),
    ),
    "phase-outside-enum": lambda f: _set(_last(f), "summary", "phase", 0, 99),
    "ranks-of-floats": lambda f: _retyped(_last(f), "summary", "ranks", "f8"),
    "iops-infinite": lambda f: _set(_last(f), "summary", "iops", 0, np.inf),
    # A figure no command names, formatted all the same: NaN (not measured) is one, inf is not
    # (the report stopped with OverflowError on it; test_scripts_bad_input has the siblings).
    "optional-figure-inf": lambda f: _set(_last(f), "summary", "cached_fraction_mean", 0, np.inf),
    "summary-missing": lambda f: _last(f).__delitem__("summary"),
    "summary-empty": lambda f: _last(f)["summary"].resize((0,)),
    "summary-claims-2^40-rows": lambda f: _huge(_last(f)),
    "world-size-missing": lambda f: _last(f).attrs.__delitem__("world_size"),
    "world-size-text": lambda f: _last(f).attrs.__setitem__("world_size", "many"),
    "phase-table-garbled": lambda f: _last(f).attrs.__setitem__("phase_table", "rand_read = 7\n"),
    "schema-an-array": lambda f: f.attrs.__setitem__("schema", np.array([1, 2, 3])),
    # A schema version newer than these scripts' (test_scripts_bad_input has the siblings).
    "schema-version-2": lambda f: f.attrs.__setitem__("schema_version", np.int64(2)),
    "run-a-dataset": lambda f: _run_dataset(f),
}


def _huge(g):
    dt = g["summary"].dtype
    del g["summary"]
    g.create_dataset("summary", shape=(2**40,), dtype=dt, chunks=(64,))


def _run_dataset(f):
    rid = f["run_index"]["run_id"][-1].decode()
    del f["runs"][rid]
    f["runs"][rid] = np.arange(3)


def corrupted(good, folder):
    """{name: path} of corrupted copies of the results file `good`, one per CORRUPT entry, and
    files that are not results files: truncated, garbage after HDF5's signature, empty, a FIFO,
    a folder."""
    folder.mkdir()
    out = {}
    for name, how in CORRUPT.items():
        path = folder / f"{name}.h5"
        shutil.copy(good, path)
        with h5py.File(path, "r+") as f:
            how(f)
        out[name] = path
    data = good.read_bytes()
    out["truncated"] = folder / "truncated.h5"
    out["truncated"].write_bytes(data[: len(data) // 3])
    out["garbage"] = folder / "garbage.h5"
    out["garbage"].write_bytes(data[:8] + bytes(range(256)) * 20)
    out["empty"] = folder / "empty.h5"
    out["empty"].write_bytes(b"")
    out["fifo"] = folder / "fifo.h5"
    os.mkfifo(out["fifo"])
    out["folder"] = folder / "folder.h5"
    out["folder"].mkdir()
    return out


# ------------------------------------------------------------------------- wrapper scripts

MiB = 1 << 20


def traps(tmp):
    """A work folder `d`, an output folder `out`, and things that are not what they are given
    as: a text file, a FIFO, a folder named like a file, a real results file and corrupted
    copies of it. Returns {name: path}."""
    (tmp / "d").mkdir()
    (tmp / "out").mkdir()
    (tmp / "notes.txt").write_text("not a results file\n")
    (tmp / "a-folder.h5").mkdir()
    os.mkfifo(tmp / "fifo.h5")
    good = real_results(tmp)
    bad = corrupted(good, tmp / "bad")
    return {"tmp": tmp, "d": tmp / "d", "out": tmp / "out", "good": good, **bad}


def expand(args, where):
    """Arguments with {name} replaced by the paths of traps()."""
    return [a.format(**{k: str(v) for k, v in where.items()}) for a in args]


def beyond_free(folder, files, multiple, hi):
    """A size (in bytes, as text) such that `files` files of it, whole `multiple`s, do not fit
    the free space of `folder`, and at most `hi` bytes; None when the folder has more room."""
    v = os.statvfs(folder)
    # Half as much again as fits: the free space of a shared disk moves while the row runs.
    per_file = (v.f_bavail * v.f_frsize * 3 // 2 // files // multiple + 1) * multiple
    return str(per_file) if per_file <= hi else None
