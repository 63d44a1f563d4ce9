"""What iosweep's scripts check before anything runs or is written, and how they run children.

    import iosweep_checks as checks
    ap = checks.Parser(...)                                  # argparse, errors in one line, 2
    ap.add_argument("--width", type=checks.number(1, 40, "inches"))
    ap.add_argument("--pairs", type=checks.count(1, 100))
    checks.binary("--bin", args.bin)                         # an executable regular file
    checks.size_bytes(args.bin, "--size", args.size, lo=16 << 20, multiple=16 << 20)
    checks.work_folder("--dir", args.dir)                    # a writable folder on storage
    checks.output_file("-o", args.output, suffixes=checks.plot_suffixes())
    checks.input_file("outputs", path, 64 << 20)             # a regular file of bounded size
    p = checks.run_child(cmd, timeout=checks.job_timeout(bytes_moved, seconds))
    sys.exit(checks.guard(main))                             # Ctrl-C: one line, status 130

Every refusal is one line on stderr, `<script>: <argument>: <problem>`, with status 2, before
anything is created: control characters in a value are shown escaped (\\n, \\x1b), as iosweep
shows them. A child process that fails, hangs past its timeout or prints without end is
stopped and reported in one line with status 1. KeyboardInterrupt and SIGTERM reach the
script's own clean-up (its `finally` blocks) and end in one line with status 130 or 143.
"""
import argparse
import math
import os
import re
import selectors
import signal
import stat
import subprocess
import sys
import time
import warnings

import iosweep_common as common

# -------------------------------------------------------------------------- messages


def one_line(text):
    """`text` with every control character shown escaped (\\n, \\t, \\x1b), so that a message
    naming any value stays one line."""
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
    return "".join(
        named.get(c, f"\\x{ord(c):02x}") if ord(c) < 32 or ord(c) == 127 else c for c in str(text)
    )


def stop(msg, status=2):
    """Prints `<script>: msg` as one line (control characters escaped) and exits with `status`."""
    common.fail(one_line(msg), status)


def shown(value):
    """A value as messages quote it: '...', control characters escaped, at most 200 characters."""
    s = one_line(value)
    return f"'{s[:200]}...'" if len(s) > 200 else f"'{s}'"


class Parser(argparse.ArgumentParser):
    """argparse whose errors are one line naming the argument, with status 2 (argparse itself
    prints its usage and the error on two lines)."""

    def error(self, message):
        if message.startswith("unrecognized arguments: "):
            first = message.removeprefix("unrecognized arguments: ").split(" ")[0]
            stop(f"{first}: not an argument of this script (see --help)")
        if message.startswith("the following arguments are required: "):
            stop(f"{message.removeprefix('the following arguments are required: ')}: required")
        stop(message.removeprefix("argument "))


# --------------------------------------------------------------------------- numbers


def count(lo, hi, why_lo=None):
    """An argparse type: a whole number from lo to hi (digits only: no sign, no exponent)."""

    def parse(text):
        t = text.strip()
        if not re.fullmatch(r"[0-9]{1,30}", t):
            raise argparse.ArgumentTypeError(f"{shown(text)} is not a whole number")
        v = int(t)
        if v < lo:
            raise argparse.ArgumentTypeError(f"{why_lo or f'must be at least {lo}'} (found {v})")
        if v > hi:
            raise argparse.ArgumentTypeError(f"must be at most {hi} (found {v})")
        return v

    return parse


def number(lo, hi, unit="", above=False):
    """An argparse type: a finite number from lo (above lo with `above`) to hi; NaN,
    infinities, zero and negative numbers and values out of bounds are refused."""
    unit = f" {unit}" if unit else ""

    def parse(text):
        try:
            v = float(text) if len(text) <= 40 else math.nan
        except ValueError:
            v = math.nan
        if not math.isfinite(v) or v <= 0:
            raise argparse.ArgumentTypeError(f"{shown(text)} is not a positive number")
        if v < lo or (above and v == lo):
            raise argparse.ArgumentTypeError(
                f"must be {'more than' if above else 'at least'} {lo:g}{unit} (found {text})"
            )
        if v > hi:
            raise argparse.ArgumentTypeError(f"must be at most {hi:g}{unit} (found {text})")
        return v

    return parse


