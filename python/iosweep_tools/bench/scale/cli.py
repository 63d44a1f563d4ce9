"""Many ranks in one launch: the whole 1..N sweep, its wall time, memory and overhead.

    scripts/scale-check --ranks 64                          # one machine, --oversubscribe
    scripts/scale-check --ranks 512 --nodes 16 --size 1m    # the published layout, emulated

Runs `iosweep run --sweep 1:N` over its default phases with small files (--size, 1 MiB sequential
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
place IOzone's threads. CI runs it at its smallest (tests/scripts/test_scale_scripts.py: 8
ranks on 4 emulated nodes for a metadata preset); docs/scaling.md records its figures at scale.

Every argument is checked before anything is made (one line, status 2): the bounds --help
gives, --size by iosweep's own parser (a multiple of the 1 MiB record), the files of the
largest point within --dir's free space (its inodes for the metadata items and folders), the
ranks within MemAvailable (about 16 MiB each), --output a new file in an existing folder, and
with --config the whole command line of the job by iosweep's own dry run (its refusal said
with scale-check's options in its advice: scale-check has no --force). The job is stopped
when it runs far past what it was asked for (core.children.job_timeout: its bytes at 1 MiB/s,
its metadata operations at 100 per second); Ctrl-C stops it and removes the run's folder.

With --config, the job runs a preset's phases instead (a name of modes/ or a TOML file, as
`iosweep run --config` takes it; scale-check's own options win over the preset's: the sweep,
--size, --direct), and its metadata phases make --md-items items per rank (default 8), in place
of the preset's count: a PixStor metadata preset divides 2^21 items over each point's ranks.

    scripts/scale-check --ranks 512 --nodes 16 --config pixstor-md-empty --md-items 8

With --io500, the job is the IO500 in one launch (`iosweep io500` of an INI file scale-check
writes in the run's folder: ior-easy's blockSize --size, ior-hard's 64 segments, --md-items per
rank for both mdtest tests, default 8, a --stonewall of 1 s), every rank in one point, and
bench/scale/io500.py says what is verified of it: its steps, its result files and its score.

    scripts/scale-check --io500 --ranks 512 --nodes 16 --size 1m --md-items 8

Whatever ran, scale-check then verifies the run: complete, every point of the sweep, every phase
asked at each point, rank r on the node of rank r mod --nodes (round-robin) and the active ranks
spread evenly over the nodes at every row, and nothing left in the run's folder; with metadata
phases also the items per rank the run took and each metadata row's counts (ops = ranks x
--md-items), and it prints the metadata rows' rates. A check that fails is one line, status 1,
after the figures.

When mpirun exits with a status other than 0, the line says what happened: mpirun's status, the
run's status and points as the results file holds them, and what mpirun and the ranks printed
(Open MPI's harmless setpgid warnings left out). mpirun's status also counts its daemons' and
ranks' ends after the run was written: when the run is complete with every point, its figures
are printed all the same, and the status is still 1.
"""
import argparse
import tempfile
from pathlib import Path

from iosweep_tools.bench.scale import io500
from iosweep_tools.bench.scale.checks import md_table, run_problems, verified_text
from iosweep_tools.bench.scale.plan import Plan, dry_run
from iosweep_tools.bench.scale.usage import (
    DEFAULT_MD_ITEMS,
    MAX_MD_ITEMS,
    MAX_NODES,
    MAX_RANKS,
    MAX_SIZE,
    PHASES,
    RANK_BYTES,
    job_failure,
    read_usage,
    report_text,
    run_job,
    sweep_command,
)
from iosweep_tools.core import children, cmdline, command, files, install, launch, units
from iosweep_tools.core.errors import Stop
from iosweep_tools.core.text import shown


