"""A results file, opened as iosweep's own readers open it: under its shared lock.

    with open_results("results/iosweep.h5") as f:    # h5py.File, read-only, locked until closed
        run_ids(f)                                   # in the order the runs were appended
        rid, group = pick_run(f, None)               # the run appended last

open_results and pick_run are the one place a results file is opened and the one place a run is
picked. A writer (iosweep run, rank 0) takes the same OFD lock exclusive around every point it
appends (src/output/file_lock.hpp, FileLock): a reader holding it shared never sees half an
append. The wait for it is bounded as the binary bounds its own: 60 s, or IOSWEEP_LOCK_WAIT_S
seconds (lock_wait_seconds); past it, LockTimeout names the process that holds the lock when
this host can tell. Every problem raises ResultsError, one line naming the file.
"""
import errno
import fcntl
import math
import os
import stat
import struct
import time
import warnings

from iosweep_tools.results.hdf5 import text

SCHEMA = "iosweep.results"
# The schema version of the files these scripts read, the binary's kSchemaVersion
# (src/model/schema.hpp): a file of a newer version, or of none, is refused as the binary
# refuses it (src/output/run_record.cpp).
SCHEMA_VERSION = 1
LOCK_WAIT_ENV = "IOSWEEP_LOCK_WAIT_S"  # the binary reads the same variable (output/file_lock)
DEFAULT_LOCK_WAIT_S = 60.0
MAX_RUNS = 1 << 20  # rows of a run_index: a corrupted one may claim any number
HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"


class ResultsError(Exception):
    """A results file or a run in it that cannot be used; str() is one line naming it."""


class NoSuchRun(ResultsError):
    """The run asked for is not in the file; str() says which runs it has."""


class LockTimeout(ResultsError):
    """The wait for the file's lock ran out; str() names the file, its holder and the wait."""


def lock_wait_seconds():
    """How long a reader waits for a results file's lock, in seconds: IOSWEEP_LOCK_WAIT_S when it
    is a number above zero, else 60 (the binary's rule, src/output/file_lock.cpp)."""
    try:
        v = float(os.environ.get(LOCK_WAIT_ENV, ""))
    except ValueError:
        return DEFAULT_LOCK_WAIT_S
    return v if math.isfinite(v) and v > 0 else DEFAULT_LOCK_WAIT_S


def looks_like_results(path):
    """True when `path` is a regular file that starts with HDF5's signature: what a command that
    takes results files and other tools' text outputs alike tells them apart by, without waiting
    for any lock (open_results then reads it, or says why not)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        return (
            stat.S_ISREG(os.fstat(fd).st_mode)
            and os.pread(fd, len(HDF5_SIGNATURE), 0) == HDF5_SIGNATURE
        )
    except OSError:
        return False
    finally:
        os.close(fd)


def open_results(path, lock_wait_s=None):
    """The results file at `path`, opened read-only with h5py (close it, or use it in a `with`).
    Only a regular file that starts with HDF5's signature and carries iosweep's schema attribute
    is opened: a FIFO, a device (/dev/zero) or a folder is refused before anything is read.
    It holds iosweep's shared read lock until it is closed (see read_lock; `lock_wait_s` None:
    the wait of lock_wait_seconds()). Raises ResultsError, also for whatever h5py finds wrong while
    reading its first attributes."""
    shown = f"'{path}'"
    try:
        st = os.stat(path)
    except OSError as e:
        raise ResultsError(f"{shown}: {e.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise ResultsError(f"{shown} is not a regular file")
    lock_fd = read_lock(path, shown, lock_wait_seconds() if lock_wait_s is None else lock_wait_s)
    try:
        f = _open_locked(path, shown, lock_fd)
    except BaseException:
        os.close(lock_fd)
        raise
    try:
        with warnings.catch_warnings():  # numpy on a schema attribute that is an array
            warnings.simplefilter("ignore")
            schema = text(f.attrs.get("schema"))
    except Exception as e:
        f.close()
        raise ResultsError(f"{shown} cannot be read as a results file ({e})") from None
    if schema != SCHEMA:
        f.close()
        raise ResultsError(f"{shown} is not an iosweep results file (no iosweep schema attribute)")
    why = version_problem(f.attrs.get("schema_version"))
    if why:
        f.close()
        raise ResultsError(f"{shown} {why}")
    return f


def version_problem(v):
    """Why a file whose schema_version attribute is `v` (None: it has none) is not read, or ''.
    Every reader, the binary's too, reads versions 1 to SCHEMA_VERSION: a newer file may hold
    what these scripts would misread, and no iosweep wrote a file without a version or of
    version 0."""
    import numpy as np

    if v is None:
        return "has no schema_version attribute: not a results file iosweep wrote"
    if isinstance(v, np.ndarray) and v.shape == ():
        v = v[()]
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        return f"has a schema_version that is not a whole number ({str(v)[:40]!r})"
    if v > SCHEMA_VERSION:
        return (
            f"has results schema version {int(v)}, newer than these scripts' {SCHEMA_VERSION};"
            " read it with the scripts of the iosweep that wrote it"
        )
    if v < 1:
        return f"has results schema version {int(v)}, which no iosweep writes (the first is 1)"
    return ""


def _open_locked(path, shown, lock_fd):
    """h5py's File of `path` once its first bytes are HDF5's signature, releasing `lock_fd`
    when it is closed."""
    try:
        head = os.pread(lock_fd, len(HDF5_SIGNATURE), 0)
    except OSError as e:
        raise ResultsError(f"{shown}: {e.strerror}") from None
    if head != HDF5_SIGNATURE:
        raise ResultsError(f"{shown} is not an iosweep results file (not an HDF5 file)")
    try:
        f = _locked_file(path)
    except OSError as e:
        raise ResultsError(f"{shown} cannot be opened as an HDF5 file ({e})") from None
    except Exception as e:
        raise ResultsError(f"{shown} cannot be read as a results file ({e})") from None
    f.lock_fd = lock_fd
    return f


# struct flock on Linux x86-64 and aarch64: l_type, l_whence (short), l_start, l_len (off_t),
# l_pid (pid_t, 0 for an OFD lock), padded to 32 bytes.
_FLOCK = "hhxxxxqqixxxx"


def read_lock(path, shown, wait_s):
    """A descriptor of `path` holding the shared OFD lock iosweep's writers take exclusive around
    every append (src/output/file_lock.hpp, FileLock): while it is held no run is half way
    through writing a point, so the file read is whole. Waits at most `wait_s` seconds for a
    writer (a stopped one holds the lock for ever), then raises LockTimeout. Where the file
    system keeps no locks, the descriptor comes back unlocked."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError as e:
        raise ResultsError(f"{shown}: {e.strerror}") from None
    shared = struct.pack(_FLOCK, fcntl.F_RDLCK, os.SEEK_SET, 0, 0, 0)
    deadline = time.monotonic() + wait_s
    while True:
        try:
            fcntl.fcntl(fd, fcntl.F_OFD_SETLK, shared)
            return fd
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.EACCES, errno.EINTR):
                # A file system that keeps no locks (ENOLCK, EOPNOTSUPP): iosweep cannot append
                # there either (its writer needs the lock), so the file is read as it is.
                return fd
        if time.monotonic() >= deadline:
            who = lock_holders(fd)
            os.close(fd)
            raise LockTimeout(
                f"{shown} is locked by {', '.join(who) if who else 'a run writing to it'};"
                f" waited {wait_s:g} s ({LOCK_WAIT_ENV}): is that run stopped?"
            )
        time.sleep(0.01)  # a writer holds the lock for one point's worth of writing