def text_value(what="a value"):
    """An argparse type: a non-empty value without whitespace or control characters (it goes
    into a file of whitespace-separated fields or onto a command line)."""

    def parse(text):
        if not text:
            raise argparse.ArgumentTypeError(f"is empty; expected {what}")
        if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in text):
            raise argparse.ArgumentTypeError(
                f"{shown(text)} holds whitespace or control characters; expected {what}"
            )
        return text

    return parse


# ----------------------------------------------------------------------------- sizes


def _units(binary, texts):
    """(status, [byte counts] or None, the line iosweep said) of `iosweep units TEXTS`."""
    try:
        p = run_child([str(binary), "units", "--", *texts], timeout=30, limit=65536)
    except ChildError as e:
        stop(f"--bin: {binary} units: {e}")
    except OSError as e:
        stop(f"--bin: {binary}: cannot run it ({e.strerror})")
    if p.returncode != 0:
        said = [ln for ln in p.stderr.splitlines() if ln.strip()]
        why = next((ln for ln in said if ln.startswith("iosweep: ")), said[0] if said else "")
        return p.returncode, None, why.removeprefix("iosweep: ").removeprefix("units: ")
    out = p.stdout.split()
    if len(out) != len(texts) or not all(x.isdigit() for x in out):
        stop(f"--bin: {binary} units: expected {len(texts)} byte count(s), got {shown(p.stdout)}")
    return 0, [int(x) for x in out], ""


def _bounded(option, text, n, lo=1, hi=1 << 40, multiple=1, lo_why="", multiple_why=""):
    if n < lo:
        if lo_why:
            stop(f"{option}: {lo_why} (found {text})")
        if lo > 1:
            stop(f"{option}: must be at least {common.size_text(lo)} (found {text})")
        stop(f"{option}: must be more than 0 bytes")
    if n > hi:
        stop(f"{option}: must be at most {common.size_text(hi)} (found {text})")
    if n % multiple:
        stop(
            f"{option}: {text} is not a multiple of {common.size_text(multiple)}"
            + (f" ({multiple_why})" if multiple_why else "")
        )
    return n


def sizes(binary, *items):
    """The byte counts of sizes from iosweep's own parser (`iosweep units`, as
    iosweep_common.units runs it, here with a timeout and bounded output), each item
    (option, text, bounds) with bounds a dict of lo, hi (bytes, default 1 byte to 1 TiB),
    multiple, lo_why and multiple_why; stops with one line naming the first option refused.
    One run of the binary when all are sizes, one per size to name the one that is not."""
    for option, text, _ in items:
        if not text or len(text) > 64 or any(c.isspace() or ord(c) < 32 for c in text):
            stop(f"{option}: {shown(text)} is not a size; expected a number with a unit (4k, 1g)")
    status, counts, why = _units(binary, [text for _, text, _ in items])
    if counts is None:
        for option, text, _ in items:
            status, one, why = _units(binary, [text])
            if one is None:
                if status == 2:
                    stop(f"{option}: {why}")
                stop(f"--bin: {binary} units failed (exit {status})" + (f": {why}" if why else ""))
        stop(f"--bin: {binary} units failed on the sizes together (exit {status}): {why}")
    return [_bounded(option, text, n, **b) for (option, text, b), n in zip(items, counts)]


def size_bytes(binary, option, text, **bounds):
    """The byte count of one size, as sizes() checks it."""
    return sizes(binary, (option, text, bounds))[0]


# ------------------------------------------------------------------------ file system

# File systems that hold no storage: a measurement or an output there means a mistake.
PSEUDO_FS = {
    "proc",
    "sysfs",
    "devtmpfs",
    "devpts",
    "cgroup",
    "cgroup2",
    "debugfs",
    "tracefs",
    "securityfs",
    "configfs",
    "pstore",
    "bpf",
    "efivarfs",
    "fusectl",
    "mqueue",
    "binfmt_misc",
    "autofs",
}


