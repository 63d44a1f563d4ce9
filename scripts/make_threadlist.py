"""make-threadlist: a round-robin host file from a node list.

    scripts/make-threadlist --slots 32 'node[01-16]' > threadlist          # Open MPI host file
    scripts/make-threadlist --slots 8           # the nodes of $SLURM_JOB_NODELIST
    scripts/make-threadlist --slots 2 n1 n2 n3 n4 --format iozone --workdir /scratch/ioz \\
        --binary /opt/iozone/bin/iozone > threadlist                       # IOzone -+m file

Node names come from the command line (Slurm's compressed syntax is expanded: n[1-4,7],
gpu[01-02]) or, when none are given, from $SLURM_JOB_NODELIST. The Open MPI format has one line
per node, `NAME slots=N`; start with `mpirun --map-by node` to place rank i on node i mod nodes
(iosweep's --placement spread activates ranks in that node-spread order in any case). The IOzone
format has one line per thread - host, work folder, path of the iozone binary - thread i on node
i mod nodes, as the round-robin threadlist of IOzone's cluster mode (-+m).

Refused in one line with status 2, before anything is printed: an empty node list, a name that
is not a host name (letters, digits, '-', '.', '_'; no spaces, newlines, '=' or anything else
that could add host-file syntax such as `n2 slots=999`), a node listed twice, more than 65536
nodes, --slots outside 1..4096, more than 65536 IOzone threads, a --workdir or --binary holding
whitespace or control characters, or either of them without --format iozone.
"""
import argparse
import os
import re
import sys
from iosweep_tools.core import cmdline, command
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


def node_names(args):
    items, where = args.nodes, "nodes"
    if not items:
        where = "$SLURM_JOB_NODELIST"
        env = os.environ.get("SLURM_JOB_NODELIST")
        if env is None and os.environ.get("SLURM_NODELIST") is not None:
            where, env = "$SLURM_NODELIST", os.environ["SLURM_NODELIST"]
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


def main(argv=None):
    """The script; its status (one line and status 130 on Ctrl-C, see iosweep_checks.guard)."""
    return command.guard(_main, argv)


def _main(argv=None):
    ap = cmdline.Parser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__,
    )
    ap.add_argument(
        "nodes",
        nargs="*",
        help="node names or Slurm node lists (default: $SLURM_JOB_NODELIST); host names of"
        f" letters, digits, '-', '.', '_', at most {MAX_NODES} nodes",
    )
    ap.add_argument(
        "--slots",
        type=cmdline.count(1, MAX_SLOTS),
        default=1,
        help=f"ranks (threads) per node, 1 to {MAX_SLOTS} (default 1)",
    )
    ap.add_argument(
        "--format",
        choices=["openmpi", "iozone"],
        default="openmpi",
        help="openmpi: `NAME slots=N` per node (default); iozone: one line per thread, at most"
        f" {MAX_THREADS}",
    )
    ap.add_argument(
        "--workdir",
        type=cmdline.text_value("a folder without whitespace"),
        help="IOzone format (required there): work folder on every node ({node} is replaced by"
        " the node name); no whitespace",
    )
    ap.add_argument(
        "--binary",
        type=cmdline.text_value("a path without whitespace"),
        help="IOzone format: path of the iozone binary (default iozone); no whitespace",
    )
    args = ap.parse_args(argv)
    if args.format == "openmpi":
        for option, v in (("--workdir", args.workdir), ("--binary", args.binary)):
            if v is not None:
                raise Stop(f"{option}: only with --format iozone")
    elif not args.workdir:
        raise Stop("--workdir: required with --format iozone (the work folder on every node)")
    names = node_names(args)
    if args.format == "openmpi":
        sys.stdout.write("".join(f"{n} slots={args.slots}\n" for n in names))
        return 0
    if len(names) * args.slots > MAX_THREADS:
        raise Stop(
            f"--slots: {len(names)} nodes x {args.slots} slots is more than {MAX_THREADS} threads"
        )
    binary = args.binary or "iozone"
    lines = []
    for i in range(len(names) * args.slots):
        node = names[i % len(names)]
        lines.append(f"{node} {args.workdir.replace('{node}', node)} {binary}\n")
    sys.stdout.write("".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