def _arguments():
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
        "--config",
        type=cmdline.text_value("a preset's name or a TOML file"),
        help="run this preset's phases (a name of modes/, e.g. pixstor-md-empty, or a file, as"
        " iosweep run --config takes it); scale-check's options win over the preset's",
    )
    ap.add_argument(
        "--md-items",
        type=cmdline.count(1, MAX_MD_ITEMS),
        help=f"with --config: items per rank of its metadata phases, 1 to {MAX_MD_ITEMS}, in"
        f" place of the preset's count (default {DEFAULT_MD_ITEMS})",
    )
    ap.add_argument(
        "--io500",
        action="store_true",
        help="run the IO500 in one launch (iosweep io500) instead of a sweep",
    )
    ap.add_argument(
        "--stonewall",
        type=cmdline.count(1, 3600),
        help="with --io500: the INI file's stonewall-time in seconds (default 1)",
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
    return ap


def _check_layout(args):
    """--nodes and --slots against --ranks, and whether this machine can emulate nodes."""
    if args.nodes > args.ranks:
        raise Stop(f"--nodes: {args.nodes} nodes for {args.ranks} ranks leave nodes empty")
    if args.slots and not args.nodes:
        raise Stop("--slots: only with --nodes (emulated nodes)")
    if args.nodes:
        why_not = launch.can_emulate()
        if why_not:
            raise Stop(f"--nodes: {why_not}")
    args.slots = args.slots or -(-args.ranks // max(args.nodes, 1))
    if args.nodes and args.slots * args.nodes < args.ranks:
        raise Stop(
            f"--slots: {args.nodes} nodes x {args.slots} slots hold fewer than {args.ranks} ranks"
        )


def _check_plan(args):
    """What the job will run: iosweep's default phases, or --config's as iosweep's dry run of
    the job's command line says (which refuses what iosweep would refuse)."""
    if args.io500:
        args.md_items = args.md_items or DEFAULT_MD_ITEMS
        args.stonewall = args.stonewall or 1
        args.plan = Plan(list(io500.IOSWEEP_PHASES), 1, 2 * args.md_items, 0)
        return
    if not args.config:
        args.plan = Plan(list(PHASES), 1)
        return
    given = args.md_items is not None
    args.md_items = args.md_items if given else DEFAULT_MD_ITEMS
    out = Path(args.output) if args.output else Path(args.dir) / "iosweep-scale.dry-run.h5"
    args.plan = dry_run(args.bin, sweep_command(args, Path(args.dir), out))
    if given and not args.plan.md_phases():
        raise Stop(
            f"--md-items: --config {args.config} runs no metadata phase"
            f" ({', '.join(args.plan.phases)})"
        )


def parse_args(argv):
    args = _arguments().parse_args(argv)
    if args.io500 and args.config:
        raise Stop("--io500: not with --config (the IO500 is its own set of phases)")
    if args.md_items is not None and not (args.config or args.io500):
        raise Stop("--md-items: only with --config (a preset with metadata phases) or --io500")
    if args.stonewall is not None and not args.io500:
        raise Stop("--stonewall: only with --io500")
    if args.io500 and args.direct:
        raise Stop("--direct: not with --io500 (the IO500 runs through the page cache)")
    _check_layout(args)
    args.bin = cmdline.binary("--bin", args.bin)
    args.dir = files.work_folder("--dir", args.dir or "/var/tmp")
    if args.output:
        args.output = files.output_file("--output", args.output, new=True, what="results file")
    (args.size_bytes,) = units.sizes(
        args.bin,
        (
            "--size",
            args.size,
            {"hi": MAX_SIZE, "multiple": 1 << 20, "multiple_why": "the 1 MiB sequential record"},
        ),
    )
    _check_plan(args)
    files.check_memory("--ranks", args.ranks, RANK_BYTES)
    if args.plan.data_phases():
        files.check_space("--size", args.dir, args.ranks, args.size_bytes)
    if args.plan.md_phases():
        files.check_inodes("--md-items", args.dir, args.ranks, args.plan.md_inodes_per_rank)
    return args


def main(argv=None):
    """The command; its status (see core.command.guard)."""
    return command.guard(_main, argv)


def _verified(args, run, data):
    """The line that says what holds of the run the job wrote (checks.run_problems) and that
    `data`, the folder the run was given, is empty again; Stop (status 1) with the first thing
    that does not hold."""
    nodes = args.nodes or 1
    md_items = args.md_items if args.plan.md_phases() else None
    problems = run_problems(run, args.plan.phases, args.ranks, nodes, md_items, args.plan.steps)
    left = sorted(x.name for x in data.iterdir())
    if left:
        problems.append(f"{shown(str(data))} still holds {len(left)} entries ({left[0]} ...)")
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise Stop(f"the job's run {run.id} in {shown(run.path)}: {problems[0]}{more}", 1)
    return verified_text(run, args.plan.phases, nodes, md_items)


def _io500_report(args, work, out, wall_s, before, low):
    """The job's figures, its IO500 lines, and what holds of it (bench/scale/io500.py); Stop
    (status 1) with the first thing that does not."""
    run = read_usage(out)
    print(report_text(args, run, wall_s, before, low), end="")
    print((work / "results" / "result_summary.txt").read_text(), end="", flush=True)
    problems = io500.io500_problems(run, args, work)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise Stop(f"the job's run {run.id} in {shown(run.path)}: {problems[0]}{more}", 1)
    print(io500.verified_text(args), end="")
    return 0


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
        if args.io500:
            data.rmdir()  # iosweep io500 makes it, as the application does
            (work / "io500.ini").write_text(io500.io500_ini(work, args))
            cmd = ["io500", str(work / "io500.ini"), "--output", str(out), "--quiet"]
        mpirun = launch.mpirun(args.ranks, hosts, bind=True)[0]
        print("scale-check:", " ".join(mpirun + [args.bin] + cmd), flush=True)
        wall_s, before, low, p = run_job(args, cmd, hosts)
        if p.returncode == 0 and args.io500:
            return _io500_report(args, work, out, wall_s, before, low)
        if p.returncode == 0:
            run = read_usage(out)
            print(report_text(args, run, wall_s, before, low) + md_table(run), end="", flush=True)
            print(_verified(args, run, data), end="")
            return 0
        run, line = job_failure(out, p)
        if run is not None:  # the run is whole: its figures stand
            run = read_usage(out)
            print(report_text(args, run, wall_s, before, low) + md_table(run), end="")
        raise Stop(line, 2 if children.refused(p) else 1)
