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
"""
import argparse
import os
import re
import sys

from iosweep_common import fail


def split_top(text):
    """Splits on commas outside brackets."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth < 0:
                fail(f"unbalanced ']' in node list '{text}'")
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if depth != 0:
        fail(f"unbalanced '[' in node list '{text}'")
    parts.append(cur)
    return [p for p in (x.strip() for x in parts) if p]


def expand(item):
    """node[01-03,7]x -> node01x node02x node03x node7x (recursively, for several brackets)."""
    m = re.search(r"\[([^\]]*)\]", item)
    if not m:
        return [item]
    head, tail, out = item[: m.start()], item[m.end() :], []
    for rng in m.group(1).split(","):
        rng = rng.strip()
        r = re.fullmatch(r"(\d+)(?:-(\d+))?", rng)
        if not r:
            fail(f"'{rng}' in '{item}' is not a number or a range such as 1-4 or 01-16")
        lo, hi = r.group(1), r.group(2) or r.group(1)
        if int(hi) < int(lo):
            fail(f"range '{rng}' in '{item}' goes backwards")
        width = len(lo) if lo.startswith("0") else 0
        for n in range(int(lo), int(hi) + 1):
            for rest in expand(tail):
                out.append(f"{head}{n:0{width}d}{rest}")
    return out


def node_names(args):
    items = args.nodes
    if not items:
        env = os.environ.get("SLURM_JOB_NODELIST") or os.environ.get("SLURM_NODELIST")
        if not env:
            fail("no nodes: give names (n[1-4] n7 ...) or run inside a Slurm allocation")
        items = [env]
    names = []
    for it in items:
        for part in split_top(it):
            names += expand(part)
    seen = set()
    for n in names:
        if n in seen:
            fail(f"node '{n}' is listed twice")
        seen.add(n)
    return names


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__,
    )
    ap.add_argument(
        "nodes", nargs="*", help="node names or Slurm node lists (default: $SLURM_JOB_NODELIST)"
    )
    ap.add_argument("--slots", type=int, default=1, help="ranks (threads) per node (default 1)")
    ap.add_argument("--format", choices=["openmpi", "iozone"], default="openmpi")
    ap.add_argument(
        "--workdir",
        help="IOzone format: work folder on every node ({node} is replaced by the node name)",
    )
    ap.add_argument(
        "--binary",
        default="iozone",
        help="IOzone format: path of the iozone binary (default iozone)",
    )
    args = ap.parse_args()
    if args.slots < 1:
        fail("--slots: must be at least 1")
    names = node_names(args)
    if args.format == "openmpi":
        for n in names:
            print(f"{n} slots={args.slots}")
        return 0
    if not args.workdir:
        fail("--workdir: required with --format iozone (the work folder on every node)")
    for i in range(len(names) * args.slots):
        node = names[i % len(names)]
        print(f"{node} {args.workdir.replace('{node}', node)} {args.binary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
