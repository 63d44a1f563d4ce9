"""What iosweep's scripts check of their arguments before anything runs or is written.

    import iosweep_checks as checks
    ap = checks.Parser(...)                                  # argparse, errors in one line, 2
    ap = checks.doc_parser(__doc__)                          # the same, --help the docstring
    ap.add_argument("--width", type=checks.number(1, 40, "inches"))
    ap.add_argument("--pairs", type=checks.count(1, 100))
    checks.value("--seed", args.seed, checks.count(0, 2**63 - 1))   # the same, after parsing
    checks.binary("--bin", args.bin)                         # an executable regular file
    checks.sizes(args.bin, ("--size", args.size, {"lo": 16 << 20, "multiple": 16 << 20}))
    checks.work_folder("--dir", args.dir)                    # a writable folder on storage
    checks.output_file("-o", args.output, suffixes=checks.plot_suffixes(), inputs=[results])
    checks.output_folder("--csv", args.csv)                  # a folder to write files into
    checks.input_file("outputs", path, 64 << 20)             # a regular file of bounded size
    checks.run_id("--run", args.run); checks.split_run("r.h5:RUN_ID")
    checks.check_space("--size", folder, files, size)        # iosweep's free-space rule
    checks.write_output("--csv", path, text); checks.save_figure(fig, path)  # whole or nothing

Running children and ending (job, run_child, guard, stop) are iosweep_jobs', re-exported here.

Every refusal is one line on stderr, `<script>: <argument>: <problem>`, with status 2, before
anything is created: control characters in a value are shown escaped (\\n, \\x1b), as iosweep
shows them. Numbers are finite and bounded, sizes are parsed by the binary itself
(`iosweep units`, with a timeout and bounded output), folders and output paths are on storage.
"""
import argparse
import math
import os
import re
import stat

import iosweep_common as common
from iosweep_jobs import (  # noqa: F401 (re-exported: scripts use iosweep_checks alone)
    ChildError,
    Terminated,
    first_said,
    emulated_nodes,
    guard,
    iosweep,
    job,
    job_timeout,
    mpirun,
    one_line,
    run_child,
    stop,
    sweep_points,
    written_ids,
    written_run,
)

# -------------------------------------------------------------------------- messages


def shown(value):
    """A value as messages quote it: '...', control characters escaped, at most 200 characters."""
    s = one_line(value)
    return f"'{s[:200]}...'" if len(s) > 200 else f"'{s}'"


class Parser(argparse.ArgumentParser):
    """argparse whose errors are one line naming the argument, with status 2 (argparse itself
    prints its usage and the error on two lines)."""

    def error(self, message):
        stop(self.refusal(message))

    @staticmethod
    def refusal(message):
        """The line of an argparse error: the argument it is about first."""
        if message.startswith("unrecognized arguments: "):
            given = message.removeprefix("unrecognized arguments: ")
            first = given.split(" ")[0]
            return (
                f"{first}: not an argument of this script"
                f" (unrecognized arguments: {given}; see --help)"
            )
        if message.startswith("the following arguments are required: "):
            return f"{message.removeprefix('the following arguments are required: ')}: required"
        return message.removeprefix("argument ")


class PlainParser(Parser):
    """A Parser whose line keeps argparse's own words ("unrecognized arguments: --frob"), as
    the dfs scripts have always said them."""

    @staticmethod
    def refusal(message):
        return message


def doc_parser(doc, skip=0, cls=Parser, **kwargs):
    """A Parser (or `cls`) whose --help is a script's docstring as written: its first paragraph
    the description, the paragraphs after the next `skip` ones the epilog."""
    parts = doc.split("\n\n")
    return cls(
        description=parts[0],
        epilog="\n\n".join(parts[1 + skip :]),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        **kwargs,
    )


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


def value(option, text, parse):
    """`text` parsed by an argparse type such as count() or number(), for an option checked
    after parsing (one that only some forms of a command take); stops naming `option`."""
    try:
        return parse(text)
    except argparse.ArgumentTypeError as e:
        stop(f"{option}: {e}")


def whole_numbers(args, *bounds):
    """Each attribute of `args` named in `bounds` ((name, lo, hi), given as text) made a whole
    number from lo to hi, or a stop naming --name (the dfs scripts' words for count())."""
    for name, lo, hi in bounds:
        v = getattr(args, name)
        if not re.fullmatch(r"[0-9]{1,30}", v) or not lo <= int(v) <= hi:
            stop(f"--{name}: must be a whole number from {lo} to {hi} (found {shown(v)})")
        setattr(args, name, int(v))


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
    """([byte counts], "") of `iosweep units TEXTS` (iosweep_common.units), or (None, what
    iosweep said) when it refused one; stops naming --bin when the binary could not answer."""
    try:
        return common.units(binary, *texts), ""
    except common.UnitsError as e:
        if e.status != 2:
            stop(f"--bin: {e}")
        return None, str(e)


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
    """The byte counts of sizes from iosweep's own parser (`iosweep units`, run by
    iosweep_common.units with a timeout and bounded output), each item
    (option, text, bounds) with bounds a dict of lo, hi (bytes, default 1 byte to 1 TiB),
    multiple, lo_why and multiple_why; stops with one line naming the first option refused.
    One run of the binary when all are sizes, one per size to name the one that is not."""
    counts, why = _units(binary, [text for _, text, _ in items])
    if counts is None:
        for option, text, _ in items:
            one, why_one = _units(binary, [text])
            if one is None:
                stop(f"{option}: {why_one}")
        stop(f"--bin: {binary} units refused the sizes together, none alone: {why}")
    return [_bounded(option, text, n, **b) for (option, text, b), n in zip(items, counts)]


