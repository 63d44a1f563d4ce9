"""The top level of every command (its cli module's main): every way out is one line on stderr,
`<command>: <what happened>`, and an exit status.

    def main(argv=None):
        return command.guard(_main, argv)     # the launcher: sys.exit(main())

guard runs the command: a Stop (core.errors) is its line and status (2 for bad input, 1 for a
failure); Ctrl-C ends in one line and 130, SIGTERM in one line and 143, after the command's own
`finally` clean-up; a closed stdout (`| head`) ends quietly with 1; any other exception, which
bad input never reaches, in one line and status 1 (IOSWEEP_TRACEBACK=1 lets its traceback
through). plain is the same for a Stop alone, for the commands that keep Python's own handling
of everything else (dfs-bed, dfs-vs-ior). Only the cli modules call them: this is where a
command's one line is printed, and nowhere else.
"""
import os
import signal
import sys
import warnings

from iosweep_tools.core.errors import Stop
from iosweep_tools.core.text import one_line


class Terminated(BaseException):
    """SIGTERM, raised where the command is so that its clean-up runs (see guard)."""


def _on_sigterm(signum, frame):
    raise Terminated()


def said(stop):
    """Prints `stop`'s one line, `<command>: <line>` (control characters escaped), to stderr and
    returns its status."""
    print(f"{os.path.basename(sys.argv[0])}: {one_line(stop)}", file=sys.stderr)
    return stop.status


def plain(main, *args):
    """main(*args)'s status, a Stop said in its one line."""
    try:
        return main(*args)
    except Stop as e:
        return said(e)


def guard(main, *args):
    """main(*args)'s status, every way out in one line (see above)."""
    signal.signal(signal.SIGTERM, _on_sigterm)
    if not sys.warnoptions:  # a library's warning would be a second line on stderr
        warnings.simplefilter("ignore")
    try:
        return main(*args)
    except Stop as e:
        return said(e)
    except KeyboardInterrupt:
        return said(Stop("interrupted (SIGINT): stopped, its temporary files removed", 130))
    except Terminated:
        return said(Stop("terminated (SIGTERM): stopped, its temporary files removed", 143))
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # nothing more reaches the closed pipe at exit
        return 1
    except Exception as e:  # the last resort; every input is checked before this
        if os.environ.get("IOSWEEP_TRACEBACK"):
            raise
        why = f"unexpected error: {type(e).__name__}: {e} (IOSWEEP_TRACEBACK=1 shows where)"
        return said(Stop(why, 1))
