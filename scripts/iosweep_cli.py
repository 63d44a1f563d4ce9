"""What iosweep-compare, iosweep-load and iosweep-report share on their command lines: one-line
refusals, checked output paths, whole-or-nothing writes, a launcher that lets no traceback
through, and `RESULTS[:RUN_ID]` split as `iosweep show` splits it.

    import iosweep_cli as cli
    ap = cli.one_line_parser(prog="iosweep-x")          # refusals: "iosweep-x: problem", exit 2
    why = cli.output_problem("out.csv", exts=(".csv",))  # None, or what is wrong with the path
    cli.write_atomically("out.csv", text)
    path, run_id = cli.split_run("r.h5:20261130T154958.212Z-a5a9772d")
    sys.exit(cli.guarded(main))                          # in a launcher
"""
import os
import re
import stat
import sys

from iosweep_common import ResultsError, fail, fs_type, open_results


RUN_ID_SHAPE = re.compile(r"\d{8}T\d{6}\.\d{3}Z-[0-9a-f]{8}")


def split_run(arg):
    """(path, run id or None) of `RESULTS[:RUN_ID]`, split at the last ':' only when what follows
    is shaped like a run id (YYYYMMDDTHHMMSS.mmmZ-xxxxxxxx), as `iosweep show` splits it: paths
    may contain ':'."""
    head, sep, tail = str(arg).rpartition(":")
    if sep and head and RUN_ID_SHAPE.fullmatch(tail):
        return head, tail
    return str(arg), None


def looks_like_results(path):
    """True when `path` is a regular file that open_results accepts (read without following
    anything that is not a regular file)."""
    try:
        open_results(path).close()
        return True
    except ResultsError:
        return False


# File systems nothing may be written to: the kernel's pseudo file systems.
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
    "pstore",
    "bpf",
    "configfs",
    "fusectl",
    "efivarfs",
    "binfmt_misc",
    "mqueue",
    "autofs",
}


def output_problem(path, exts=None, folder=False, inputs=()):
    """None when `path` may be written as an output, else the problem in a few words: its folder
    missing or not writable, on a pseudo file system (/proc, /sys), an existing path that is not
    a regular file (a FIFO would block the writer; a folder), a name not ending in one of `exts`
    (lower case, with the dot), or one of the `inputs`. With `folder`, `path` is a folder to
    write files into: it may exist (as a folder) or be created in an existing one."""
    path = str(path)
    if not path:
        return "empty path"
    if exts and not path.lower().endswith(tuple(exts)):
        return f"'{path}' must end in {' or '.join(exts)}"
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        return f"folder '{parent}' does not exist"
    if fs_type(parent) in PSEUDO_FS:
        return f"'{path}' is on {fs_type(parent)}, a pseudo file system"
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    except OSError as e:
        return f"'{path}': {e.strerror}"
    if os.path.islink(path):
        return f"'{path}' is a symbolic link"
    if folder:
        if st is not None and not stat.S_ISDIR(st.st_mode):
            return f"'{path}' exists and is not a folder"
        where = path if st is not None else parent
    else:
        if st is not None and not stat.S_ISREG(st.st_mode):
            return f"'{path}' exists and is not a regular file"
        for i in inputs:
            try:
                if st is not None and os.path.samefile(path, i):
                    return f"'{path}' is an input of this command"
            except OSError:
                pass
        where = parent
    if not os.access(where, os.W_OK | os.X_OK):
        return f"folder '{where}' is not writable"
    return None


def positive_number(v):
    """A finite number > 0 from text, or None."""
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if x > 0 and x != float("inf") else None


def one_line_parser(*args, **kwargs):
    """An argparse parser whose every refusal is one line `<script>: problem` and status 2 (as
    fail), instead of argparse's usage line and message."""
    import argparse

    class OneLine(argparse.ArgumentParser):
        def error(self, message):
            fail(" ".join(message.split()))

    return OneLine(*args, **kwargs)


def write_atomically(path, data):
    """Writes `data` (str or bytes) to `path` through a temporary file in the same folder,
    renamed over `path` once complete: a reader never sees half a file, and a failure leaves
    nothing behind."""
    import tempfile

    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode() if isinstance(data, str) else data)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)  # as open() would have made it
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def guarded(main, *args):
    """main(*args), for a script's launcher: a closed pipe (`| head`) ends it quietly (status 1),
    Ctrl-C with 130, and an error no check foresaw with one line instead of a traceback (status
    2; IOSWEEP_TRACEBACK=1 lets the traceback through)."""
    try:
        return main(*args)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # nothing more reaches the closed pipe at exit
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # the last line of defence: every expected refusal is named earlier
        if os.environ.get("IOSWEEP_TRACEBACK"):
            raise
        fail(f"unexpected {type(e).__name__}: {e} (IOSWEEP_TRACEBACK=1 shows where)")
