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
import sys

from iosweep_tools.core import cmdline, command
from iosweep_tools.core.errors import Stop
from iosweep_tools.threadlist.nodelist import (
    MAX_NODES,
    MAX_SLOTS,
    MAX_THREADS,
    iozone_lines,
    node_names,
    openmpi_lines,
)


def main(argv=None):
    """The command; its status (see core.command.guard)."""
    return command.guard(_main, argv)


def parser():
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
    return ap


def _main(argv=None):
    args = parser().parse_args(argv)
    if args.format == "openmpi":
        for option, v in (("--workdir", args.workdir), ("--binary", args.binary)):
            if v is not None:
                raise Stop(f"{option}: only with --format iozone")
    elif not args.workdir:
        raise Stop("--workdir: required with --format iozone (the work folder on every node)")
    names = node_names(args.nodes)
    if args.format == "openmpi":
        sys.stdout.write(openmpi_lines(names, args.slots))
    else:
        sys.stdout.write(iozone_lines(names, args.slots, args.workdir, args.binary or "iozone"))
    return 0
