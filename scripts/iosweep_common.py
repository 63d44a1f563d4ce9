"""What iosweep's Python scripts and tests share, defined once.

    import iosweep_common as common
    env = common.launch_env()                        # for subprocess.run(["mpirun", ...], env=env)
    common.fail("--size: must be positive")          # "<script>: --size: must be positive", exit 2
    common.phases("results/iosweep.h5")              # {"seq_write": 0, "seq_read": 1, ...}
    common.units("build/iosweep", "4k", "16m")       # [4096, 16777216], iosweep's own parser
    common.record_bytes(run, "rand_read")            # the record size a run's phase used
    common.sweep_axis(run)                           # "streams" for a run of --streams
    common.block_device("/var/tmp")                  # the block device holding a folder

- The launch environment is the one of scripts/iosweep-env.sh, which the bash scripts source:
  this module reads its lines, so both sides use one definition.
- Phase, engine and status names come from the HDF5 enum types stored in the results file, so
  a phase or an engine added to iosweep shows up here without any list to edit.
- Sizes are parsed by the iosweep binary itself (`iosweep units SIZE...`).
- open_results and pick_run are the one place a results file is opened and the one place a
  run is picked; scripts read runs through iosweep_run, which checks what they hold.
- fail is the one way a script refuses or stops: one line, control characters escaped.

h5py is imported only by the functions that read results files, so scripts that need none of
them (make-threadlist) start without it.
"""
import errno
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

ENV_FILE = Path(__file__).resolve().with_name("iosweep-env.sh")


# ------------------------------------------------------------------------------- errors


def one_line(text):
    """`text` with every control character shown escaped (\\n, \\t, \\x1b), so that a message
    naming any value stays one line."""
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
    return "".join(
        named.get(c, f"\\x{ord(c):02x}") if ord(c) < 32 or ord(c) == 127 else c for c in str(text)
    )


def fail(msg, status=2):
    """Prints `<script>: msg` as one line to stderr (control characters escaped) and exits with
    `status` (2: bad input). Every refusal and stop of the scripts ends here."""
    print(f"{os.path.basename(sys.argv[0])}: {one_line(msg)}", file=sys.stderr)
    sys.exit(status)


# ------------------------------------------------------------------- launch environment

_SETTING = re.compile(
    r"(iosweep_env|iosweep_env_root) +([A-Za-z_][A-Za-z0-9_]*) +([^\s'\"$`\\;&|<>(){}#]+)"
)
_HELPER = re.compile(r"iosweep_env(_root)?\(\) \{ .* \}|unset -f iosweep_env iosweep_env_root")