def _pseudo(path):
    """The pseudo file system `path` (an existing folder) is on, or None."""
    real = os.path.realpath(path)
    for top in ("/proc", "/sys", "/dev"):
        if (real == top or real.startswith(top + "/")) and not real.startswith("/dev/shm"):
            kind = common.fs_type(real)
            return kind if kind in PSEUDO_FS or top != "/dev" else None
    kind = common.fs_type(real)
    return kind if kind in PSEUDO_FS else None


def work_folder(option, path):
    """`path` as an absolute path, when it is an existing, writable folder on storage."""
    if not path:
        stop(f"{option}: is empty; expected a folder")
    try:
        st = os.stat(path)
    except OSError as e:
        stop(f"{option}: {shown(path)}: {e.strerror}")
    if not stat.S_ISDIR(st.st_mode):
        stop(f"{option}: {shown(path)} is not a folder")
    kind = _pseudo(path)
    if kind:
        stop(f"{option}: {shown(path)} is on {kind}, a pseudo file system, not storage")
    if not os.access(path, os.W_OK | os.X_OK):
        stop(f"{option}: {shown(path)} is not writable")
    return os.path.abspath(path)


def output_file(option, path, suffixes=None, new=False, what="file"):
    """`path` as an absolute path, when a file can be written there: its folder exists, is
    writable and on storage; an existing file there is a regular file (not a symbolic link) and
    writable, or refused with `new`; with `suffixes`, its name ends in one of them."""
    if not path:
        stop(f"{option}: is empty; expected a {what}")
    full = os.path.abspath(path)
    folder = os.path.dirname(full)
    if suffixes is not None:
        ext = os.path.splitext(full)[1].lower().lstrip(".")
        if ext not in suffixes:
            found = f"'.{one_line(ext)}'" if ext else "none"
            stop(
                f"{option}: {shown(path)}: the {what} is written by its extension, one of "
                f"{', '.join('.' + s for s in sorted(suffixes))} (found {found})"
            )
    if not os.path.isdir(folder):
        why = "does not exist" if not os.path.lexists(folder) else "is not a folder"
        stop(f"{option}: {shown(path)}: folder {shown(folder)} {why}")
    kind = _pseudo(folder)
    if kind:
        stop(f"{option}: {shown(path)} is on {kind}, a pseudo file system, not storage")
    if not os.access(folder, os.W_OK | os.X_OK):
        stop(f"{option}: {shown(path)}: folder {shown(folder)} is not writable")
    if os.path.lexists(full):
        if new:
            stop(f"{option}: {shown(path)} exists; expected a new {what}")
        if os.path.islink(full):
            stop(f"{option}: {shown(path)} is a symbolic link; name the {what} itself")
        if not os.path.isfile(full):
            stop(f"{option}: {shown(path)} exists and is not a regular file")
        if not os.access(full, os.W_OK):
            stop(f"{option}: {shown(path)} is not writable")
    return full


def input_file(option, path, max_bytes):
    """Stops unless `path` is a readable regular file of at most `max_bytes` (a FIFO, a device
    such as /dev/zero or a folder would be read without end or not at all)."""
    try:
        st = os.stat(path)
    except OSError as e:
        stop(f"{option}: {shown(path)}: {e.strerror}")
    if not stat.S_ISREG(st.st_mode):
        stop(f"{option}: {shown(path)} is not a regular file")
    if st.st_size > max_bytes:
        stop(
            f"{option}: {shown(path)} is {common.size_text(st.st_size)}, more than the "
            f"{common.size_text(max_bytes)} such a file can be"
        )
    if not os.access(path, os.R_OK):
        stop(f"{option}: {shown(path)} is not readable")


