"""The files and folders of iosweep's commands: checked before anything is written, written whole
or not at all, and the room they need.

    work_folder("--dir", args.dir)                       # a writable folder on storage
    output_file("-o", args.output, suffixes={"png"}, inputs=[results])
    output_folder("--csv", args.csv)                     # a folder to write files into
    input_file("outputs", path, 64 << 20)                # a regular file of bounded size
    check_space("--size", folder, files, size)           # iosweep's free-space rule
    write_output("--csv", path, text); save_figure(fig, path)   # whole or nothing
    with OutputSet() as out: out.stage("--csv", path, text) ...  # a set: whole or nothing

Every refusal raises Stop, `<argument>: <problem>` with status 2, before anything is created;
folders and output paths must be on storage (not /proc, /sys, a device file system).
"""
import os
import stat
import tempfile

from iosweep_tools.core.devices import fs_type
from iosweep_tools.core.errors import Stop
from iosweep_tools.core.text import one_line, shown, size_text

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


def pseudo_fs(path):
    """The pseudo file system `path` (an existing folder) is on, or None."""
    real = os.path.realpath(path)
    for top in ("/proc", "/sys", "/dev"):
        if (real == top or real.startswith(top + "/")) and not real.startswith("/dev/shm"):
            kind = fs_type(real)
            return kind if kind in PSEUDO_FS or top != "/dev" else None
    kind = fs_type(real)
    return kind if kind in PSEUDO_FS else None