def lock_holders(fd, most=4):
    """["pid N (comm)"] of the processes of this host, as far as this user can see them, whose
    descriptors hold a write lock on the file of `fd` (the only kind a reader waits for): an OFD
    lock names no pid, so their /proc/PID/fdinfo files are read for the lock's line (as the
    binary does, os/process)."""
    st = os.fstat(fd)
    needle = f" {os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino} "
    me, out = str(os.getpid()), []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        if pid == me or len(out) >= most:
            continue
        try:
            infos = os.listdir(f"/proc/{pid}/fdinfo")
            if any(_holds(f"/proc/{pid}/fdinfo/{i}", needle) for i in infos):
                with open(f"/proc/{pid}/comm") as c:
                    out.append(f"pid {pid} ({c.read().strip()})")
        except OSError:
            continue
    return out


def _holds(fdinfo, needle):
    try:
        with open(fdinfo) as f:
            return any(ln.startswith("lock:") and needle in ln and " WRITE " in ln for ln in f)
    except OSError:
        return False


_LOCKED_FILE = None


def _locked_file(path):
    """h5py.File(path, "r") of a class that releases iosweep's read lock when it is closed (the
    class is made when h5py is first needed: commands without results files never import it)."""
    global _LOCKED_FILE
    if _LOCKED_FILE is None:
        import h5py

        class LockedFile(h5py.File):
            lock_fd = None

            def close(self):
                try:
                    super().close()
                finally:
                    if self.lock_fd is not None:
                        os.close(self.lock_fd)
                        self.lock_fd = None

        _LOCKED_FILE = LockedFile
    return _LOCKED_FILE(path, "r")


def run_ids(f):
    """The run ids of an open results file, in the order they were appended (its run_index).
    Raises ResultsError when the index is missing or not a table of run ids."""
    idx = f.get("run_index")
    try:
        ok = idx is not None and idx.ndim == 1 and idx.size <= MAX_RUNS
        ids = [text(r) for r in idx["run_id"]] if ok else None
    except (KeyError, ValueError, TypeError, AttributeError):
        ids = None
    if ids is None or not all(isinstance(r, str) for r in ids):
        raise ResultsError(f"'{f.filename}' has no readable run_index")
    return ids


def pick_run(f, run_id=None):
    """(run id, run group) of `run_id` in an open results file, or of the run appended last when
    `run_id` is None. Raises NoSuchRun for a run the file does not list, ResultsError otherwise;
    a command given the run by an option says `--run: ...` for the first."""
    ids = run_ids(f)
    if not ids:
        raise ResultsError(f"'{f.filename}' holds no runs")
    if run_id is None:
        run_id = ids[-1]
    elif run_id not in ids:
        raise NoSuchRun(
            f"{run_id} is not in '{f.filename}' ({len(ids)} runs; the latest is {ids[-1]})"
        )
    runs = f.get("runs")
    if runs is None or run_id not in runs:
        raise ResultsError(f"'{f.filename}' lists run {run_id} but has no group /runs/{run_id}")
    return run_id, runs[run_id]