# The bounds of a --size whose files hold whole 16 MiB sequential records, iosweep's default.
WHOLE_RECORDS = {
    "lo": 16 << 20,
    "hi": 1 << 40,
    "multiple": 16 << 20,
    "lo_why": "must hold at least one 16 MiB sequential record",
    "multiple_why": "whole 16 MiB sequential records",
}


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


def _stat(option, path, is_kind, kind):
    """os.stat of `path`; stops unless it exists and its mode passes `is_kind` (S_ISDIR...)."""
    try:
        st = os.stat(path)
    except OSError as e:
        stop(f"{option}: {shown(path)}: {e.strerror}")
    if not is_kind(st.st_mode):
        stop(f"{option}: {shown(path)} is not {kind}")
    return st


def work_folder(option, path):
    """`path` as an absolute path, when it is an existing, writable folder on storage."""
    if not path:
        stop(f"{option}: is empty; expected a folder")
    _stat(option, path, stat.S_ISDIR, "a folder")
    kind = _pseudo(path)
    if kind:
        stop(f"{option}: {shown(path)} is on {kind}, a pseudo file system, not storage")
    if not os.access(path, os.W_OK | os.X_OK):
        stop(f"{option}: {shown(path)} is not writable")
    return os.path.abspath(path)


def output_file(option, path, suffixes=None, new=False, what="file", inputs=()):
    """`path` as an absolute path, when a file can be written there: its folder exists, is
    writable and on storage; an existing file there is a regular file (not a symbolic link),
    writable and none of the command's `inputs`, or refused with `new`; with `suffixes`, its name
    ends in one of them."""
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
        for i in inputs:
            try:
                same = os.path.samefile(full, i)
            except OSError:
                same = False
            if same:
                stop(f"{option}: {shown(path)} is an input of this command")
    return full


def output_folder(option, path):
    """`path` as an absolute path, when files can be written into it: an existing folder (not a
    symbolic link) as work_folder checks it, or a new one in such a folder."""
    if not path:
        stop(f"{option}: is empty; expected a folder")
    if os.path.islink(path):
        stop(f"{option}: {shown(path)} is a symbolic link; name the folder itself")
    if os.path.lexists(path):
        return work_folder(option, path)
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        stop(f"{option}: {shown(path)}: folder {shown(parent)} does not exist")
    work_folder(option, parent)
    return os.path.abspath(path)


def input_file(option, path, max_bytes):
    """Stops unless `path` is a readable regular file of at most `max_bytes` (a FIFO, a device
    such as /dev/zero or a folder would be read without end or not at all)."""
    st = _stat(option, path, stat.S_ISREG, "a regular file")
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


BIN_HELP = (
    "the iosweep binary, an executable file; its `units` command parses the sizes first"
    " (default: build/iosweep of this source tree)"
)


def binary(option, path):
    """`path` as an absolute path, when it is an executable regular file."""
    if not path or not os.path.isfile(path) or not os.access(path, os.X_OK):
        stop(f"{option}: {one_line(path)} is not an executable (cmake --build build)")
    return os.path.abspath(path)


# ------------------------------------------------------------------------------ run ids

RUN_ID_SHAPE = re.compile(r"\d{8}T\d{6}\.\d{3}Z-[0-9a-f]{8}")


def run_id(option, text):
    """Stops unless `text` is shaped like a run id (YYYYMMDDTHHMMSS.mmmZ-xxxxxxxx)."""
    if not RUN_ID_SHAPE.fullmatch(text):
        stop(f"{option}: {shown(text)} is not shaped like a run id (YYYYMMDDTHHMMSS.mmmZ-xxxxxxxx)")


def split_run(arg):
    """(path, run id or None) of `RESULTS[:RUN_ID]`, split at the last ':' only when what follows
    is shaped like a run id, as `iosweep show` splits it: paths may contain ':'."""
    head, sep, tail = str(arg).rpartition(":")
    if sep and head and RUN_ID_SHAPE.fullmatch(tail):
        return head, tail
    return str(arg), None


# ------------------------------------------------------------------------------ writing


def write_whole(path, data):
    """Writes `data` (str, bytes, or a function that writes to a binary file) to `path` whole or
    not at all: into a file of its own in the same folder, renamed over `path` once complete, so
    that a reader never sees half a file and a failure leaves nothing behind. Raises OSError."""
    import tempfile

    folder, name = os.path.split(os.path.abspath(path))
    ext = os.path.splitext(name)[1]
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=ext, dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            if callable(data):
                data(fh)
            else:
                fh.write(data.encode() if isinstance(data, str) else data)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)  # as open() would have made it
        os.replace(tmp, path)
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)


def write_output(option, path, data):
    """write_whole for a script's output (checked by output_file): a failure stops with one line
    naming `option` and status 1."""
    try:
        write_whole(path, data)
    except OSError as e:
        stop(f"{option}: cannot write {shown(path)}: {e.strerror or e}", 1)


def save_figure(fig, path, option="--output"):
    """Writes a matplotlib figure to `path`, in the format of its extension, as write_output."""
    ext = os.path.splitext(path)[1].lstrip(".").lower()
    write_output(option, path, lambda fh: fig.savefig(fh, dpi=100, format=ext))