def env_settings(path=ENV_FILE):
    """[(name, value, root_only)] as scripts/iosweep-env.sh sets them, in file order."""
    out = []
    for i, line in enumerate(Path(path).read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#") or _HELPER.fullmatch(line):
            continue
        m = _SETTING.fullmatch(line)
        if not m:
            raise ValueError(
                f"{path}: line {i}: expected 'iosweep_env NAME VALUE' or "
                f"'iosweep_env_root NAME VALUE' (found '{line}')"
            )
        out.append((m.group(2), m.group(3), m.group(1) == "iosweep_env_root"))
    return out


def launch_vars(euid=None):
    """{name: value} that iosweep-env.sh sets for a user (this process's effective uid by
    default)."""
    euid = os.geteuid() if euid is None else euid
    return {name: value for name, value, root_only in env_settings() if euid == 0 or not root_only}


def launch_env(base=None, euid=None):
    """A copy of `base` (os.environ by default) with the launch variables set where `base` has
    them unset or empty, exactly as sourcing iosweep-env.sh does in bash."""
    env = dict(os.environ if base is None else base)
    for name, value in launch_vars(euid).items():
        if not env.get(name):
            env[name] = value
    return env


# ------------------------------------------------------------------------ emulated nodes

EMU_RSH = Path(__file__).resolve().parent / "cluster" / "emu-rsh"


def can_emulate():
    """None when this machine can run emulated nodes (scripts/cluster/emu-rsh), else why not."""
    import shutil

    if os.geteuid() != 0:
        return "emulated nodes need root (unshare --uts)"
    if shutil.which("unshare") is None:
        return "unshare (util-linux) is not installed"
    if subprocess.run(["unshare", "--uts", "true"], capture_output=True).returncode != 0:
        return "this machine refuses new UTS namespaces"
    return None


def emulated_env(base):
    """`base` with what makes mpirun start one orted per host of its host file as an emulated
    node: emu-rsh as its rsh agent, TCP on loopback between nodes. The orteds start each other
    down Open MPI's tree (its default): started one by one from mpirun instead
    (plm_rsh_no_tree_spawn), 128 ranks on 16 emulated nodes did not get through MPI_Init in
    400 s on a 2-core machine, where the tree takes 14 s."""
    env = dict(base)
    env.pop("OMPI_MCA_plm_rsh_no_tree_spawn", None)
    env.update(
        {
            "OMPI_MCA_plm_rsh_agent": str(EMU_RSH),
            "OMPI_MCA_oob_tcp_if_include": "lo",
            "OMPI_MCA_btl_tcp_if_include": "lo",
        }
    )
    return env


# -------------------------------------------------------------------- names and decoding


def text(v):
    """An HDF5 string as str: h5py gives bytes for fixed-length and many variable-length ones."""
    return v.decode() if isinstance(v, bytes) else v


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


def phase_table(run):
    """The phase table a run recorded (its `phase_table` attribute, TOML): {enum name: {id, name,
    record, flags, control_for}}; {} for files written before iosweep recorded it. `run` is a
    mapping of run attributes (an h5py group's attrs, or a row of iosweep_load's runs)."""
    import tomllib

    text = run.get("phase_table") if run is not None and hasattr(run, "get") else None
    if isinstance(text, bytes):
        text = text.decode()
    if not isinstance(text, str) or not text:
        return {}
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {}


def _flags(phase, run):
    row = phase_table(run).get(phase)
    return None if row is None else set(filter(None, row.get("flags", "").split(",")))


def is_random(phase, run=None):
    """Random phases are measured in IOPS, the others in bandwidth (the run's phase table when
    it recorded one; rand_* otherwise)."""
    flags = _flags(phase, run)
    return "random" in flags if flags is not None else phase.startswith("rand_")


# What older results files do not record (newer ones carry their phase table): the phases that
# read in scan records (--scan-record), and the control phases with the phase each is the
# baseline of. A phase not named here reads or writes in sequential records (--seq-record)
# unless it is random (--rand-record).
SCAN_PHASES = ("filter_count", "scan_only")
CONTROL_OF = {"scan_only": "filter_count"}


def is_control(phase, run=None):
    """A control phase (scan_only) measures another phase's baseline: it has no counterpart in
    other tools and is not drawn or compared unless asked."""
    flags = _flags(phase, run)
    return "control" in flags if flags is not None else phase in CONTROL_OF


def record_attr(phase, run=None):
    """The run attribute holding the record size `phase` used."""
    row = phase_table(run).get(phase)
    if row is not None:
        return {
            "seq": "seq_record_bytes",
            "rand": "rand_record_bytes",
            "scan": "scan_record_bytes",
        }[row["record"]]
    if is_random(phase):
        return "rand_record_bytes"
    return "scan_record_bytes" if phase in SCAN_PHASES else "seq_record_bytes"


def record_bytes(run, phase):
    """The record size, in bytes, that `phase` used in a run (a mapping of run attributes, such
    as a row of iosweep_load's runs or summary); None when the run does not say."""
    v = run.get(record_attr(phase, run)) if hasattr(run, "get") else None
    try:
        v = int(v)
    except (TypeError, ValueError):
        return None
    return v if v > 0 else None


def sweep_axis(run):
    """The summary column that counts a run's points as other tools count threads: "streams" for
    a run of --streams (each point s streams = active ranks x depth), else "ranks". `run` is a
    mapping of run attributes (a row of iosweep_load's runs)."""
    v = run.get("sweep_axis") if run is not None and hasattr(run, "get") else None
    return "streams" if text(v) == "streams" else "ranks"


def size_text(n):
    """A byte count in binary units as iosweep prints them (4 KiB, 16 MiB, 1.5 GiB); '?' for
    None."""
    if n is None:
        return "?"
    n = int(n)
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            v = n / (1 << shift)
            return f"{v:.0f} {unit}" if v == int(v) else f"{v:.3g} {unit}"
    return f"{n} B"


# ---------------------------------------------------------------------- results files

SCHEMA = "iosweep.results"
MAX_RUNS = 1 << 20  # rows of a run_index: a corrupted one may claim any number
HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"


class ResultsError(Exception):
    """A results file or a run in it that cannot be used; str() is one line naming it."""


class NoSuchRun(ResultsError):
    """The run asked for is not in the file; str() says which runs it has."""


def open_results(path, lock_wait_s=60):
    """The results file at `path`, opened read-only with h5py (close it, or use it in a `with`).
    Only a regular file that starts with HDF5's signature and carries iosweep's schema attribute
    is opened: a FIFO, a device (/dev/zero) or a folder is refused before anything is read.
    It holds iosweep's shared read lock until it is closed (see read_lock). Raises ResultsError."""
    shown = f"'{path}'"
    try:
        st = os.stat(path)
    except OSError as e:
        raise ResultsError(f"{shown}: {e.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise ResultsError(f"{shown} is not a regular file")
    lock_fd = read_lock(path, shown, lock_wait_s)
    try:
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
    except ResultsError:
        os.close(lock_fd)
        raise
    f.lock_fd = lock_fd
    if text(f.attrs.get("schema")) != SCHEMA:
        f.close()
        raise ResultsError(f"{shown} is not an iosweep results file (no iosweep schema attribute)")
    return f


# struct flock on Linux x86-64 and aarch64: l_type, l_whence (short), l_start, l_len (off_t),
# l_pid (pid_t, 0 for an OFD lock), padded to 32 bytes.
_FLOCK = "hhxxxxqqixxxx"


def read_lock(path, shown, wait_s):
    """A descriptor of `path` holding the shared OFD lock iosweep's writers take exclusive around
    every append (src/output/hdf5_file.hpp, FileLock): while it is held no run is half way
    through writing a point, so the file read is whole. Waits at most `wait_s` seconds for a
    writer (a stopped one holds the lock for ever), then raises ResultsError. Where the file
    system keeps no locks, the descriptor comes back unlocked."""
    import fcntl
    import struct
    import time

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
            os.close(fd)
            raise ResultsError(
                f"{shown} is locked by a run writing to it; waited {wait_s:g} s (is that run "
                "stopped?)"
            )
        time.sleep(0.01)  # a writer holds the lock for one point's worth of writing


_LOCKED_FILE = None


def _locked_file(path):
    """h5py.File(path, "r") of a class that releases iosweep's read lock when it is closed (the
    class is made when h5py is first needed: scripts without results files never import it)."""
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
    a script given the run by an option says `--run: ...` for the first."""
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


# ------------------------------------------------------------------------ block devices


class BlockDevice:
    """The block device holding a folder, resolved as iosweep resolves it
    (src/engines/block_device.cpp): stat's st_dev, /sys/dev/block/MAJ:MIN, a partition counted
    as its disk, device-mapper and md devices as themselves. `name` is "vda", "dm-0 (vg-root)";
    `stat_path` its counters; where there is none, `stat_path` is None and `why` says why."""

    def __init__(self, name=None, stat_path=None, why="", dev=None):
        self.name, self.stat_path, self.why, self.dev = name, stat_path, why, dev

    def __bool__(self):
        return self.stat_path is not None

    def __repr__(self):
        return (
            f"BlockDevice({self.name!r}, {self.stat_path!r})"
            if self
            else f"BlockDevice(none: {self.why})"
        )

    def sample(self):
        """The device's counters since boot: {read_bytes, write_bytes, read_ops, write_ops}
        (sectors are 512 bytes whatever the device's); None without a device."""
        if not self:
            return None
        f = Path(self.stat_path).read_text().split()
        if len(f) < 7:
            raise ValueError(
                f"{self.stat_path}: expected at least 7 counters (found '{' '.join(f)}')"
            )
        f = [int(x) for x in f[:7]]
        return {
            "read_ops": f[0],
            "read_bytes": f[2] * 512,
            "write_ops": f[4],
            "write_bytes": f[6] * 512,
        }


def fs_type(path):
    """The type of the file system mounted at or above `path`, from /proc/self/mounts."""
    best, kind = "", "an unknown file system"
    try:
        real = os.path.realpath(path)
        for line in Path("/proc/self/mounts").read_text().splitlines():
            parts = line.split()
            if len(parts) >= 3:
                mnt = parts[1].replace("\\040", " ")
                if (real == mnt or real.startswith(mnt.rstrip("/") + "/")) and len(mnt) >= len(
                    best
                ):
                    best, kind = mnt, parts[2]
    except OSError:
        pass
    return kind


def block_device(path, sysfs="/sys", dev=None):
    """The BlockDevice holding `path` (`dev` = (major, minor) instead of stat's, and `sysfs`
    another /sys, for tests)."""
    if dev is None:
        try:
            st = os.stat(path)
        except OSError as e:
            return BlockDevice(why=f"cannot stat {path} ({e.strerror})")
        dev = (os.major(st.st_dev), os.minor(st.st_dev))
    maj, mnr = dev
    if maj == 0:
        return BlockDevice(
            why=f"{path} is on {fs_type(path)}, which has no block device (device 0:{mnr})", dev=dev
        )
    link = os.path.join(sysfs, "dev", "block", f"{maj}:{mnr}")
    if not os.path.exists(link):
        return BlockDevice(
            why=f"device {maj}:{mnr} of {path} is not in {os.path.dirname(link)}", dev=dev
        )
    sys_dir = os.path.realpath(link)
    if os.path.exists(os.path.join(sys_dir, "partition")):
        sys_dir = os.path.dirname(sys_dir)  # a partition counts as its disk
    stat_path = os.path.join(sys_dir, "stat")
    if not os.path.exists(stat_path):
        return BlockDevice(why=f"{stat_path} does not exist", dev=dev)
    name = os.path.basename(sys_dir)
    try:
        dm = Path(sys_dir, "dm", "name").read_text().strip()
    except OSError:
        dm = ""
    return BlockDevice(f"{name} ({dm})" if dm else name, stat_path, "", dev)


# ------------------------------------------------------------------------------- sizes


class UnitsError(Exception):
    """A size iosweep refuses (status 2) or a binary that could not answer; str() is the reason."""

    def __init__(self, msg, status):
        super().__init__(msg)
        self.status = status


def units(binary, *sizes):
    """The byte count of each size, from `iosweep units`: the parser and messages of the options.
    The binary runs as every child of the scripts does (iosweep_jobs.run_child), with 30 s and
    64 KiB of output at most. Raises UnitsError: status 2 when iosweep refused a size."""
    import iosweep_jobs

    cmd = [str(binary), "units", "--", *sizes]
    try:
        p = iosweep_jobs.run_child(cmd, timeout=30, env=launch_env(), limit=65536)
    except iosweep_jobs.ChildError as e:
        raise UnitsError(f"{binary} units: {e}", None) from None
    except OSError as e:
        raise UnitsError(f"{binary}: cannot run it ({e.strerror})", None) from None
    if p.returncode != 0:
        said = [ln for ln in p.stderr.splitlines() if ln.strip()]
        why = next((ln for ln in said if ln.startswith("iosweep: ")), said[0] if said else "")
        why = why.removeprefix("iosweep: ").removeprefix("units: ")
        if p.returncode != 2:
            why = f"{binary} units failed (exit {p.returncode})" + (f": {why}" if why else "")
        raise UnitsError(why, p.returncode)
    out = p.stdout.split()
    if len(out) != len(sizes) or not all(x.isdigit() for x in out):
        got = one_line(p.stdout.strip())
        got = got if len(got) <= 200 else got[:200] + "..."
        raise UnitsError(
            f"{binary} units: expected {len(sizes)} byte count(s), got '{got}'", p.returncode
        )
    return [int(x) for x in out]
