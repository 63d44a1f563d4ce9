"""Node lists made host names: Slurm's compressed syntax (n[1-4,7], gpu[01-02]) expanded, every
name checked to be a host name, none listed twice; and the two host-file formats of
make-threadlist.

    names = node_names(["node[01-16]"])          # Stop naming the list when a name is bad
    openmpi_lines(names, 32), iozone_lines(names, 2, "/scratch/{node}", "iozone")
"""
import os
import re

from iosweep_tools.core.errors import Stop
from iosweep_tools.core.text import shown

MAX_NODES = 65536  # node names in one list
MAX_SLOTS = 4096  # ranks (threads) per node
MAX_THREADS = 65536  # lines of the IOzone format: nodes x slots
# A host name as the host file takes it: letters, digits, '-', '.', '_' (no spaces, '=', '#' or
# anything else the host file's syntax reads), starting with a letter, a digit or '_'.
HOST = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,252}")


def split_top(text, where):
    """Splits on commas outside brackets."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise Stop(f"{where}: unbalanced ']' in node list {shown(text)}")
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if depth != 0:
        raise Stop(f"{where}: unbalanced '[' in node list {shown(text)}")
    parts.append(cur)
    return [p for p in (x.strip() for x in parts) if p]


def ranges(item, where):
    """(head, [(lo, hi, width)], tail) of the first bracket of `item`, or None without one."""
    m = re.search(r"\[([^\]]*)\]", item)
    if not m:
        return None
    out = []
    for rng in m.group(1).split(","):
        rng = rng.strip()
        r = re.fullmatch(r"(\d{1,9})(?:-(\d{1,9}))?", rng)
        if not r:
            raise Stop(
                f"{where}: {shown(rng)} in {shown(item)} is not a number or a range"
                " such as 1-4 or 01-16"
            )
        lo, hi = r.group(1), r.group(2) or r.group(1)
        if int(hi) < int(lo):
            raise Stop(f"{where}: range {shown(rng)} in {shown(item)} goes backwards")
        out.append((int(lo), int(hi), len(lo) if lo.startswith("0") else 0))
    return item[: m.start()], out, item[m.end() :]


def count(item, where):
    """How many names `item` expands to, without expanding it."""
    r = ranges(item, where)
    if r is None:
        return 1
    head, rngs, tail = r
    return sum(hi - lo + 1 for lo, hi, _ in rngs) * count(tail, where)


def expand(item, where):
    """node[01-03,7]x -> node01x node02x node03x node7x (recursively, for several brackets)."""
    r = ranges(item, where)
    if r is None:
        return [item]
    head, rngs, tail = r
    rest = expand(tail, where)
    return [
        f"{head}{n:0{width}d}{t}" for lo, hi, width in rngs for n in range(lo, hi + 1) for t in rest
    ]


def node_names(items, environ=os.environ):
    """The host names of `items` (names and Slurm node lists), or, when there are none, of
    $SLURM_JOB_NODELIST (or $SLURM_NODELIST) in `environ`, each checked, none twice; Stop naming
    where a bad one came from."""
    where = "nodes"
    if not items:
        where = "$SLURM_JOB_NODELIST"
        env = environ.get("SLURM_JOB_NODELIST")
        if env is None and environ.get("SLURM_NODELIST") is not None:
            where, env = "$SLURM_NODELIST", environ["SLURM_NODELIST"]
        if env is None:
            raise Stop("nodes: none given (n[1-4] n7 ...) and not inside a Slurm allocation")
        items = [env]
    parts = [part for it in items for part in split_top(it, where)]
    if not parts:
        raise Stop(f"{where}: {shown(' '.join(items))} names no node")
    total = 0
    for part in parts:
        total += count(part, where)
        if total > MAX_NODES:
            raise Stop(f"{where}: more than {MAX_NODES} nodes")
    names = [n for part in parts for n in expand(part, where)]
    seen = set()
    for n in names:
        if not HOST.fullmatch(n):
            raise Stop(
                f"{where}: {shown(n)} is not a host name (letters, digits, '-', '.', '_';"
                " at most 253)"
            )
        if n in seen:
            raise Stop(f"{where}: node '{n}' is listed twice")
        seen.add(n)
    return names


def openmpi_lines(names, slots):
    """Open MPI's host file: `NAME slots=N` per node."""
    return "".join(f"{n} slots={slots}\n" for n in names)


def iozone_lines(names, slots, workdir, binary):
    """IOzone's -+m threadlist: one line per thread (host, work folder with {node} replaced,
    binary), thread i on node i mod nodes; Stop beyond MAX_THREADS threads."""
    if len(names) * slots > MAX_THREADS:
        raise Stop(
            f"--slots: {len(names)} nodes x {slots} slots is more than {MAX_THREADS} threads"
        )
    lines = []
    for i in range(len(names) * slots):
        node = names[i % len(names)]
        lines.append(f"{node} {workdir.replace('{node}', node)} {binary}\n")
    return "".join(lines)