def plot_suffixes():
    """The extensions matplotlib's Agg, SVG, PDF and PS backends write here (PGF needs LaTeX;
    JPEG, TIFF and WebP need Pillow)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    out = set(FigureCanvasAgg.get_supported_filetypes()) - {"pgf"}
    try:
        import PIL  # noqa: F401
    except ImportError:
        out -= {"jpg", "jpeg", "tif", "tiff", "webp"}
    return out


def free_bytes(path):
    """Bytes an unprivileged user may still write in the file system of `path` (statvfs), as
    iosweep counts them."""
    v = os.statvfs(path)
    return v.f_bavail * v.f_frsize


def check_space(option, folder, files, size):
    """Stops when `files` files of `size` bytes do not fit the free space of `folder` (iosweep's
    own check, made before any folder of the script's is made)."""
    free = free_bytes(folder)
    if files * size > free:
        stop(
            f"{option}: {files} file(s) of {common.size_text(size)} need "
            f"{common.size_text(files * size)} in {shown(folder)} but only "
            f"{common.size_text(free)} are free"
        )


def mem_available():
    """MemAvailable of /proc/meminfo in bytes; 0 when unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def check_memory(option, ranks, per_rank):
    """Stops when `ranks` processes of about `per_rank` bytes each do not fit MemAvailable."""
    avail = mem_available()
    if avail and ranks * per_rank > avail:
        stop(
            f"{option}: {ranks} ranks need about {common.size_text(ranks * per_rank)} "
            f"({common.size_text(per_rank)} each) but this machine has "
            f"{common.size_text(avail)} available (MemAvailable)"
        )


def binary(option, path):
    """`path` as an absolute path, when it is an executable regular file."""
    if not path or not os.path.isfile(path) or not os.access(path, os.X_OK):
        stop(f"{option}: {one_line(path)} is not an executable (cmake --build build)")
    return os.path.abspath(path)


# --------------------------------------------------------------------- child processes

# A job's timeout: a floor for its start (mpirun, MPI_Init, file creation, the results file)
# plus its timed seconds and its bytes at 1 MiB/s, a rate any storage being measured exceeds.
JOB_FLOOR_S = 300
JOB_FLOOR_BPS = 1 << 20


def job_timeout(bytes_moved=0, seconds=0.0, ranks=1):
    """Seconds after which a job that moves `bytes_moved` bytes, runs `seconds` of timed windows
    and starts `ranks` ranks is taken to hang."""
    return JOB_FLOOR_S + 2 * seconds + bytes_moved / JOB_FLOOR_BPS + ranks


class ChildError(Exception):
    """A child process that hung past its timeout or printed more than it may."""


def _stop_child(p, sig, grace):
    if p.poll() is not None:
        return
    try:
        p.send_signal(sig)
        p.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    except KeyboardInterrupt:  # a second Ctrl-C: kill at once
        p.kill()
        p.wait()
        raise


def run_child(cmd, timeout, env=None, limit=16 << 20, grace=15):
    """Runs `cmd` (no stdin) and returns its CompletedProcess with stdout and stderr as text, each
    kept up to `limit` bytes. Raises ChildError when it runs past `timeout` seconds or prints
    more than `limit` bytes (it is then stopped: SIGTERM, SIGKILL `grace` seconds later), OSError
    when it cannot start. On KeyboardInterrupt (or SIGTERM, see guard) it passes SIGINT (SIGTERM)
    on, so that mpirun and iosweep clean up, waits `grace` seconds, and re-raises."""
    p = subprocess.Popen(
        [str(c) for c in cmd],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    out = {p.stdout: bytearray(), p.stderr: bytearray()}
    deadline = time.monotonic() + timeout
    sel = selectors.DefaultSelector()
    try:
        for pipe in out:
            sel.register(pipe, selectors.EVENT_READ)
        drain_until = None
        while sel.get_map():
            now = time.monotonic()
            if now > deadline:
                raise ChildError(f"did not finish within {timeout:.0f} s")
            if drain_until is None and p.poll() is not None:
                drain_until = now + 5  # what it left in its pipes; a grandchild may hold them
            if drain_until is not None and now > drain_until:
                break
            for key, _ in sel.select(timeout=0.5):
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    sel.unregister(key.fileobj)
                    continue
                buf = out[key.fileobj]
                if len(buf) + len(chunk) > limit:
                    raise ChildError(f"printed more than {common.size_text(limit)}")
                buf += chunk
        p.wait(timeout=max(deadline - time.monotonic(), 0.1))
    except subprocess.TimeoutExpired:
        _stop_child(p, signal.SIGTERM, grace)
        raise ChildError(f"did not finish within {timeout:.0f} s") from None
    except KeyboardInterrupt:
        _stop_child(p, signal.SIGINT, grace)
        raise
    except BaseException:  # SIGTERM (Terminated), a limit, anything: the child goes too
        _stop_child(p, signal.SIGTERM, grace)
        raise
    finally:
        sel.close()
        p.stdout.close()
        p.stderr.close()
    return subprocess.CompletedProcess(
        p.args,
        p.returncode,
        out[p.stdout].decode(errors="replace"),
        out[p.stderr].decode(errors="replace"),
    )


def first_said(stderr, prefix="iosweep:"):
    """The line of a child's stderr that says what went wrong: its first `prefix` line, else its
    first line that is not Open MPI's rules of dashes; '' when it said nothing."""
    lines = [ln.strip() for ln in stderr.splitlines()]
    said = [ln for ln in lines if ln.startswith(prefix)] or [ln for ln in lines if ln.strip("-")]
    return said[0] if said else ""


def job(cmd, timeout, what, env=None):
    """Runs a job (mpirun iosweep ..., fio ...) and returns its CompletedProcess when it exits
    with 0. Otherwise stops in one line naming `what` and the line the job said: status 2 when
    iosweep refused its arguments (exit 2 and an `iosweep:` line; nothing of the job was made),
    status 1 for any other failure, a hang past `timeout` seconds or endless output."""
    try:
        p = run_child(cmd, timeout=timeout, env=env)
    except ChildError as e:
        stop(f"{what}: {os.path.basename(str(cmd[0]))} {e}; stopped", 1)
    except OSError as e:
        stop(f"{what}: cannot run {cmd[0]} ({e.strerror})", 1)
    if p.returncode != 0:
        said = first_said(p.stderr) or first_said(p.stdout) or "no message"
        refused = p.returncode == 2 and said.startswith("iosweep:")
        stop(
            f"{what}: {os.path.basename(str(cmd[0]))} exited {p.returncode}: {said}",
            2 if refused else 1,
        )
    return p


def save_figure(fig, path, option="--output"):
    """Writes a matplotlib figure to `path` (checked by output_file) whole or not at all: into a
    file of its own beside it, then renamed over it; a failure leaves no file behind and stops
    with status 1."""
    import tempfile

    folder, name = os.path.split(path)
    ext = os.path.splitext(name)[1].lstrip(".").lower()
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=f".{ext}", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fig.savefig(fh, dpi=100, format=ext)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, path)
    except OSError as e:
        stop(f"{option}: cannot write {shown(path)}: {e.strerror or e}", 1)
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)


# ----------------------------------------------------------------------------- main


class Terminated(BaseException):
    """SIGTERM, raised where the script is so that its clean-up runs (see guard)."""


def _on_sigterm(signum, frame):
    raise Terminated()


def guard(main):
    """Runs main() and returns its status. Ctrl-C ends in one line and 130, SIGTERM in one line
    and 143, after the script's own `finally` clean-up; a closed stdout (`| head`) ends quietly;
    any other exception, which bad input never reaches, in one line and status 1."""
    signal.signal(signal.SIGTERM, _on_sigterm)
    if not sys.warnoptions:  # a library's warning would be a second line on stderr
        warnings.simplefilter("ignore")
    try:
        return main()
    except KeyboardInterrupt:
        stop("interrupted (SIGINT); nothing of this run is left", 130)
    except Terminated:
        stop("terminated (SIGTERM); nothing of this run is left", 143)
    except BrokenPipeError:
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 1
    except Exception as e:  # the last resort; every input is checked before this
        stop(f"unexpected error: {type(e).__name__}: {e}", 1)
