"""How iosweep's commands run their children: bounded in time and output, stopped cleanly.

    p = job(["mpirun", ...], job_timeout(bytes_moved, seconds, ranks), "the job")
    p = run_child(cmd, timeout=30, limit=4096)   # CompletedProcess; ChildError past limits
    iosweep(binary, 4, ["run", ...], timeout, hostfile=None)   # mpirun, then job()

A child runs in a process group of its own with no stdin; its output is read up to a limit and
its run up to a timeout, past which it is stopped (SIGTERM, SIGKILL after a grace). A failed job
raises Stop: status 1, or 2 when iosweep refused its arguments. KeyboardInterrupt and SIGTERM
(core.command.Terminated) reach the command's own clean-up, the child getting one SIGINT or
SIGTERM first.
"""
import os
import re
import selectors
import signal
import subprocess
import time

from iosweep_tools.core.errors import Stop
from iosweep_tools.core.launch import mpirun
from iosweep_tools.core.text import size_text

# A job's timeout: a floor for its start (mpirun, MPI_Init, file creation, the results file)
# plus its timed seconds and its bytes at 1 MiB/s, a rate any storage being measured exceeds.
JOB_FLOOR_S = 300
JOB_FLOOR_BPS = 1 << 20


def job_timeout(bytes_moved=0, seconds=0.0, ranks=1):
    """Seconds after which a job that moves `bytes_moved` bytes, runs `seconds` of timed windows
    and starts `ranks` ranks is taken to hang."""
    return JOB_FLOOR_S + 2 * seconds + bytes_moved / JOB_FLOOR_BPS + ranks


def sweep_points(n):
    """The points of iosweep's --sweep 1:n and --streams 1:n: 1, the powers of two below n, n."""
    out, k = [], 1
    while k < n:
        out.append(k)
        k *= 2
    return out + [n]


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


def _read_all(p, out, deadline, timeout, limit):
    """Reads the child's pipes into `out` ({pipe: bytearray}) until both close, or 5 s after it
    exited (a grandchild may hold them); ChildError past `deadline` or `limit` bytes."""
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
                drain_until = now + 5  # what it left in its pipes
            if drain_until is not None and now > drain_until:
                break
            for key, _ in sel.select(timeout=0.5):
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    sel.unregister(key.fileobj)
                    continue
                buf = out[key.fileobj]
                if len(buf) + len(chunk) > limit:
                    raise ChildError(f"printed more than {size_text(limit)}")
                buf += chunk
    finally:
        sel.close()


def run_child(cmd, timeout, env=None, limit=16 << 20, grace=15):
    """Runs `cmd` (no stdin) and returns its CompletedProcess with stdout and stderr as text, each
    kept up to `limit` bytes. Raises ChildError when it runs past `timeout` seconds or prints
    more than `limit` bytes (it is then stopped: SIGTERM, SIGKILL `grace` seconds later), OSError
    when it cannot start. On KeyboardInterrupt (or SIGTERM, see core.command.guard) it passes
    SIGINT (SIGTERM) on, so that mpirun and iosweep clean up, waits `grace` seconds, and
    re-raises."""
    # A process group of its own: Ctrl-C at a terminal reaches the command alone, which passes
    # one SIGINT on (mpirun takes a second one within 5 s as "kill the ranks at once").
    p = subprocess.Popen(
        [str(c) for c in cmd],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        process_group=0,
    )
    out = {p.stdout: bytearray(), p.stderr: bytearray()}
    deadline = time.monotonic() + timeout
    try:
        _read_all(p, out, deadline, timeout, limit)
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
        p.stdout.close()
        p.stderr.close()
    return subprocess.CompletedProcess(
        p.args,
        p.returncode,
        out[p.stdout].decode(errors="replace"),
        out[p.stderr].decode(errors="replace"),
    )


# Lines of Open MPI's that explain nothing about a job's status. plm_rsh sets each rsh agent it
# starts in a process group of its own from both sides, the child with setpgid(0, 0) and the
# parent (mpirun, or an orted of the launch tree) with setpgid(pid, pid); when the child has
# already exec'd, the parent's call fails with EACCES and says so, harmlessly.
NOISE = (re.compile(r"(\[[^]]*\] )?plm:rsh: Warning: setpgid\(\d+,\d+\) failed in parent .*"),)


def said_lines(text):
    """The lines of a child's output that say something: stripped, without blank lines, Open
    MPI's rules of dashes and its NOISE."""
    lines = (ln.strip() for ln in text.splitlines())
    return [ln for ln in lines if ln.strip("-") and not any(n.fullmatch(ln) for n in NOISE)]


def first_said(stderr, prefix="iosweep:", most=3):
    """What a child's stderr says went wrong: its first `prefix` line, else its first `most`
    lines of said_lines joined by ' | ' (Open MPI explains a job's end over several); '' when
    it said nothing."""
    lines = said_lines(stderr)
    mine = [ln for ln in lines if ln.startswith(prefix)]
    return mine[0] if mine else " | ".join(lines[:most])


def launched(cmd, timeout, what, env=None):
    """Runs a job and returns its CompletedProcess whatever its exit status; raises Stop (status
    1) naming `what` when it hangs past `timeout` seconds, prints without end or cannot start."""
    try:
        return run_child(cmd, timeout=timeout, env=env)
    except ChildError as e:
        raise Stop(f"{what}: {os.path.basename(str(cmd[0]))} {e}; stopped", 1) from None
    except OSError as e:
        raise Stop(f"{what}: cannot run {cmd[0]} ({e.strerror})", 1) from None


def refused(p):
    """True when the job's iosweep refused its arguments (exit 2 and an `iosweep:` line): nothing
    of the job was made."""
    return p.returncode == 2 and any(ln.startswith("iosweep:") for ln in said_lines(p.stderr))


def job(cmd, timeout, what, env=None, name=None):
    """Runs a job (mpirun iosweep ..., fio ...) and returns its CompletedProcess when it exits
    with 0. Otherwise raises Stop naming `what`, the program (`name`, else the command's first
    word: "mpirun" for a job started through nsenter) and the line the job said: status 2 when
    iosweep refused its arguments, status 1 for any other failure, a hang past `timeout` seconds
    or endless output."""
    p = launched(cmd, timeout, what, env)
    if p.returncode != 0:
        said = first_said(p.stderr) or first_said(p.stdout) or "no message"
        raise Stop(
            f"{what}: {name or os.path.basename(str(cmd[0]))} exited {p.returncode}: {said}",
            2 if refused(p) else 1,
        )
    return p


def iosweep(binary, n, args, timeout, what="iosweep", hostfile=None, bind=False):
    """job() of `binary` ARGS under mpirun (core.launch.mpirun)."""
    cmd, env = mpirun(n, hostfile, bind)
    return job(cmd + [str(binary)] + [str(a) for a in args], timeout, what, env=env)