def _stat(option, path, is_kind, kind):
    """os.stat of `path`; Stop unless it exists and its mode passes `is_kind` (S_ISDIR...)."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise Stop(f"{option}: {shown(path)}: {e.strerror}") from None
    if not is_kind(st.st_mode):
        raise Stop(f"{option}: {shown(path)} is not {kind}")
    return st


def work_folder(option, path):
    """`path` as an absolute path, when it is an existing, writable folder on storage."""
    if not path:
        raise Stop(f"{option}: is empty; expected a folder")
    _stat(option, path, stat.S_ISDIR, "a folder")
    kind = pseudo_fs(path)
    if kind:
        raise Stop(f"{option}: {shown(path)} is on {kind}, a pseudo file system, not storage")
    if not os.access(path, os.W_OK | os.X_OK):
        raise Stop(f"{option}: {shown(path)} is not writable")
    return os.path.abspath(path)


def _suffix(option, path, full, suffixes, what):
    ext = os.path.splitext(full)[1].lower().lstrip(".")
    if ext not in suffixes:
        found = f"'.{one_line(ext)}'" if ext else "none"
        raise Stop(
            f"{option}: {shown(path)}: the {what} is written by its extension, one of "
            f"{', '.join('.' + s for s in sorted(suffixes))} (found {found})"
        )


def _folder_of(option, path, folder):
    if not os.path.isdir(folder):
        why = "does not exist" if not os.path.lexists(folder) else "is not a folder"
        raise Stop(f"{option}: {shown(path)}: folder {shown(folder)} {why}")
    kind = pseudo_fs(folder)
    if kind:
        raise Stop(f"{option}: {shown(path)} is on {kind}, a pseudo file system, not storage")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise Stop(f"{option}: {shown(path)}: folder {shown(folder)} is not writable")


def _replaceable(option, path, full, what, inputs):
    if os.path.islink(full):
        raise Stop(f"{option}: {shown(path)} is a symbolic link; name the {what} itself")
    if not os.path.isfile(full):
        raise Stop(f"{option}: {shown(path)} exists and is not a regular file")
    if not os.access(full, os.W_OK):
        raise Stop(f"{option}: {shown(path)} is not writable")
    for i in inputs:
        try:
            same = os.path.samefile(full, i)
        except OSError:
            same = False
        if same:
            raise Stop(f"{option}: {shown(path)} is an input of this command")


def output_file(option, path, suffixes=None, new=False, what="file", inputs=()):
    """`path` as an absolute path, when a file can be written there: its folder exists, is
    writable and on storage; an existing file there is a regular file (not a symbolic link),
    writable and none of the command's `inputs`, or refused with `new`; with `suffixes`, its name
    ends in one of them."""
    if not path:
        raise Stop(f"{option}: is empty; expected a {what}")
    full = os.path.abspath(path)
    if suffixes is not None:
        _suffix(option, path, full, suffixes, what)
    _folder_of(option, path, os.path.dirname(full))
    if os.path.lexists(full):
        if new:
            raise Stop(f"{option}: {shown(path)} exists; expected a new {what}")
        _replaceable(option, path, full, what, inputs)
    return full


def output_folder(option, path):
    """`path` as an absolute path, when files can be written into it: an existing folder (not a
    symbolic link) as work_folder checks it, or a new one in such a folder."""
    if not path:
        raise Stop(f"{option}: is empty; expected a folder")
    if os.path.islink(path):
        raise Stop(f"{option}: {shown(path)} is a symbolic link; name the folder itself")
    if os.path.lexists(path):
        return work_folder(option, path)
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise Stop(f"{option}: {shown(path)}: folder {shown(parent)} does not exist")
    work_folder(option, parent)
    return os.path.abspath(path)


def input_file(option, path, max_bytes):
    """Stop unless `path` is a readable regular file of at most `max_bytes` (a FIFO, a device
    such as /dev/zero or a folder would be read without end or not at all)."""
    st = _stat(option, path, stat.S_ISREG, "a regular file")
    if st.st_size > max_bytes:
        raise Stop(
            f"{option}: {shown(path)} is {size_text(st.st_size)}, more than the "
            f"{size_text(max_bytes)} such a file can be"
        )
    if not os.access(path, os.R_OK):
        raise Stop(f"{option}: {shown(path)} is not readable")


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


# ------------------------------------------------------------------------------- room


def free_bytes(path):
    """Bytes an unprivileged user may still write in the file system of `path` (statvfs), as
    iosweep counts them."""
    v = os.statvfs(path)
    return v.f_bavail * v.f_frsize


def check_space(option, folder, files, size):
    """Stop when `files` files of `size` bytes do not fit the free space of `folder` (iosweep's
    own check, made before any folder of the command's is made)."""
    free = free_bytes(folder)
    if files * size > free:
        raise Stop(
            f"{option}: {files} file(s) of {size_text(size)} need "
            f"{size_text(files * size)} in {shown(folder)} but only "
            f"{size_text(free)} are free"
        )


def check_inodes(option, folder, ranks, per_rank):
    """Stop when `ranks` x `per_rank` new files and folders do not fit the free inodes of
    `folder`'s file system (statvfs; a file system that does not count them, such as btrfs,
    passes)."""
    v = os.statvfs(folder)
    need = ranks * per_rank
    if v.f_files and need > v.f_favail:
        raise Stop(
            f"{option}: {ranks} ranks x {per_rank} files and folders need {need} inodes in"
            f" {shown(folder)} but only {v.f_favail} are free"
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
    """Stop when `ranks` processes of about `per_rank` bytes each do not fit MemAvailable."""
    avail = mem_available()
    if avail and ranks * per_rank > avail:
        raise Stop(
            f"{option}: {ranks} ranks need about {size_text(ranks * per_rank)} "
            f"({size_text(per_rank)} each) but this machine has "
            f"{size_text(avail)} available (MemAvailable)"
        )


# ------------------------------------------------------------------------------ writing


def _staged(path, data):
    """`data` (str, bytes, or a function that writes to a binary file) written into a new file of
    its own beside `path` (mkstemp: nothing of anyone else's), with the mode open() would give
    it; returns that file's path. On failure it is removed again and OSError raised."""
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
    except BaseException:
        os.unlink(tmp)
        raise
    return tmp


def write_whole(path, data):
    """Writes `data` (str, bytes, or a function that writes to a binary file) to `path` whole or
    not at all: into a file of its own in the same folder, renamed over `path` once complete, so
    that a reader never sees half a file and a failure leaves nothing behind. Raises OSError."""
    tmp = _staged(path, data)
    try:
        os.replace(tmp, path)
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)


class OutputSet:
    """Several outputs of one command written as one set, whole or not at all:

        with OutputSet() as out:
            out.stage("--csv", path, text)      # into a file of its own beside `path`
            out.stage("--json", other, text)
        # every file renamed into place once all were written; on any failure none was, and
        # the files staged so far are removed (made by mkstemp: they are the set's own)

    A failure to write raises Stop naming the option and the file, status 1. `after` functions
    (added with then()) run once every file is in place; a folder made by folder() for the set
    is removed again when the set is not written."""

    def __init__(self):
        self.staged = []  # (option, temporary file, path)
        self.after = []
        self.made = []  # (folder, device, inode) this set made

    def folder(self, option, path):
        """Folder `path`, made when missing (its parent exists, output_folder checked it); a
        folder made here is removed again, while empty, when the set is not written."""
        if os.path.isdir(path):
            return
        try:
            os.mkdir(path)
        except OSError as e:
            raise Stop(f"{option}: cannot make {shown(path)}: {e.strerror or e}", 1) from None
        st = os.stat(path)
        self.made.append((path, st.st_dev, st.st_ino))

    def stage(self, option, path, data):
        try:
            tmp = _staged(path, data)
        except OSError as e:
            raise Stop(
                f"{option}: cannot write {shown(path)}: {e.strerror or e}; nothing of this"
                " command's output was written",
                1,
            ) from None
        self.staged.append((option, tmp, path))
        return tmp

    def then(self, fn):
        self.after.append(fn)

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        if kind is not None:
            self.abort()
            return False
        for option, tmp, path in self.staged:
            try:
                os.replace(tmp, path)
            except OSError as e:
                self.abort()
                raise Stop(f"{option}: cannot write {shown(path)}: {e.strerror or e}", 1) from None
        self.staged = []
        for fn in self.after:
            fn()
        return False

    def abort(self):
        for _, tmp, _ in self.staged:
            if os.path.lexists(tmp):
                os.unlink(tmp)
        self.staged = []
        for path, dev, ino in reversed(self.made):
            st = os.stat(path)
            if (st.st_dev, st.st_ino) == (dev, ino) and not os.listdir(path):
                os.rmdir(path)
        self.made = []


def write_output(option, path, data):
    """write_whole for a command's output (checked by output_file): a failure raises Stop naming
    `option`, status 1."""
    try:
        write_whole(path, data)
    except OSError as e:
        raise Stop(f"{option}: cannot write {shown(path)}: {e.strerror or e}", 1) from None


def figure_data(fig, path):
    """What writes matplotlib figure `fig` to a binary file in the format of `path`'s extension
    (for write_output and OutputSet.stage)."""
    ext = os.path.splitext(path)[1].lstrip(".").lower()
    return lambda fh: fig.savefig(fh, dpi=100, format=ext)


def save_figure(fig, path, option="--output"):
    """Writes a matplotlib figure to `path`, in the format of its extension, as write_output."""
    write_output(option, path, figure_data(fig, path))
