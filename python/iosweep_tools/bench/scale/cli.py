"""Many ranks in one launch: the whole 1..N sweep, its wall time, memory and overhead.

    scripts/scale-check --ranks 64                          # one machine, --oversubscribe
    scripts/scale-check --ranks 512 --nodes 16 --size 1m    # the published layout, emulated

Runs `iosweep run --sweep 1:N` over all five phases with small files (--size, 1 MiB sequential
records) and reports, from the job itself and from the results file it wrote:
- the wall time of the whole job (mpirun start to exit);
- the machine's memory: the largest drop of MemAvailable (/proc/meminfo, sampled every 0.2 s)
  below its value before the launch, which counts every process of the job once (ranks, orteds,
  mpirun) and shared pages once;
- each rank's own figures from the run's `rank_usage` table: peak resident memory (getrusage,
  shared library pages included), the largest memory it held alone while idle, and CPU time;
- the time each point spent outside its timed windows (the summary's `overhead_s`).

With --nodes, the ranks are spread over that many emulated nodes (scripts/cluster/emu-rsh, root
only), --slots per node, placed round-robin (`--map-by node`), as a threadlist of nodes would
place IOzone's threads. Not a CI test (tests/cluster runs a smaller one); docs/scaling.md
records its figures.

Every argument is checked before anything is made (one line, status 2): the bounds --help
gives, --size by iosweep's own parser (a multiple of the 1 MiB record), the files of the
largest point within --dir's free space, the ranks within MemAvailable (about 16 MiB each), and
--output a new file in an existing folder. The job is stopped when it runs far past what it was
asked for (core.children.job_timeout); Ctrl-C stops it and removes the run's folder.

When mpirun exits with a status other than 0, the line says what happened: mpirun's status, the
run's status and points as the results file holds them, and what mpirun and the ranks printed
(Open MPI's harmless setpgid warnings left out). mpirun's status also counts its daemons' and
ranks' ends after the run was written: when the run is complete with every point, its figures
are printed all the same, and the status is still 1.
"""
import argparse
import tempfile
from pathlib import Path

from iosweep_tools.bench.scale.usage import (
    MAX_NODES,
    MAX_RANKS,
    MAX_SIZE,
    RANK_BYTES,
    job_failure,
    read_usage,
    report_text,
    run_job,
    sweep_command,
)
from iosweep_tools.core import children, cmdline, command, files, install, launch, units
from iosweep_tools.core.errors import Stop


def parse_args(argv):
    ap = cmdline.Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--ranks",
        type=cmdline.count(1, MAX_RANKS),
        default=64,
        help=f"ranks of the job, 1 to {MAX_RANKS} (default 64)",
    )
    ap.add_argument(
        "--nodes",
        type=cmdline.count(0, MAX_NODES),
        default=0,
        help=f"emulated nodes to spread them over, at most {MAX_NODES} (default 0: this machine,"
        " --oversubscribe)",
    )
    ap.add_argument(
        "--slots",
        type=cmdline.count(0, MAX_RANKS),
        default=0,
        help=f"slots per emulated node, with --nodes, at most {MAX_RANKS} (default 0: ranks /"
        " nodes, rounded up)",
    )
    ap.add_argument(
        "--size",
        default="4m",
        help="file size per rank (default 4m; a multiple of 1 MiB, at most 64 GiB)",
    )
    ap.add_argument(
        "--direct",
        action="store_true",
        help="O_DIRECT: no page cache, so no kernel write-back sharing the cores with the ranks",
    )
    ap.add_argument(
        "--dir",
        help="an existing folder to make the run's folder in (default /var/tmp); removed at the"
        " end",
    )
    ap.add_argument(
        "--output",
        help="keep the results file here, a new file in an existing folder (default: removed at"
        " the end)",
    )
    ap.add_argument("--bin", default=install.find_binary(), help=cmdline.BIN_HELP)
    args = ap.parse_args(argv)
    if args.nodes > args.ranks:
        raise Stop(f"--nodes: {args.nodes} nodes for {args.ranks} ranks leave nodes empty")
    if args.slots and not args.nodes:
        raise Stop("--slots: only with --nodes (emulated nodes)")
    args.bin = cmdline.binary("--bin", args.bin)
    args.dir = files.work_folder("--dir", args.dir or "/var/tmp")
    if args.output:
        args.output = files.output_file("--output", args.output, new=True, what="results file")
    if args.nodes:
        why_not = launch.can_emulate()
        if why_not:
            raise Stop(f"--nodes: {why_not}")
    args.slots = args.slots or -(-args.ranks // max(args.nodes, 1))
    if args.nodes and args.slots * args.nodes < args.ranks:
        raise Stop(
            f"--slots: {args.nodes} nodes x {args.slots} slots hold fewer than {args.ranks} ranks"
        )
    (args.size_bytes,) = units.sizes(
        args.bin,
        (
            "--size",
            args.size,
            {"hi": MAX_SIZE, "multiple": 1 << 20, "multiple_why": "the 1 MiB sequential record"},
        ),
    )
    files.check_memory("--ranks", args.ranks, RANK_BYTES)
    files.check_space("--size", args.dir, args.ranks, args.size_bytes)
    return args


def main(argv=None):
    """The command; its status (see core.command.guard)."""
    return command.guard(_main, argv)


def _main(argv):
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="iosweep-scale.", dir=args.dir) as work:
        work = Path(work)
        data = work / "data"
        data.mkdir()
        out = Path(args.output) if args.output else work / "r.h5"
        hosts = (
            launch.emulated_nodes(work / "nodes", args.nodes, args.slots) if args.nodes else None
        )
        cmd = sweep_command(args, data, out)
        mpirun = launch.mpirun(args.ranks, hosts, bind=True)[0]
        print("scale-check:", " ".join(mpirun + [args.bin] + cmd), flush=True)
        wall_s, before, low, p = run_job(args, cmd, hosts)
        if p.returncode == 0:
            print(report_text(args, read_usage(out), wall_s, before, low), end="")
            return 0
        run, line = job_failure(out, p)
        if run is not None:  # the run is whole: its figures stand
            print(report_text(args, read_usage(out), wall_s, before, low), end="")
        raise Stop(line, 2 if children.refused(p) else 1)
