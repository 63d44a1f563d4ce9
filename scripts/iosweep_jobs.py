"""How iosweep's scripts run their children and end: one line for every way out.

    import iosweep_jobs as jobs
    p = jobs.job(["mpirun", ...], jobs.job_timeout(bytes_moved, seconds, ranks), "the job")
    p = jobs.run_child(cmd, timeout=30, limit=4096)   # CompletedProcess; ChildError past limits
    jobs.iosweep(binary, 4, ["run", ...], timeout, hostfile=None)  # mpirun, then job()
    run = jobs.written_run("r.h5", tables={})         # iosweep_run.read of what a job wrote
    sys.exit(jobs.guard(main, argv))                  # Ctrl-C: one line, status 130
    jobs.stop("--size: must be positive")             # `<script>: ...` on one line, status 2

A child runs in a process group of its own with no stdin; its output is read up to a limit and
its run up to a timeout, past which it is stopped (SIGTERM, SIGKILL after a grace). A failed job
is one line with status 1 (2 when iosweep refused its arguments). KeyboardInterrupt and SIGTERM
reach the script's own clean-up (its `finally` blocks), the child getting one SIGINT or SIGTERM,
and end in one line with status 130 or 143. iosweep_checks re-exports all of it.
"""
import os
import selectors
import signal
import subprocess
import sys
import time
import warnings

import iosweep_common as common
from iosweep_common import fail as stop  # `<script>: msg` as one line, and exit
from iosweep_common import one_line  # noqa: F401 (re-exported: the scripts' name for it)


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
    # A process group of its own: Ctrl-C at a terminal reaches the script alone, which passes
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


# ------------------------------------------------------------------------ iosweep jobs


def sweep_points(n):
    """The points of iosweep's --sweep 1:n and --streams 1:n: 1, the powers of two below n, n."""
    out, k = [], 1
    while k < n:
        out.append(k)
        k *= 2
    return out + [n]


def emulated_nodes(path, nodes, slots):
    """Writes a host file of `nodes` emulated nodes (node01, node02 ...) of `slots` slots each
    (scripts/cluster/emu-rsh starts them) to `path` and returns it."""
    path.write_text("".join(f"node{i + 1:02d} slots={slots}\n" for i in range(nodes)))
    return path


def mpirun(n, hostfile=None, bind=False):
    """(command, environment) of mpirun starting `n` ranks with the launch environment:
    unbound (--bind-to none) unless `bind` (mpirun's own binding), on this machine
    (--oversubscribe) or, with `hostfile`, round-robin over its emulated nodes."""
    env = common.launch_env()
    cmd = ["mpirun"] + ([] if bind else ["--bind-to", "none"]) + ["-np", str(n)]
    if hostfile:
        cmd += ["--hostfile", str(hostfile), "--map-by", "node"]
        env = common.emulated_env(env)
    else:
        cmd += ["--oversubscribe"]
    return cmd, env


def iosweep(binary, n, args, timeout, what="iosweep", hostfile=None, bind=False):
    """job() of `binary` ARGS under mpirun (see mpirun)."""
    cmd, env = mpirun(n, hostfile, bind)
    return job(cmd + [str(binary)] + [str(a) for a in args], timeout, what, env=env)


def written_run(path, run_id=None, what="iosweep", **spec):
    """iosweep_run.read (`spec`: summary, attrs, tables) of a results file that a job of the
    script wrote (the last run when `run_id` is None). Stops with status 1 when it cannot be
    read or has no summary rows: the job's failure, not bad input."""
    import iosweep_run

    try:
        run = iosweep_run.read(path, run_id, **spec)
    except iosweep_run.ResultsError as e:
        stop(f"the results {what} wrote cannot be read: {e}", 1)
    if not len(run.summary):
        stop(f"{what} wrote no summary rows in run {run.id} of {path}", 1)
    return run


def written_ids(path, what="iosweep"):
    """The run ids of a results file that a job of the script wrote; stops as written_run."""
    import iosweep_run

    try:
        ids = iosweep_run.ids(path)
    except iosweep_run.ResultsError as e:
        stop(f"the results {what} wrote cannot be read: {e}", 1)
    if not ids:
        stop(f"{what} wrote no run to {path}", 1)
    return ids


# ----------------------------------------------------------------------------- main


class Terminated(BaseException):
    """SIGTERM, raised where the script is so that its clean-up runs (see guard)."""


def _on_sigterm(signum, frame):
    raise Terminated()


def guard(main, *args):
    """Runs main(*args) and returns its status: every script's top level. Ctrl-C ends in one
    line and 130, SIGTERM in one line and 143, after the script's own `finally` clean-up; a
    closed stdout (`| head`) ends quietly with 1; any other exception, which bad input never
    reaches, in one line and status 1 (IOSWEEP_TRACEBACK=1 lets its traceback through)."""
    signal.signal(signal.SIGTERM, _on_sigterm)
    if not sys.warnoptions:  # a library's warning would be a second line on stderr
        warnings.simplefilter("ignore")
    try:
        return main(*args)
    except KeyboardInterrupt:
        stop("interrupted (SIGINT): stopped, its temporary files removed", 130)
    except Terminated:
        stop("terminated (SIGTERM): stopped, its temporary files removed", 143)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # nothing more reaches the closed pipe at exit
        return 1
    except Exception as e:  # the last resort; every input is checked before this
        if os.environ.get("IOSWEEP_TRACEBACK"):
            raise
        stop(f"unexpected error: {type(e).__name__}: {e} (IOSWEEP_TRACEBACK=1 shows where)", 1)
